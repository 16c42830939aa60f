// SPDX-License-Identifier: GPL-2.0
/*
 * test_model_positions.c - the iCub positions files and built-in layouts
 *
 * Counts below are those of the shipped files (docs/MODEL.md, "iCub
 * positions files"), checked independently with a script over the files;
 * they are the numbers the library must reproduce, not numbers read back
 * from it.
 */
#include "test_model_util.h"

struct expect {
	const char *file;
	const char *part;
	enum skin_part_id id;
	unsigned int n, tactile, thermal, absent, with_pos, notes;
};

static const struct expect shipped[] = {
	{ "left_hand_V2_1.txt", "left_hand", SKIN_LEFT_HAND, 192, 104, 0, 88, 48, 0 },
	{ "right_hand_V2_1.txt", "right_hand", SKIN_RIGHT_HAND, 192, 104, 0, 88, 48, 0 },
	{ "left_forearm_V2.txt", "left_forearm", SKIN_LEFT_FOREARM, 384, 240, 0, 144, 240, 0 },
	{ "right_forearm_V2.txt", "right_forearm", SKIN_RIGHT_FOREARM, 384, 240, 0, 144, 240, 0 },
	/* 960 taxel2Repr entries (350 / 70 / 540) for 768 rows: the 192
	 * entries beyond the rows are all -1, dropped with a note, which
	 * leaves 540 - 192 = 348 absent */
	{ "left_arm.txt", "left_upper_arm", SKIN_LEFT_UPPER_ARM, 768, 350, 70, 348, 350, 1 },
	{ "right_arm.txt", "right_upper_arm", SKIN_RIGHT_UPPER_ARM, 768, 350, 70, 348, 350, 1 },
	{ "torso.txt", "front_torso", SKIN_FRONT_TORSO, 768, 440, 88, 240, 528, 0 },
	/* the legs (issue 16, item 8): 960 taxel2Repr entries for 1344 rows
	 * (7 boards); rows 960..1343 get representative 0 as in skinDynLib,
	 * tactile where they have a position (210 left, 220 right), absent
	 * where all zero; 680 tactile taxels, as the skinGui files draw */
	{ "left_leg_upper.txt", "left_leg_upper", SKIN_LEFT_LEG_UPPER, 1344, 680, 94, 570, 680, 1 },
	{ "right_leg_upper.txt", "right_leg_upper", SKIN_RIGHT_LEG_UPPER, 1344, 680, 92, 572, 680, 1 },
	/* 960 entries for 768 and 384 rows, the ones beyond all -1 */
	{ "left_leg_lower.txt", "left_leg_lower", SKIN_LEFT_LEG_LOWER, 768, 380, 76, 312, 380, 1 },
	{ "right_leg_lower.txt", "right_leg_lower", SKIN_RIGHT_LEG_LOWER, 768, 380, 76, 312, 380, 1 },
	{ "left_foot.txt", "left_foot", SKIN_LEFT_FOOT, 384, 250, 50, 84, 250, 1 },
	{ "right_foot.txt", "right_foot", SKIN_RIGHT_FOOT, 384, 250, 50, 84, 250, 1 },
};

static void shipped_files_load(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		const struct expect *e = &shipped[i];
		char rel[256];
		struct skin_model *m;
		struct skin_model_stats st;

		snprintf(rel, sizeof(rel), "tests/data/icub/positions/%s", e->file);
		m = must_load(rel, SKIN_FORMAT_AUTO);
		assert_int_equal(m->n_parts, 1);
		assert_string_equal(m->parts[0].name, e->part);
		assert_int_equal(m->parts[0].skin_part, e->id);
		assert_int_equal(m->parts[0].n_taxels, e->n);
		assert_int_equal(m->parts[0].n_patches, e->n / 192);
		skin_model_stats(m, 0, &st);
		if (st.tactile != e->tactile || st.thermal != e->thermal ||
		    st.absent != e->absent || st.with_pos != e->with_pos)
			fail_msg("%s: %u/%u/%u, %u with a position; want %u/%u/%u, %u",
				 e->file, st.tactile, st.thermal, st.absent,
				 st.with_pos, e->tactile, e->thermal, e->absent,
				 e->with_pos);
		assert_int_equal(m->n_notes, e->notes);
		skin_model_free(m);
	}
}

