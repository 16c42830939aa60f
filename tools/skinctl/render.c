// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - a part's 2D layout, and one sample of it as text or SVG
 *
 * The terminal picture keeps the layout's proportions on cells about
 * twice as tall as they are wide: a layout unit spans twice as many
 * columns as rows.  Several taxels landing on one cell show the highest
 * value (a pressed taxel is never hidden by an idle neighbour).  The SVG
 * draws every placed taxel as a circle of 0.45 x the layout's spacing, so
 * neighbours never overlap.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* --- layout ------------------------------------------------------------ */

int view_layout_init(struct view_layout *l, unsigned int n)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->n = n;
	l->x = malloc((n ? n : 1) * sizeof(*l->x));
	l->y = malloc((n ? n : 1) * sizeof(*l->y));
	l->kind = malloc(n ? n : 1);
	if (!l->x || !l->y || !l->kind) {
		view_layout_free(l);
		return -1;
	}
	for (i = 0; i < n; i++) {
		l->x[i] = l->y[i] = NAN;
		l->kind[i] = SKIN_TAXEL_TACTILE;
	}
	return 0;
}

void view_layout_free(struct view_layout *l)
{
	free(l->x);
	free(l->y);
	free(l->kind);
	l->x = l->y = NULL;
	l->kind = NULL;
}

static bool placed(const struct view_layout *l, unsigned int i)
{
	return isfinite(l->x[i]) && isfinite(l->y[i]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median distance to the nearest other placed taxel (O(n^2): parts have
 * at most a few hundred taxels).  Coincident taxels do not count. */
static double median_spacing(const struct view_layout *l)
{
	double *nn = malloc((l->n ? l->n : 1) * sizeof(*nn)), s;
	unsigned int i, j, k = 0;

	if (!nn)
		return 0;
	for (i = 0; i < l->n; i++) {
		double best = INFINITY;

		if (!placed(l, i))
			continue;
		for (j = 0; j < l->n; j++) {
			double d;

			if (j == i || !placed(l, j))
				continue;
			d = hypot(l->x[i] - l->x[j], l->y[i] - l->y[j]);
			if (d > 0 && d < best)
				best = d;
		}
		if (isfinite(best))
			nn[k++] = best;
	}
	qsort(nn, k, sizeof(*nn), cmp_double);
	s = k ? nn[k / 2] : 0;
	free(nn);
	return s;
}

void view_layout_finish(struct view_layout *l)
{
	unsigned int i;

	l->n_placed = l->n_unplaced = 0;
	l->min[0] = l->min[1] = INFINITY;
	l->max[0] = l->max[1] = -INFINITY;
	for (i = 0; i < l->n; i++) {
		if (!placed(l, i)) {
			l->n_unplaced += l->kind[i] != SKIN_TAXEL_ABSENT;
			continue;
		}
		l->n_placed++;
		l->min[0] = fmin(l->min[0], l->x[i]);
		l->max[0] = fmax(l->max[0], l->x[i]);
		l->min[1] = fmin(l->min[1], l->y[i]);
		l->max[1] = fmax(l->max[1], l->y[i]);
	}
	if (!l->n_placed)
		l->min[0] = l->min[1] = l->max[0] = l->max[1] = 0;
	l->spacing = median_spacing(l);
	if (!(l->spacing > 0)) {
		/* one taxel, or all on one point: a tenth of the extent */
		double ext = fmax(l->max[0] - l->min[0], l->max[1] - l->min[1]);

		l->spacing = ext > 0 ? ext / 10 : 1;
	}
}

/* Jacobi rotations on a symmetric 3x3 matrix: a becomes diagonal (the
 * eigenvalues), the columns of v the eigenvectors. */
static void jacobi3(double a[3][3], double v[3][3])
{
	unsigned int sweep, p, q, k;

	for (p = 0; p < 3; p++)
		for (q = 0; q < 3; q++)
			v[p][q] = p == q;
	for (sweep = 0; sweep < 64; sweep++) {
		double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
		double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];

		if (off <= 1e-30 * diag || off == 0)
			return;
		for (p = 0; p < 2; p++) {
			for (q = p + 1; q < 3; q++) {
				double theta, t, c, s;

				if (a[p][q] == 0)
					continue;
				theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
				if (fabs(theta) > 1e100)
					t = 1 / (2 * theta);
				else
					t = (theta >= 0 ? 1 : -1) /
					    (fabs(theta) + sqrt(theta * theta + 1));
				c = 1 / sqrt(t * t + 1);
				s = t * c;
				for (k = 0; k < 3; k++) {	/* A P */
					double kp = a[k][p], kq = a[k][q];

					a[k][p] = c * kp - s * kq;
					a[k][q] = s * kp + c * kq;
				}
				for (k = 0; k < 3; k++) {	/* P^T (A P) */
					double pk = a[p][k], qk = a[q][k];

					a[p][k] = c * pk - s * qk;
					a[q][k] = s * pk + c * qk;
				}
				for (k = 0; k < 3; k++) {	/* V P */
					double kp = v[k][p], kq = v[k][q];

					v[k][p] = c * kp - s * kq;
					v[k][q] = s * kp + c * kq;
				}
			}
		}
	}
}

/* Make the largest component of e positive: a sign that does not depend
 * on the solver's path. */
static void fix_sign(double e[3])
{
	unsigned int k, big = 0;

	for (k = 1; k < 3; k++)
		if (fabs(e[k]) > fabs(e[big]) + 1e-12)
			big = k;
	if (e[big] < 0)
		for (k = 0; k < 3; k++)
			e[k] = -e[k];
}

/* The eigenvectors of the symmetric @m as rows of @axes, by eigenvalue
 * descending (ties keep x, y, z order), signs fixed; @lam the values. */
static void eigen_sorted(double m[3][3], double axes[3][3], double lam[3])
{
	double v[3][3];
	unsigned int i, j, k, order[3] = { 0, 1, 2 };

	jacobi3(m, v);
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (m[order[j]][order[j]] > m[order[i]][order[i]]) {
				k = order[i];
				order[i] = order[j];
				order[j] = k;
			}
	for (i = 0; i < 3; i++) {
		for (k = 0; k < 3; k++)
			axes[i][k] = v[k][order[i]];
		fix_sign(axes[i]);
		lam[i] = m[order[i]][order[i]];
	}
}

/* The mean of the points and their principal axes, largest first. */
static void principal_axes(const double (*p)[3], unsigned int n, double mean[3],
			   double axes[3][3])
{
	double cov[3][3] = { { 0 } }, lam[3];
	unsigned int i, j, k;

	mean[0] = mean[1] = mean[2] = 0;
	for (i = 0; i < n; i++)
		for (k = 0; k < 3; k++)
			mean[k] += p[i][k] / n;
	for (i = 0; i < n; i++)
		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				cov[j][k] += (p[i][j] - mean[j]) * (p[i][k] - mean[k]);
	eigen_sorted(cov, axes, lam);
}

static double dot3(const double a[3], const double b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3])
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

