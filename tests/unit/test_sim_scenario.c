// SPDX-License-Identifier: GPL-2.0
/*
 * test_sim_scenario.c - the scenario parser: good files (every directive,
 * the shipped scenarios), bad ones with the line and column of the fault,
 * and what only the skin can check (parts, taxels, boards) with its line
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <skin/sim.h>

static struct skin_sim_scenario *load(const char *text, struct skin_error *err)
{
	return skin_sim_scenario_load_buffer(text, strlen(text), "dir/t.scn", err);
}

static void test_good(void **state)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"config ../etc/skind.conf   # trailing comment\n"
		"seed 0x2a\n"
		"duration 10s\n"
		"noise 0.5\n"
		"spread 1\n"
		"drift 2 2min\n"
		"thermal 2.5\n"
		"at 5s release a\n"			/* sorted by time */
		"at 1s press left_hand 0.01 -2cm 3mm radius 10mm force 90 name a ramp 50ms\n"
		"at 2s move a to taxel 100 over 1.5s\n"
		"\tat 1500ms press left_hand taxel 3 radius 0.01 force 20\n"
		"at 6s fault drop 0.1\n"
		"at 6s fault drop 0.1 board can0:14 for 2s\n"
		"at 6s fault dead can0:14 triangle 15\n"
		"at 6s fault stuck left_hand 7 value 200 for 100ms\n"
		"at 6s fault stuck left_hand 7\n"
		"at 6s fault saturate left_hand 8 for 1s\n"
		"at 6s fault noisy left_hand 9 amplitude 60 for 1s\n"
		"at 6s fault noisy left_hand 9\n"
		"at 6s fault garbage can0:14 16\n"
		"at 6s fault errors can0 64\r\n"
		"at 10s release c2\n";
	struct skin_error err;
	struct skin_sim_scenario *sc = load(text, &err);

	(void)state;
	if (!sc)
		fail_msg("%s", err.text);
	assert_string_equal(skin_sim_scenario_config(sc), "dir/../etc/skind.conf");
	assert_int_equal(skin_sim_scenario_seed(sc), 42);
	assert_int_equal(skin_sim_scenario_duration(sc), 10000000000ULL);
	assert_int_equal(skin_sim_scenario_events(sc), 15);
	skin_sim_scenario_set_seed(sc, 7);
	assert_int_equal(skin_sim_scenario_seed(sc), 7);
	skin_sim_scenario_free(sc);

	/* empty: defaults, run until stopped */
	sc = load("", &err);
	assert_non_null(sc);
	assert_null(skin_sim_scenario_config(sc));
	assert_int_equal(skin_sim_scenario_duration(sc), 0);
	assert_int_equal(skin_sim_scenario_events(sc), 0);
	skin_sim_scenario_free(sc);

	/* absolute config paths stay */
	sc = load("config /etc/skin/skind.conf\n", &err);
	assert_string_equal(skin_sim_scenario_config(sc), "/etc/skin/skind.conf");
	skin_sim_scenario_free(sc);
}

struct bad {
	const char *text;
	const char *error;	/* the whole message */
};