static void arm_inconsistency_is_reported(void **state)
{
	struct skin_model *m = must_load("tests/data/icub/positions/left_arm.txt",
					 SKIN_FORMAT_POSITIONS);

	(void)state;
	assert_int_equal(m->n_notes, 1);
	assert_non_null(strstr(m->notes[0],
			       "taxel2Repr has 960 entries for 768 rows of positions; the 192 entries beyond the rows are all -1 (absent) and were dropped"));
	skin_model_free(m);
}

/*
 * Rows past the taxel2Repr list (the legs' upper files: 960 entries, 1344
 * rows): skinDynLib reads taxel2Repr with b.get(i).asInt32() for every
 * row, and a YARP Bottle's get() past the end is a null value whose
 * asInt32() is 0, so those rows get representative 0.  The file loads,
 * with a note naming it and saying so.
 */
static void rows_past_taxel2repr(void **state)
{
	struct skin_model *m = must_load("tests/data/icub/positions/left_leg_upper.txt",
					 SKIN_FORMAT_POSITIONS);
	const struct skin_taxel *t = m->taxels + m->parts[0].first_taxel;
	char want[1024];
	struct skin_error err;

	(void)state;
	assert_int_equal(m->parts[0].n_taxels, 1344);
	assert_int_equal(m->n_notes, 1);
	snprintf(want, sizeof(want),
		 "%s: taxel2Repr has 960 entries for 1344 rows of positions: rows 960..1343 get representative 0, as in skinDynLib (taxel2Repr.get(i).asInt32() is 0 past the end of the list); the 210 with a position are tactile, the 174 all-zero ones absent",
		 src_path("tests/data/icub/positions/left_leg_upper.txt"));
	assert_string_equal(m->notes[0], want);
	/* row 972, the first past the list with a position; 960 is all zero */
	assert_int_equal(t[972].kind, SKIN_TAXEL_TACTILE);
	assert_int_equal(t[972].repr, 0);
	assert_true(t[972].flags & SKIN_TAXEL_HAS_POS);
	assert_int_equal(t[960].kind, SKIN_TAXEL_ABSENT);
	assert_int_equal(t[959].repr, 951);	/* the list's last entry */
	assert_int_equal(m->n_patches, 7);
	skin_model_free(m);

	/* the same in small */
	{
		static const char small[] =
			"taxel2Repr ( 0 )\n[calibration]\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 0 0 0 0 0\n";

		m = skin_model_load_buffer(small, strlen(small), SKIN_FORMAT_POSITIONS,
					   "in", &err);
	}
	if (!m)
		fail_msg("%s", err.text);
	assert_int_equal(m->parts[0].n_taxels, 3);
	assert_int_equal(m->taxels[1].kind, SKIN_TAXEL_TACTILE);
	assert_int_equal(m->taxels[1].repr, 0);
	assert_int_equal(m->taxels[2].kind, SKIN_TAXEL_ABSENT);
	assert_int_equal(m->n_notes, 1);
	assert_string_equal(m->notes[0], "in: taxel2Repr has 1 entries for 3 rows of positions: rows 1..2 get representative 0, as in skinDynLib (taxel2Repr.get(i).asInt32() is 0 past the end of the list); the 1 with a position are tactile, the 1 all-zero ones absent");
	skin_model_free(m);
}

