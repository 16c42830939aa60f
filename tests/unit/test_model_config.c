// SPDX-License-Identifier: GPL-2.0
/*
 * test_model_config.c - skind.conf: the shipped examples, the merge of
 * layouts and geometry, and every kind of mistake
 */
#include <glob.h>

#include "test_model_util.h"

static struct skin_config *cfg(const char *text, struct skin_error *err)
{
	return skin_config_load_buffer(text, strlen(text), "/etc/skin/skind.conf", err);
}

static void cfg_fails(const char *text, const char *want)
{
	struct skin_error err;
	struct skin_config *c;

	memset(&err, 0, sizeof(err));
	c = cfg(text, &err);
	if (c) {
		skin_config_free(c);
		fail_msg("accepted, want: %s", want);
	}
	if (strcmp(err.text, want))
		fail_msg("error\n  got:  %s\n  want: %s", err.text, want);
}

/*
 * A board's own values: [board] with the keys of its [board BUS:ADDRESS]
 * over them, whichever comes first in the file; the other boards keep
 * [board]'s.  listen_only is per bus, off unless said.
 */
static void board_sections(void **state)
{
	struct skin_error err;
	struct skin_config *c;
	const struct skin_config_board *b;

	(void)state;
	c = cfg("[board can1:13]\ncdc_offset = 0x2000\nskin_type = 1\n"
		"[bus can0]\n[bus can1]\nlisten_only = yes\n"
		"[part a]\nlayout = forearm_v2\npatches = can1:13 can1:12\n"
		"[part b]\nlayout = hand_v2_1\npatches = can0:13\n"
		"[board]\nshift = 3\nskin_type = 8\n", &err);
	if (!c)
		fail_msg("%s", err.text);
	assert_int_equal(c->n_buses, 2);
	assert_int_equal(c->buses[0].listen_only, 0);
	assert_int_equal(c->buses[1].listen_only, 1);
	b = &c->parts[0].patches[0].board;		/* can1:13 */
	assert_int_equal(b->cdc_offset, 0x2000);
	assert_int_equal(b->skin_type, 1);
	assert_int_equal(b->shift, 3);
	assert_int_equal(b->period_ms, 50);
	b = &c->parts[0].patches[1].board;		/* can1:12 */
	assert_int_equal(b->cdc_offset, 0x2200);
	assert_int_equal(b->skin_type, 8);
	b = &c->parts[1].patches[0].board;		/* can0:13: another bus */
	assert_int_equal(b->cdc_offset, 0x2200);
	assert_int_equal(b->skin_type, 8);
	assert_int_equal(b->shift, 3);
	skin_config_free(c);
}

static void defaults_are_skinmanall(void **state)
{
	struct skin_error err;
	struct skin_config *c = cfg("[bus can0]\n[part left_hand]\nlayout = hand_v2_1\npatches = can0:14\n", &err);

	(void)state;
	assert_non_null(c);
	/* skinManAll.ini: period 20, minBaseline 3, addThreshold 7,
	 * compensationGain 0.2, contactCompensationGain 0.05,
	 * zeroUpRawData false, smoothFilter true, smoothFactor 0.5,
	 * binarization true, maxNeighborDist 0.015 */
	assert_int_equal(c->comp.period_ms, 20);
	assert_true(c->comp.min_baseline == 3);
	assert_true(c->comp.add_threshold == 7);
	assert_true(c->comp.compensation_gain == 0.2);
	assert_true(c->comp.contact_compensation_gain == 0.05);
	assert_false(c->comp.zero_up_raw_data);
	assert_true(c->comp.smooth_filter);
	assert_true(c->comp.smooth_factor == 0.5);
	assert_true(c->comp.binarization);
	assert_true(c->comp.max_neighbor_dist_m == 0.015);
	assert_true(c->comp.calibration_s == 5);
	assert_int_equal(c->board.no_load, 0xf0);
	assert_int_equal(c->board.cdc_offset, 0x2200);
	assert_int_equal(c->parts[0].skin_part, SKIN_LEFT_HAND);
	skin_config_free(c);
}

