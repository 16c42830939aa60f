// SPDX-License-Identifier: GPL-2.0
/*
 * test_conf.c - the configuration engine (lib/conf): one boolean rule, the
 * key tables' ranges, files read the FIFO-safe way, and the man page's
 * [skind] keys written from the table
 *
 * `test_conf --man` prints the key lines of man/skind.conf.5 as the
 * tables give them (to paste after changing a table).
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

/* The man page's key lines each table writes: after the text that opens
 * its section, up to the next section. */
static const struct man_section {
	const char *start, *end;
	const struct conf_key *keys;
	const size_t *n;
} man_sections[] = {
	{ ".SS [skind]\n", ".SS [board]\n", conf_comp_keys, &conf_comp_n_keys },
	{ ".SS [board]\nSent to every board when it starts.\n", ".SS [board \\fIBUS",
	  conf_board_keys, &conf_board_n_keys },
	{ ".SS [bus \\fINAME\\fP]\nA CAN interface, e.g.\n.BR \"[bus can0]\" .\n",
	  ".SS [part ", conf_bus_keys, &conf_bus_n_keys },
};

static void print_man(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(man_sections) / sizeof(man_sections[0]); i++) {
		char *man = conf_keys_man(man_sections[i].keys, *man_sections[i].n);

		printf("%s%s%s\n", man_sections[i].start, man ? man : "",
		       man_sections[i].end);
		free(man);
	}
}

/* man/skind.conf.5's keys are the tables', line for line. */
static void man_page_is_the_table(void **state)
{
	char path[1024], *page = NULL;
	size_t n = 0;
	unsigned int i;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/man/skind.conf.5", SKIN_SOURCE_ROOT);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getdelim(&page, &n, '\0', f) > 0);
	fclose(f);
	for (i = 0; i < sizeof(man_sections) / sizeof(man_sections[0]); i++) {
		const struct man_section *ms = &man_sections[i];
		char *from = strstr(page, ms->start), *to, *want;

		if (!from)
			fail_msg("man/skind.conf.5: no '%s'", ms->start);
		from += strlen(ms->start);
		to = strstr(from, ms->end);
		assert_non_null(to);
		want = conf_keys_man(ms->keys, *ms->n);
		assert_non_null(want);
		if ((size_t)(to - from) != strlen(want) || memcmp(from, want, strlen(want)))
			fail_msg("man/skind.conf.5 after '%s' differs from lib/conf/skind.c: print the tables' with test_conf --man\n%s",
				 ms->start, want);
		free(want);
	}
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
		print_man();
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
