// SPDX-License-Identifier: GPL-2.0
/*
 * test_model_formats.c - Skinware cache, urdf_tactile XML, skinGui layouts
 */
#include <math.h>

#include "test_model_util.h"

static void near(double got, double want, const char *what)
{
	if (fabs(got - want) > 1e-12)
		fail_msg("%s: %.17g, want %.17g", what, got, want);
}

/* ---- Skinware calibration cache ---------------------------------- */

static void skinware_seed(void **state)
{
	struct skin_model *m = must_load("tests/data/skinware/seed.cache",
					 SKIN_FORMAT_AUTO);
	const unsigned int n3[] = { 4, 2, 1, 6, 7 };
	unsigned int i;

	(void)state;
	assert_int_equal(m->n_taxels, 8);
	assert_int_equal(m->n_nbr, 26);
	assert_int_equal(m->parts[0].flat_unit, SKIN_FLAT_METRE);
	/* sensor 3: 0.025 0.014 0  0 0 1  0.025 0.014  0.001  0  5  4 2 1 6 7 */
	assert_true(m->taxels[3].pos[0] == 0.025);
	assert_true(m->taxels[3].flat[1] == 0.014);
	assert_true(m->taxels[3].radius == 0.001);
	assert_true(m->taxels[3].normal[2] == 1.0);
	assert_string_equal(m->links[m->taxels[3].link].name, "link0");
	assert_int_equal(m->nbr_start[4] - m->nbr_start[3], 5);
	for (i = 0; i < 5; i++)		/* the file's order, kept */
		assert_int_equal(m->nbr[m->nbr_start[3] + i], n3[i]);
	skin_model_free(m);
}