struct part_expect {
	const char *name;
	enum skin_part_id id;
	unsigned int patches, tactile, thermal, absent, with_pos;
	int first_address;
};

static void icub_upper_body(void **state)
{
	/* layouts merged with the positions files: pads from the layouts
	 * (the hand and forearm files mark them -1), unmounted triangles
	 * from the files */
	static const struct part_expect pe[] = {
		{ "left_hand", SKIN_LEFT_HAND, 1, 104, 4, 84, 48, 14 },
		{ "left_forearm", SKIN_LEFT_FOREARM, 2, 240, 48, 96, 240, 13 },
		{ "left_upper_arm", SKIN_LEFT_UPPER_ARM, 4, 350, 70, 348, 350, 11 },
		{ "right_hand", SKIN_RIGHT_HAND, 1, 104, 4, 84, 48, 14 },
		{ "right_forearm", SKIN_RIGHT_FOREARM, 2, 240, 48, 96, 240, 13 },
		{ "right_upper_arm", SKIN_RIGHT_UPPER_ARM, 4, 350, 70, 348, 350, 11 },
		{ "torso", SKIN_FRONT_TORSO, 4, 440, 88, 240, 528, 7 },
	};
	struct skin_model *m = must_load("etc/skind.conf", SKIN_FORMAT_AUTO);
	struct skin_model_stats st;
	unsigned int i;

	(void)state;
	assert_int_equal(m->n_parts, 7);
	assert_int_equal(m->n_patches, 18);
	assert_int_equal(m->n_taxels, 3456);
	for (i = 0; i < 7; i++) {
		const struct skin_part *p = &m->parts[i];

		assert_string_equal(p->name, pe[i].name);
		assert_int_equal(p->skin_part, pe[i].id);
		assert_int_equal(p->n_patches, pe[i].patches);
		assert_int_equal(m->patches[p->first_patch].address, pe[i].first_address);
		skin_model_stats(m, (int)i, &st);
		if (st.tactile != pe[i].tactile || st.thermal != pe[i].thermal ||
		    st.absent != pe[i].absent || st.with_pos != pe[i].with_pos)
			fail_msg("%s: %u/%u/%u, %u with a position", p->name,
				 st.tactile, st.thermal, st.absent, st.with_pos);
	}
	assert_string_equal(m->patches[17].bus, "can2");
	assert_int_equal(m->patches[17].address, 10);
	assert_int_equal(m->n_notes, 2);	/* the two upper-arm files */
	assert_true(m->neighbour_dist_m == 0.015);
	assert_true(m->n_nbr > 0);
	skin_model_free(m);
}