/* Zero rows are "no position", never "absent"; -2 pads keep positions. */
static void zero_rows_and_pads(void **state)
{
	struct skin_model *h = must_load("tests/data/icub/positions/left_hand_V2_1.txt",
					 SKIN_FORMAT_AUTO);
	struct skin_model *t = must_load("tests/data/icub/positions/torso.txt",
					 SKIN_FORMAT_AUTO);
	unsigned int i, pads_with_pos = 0;

	(void)state;
	/* fingertips: real taxels (repr 9, 21, ...) without positions */
	for (i = 0; i < 60; i++) {
		assert_int_equal(h->taxels[i].kind, SKIN_TAXEL_TACTILE);
		assert_false(h->taxels[i].flags & SKIN_TAXEL_HAS_POS);
	}
	assert_int_equal(h->taxels[0].repr, 9);
	assert_int_equal(h->taxels[12].repr, 21);
	/* first palm taxel, 0-based 96, line 101: -0.0094 0.0062 0 0 0 -1 */
	assert_int_equal(h->taxels[96].kind, SKIN_TAXEL_TACTILE);
	assert_true(h->taxels[96].flags & SKIN_TAXEL_HAS_POS);
	assert_true(h->taxels[96].pos[0] == -0.0094);
	assert_true(h->taxels[96].pos[1] == 0.0062);
	assert_true(h->taxels[96].normal[2] == -1.0);
	/* the palm's thermal pads are -1 in the hand file but have rows */
	assert_int_equal(h->taxels[107].kind, SKIN_TAXEL_ABSENT);
	assert_true(h->taxels[107].flags & SKIN_TAXEL_HAS_POS);
	for (i = 0; i < t->n_taxels; i++)
		if (t->taxels[i].kind == SKIN_TAXEL_THERMAL &&
		    (t->taxels[i].flags & SKIN_TAXEL_HAS_POS))
			pads_with_pos++;
	assert_int_equal(pads_with_pos, 88);
	assert_int_equal(h->taxels[0].link, 0);
	assert_string_equal(h->links[0].name, "l_hand");
	assert_int_equal(h->links[0].number, 6);
	assert_int_equal(h->parts[0].body_part, SKIN_BODY_LEFT_ARM);
	skin_model_free(h);
	skin_model_free(t);
}

struct layout_expect {
	const char *name;
	unsigned int n, tactile, thermal, absent;
};

static void builtin_layouts(void **state)
{
	static const struct layout_expect le[] = {
		/* 60 fingertip + 44 palm taxels, pads 108 120 132 140 */
		{ "hand_v2_1", 192, 104, 4, 84 },
		/* 16 + 7 triangles of 10 taxels and 2 pads */
		{ "forearm_v1", 384, 230, 46, 108 },
		{ "forearm_v2", 384, 240, 48, 96 },
		{ "upper_arm", 768, 640, 128, 0 },
		{ "torso", 768, 640, 128, 0 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(le) / sizeof(le[0]); i++) {
		struct skin_error err;
		struct skin_model *m = skin_model_builtin(le[i].name, &err);
		struct skin_model_stats st;

		assert_non_null(m);
		skin_model_stats(m, -1, &st);
		assert_int_equal(m->n_taxels, le[i].n);
		if (st.tactile != le[i].tactile || st.thermal != le[i].thermal ||
		    st.absent != le[i].absent)
			fail_msg("%s: %u/%u/%u", le[i].name, st.tactile,
				 st.thermal, st.absent);
		skin_model_free(m);
	}
}

/* The layout's tactile slots are exactly the files' valid taxels where
 * the files cover them (hand, forearm V2): the built-in layouts against
 * the positions files. */
static void layouts_agree_with_files(void **state)
{
	static const char *const pairs[][2] = {
		{ "hand_v2_1", "tests/data/icub/positions/left_hand_V2_1.txt" },
		{ "forearm_v2", "tests/data/icub/positions/left_forearm_V2.txt" },
	};
	unsigned int i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		struct skin_error err;
		struct skin_model *l = skin_model_builtin(pairs[k][0], &err);
		struct skin_model *f = must_load(pairs[k][1], SKIN_FORMAT_AUTO);

		assert_non_null(l);
		assert_int_equal(l->n_taxels, f->n_taxels);
		for (i = 0; i < l->n_taxels; i++)
			if ((l->taxels[i].kind == SKIN_TAXEL_TACTILE) !=
			    (f->taxels[i].kind == SKIN_TAXEL_TACTILE))
				fail_msg("%s: slot %u differs", pairs[k][0], i);
		skin_model_free(l);
		skin_model_free(f);
	}
}

static void unknown_layout(void **state)
{
	struct skin_error err;

	(void)state;
	assert_null(skin_model_builtin("hand_v3", &err));
	assert_string_equal(err.text, "(built-in layouts): unknown layout 'hand_v3': expected one of hand_v2_1, forearm_v1, forearm_v2, upper_arm, torso");
}

