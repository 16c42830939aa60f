// SPDX-License-Identifier: GPL-2.0
/*
 * view_shm.c - skinctl view's frames from skind's shared memory: the
 * descriptor its socket passes, or the object by name; the part's newest
 * publication, following a skind that stops, hangs or restarts
 * (view_source.h).  The layout comes from skind's configuration.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/client.h>

#include "skinctl.h"
#include "view_source.h"

struct view_shm {
	struct view_source s;
	struct skin_config *cfg;
	struct skin_model *model;
	const char *shm_path, *socket;
	struct skin_shm_map map;
	bool mapped;
	int shm_part;
	void *buf;
	size_t buf_size;
	uint64_t last_seq;
	bool waiting;			/* skind went away: trying again */
	bool stale;			/* its heartbeat stopped */
};

static struct view_shm *of(struct view_source *s)
{
	return (struct view_shm *)s;
}

static const char *socket_path(const struct view_shm *h)
{
	if (h->socket)
		return h->socket;
	return getenv("SKIN_SOCKET") ? getenv("SKIN_SOCKET") : SKIN_SOCKET_PATH;
}

/* Map skind's object: 0, -1 for an error, -2 when skind is not there
 * (no socket to connect to, no object under the name). */
static int shm_map(struct view_shm *h)
{
	struct view_source *s = &h->s;
	const struct skin_shm_part_desc *d;
	struct skin_client *c;
	int r, err;

	if (h->shm_path) {
		r = skin_shm_open(&h->map, h->shm_path);
		snprintf(s->source_text, sizeof(s->source_text), "skind %s", h->shm_path);
	} else {
		c = skin_client_connect(h->socket, &err);
		if (!c) {
			view_source_say(s, "cannot reach skind at %s: %s (or give --shm PATH, or --log for a recording)",
					socket_path(h), strerror(-err));
			return err == -ENOENT || err == -ECONNREFUSED ? -2 : -1;
		}
		r = skin_client_shm(c, &h->map);
		skin_client_close(c);
		snprintf(s->source_text, sizeof(s->source_text), "skind shm (socket %s)",
			 socket_path(h));
	}
	if (r < 0) {
		view_source_say(s, "skind's shared memory: %s",
				r == -EPROTO ? "not a skind object of this version" : strerror(-r));
		return r == -ENOENT ? -2 : -1;
	}
	h->mapped = true;
	h->shm_part = skin_shm_find_part(&h->map, s->frame.part);
	if (h->shm_part < 0) {
		view_source_say(s, "skind has no part '%s'", s->frame.part);
		return -1;
	}
	d = skin_shm_part(&h->map, (unsigned int)h->shm_part);
	if (d->n_taxels != s->n) {
		view_source_say(s, "skind's part %s has %u taxels, %s says %u: give skind's configuration with --config",
				s->frame.part, d->n_taxels, h->cfg->path, s->n);
		return -1;
	}
	free(h->buf);
	h->buf_size = d->size;
	h->buf = malloc(d->size);
	if (!h->buf) {
		view_source_say(s, "out of memory");
		return -1;
	}
	h->last_seq = 0;
	return 0;
}

/* The part's publication in h->buf into the frame. */
static void frame_from_shm(struct view_shm *h)
{
	struct view_source *s = &h->s;
	const struct skin_shm_part *ph = skin_shm_head(h->buf);
	unsigned int i, k, n, used = 0, p = (unsigned int)h->shm_part;
	const float *v = skin_shm_values(&h->map, p, h->buf);
	const uint8_t *fl = skin_shm_flags(&h->map, p, h->buf);
	const uint32_t *ct = skin_shm_contact_taxels(&h->map, p, h->buf);

	for (i = 0; i < s->n; i++) {
		s->values[i] = v[i];
		s->touched[i] = fl[i] & SKIN_SHM_TAXEL_TOUCHED;
	}
	n = ph->n_contacts;
	if (n > skin_shm_part(&h->map, p)->max_contacts)
		n = skin_shm_part(&h->map, p)->max_contacts;
	s->frame.n_contacts = 0;
	for (i = 0; i < n && i < s->max_contacts; i++) {
		const struct skin_contact_record *c = skin_shm_contact(&h->map, p, h->buf, i);
		struct view_contact *vc = &s->contacts[s->frame.n_contacts];

		if (!c || c->first_taxel > ph->n_contact_taxels ||
		    c->n_taxels > ph->n_contact_taxels - c->first_taxel ||
		    ph->n_contact_taxels > s->n || used + c->n_taxels > s->n)
			continue;	/* not what skind writes: skip it */
		vc->id = c->id;
		vc->pressure = c->pressure;
		vc->n_taxels = c->n_taxels;
		vc->taxels = &s->ctaxels[used];
		for (k = 0; k < c->n_taxels; k++)
			s->ctaxels[used++] = ct[c->first_taxel + k];
		s->frame.n_contacts++;
	}
	s->frame.sample = ph->samples;
	s->frame.time_s = ph->frame_ts_ns / 1e9;
	snprintf(s->state, sizeof(s->state), "%s%s",
		 ph->state & SKIN_SHM_PART_CALIBRATED ? "running" :
		 ph->state & SKIN_SHM_PART_CALIBRATING ? "calibrating" : "uncalibrated",
		 ph->state & SKIN_SHM_PART_ATTACHED ? "" : ", detached");
	s->have_frame = true;
}

