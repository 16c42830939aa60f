// SPDX-License-Identifier: GPL-2.0
/*
 * test_skinctl_layout.c - `skinctl layout` on the whole iCub (issue 16,
 * item 8): the full-body configuration and every file of each leg and
 * foot part (positions and skinGui) validate, and the upper legs' files
 * say which representative the rows past their taxel2Repr list get.
 */
#include <sys/wait.h>

#include "test_model_util.h"

/* skinctl layout FILE: its exit status and output (stdout and stderr). */
static int layout(const char *rel, char *out, size_t size)
{
	char cmd[2048];
	size_t n = 0, r;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s layout '%s' 2>&1", SKINCTL, src_path(rel));
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < size && (r = fread(out + n, 1, size - 1 - n, p)) > 0)
		n += r;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void full_body(void **state)
{
	static char out[65536];
	unsigned int i;

	(void)state;
	if (layout("etc/skind-full-body.conf", out, sizeof(out)))
		fail_msg("%s", out);
	assert_non_null(strstr(out, "parts 13, patches 44, slots 8448"));
	/* every SkinPart, by lib/model's names */
	for (i = 1; i < SKIN_PART_COUNT; i++) {
		const char *name = skin_part_id_name((enum skin_part_id)i);

		if (!strstr(out, name))
			fail_msg("no part %s in:\n%s", name, out);
	}
}

static void each_leg_and_foot(void **state)
{
	static const char *const files[] = {
		"left_leg_upper", "left_leg_lower", "left_foot",
		"right_leg_upper", "right_leg_lower", "right_foot",
	};
	static char out[65536];
	char rel[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "tests/data/icub/positions/%s.txt", files[i]);
		if (layout(rel, out, sizeof(out)))
			fail_msg("%s", out);
		assert_non_null(strstr(out, ": valid"));
		if (strstr(files[i], "upper") &&
		    !strstr(out, "rows 960..1343 get representative 0, as in skinDynLib"))
			fail_msg("no note on the rows past taxel2Repr:\n%s", out);
		snprintf(rel, sizeof(rel), "tests/data/icub/skinGui/%s.ini", files[i]);
		if (layout(rel, out, sizeof(out)))
			fail_msg("%s", out);
		assert_non_null(strstr(out, ": valid"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_body),
		cmocka_unit_test(each_leg_and_foot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
