// SPDX-License-Identifier: GPL-2.0
/*
 * flatten.c - a part's taxels on a plane (include/skin/flatten.h)
 *
 * The geometry behind skinctl view and skind's evdev coordinates: the
 * principal axes of a point set (Jacobi rotations on its 3x3 covariance),
 * the axis a curved sheet wraps around (from its normals, or searched over
 * the half sphere from its positions alone), the circle of its
 * cross-section and the unrolling.  Parts are flattened once per model,
 * but skind does it on its event loop at start and on each reload (its
 * evdev devices), for parts of up to 1,344 taxels: the axis search, the
 * only costly step, skips the work a direction cannot win
 * (bench/flatten_bench, docs/PERFORMANCE.md "Flattening").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/flatten.h>

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

int skin_flatten_plane(const double (*p)[3], const double (*normals)[3],
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

/* The arrays of an unrolling, for n points: allocated once per search. */
struct scratch {
	double (*xy)[2];	/* n: the cross-section's coordinates */
	double *phi;		/* n: the angles around its circle */
	double *lo, *hi;	/* n + 1: widest_gap()'s buckets */
};

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
 * The widest gap between the angles @phi[0..n) (atan2's, in [-pi, pi])
 * around the circle, and in *end the angle that closes it: what sorting
 * them and looking at each neighbour's gap in turn, the wrap-around last,
 * gives (the first widest), in O(n).  n + 1 buckets of equal width are
 * narrower than the widest gap (the n gaps make a whole turn), so it lies
 * between two non-empty buckets, from the highest angle of one to the
 * lowest of the next; bucket numbers rise with the angle, so those two
 * are neighbours in sorted order.  The search calls this for every
 * direction it tries: sorting there cost a third of its time.
 */
static double widest_gap(const double *phi, unsigned int n, struct scratch *s,
			 double *end)
{
	double w = 2 * M_PI / (n + 1), gap = -1, first = 0, prev = 0;
	unsigned int i, b;
	bool any = false;

	for (b = 0; b <= n; b++) {
		s->lo[b] = INFINITY;
		s->hi[b] = -INFINITY;
	}
	for (i = 0; i < n; i++) {
		b = (unsigned int)((phi[i] + M_PI) / w);
		if (b > n)
			b = n;
		if (phi[i] < s->lo[b])
			s->lo[b] = phi[i];
		if (phi[i] > s->hi[b])
			s->hi[b] = phi[i];
	}
	for (b = 0; b <= n; b++) {
		if (s->lo[b] > s->hi[b])
			continue;	/* empty */
		if (!any) {
			first = s->lo[b];
			any = true;
		} else if (s->lo[b] - prev > gap) {
			gap = s->lo[b] - prev;
			*end = s->lo[b];
		}
		prev = s->hi[b];
	}
	if (first + 2 * M_PI - prev > gap) {
		gap = first + 2 * M_PI - prev;
		*end = first + 2 * M_PI;
	}
	return gap;
}

/* The angles of the cross-section's points around its centre @c. */
static void angles(const double (*xy)[2], unsigned int n, const double c[2],
		   double *phi)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		phi[i] = atan2(xy[i][1] - c[1], xy[i][0] - c[0]);
}

/*
 * Unroll about axis @a: x = arc length around the cross-section's circle
 * from the middle of the covered arc (the seam in the widest gap), y =
 * height along @a from the mean.  Seen from outside the circle, unless
 * @normals point inwards on the whole.  0, or -1 for a degenerate circle.
 */
static int unroll_about(const double (*p)[3], const double (*normals)[3],
			unsigned int n, const double a[3], double (*out)[2],
			struct scratch *s, struct unroll *u)
{
	double e1[3], e2[3], c[2], mean_a = 0, outward = 0, start = 0;
	unsigned int i;

