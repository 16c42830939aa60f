// SPDX-License-Identifier: GPL-2.0
/*
 * layout.c - how each of skind's parts is drawn (layout.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "layout.h"
#include "log.h"

#define OCTAGON		8	/* a taxel's circle, in an outline */

/* A sentence into @buf, cut to its size (sources and reasons are said,
 * not parsed) */
static void say(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static void part_free(struct view_layout_part *p)
{
	free(p->x);
	free(p->y);
	free(p->kind);
	free(p->board);
	free(p->triangle);
	free(p->channel);
	free(p->patches);
	free(p->points);
	free(p->start);
	free(p->slot);
	memset(p, 0, sizeof(*p));
}

void view_layout_free(struct view_layout *l)
{
	unsigned int i;

	for (i = 0; i < l->n_parts; i++)
		part_free(&l->parts[i]);
	free(l->parts);
	memset(l, 0, sizeof(*l));
}

const struct view_layout_part *view_layout_find(const struct view_layout *l,
						const char *name)
{
	unsigned int i;

	for (i = 0; i < l->n_parts; i++)
		if (!strcmp(l->parts[i].name, name))
			return &l->parts[i];
	return NULL;
}

static int part_alloc(struct view_layout_part *p, const struct view_layout_want *w)
{
	unsigned int n = w->n, i;
	size_t k = n ? n : 1;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", w->name);
	p->skin_part = w->skin_part;
	p->n = n;
	p->x = malloc(k * sizeof(*p->x));
	p->y = malloc(k * sizeof(*p->y));
	p->kind = malloc(k);
	p->board = malloc(k * sizeof(*p->board));
	p->triangle = malloc(k * sizeof(*p->triangle));
	p->channel = malloc(k * sizeof(*p->channel));
	if (!p->x || !p->y || !p->kind || !p->board || !p->triangle || !p->channel)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p->x[i] = p->y[i] = NAN;
		p->kind[i] = VIEW_KIND_NONE;
		p->board[i] = p->triangle[i] = p->channel[i] = -1;
	}
	return 0;
}

static char kind_char(enum skin_taxel_kind k)
{
	return k == SKIN_TAXEL_TACTILE ? VIEW_KIND_TACTILE :
	       k == SKIN_TAXEL_THERMAL ? VIEW_KIND_THERMAL : VIEW_KIND_NONE;
}

static int model_part(const struct skin_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; m && i < m->n_parts; i++)
		if (!strcmp(m->parts[i].name, name))
			return (int)i;
	return -1;
}

/* Kinds, boards, triangles, channels and patches from skind's model */
static int wiring(struct view_layout_part *p, const struct skin_model *m,
		  unsigned int pi)
{
	const struct skin_part *sp = &m->parts[pi];
	unsigned int i, k;

	p->patches = calloc(sp->n_patches ? sp->n_patches : 1, sizeof(*p->patches));
	if (!p->patches)
		return -ENOMEM;
	p->n_patches = sp->n_patches;
	for (k = 0; k < sp->n_patches; k++) {
		const struct skin_patch *pp = &m->patches[sp->first_patch + k];
		struct view_layout_patch *lp;

		if (pp->order >= sp->n_patches)
			continue;
		lp = &p->patches[pp->order];
		/* skind's name for the driver's patch (daemon/skin.c,
		 * patch_name()): the part's for a part of one board, else
		 * PART.ORDER */
		if (sp->n_patches == 1)
			snprintf(lp->name, sizeof(lp->name), "%s", sp->name);
		else
			snprintf(lp->name, sizeof(lp->name), "%s.%u", sp->name, pp->order);
		snprintf(lp->bus, sizeof(lp->bus), "%s", pp->bus ? pp->bus : "");
		lp->address = pp->address;
	}
	for (i = 0; i < p->n; i++) {
		unsigned int order = i / SKIN_VALUES_PER_PATCH;

		p->kind[i] = kind_char(m->taxels[sp->first_taxel + i].kind);
		if (p->kind[i] == VIEW_KIND_NONE)
			continue;
		p->board[i] = order < p->n_patches ? p->patches[order].address : -1;
		p->triangle[i] = (int)(i % SKIN_VALUES_PER_PATCH / SKIN_CHANNELS_PER_TRIANGLE);
		p->channel[i] = (int)(i % SKIN_CHANNELS_PER_TRIANGLE);
	}
	return 0;
}