/* etc/skind-full-body.conf: the upper body and the legs (issue 16, item 8) */
static void icub_full_body(void **state)
{
	static const struct part_expect pe[] = {
		{ "left_leg_upper", SKIN_LEFT_LEG_UPPER, 7, 680, 94, 570, 680, 1 },
		{ "left_leg_lower", SKIN_LEFT_LEG_LOWER, 4, 380, 76, 312, 380, 8 },
		{ "left_foot", SKIN_LEFT_FOOT, 2, 250, 50, 84, 250, 13 },
		{ "right_leg_upper", SKIN_RIGHT_LEG_UPPER, 7, 680, 92, 572, 680, 1 },
		{ "right_leg_lower", SKIN_RIGHT_LEG_LOWER, 4, 380, 76, 312, 380, 8 },
		{ "right_foot", SKIN_RIGHT_FOOT, 2, 250, 50, 84, 250, 13 },
	};
	struct skin_model *m = must_load("etc/skind-full-body.conf", SKIN_FORMAT_AUTO);
	struct skin_model *u = must_load("etc/skind.conf", SKIN_FORMAT_AUTO);
	struct skin_model_stats st;
	unsigned int i, k, notes_past = 0;

	(void)state;
	assert_int_equal(m->n_parts, 13);
	assert_int_equal(m->n_patches, 18 + 2 * (7 + 4 + 2));
	assert_int_equal(m->n_taxels, 3456 + 2 * (1344 + 768 + 384));
	/* the upper body is skind.conf's, slot for slot */
	for (i = 0; i < u->n_taxels; i++)
		assert_int_equal(m->taxels[i].kind, u->taxels[i].kind);
	for (i = 0; i < 6; i++) {
		const struct skin_part *p = &m->parts[7 + i];

		assert_string_equal(p->name, pe[i].name);
		assert_int_equal(p->skin_part, pe[i].id);
		assert_int_equal(p->n_patches, pe[i].patches);
		assert_int_equal(m->patches[p->first_patch].address, pe[i].first_address);
		skin_model_stats(m, (int)(7 + i), &st);
		if (st.tactile != pe[i].tactile || st.thermal != pe[i].thermal ||
		    st.absent != pe[i].absent || st.with_pos != pe[i].with_pos)
			fail_msg("%s: %u/%u/%u, %u with a position", p->name,
				 st.tactile, st.thermal, st.absent, st.with_pos);
	}
	/* a leg's two buses: patch 1 the upper leg, patch 2 the foot and the
	 * lower leg (left_leg-eb10-skin.xml) */
	assert_string_equal(m->patches[m->parts[7].first_patch].bus, "can3");
	assert_string_equal(m->patches[m->parts[8].first_patch].bus, "can4");
	assert_string_equal(m->patches[m->parts[9].first_patch].bus, "can4");
	assert_string_equal(m->patches[m->parts[10].first_patch].bus, "can5");
	/* the arms' two notes, one per leg and foot file; the upper legs'
	 * say which representative the rows past the list get */
	assert_int_equal(m->n_notes, 2 + 6);
	for (k = 0; k < m->n_notes; k++)
		notes_past += strstr(m->notes[k], "get representative 0, as in skinDynLib") != NULL;
	assert_int_equal(notes_past, 2);
	assert_true(m->n_nbr > u->n_nbr);
	skin_model_free(u);
	skin_model_free(m);
}

/* Every configuration the project ships loads. */
static void every_shipped_config(void **state)
{
	glob_t g;
	size_t i;

	(void)state;
	assert_int_equal(glob(src_path("etc/*.conf"), 0, NULL, &g), 0);
	assert_int_equal(glob(src_path("etc/examples/*.conf"), GLOB_APPEND, NULL, &g), 0);
	assert_true(g.gl_pathc >= 4);	/* skind, full body, 2+ examples */
	for (i = 0; i < g.gl_pathc; i++) {
		struct skin_error err;
		struct skin_model *m = skin_model_load(g.gl_pathv[i], SKIN_FORMAT_AUTO, &err);

		if (!m)
			fail_msg("%s", err.text);
		assert_true(m->n_parts > 0);
		skin_model_free(m);
	}
	globfree(&g);
}

static void urdf_example(void **state)
{
	struct skin_model *m = must_load("etc/examples/urdf-array.conf", SKIN_FORMAT_AUTO);
	struct skin_model_stats st;

	(void)state;
	assert_int_equal(m->n_parts, 1);
	assert_int_equal(m->n_taxels, 192);
	skin_model_stats(m, 0, &st);
	assert_int_equal(st.tactile, 16);
	assert_int_equal(st.absent, 176);
	assert_string_equal(m->parts[0].channel, "pad");
	assert_string_equal(m->patches[0].bus, "can0");
	/* 4 x 4 grid, 6 mm apart, neighbours at most 6.5 mm: 2 x 4 x 3 = 24
	 * undirected pairs, 48 directed */
	assert_int_equal(m->n_nbr, 48);
	skin_model_free(m);
}