	if (cross_section(p, n, a, e1, e2, out, c, u))
		return -1;
	angles((const double (*)[2])out, n, c, s->phi);
	for (i = 0; i < n; i++) {
		double x = out[i][0] - c[0], y = out[i][1] - c[1];

		mean_a += dot3(p[i], a) / n;
		if (normals)
			outward += dot3(normals[i], e1) * x + dot3(normals[i], e2) * y;
	}
	u->span = 2 * M_PI - widest_gap(s->phi, n, s, &start);
	for (i = 0; i < n; i++) {
		double d = fmod(s->phi[i] - start + 4 * M_PI, 2 * M_PI);

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
 * a torso's front looks more like itself projected on a plane.  Infinity
 * too when the misfit is @bound or more: the search keeps a direction
 * only if it fits better than the best so far, and the circle's misfit
 * (O(n)) is known before the angles and their gap.
 */
static double axis_misfit(const double (*p)[3], unsigned int n, const double a[3],
			  double bound, struct scratch *s)
{
	double e1[3], e2[3], c[2], end;
	struct unroll u;

	if (cross_section(p, n, a, e1, e2, s->xy, c, &u) || !(u.misfit < bound))
		return INFINITY;
	angles((const double (*)[2])s->xy, n, c, s->phi);
	if (2 * M_PI - widest_gap(s->phi, n, s, &end) < M_PI)
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
			struct scratch *s)
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
		f = axis_misfit(p, n, d, best, s);
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
			f = axis_misfit(p, n, d, best, s);
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

int skin_flatten_cylinder(const double (*p)[3], const double (*normals)[3],
			  unsigned int n, double (*out)[2], double *radius)
{
	struct scratch s;
	struct unroll u;
	double a[3];
	int rc = -1;

	if (n < 3)
		return -1;
	s.xy = malloc(n * sizeof(*s.xy));
	s.phi = malloc(n * sizeof(*s.phi));
	s.lo = malloc((n + 1) * sizeof(*s.lo));
	s.hi = malloc((n + 1) * sizeof(*s.hi));
	if (!s.xy || !s.phi || !s.lo || !s.hi)
		goto out;
	if (wrap_axis(normals, n, a)) {
		rc = unroll_about(p, normals, n, a, out, &s, &u);
	} else if (best_axis(p, n, a, &s) <= 0.15) {
		/* normals that say nothing: the axis from the positions
		 * alone, the skin on the outside */
		rc = unroll_about(p, NULL, n, a, out, &s, &u);
	}
	if (!rc)
		*radius = u.r;
out:
	free(s.xy);
	free(s.phi);
	free(s.lo);
	free(s.hi);
	return rc;
}

void skin_flatten_free(struct skin_flattening *f)
{
	free(f->x);
	free(f->y);
	f->x = f->y = NULL;
}

const char *skin_flatten_describe(const struct skin_flattening *f, char *buf,
				  size_t len)
{
	if (f->how == SKIN_FLATTEN_PLANE)
		return "3D positions projected on their best-fit plane";
	if (f->how == SKIN_FLATTEN_CYLINDER) {
		snprintf(buf, len, "3D positions unrolled from their best-fit cylinder (radius %.0f mm)",
			 f->radius * 1000);
		return buf;
	}
	return f->unit == SKIN_FLAT_SKINGUI ? "flat layout (skinGui units)" :
	       "flat layout (m)";
}

/* The 3D positions of the part's taxels that have one, flattened into
 * f->x, f->y: 0, or -1 with *err. */
static int flatten_positions(struct skin_flattening *f, const struct skin_part *sp,
			     const struct skin_taxel *t, unsigned int n_pos,
			     enum skin_flatten_mode mode, struct skin_error *err)
{
	double (*p)[3] = malloc(n_pos * sizeof(*p));
	double (*nv)[3] = malloc(n_pos * sizeof(*nv));
	double (*xy)[2] = malloc(n_pos * sizeof(*xy));
	unsigned int i, k;
	int rc = -1;

	if (!p || !nv || !xy) {
		skin_error_set(err, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = k = 0; i < sp->n_taxels; i++)
		if (t[i].flags & SKIN_TAXEL_HAS_POS) {
			memcpy(p[k], t[i].pos, sizeof(p[k]));
			memcpy(nv[k], t[i].normal, sizeof(nv[k]));
			k++;
		}
	f->how = SKIN_FLATTEN_CYLINDER;
	if (mode == SKIN_FLATTEN_TO_PLANE ||
	    skin_flatten_cylinder((const double (*)[3])p, (const double (*)[3])nv,
				  n_pos, xy, &f->radius)) {
		f->how = SKIN_FLATTEN_PLANE;
		skin_flatten_plane((const double (*)[3])p, (const double (*)[3])nv,
				   n_pos, xy);
	}
	if (mode == SKIN_FLATTEN_TO_CYLINDER && f->how != SKIN_FLATTEN_CYLINDER) {
		skin_error_set(err, NULL, 0, 0,
			       "part %s does not wrap around an axis (neither its normals nor half a turn of its positions): no cylinder to unroll",
			       sp->name);
		goto out;
	}
	for (i = k = 0; i < sp->n_taxels; i++)
		if (t[i].flags & SKIN_TAXEL_HAS_POS) {
			f->x[i] = xy[k][0];
			f->y[i] = xy[k][1];
			k++;
		}
	f->unit = SKIN_FLAT_METRE;
	rc = 0;
out:
	free(p);
	free(nv);
	free(xy);
	return rc;
}

int skin_flatten_part(struct skin_flattening *f, const struct skin_model *m,
		      unsigned int part, enum skin_flatten_mode mode,
		      struct skin_error *err)
{
	const struct skin_part *sp = &m->parts[part];
	const struct skin_taxel *t = &m->taxels[sp->first_taxel];
	unsigned int i, n_flat = 0, n_pos = 0, n = sp->n_taxels;

	memset(f, 0, sizeof(*f));
	f->n = n;
	f->x = malloc((n ? n : 1) * sizeof(*f->x));
	f->y = malloc((n ? n : 1) * sizeof(*f->y));
	if (!f->x || !f->y) {
		skin_flatten_free(f);
		skin_error_set(err, NULL, 0, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		f->x[i] = f->y[i] = NAN;
		n_flat += !!(t[i].flags & SKIN_TAXEL_HAS_FLAT);
		n_pos += !!(t[i].flags & SKIN_TAXEL_HAS_POS);
	}
	if (n_flat && sp->flat_unit != SKIN_FLAT_NONE && mode == SKIN_FLATTEN_AUTO) {
		f->how = SKIN_FLATTEN_FLAT;
		f->unit = sp->flat_unit;
		for (i = 0; i < n; i++)
			if (t[i].flags & SKIN_TAXEL_HAS_FLAT) {
				f->x[i] = t[i].flat[0];
				f->y[i] = t[i].flat[1];
			}
		return 0;
	}
	if (n_pos) {
		if (!flatten_positions(f, sp, t, n_pos, mode, err))
			return 0;
	} else {
		skin_error_set(err, NULL, 0, 0,
			       "part %s has neither flattened nor 3D taxel positions: nothing to draw (a skinGui .ini gives a 2D layout)",
			       sp->name);
	}
	skin_flatten_free(f);
	return -1;
}

bool skin_flatten_centroid(const struct skin_flattening *f,
			   const uint32_t *taxels, unsigned int n,
			   const double *values, double xy[2])
{
	double w = 0, fx = 0, fy = 0;
	unsigned int k;

	for (k = 0; k < n; k++) {
		unsigned int t = taxels[k];
		double v;

		if (t >= f->n || !isfinite(f->x[t]) || !isfinite(f->y[t]))
			continue;
		v = values && values[t] > 1 ? values[t] : 1;
		fx += f->x[t] * v;
		fy += f->y[t] * v;
		w += v;
	}
	xy[0] = w > 0 ? fx / w : NAN;
	xy[1] = w > 0 ? fy / w : NAN;
	return w > 0;
}