/* Copy the part's newest publication: 1 new, 0 unchanged, -1 error. */
static int shm_update(struct view_source *s)
{
	struct view_shm *h = of(s);
	int r;

	r = h->mapped ? skin_shm_check(&h->map) : 0;
	if (r == -ESTALE) {
		/* skind reloaded, stopped, or was replaced after a crash:
		 * the name's new object */
		skin_shm_close(&h->map);
		h->mapped = false;
		h->stale = false;
	} else if (r == -ETIMEDOUT && s->live) {
		/* killed or hung: keep the picture, say it is old, and keep
		 * watching (a new skind retires this object) */
		if (h->stale)
			return 0;
		h->stale = true;
		snprintf(s->state, sizeof(s->state), "skind not responding");
		return 1;
	} else if (h->stale) {
		h->stale = false;
		h->last_seq = UINT64_MAX;	/* beating again: redraw */
	}
	if (!h->mapped) {
		r = shm_map(h);
		if (r == -2 && s->live) {
			/* stopped: keep the last picture, try again */
			if (h->waiting)
				return 0;
			h->waiting = true;
			snprintf(s->state, sizeof(s->state), "waiting for skind");
			return 1;
		}
		if (r)
			return -1;
		h->waiting = false;
		s->err[0] = '\0';	/* what it said while it waited */
	}
	r = skin_shm_read_part(&h->map, (unsigned int)h->shm_part, h->buf, 1000);
	if (r == -EAGAIN)
		return 0;
	if (r < 0) {
		view_source_say(s, "reading the shm: %s", strerror(-r));
		return -1;
	}
	if (s->have_frame && skin_shm_head(h->buf)->seq == h->last_seq)
		return 0;
	h->last_seq = skin_shm_head(h->buf)->seq;
	frame_from_shm(h);
	return 1;
}

/* skind's newest publication, whatever sample was asked (the command
 * line refuses --sample without --log). */
static int shm_first(struct view_source *s, uint64_t sample, bool still)
{
	(void)sample;
	(void)still;
	return shm_update(s) < 0 ? -1 : 0;
}

static void shm_set_live(struct view_source *s, bool live)
{
	s->live = live;
}

static bool shm_rejected(const struct view_source *s)
{
	(void)s;
	return false;
}

static void shm_close(struct view_source *s)
{
	struct view_shm *h = of(s);

	if (!h)
		return;
	if (h->mapped)
		skin_shm_close(&h->map);
	skin_model_free(h->model);
	skin_config_free(h->cfg);
	free(h->buf);
	view_source_frame_free(s);
	free(h);
}

static const struct view_source_ops shm_ops = {
	.first = shm_first,
	.update = shm_update,
	.set_live = shm_set_live,
	.rejected = shm_rejected,
	.close = shm_close,
};

struct view_source *view_shm_open(const struct view_source_opts *o)
{
	struct view_shm *h = calloc(1, sizeof(*h));
	const char *conf = o->config ? o->config : VIEW_DEFAULT_CONFIG;
	struct view_source *s;
	struct skin_error err;
	int part;

	if (!h) {
		fprintf(stderr, "%s: out of memory\n", o->who);
		return NULL;
	}
	s = &h->s;
	s->ops = &shm_ops;
	s->who = o->who;
	h->cfg = skin_config_load(conf, &err);
	if (!h->cfg || !(h->model = skin_config_build_model(h->cfg, &err))) {
		fprintf(stderr, "%s: %s%s\n", s->who, err.text, o->config ? "" :
			" (the layout comes from skind's configuration: --config FILE)");
		goto fail;
	}
	s->m = h->model;
	part = skin_replay_part_find(s->m, o->part);
	if (part < 0) {
		fprintf(stderr, "%s: no part '%s' in %s\n", s->who, o->part, conf);
		goto fail;
	}
	s->part = (unsigned int)part;
	s->n = s->m->parts[s->part].n_taxels;
	h->shm_path = o->shm;
	h->socket = o->socket;
	if (view_source_frame_alloc(s) || shm_map(h))
		goto fail;
	return s;
fail:
	shm_close(s);
	return NULL;
}
