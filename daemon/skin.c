// SPDX-License-Identifier: GPL-2.0
/*
 * skin.c - the skin a configuration describes, built and replaced whole
 *
 * skind_skin_build() loads skind.conf, builds its model, and lays out every part
 * with all the memory the real-time path will ever touch: the vectors, the
 * processing state, the shm object.  Nothing is allocated after that
 * until the next reload.  A reload (main.c) builds the new skin next to the
 * old one and swaps only when the whole build succeeded, so a broken
 * configuration leaves the running one in place.  Building and freeing
 * only: what reads a skin (input.c's rings, the server's subscriptions)
 * is attached and detached by main.c, above.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin_core.h"
#include "evdev.h"
#include "log.h"
#include "pipeline.h"
#include "shm_write.h"
#include "skin.h"

struct skind_part *skind_skin_part(struct skind_skin *s, const char *name)
{
	unsigned int i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n_parts; i++)
		if (!strcmp(s->parts[i].name, name))
			return &s->parts[i];
	return NULL;
}

/*
 * The name of the driver's patch for board @order of a part: the part's
 * name for a part of one board, PART.N otherwise; BUS-ADDRESS when that
 * is not a valid device name.
 */
static void patch_name(struct skind_patch *pt, const struct skind_part *p)
{
	int n;

	if (p->n_patches == 1)
		n = snprintf(pt->name, sizeof(pt->name), "%s", p->name);
	else
		n = snprintf(pt->name, sizeof(pt->name), "%s.%u", p->name,
			     pt->order);
	if (n < 0 || (size_t)n >= sizeof(pt->name) || skin_name_check(pt->name))
		snprintf(pt->name, sizeof(pt->name), "%.15s-%d", pt->ifname,
			 pt->address);
}

static int build_part(struct skind_skin *s, unsigned int i,
		      struct skin_error *err)
{
	const struct skin_config_part *cp = &s->config->parts[i];
	struct skind_part *p = &s->parts[i];
	unsigned int k;

	p->d = s->d;
	p->skin = s;
	p->index = i;
	p->mp = &s->model->parts[i];
	snprintf(p->name, sizeof(p->name), "%s", p->mp->name);
	if (strlen(p->mp->name) >= sizeof(p->name) || strcmp(p->mp->name, cp->name)) {
		snprintf(err->text, sizeof(err->text),
			 "%s: part '%s': name longer than %zu characters or not the model's",
			 s->config->path, cp->name, sizeof(p->name) - 1);
		return -1;
	}
	p->n_taxels = p->mp->n_taxels;
	p->n_patches = cp->n_patches;
	p->patches = calloc(p->n_patches, sizeof(*p->patches));
	p->raw = calloc(p->n_taxels ? p->n_taxels : 1, 1);
	p->values = calloc(p->n_taxels ? p->n_taxels : 1, sizeof(float));
	p->flags = calloc(p->n_taxels ? p->n_taxels : 1, 1);
	p->contacts = calloc(SKIND_MAX_CONTACTS, sizeof(*p->contacts));
	p->contact_taxels = calloc(p->n_taxels ? p->n_taxels : 1,
				   sizeof(uint32_t));
	p->thr = calloc(p->n_taxels ? p->n_taxels : 1, sizeof(double));
	p->cal_baselines = calloc(p->n_taxels ? p->n_taxels : 1, sizeof(double));
	if (!p->patches || !p->raw || !p->values || !p->flags || !p->contacts ||
	    !p->contact_taxels || !p->thr || !p->cal_baselines) {
		snprintf(err->text, sizeof(err->text), "out of memory");
		return -1;
	}
	for (k = 0; k < p->n_taxels; k++) {
		const struct skin_taxel *t = &s->model->taxels[p->mp->first_taxel + k];

		p->flags[k] = t->kind == SKIN_TAXEL_TACTILE ? SKIN_SHM_TAXEL_TACTILE :
			      t->kind == SKIN_TAXEL_THERMAL ? SKIN_SHM_TAXEL_THERMAL : 0;
		/* the noLoad of the taxel's board, until its first sample */
		p->raw[k] = k / SKIN_BOARD_VALUES < cp->n_patches ?
			    cp->patches[k / SKIN_BOARD_VALUES].board.no_load :
			    s->config->board.no_load;
	}
	for (k = 0; k < p->n_patches; k++) {
		struct skind_patch *pt = &p->patches[k];
		const struct skin_config_patch *cpt = &cp->patches[k];

		pt->part = p;
		pt->order = k;
		snprintf(pt->ifname, sizeof(pt->ifname), "%s",
			 s->config->buses[cpt->bus].name);
		pt->address = cpt->address;
		pt->board = cpt->board;
		pt->listen_only = s->config->buses[cpt->bus].listen_only;
		pt->ring.fd = -1;
		patch_name(pt, p);
	}
	s->n_patches += p->n_patches;
	return 0;
}