static void mistakes(void **state)
{
	(void)state;
	cfg_fails("[skind]\nperiod_ms = 0\n",
		  "/etc/skin/skind.conf:2:13: period_ms = '0': expected an integer 1..10000");
	cfg_fails("[skind]\nsmooth_factor = 1.5\n",
		  "/etc/skin/skind.conf:2:17: smooth_factor = '1.5': expected a number >= 0 and <= 1");
	cfg_fails("[skind]\nmax_neighbor_dist_m = 0\n",
		  "/etc/skin/skind.conf:2:23: max_neighbor_dist_m = '0': expected a number > 0 and <= 1 metres");
	cfg_fails("[skind]\nbinarization = maybe\n",
		  "/etc/skin/skind.conf:2:16: binarization = 'maybe': expected yes or no (true/false, on/off, 1/0)");
	cfg_fails("[skind]\nperiod = 20\n",
		  "/etc/skin/skind.conf:2:1: unknown key 'period' in [skind]: expected one of period_ms, min_baseline, add_threshold, compensation_gain, contact_compensation_gain, zero_up_raw_data, smooth_filter, smooth_factor, binarization, max_neighbor_dist_m, calibration_s, compat, hold_contacts, hold_hysteresis, hold_max_s, auto_recalibrate, fault_detection, stuck_s, saturated_s, dead_s, noisy_s, noisy_counts, calibration_check, calibration_spread, calibration_offset, persist_calibration");
	cfg_fails("[skind]\nperiod_ms = 20\nperiod_ms = 30\n",
		  "/etc/skin/skind.conf:3:1: second 'period_ms' in [skind]: expected it once");
	cfg_fails("[board]\nno_load = 0x100\n",
		  "/etc/skin/skind.conf:2:11: no_load = '0x100': expected an integer 0..255");
	cfg_fails("[skinmanager]\nx = 1\n",
		  "/etc/skin/skind.conf:1:1: unknown section [skinmanager]: expected [skind], [board], [bus NAME] or [part NAME]");
	cfg_fails("period_ms = 20\n",
		  "/etc/skin/skind.conf:1:1: 'period_ms' before any section: expected [skind], [board], [bus NAME] or [part NAME] first");
	cfg_fails("[skind\n",
		  "/etc/skin/skind.conf:1:1: missing ']': expected [skind], [board], [bus NAME] or [part NAME]");
	cfg_fails("[skind]\nperiod_ms\n",
		  "/etc/skin/skind.conf:2:1: expected '[section]', 'key = value' or a comment");
	/* lib/conf's syntax: only blanks or a comment after a header */
	cfg_fails("[skind] x\n",
		  "/etc/skin/skind.conf:1:9: text after ']': expected [skind], [board], [bus NAME] or [part NAME]");

	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can1:14\n",
		  "/etc/skin/skind.conf:4:11: patches: bus 'can1' is not declared: expected a [bus can1] section");
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can0:16\n",
		  "/etc/skin/skind.conf:4:16: patches: board address = '16': expected an integer 0..15");
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can0\n",
		  "/etc/skin/skind.conf:4:11: patches: 'can0': expected BUS:ADDRESS, e.g. can0:14");
	cfg_fails("[bus can0]\n[part a]\nlayout = forearm_v2\npatches = can0:13\n",
		  "/etc/skin/skind.conf:4:11: [part a]: layout forearm_v2 has 2 patch(es), patches lists 1");
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can0:14\n"
		  "[part b]\nlayout = hand_v2_1\npatches = can0:14\n",
		  "/etc/skin/skind.conf:7:11: board can0:14 is already a patch of [part a] (line 4): expected each board once");
	cfg_fails("[bus can0]\n[part a]\npatches = can0:14\n",
		  "/etc/skin/skind.conf:2:1: [part a]: expected a layout, a geometry file or both");
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\n",
		  "/etc/skin/skind.conf:2:1: [part a]: expected patches = BUS:ADDRESS ... (one per board, in vector order)");
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v3\n",
		  "/etc/skin/skind.conf:3:10: layout = 'hand_v3': expected none, hand_v2_1, forearm_v1, forearm_v2, upper_arm or torso");
	cfg_fails("[bus can0]\n[part a]\nskin_part = left_nose\n",
		  "/etc/skin/skind.conf:3:13: skin_part = 'left_nose': expected an iCub skin part (left_hand, left_forearm, left_upper_arm, right_hand, right_forearm, right_upper_arm, front_torso, left_leg_upper, ..., right_foot)");
	cfg_fails("[bus can0]\nbitrate = 2000000\n",
		  "/etc/skin/skind.conf:2:11: bitrate = '2000000': expected an integer 10000..1000000");
	/* found by fuzz_config (tests/fuzz/regressions/config/) */
	cfg_fails("[skind]\nperiod_ms = 20\n  [bus can0]\n",
		  "/etc/skin/skind.conf:3:3: '[bus can0]' is indented after a key, so it would continue 'period_ms': expected section headers at the start of a line");
	cfg_fails("[bus can0]\n[bus can0]\nbitrate = 1000000\n",
		  "/etc/skin/skind.conf:2:1: [bus can0] a second time: expected each bus once");
	/* [board BUS:ADDRESS]: a board of a part, once, a [board]'s keys */
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can0:14\n"
		  "[board can0:13]\nskin_type = 1\n",
		  "/etc/skin/skind.conf:5:8: [board can0:13]: board can0:13 is no patch of any part: expected a board a patches list names");
	cfg_fails("[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can0:14\n"
		  "[board can0:14]\nskin_type = 1\n[board can0:14]\nshift = 0\n",
		  "/etc/skin/skind.conf:7:1: [board can0:14] a second time (first on line 5): expected each board once");
	cfg_fails("[board can0:16]\n",
		  "/etc/skin/skind.conf:1:13: [board BUS:ADDRESS]: board address = '16': expected an integer 0..15");
	cfg_fails("[board can0]\n",
		  "/etc/skin/skind.conf:1:8: [board can0]: expected [board BUS:ADDRESS], e.g. [board can0:14]");
	cfg_fails("[board can0:14]\nbitrate = 1000000\n",
		  "/etc/skin/skind.conf:2:1: unknown key 'bitrate' in [board can0:14]: expected one of period_ms, skin_type, no_load, shift, cdc_offset");
	cfg_fails("[board can0:14]\nshift = 1\nshift = 2\n",
		  "/etc/skin/skind.conf:3:1: second 'shift' in [board can0:14]: expected it once");
	cfg_fails("[bus can0]\nlisten_only = maybe\n",
		  "/etc/skin/skind.conf:2:15: listen_only = 'maybe': expected yes or no (true/false, on/off, 1/0)");
	/* issue 16, item 7: an empty configuration names its file */
	cfg_fails("", "/etc/skin/skind.conf: no [part NAME] section: expected at least one part");
	cfg_fails("# nothing\n\n", "/etc/skin/skind.conf: no [part NAME] section: expected at least one part");
	cfg_fails("[skind]\nperiod_ms = 20\n[bus can0]\n",
		  "/etc/skin/skind.conf: no [part NAME] section: expected at least one part");
}

