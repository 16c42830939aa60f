// SPDX-License-Identifier: GPL-2.0
/*
 * skinware.c - the Skinware calibration cache, read and written
 *
 *     sensors-count total-neighbors-count
 *     px py pz  ox oy oz  fx fy  radius  robot-link  n  neighbour ids...
 *
 * (the Skinware user API documentation, maclab/skinware, "Calibration
 * Cache"; docs/MODEL.md).  Metres throughout; (ox, oy, oz)
 * is the skin normal; (fx, fy) the flattened position, also in metres.
 * The format is whitespace-separated, so line breaks are not required to
 * fall between sensors; errors still name the line and column.
 *
 * Round trip: numbers are printed in the shortest form that reads back as
 * the same double, and neighbour lists keep the file's order, so
 * read -> write -> read gives an identical model and write -> read ->
 * write identical bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

static bool next_tok(struct lex *lx, char *tok, size_t size, unsigned int *l,
		     unsigned int *c, const char *what)
{
	int n = lex_token(lx, true, tok, size, l, c);

	if (n < 0)
		return false;
	if (n == 0) {
		lex_error(lx, *l, *c, "expected %s, got end of file", what);
		return false;
	}
	return true;
}

static bool num(struct lex *lx, const char *what, double *out)
{
	char tok[64];
	unsigned int l, c;

	return next_tok(lx, tok, sizeof(tok), &l, &c, what) &&
	       lex_parse_double(lx, tok, l, c, what, out);
}

static bool integer(struct lex *lx, const char *what, long min, long max,
		    long *out, unsigned int *l, unsigned int *c)
{
	char tok[64];

	return next_tok(lx, tok, sizeof(tok), l, c, what) &&
	       lex_parse_long(lx, tok, *l, *c, what, min, max, out);
}

struct skin_model *skin_skinware_read(const char *buf, size_t len,
				      const char *name,
				      struct skin_error *err)
{
	static const char *const what[9] = {
		"position x (metres)", "position y (metres)",
		"position z (metres)", "orientation x", "orientation y",
		"orientation z", "flattened x (metres)",
		"flattened y (metres)", "radius (metres)"
	};
	struct skin_model *m = NULL;
	unsigned int *start = NULL, *nbr = NULL;
	long count, total, v;
	unsigned int i, k, n = 0, cap = 0, l, c, tl, tc;
	char tok[64];
	struct lex lx;
	int pi;

	lex_init(&lx, buf, len, name, err);
	if (!integer(&lx, "sensors-count", 0, SKIN_MAX_TAXELS, &count, &l, &c) ||
	    !integer(&lx, "total-neighbors-count", 0, 64L * SKIN_MAX_TAXELS,
		     &total, &tl, &tc))
		return NULL;
	m = model_new();
	if (!m)
		goto oom;
	pi = model_add_part(m, "skinware", (unsigned int)count);
	if (pi < 0 || model_set_str(&m->parts[pi].source, name))
		goto oom;
	m->parts[pi].flat_unit = SKIN_FLAT_METRE;
	start = calloc((size_t)count + 1, sizeof(*start));
	if (!start)
		goto oom;
	for (i = 0; i < (unsigned int)count; i++) {
		struct skin_taxel *t = &m->taxels[i];
		double v9[9];
		char lname[32];
		long link, nn;

		for (k = 0; k < 9; k++) {
			lex_space(&lx);
			l = lx.line;	/* where the radius starts, for its check */
			c = lx.col;
			if (!num(&lx, what[k], &v9[k]))
				goto fail;
		}
		if (v9[8] < 0) {
			lex_error(&lx, l, c,
				  "sensor %u: expected a radius >= 0 metres, got %g",
				  i, v9[8]);
			goto fail;
		}
		if (!integer(&lx, "robot-link (an id >= 0)", 0, 1000000, &link,
			     &l, &c) ||
		    !integer(&lx, "neighbors-count", 0, count, &nn, &l, &c))
			goto fail;
		if ((unsigned long)nn > (unsigned long)total - n) {
			lex_error(&lx, l, c,
				  "sensor %u: %ld neighbours would exceed the total-neighbors-count %ld of line %u",
				  i, nn, total, tl);
			goto fail;
		}
		start[i] = n;
		for (k = 0; k < (unsigned int)nn; k++) {
			if (!integer(&lx, "a neighbour id", 0, count - 1, &v,
				     &l, &c))
				goto fail;
			if ((unsigned long)v == i) {
				lex_error(&lx, l, c,
					  "sensor %u lists itself: expected other sensors' ids",
					  i);
				goto fail;
			}
			/* grown as listed: the header's total is not trusted
			 * for an allocation */
			if (n == cap) {
				unsigned int *nb;

				cap = cap ? cap * 2 : 1024;
				nb = realloc(nbr, cap * sizeof(*nb));
				if (!nb)
					goto oom;
				nbr = nb;
			}
			nbr[n++] = (unsigned int)v;
		}
		t->kind = SKIN_TAXEL_TACTILE;
		t->flags = SKIN_TAXEL_HAS_POS | SKIN_TAXEL_HAS_FLAT;
		memcpy(t->pos, v9, sizeof(t->pos));
		memcpy(t->normal, v9 + 3, sizeof(t->normal));
		memcpy(t->flat, v9 + 6, sizeof(t->flat));
		t->radius = v9[8];
		snprintf(lname, sizeof(lname), "link%ld", link);
		t->link = model_link(m, lname, (int)link);
		if (t->link < 0)
			goto oom;
	}
	if ((long)n != total) {
		lex_error(&lx, tl, tc,
			  "total-neighbors-count is %ld but the sensors list %u neighbours",
			  total, n);
		goto fail;
	}
	k = (unsigned int)lex_token(&lx, true, tok, sizeof(tok), &l, &c);
	if (k) {
		if (k != (unsigned int)-1)
			lex_error(&lx, l, c,
				  "expected the end of file after %ld sensors, got '%s'",
				  count, tok);
		goto fail;
	}
	start[count] = n;
	if (!nbr && !(nbr = malloc(sizeof(*nbr))))
		goto oom;
	m->nbr_start = start;
	m->nbr = nbr;
	m->n_nbr = n;
	for (i = 0; i < (unsigned int)count / SKIN_VALUES_PER_PATCH + 1; i++)
		if (i * SKIN_VALUES_PER_PATCH < (unsigned int)count &&
		    model_add_patch(m, (unsigned int)pi, i, NULL, -1) < 0)
			goto oom_nofree;
	return m;
