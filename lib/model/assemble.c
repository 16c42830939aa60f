// SPDX-License-Identifier: GPL-2.0
/*
 * assemble.c - the model a skind.conf describes: built-in layouts merged
 * with geometry files, patches placed on their buses
 *
 * Kinds when a part has both a layout (L) and a geometry file (G), per
 * vector slot (validity comes from taxel2Repr and the built-in layouts,
 * positions from the rows: docs/ICUB.md, section 2):
 *
 *   L \ G      tactile   thermal   absent
 *   tactile    tactile   error     absent  (triangle not mounted here)
 *   thermal    error     thermal   thermal if G has other taxels of
 *                                  that triangle (the hand and forearm
 *                                  files mark pads -1), else absent
 *   absent     error     error     absent
 *
 * Geometry (position, normal, flat position, radius, link) always comes
 * from G.  A slot G does not cover is absent in G.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

/* Does g have a taxel or pad in the triangle (12 slots) of slot? */
static bool triangle_present(const enum skin_taxel_kind *gk, unsigned int slot)
{
	unsigned int i, first = slot - slot % SKIN_CHANNELS_PER_TRIANGLE;

	for (i = first; i < first + SKIN_CHANNELS_PER_TRIANGLE; i++)
		if (gk[i] != SKIN_TAXEL_ABSENT)
			return true;
	return false;
}

static const char *kind_word(enum skin_taxel_kind k)
{
	return k == SKIN_TAXEL_TACTILE ? "a taxel" :
	       k == SKIN_TAXEL_THERMAL ? "a thermal pad" : "nothing";
}

/* The one part of g this config part uses. */
static int pick_part(const struct skin_config *c,
		     const struct skin_config_part *cp,
		     const struct skin_model *g, struct skin_error *err)
{
	unsigned int i;

	if (cp->sensor) {
		for (i = 0; i < g->n_parts; i++)
			if (!strcmp(g->parts[i].name, cp->sensor))
				return (int)i;
		skin_error_set(err, c->path, cp->line, 1,
			     "[part %s]: %s has no sensor '%s'", cp->name,
			     cp->geometry, cp->sensor);
		return -1;
	}
	if (g->n_parts != 1) {
		skin_error_set(err, c->path, cp->line, 1,
			     "[part %s]: %s has %u sensors: expected sensor = NAME to pick one",
			     cp->name, cp->geometry, g->n_parts);
		return -1;
	}
	return 0;
}