static char *save_text(const struct skin_model *m, enum skin_format f)
{
	char tmp[] = "/tmp/test_model_fmtXXXXXX";
	struct skin_error err;
	FILE *fp;
	char *buf;
	long n;
	int fd = mkstemp(tmp);

	assert_true(fd >= 0);
	close(fd);
	if (skin_model_save(m, tmp, f, &err))
		fail_msg("%s", err.text);
	fp = fopen(tmp, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	unlink(tmp);
	return buf;
}

static void skinware_round_trip(void **state)
{
	struct skin_model *a = must_load("tests/data/skinware/seed.cache",
					 SKIN_FORMAT_AUTO);
	struct skin_error err;
	struct skin_model *b, *c;
	char *ta, *tb;

	(void)state;
	ta = save_text(a, SKIN_FORMAT_SKINWARE);
	/* the printed numbers are the file's own */
	assert_non_null(strstr(ta, "8 26\n0.015 0.01 0  0 0 1  0.015 0.01  0.001  0  2  1 2\n"));
	b = skin_model_load_buffer(ta, strlen(ta), SKIN_FORMAT_AUTO, "a", &err);
	assert_non_null(b);
	assert_same_model(a, b);
	assert_int_equal(a->n_nbr, b->n_nbr);
	assert_memory_equal(a->nbr, b->nbr, a->n_nbr * sizeof(*a->nbr));
	assert_memory_equal(a->nbr_start, b->nbr_start, 9 * sizeof(*a->nbr_start));
	tb = save_text(b, SKIN_FORMAT_SKINWARE);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	/* positions file -> cache -> read back: tactile taxels with a
	 * position, ids renumbered, neighbours as computed */
	c = must_load("tests/data/icub/positions/torso.txt", SKIN_FORMAT_AUTO);
	assert_int_equal(skin_model_compute_neighbours(c, 0.015, &err), 0);
	ta = save_text(c, SKIN_FORMAT_SKINWARE);
	skin_model_free(b);
	b = skin_model_load_buffer(ta, strlen(ta), SKIN_FORMAT_SKINWARE, "t", &err);
	assert_non_null(b);
	assert_int_equal(b->n_taxels, 440);
	assert_int_equal(b->n_nbr, c->n_nbr);	/* all neighbours are tactile */
	tb = save_text(b, SKIN_FORMAT_SKINWARE);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	skin_model_free(a);
	skin_model_free(b);
	skin_model_free(c);
}

static void skinware_malformed(void **state)
{
	(void)state;
	must_fail("2 1\n0 0 0 0 0 1 0 0 0.001 0 1 1\n0 0 0 0 0 1 0 0 0.001 0 1 0\n",
		  SKIN_FORMAT_SKINWARE,
		  "in:3:25: sensor 1: 1 neighbours would exceed the total-neighbors-count 1 of line 1");
	must_fail("2 3\n0 0 0 0 0 1 0 0 0.001 0 1 1\n0 0 0 0 0 1 0 0 0.001 0 1 0\n",
		  SKIN_FORMAT_SKINWARE,
		  "in:1:3: total-neighbors-count is 3 but the sensors list 2 neighbours");
	must_fail("1 0\n0 0 0 0 0 1 0 0\n", SKIN_FORMAT_SKINWARE,
		  "in:3:1: expected radius (metres), got end of file");
	must_fail("2 1\n0 0 0 0 0 1 0 0 0.001 0 1 2\n", SKIN_FORMAT_SKINWARE,
		  "in:2:27: expected a neighbour id in 0..1, got 2");
	must_fail("2 1\n0 0 0 0 0 1 0 0 0.001 0 1 0\n", SKIN_FORMAT_SKINWARE,
		  "in:2:27: sensor 0 lists itself: expected other sensors' ids");
	must_fail("1 0\n0 0 0 0 0 1 0 0 -1 0 0\n", SKIN_FORMAT_SKINWARE,
		  "in:2:17: sensor 0: expected a radius >= 0 metres, got -1");
	must_fail("1 0\n0 0 0 0 0 1 0 0 0.001 0 0\n7\n", SKIN_FORMAT_SKINWARE,
		  "in:3:1: expected the end of file after 1 sensors, got '7'");
	must_fail("1 0\n0 0 0 0 0 1 0 0 0.001 -1 0\n", SKIN_FORMAT_SKINWARE,
		  "in:2:23: expected robot-link (an id >= 0) in 0..1000000, got -1");
}

/* ---- urdf_tactile -------------------------------------------------- */

static void urdf_array(void **state)
{
	struct skin_model *m = must_load("etc/examples/gripper-pad.urdf",
					 SKIN_FORMAT_AUTO);
	const struct skin_taxel *t;

	(void)state;
	assert_int_equal(m->n_parts, 1);
	assert_string_equal(m->parts[0].name, "pad");
	assert_string_equal(m->parts[0].channel, "pad");
	assert_string_equal(m->parts[0].group, "gripper");
	assert_true(m->parts[0].update_rate_hz == 100);
	assert_int_equal(m->n_taxels, 16);
	assert_string_equal(m->links[m->taxels[0].link].name, "pad_link");
	/* idx 6, row-major 4 x 4: row 1, col 2; in the sensor frame
	 * (1 * 0.006 - 0.009, 2 * 0.006 - 0.009, 0) = (-0.003, 0.003, 0);
	 * yaw pi/2 turns (x, y) into (-y, x); origin z 0.034 */
	t = &m->taxels[6];
	assert_int_equal(t->index, 6);
	near(t->pos[0], -0.003, "x");
	near(t->pos[1], -0.003, "y");
	near(t->pos[2], 0.034, "z");
	near(t->normal[0], 0, "nx");
	near(t->normal[2], 1, "nz");
	skin_model_free(m);
}

static void urdf_taxels_and_col_major(void **state)
{
	struct skin_model *m = must_load("tests/data/urdf/taxels.urdf",
					 SKIN_FORMAT_URDF);
	const struct skin_part *tip, *palm;
	const struct skin_taxel *t;

	(void)state;
	assert_int_equal(m->n_parts, 2);	/* the camera is not tactile */
	tip = &m->parts[0];
	palm = &m->parts[1];
	assert_string_equal(tip->name, "tip");
	assert_string_equal(tip->channel, "hand");
	assert_string_equal(palm->channel, "hand");
	assert_string_equal(tip->group, "fingertip");
	assert_string_equal(palm->group, "");
	assert_true(tip->update_rate_hz == 50);
	assert_int_equal(tip->n_taxels, 2);
	/* taxel idx 3: origin (0.1, 0.2, 0.3) + (0.01, 0.01, 0) */
	t = &m->taxels[tip->first_taxel];
	assert_int_equal(t->index, 3);
	near(t->pos[0], 0.11, "x");
	near(t->pos[1], 0.21, "y");
	near(t->pos[2], 0.3, "z");
	/* idx 4, roll pi/2: the z axis turns to -y */
	t = &m->taxels[tip->first_taxel + 1];
	near(t->normal[1], -1, "ny");
	near(t->normal[2], 0, "nz");
	/* palm 2 x 3 column-major, size 0.01 x 0.02 = spacing, no offset:
	 * idx 3 -> row 1, col 1 -> (0.01, 0.02, 0) */
	assert_int_equal(palm->n_taxels, 6);
	t = &m->taxels[palm->first_taxel + 3];
	near(t->pos[0], 0.01, "x");
	near(t->pos[1], 0.02, "y");
	/* idx 4 -> row 0, col 2 */
	t = &m->taxels[palm->first_taxel + 4];
	near(t->pos[0], 0, "x");
	near(t->pos[1], 0.04, "y");
	skin_model_free(m);
}

#define U_HEAD "<robot><sensor name=\"s\"><parent link=\"l\"/>"

static void urdf_semantics(void **state)
{
	struct skin_error err;
	struct skin_model *m;
	static const char neg[] = U_HEAD
		"<tactile channel=\"c\"><array rows=\"2\" cols=\"2\" size=\"0.01 0.01\""
		" spacing=\"-0.01 0.02\" order=\"column-major\"/>"
		"<array rows=\"9\" cols=\"9\" size=\"1 1\"/></tactile></sensor>"
		"<sensor name=\"s\"><parent link=\"l\"/><tactile><array rows=\"1\" cols=\"1\" size=\"1 1\"/></tactile></sensor></robot>";

	(void)state;
	m = skin_model_load_buffer(neg, sizeof(neg) - 1, SKIN_FORMAT_AUTO, "in", &err);
	assert_non_null(m);
	/* the first array counts, the second sensor 's' is ignored */
	assert_int_equal(m->n_taxels, 4);
	assert_int_equal(m->n_notes, 2);
	/* column-major idx 1 -> row 1, col 0: negative spacing flips x */
	near(m->taxels[1].pos[0], -0.01, "x");
	near(m->taxels[2].pos[1], 0.02, "y");
	skin_model_free(m);
}

/* found by fuzz_urdf (tests/fuzz/regressions/urdf/): a link named ""
 * made the positions writer produce a file its reader rejects */
static void urdf_empty_link_not_written(void **state)
{
	static const char text[] = "<robot><sensor name=\"s\"><parent link=\"\"/>"
		"<tactile><array rows=\"1\" cols=\"1\" size=\"1 1\"/></tactile></sensor></robot>";
	struct skin_error err;
	struct skin_model *m;

	(void)state;
	m = skin_model_load_buffer(text, sizeof(text) - 1, SKIN_FORMAT_URDF, "in", &err);
	assert_non_null(m);
	assert_int_equal(skin_model_save(m, "/tmp/never-written.txt", SKIN_FORMAT_POSITIONS, &err), -1);
	assert_string_equal(err.text, "(positions writer): part name '' is empty, too long, or has blanks, parentheses or comment marks, which a positions file cannot hold");
	skin_model_free(m);
}

static void urdf_malformed(void **state)
{
	(void)state;
	must_fail("<robot><sensor", SKIN_FORMAT_URDF,
		  "in:1:15: XML: Premature end of data in tag robot line 1");
	must_fail("<robt/>", SKIN_FORMAT_URDF,
		  "in:1: expected the root element <robot>, got <robt>");
	must_fail("<robot>\n<sensor name=\"s\"><parent link=\"l\"/>\n"
		  "<tactile><array rows=\"2\" cols=\"2\"/></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:3: <array>: expected attribute size");
	must_fail(U_HEAD "<tactile>\n<array rows=\"2\" cols=\"2\" size=\"1\"/></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:2: <array>: attribute size=\"1\": expected 2 numbers");
	must_fail(U_HEAD "<tactile><array rows=\"-2\" cols=\"2\" size=\"1 1\"/></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <array>: attribute rows=\"-2\": expected an integer 0..1048576");
	must_fail(U_HEAD "<tactile><array rows=\"2\" cols=\"2\" size=\"1 1\" order=\"diagonal\"/></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <array>: order=\"diagonal\": expected row-major, col-major or column-major");
	must_fail(U_HEAD "<tactile><taxel idx=\"0\" xyz=\"0 0 0\"/></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <taxel>: expected a <geometry> child");
	must_fail(U_HEAD "<tactile><taxel xyz=\"0 0 0\"><geometry/></taxel></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <taxel>: expected attribute idx");
	must_fail(U_HEAD "<origin xyz=\"0 0\"/><tactile><array rows=\"1\" cols=\"1\" size=\"1 1\"/></tactile></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <origin>: attribute xyz=\"0 0\": expected 3 numbers");
	must_fail("<robot><sensor name=\"s\"><tactile/></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <sensor>: sensor 's': expected a <parent link=\"...\"/> child");
	must_fail(U_HEAD "<tactile/></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <tactile>: sensor 's': expected an <array> or <taxel> elements");
	must_fail("<robot><sensor name=\"s\" update_rate=\"fast\"><parent link=\"l\"/><tactile/></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <sensor>: update_rate=\"fast\": expected a rate >= 0 in hertz");
	must_fail("<robot><sensor name=\"c\"><camera/></sensor></robot>",
		  SKIN_FORMAT_URDF, "in:1: <robot> has no <sensor> with a <tactile> element: expected at least one");
}

/* ---- skinGui ------------------------------------------------------- */

struct gui_expect {
	const char *file;
	unsigned int cards, tactile, thermal;
};

static void skingui_files(void **state)
{
	/* triangles x 10 / x 2; hands: 5 fingertips x 12 + a palm of 44 + 4 */
	static const struct gui_expect ge[] = {
		{ "left_arm_V2.ini", 4, 400, 80 },
		{ "right_arm_V2.ini", 4, 400, 80 },
		{ "left_forearm_V2.ini", 2, 240, 48 },
		{ "right_forearm_V2.ini", 2, 240, 48 },
		/* cardid 9 only, ids up to 63: 4 patches, with a note */
		{ "torso.ini", 4, 440, 88 },
		{ "left_hand_V2_1.ini", 1, 104, 4 },
		{ "right_hand_V2_1.ini", 1, 104, 4 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(ge) / sizeof(ge[0]); i++) {
		char rel[256];
		struct skin_model *m;
		struct skin_model_stats st;

		snprintf(rel, sizeof(rel), "tests/data/icub/skinGui/%s", ge[i].file);
		m = must_load(rel, SKIN_FORMAT_AUTO);
		skin_model_stats(m, 0, &st);
		assert_int_equal(m->n_patches, ge[i].cards);
		assert_int_equal(m->parts[0].flat_unit, SKIN_FLAT_SKINGUI);
		if (st.tactile != ge[i].tactile || st.thermal != ge[i].thermal ||
		    st.with_flat != ge[i].tactile + ge[i].thermal)
			fail_msg("%s: %u/%u, %u flat", ge[i].file, st.tactile,
				 st.thermal, st.with_flat);
		skin_model_free(m);
	}
}

static void skingui_geometry(void **state)
{
	struct skin_model *m = must_load("tests/data/icub/skinGui/left_forearm_V2.ini",
					 SKIN_FORMAT_AUTO);

	(void)state;
	assert_string_equal(m->parts[0].name, "left_forearm");
	assert_int_equal(m->patches[0].address, 13);
	assert_int_equal(m->patches[1].address, 12);
	/* triangle 0 at (100, -20), 30 degrees, mirrored: taxel 3 is the
	 * centre; taxel 0 is (257.2 / 40, 0) mirrored to (-6.43, 0), then
	 * turned by 30 degrees */
	near(m->taxels[3].flat[0], 100, "t3 x");
	near(m->taxels[3].flat[1], -20, "t3 y");
	near(m->taxels[0].flat[0], 100 - 6.43 * cos(M_PI / 6), "t0 x");
	near(m->taxels[0].flat[1], -20 - 6.43 * sin(M_PI / 6), "t0 y");
	assert_int_equal(m->taxels[6].kind, SKIN_TAXEL_THERMAL);
	/* triangle 2 of the second card (slot 216) is not in the file */
	assert_int_equal(m->taxels[216].kind, SKIN_TAXEL_ABSENT);
	skin_model_free(m);
}

static void skingui_malformed(void **state)
{
	(void)state;
	must_fail("cardid 13\n[SENSORS]\ntriangle_10pad 0 1 2 3 4\n", SKIN_FORMAT_SKINGUI,
		  "in:3:25: expected mirror (0 or 1): a sensor row is 'type id x y orientation gain mirror [layout]'");
	must_fail("cardid 13\n[SENSORS]\nhexagon 0 1 2 3 4 0\n", SKIN_FORMAT_SKINGUI,
		  "in:3:1: expected a sensor type (triangle_10pad, fingertip2L, fingertip2R, palmL, palmR), got 'hexagon'");
	must_fail("cardid 13\n[SENSORS]\ntriangle_10pad 256 1 2 3 4 0\n", SKIN_FORMAT_SKINGUI,
		  "in:3:16: expected the sensor id in 0..255, got 256");
	must_fail("cardid 13\n[SENSORS]\ntriangle_10pad 1 1 2 3 4 0\ntriangle_10pad 1 1 2 3 4 0\n",
		  SKIN_FORMAT_SKINGUI,
		  "in:4:1: sensor 1 covers slot 12, already covered by the sensor of line 3");
	must_fail("cardid 16\n[SENSORS]\n", SKIN_FORMAT_SKINGUI,
		  "in:1:8: expected a card (board) address in 0..15, got 16");
	must_fail("robotPart x\n[SENSORS]\n", SKIN_FORMAT_SKINGUI,
		  "in: expected a cardid line naming the boards");
	must_fail("cardid 1\n[SENSORS]\ntriangle_10pad 0 1 y 3 4 0\n", SKIN_FORMAT_SKINGUI,
		  "in:3:20: expected y (skinGui units) (a finite decimal number), got 'y'");
}

static void detect(void **state)
{
	(void)state;
	assert_int_equal(skin_format_detect("name x\n", 7), SKIN_FORMAT_POSITIONS);
	assert_int_equal(skin_format_detect("0 0 0 0 0 1\n", 12), SKIN_FORMAT_POSITIONS);
	assert_int_equal(skin_format_detect("8 26\n", 5), SKIN_FORMAT_SKINWARE);
	assert_int_equal(skin_format_detect("<?xml?>", 7), SKIN_FORMAT_URDF);
	assert_int_equal(skin_format_detect("cardid 1\n[SENSORS]\n", 19), SKIN_FORMAT_SKINGUI);
	assert_int_equal(skin_format_detect("# c\n[skind]\n", 12), SKIN_FORMAT_CONFIG);
	assert_int_equal(skin_format_detect("hello\n", 6), SKIN_FORMAT_AUTO);
	must_fail("hello\n", SKIN_FORMAT_AUTO,
		  "in:1:1: unknown format: expected an iCub positions file, urdf_tactile XML, a Skinware calibration cache, a skinGui .ini or a skind.conf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(skinware_seed),
		cmocka_unit_test(skinware_round_trip),
		cmocka_unit_test(skinware_malformed),
		cmocka_unit_test(urdf_array),
		cmocka_unit_test(urdf_taxels_and_col_major),
		cmocka_unit_test(urdf_semantics),
		cmocka_unit_test(urdf_empty_link_not_written),
		cmocka_unit_test(urdf_malformed),
		cmocka_unit_test(skingui_files),
		cmocka_unit_test(skingui_geometry),
		cmocka_unit_test(skingui_malformed),
		cmocka_unit_test(detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