/* Kinds from a sample's taxel flags (a part skind.conf lacks) */
static void kinds_from_flags(struct view_layout_part *p, const uint8_t *flags)
{
	unsigned int i;

	for (i = 0; flags && i < p->n; i++)
		p->kind[i] = flags[i] & SKIN_SHM_TAXEL_TACTILE ? VIEW_KIND_TACTILE :
			     flags[i] & SKIN_SHM_TAXEL_THERMAL ? VIEW_KIND_THERMAL :
			     VIEW_KIND_NONE;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Positions of @f on the slots that are taxels */
static void place(struct view_layout_part *p, const struct skin_flattening *f)
{
	unsigned int i;

	p->unit = f->unit;
	for (i = 0; i < p->n && i < f->n; i++)
		if (p->kind[i] != VIEW_KIND_NONE && isfinite(f->x[i]) && isfinite(f->y[i])) {
			p->x[i] = f->x[i];
			p->y[i] = f->y[i];
		}
}

/* A [layout] file that does not place every tactile taxel of skind's
 * part (a drawing of another version of the part: icub-main's
 * left_arm_V2.ini lacks triangles 5 and 6 of left_arm.txt): used as the
 * configuration says, with the slots it leaves out said */
static void unplaced_note(struct view_layout_part *p, const struct view_config_layout *cl)
{
	unsigned int i, n = 0, first = 0;
	size_t len = strlen(p->source);

	for (i = 0; i < p->n; i++)
		if (p->kind[i] == VIEW_KIND_TACTILE && !(isfinite(p->x[i]) && isfinite(p->y[i])))
			if (!n++)
				first = i;
	if (!n)
		return;
	log_warn("part %s: %s: %s places no taxel in %u of skind's tactile slots (the first: %u): they are not drawn",
		 p->name, cl->where, cl->file, n, first);
	say(p->source + len, sizeof(p->source) - len,
	    " (%u tactile slots not in it, the first %u)", n, first);
}

/* The [layout] file's positions: 0, or -1 with why */
static int from_file(struct view_layout_part *p, const struct view_config_layout *cl,
		     char *why, size_t why_len)
{
	struct skin_model *lm;
	struct skin_flattening f;
	struct skin_error err;
	int part = 0;

	lm = skin_model_load(cl->file, SKIN_FORMAT_AUTO, &err);
	if (!lm) {
		say(why, why_len, "%s", err.text);
		return -1;
	}
	if (lm->n_parts != 1)
		part = model_part(lm, p->name);
	if (part < 0 || !lm->n_parts) {
		say(why, why_len, "%s: %u parts and none named %s", cl->file,
			 lm->n_parts, p->name);
		goto fail;
	}
	if (lm->parts[part].n_taxels != p->n) {
		say(why, why_len, "%s: its part %s has %u slots, skind's part %s %u",
			 cl->file, lm->parts[part].name, lm->parts[part].n_taxels,
			 p->name, p->n);
		goto fail;
	}
	if (skin_flatten_part(&f, lm, (unsigned int)part, SKIN_FLATTEN_AUTO, &err)) {
		say(why, why_len, "%s: %s", cl->file, err.what);
		goto fail;
	}
	place(p, &f);
	if (lm->parts[part].flat_unit == SKIN_FLAT_SKINGUI && f.how == SKIN_FLATTEN_FLAT)
		say(p->source, sizeof(p->source), "skinGui %s", base_name(cl->file));
	else {
		char d[128];

		say(p->source, sizeof(p->source), "%s: %s", base_name(cl->file),
			 skin_flatten_describe(&f, d, sizeof(d)));
	}
	skin_flatten_free(&f);
	skin_model_free(lm);
	unplaced_note(p, cl);
	return 0;
fail:
	skin_model_free(lm);
	return -1;
}

/* skind.conf's model flattened */
static void from_model(struct view_layout_part *p, const struct skin_model *m,
		       unsigned int pi, const char *prefix)
{
	struct skin_flattening f;
	struct skin_error err;
	char d[128];

	if (skin_flatten_part(&f, m, pi, SKIN_FLATTEN_AUTO, &err)) {
		say(p->source, sizeof(p->source), "none: %s%s", prefix, err.what);
		return;
	}
	place(p, &f);
	say(p->source, sizeof(p->source), "flattening: %s%s",
		 skin_flatten_describe(&f, d, sizeof(d)), prefix);
	skin_flatten_free(&f);
}

static double dist2(const struct view_layout_part *p, unsigned int a, unsigned int b)
{
	double dx = p->x[a] - p->x[b], dy = p->y[a] - p->y[b];

	return dx * dx + dy * dy;
}

static bool placed(const struct view_layout_part *p, unsigned int i)
{
	return isfinite(p->x[i]) && isfinite(p->y[i]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Half the median distance from a tactile taxel to its nearest placed
 * neighbour (a tenth of the extent when none has one): O(n^2), once per
 * configuration */
static int radius(struct view_layout_part *p)
{
	double *nn = malloc((p->n ? p->n : 1) * sizeof(*nn));
	double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
	unsigned int i, k, n = 0;

	if (!nn)
		return -ENOMEM;
	p->n_placed = 0;
	for (i = 0; i < p->n; i++) {
		double best = INFINITY;

		if (!placed(p, i))
			continue;
		p->n_placed++;
		lo[0] = fmin(lo[0], p->x[i]);
		lo[1] = fmin(lo[1], p->y[i]);
		hi[0] = fmax(hi[0], p->x[i]);
		hi[1] = fmax(hi[1], p->y[i]);
		if (p->kind[i] != VIEW_KIND_TACTILE)
			continue;
		for (k = 0; k < p->n; k++)
			if (k != i && placed(p, k)) {
				double d = dist2(p, i, k);

				if (d > 0 && d < best)
					best = d;
			}
		if (isfinite(best))
			nn[n++] = sqrt(best);
	}
	if (n) {
		qsort(nn, n, sizeof(*nn), cmp_double);
		p->radius = nn[n / 2] / 2;
	} else if (p->n_placed) {
		double ext = fmax(hi[0] - lo[0], hi[1] - lo[1]);

		p->radius = ext > 0 ? ext / 20 : 1;
	} else {
		p->radius = 0;
	}
	free(nn);
	return 0;
}

static double cross(const double o[2], const double a[2], const double b[2])
{
	return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

static int cmp_point(const void *a, const void *b)
{
	const double *p = a, *q = b;

	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	return (p[1] > q[1]) - (p[1] < q[1]);
}

/* The convex hull of @n points (Andrew's monotone chain), counter-
 * clockwise, into @out (room for n + 1): its vertex count */
static unsigned int hull(double (*pt)[2], unsigned int n, double (*out)[2])
{
	unsigned int i, k = 0, lower;

	if (n < 3) {
		memcpy(out, pt, n * sizeof(*pt));
		return n;
	}
	qsort(pt, n, sizeof(*pt), cmp_point);
	for (i = 0; i < n; i++) {
		while (k >= 2 && cross(out[k - 2], out[k - 1], pt[i]) <= 0)
			k--;
		memcpy(out[k++], pt[i], sizeof(*pt));
	}
	lower = k + 1;
	for (i = n - 1; i-- > 0; ) {
		while (k >= lower && cross(out[k - 2], out[k - 1], pt[i]) <= 0)
			k--;
		memcpy(out[k++], pt[i], sizeof(*pt));
	}
	return k - 1;	/* the last is the first again */
}

/* An outline per triangle (12 slots) with a placed taxel */
static int outlines(struct view_layout_part *p)
{
	unsigned int groups = (p->n + SKIN_CHANNELS_PER_TRIANGLE - 1) / SKIN_CHANNELS_PER_TRIANGLE;
	double (*cloud)[2] = malloc(SKIN_CHANNELS_PER_TRIANGLE * OCTAGON * sizeof(*cloud));
	double (*h)[2] = malloc((SKIN_CHANNELS_PER_TRIANGLE * OCTAGON + 1) * sizeof(*h));
	unsigned int g, i, j, n_pts = 0;
	int rc = -ENOMEM;

	p->points = malloc((groups ? groups : 1) * (SKIN_CHANNELS_PER_TRIANGLE * OCTAGON + 1) *
			   sizeof(*p->points));
	p->start = malloc((groups + 1) * sizeof(*p->start));
	p->slot = malloc((groups ? groups : 1) * sizeof(*p->slot));
	if (!cloud || !h || !p->points || !p->start || !p->slot)
		goto out;
	p->n_outlines = 0;
	for (g = 0; g < groups; g++) {
		unsigned int n = 0, k;

		for (i = g * SKIN_CHANNELS_PER_TRIANGLE;
		     i < p->n && i < (g + 1) * SKIN_CHANNELS_PER_TRIANGLE; i++) {
			if (!placed(p, i))
				continue;
			for (j = 0; j < OCTAGON; j++) {
				double a = 2 * M_PI * (j + 0.5) / OCTAGON;

				cloud[n][0] = p->x[i] + p->radius * cos(a);
				cloud[n][1] = p->y[i] + p->radius * sin(a);
				n++;
			}
		}
		if (!n)
			continue;
		k = hull(cloud, n, h);
		p->start[p->n_outlines] = n_pts;
		p->slot[p->n_outlines] = g * SKIN_CHANNELS_PER_TRIANGLE;
		memcpy(p->points + n_pts, h, k * sizeof(*h));
		n_pts += k;
		p->n_outlines++;
	}
	p->start[p->n_outlines] = n_pts;
	rc = 0;
out:
	free(cloud);
	free(h);
	return rc;
}

static int build_part(struct view_layout_part *p, const struct skin_model *m,
		      const char *model_why, const struct view_config *cfg,
		      const struct view_layout_want *w)
{
	const struct view_config_layout *cl = view_config_layout(cfg, w->name);
	int pi = model_part(m, w->name), rc;

	rc = part_alloc(p, w);
	if (rc)
		return rc;
	if (pi < 0 || m->parts[pi].n_taxels != w->n) {
		kinds_from_flags(p, w->flags);
		if (!m)
			say(p->source, sizeof(p->source), "none: %s", model_why);
		else if (pi < 0)
			say(p->source, sizeof(p->source), "none: %s has no part %s",
				 cfg->skind_config, w->name);
		else
			say(p->source, sizeof(p->source),
				 "none: %s's part %s has %u slots, skind's %u",
				 cfg->skind_config, w->name, m->parts[pi].n_taxels, w->n);
		log_warn("part %s: no layout: %s", w->name, p->source + 6);
	} else {
		char why[600];

		rc = wiring(p, m, (unsigned int)pi);
		if (rc)
			return rc;
		if (!cl)
			from_model(p, m, (unsigned int)pi, "");
		else if (from_file(p, cl, why, sizeof(why))) {
			char prefix[700];

			log_warn("part %s: %s: [layout %s] not used, drawn from skind.conf's flattening: %s",
				 w->name, cl->where, w->name, why);
			say(prefix, sizeof(prefix), " ([layout %s] of %s not used: %s)",
				 w->name, cl->where, why);
			from_model(p, m, (unsigned int)pi, prefix);
		}
	}
	rc = radius(p);
	return rc ? rc : outlines(p);
}

int view_layout_build(struct view_layout *l, const struct skin_model *model,
		      const char *model_why, const struct view_config *cfg,
		      const struct view_layout_want *want, unsigned int n_want,
		      uint64_t generation)
{
	unsigned int i;
	int rc;

	memset(l, 0, sizeof(*l));
	l->generation = generation;
	l->parts = calloc(n_want ? n_want : 1, sizeof(*l->parts));
	if (!l->parts)
		return -ENOMEM;
	for (i = 0; i < n_want; i++) {
		l->n_parts++;
		rc = build_part(&l->parts[i], model, model_why, cfg, &want[i]);
		if (rc) {
			view_layout_free(l);
			return rc;
		}
	}
	return 0;
}

static void ints(struct jw *w, const char *key, const int *v, unsigned int n)
{
	unsigned int i;

	jw_key(w, key);
	jw_array(w);
	for (i = 0; i < n; i++)
		jw_int(w, v[i]);
	jw_array_end(w);
}

static void nums(struct jw *w, const char *key, const double *v, unsigned int n)
{
	unsigned int i;

	jw_key(w, key);
	jw_array(w);
	for (i = 0; i < n; i++)
		jw_num(w, v[i], 7);
	jw_array_end(w);
}

static void part_json(struct jw *w, const struct view_layout_part *p)
{
	const char *sp = skin_part_id_name(p->skin_part);
	unsigned int i, k;
	char *kinds;

	jw_object(w);
	jw_key(w, "name");
	jw_str(w, p->name);
	jw_key(w, "skin_part");
	if (p->skin_part != SKIN_PART_UNKNOWN && sp)
		jw_str(w, sp);
	else
		jw_null(w);
	jw_key(w, "n");
	jw_uint(w, p->n);
	jw_key(w, "source");
	jw_str(w, p->source);
	jw_key(w, "unit");
	if (!p->n_placed)
		jw_null(w);
	else
		jw_str(w, p->unit == SKIN_FLAT_SKINGUI ? "skinGui" : "m");
	nums(w, "x", p->x, p->n);
	nums(w, "y", p->y, p->n);
	kinds = malloc(p->n + 1);
	if (!kinds) {
		w->err = -ENOMEM;
		return;
	}
	memcpy(kinds, p->kind, p->n);
	kinds[p->n] = 0;
	jw_key(w, "kind");
	jw_str(w, kinds);
	free(kinds);
	ints(w, "board", p->board, p->n);
	ints(w, "triangle", p->triangle, p->n);
	ints(w, "channel", p->channel, p->n);
	jw_key(w, "outlines");
	jw_array(w);
	for (i = 0; i < p->n_outlines; i++) {
		jw_array(w);
		for (k = p->start[i]; k < p->start[i + 1]; k++) {
			jw_array(w);
			jw_num(w, p->points[k][0], 7);
			jw_num(w, p->points[k][1], 7);
			jw_array_end(w);
		}
		jw_array_end(w);
	}
	jw_array_end(w);
	jw_key(w, "outline_slots");
	jw_array(w);
	for (i = 0; i < p->n_outlines; i++)
		jw_uint(w, p->slot[i]);
	jw_array_end(w);
	jw_key(w, "patches");
	jw_array(w);
	for (i = 0; i < p->n_patches; i++) {
		jw_object(w);
		jw_key(w, "name");
		jw_str(w, p->patches[i].name);
		jw_key(w, "bus");
		if (p->patches[i].bus[0])
			jw_str(w, p->patches[i].bus);
		else
			jw_null(w);
		jw_key(w, "address");
		jw_int(w, p->patches[i].address);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_key(w, "radius");
	jw_num(w, p->radius, 7);
	jw_object_end(w);
}

char *view_layout_json(const struct view_layout *l, size_t max, size_t *len,
		       int *err)
{
	struct jw w;
	unsigned int i;
	char *s;

	jw_init(&w, max);
	jw_object(&w);
	jw_key(&w, "generation");
	jw_uint(&w, l->generation);
	jw_key(&w, "parts");
	jw_array(&w);
	for (i = 0; i < l->n_parts; i++)
		part_json(&w, &l->parts[i]);
	jw_array_end(&w);
	jw_object_end(&w);
	*err = w.err;
	s = jw_take(&w, len);
	return s;
}

bool view_layout_centroid(const struct view_layout_part *p,
			  const uint32_t *taxels, unsigned int n,
			  const double *values, double xy[2])
{
	/* the layout's positions are a flattening: one rule for the
	 * centroid of every picture (skin/flatten.h) */
	const struct skin_flattening f = {
		.n = p->n, .x = p->x, .y = p->y, .unit = p->unit,
	};

	return skin_flatten_centroid(&f, taxels, n, values, xy);
}