oom:
	skin_err_oom(err, name);
fail:
	free(start);
	free(nbr);
	skin_model_free(m);
	return NULL;
oom_nofree:
	skin_err_oom(err, name);
	skin_model_free(m);
	return NULL;
}

/* Sensors are the tactile taxels with a position; ids are renumbered
 * densely in model order (thermal pads and absent slots are not sensors
 * in Skinware). */
int skin_skinware_write(const struct skin_model *m, char **out,
			size_t *outlen, struct skin_error *err)
{
	unsigned int *id, i, k, count = 0, total = 0;
	struct sbuf b = { 0 };

	id = malloc(((size_t)m->n_taxels + 1) * sizeof(*id));
	if (!id) {
		skin_err_oom(err, "(skinware writer)");
		return -1;
	}
	for (i = 0; i < m->n_taxels; i++) {
		const struct skin_taxel *t = &m->taxels[i];

		id[i] = UINT32_MAX;
		if (t->kind == SKIN_TAXEL_TACTILE &&
		    (t->flags & SKIN_TAXEL_HAS_POS))
			id[i] = count++;
	}
	for (i = 0; m->nbr_start && i < m->n_taxels; i++)
		if (id[i] != UINT32_MAX)
			for (k = m->nbr_start[i]; k < m->nbr_start[i + 1]; k++)
				total += id[m->nbr[k]] != UINT32_MAX;
	sbuf_printf(&b, "%u %u\n", count, total);
	for (i = 0; i < m->n_taxels; i++) {
		const struct skin_taxel *t = &m->taxels[i];
		unsigned int nn = 0;
		int link = -1;

		if (id[i] == UINT32_MAX)
			continue;
		for (k = 0; k < 3; k++) {
			sbuf_double(&b, t->pos[k]);
			sbuf_printf(&b, " ");
		}
		for (k = 0; k < 3; k++) {
			sbuf_printf(&b, k ? " " : " ");
			sbuf_double(&b, t->normal[k]);
		}
		for (k = 0; k < 2; k++) {
			sbuf_printf(&b, k ? " " : "  ");
			sbuf_double(&b, (t->flags & SKIN_TAXEL_HAS_FLAT) ?
					t->flat[k] : 0.0);
		}
		sbuf_printf(&b, "  ");
		sbuf_double(&b, t->radius);
		if (t->link >= 0)
			link = m->links[t->link].number >= 0 ?
			       m->links[t->link].number : t->link;
		for (k = 0; m->nbr_start && k < m->nbr_start[i + 1] - m->nbr_start[i]; k++)
			nn += id[m->nbr[m->nbr_start[i] + k]] != UINT32_MAX;
		sbuf_printf(&b, "  %d  %u ", link < 0 ? 0 : link, nn);
		for (k = 0; m->nbr_start && k < m->nbr_start[i + 1] - m->nbr_start[i]; k++) {
			unsigned int j = m->nbr[m->nbr_start[i] + k];

			if (id[j] != UINT32_MAX)
				sbuf_printf(&b, " %u", id[j]);
		}
		sbuf_printf(&b, "\n");
	}
	free(id);
	if (b.oom) {
		free(b.s);
		skin_err_oom(err, "(skinware writer)");
		return -1;
	}
	*out = b.s;
	*outlen = b.len;
	return 0;
}
