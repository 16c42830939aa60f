// SPDX-License-Identifier: GPL-2.0
/*
 * test_conf.c - the configuration engine (lib/conf): one boolean rule, the
 * key tables' ranges, files read the FIFO-safe way, and the man page's
 * [skind] keys written from the table
 *
 * `test_conf --man` prints the [skind] lines of man/skind.conf.5 as the
 * table gives them (to paste after changing the table).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"

static void booleans(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	static const char *const bad[] = { "", "Yes", "TRUE", "2", "y", "of", "yes " };
	unsigned int i;
	bool b;

	(void)state;
	for (i = 0; i < 4; i++) {
		b = false;
		assert_true(conf_parse_bool(yes[i], &b) && b);
		b = true;
		assert_true(conf_parse_bool(no[i], &b) && !b);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(conf_parse_bool(bad[i], &b));
}

static void ranges(void **state)
{
	struct skin_config_comp c;
	char why[256];
	const struct conf_key *k;

	(void)state;
	conf_keys_default(conf_comp_keys, conf_comp_n_keys, &c);
	assert_null(conf_keys_check(conf_comp_keys, conf_comp_n_keys, &c, why, sizeof(why)));
	k = conf_key_find(conf_comp_keys, conf_comp_n_keys, "min_baseline");
	assert_non_null(k);
	assert_int_equal(conf_key_set(k, &c, "127", why, sizeof(why)), 0);
	assert_true(c.min_baseline == 127);
	assert_int_equal(conf_key_set(k, &c, "200", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "min_baseline = '200': expected a number >= 0 and <= 127");
	c.min_baseline = 200;
	assert_ptr_equal(conf_keys_check(conf_comp_keys, conf_comp_n_keys, &c, why, sizeof(why)), k);
	assert_string_equal(why, "min_baseline = 200: expected a number >= 0 and <= 127");
	k = conf_key_find(conf_comp_keys, conf_comp_n_keys, "period_ms");
	assert_int_equal(conf_key_set(k, &c, "0x14", why, sizeof(why)), 0);
	assert_int_equal(c.period_ms, 20);
	assert_int_equal(conf_key_set(k, &c, "-1", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "period_ms = '-1': expected an integer 1..10000");
	k = conf_key_find(conf_comp_keys, conf_comp_n_keys, "stuck_s");
	assert_int_equal(conf_key_set(k, &c, "nan", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "stuck_s = 'nan': expected a number > 0 and <= 1e+07 seconds");
	assert_null(conf_key_find(conf_comp_keys, conf_comp_n_keys, "nope"));
}

static void files(void **state)
{
	char dir[] = "/tmp/test_confXXXXXX", path[64];
	struct skin_error err;
	size_t len;
	char *buf;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_null(conf_read_file(path, &len, &err));
	assert_non_null(strstr(err.text, "is a FIFO, not a regular file"));
	unlink(path);
	snprintf(path, sizeof(path), "%s/nul.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite("[a]\nb = c\0d\n", 1, 12, f);
	fclose(f);
	assert_null(conf_read_file(path, &len, &err));
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 6);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ok.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[a]\nb = c\n", f);
	fclose(f);
	buf = conf_read_file(path, &len, &err);
	assert_non_null(buf);
	assert_int_equal(len, 10);
	free(buf);
	unlink(path);
	rmdir(dir);
}

/* man/skind.conf.5's [skind] keys are the table's, line for line. */
static void man_page_is_the_table(void **state)
{
	char path[1024], *page = NULL, *want, *from, *to;
	size_t n = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/man/skind.conf.5", SKIN_SOURCE_ROOT);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&page, &n, '\0', f) > 0);
	fclose(f);
	from = strstr(page, ".SS [skind]\n");
	assert_non_null(from);
	from += strlen(".SS [skind]\n");
	to = strstr(from, ".SS [board]\n");
	assert_non_null(to);
	*to = '\0';
	want = conf_keys_man(conf_comp_keys, conf_comp_n_keys);
	assert_non_null(want);
	if (strcmp(from, want))
		fail_msg("man/skind.conf.5's [skind] differs from lib/conf/comp.c: print the table's with test_conf --man\n%s", want);
	free(want);
	free(page);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(booleans),
		cmocka_unit_test(ranges),
		cmocka_unit_test(files),
		cmocka_unit_test(man_page_is_the_table),
	};

	if (argc > 1 && !strcmp(argv[1], "--man")) {
		char *man = conf_keys_man(conf_comp_keys, conf_comp_n_keys);

		fputs(man ? man : "", stdout);
		free(man);
		return man ? 0 : 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