static void malformed(void **state)
{
	(void)state;
	must_fail("name l_hand\ntaxel2Repr ( 0 1 x )\n", SKIN_FORMAT_POSITIONS,
		  "in:2:18: expected a taxel2Repr entry (taxel id, -1 absent or -2 thermal pad) (an integer), got 'x'");
	must_fail("name l_hand\ntaxel2Repr ( 0 -3 )\n", SKIN_FORMAT_POSITIONS,
		  "in:2:16: expected a taxel2Repr entry (taxel id, -1 absent or -2 thermal pad) in -2..1048575, got -3");
	must_fail("taxel2Repr ( 0 1\n", SKIN_FORMAT_POSITIONS,
		  "in:2:1: expected ')' closing the taxel2Repr list, got end of file");
	must_fail("taxel2Repr ( 0 5 )\n", SKIN_FORMAT_POSITIONS,
		  "in:1:16: taxel2Repr entry 1 names taxel 5: expected an id below 2");
	must_fail("taxel2Repr ( 0 0 )\n[calibration]\n0 0 0 0 0\n", SKIN_FORMAT_POSITIONS,
		  "in:3:10: expected 6 numbers per row (x y z in metres, then the normal), got 5");
	must_fail("taxel2Repr ( 0 0 )\n[calibration]\n0 0 0 0 0 1 2\n", SKIN_FORMAT_POSITIONS,
		  "in:3:13: expected 6 numbers per row (x y z in metres, then the normal), got more");
	must_fail("taxel2Repr ( 0 0 )\n[calibration]\n0 0 0 0 0 1\n0 nan 0 0 0 1\n",
		  SKIN_FORMAT_POSITIONS,
		  "in:4:3: expected y (metres) (a finite decimal number), got 'nan'");
	must_fail("taxel2Repr ( 0 0 0 )\n[calibration]\n0 0 0 0 0 1\n1 0 0 0 0 1\n",
		  SKIN_FORMAT_POSITIONS, "in:1:18: taxel2Repr entry 2 is 0 but there are only 2 rows of positions: expected -1 (absent) beyond the last row");
	must_fail("name l_hand\nspatial_sampling pixel\n", SKIN_FORMAT_POSITIONS,
		  "in:2:18: expected spatial_sampling 'taxel' or 'triangle', got 'pixel'");
	must_fail("name l_hand\ntaxel2repr ( 0 )\n", SKIN_FORMAT_POSITIONS,
		  "in:2:1: expected name, spatial_sampling, taxel2Repr, [calibration] or a row of 6 numbers, got 'taxel2repr'");
	must_fail("name l_hand\n[calib]\n", SKIN_FORMAT_POSITIONS,
		  "in:2:1: expected the group [calibration], got '[calib]'");
	must_fail("name l_hand\n", SKIN_FORMAT_POSITIONS,
		  "in:2:1: expected a taxel2Repr list or rows of positions, found neither");
	must_fail("taxel2Repr ( 0 )\n[calibration]\nname x\n", SKIN_FORMAT_POSITIONS,
		  "in:3:1: expected a row of 6 numbers in [calibration], got 'name'");
}

/* A real file broken in one place fails at that place. */
static void malformed_real_file(void **state)
{
	size_t len;
	char *txt = slurp("tests/data/icub/positions/torso.txt", &len);
	char *bad = replace(txt, "0.0345 -0.005 0.04593", "0.0345 -0.005 0.04x593");
	struct skin_error err;
	struct skin_model *m;

	(void)state;
	m = skin_model_load_buffer(bad, strlen(bad), SKIN_FORMAT_AUTO, "torso.txt", &err);
	assert_null(m);
	/* the first row with a position is line 89 */
	assert_string_equal(err.text, "torso.txt:89:15: expected z (metres) (a finite decimal number), got '0.04x593'");
	free(bad);
	bad = replace(txt, "\n0.0 0.0 0.0 0.0 0.0 0.0 \n", "\n0.0 0.0 0.0 0.0 0.0 \n");
	m = skin_model_load_buffer(bad, strlen(bad), SKIN_FORMAT_AUTO, "torso.txt", &err);
	assert_null(m);
	assert_string_equal(err.text, "torso.txt:5:21: expected 6 numbers per row (x y z in metres, then the normal), got 5");
	free(bad);
	free(txt);
}

static void missing_file_fails_loudly(void **state)
{
	struct skin_error err;

	(void)state;
	assert_null(skin_model_load("/nonexistent/left_hand.txt", SKIN_FORMAT_AUTO, &err));
	assert_string_equal(err.text, "/nonexistent/left_hand.txt: cannot open: No such file or directory");
}

