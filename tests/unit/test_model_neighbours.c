// SPDX-License-Identifier: GPL-2.0
/*
 * test_model_neighbours.c - the grid's neighbour graph equals brute force
 */
#include "test_model_util.h"

/* skin_neighbours_brute is private to the library; declared here. */
int skin_neighbours_brute(const struct skin_model *m, double max_dist_m,
			  unsigned int **start, unsigned int **nbr,
			  unsigned int *n);

static void same_as_brute(struct skin_model *m, double d, const char *what)
{
	unsigned int *start, *nbr, n, i;
	struct skin_error err;

	if (skin_model_compute_neighbours(m, d, &err))
		fail_msg("%s", err.text);
	assert_int_equal(skin_neighbours_brute(m, d, &start, &nbr, &n), 0);
	if (n != m->n_nbr)
		fail_msg("%s at %g m: grid %u pairs, brute force %u", what, d,
			 m->n_nbr, n);
	for (i = 0; i <= m->n_taxels; i++)
		if (start[i] != m->nbr_start[i])
			fail_msg("%s: taxel %u: lists differ", what, i);
	if (n)
		assert_memory_equal(nbr, m->nbr, n * sizeof(*nbr));
	free(start);
	free(nbr);
}

static void every_shipped_layout(void **state)
{
	static const char *const files[] = {
		"tests/data/icub/positions/left_hand_V2_1.txt",
		"tests/data/icub/positions/right_hand_V2_1.txt",
		"tests/data/icub/positions/left_forearm_V2.txt",
		"tests/data/icub/positions/right_forearm_V2.txt",
		"tests/data/icub/positions/left_arm.txt",
		"tests/data/icub/positions/right_arm.txt",
		"tests/data/icub/positions/torso.txt",
		"tests/data/skinware/seed.cache",
		"etc/examples/gripper-pad.urdf",
		"tests/data/urdf/taxels.urdf",
		"etc/skind.conf",
		"etc/examples/urdf-array.conf",
	};
	/* skinManager's code default, skinManAll.ini's, and a wide one */
	static const double dist[] = { 0.012, 0.015, 0.05 };
	unsigned int i, k;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct skin_model *m = must_load(files[i], SKIN_FORMAT_AUTO);

		for (k = 0; k < 3; k++)
			same_as_brute(m, dist[k], files[i]);
		skin_model_free(m);
	}
}

/* A hand-checked case: taxels 0, 1, 2 on a line 10 mm apart, taxel 3 a
 * thermal pad between 0 and 1, taxel 4 without a position. */
static void small_case(void **state)
{
	static const char text[] =
		"taxel2Repr ( 0 1 2 -2 4 )\n[calibration]\n"
		"0.001 0 0 0 0 1\n0.011 0 0 0 0 1\n0.021 0 0 0 0 1\n"
		"0.006 0 0 0 0 1\n0 0 0 0 0 0\n";
	struct skin_error err;
	struct skin_model *m = skin_model_load_buffer(text, sizeof(text) - 1,
						      SKIN_FORMAT_POSITIONS,
						      "in", &err);

	(void)state;
	assert_non_null(m);
	assert_int_equal(skin_model_compute_neighbours(m, 0.0101, &err), 0);
	assert_int_equal(m->n_nbr, 4);		/* 0-1 and 1-2, both ways */
	assert_int_equal(m->nbr_start[1] - m->nbr_start[0], 1);
	assert_int_equal(m->nbr[m->nbr_start[0]], 1);
	assert_int_equal(m->nbr_start[2] - m->nbr_start[1], 2);
	assert_int_equal(m->nbr[m->nbr_start[1]], 0);
	assert_int_equal(m->nbr[m->nbr_start[1] + 1], 2);
	assert_int_equal(m->nbr_start[5] - m->nbr_start[3], 0);
	assert_int_equal(skin_model_compute_neighbours(m, 0.0099, &err), 0);
	assert_int_equal(m->n_nbr, 0);
	assert_int_equal(skin_model_compute_neighbours(m, 0.0201, &err), 0);
	assert_int_equal(m->n_nbr, 6);
	assert_int_equal(skin_model_compute_neighbours(m, -1, &err), -1);
	assert_string_equal(err.text, "(neighbours): expected a maximum neighbour distance > 0 metres, got -1");
	skin_model_free(m);
}

/* Positions far from the origin and in negative cells. */
static void far_and_negative(void **state)
{
	static const char text[] =
		"taxel2Repr ( 0 1 2 3 )\n[calibration]\n"
		"-1000.0001 -5 7 0 0 1\n-1000.0101 -5 7 0 0 1\n"
		"1e200 1 1 0 0 1\n1e200 1 1.001 0 0 1\n";
	struct skin_error err;
	struct skin_model *m = skin_model_load_buffer(text, sizeof(text) - 1,
						      SKIN_FORMAT_POSITIONS,
						      "in", &err);

	(void)state;
	assert_non_null(m);
	same_as_brute(m, 0.015, "far");
	assert_int_equal(m->n_nbr, 4);
	skin_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_shipped_layout),
		cmocka_unit_test(small_case),
		cmocka_unit_test(far_and_negative),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