/* Geometry that contradicts the layout is caught, with both files named. */
static void geometry_mismatch(void **state)
{
	char text[1024];
	struct skin_error err;
	struct skin_config *c;
	struct skin_model *m;

	(void)state;
	snprintf(text, sizeof(text),
		 "[bus can0]\n[part a]\nlayout = forearm_v1\ngeometry = %s\npatches = can0:13 can0:12\n",
		 src_path("tests/data/icub/positions/left_forearm_V2.txt"));
	c = cfg(text, &err);
	assert_non_null(c);
	m = skin_config_build_model(c, &err);
	assert_null(m);
	/* V2's triangle 0 of the top patch does not exist on V1 */
	snprintf(text, sizeof(text),
		 "/etc/skin/skind.conf:2:1: [part a]: slot 192 (port position 193) is a taxel in %s but nothing in layout forearm_v1",
		 src_path("tests/data/icub/positions/left_forearm_V2.txt"));
	assert_string_equal(err.text, text);
	skin_config_free(c);

	snprintf(text, sizeof(text),
		 "[bus can0]\n[part a]\nlayout = hand_v2_1\ngeometry = %s\npatches = can0:14\n",
		 src_path("tests/data/icub/positions/left_forearm_V2.txt"));
	c = cfg(text, &err);
	m = skin_config_build_model(c, &err);
	assert_null(m);
	snprintf(text, sizeof(text),
		 "/etc/skin/skind.conf:2:1: [part a]: %s has 384 taxels, layout hand_v2_1 has 192",
		 src_path("tests/data/icub/positions/left_forearm_V2.txt"));
	assert_string_equal(err.text, text);
	skin_config_free(c);

	c = cfg("[bus can0]\n[part a]\nlayout = hand_v2_1\ngeometry = /nonexistent/hand.txt\npatches = can0:14\n", &err);
	m = skin_config_build_model(c, &err);
	assert_null(m);
	assert_string_equal(err.text, "/nonexistent/hand.txt: cannot open: No such file or directory (geometry of [part a] in /etc/skin/skind.conf:2)");
	skin_config_free(c);
}