static const struct bad bad[] = {
	{ "frobnicate 1\n", "dir/t.scn:1:1: unknown directive 'frobnicate' (config, seed, duration, noise, spread, drift, thermal, at)" },
	{ "\n\nseed\n", "dir/t.scn:3:5: expected a seed at the end of the line" },
	{ "seed -1\n", "dir/t.scn:1:6: expected a seed (an unsigned integer), found '-1'" },
	{ "seed 1\nseed 2\n", "dir/t.scn:2:1: 'seed' given twice (first on line 1)" },
	{ "seed 1 2\n", "dir/t.scn:1:8: unexpected '2'" },
	{ "duration 10\n", "dir/t.scn:1:10: expected a time such as 10s, found '10'" },
	{ "duration 10h\n", "dir/t.scn:1:10: expected a time such as 10s, found '10h'" },
	{ "duration -1s\n", "dir/t.scn:1:10: a time such as 10s -1s out of range (0..8.64e+13)" },
	{ "noise x\n", "dir/t.scn:1:7: expected a noise deviation (raw counts), found 'x'" },
	{ "noise 101\n", "dir/t.scn:1:7: a noise deviation (raw counts) 101 out of range (0..100)" },
	{ "noise nan\n", "dir/t.scn:1:7: expected a noise deviation (raw counts), found 'nan'" },
	{ "drift 2 0s\n", "dir/t.scn:1:9: drift period must not be 0" },
	{ "at\n", "dir/t.scn:1:3: expected a time such as 1.5s or 200ms at the end of the line" },
	{ "at 1s\n", "dir/t.scn:1:6: expected an action (press, move, release, fault) at the end of the line" },
	{ "at 1s poke\n", "dir/t.scn:1:7: unknown action 'poke' (press, move, release, fault)" },
	{ "at 1s press hand 0 0\n", "dir/t.scn:1:21: expected a z coordinate at the end of the line" },
	{ "at 1s press hand 0 0 1km radius 1 force 1\n", "dir/t.scn:1:22: expected a z coordinate, found '1km'" },
	{ "at 1s press hand 0 0 0 radius 0 force 1\n", "dir/t.scn:1:31: a radius 0 out of range (0.0001..10)" },
	{ "at 1s press hand 0 0 0 radius 1mm\n", "dir/t.scn:1:34: expected 'force' at the end of the line" },
	{ "at 1s press hand 0 0 0 size 1mm\n", "dir/t.scn:1:24: expected 'radius', found 'size'" },
	{ "at 1s press hand taxel -1 radius 1mm force 1\n", "dir/t.scn:1:24: a taxel number -1 out of range (0..1000000)" },
	{ "at 1s press hand 0 0 0 radius 1mm force 1 name a/b\n", "dir/t.scn:1:49: contact names are [A-Za-z0-9_.-]" },
	{ "at 1s press hand 0 0 0 radius 1mm force 1 colour red\n", "dir/t.scn:1:43: expected 'name' or 'ramp', found 'colour'" },
	{ "at 1s move a to 0 0 0 over 1s\n", "dir/t.scn:1: contact 'a' is not pressed at 1.000s" },
	{ "at 1s press h 0 0 0 radius 1mm force 1 name a\nat 2s press h 0 0 0 radius 1mm force 1 name a\n",
	  "dir/t.scn:2: contact 'a' is already pressed (line 1)" },
	{ "at 1s press h 0 0 0 radius 1mm force 1\nat 0.5s release c1\n", "dir/t.scn:2: contact 'c1' is not pressed at 0.500s" },
	{ "at 1s press h 0 0 0 radius 1mm force 1\nat 2s release c1\nat 3s release c1\n", "dir/t.scn:3: contact 'c1' is not pressed at 3.000s" },
	{ "duration 1s\nat 2s fault drop 1\n", "dir/t.scn:2: event at 2.000s is after the end (duration 1.000s)" },
	{ "at 1s fault\n", "dir/t.scn:1:12: expected a fault (drop, dead, stuck, saturate, noisy, garbage, errors) at the end of the line" },
	{ "at 1s fault melt\n", "dir/t.scn:1:13: unknown fault 'melt' (drop, dead, stuck, saturate, noisy, garbage, errors)" },
	{ "at 1s fault drop 2\n", "dir/t.scn:1:18: a probability 2 out of range (0..1)" },
	{ "at 1s fault drop 0.5 board can0\n", "dir/t.scn:1:28: expected a board BUS:ADDRESS, found 'can0'" },
	{ "at 1s fault drop 0.5 board can0:16\n", "dir/t.scn:1:33: board address must be 0..15, found '16'" },
	{ "at 1s fault dead can0:1 triangle 16\n", "dir/t.scn:1:34: a triangle number 16 out of range (0..15)" },
	{ "at 1s fault dead can0:1 triangle 1 for\n", "dir/t.scn:1:39: expected a duration at the end of the line" },
	{ "at 1s fault stuck h 1 value 256\n", "dir/t.scn:1:29: a raw value 256 out of range (0..255)" },
	{ "at 1s fault noisy h 1 amplitude 0\n", "dir/t.scn:1:33: an amplitude (raw counts) 0 out of range (1..255)" },
	{ "at 1s fault noisy h 1 value 3\n", "dir/t.scn:1:23: unexpected 'value'" },
	{ "at 1s fault garbage can0:1 17\n", "dir/t.scn:1:28: frames per period 17 out of range (1..16)" },
	{ "at 1s fault errors can0 0\n", "dir/t.scn:1:25: a number of error frames 0 out of range (1..64)" },
	{ "seed 1\x01\n", "dir/t.scn:1:7: control character 0x01" },
	{ "config\n", "dir/t.scn:1:7: expected a config file at the end of the line" },
};

static void test_bad(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct skin_error err;
		struct skin_sim_scenario *sc;

		memset(&err, 0, sizeof(err));
		sc = load(bad[i].text, &err);
		if (sc) {
			skin_sim_scenario_free(sc);
			fail_msg("accepted: %s", bad[i].text);
		}
		if (strcmp(err.text, bad[i].error))
			fail_msg("'%s':\n got  %s\n want %s", bad[i].text,
				 err.text, bad[i].error);
	}
}