/* A right-handed orthonormal basis of the plane across unit vector @a:
 * e1 x e2 = a. */
static void across(const double a[3], double e1[3], double e2[3])
{
	double d;
	unsigned int k;

	e1[0] = fabs(a[0]) < 0.9 ? 1 : 0;
	e1[1] = fabs(a[0]) < 0.9 ? 0 : 1;
	e1[2] = 0;
	d = dot3(e1, a);
	for (k = 0; k < 3; k++)
		e1[k] -= d * a[k];
	d = sqrt(dot3(e1, e1));
	for (k = 0; k < 3; k++)
		e1[k] /= d;
	cross3(a, e1, e2);
}

int view_pca_project(const double (*p)[3], const double (*normals)[3],
		     unsigned int n, double (*out)[2])
{
	double mean[3], ax[3][3], e3[3];
	unsigned int i, k;

	if (!n)
		return -1;
	principal_axes(p, n, mean, ax);
	if (normals) {
		double nm[3] = { 0, 0, 0 };

		for (i = 0; i < n; i++)
			for (k = 0; k < 3; k++)
				nm[k] += normals[i][k];
		cross3(ax[0], ax[1], e3);
		/* x right, y up, the viewer on +e3: normals towards it */
		if (dot3(nm, e3) < -1e-9 * n)
			for (k = 0; k < 3; k++)
				ax[1][k] = -ax[1][k];
	}
	for (i = 0; i < n; i++) {
		double d[3];

		for (k = 0; k < 3; k++)
			d[k] = p[i][k] - mean[k];
		out[i][0] = dot3(d, ax[0]);
		out[i][1] = dot3(d, ax[1]);
	}
	return 0;
}

/* Solve the 3x3 system a x = b by Cramer's rule; false when singular. */
static bool solve3(const double a[3][3], const double b[3], double x[3])
{
	double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
		     a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
		     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
	double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
	unsigned int k, r;

	if (!(fabs(det) > 1e-12 * scale * scale * scale))
		return false;
	for (k = 0; k < 3; k++) {
		double m[3][3];

		memcpy(m, a, sizeof(m));
		for (r = 0; r < 3; r++)
			m[r][k] = b[r];
		x[k] = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
			m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
			m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])) / det;
	}
	return true;
}

/*
 * The axis the normals wrap around: the eigenvector of their scatter
 * matrix with the smallest eigenvalue, when they spread in one plane
 * (second eigenvalue at least 0.15 x the first: an arc of some 75 degrees
 * or more) and hardly leave it (third at most 0.05 of the total).  A flat
 * sheet's normals do not spread, nor do the placeholder normals some
 * positions files carry: false.
 */
