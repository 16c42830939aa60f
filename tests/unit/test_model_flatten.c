// SPDX-License-Identifier: GPL-2.0
/*
 * test_model_flatten.c - a part's taxels on a plane (skin/flatten.h)
 *
 * The PCA projection of planar sets turned every way, the unrolling of
 * cylinders (with outward, inward, placeholder and no normals) and what
 * is no cylinder, the flattening of the shipped geometry files in each
 * mode, and the pressure-weighted centroid skind publishes and its evdev
 * devices report.
 */
#include <math.h>

#include <skin/flatten.h>

#include "test_model_util.h"

/* --- PCA ----------------------------------------------------------------- */

static double signed_area(const double a[2], const double b[2], const double c[2])
{
	return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/*
 * 40 points of a plane turned every way (orthonormal a, b), off the
 * origin: the projection keeps every distance, and is seen from the side
 * the normals point to (no mirror image); reversed normals mirror it.
 */
static void pca_planar(void **state)
{
	enum { N = 40 };
	double a[3], b[3], nrm[3], len, uv[N][2], p[N][3], nv[N][3], out[N][2];
	unsigned int i, j, k;

	(void)state;
	a[0] = 0.3; a[1] = -0.5; a[2] = 0.8;
	len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	for (k = 0; k < 3; k++)
		a[k] /= len;
	/* b: (0.9, 0.4, 0.1) minus its part along a, normalised */
	b[0] = 0.9; b[1] = 0.4; b[2] = 0.1;
	len = b[0] * a[0] + b[1] * a[1] + b[2] * a[2];
	for (k = 0; k < 3; k++)
		b[k] -= len * a[k];
	len = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
	for (k = 0; k < 3; k++)
		b[k] /= len;
	nrm[0] = a[1] * b[2] - a[2] * b[1];
	nrm[1] = a[2] * b[0] - a[0] * b[2];
	nrm[2] = a[0] * b[1] - a[1] * b[0];
	for (i = 0; i < N; i++) {
		/* a spread of points with unequal extents (no tie of axes) */
		uv[i][0] = 0.004 * (i % 8) + 0.0007 * (i * i % 5);
		uv[i][1] = 0.0025 * (i / 8) - 0.0003 * (i * 7 % 3);
		for (k = 0; k < 3; k++) {
			p[i][k] = 0.1 * (k + 1) + uv[i][0] * a[k] + uv[i][1] * b[k];
			nv[i][k] = nrm[k];
		}
	}
	assert_int_equal(skin_flatten_plane((const double (*)[3])p,
					    (const double (*)[3])nv, N, out), 0);
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++) {
			double d3 = sqrt(pow(p[i][0] - p[j][0], 2) + pow(p[i][1] - p[j][1], 2) +
					 pow(p[i][2] - p[j][2], 2));
			double d2 = hypot(out[i][0] - out[j][0], out[i][1] - out[j][1]);

			assert_true(fabs(d3 - d2) < 1e-12);
		}
	/* orientation kept: same sign of area as in (u, v) */
	assert_true(signed_area(uv[0], uv[9], uv[20]) *
		    signed_area(out[0], out[9], out[20]) > 0);
	for (i = 0; i < N; i++)
		for (k = 0; k < 3; k++)
			nv[i][k] = -nrm[k];
	assert_int_equal(skin_flatten_plane((const double (*)[3])p,
					    (const double (*)[3])nv, N, out), 0);
	assert_true(signed_area(uv[0], uv[9], uv[20]) *
		    signed_area(out[0], out[9], out[20]) < 0);
	/* centred on the mean */
	len = 0;
	for (i = 0; i < N; i++)
		len += out[i][0];
	assert_true(fabs(len) < 1e-12);
	assert_int_equal(skin_flatten_plane((const double (*)[3])p, NULL, 0, out), -1);
}

/*
 * 7 rings of 30 points over 200 degrees of a cylinder of radius 4 cm,
 * 5 mm apart along an axis turned every way: unrolled, every point is at
 * (R phi, z) up to a translation and a half turn, never mirrored, when
 * the normals point out; mirrored when they point in.  A flat sheet is no
 * cylinder.
 */