/* skind's own [skind] keys (docs/PROCESSING.md): defaults, values, ranges */
static void skind_improvement_keys(void **state)
{
	struct skin_config_comp d;
	struct skin_error err;
	struct skin_config *c;

	(void)state;
	skin_config_comp_default(&d);
	assert_false(d.compat);
	assert_true(d.hold_contacts && d.auto_recalibrate && d.fault_detection &&
		    d.calibration_check && d.persist_calibration);
	assert_true(d.hold_hysteresis == 2 && d.hold_max_s == 3600);
	assert_true(d.stuck_s == 60 && d.saturated_s == 30 && d.dead_s == 1);
	assert_true(d.calibration_spread == 40 && d.calibration_offset == 60);
	assert_true(d.period_ms == 20 && d.add_threshold == 7);
	c = cfg("[skind]\ncompat = yes\nhold_contacts = false\nhold_hysteresis = 3.5\n"
		"hold_max_s = 0\nauto_recalibrate = no\nfault_detection = 0\nstuck_s = 5\n"
		"saturated_s = 2\ndead_s = 0.5\ncalibration_check = false\n"
		"calibration_spread = 20\ncalibration_offset = 30\npersist_calibration = false\n"
		"[bus can0]\n[part left_hand]\nlayout = hand_v2_1\npatches = can0:14\n", &err);
	if (!c)
		fail_msg("%s", err.text);
	assert_true(c->comp.compat && !c->comp.hold_contacts && !c->comp.auto_recalibrate &&
		    !c->comp.fault_detection && !c->comp.calibration_check &&
		    !c->comp.persist_calibration);
	assert_true(c->comp.hold_hysteresis == 3.5 && c->comp.hold_max_s == 0);
	assert_true(c->comp.stuck_s == 5 && c->comp.saturated_s == 2 && c->comp.dead_s == 0.5);
	assert_true(c->comp.calibration_spread == 20 && c->comp.calibration_offset == 30);
	skin_config_free(c);
	cfg_fails("[skind]\nstuck_s = 0\n",
		  "/etc/skin/skind.conf:2:11: stuck_s = '0': expected a number > 0 and <= 1e+07 seconds");
	cfg_fails("[skind]\ncompat = of\n",
		  "/etc/skin/skind.conf:2:10: compat = 'of': expected yes or no (true/false, on/off, 1/0)");
	cfg_fails("[skind]\ncalibration_spread = 300\n",
		  "/etc/skin/skind.conf:2:22: calibration_spread = '300': expected a number > 0 and <= 255");
}