static int add_part(struct skin_model *m, const struct skin_config *c,
		    const struct skin_config_part *cp, struct skin_error *err)
{
	enum skin_taxel_kind *lk = NULL;
	struct skin_model *g = NULL;
	const struct skin_part *gp = NULL;
	unsigned int n = cp->n_patches * SKIN_VALUES_PER_PATCH, ln = 0, i;
	unsigned char *covered = NULL;
	enum skin_taxel_kind *gk = NULL;
	struct skin_part *p;
	int pi, gi;

	if (cp->layout && skin_builtin_part_kinds(cp->layout, &ln, &lk))
		goto oom;
	if (cp->geometry) {
		struct skin_error gerr;

		g = model_geometry_load(cp->geometry, cp->geometry_format, &gerr);
		if (!g) {
			/* the geometry file's own message, and where the
			 * config named it */
			skin_error_set(err, gerr.file, gerr.line, gerr.column,
				     "%s (geometry of [part %s] in %s:%u)",
				     gerr.what, cp->name, c->path, cp->line);
			goto fail;
		}
		gi = pick_part(c, cp, g, err);
		if (gi < 0)
			goto fail;
		gp = &g->parts[gi];
		if (gp->n_taxels > n && !cp->layout) {
			/* sparse sources (urdf) may be shorter; none longer */
			skin_error_set(err, c->path, cp->line, 1,
				     "[part %s]: %s has %u taxels but %u patch(es) give %u slots",
				     cp->name, cp->geometry, gp->n_taxels,
				     cp->n_patches, n);
			goto fail;
		}
		/* dense sources must match the layout; urdf (sparse, indexed
		 * by idx) may cover fewer slots */
		if (cp->layout && (gp->channel ? gp->n_taxels > ln
					       : gp->n_taxels != ln)) {
			skin_error_set(err, c->path, cp->line, 1,
				     "[part %s]: %s has %u taxels, layout %s has %u",
				     cp->name, cp->geometry, gp->n_taxels,
				     cp->layout, ln);
			goto fail;
		}
	}
	pi = model_add_part(m, cp->name, n);
	if (pi < 0)
		goto oom;
	p = &m->parts[pi];
	model_part_set_id(p, cp->skin_part);
	if (model_set_str(&p->layout, cp->layout) ||
	    model_set_str(&p->source, cp->geometry))
		goto oom;
	for (i = 0; lk && i < n; i++)
		m->taxels[p->first_taxel + i].kind = lk[i];
	if (gp) {
		covered = calloc(n, 1);
		gk = calloc(n, sizeof(*gk));	/* ABSENT is 0 */
		if (!covered || !gk)
			goto oom;
		for (i = 0; i < gp->n_taxels; i++)
			if (g->taxels[gp->first_taxel + i].index < n)
				gk[g->taxels[gp->first_taxel + i].index] =
					g->taxels[gp->first_taxel + i].kind;
		p->flat_unit = gp->flat_unit;
		p->update_rate_hz = gp->update_rate_hz;
		if (model_set_str(&p->channel, gp->channel) ||
		    model_set_str(&p->group, gp->group))
			goto oom;
		for (i = 0; i < gp->n_taxels; i++) {
			const struct skin_taxel *gt = &g->taxels[gp->first_taxel + i];
			struct skin_taxel *t;
			enum skin_taxel_kind l;

			if (gt->index >= n) {
				skin_error_set(err, c->path, cp->line, 1,
					     "[part %s]: %s: taxel %u has data index %u, beyond the %u slots of the patches",
					     cp->name, cp->geometry, i, gt->index, n);
				goto fail;
			}
			if (covered[gt->index]) {
				skin_error_set(err, c->path, cp->line, 1,
					     "[part %s]: %s: data index %u is given twice",
					     cp->name, cp->geometry, gt->index);
				goto fail;
			}
			covered[gt->index] = 1;
			t = &m->taxels[p->first_taxel + gt->index];
			l = lk ? lk[gt->index] : gt->kind;
			if (lk && gt->kind != SKIN_TAXEL_ABSENT && gt->kind != l) {
				skin_error_set(err, c->path, cp->line, 1,
					     "[part %s]: slot %u (port position %u) is %s in %s but %s in layout %s",
					     cp->name, gt->index, gt->index + 1,
					     kind_word(gt->kind), cp->geometry,
					     kind_word(l), cp->layout);
				goto fail;
			}
			if (lk && gt->kind == SKIN_TAXEL_ABSENT &&
			    (l == SKIN_TAXEL_TACTILE ||
			     !triangle_present(gk, gt->index)))
				l = SKIN_TAXEL_ABSENT;
			t->kind = l;
			t->flags = gt->flags;
			t->repr = gt->repr;
			memcpy(t->pos, gt->pos, sizeof(t->pos));
			memcpy(t->normal, gt->normal, sizeof(t->normal));
			memcpy(t->flat, gt->flat, sizeof(t->flat));
			t->radius = gt->radius;
			t->link = -1;
			if (gt->link >= 0) {
				const struct skin_link *gl = &g->links[gt->link];

				t->link = model_link(m, gl->name,
						     gl->number >= 0 ? gl->number :
						     p->link_number);
				if (t->link < 0)
					goto oom;
			}
		}
		/* a slot the geometry does not cover is absent in it */
		for (i = 0; lk && i < n; i++)
			if (!covered[i] && (lk[i] == SKIN_TAXEL_TACTILE ||
					    !triangle_present(gk, i)))
				m->taxels[p->first_taxel + i].kind =
					SKIN_TAXEL_ABSENT;
		for (i = 0; i < g->n_notes; i++)
			if (model_note(m, "%s", g->notes[i]))
				goto oom;
	}
	for (i = 0; i < cp->n_patches; i++)
		if (model_add_patch(m, (unsigned int)pi, i,
				    c->buses[cp->patches[i].bus].name,
				    cp->patches[i].address) < 0)
			goto oom;
	free(covered);
	free(gk);
	free(lk);
	skin_model_free(g);
	return 0;
oom:
	skin_err_oom(err, c->path);
fail:
	free(covered);
	free(gk);
	free(lk);
	skin_model_free(g);
	return -1;
}

struct skin_model *skin_config_build_model(const struct skin_config *c,
					   struct skin_error *err)
{
	struct skin_model *m = model_new();
	unsigned int i;

	if (!m) {
		skin_err_oom(err, c->path);
		return NULL;
	}
	for (i = 0; i < c->n_parts; i++)
		if (add_part(m, c, &c->parts[i], err)) {
			skin_model_free(m);
			return NULL;
		}
	if (skin_model_compute_neighbours(m, c->comp.max_neighbor_dist_m, err)) {
		skin_model_free(m);
		return NULL;
	}
	return m;
}
