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

int view_pca_project(const double (*p)[3], const double (*normals)[3],
		     unsigned int n, double (*out)[2])
{
	double mean[3] = { 0, 0, 0 }, cov[3][3] = { { 0 } }, v[3][3];
	double e1[3], e2[3], e3[3];
	unsigned int i, j, k, order[3] = { 0, 1, 2 };

	if (!n)
		return -1;
	for (i = 0; i < n; i++)
		for (k = 0; k < 3; k++)
			mean[k] += p[i][k] / n;
	for (i = 0; i < n; i++)
		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				cov[j][k] += (p[i][j] - mean[j]) * (p[i][k] - mean[k]);
	jacobi3(cov, v);
	/* eigenvalues descending; ties keep x, y, z order */
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (cov[order[j]][order[j]] > cov[order[i]][order[i]]) {
				k = order[i];
				order[i] = order[j];
				order[j] = k;
			}
	for (k = 0; k < 3; k++) {
		e1[k] = v[k][order[0]];
		e2[k] = v[k][order[1]];
	}
	fix_sign(e1);
	fix_sign(e2);
	if (normals) {
		double nm[3] = { 0, 0, 0 }, dot;

		for (i = 0; i < n; i++)
			for (k = 0; k < 3; k++)
				nm[k] += normals[i][k];
		e3[0] = e1[1] * e2[2] - e1[2] * e2[1];
		e3[1] = e1[2] * e2[0] - e1[0] * e2[2];
		e3[2] = e1[0] * e2[1] - e1[1] * e2[0];
		dot = nm[0] * e3[0] + nm[1] * e3[1] + nm[2] * e3[2];
		/* x right, y up, the viewer on +e3: normals towards it */
		if (dot < -1e-9 * n)
			for (k = 0; k < 3; k++)
				e2[k] = -e2[k];
	}
	for (i = 0; i < n; i++) {
		double d[3];

		for (k = 0; k < 3; k++)
			d[k] = p[i][k] - mean[k];
		out[i][0] = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
		out[i][1] = d[0] * e2[0] + d[1] * e2[1] + d[2] * e2[2];
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
 * sheet's normals do not spread: false.
 */
static bool wrap_axis(const double (*normals)[3], unsigned int n, double axis[3])
{
	double s[3][3] = { { 0 } }, v[3][3], lam[3];
	unsigned int i, j, k, used = 0, o[3] = { 0, 1, 2 };

	for (i = 0; i < n; i++) {
		double len = sqrt(normals[i][0] * normals[i][0] +
				  normals[i][1] * normals[i][1] +
				  normals[i][2] * normals[i][2]);

		if (!(len > 0))
			continue;
		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				s[j][k] += normals[i][j] * normals[i][k] / (len * len);
		used++;
	}
	if (used < 3)
		return false;
	jacobi3(s, v);
	for (k = 0; k < 3; k++)
		lam[k] = s[k][k] / used;
	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (lam[o[j]] > lam[o[i]]) {
				k = o[i];
				o[i] = o[j];
				o[j] = k;
			}
	if (lam[o[1]] < 0.15 * lam[o[0]] || lam[o[2]] > 0.05)
		return false;
	for (k = 0; k < 3; k++)
		axis[k] = v[k][o[2]];
	fix_sign(axis);
	return true;
}

int view_cylinder_unroll(const double (*p)[3], const double (*normals)[3],
			 unsigned int n, double (*out)[2], double *radius)
{
	double a[3], u[3], w[3], c[2] = { 0, 0 }, m[3][3] = { { 0 } }, rhs[3] = { 0 };
	double sol[3], r2, r, mean_a = 0, outward = 0, gap = -1, start = 0, span;
	double *phi = NULL, *sorted = NULL;
	unsigned int i, k;
	int rc = -1;

	if (n < 3 || !normals || !wrap_axis(normals, n, a))
		return -1;
	/* u, w: a right-handed basis of the cross-section (u x w = a) */
	k = fabs(a[0]) < 0.9 ? 0 : 1;
	u[0] = k == 0 ? 1 : 0;
	u[1] = k == 1 ? 1 : 0;
	u[2] = 0;
	r = u[0] * a[0] + u[1] * a[1];
	for (k = 0; k < 3; k++)
		u[k] -= r * a[k];
	r = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	for (k = 0; k < 3; k++)
		u[k] /= r;
	w[0] = a[1] * u[2] - a[2] * u[1];
	w[1] = a[2] * u[0] - a[0] * u[2];
	w[2] = a[0] * u[1] - a[1] * u[0];
	phi = malloc(n * sizeof(*phi));
	sorted = malloc(n * sizeof(*sorted));
	if (!phi || !sorted)
		goto out;
	/* the cross-section, centred, in out[] for now */
	for (i = 0; i < n; i++) {
		out[i][0] = p[i][0] * u[0] + p[i][1] * u[1] + p[i][2] * u[2];
		out[i][1] = p[i][0] * w[0] + p[i][1] * w[1] + p[i][2] * w[2];
		c[0] += out[i][0] / n;
		c[1] += out[i][1] / n;
		mean_a += (p[i][0] * a[0] + p[i][1] * a[1] + p[i][2] * a[2]) / n;
	}
	/* Kasa's circle fit: x^2 + y^2 + D x + E y + F = 0, least squares */
	for (i = 0; i < n; i++) {
		double x = out[i][0] - c[0], y = out[i][1] - c[1], q = x * x + y * y;
		double row[3] = { x, y, 1 };

		for (k = 0; k < 3; k++) {
			unsigned int j;

			for (j = 0; j < 3; j++)
				m[k][j] += row[k] * row[j];
			rhs[k] -= row[k] * q;
		}
	}
	if (!solve3(m, rhs, sol))
		goto out;
	r2 = sol[0] * sol[0] / 4 + sol[1] * sol[1] / 4 - sol[2];
	if (!(r2 > 0))
		goto out;
	r = sqrt(r2);
	c[0] -= sol[0] / 2;
	c[1] -= sol[1] / 2;
	for (i = 0; i < n; i++) {
		double x = out[i][0] - c[0], y = out[i][1] - c[1];
		double nu = normals[i][0] * u[0] + normals[i][1] * u[1] + normals[i][2] * u[2];
		double nw = normals[i][0] * w[0] + normals[i][1] * w[1] + normals[i][2] * w[2];

		phi[i] = sorted[i] = atan2(y, x);
		outward += nu * x + nw * y;
	}
	/* the seam: the middle of the widest angular gap */
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (i = 0; i < n; i++) {
		double next = i + 1 < n ? sorted[i + 1] : sorted[0] + 2 * M_PI;

		if (next - sorted[i] > gap) {
			gap = next - sorted[i];
			start = next;
		}
	}
	span = 2 * M_PI - gap;
	for (i = 0; i < n; i++) {
		double d = fmod(phi[i] - start + 4 * M_PI, 2 * M_PI);

		if (d > span + 1e-12)	/* rounding at the seam */
			d = span;
		/* increasing angle, the axis up: seen from outside when the
		 * normals point away from the axis, else mirrored back */
		out[i][0] = r * (d - span / 2) * (outward < 0 ? -1 : 1);
		out[i][1] = p[i][0] * a[0] + p[i][1] * a[1] + p[i][2] * a[2] - mean_a;
	}
	*radius = r;
	rc = 0;
out:
	free(phi);
	free(sorted);
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
				 "the taxel normals of part %s do not wrap around one axis: no cylinder to unroll",
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

static void caption_text(char *s, size_t len, const struct view_layout *l,
			 const struct view_frame *f, const char *hint)
{
	char how[128];
	size_t n = (size_t)snprintf(s, len, "%s", layout_text(l, how, sizeof(how)));

	if (l->n_unplaced && n < len)
		n += (size_t)snprintf(s + n, len - n, ", %u taxel%s without a position not shown",
				      l->n_unplaced, l->n_unplaced == 1 ? "" : "s");
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
	const double caption_h = 64, min_w = 420;
	double dx = l->max[0] - l->min[0], dy = l->max[1] - l->min[1];
	double s = 28 / l->spacing, r, margin, w, h, ox, oy, big = fmax(dx, dy);
	char line[1024];
	unsigned int i;

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
	status_text(line, sizeof(line), l, f);
	fprintf(out, "<text x=\"8\" y=\"%.0f\">", h - caption_h + 18);
	xml_text(out, line);
	fprintf(out, "</text>\n<text x=\"8\" y=\"%.0f\">", h - caption_h + 36);
	xml_text(out, layout_text(l, line, sizeof(line)));
	if (l->n_unplaced)
		fprintf(out, ", %u taxel%s without a position not shown", l->n_unplaced,
			l->n_unplaced == 1 ? "" : "s");
	fprintf(out, "</text>\n<text x=\"8\" y=\"%.0f\">", h - caption_h + 54);
	xml_text(out, f->source ? f->source : "");
	fputs("</text>\n</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