/* Issue 25, defect 3: the [skind] ranges are lib/proc's, refused where
 * the file says them rather than later by skin_proc_new() with no line. */
static void skind_ranges_are_procs(void **state)
{
	(void)state;
	cfg_fails("[skind]\nmin_baseline = 200\n",
		  "/etc/skin/skind.conf:2:16: min_baseline = '200': expected a number >= 0 and <= 127");
	cfg_fails("[skind]\nmin_baseline = 127.5\n",
		  "/etc/skin/skind.conf:2:16: min_baseline = '127.5': expected a number >= 0 and <= 127");
	cfg_fails("[skind]\nadd_threshold = 255\n",
		  "/etc/skin/skind.conf:2:17: add_threshold = '255': expected a number >= 0 and <= 254");
}

/* lib/conf's comment rules: '#' and ';' start a comment line, and after a
 * blank an inline comment; an indented line continues the key before. */
static void comments(void **state)
{
	struct skin_error err;
	struct skin_config *c;

	(void)state;
	c = cfg("# a comment\n; another\n  # indented\n[skind] # the section\n"
		"period_ms = 30 # inline\nmin_baseline = 4 ; inline\n"
		"[bus can0]\n[part a]\nlayout = forearm_v2\npatches = can0:13\n"
		"  can0:12 # continued\n", &err);
	if (!c)
		fail_msg("%s", err.text);
	assert_int_equal(c->comp.period_ms, 30);
	assert_true(c->comp.min_baseline == 4);
	assert_int_equal(c->parts[0].n_patches, 2);
	assert_int_equal(c->parts[0].patches[1].address, 12);
	skin_config_free(c);
	/* a NUL byte is refused where it is */
	assert_null(skin_config_load_buffer("[skind]\nperiod_ms = 2\0\n", 23,
					    "/etc/skin/skind.conf", &err));
	assert_string_equal(err.text, "/etc/skin/skind.conf:2:14: NUL byte: expected text");
}

/* One boolean rule for every configuration (lib/conf). */
static void booleans(void **state)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	struct skin_error err;
	struct skin_config *c;
	char text[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "[skind]\ncompat = %s\nbinarization = %s\n"
			 "[bus can0]\n[part a]\nlayout = hand_v2_1\npatches = can0:14\n",
			 yes[i], no[i]);
		c = cfg(text, &err);
		if (!c)
			fail_msg("%s", err.text);
		assert_true(c->comp.compat && !c->comp.binarization);
		skin_config_free(c);
	}
}

/* A part's name reaches JSON, the shm and device names: a charset, not
 * whatever a section header holds (issue 16, item 5). */
static void part_names(void **state)
{
	static const char *const good[] = {
		"a", "left_hand", "Z9.a-b_c", "a234567890123456789012345678901",
	};
	struct skin_error err;
	struct skin_config *c;
	char text[256];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "[bus can0]\n[part %s]\nlayout = hand_v2_1\npatches = can0:14\n",
			 good[i]);
		memset(&err, 0, sizeof(err));
		c = cfg(text, &err);
		if (!c)
			fail_msg("[part %s] refused: %s", good[i], err.text);
		assert_string_equal(c->parts[0].name, good[i]);
		skin_config_free(c);
	}
	cfg_fails("[bus can0]\n[part a\"b\\c]\nlayout = hand_v2_1\npatches = can0:14\n",
		  "/etc/skin/skind.conf:2:7: [part a\"b\\c]: the name has a character outside [A-Za-z0-9_.-]: expected 1..31 characters of [A-Za-z0-9_.-], not starting with a dot");
	cfg_fails("[bus can0]\n[part x\x01y]\n",
		  "/etc/skin/skind.conf:2:7: [part x\x01y]: the name has a character outside [A-Za-z0-9_.-]: expected 1..31 characters of [A-Za-z0-9_.-], not starting with a dot");
	cfg_fails("[bus can0]\n[part h\xc3\xa4nd]\n",
		  "/etc/skin/skind.conf:2:7: [part h\xc3\xa4nd]: the name has a character outside [A-Za-z0-9_.-]: expected 1..31 characters of [A-Za-z0-9_.-], not starting with a dot");
	cfg_fails("[bus can0]\n[part .hidden]\n",
		  "/etc/skin/skind.conf:2:7: [part .hidden]: the name starts with a dot: expected 1..31 characters of [A-Za-z0-9_.-], not starting with a dot");
	cfg_fails("[bus can0]\n[part a2345678901234567890123456789012]\n",
		  "/etc/skin/skind.conf:2:7: [part a2345678901234567890123456789012]: the name is longer than 31 characters: expected 1..31 characters of [A-Za-z0-9_.-], not starting with a dot");
	cfg_fails("[bus can0]\n[part all]\n",
		  "/etc/skin/skind.conf:2:7: [part all]: the name is 'all', which the socket's subscribe means otherwise: expected 1..31 characters of [A-Za-z0-9_.-], not starting with a dot");
}