/* read -> write -> read: the same model, bit for bit; and write -> read
 * -> write: the same bytes. */
static void round_trip(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		char rel[256], tmp[] = "/tmp/test_model_posXXXXXX";
		struct skin_error err;
		struct skin_model *a, *b, *c;
		size_t la, lb;
		char *ta, *tb;
		int fd;

		snprintf(rel, sizeof(rel), "tests/data/icub/positions/%s", shipped[i].file);
		a = must_load(rel, SKIN_FORMAT_AUTO);
		fd = mkstemp(tmp);
		assert_true(fd >= 0);
		if (skin_model_save(a, tmp, SKIN_FORMAT_POSITIONS, &err))
			fail_msg("%s", err.text);
		b = skin_model_load(tmp, SKIN_FORMAT_AUTO, &err);
		assert_non_null(b);
		assert_same_model(a, b);
		{
			FILE *fp = fdopen(fd, "rb");

			assert_non_null(fp);
			fseek(fp, 0, SEEK_END);
			la = (size_t)ftell(fp);
			rewind(fp);
			ta = malloc(la + 1);
			assert_int_equal(fread(ta, 1, la, fp), la);
			fclose(fp);
		}
		c = skin_model_load_buffer(ta, la, SKIN_FORMAT_POSITIONS, "tmp", &err);
		assert_non_null(c);
		assert_int_equal(skin_model_save(c, tmp, SKIN_FORMAT_POSITIONS, &err), 0);
		{
			FILE *fp = fopen(tmp, "rb");

			assert_non_null(fp);
			fseek(fp, 0, SEEK_END);
			lb = (size_t)ftell(fp);
			rewind(fp);
			tb = malloc(lb + 1);
			assert_int_equal(fread(tb, 1, lb, fp), lb);
			fclose(fp);
		}
		assert_int_equal(la, lb);
		assert_memory_equal(ta, tb, la);
		unlink(tmp);
		free(ta);
		free(tb);
		skin_model_free(a);
		skin_model_free(b);
		skin_model_free(c);
	}
}

/* The one table of SkinPart names: each part's name, YARP port and
 * positions file name lead back to it; the bridges ask it. */
static void part_names_table(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 1; i < SKIN_PART_COUNT; i++) {
		enum skin_part_id p = (enum skin_part_id)i;

		assert_int_equal(skin_part_id_from_name(skin_part_id_name(p)), p);
		assert_non_null(skin_part_id_port(p));
		assert_int_equal(skin_part_id_from_name(skin_part_id_port(p)), p);
	}
	assert_string_equal(skin_part_id_name(SKIN_LEFT_UPPER_ARM), "left_upper_arm");
	assert_string_equal(skin_part_id_port(SKIN_LEFT_UPPER_ARM), "left_arm");
	assert_string_equal(skin_part_id_port(SKIN_FRONT_TORSO), "torso");
	assert_string_equal(skin_part_id_port(SKIN_RIGHT_FOOT), "right_foot");
	assert_string_equal(skin_part_id_frame(SKIN_RIGHT_FOREARM), "r_forearm_dh_frame");
	assert_null(skin_part_id_frame(SKIN_FRONT_TORSO));
	assert_null(skin_part_id_port(SKIN_PART_UNKNOWN));
	assert_null(skin_part_id_port(SKIN_PART_COUNT));
	assert_string_equal(skin_part_id_name(SKIN_PART_COUNT), "unknown");
	assert_int_equal(skin_part_id_from_name("l_hand"), SKIN_LEFT_HAND);
	assert_int_equal(skin_part_id_from_name("tail"), SKIN_PART_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shipped_files_load),
		cmocka_unit_test(rows_past_taxel2repr),
		cmocka_unit_test(arm_inconsistency_is_reported),
		cmocka_unit_test(zero_rows_and_pads),
		cmocka_unit_test(builtin_layouts),
		cmocka_unit_test(layouts_agree_with_files),
		cmocka_unit_test(unknown_layout),
		cmocka_unit_test(malformed),
		cmocka_unit_test(malformed_real_file),
		cmocka_unit_test(missing_file_fails_loudly),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(part_names_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