static void test_long_and_many_words(void **state)
{
	char text[2048];
	struct skin_error err;
	size_t n;

	(void)state;
	strcpy(text, "seed ");
	for (n = 5; n < 400; n++)
		text[n] = '1';
	text[n] = '\0';
	assert_null(load(text, &err));
	assert_string_equal(err.text, "dir/t.scn:1:6: word longer than 255 characters");
	strcpy(text, "seed");
	for (n = 0; n < 40; n++)
		strcat(text, " 1");
	assert_null(load(text, &err));
	assert_string_equal(err.text, "dir/t.scn:1:68: more than 32 words on a line");
	assert_null(skin_sim_scenario_load("/nonexistent.scn", &err));
	assert_string_equal(err.text, "/nonexistent.scn: cannot open: No such file or directory");
}

/* What the skin checks: parts, taxels, boards, buses; with the line. */
static void test_against_skin(void **state)
{
	static const struct bad cases[] = {
		{ "\nat 1s press left_hnd taxel 3 radius 1cm force 9\n", "t.scn:2: no part 'left_hnd' in the config" },
		{ "at 1s press left_hand taxel 192 radius 1cm force 9\n", "t.scn:1: part 'left_hand' has 192 taxels, no taxel 192" },
		{ "at 1s press left_hand taxel 107 radius 1cm force 9\n", "t.scn:1: taxel 107 of 'left_hand' is not a tactile taxel with a known position" },
		{ "at 1s press left_hand taxel 3 radius 1cm force 9\n", "t.scn:1: taxel 3 of 'left_hand' is not a tactile taxel with a known position" },
		{ "at 1s fault stuck left_hand 70\n", "t.scn:1: part 'left_hand' has no taxel 70" },
		{ "at 1s fault noisy left_hand 70\n", "t.scn:1: part 'left_hand' has no taxel 70" },
		{ "at 1s fault noisy right_hand 1\n", "t.scn:1: no part 'right_hand' in the config" },
		{ "at 1s fault dead vcan0:3 triangle 1\n", "t.scn:1: no board vcan0:3 in the config" },
		{ "at 1s fault drop 1 board vcan9:14\n", "t.scn:1: no board vcan9:14 in the config" },
		{ "at 1s fault errors vcan9 3\n", "t.scn:1: no bus 'vcan9' in the config" },
		{ "at 1s press left_hand taxel 96 radius 1cm force 9\nat 2s move c1 to taxel 70 over 1s\n",
		  "t.scn:2: taxel 70 of 'left_hand' is not a tactile taxel with a known position" },
	};
	static const char conf[] =
		"[bus vcan0]\n"
		"[part left_hand]\n"
		"layout = hand_v2_1\n"
		"geometry = icub/positions/left_hand_V2_1.txt\n"
		"patches = vcan0:14\n";
	char name[1024];
	struct skin_config *c;
	struct skin_error err;
	size_t i;

	(void)state;
	snprintf(name, sizeof(name), "%s/etc/t.conf", SKIN_SOURCE_ROOT);
	c = skin_config_load_buffer(conf, sizeof(conf) - 1, name, &err);
	if (!c)
		fail_msg("%s", err.text);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct skin_sim_scenario *sc =
			skin_sim_scenario_load_buffer(cases[i].text,
						      strlen(cases[i].text),
						      "t.scn", &err);
		struct skin_sim *s;

		if (!sc)
			fail_msg("%s: %s", cases[i].text, err.text);
		s = skin_sim_new(c, sc, &err);
		skin_sim_scenario_free(sc);
		if (s) {
			skin_sim_free(s);
			fail_msg("accepted: %s", cases[i].text);
		}
		if (strcmp(err.text, cases[i].error))
			fail_msg("'%s':\n got  %s\n want %s", cases[i].text,
				 err.text, cases[i].error);
	}
	skin_config_free(c);
}

/* Every scenario shipped in etc/scenarios loads and builds. */
static void test_shipped(void **state)
{
	static const char *const names[] = {
		"single-touch", "two-touches", "sliding-touch",
		"persistent-contact", "noise-only", "faults",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[1024];
		struct skin_error err;
		struct skin_sim_scenario *sc;
		struct skin_config *c;
		struct skin_sim *s;

		snprintf(path, sizeof(path), "%s/etc/scenarios/%s.scn",
			 SKIN_SOURCE_ROOT, names[i]);
		sc = skin_sim_scenario_load(path, &err);
		if (!sc)
			fail_msg("%s", err.text);
		assert_non_null(skin_sim_scenario_config(sc));
		c = skin_config_load(skin_sim_scenario_config(sc), &err);
		if (!c)
			fail_msg("%s", err.text);
		s = skin_sim_new(c, sc, &err);
		if (!s)
			fail_msg("%s", err.text);
		assert_true(skin_sim_scenario_duration(sc) > 0);
		skin_sim_free(s);
		skin_config_free(c);
		skin_sim_scenario_free(sc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_long_and_many_words),
		cmocka_unit_test(test_against_skin),
		cmocka_unit_test(test_shipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
