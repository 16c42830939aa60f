// SPDX-License-Identifier: GPL-2.0
/*
 * test_ros2_config.c - the bridge's configuration: what it accepts, and
 * where and why it refuses the rest (FILE:LINE:COL: WHAT)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"
#include "config.h"

static void test_defaults(void **state)
{
	struct ros2_config c;
	struct skin_error err;

	(void)state;
	ros2_config_init(&c);
	assert_int_equal(ros2_config_parse(&c, "# nothing\n\n", "t.conf", &err), 0);
	assert_int_equal(c.domain_id, 0);
	assert_string_equal(c.ns, "/skin");
	assert_true(c.raw);
	assert_true(ros2_config_publishes(&c, "anything"));
	assert_string_equal(ros2_config_frame(&c, "left_hand", SKIN_LEFT_HAND), "l_hand_dh_frame");
	assert_string_equal(ros2_config_frame(&c, "rf", SKIN_RIGHT_FOREARM), "r_forearm_dh_frame");
	assert_string_equal(ros2_config_frame(&c, "torso", SKIN_FRONT_TORSO), "torso");
	ros2_config_free(&c);
}

static void test_full(void **state)
{
	static const char conf[] =
		"; the robot's left arm only\n"
		"[bridge]\n"
		"domain_id = 42   # ROS_DOMAIN_ID\n"
		"  namespace=/robot1/skin\n"
		"parts = left_hand, left_forearm pad\n"
		"raw = no\n"
		"socket = /tmp/s.sock\n"
		"[part pad]\n"
		"frame_id = gripper_pad_link\n"
		"[part left_hand]\n"
		"frame_id = l_hand\n";
	struct ros2_config c;
	struct skin_error err;

	(void)state;
	ros2_config_init(&c);
	assert_int_equal(ros2_config_parse(&c, conf, "t.conf", &err), 0);
	assert_int_equal(c.domain_id, 42);
	assert_string_equal(c.ns, "/robot1/skin");
	assert_false(c.raw);
	assert_string_equal(c.socket, "/tmp/s.sock");
	assert_true(ros2_config_publishes(&c, "left_hand"));
	assert_true(ros2_config_publishes(&c, "pad"));
	assert_true(ros2_config_publishes(&c, "left_forearm"));
	assert_false(ros2_config_publishes(&c, "right_hand"));
	assert_string_equal(ros2_config_frame(&c, "pad", 0), "gripper_pad_link");
	assert_string_equal(ros2_config_frame(&c, "left_hand", SKIN_LEFT_HAND), "l_hand");
	assert_string_equal(ros2_config_frame(&c, "left_forearm", SKIN_LEFT_FOREARM),
			    "l_forearm_dh_frame");
	ros2_config_free(&c);
}

static void expect_error(const char *conf, const char *text)
{
	struct ros2_config c;
	struct skin_error err;

	memset(&err, 0, sizeof(err));
	ros2_config_init(&c);
	assert_int_equal(ros2_config_parse(&c, conf, "b.conf", &err), -EINVAL);
	if (strcmp(err.text, text))
		print_message("# got  %s\n# want %s\n", err.text, text);
	assert_string_equal(err.text, text);
	ros2_config_free(&c);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("domain_id = 1\n",
		     "b.conf:1:1: 'domain_id' before any section: expected [bridge] or [part NAME] first");
	expect_error("[bridge]\ndomain_id = 233\n", "b.conf:2:13: domain_id = '233': expected an integer 0..232");
	expect_error("[bridge]\ndomain_id = -1\n", "b.conf:2:13: domain_id = '-1': expected an integer 0..232");
	expect_error("[bridge]\ndomain_id = 1x\n", "b.conf:2:13: domain_id = '1x': expected an integer 0..232");
	expect_error("[bridge]\n\nnamespace = skin\n",
		     "b.conf:3:13: namespace = 'skin': expected a ROS namespace such as /skin or /robot1/skin (components of [A-Za-z0-9_], not starting with a digit)");
	expect_error("[bridge]\nnamespace = /a//b\n",
		     "b.conf:2:13: namespace = '/a//b': expected a ROS namespace such as /skin or /robot1/skin (components of [A-Za-z0-9_], not starting with a digit)");
	expect_error("[bridge]\nrate = 5\n",
		     "b.conf:2:1: unknown key 'rate' in [bridge]: expected domain_id, namespace, parts, raw or socket");
	expect_error("[bridge]\nraw = maybe\n", "b.conf:2:7: raw = 'maybe': expected yes or no (true/false, on/off, 1/0)");
	expect_error("[bridge]\nparts = left_hand left-arm\n",
		     "b.conf:2:19: 'left-arm': part names are made of [A-Za-z0-9_] (ROS topic names)");
	expect_error("[bridge]\nparts =\n",
		     "b.conf:2:8: parts = names no part: expected part names, or no parts line for all of them");
	expect_error("[bridge]\nparts = a\nparts = b\n", "b.conf:3:9: parts given twice");
	expect_error("[bridges]\n",
		     "b.conf:1:1: unknown section [bridges]: expected [bridge] or [part NAME]");
	expect_error("[bridge\n", "b.conf:1:1: missing ']': expected [bridge] or [part NAME]");
	expect_error("[part ]\n", "b.conf:1:7: [part NAME]: the name is missing");
	expect_error("[part a.b]\n",
		     "b.conf:1:8: part names are made of [A-Za-z0-9_] (ROS topic names)");
	expect_error("[part a]\nframe_id = x\n[part a]\n",
		     "b.conf:3:7: [part a] again (first at line 1)");
	expect_error("[part a]\nframe = x\n",
		     "b.conf:2:1: unknown key 'frame' in [part]: expected frame_id");
	expect_error("[part a]\nframe_id =\n", "b.conf:2:11: frame_id: expected 1 to 127 characters");
	expect_error("[bridge]\njust words\n",
		     "b.conf:2:1: expected '[section]', 'key = value' or a comment");
	expect_error("[bridge] x\n", "b.conf:1:10: text after ']': expected [bridge] or [part NAME]");
}

/* A file that is not a regular file or is missing: named, never read. */
static void test_files(void **state)
{
	struct ros2_config c;
	struct skin_error err;
	char path[] = "/tmp/ros2conf.XXXXXX";
	int fd;

	(void)state;
	ros2_config_init(&c);
	assert_int_equal(ros2_config_load(&c, "/nonexistent/skin-ros2.conf", &err), -EINVAL);
	assert_non_null(strstr(err.text, "/nonexistent/skin-ros2.conf"));
	assert_non_null(strstr(err.text, "No such file"));
	assert_int_equal(ros2_config_load(&c, "/tmp", &err), -EINVAL);
	assert_non_null(strstr(err.text, "directory"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[bridge]\ndomain_id = 7\n", 23), 23);
	close(fd);
	assert_int_equal(ros2_config_load(&c, path, &err), 0);
	assert_int_equal(c.domain_id, 7);
	unlink(path);
	ros2_config_free(&c);
}

/* The configuration the packages install parses, and says the defaults. */
static void test_shipped(void **state)
{
	struct ros2_config c;
	struct skin_error err;

	(void)state;
	ros2_config_init(&c);
	if (ros2_config_load(&c, SKIN_SOURCE_ROOT "/bridges/ros2/skin-ros2.conf", &err))
		fail_msg("%s", err.text);
	assert_int_equal(c.domain_id, 0);
	assert_string_equal(c.ns, "/skin");
	assert_true(c.raw);
	assert_true(c.all_parts);
	ros2_config_free(&c);
}

/* man/skin-ros2-bridge.8 gives each key of the table with its default and
 * its doc line. */
static void test_man_page(void **state)
{
	const struct conf_key *t;
	char *page = NULL, want[512];
	size_t n = 0, nk, i;
	FILE *f;

	(void)state;
	f = fopen(SKIN_SOURCE_ROOT "/man/skin-ros2-bridge.8", "r");
	assert_non_null(f);
	assert_true(getdelim(&page, &n, '\0', f) > 0);
	fclose(f);
	t = ros2_config_keys(&nk);
	for (i = 0; i < nk; i++) {
		char def[64], *line;

		if (t[i].type == CONF_CUSTOM)
			snprintf(def, sizeof(def), "%s", t[i].def_text ? t[i].def_text : "");
		else if (t[i].type == CONF_BOOL)
			snprintf(def, sizeof(def), "%s", t[i].def ? "yes" : "no");
		else
			snprintf(def, sizeof(def), "%u", (unsigned int)t[i].def);
		snprintf(want, sizeof(want), "\n%s = %s", t[i].name, def);
		line = strstr(page, want);
		if (!line)
			fail_msg("man/skin-ros2-bridge.8: no line '%s'", want + 1);
		snprintf(want, sizeof(want), "\\fI%s\\fR\n", t[i].doc);
		if (!strstr(line, want) || strstr(line, want) > strchr(line + 1, '\n'))
			fail_msg("man/skin-ros2-bridge.8: %s's line does not end with '%s'",
				 t[i].name, want);
	}
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_man_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