static bool wrap_axis(const double (*normals)[3], unsigned int n, double axis[3])
{
	double s[3][3] = { { 0 } }, ax[3][3], lam[3];
	unsigned int i, j, k, used = 0;

	for (i = 0; normals && i < n; i++) {
		double len2 = dot3(normals[i], normals[i]);

		if (!(len2 > 0))
			continue;
		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				s[j][k] += normals[i][j] * normals[i][k] / len2;
		used++;
	}
	if (used < 3)
		return false;
	eigen_sorted(s, ax, lam);
	if (lam[1] < 0.15 * lam[0] || lam[2] > 0.05 * used)
		return false;
	memcpy(axis, ax[2], sizeof(ax[2]));
	return true;
}

struct unroll {
	double r;		/* the circle's radius */
	double misfit;		/* RMS distance from it / r */
	double span;		/* radians of the circle the points cover */
};

/*
 * Unroll about axis @a: the cross-section's best circle (Kasa's least
 * squares: x^2 + y^2 + D x + E y + F = 0), x = arc length from the middle
 * of the covered arc (the seam in the widest gap), y = height along @a
 * from the mean.  Seen from outside the circle, unless @normals point
 * inwards on the whole.  0, or -1 for a degenerate circle.
 */
/*
 * The cross-section of the points across axis @a (unit): a right-handed
 * basis e1, e2 of it (e1 x e2 = a), the points' coordinates in it (@xy),
 * and the circle that fits them best (Kasa's least squares:
 * x^2 + y^2 + D x + E y + F = 0): its centre @c, radius and misfit.
 * 0, or -1 for a degenerate circle.
 */
static int cross_section(const double (*p)[3], unsigned int n, const double a[3],
			 double e1[3], double e2[3], double (*xy)[2], double c[2],
			 struct unroll *u)
{
	double m[3][3] = { { 0 } }, rhs[3] = { 0 }, sol[3], r2, sq = 0;
	unsigned int i, j, k;

	across(a, e1, e2);
	c[0] = c[1] = 0;
	for (i = 0; i < n; i++) {
		xy[i][0] = dot3(p[i], e1);
		xy[i][1] = dot3(p[i], e2);
		c[0] += xy[i][0] / n;
		c[1] += xy[i][1] / n;
	}
	for (i = 0; i < n; i++) {
		double x = xy[i][0] - c[0], y = xy[i][1] - c[1], q = x * x + y * y;
		double row[3] = { x, y, 1 };

		for (k = 0; k < 3; k++) {
			for (j = 0; j < 3; j++)
				m[k][j] += row[k] * row[j];
			rhs[k] -= row[k] * q;
		}
	}
	if (!solve3(m, rhs, sol))
		return -1;
	r2 = sol[0] * sol[0] / 4 + sol[1] * sol[1] / 4 - sol[2];
	if (!(r2 > 0))
		return -1;
	u->r = sqrt(r2);
	c[0] -= sol[0] / 2;
	c[1] -= sol[1] / 2;
	for (i = 0; i < n; i++) {
		double d = hypot(xy[i][0] - c[0], xy[i][1] - c[1]) - u->r;

		sq += d * d;
	}
	u->misfit = sqrt(sq / n) / u->r;
	return 0;
}

/*
 * Unroll about axis @a: x = arc length around the cross-section's circle
 * from the middle of the covered arc (the seam in the widest gap), y =
 * height along @a from the mean.  Seen from outside the circle, unless
 * @normals point inwards on the whole.  0, or -1 for a degenerate circle.
 */