/*
 * The part's taxels on a plane, once per build, never on the real-time
 * path.  Flattening 3D positions can take tens of milliseconds (the search
 * for the axis of positions whose normals say nothing: 8 ms for a leg's
 * 1,344 taxels, 48 ms for the whole body of etc/skind-full-body.conf), so
 * it is done only for the evdev devices; a flattened layout is only read.
 * Without any position (a layout alone) or memory, none: the contacts
 * have no flat position and evdev counts taxels along x.
 */
static void flatten_part(struct skind_part *p)
{
	struct skin_error err;
	char how[128];

	if (!p->d->opt.evdev && p->mp->flat_unit == SKIN_FLAT_NONE)
		return;
	if (skin_flatten_part(&p->flat, p->skin->model, p->index, SKIN_FLATTEN_AUTO,
			      &err)) {
		log_field(LOG_INFO, "PART", p->name, "%s: no taxel positions: %s",
			  p->name, err.what);
		return;
	}
	log_field(LOG_INFO, "PART", p->name, "%s: taxels placed by %s", p->name,
		  skin_flatten_describe(&p->flat, how, sizeof(how)));
}

static void free_part(struct skind_part *p)
{
	unsigned int i;

	evdev_free(p);
	skin_flatten_free(&p->flat);
	free(p->patches);
	free(p->raw);
	free(p->values);
	free(p->flags);
	free(p->contacts);
	free(p->contact_taxels);
	free(p->thr);
	free(p->cal_baselines);
	for (i = 0; i < sizeof(p->cache.line) / sizeof(p->cache.line[0]); i++) {
		free(p->cache.line[i][0]);
		free(p->cache.line[i][1]);
	}
}

void skind_skin_free(struct skind_skin *s)
{
	unsigned int i;

	if (!s)
		return;
	shm_retire(s, false);
	for (i = 0; i < s->n_parts; i++)
		free_part(&s->parts[i]);
	free(s->parts);
	s->parts = NULL;
	pipeline_free(s);
	skin_model_free(s->model);
	skin_config_free(s->config);
	free(s);
}

/*
 * runtime false: the configuration and the patches only (skind
 * --create-patches); no processing, no shm.
 */
struct skind_skin *skind_skin_build(struct skind *d, bool runtime,
				    struct skin_error *err)
{
	struct skind_skin *s = calloc(1, sizeof(*s));
	unsigned int i;

	memset(err, 0, sizeof(*err));
	if (!s) {
		snprintf(err->text, sizeof(err->text), "out of memory");
		return NULL;
	}
	s->d = d;
	s->shm_fd = -1;
	s->shm_ro_fd = -1;
	s->generation = d->generation + 1;
	s->config = skin_config_load(d->opt.config_path, err);
	if (!s->config)
		goto fail;
	s->model = skin_config_build_model(s->config, err);
	if (!s->model)
		goto fail;
	/* what the geometry files do not say exactly (docs/MODEL.md) */
	for (i = 0; i < s->model->n_notes; i++)
		log_warn("%s", s->model->notes[i]);
	if (s->model->n_parts != s->config->n_parts) {
		snprintf(err->text, sizeof(err->text),
			 "%s: the model has %u parts, the configuration %u",
			 d->opt.config_path, s->model->n_parts, s->config->n_parts);
		goto fail;
	}
	s->n_parts = s->model->n_parts;
	s->parts = calloc(s->n_parts ? s->n_parts : 1, sizeof(*s->parts));
	if (!s->parts) {
		snprintf(err->text, sizeof(err->text), "out of memory");
		goto fail;
	}
	for (i = 0; i < s->n_parts; i++)
		if (build_part(s, i, err) < 0)
			goto fail;
	if (!runtime)
		return s;
	for (i = 0; i < s->n_parts; i++)
		flatten_part(&s->parts[i]);
	if (pipeline_init(s, err) < 0)
		goto fail;
	if (shm_create(d, s, err) < 0)
		goto fail;
	return s;

fail:
	skind_skin_free(s);
	return NULL;
}