static void long_line(void **state)
{
	char text[600];

	(void)state;
	memset(text, 'x', sizeof(text));
	memcpy(text, "[skind]\n# ", 10);
	text[sizeof(text) - 1] = '\0';
	cfg_fails(text, "/etc/skin/skind.conf:2:1: line longer than 198 characters");
}

/* Defect 1 of issue 25: a geometry file that is itself a skind.conf is
 * refused, naming it, instead of being built as one (which, for a file
 * naming itself, recursed until the stack overflowed). */
static void geometry_is_never_a_config(void **state)
{
	char dir[] = "/tmp/test_model_configXXXXXX", path[64], other[64];
	struct skin_error err;
	struct skin_model *m;
	char want[512];
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/self.conf", dir);
	snprintf(other, sizeof(other), "%s/other.conf", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("[bus can0]\n[part loop]\ngeometry = self.conf\npatches = can0:14\n", fp);
	fclose(fp);
	fp = fopen(other, "w");
	assert_non_null(fp);
	fputs("[bus can0]\n[part a]\nlayout = hand_v2_1\ngeometry = self.conf\npatches = can0:14\n", fp);
	fclose(fp);

	memset(&err, 0, sizeof(err));
	m = skin_model_load(path, SKIN_FORMAT_AUTO, &err);
	assert_null(m);
	snprintf(want, sizeof(want),
		 "%s: a skind.conf, not a geometry file: expected an iCub positions file, urdf_tactile XML, a Skinware calibration cache or a skinGui .ini (geometry of [part loop] in %s:2)",
		 path, path);
	assert_string_equal(err.text, want);

	/* another configuration's geometry: the same refusal */
	memset(&err, 0, sizeof(err));
	m = skin_model_load(other, SKIN_FORMAT_AUTO, &err);
	assert_null(m);
	snprintf(want, sizeof(want),
		 "%s: a skind.conf, not a geometry file: expected an iCub positions file, urdf_tactile XML, a Skinware calibration cache or a skinGui .ini (geometry of [part a] in %s:2)",
		 path, other);
	assert_string_equal(err.text, want);
	unlink(path);
	unlink(other);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_skinmanall),
		cmocka_unit_test(board_sections),
		cmocka_unit_test(icub_upper_body),
		cmocka_unit_test(icub_full_body),
		cmocka_unit_test(every_shipped_config),
		cmocka_unit_test(urdf_example),
		cmocka_unit_test(mistakes),
		cmocka_unit_test(geometry_mismatch),
		cmocka_unit_test(long_line),
		cmocka_unit_test(part_names),
		cmocka_unit_test(skind_improvement_keys),
		cmocka_unit_test(geometry_is_never_a_config),
		cmocka_unit_test(skind_ranges_are_procs),
		cmocka_unit_test(booleans),
		cmocka_unit_test(comments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