static int unroll_about(const double (*p)[3], const double (*normals)[3],
			unsigned int n, const double a[3], double (*out)[2],
			double *phi, double *sorted, struct unroll *u)
{
	double e1[3], e2[3], c[2], mean_a = 0, outward = 0, gap = -1, start = 0;
	unsigned int i;

	if (cross_section(p, n, a, e1, e2, out, c, u))
		return -1;
	for (i = 0; i < n; i++) {
		double x = out[i][0] - c[0], y = out[i][1] - c[1];

		phi[i] = sorted[i] = atan2(y, x);
		mean_a += dot3(p[i], a) / n;
		if (normals)
			outward += dot3(normals[i], e1) * x + dot3(normals[i], e2) * y;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (i = 0; i < n; i++) {
		double next = i + 1 < n ? sorted[i + 1] : sorted[0] + 2 * M_PI;

		if (next - sorted[i] > gap) {
			gap = next - sorted[i];
			start = next;
		}
	}
	u->span = 2 * M_PI - gap;
	for (i = 0; i < n; i++) {
		double d = fmod(phi[i] - start + 4 * M_PI, 2 * M_PI);

		if (d > u->span + 1e-12)	/* rounding at the seam */
			d = u->span;
		/* increasing angle to the right, the axis up: (tangent, axis,
		 * radial) is right-handed, so this is the outside's view */
		out[i][0] = u->r * (d - u->span / 2) * (outward < 0 ? -1 : 1);
		out[i][1] = dot3(p[i], a) - mean_a;
	}
	return 0;
}

/*
 * The misfit of unrolling about @a, or infinity when the points do not
 * cover half a turn of a circle across it: without normals to tell, only
 * a sheet wrapped that far (an arm's cover) is unrolled; a cupped palm or
 * a torso's front looks more like itself projected on a plane.
 */
static double axis_misfit(const double (*p)[3], unsigned int n, const double a[3],
			  double (*tmp)[2], double *phi, double *sorted)
{
	struct unroll u;

	if (unroll_about(p, NULL, n, a, tmp, phi, sorted, &u) || u.span < M_PI)
		return INFINITY;
	return u.misfit;
}

/*
 * The axis about which the points lie most nearly on a circle covering
 * half a turn or more: the principal axes and 512 directions spread over
 * the half sphere (a golden-angle spiral), then a local search that
 * halves its step down to 0.1 mrad.  Infinity when no direction fits.
 */
static double best_axis(const double (*p)[3], unsigned int n, double a[3],
			double (*tmp)[2], double *phi, double *sorted)
{
	double mean[3], ax[3][3], best = INFINITY, step;
	unsigned int i, k;

	principal_axes(p, n, mean, ax);
	for (i = 0; i < 3 + 512; i++) {
		double d[3], f;

		if (i < 3) {
			memcpy(d, ax[i], sizeof(d));
		} else {
			double z = (i - 3 + 0.5) / 512, r = sqrt(1 - z * z);
			double th = (i - 3) * M_PI * (3 - sqrt(5));

			d[0] = r * cos(th);
			d[1] = r * sin(th);
			d[2] = z;
		}
		f = axis_misfit(p, n, d, tmp, phi, sorted);
		if (f < best) {
			best = f;
			memcpy(a, d, sizeof(d));
		}
	}
	if (!isfinite(best))
		return best;
	for (step = 0.05; step > 1e-4;) {
		double t1[3], t2[3], len;
		bool moved = false;

		across(a, t1, t2);
		for (i = 0; i < 4 && !moved; i++) {
			const double *t = i < 2 ? t1 : t2;
			double d[3], sg = i % 2 ? -step : step, f;

			for (k = 0; k < 3; k++)
				d[k] = a[k] + sg * t[k];
			len = sqrt(dot3(d, d));
			for (k = 0; k < 3; k++)
				d[k] /= len;
			f = axis_misfit(p, n, d, tmp, phi, sorted);
			if (f < best) {
				best = f;
				memcpy(a, d, sizeof(d));
				moved = true;
			}
		}
		if (!moved)
			step /= 2;
	}
	fix_sign(a);
	return best;
}

int view_cylinder_unroll(const double (*p)[3], const double (*normals)[3],
			 unsigned int n, double (*out)[2], double *radius)
{
	double *phi, *sorted, (*tmp)[2], a[3];
	struct unroll u;
	int rc = -1;

	if (n < 3)
		return -1;
	phi = malloc(n * sizeof(*phi));
	sorted = malloc(n * sizeof(*sorted));
	tmp = malloc(n * sizeof(*tmp));
	if (!phi || !sorted || !tmp)
		goto out;
	if (wrap_axis(normals, n, a)) {
		rc = unroll_about(p, normals, n, a, out, phi, sorted, &u);
	} else if (best_axis(p, n, a, tmp, phi, sorted) <= 0.15) {
		/* normals that say nothing: the axis from the positions
		 * alone, the skin on the outside */
		rc = unroll_about(p, NULL, n, a, out, phi, sorted, &u);
	}
	if (!rc)
		*radius = u.r;
out:
	free(phi);
	free(sorted);
	free(tmp);
	return rc;
}

int view_layout_build(struct view_layout *l, const struct skin_model *m,
		      unsigned int part, enum view_projection proj, char *why,
		      size_t why_len)
{
	const struct skin_part *sp = &m->parts[part];
	const struct skin_taxel *t = &m->taxels[sp->first_taxel];
	unsigned int i, n_flat = 0, n_pos = 0, k;

	if (view_layout_init(l, sp->n_taxels)) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	for (i = 0; i < sp->n_taxels; i++) {
		l->kind[i] = (unsigned char)t[i].kind;
		n_flat += !!(t[i].flags & SKIN_TAXEL_HAS_FLAT);
		n_pos += !!(t[i].flags & SKIN_TAXEL_HAS_POS);
	}
	if (n_flat && sp->flat_unit != SKIN_FLAT_NONE && proj == VIEW_PROJ_AUTO) {
		l->how = VIEW_FLAT;
		l->unit = sp->flat_unit;
		for (i = 0; i < sp->n_taxels; i++)
			if (t[i].flags & SKIN_TAXEL_HAS_FLAT) {
				l->x[i] = t[i].flat[0];
				l->y[i] = t[i].flat[1];
			}
	} else if (n_pos) {
		double (*p)[3] = malloc(n_pos * sizeof(*p));
		double (*nv)[3] = malloc(n_pos * sizeof(*nv));
		double (*xy)[2] = malloc(n_pos * sizeof(*xy));

		if (!p || !nv || !xy) {
			free(p);
			free(nv);
			free(xy);
			view_layout_free(l);
			snprintf(why, why_len, "out of memory");
			return -1;
		}
		for (i = k = 0; i < sp->n_taxels; i++)
			if (t[i].flags & SKIN_TAXEL_HAS_POS) {
				memcpy(p[k], t[i].pos, sizeof(p[k]));
				memcpy(nv[k], t[i].normal, sizeof(nv[k]));
				k++;
			}
		l->how = VIEW_UNROLLED;
		if (proj == VIEW_PROJ_PLANE ||
		    view_cylinder_unroll((const double (*)[3])p, (const double (*)[3])nv,
					 n_pos, xy, &l->radius)) {
			l->how = VIEW_PROJECTED;
			view_pca_project((const double (*)[3])p,
					 (const double (*)[3])nv, n_pos, xy);
		}
		if (proj == VIEW_PROJ_CYLINDER && l->how != VIEW_UNROLLED) {
			free(p);
			free(nv);
			free(xy);
			view_layout_free(l);
			snprintf(why, why_len,
				 "part %s does not wrap around an axis (neither its normals nor half a turn of its positions): no cylinder to unroll",
				 sp->name);
			return -1;
		}
		for (i = k = 0; i < sp->n_taxels; i++)
			if (t[i].flags & SKIN_TAXEL_HAS_POS) {
				l->x[i] = xy[k][0];
				l->y[i] = xy[k][1];
				k++;
			}
		free(p);
		free(nv);
		free(xy);
		l->unit = SKIN_FLAT_METRE;
	} else {
		view_layout_free(l);
		snprintf(why, why_len,
			 "part %s has neither flattened nor 3D taxel positions: nothing to draw (a skinGui .ini gives a 2D layout)",
			 sp->name);
		return -1;
	}
	view_layout_finish(l);
	return 0;
}

/* --- colours ----------------------------------------------------------- */

void view_ramp(double v, uint8_t rgb[3])
{
	static const struct {
		double v;
		uint8_t c[3];
	} stop[] = {
		{ 0, { 40, 40, 56 } },
		{ 32, { 48, 18, 110 } },
		{ 96, { 160, 30, 120 } },
		{ 160, { 230, 80, 40 } },
		{ 224, { 250, 190, 40 } },
		{ 255, { 255, 255, 210 } },
	};
	unsigned int i, k;

	if (!(v > 0))
		v = 0;
	if (v > 255)
		v = 255;
	for (i = 1; i < sizeof(stop) / sizeof(stop[0]) - 1 && v > stop[i].v; i++)
		;
	for (k = 0; k < 3; k++) {
		double a = stop[i - 1].c[k], b = stop[i].c[k];
		double f = (v - stop[i - 1].v) / (stop[i].v - stop[i - 1].v);

		rgb[k] = (uint8_t)lround(a + (b - a) * f);
	}
}

/* The xterm 256-colour cube entry nearest to rgb. */
static unsigned int xterm256(const uint8_t rgb[3])
{
	static const int level[6] = { 0, 95, 135, 175, 215, 255 };
	unsigned int k, idx[3];

	for (k = 0; k < 3; k++) {
		unsigned int j, best = 0;

		for (j = 1; j < 6; j++)
			if (abs(level[j] - rgb[k]) < abs(level[best] - rgb[k]))
				best = j;
		idx[k] = best;
	}
	return 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
}

bool view_contact_cop(const struct view_layout *l, const struct view_frame *f,
		      const struct view_contact *c, double xy[2])
{
	double sw = 0, sx = 0, sy = 0, ux = 0, uy = 0;
	unsigned int i, n = 0;

	for (i = 0; i < c->n_taxels; i++) {
		unsigned int t = c->taxels[i];
		double w;

		if (t >= l->n || !placed(l, t))
			continue;
		w = f->values && f->values[t] > 0 ? f->values[t] : 0;
		sw += w;
		sx += w * l->x[t];
		sy += w * l->y[t];
		ux += l->x[t];
		uy += l->y[t];
		n++;
	}
	if (!n)
		return false;
	if (sw > 0) {
		xy[0] = sx / sw;
		xy[1] = sy / sw;
	} else {
		xy[0] = ux / n;
		xy[1] = uy / n;
	}
	return true;
}

/* --- text -------------------------------------------------------------- */

enum cell_style { C_EMPTY, C_ZERO, C_HEAT, C_THERMAL, C_MARK, C_LABEL };

struct cell {
	char ch;
	unsigned char style;
	bool heat_under;	/* a mark over a heat cell keeps its colour */
	double v;
};

static const char ascii_ramp[] = " .:-=+*#%@";

static char heat_char(double v)
{
	int i;

	if (!(v > 0))
		return '.';
	if (v > 255)
		v = 255;
	i = 2 + (int)(v * 8 / 256);
	return ascii_ramp[i > 9 ? 9 : i];
}

static double frame_max(const struct view_layout *l, const struct view_frame *f)
{
	double mx = 0;
	unsigned int i;

	for (i = 0; f->values && i < l->n; i++)
		if (l->kind[i] == SKIN_TAXEL_TACTILE && f->values[i] > mx)
			mx = f->values[i];
	return mx;
}

/* Append s cut to @width bytes, not inside a UTF-8 sequence. */
static void put_cut(FILE *out, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (n > width) {
		n = width;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	while (n && s[n - 1] == ' ')
		n--;
	fprintf(out, "%.*s", (int)n, s);
}

static void status_text(char *s, size_t len, const struct view_layout *l,
			const struct view_frame *f)
{
	size_t n;
	unsigned int i;

	n = (size_t)snprintf(s, len, "%s  sample %" PRIu64 "  t %.3f s  contacts %u",
			     f->part, f->sample, f->time_s, f->n_contacts);
	for (i = 0; i < f->n_contacts && n < len; i++)
		n += (size_t)snprintf(s + n, len - n, "%s#%" PRIu64, i ? "," : " ",
				      f->contacts[i].id);
	if (n < len)
		n += (size_t)snprintf(s + n, len - n, "  max %.0f", frame_max(l, f));
	if (n < len && f->state && strcmp(f->state, "running"))
		snprintf(s + n, len - n, "  [%s]", f->state);
}

/* Where the picture's positions come from, for its caption. */
static const char *layout_text(const struct view_layout *l, char *buf, size_t len)
{
	if (l->how == VIEW_PROJECTED)
		return "3D positions projected on their best-fit plane";
	if (l->how == VIEW_UNROLLED) {
		snprintf(buf, len, "3D positions unrolled from their best-fit cylinder (radius %.0f mm)",
			 l->radius * 1000);
		return buf;
	}
	return l->unit == SKIN_FLAT_SKINGUI ? "flat layout (skinGui units)" :
	       "flat layout (m)";
}

/* Where the positions come from and what is not drawn. */
static size_t layout_caption(char *s, size_t len, const struct view_layout *l)
{
	char how[128];
	size_t n = (size_t)snprintf(s, len, "%s", layout_text(l, how, sizeof(how)));

	if (l->n_unplaced && n < len)
		n += (size_t)snprintf(s + n, len - n, ", %u taxel%s without a position not shown",
				      l->n_unplaced, l->n_unplaced == 1 ? "" : "s");
	return n;
}

static void caption_text(char *s, size_t len, const struct view_layout *l,
			 const struct view_frame *f, const char *hint)
{
	size_t n = layout_caption(s, len, l);

	if (f->source && n < len)
		n += (size_t)snprintf(s + n, len - n, " | %s", f->source);
	if (hint && n < len)
		snprintf(s + n, len - n, " | %s", hint);
}

static void sgr(char *s, size_t len, const struct cell *c, enum view_color color)
{
	uint8_t rgb[3];
	char bg[40] = "";

	if (c->style == C_HEAT || c->heat_under) {
		view_ramp(c->v, rgb);
		if (color == VIEW_COLOR_TRUE)
			snprintf(bg, sizeof(bg), ";48;2;%u;%u;%u", rgb[0], rgb[1], rgb[2]);
		else
			snprintf(bg, sizeof(bg), ";48;5;%u", xterm256(rgb));
	}
	switch (c->style) {
	case C_ZERO:
		snprintf(s, len, "\033[0;%sm", color == VIEW_COLOR_TRUE ?
			 "38;2;88;88;88" : "38;5;240");
		break;
	case C_THERMAL:
		snprintf(s, len, "\033[0;%sm", color == VIEW_COLOR_TRUE ?
			 "38;2;95;135;175" : "38;5;67");
		break;
	case C_HEAT:
		snprintf(s, len, "\033[0%sm", bg);
		break;
	case C_MARK:
	case C_LABEL:
		snprintf(s, len, "\033[0;1;97%sm", bg);
		break;
	default:
		s[0] = '\0';
	}
}

static void emit_row(FILE *out, const struct cell *row,
		     unsigned int cols, enum view_color color)
{
	char cur[64] = "", want[64];
	unsigned int c, end = 0;

	for (c = 0; c < cols; c++)
		if (row[c].ch != ' ' ||
		    (color != VIEW_COLOR_NONE && row[c].style == C_HEAT))
			end = c + 1;
	for (c = 0; c < end; c++) {
		if (color != VIEW_COLOR_NONE) {
			sgr(want, sizeof(want), &row[c], color);
			if (strcmp(want, cur)) {
				fputs(want[0] ? want : "\033[0m", out);
				snprintf(cur, sizeof(cur), "%s", want);
			}
		}
		fputc(row[c].ch, out);
	}
	if (cur[0])
		fputs("\033[0m", out);
}

/* Layout positions to cells: the scale and the offsets that centre it. */
struct grid_map {
	double min0, max1, sc, sr;
	long off_c, off_r;
	unsigned int cols, rows;
};

static void grid_map_init(struct grid_map *g, const struct view_layout *l,
			  unsigned int cols, unsigned int rows)
{
	double dx = l->max[0] - l->min[0], dy = l->max[1] - l->min[1];
	double sr = INFINITY;

	if (dy > 0)
		sr = (rows - 1) / dy;
	if (dx > 0)
		sr = fmin(sr, (cols - 1) / (2 * dx));
	if (!isfinite(sr))
		sr = 0;
	g->min0 = l->min[0];
	g->max1 = l->max[1];
	g->sr = sr;
	g->sc = 2 * sr;
	g->off_c = ((long)cols - 1 - lround(dx * g->sc)) / 2;
	g->off_r = ((long)rows - 1 - lround(dy * g->sr)) / 2;
	g->cols = cols;
	g->rows = rows;
}

static void grid_cell(const struct grid_map *g, double x, double y,
		      unsigned int *col, unsigned int *row)
{
	long c = lround((x - g->min0) * g->sc) + g->off_c;
	long r = lround((g->max1 - y) * g->sr) + g->off_r;

	*col = (unsigned int)(c < 0 ? 0 : c >= (long)g->cols ? (long)g->cols - 1 : c);
	*row = (unsigned int)(r < 0 ? 0 : r >= (long)g->rows ? (long)g->rows - 1 : r);
}

static void mark_contacts(struct cell *grid, const struct grid_map *g,
			  const struct view_layout *l, const struct view_frame *f)
{
	unsigned int i, k;

	for (i = 0; i < f->n_contacts; i++) {
		char id[24];
		double xy[2];
		unsigned int col, row, len;
		struct cell *c;
		long start;

		if (!view_contact_cop(l, f, &f->contacts[i], xy))
			continue;
		grid_cell(g, xy[0], xy[1], &col, &row);
		c = &grid[row * g->cols + col];
		c->heat_under = c->style == C_HEAT;
		c->style = C_MARK;
		c->ch = 'X';
		len = (unsigned int)snprintf(id, sizeof(id), "%" PRIu64, f->contacts[i].id);
		if (col + 1 + len <= g->cols)
			start = col + 1;
		else if (col >= len)
			start = (long)(col - len);
		else
			continue;
		for (k = 0; k < len; k++) {
			c = &grid[row * g->cols + (unsigned int)start + k];
			c->ch = id[k];
			c->style = C_LABEL;
			c->heat_under = false;
		}
	}
}

int view_render_text(FILE *out, const struct view_layout *l,
		     const struct view_frame *f, const struct view_text_opts *o)
{
	const char *eol = o->eol ? o->eol : "\n";
	unsigned int cols = o->cols, rows, i, r;
	struct grid_map g;
	struct cell *grid;
	char line[1024];

	if (o->cols < 16 || o->rows < 4)
		return -1;
	rows = o->rows - 2;
	grid = calloc((size_t)cols * rows, sizeof(*grid));
	if (!grid)
		return -1;
	for (i = 0; i < cols * rows; i++)
		grid[i].ch = ' ';
	grid_map_init(&g, l, cols, rows);
	for (i = 0; i < l->n; i++) {
		unsigned int col, row;
		struct cell *c;
		double v;

		if (!placed(l, i) || l->kind[i] == SKIN_TAXEL_ABSENT)
			continue;
		grid_cell(&g, l->x[i], l->y[i], &col, &row);
		c = &grid[row * cols + col];
		if (l->kind[i] == SKIN_TAXEL_THERMAL) {
			if (c->style == C_EMPTY) {
				c->style = C_THERMAL;
				c->ch = 'o';
			}
			continue;
		}
		v = f->values && f->values[i] > 0 ? f->values[i] : 0;
		if (c->style == C_HEAT && c->v >= v)
			continue;
		if (c->style == C_ZERO && v == 0)
			continue;
		c->v = v;
		c->style = v > 0 ? C_HEAT : C_ZERO;
		c->ch = v > 0 && o->color != VIEW_COLOR_NONE ? ' ' : heat_char(v);
	}
	mark_contacts(grid, &g, l, f);

	status_text(line, sizeof(line), l, f);
	put_cut(out, line, cols);
	fputs(eol, out);
	for (r = 0; r < rows; r++) {
		emit_row(out, &grid[r * cols], cols, o->color);
		fputs(eol, out);
	}
	caption_text(line, sizeof(line), l, f, o->hint);
	put_cut(out, line, cols);
	fputs(eol, out);
	free(grid);
	return ferror(out) ? -1 : 0;
}

/* --- SVG --------------------------------------------------------------- */

static void xml_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* control characters are not XML 1.0 */
			if ((unsigned char)*s < 0x20 && *s != '\t')
				fputs("?", out);
			else
				fputc(*s, out);
		}
	}
}