static void cylinder_unroll(void **state)
{
	enum { RINGS = 7, PER = 30, N = RINGS * PER };
	const double r = 0.04;
	double a[3] = { 0.2, 0.9, -0.3 }, u[3], w[3], len, t;
	static double p[N][3], nv[N][3], out[N][2], phi[N], z[N];
	unsigned int i, k, pass;

	(void)state;
	len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	for (k = 0; k < 3; k++)
		a[k] /= len;
	u[0] = 1; u[1] = 0; u[2] = 0;
	t = a[0];
	for (k = 0; k < 3; k++)
		u[k] -= t * a[k];
	len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	for (k = 0; k < 3; k++)
		u[k] /= len;
	w[0] = a[1] * u[2] - a[2] * u[1];
	w[1] = a[2] * u[0] - a[0] * u[2];
	w[2] = a[0] * u[1] - a[1] * u[0];
	for (pass = 0; pass < 2; pass++) {
		double sx = 0, sy = 0, radius = 0;

		for (i = 0; i < N; i++) {
			phi[i] = 0.3 + (200.0 / 180 * M_PI) * (i % PER) / (PER - 1);
			z[i] = 0.005 * (i / PER);
			for (k = 0; k < 3; k++) {
				double radial = cos(phi[i]) * u[k] + sin(phi[i]) * w[k];

				p[i][k] = 0.1 + r * radial + z[i] * a[k];
				nv[i][k] = pass ? -radial : radial;
			}
		}
		assert_int_equal(skin_flatten_cylinder((const double (*)[3])p,
						       (const double (*)[3])nv, N, out,
						       &radius), 0);
		assert_true(fabs(radius - r) < 1e-9);
		/* the half turn (if any) from the first ring's direction */
		sy = out[PER][1] - out[0][1] > 0 ? 1 : -1;
		sx = pass ? -sy : sy;
		for (i = 1; i < N; i++) {
			assert_true(fabs(out[i][0] - out[0][0] - sx * r * (phi[i] - phi[0])) < 1e-9);
			assert_true(fabs(out[i][1] - out[0][1] - sy * (z[i] - z[0])) < 1e-9);
		}
	}
	/* placeholder normals (all alike, as some positions files carry):
	 * the axis from the positions alone, the skin seen from outside */
	for (i = 0; i < N; i++)
		for (k = 0; k < 3; k++)
			nv[i][k] = k == 2;
	assert_int_equal(skin_flatten_cylinder((const double (*)[3])p,
					       (const double (*)[3])nv, N, out, &t), 0);
	assert_true(fabs(t - r) < 1e-9);
	{
		double sy = out[PER][1] - out[0][1] > 0 ? 1 : -1;

		for (i = 1; i < N; i++) {
			assert_true(fabs(out[i][0] - out[0][0] - sy * r * (phi[i] - phi[0])) < 1e-9);
			assert_true(fabs(out[i][1] - out[0][1] - sy * (z[i] - z[0])) < 1e-9);
		}
	}
	assert_int_equal(skin_flatten_cylinder((const double (*)[3])p, NULL, N, out, &t), 0);
	/* a quarter turn without normals is not enough (a cupped palm) */
	for (i = 0; i < N; i++) {
		phi[i] = 0.3 + (M_PI / 2) * (i % PER) / (PER - 1);
		for (k = 0; k < 3; k++)
			p[i][k] = r * (cos(phi[i]) * u[k] + sin(phi[i]) * w[k]) + z[i] * a[k];
	}
	assert_int_equal(skin_flatten_cylinder((const double (*)[3])p, NULL, N, out, &t), -1);
	/* a flat sheet is no cylinder, whatever its normals */
	for (i = 0; i < N; i++)
		for (k = 0; k < 3; k++) {
			p[i][k] = 0.004 * (i % PER) * u[k] + z[i] * a[k];
			nv[i][k] = w[k];
		}
	assert_int_equal(skin_flatten_cylinder((const double (*)[3])p,
					       (const double (*)[3])nv, N, out, &t), -1);
	assert_int_equal(skin_flatten_cylinder((const double (*)[3])p, NULL, N, out, &t), -1);
}

/* --- the parts of the shipped files -------------------------------------- */

/* Every taxel with a position of the kind used is placed, no other. */
static void assert_placed(const struct skin_flattening *f, const struct skin_model *m,
			  unsigned int part, unsigned int flag, unsigned int n_expected)
{
	const struct skin_part *sp = &m->parts[part];
	unsigned int i, n = 0;

	assert_int_equal(f->n, sp->n_taxels);
	for (i = 0; i < f->n; i++) {
		bool has = m->taxels[sp->first_taxel + i].flags & flag;

		assert_int_equal(has, isfinite(f->x[i]) && isfinite(f->y[i]));
		n += has;
	}
	assert_int_equal(n, n_expected);
}