int view_render_svg(FILE *out, const struct view_layout *l,
		    const struct view_frame *f)
{
	const double caption_h = 64;
	double dx = l->max[0] - l->min[0], dy = l->max[1] - l->min[1];
	double s = 28 / l->spacing, r, margin, w, h, ox, oy, big = fmax(dx, dy);
	double min_w;
	char status[1024], how[1024];
	unsigned int i;
	size_t chars;

	status_text(status, sizeof(status), l, f);
	layout_caption(how, sizeof(how), l);
	/* room for the caption: monospace at 13 px is some 7.9 px a glyph */
	chars = strlen(status) > strlen(how) ? strlen(status) : strlen(how);
	if (f->source && strlen(f->source) > chars)
		chars = strlen(f->source);
	min_w = fmax(420, 16 + 7.9 * (double)chars);
	if (big * s > 1600)
		s = 1600 / big;
	r = fmax(0.45 * l->spacing * s, 1.5);
	margin = r + 16;
	w = dx * s + 2 * margin;
	h = dy * s + 2 * margin + caption_h;
	ox = margin;
	oy = margin;
	if (w < min_w) {
		ox += (min_w - w) / 2;
		w = min_w;
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		ceil(w), ceil(h), ceil(w), ceil(h));
	fputs("<title>skin ", out);
	xml_text(out, f->part);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#14141c\"/>\n"
	      "<g id=\"taxels\">\n", out);
	for (i = 0; i < l->n; i++) {
		double cx, cy;

		if (!placed(l, i))
			continue;
		cx = ox + (l->x[i] - l->min[0]) * s;
		cy = oy + (l->max[1] - l->y[i]) * s;
		fprintf(out, "<circle id=\"t%u\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" ",
			i, cx, cy, r);
		if (l->kind[i] == SKIN_TAXEL_TACTILE) {
			double v = f->values && f->values[i] > 0 ? f->values[i] : 0;
			bool touched = f->touched && f->touched[i];
			uint8_t rgb[3];

			view_ramp(v, rgb);
			fprintf(out, "class=\"tactile%s\" fill=\"#%02x%02x%02x\"%s>"
				"<title>taxel %u: %.4g</title></circle>\n",
				touched ? " touched" : "", rgb[0], rgb[1], rgb[2],
				touched ? " stroke=\"#ffffff\"" : "", i, v);
		} else if (l->kind[i] == SKIN_TAXEL_THERMAL) {
			fprintf(out, "class=\"thermal\" fill=\"#24324a\" stroke=\"#5f87af\" "
				"stroke-dasharray=\"2 2\"><title>taxel %u: thermal pad</title>"
				"</circle>\n", i);
		} else {
			fprintf(out, "class=\"absent\" fill=\"none\" stroke=\"#50505a\" "
				"stroke-dasharray=\"1 2\"><title>taxel %u: absent</title>"
				"</circle>\n", i);
		}
	}
	fputs("</g>\n<g id=\"contacts\">\n", out);
	for (i = 0; i < f->n_contacts; i++) {
		const struct view_contact *c = &f->contacts[i];
		double xy[2], cx, cy, k = fmax(r * 1.6, 6);

		if (!view_contact_cop(l, f, c, xy))
			continue;
		cx = ox + (xy[0] - l->min[0]) * s;
		cy = oy + (l->max[1] - xy[1]) * s;
		fprintf(out, "<g class=\"contact\" id=\"c%" PRIu64 "\" data-x=\"%.9g\" "
			"data-y=\"%.9g\" data-taxels=\"%u\" data-pressure=\"%.4g\">"
			"<path d=\"M%.2f %.2fH%.2fM%.2f %.2fV%.2f\" stroke=\"#ffffff\" "
			"stroke-width=\"2\" fill=\"none\"/>"
			"<text x=\"%.2f\" y=\"%.2f\" fill=\"#ffffff\" font-family=\"monospace\" "
			"font-size=\"13\">#%" PRIu64 "</text></g>\n",
			c->id, xy[0], xy[1], c->n_taxels, c->pressure,
			cx - k, cy, cx + k, cx, cy - k, cy + k,
			cx + k + 2, cy - k + 2, c->id);
	}
	fputs("</g>\n<g id=\"caption\" xml:space=\"preserve\" font-family=\"monospace\" "
	      "font-size=\"13\" "
	      "fill=\"#d0d0d8\">\n", out);
	fprintf(out, "<text x=\"8\" y=\"%.0f\">", h - caption_h + 18);
	xml_text(out, status);
	fprintf(out, "</text>\n<text x=\"8\" y=\"%.0f\">", h - caption_h + 36);
	xml_text(out, how);
	fprintf(out, "</text>\n<text x=\"8\" y=\"%.0f\">", h - caption_h + 54);
	xml_text(out, f->source ? f->source : "");
	fputs("</text>\n</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