static void parts_of_files(void **state)
{
	struct skin_flattening f;
	struct skin_error err;
	struct skin_model *m;
	char how[128], want[128];
	unsigned int i;

	(void)state;
	/* skinGui: the flattened positions themselves, of the 288 taxels the
	 * .ini draws (the forearm's 384 slots hold 96 absent ones) */
	m = must_load("tests/data/icub/skinGui/left_forearm_V2.ini", SKIN_FORMAT_AUTO);
	assert_int_equal(skin_flatten_part(&f, m, 0, SKIN_FLATTEN_AUTO, &err), 0);
	assert_int_equal(f.how, SKIN_FLATTEN_FLAT);
	assert_int_equal(f.unit, SKIN_FLAT_SKINGUI);
	assert_placed(&f, m, 0, SKIN_TAXEL_HAS_FLAT, 288);
	assert_string_equal(skin_flatten_describe(&f, how, sizeof(how)),
			    "flat layout (skinGui units)");
	for (i = 0; i < f.n; i++)
		if (isfinite(f.x[i])) {
			assert_true(f.x[i] == m->taxels[i].flat[0]);
			assert_true(f.y[i] == m->taxels[i].flat[1]);
		}
	skin_flatten_free(&f);
	skin_model_free(m);

	/* the forearm's 3D positions: unrolled, in metres */
	m = must_load("tests/data/icub/positions/left_forearm_V2.txt", SKIN_FORMAT_AUTO);
	assert_int_equal(skin_flatten_part(&f, m, 0, SKIN_FLATTEN_AUTO, &err), 0);
	assert_int_equal(f.how, SKIN_FLATTEN_CYLINDER);
	assert_int_equal(f.unit, SKIN_FLAT_METRE);
	assert_true(f.radius > 0.03 && f.radius < 0.045);
	assert_placed(&f, m, 0, SKIN_TAXEL_HAS_POS, 240);
	snprintf(want, sizeof(want),
		 "3D positions unrolled from their best-fit cylinder (radius %.0f mm)",
		 f.radius * 1000);
	assert_string_equal(skin_flatten_describe(&f, how, sizeof(how)), want);
	skin_flatten_free(&f);
	assert_int_equal(skin_flatten_part(&f, m, 0, SKIN_FLATTEN_TO_PLANE, &err), 0);
	assert_int_equal(f.how, SKIN_FLATTEN_PLANE);
	assert_int_equal(f.unit, SKIN_FLAT_METRE);
	assert_placed(&f, m, 0, SKIN_TAXEL_HAS_POS, 240);
	assert_string_equal(skin_flatten_describe(&f, how, sizeof(how)),
			    "3D positions projected on their best-fit plane");
	skin_flatten_free(&f);
	skin_model_free(m);

	/* the palm is flat: no cylinder, said why */
	m = must_load("tests/data/icub/positions/left_hand_V2_1.txt", SKIN_FORMAT_AUTO);
	assert_int_equal(skin_flatten_part(&f, m, 0, SKIN_FLATTEN_AUTO, &err), 0);
	assert_int_equal(f.how, SKIN_FLATTEN_PLANE);
	assert_placed(&f, m, 0, SKIN_TAXEL_HAS_POS, 48);
	skin_flatten_free(&f);
	assert_int_equal(skin_flatten_part(&f, m, 0, SKIN_FLATTEN_TO_CYLINDER, &err), -1);
	assert_null(f.x);
	assert_string_equal(err.what, "part left_hand does not wrap around an axis (neither its normals nor half a turn of its positions): no cylinder to unroll");
	skin_model_free(m);

	/* a layout alone has no position */
	m = skin_model_builtin("hand_v2_1", &err);
	assert_non_null(m);
	assert_int_equal(skin_flatten_part(&f, m, 0, SKIN_FLATTEN_AUTO, &err), -1);
	assert_non_null(strstr(err.what, "neither flattened nor 3D taxel positions"));
	skin_model_free(m);
}

/* --- the centroid -------------------------------------------------------- */

static void centroid(void **state)
{
	double x[4] = { 0, 10, 4, NAN }, y[4] = { 0, 0, 6, NAN };
	double v[4] = { 3, 0.5, 1, 100 }, xy[2];
	struct skin_flattening f = { .n = 4, .x = x, .y = y };
	const uint32_t all[] = { 0, 1, 2, 3, 7 }, unplaced[] = { 3, 9 };

	(void)state;
	/* weights 3, 1 (at least 1), 1; the unplaced taxel and the index
	 * past the part are left out: (0 * 3 + 10 + 4) / 5, 6 / 5 */
	assert_true(skin_flatten_centroid(&f, all, 5, v, xy));
	assert_true(fabs(xy[0] - 14.0 / 5) < 1e-15);
	assert_true(fabs(xy[1] - 6.0 / 5) < 1e-15);
	/* one taxel: its position */
	assert_true(skin_flatten_centroid(&f, &all[2], 1, v, xy));
	assert_true(xy[0] == 4 && xy[1] == 6);
	assert_false(skin_flatten_centroid(&f, unplaced, 2, v, xy));
	assert_true(isnan(xy[0]) && isnan(xy[1]));
	assert_false(skin_flatten_centroid(&f, all, 0, v, xy));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pca_planar),
		cmocka_unit_test(cylinder_unroll),
		cmocka_unit_test(parts_of_files),
		cmocka_unit_test(centroid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
