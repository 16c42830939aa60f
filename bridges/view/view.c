// SPDX-License-Identifier: GPL-2.0
/*
 * view.c - what skin-view publishes of the parts (view.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <skin/shm.h>

#include "cdr.h"
#include "log.h"
#include "skin_clock.h"
#include "view.h"

/* The layout message, at most: the full body's 3264 slots take some
 * 200 KB; a configuration 20 times that is refused, not sent */
#define LAYOUT_MAX	(4u << 20)

struct view_part {
	char name[SKIN_SHM_NAME_LEN];
	char frame[128];
	enum skin_part_id skin_part;
	unsigned int n_taxels;
	uint32_t chan[FOX_PART_KINDS];	/* enum fox_kind's order */
	unsigned int last_contacts;
	const struct view_layout_part *layout;	/* NULL: none */
	bool live;
};

struct view {
	struct server *srv;
	const struct view_config *cfg;
	struct cdr cdr;
	struct view_part *parts;
	unsigned int n_parts;
	struct view_part **by_index;	/* the source's part i */
	unsigned int n_index;
	struct view_layout layout;
	uint32_t layout_chan;
	double add_threshold;
	/* scratch, per sample */
	double *values;
	unsigned int values_cap;
	struct cdr_part_contact *contacts;
	unsigned int contacts_cap;
	uint64_t cost_samples, cost_ns;
};

int view_new(struct view **vp, struct server *srv, const struct view_config *cfg)
{
	struct view *v = calloc(1, sizeof(*v));
	int64_t id;

	if (!v)
		return -ENOMEM;
	v->srv = srv;
	v->cfg = cfg;
	cdr_init(&v->cdr, 0);
	id = server_channel_add(srv, NULL, FOX_LAYOUT);
	if (id < 0) {
		free(v);
		return (int)id;
	}
	v->layout_chan = (uint32_t)id;
	*vp = v;
	return 0;
}

static void part_close(struct view *v, struct view_part *p)
{
	unsigned int k;

	for (k = 0; k < FOX_PART_KINDS; k++)
		server_channel_remove(v->srv, p->chan[k]);
}

void view_free(struct view *v)
{
	unsigned int i;

	if (!v)
		return;
	for (i = 0; i < v->n_parts; i++)
		part_close(v, &v->parts[i]);
	server_channel_remove(v->srv, v->layout_chan);
	view_layout_free(&v->layout);
	cdr_free(&v->cdr);
	free(v->parts);
	free(v->by_index);
	free(v->values);
	free(v->contacts);
	free(v);
}

static int part_open(struct view *v, struct view_part *p,
		     const struct view_part_desc *d)
{
	const char *frame = skin_part_id_frame(d->skin_part);
	unsigned int k;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", d->name);
	/* the ROS 2 bridge's default frame_id, so the bytes are its bytes */
	snprintf(p->frame, sizeof(p->frame), "%s", frame ? frame : d->name);
	p->skin_part = d->skin_part;
	p->n_taxels = d->n_taxels;
	for (k = 0; k < FOX_PART_KINDS; k++) {
		int64_t id = server_channel_add(v->srv, d->name, (enum fox_kind)k);

		if (id < 0) {
			while (k--)
				server_channel_remove(v->srv, p->chan[k]);
			return (int)id;
		}
		p->chan[k] = (uint32_t)id;
	}
	return 0;
}

static struct view_part *find(struct view *v, const char *name)
{
	unsigned int i;

	for (i = 0; i < v->n_parts; i++)
		if (!strcmp(v->parts[i].name, name))
			return &v->parts[i];
	return NULL;
}

/* Each part's layout, after the parts or the layout changed */
static void link_layouts(struct view *v)
{
	unsigned int i;

	for (i = 0; i < v->n_parts; i++) {
		const struct view_layout_part *l = view_layout_find(&v->layout, v->parts[i].name);

		v->parts[i].layout = l && l->n == v->parts[i].n_taxels ? l : NULL;
	}
}

int view_set_parts(struct view *v, const struct view_part_desc *d, unsigned int n)
{
	struct view_part *np;
	unsigned int i;

	free(v->by_index);
	v->n_index = 0;
	v->by_index = calloc(n ? n : 1, sizeof(*v->by_index));
	np = realloc(v->parts, (v->n_parts + n + 1) * sizeof(*np));
	if (np)
		v->parts = np;
	if (!v->by_index || !np)
		return -ENOMEM;
	for (i = 0; i < v->n_parts; i++)
		v->parts[i].live = false;
	for (i = 0; i < n; i++) {
		struct view_part *p = find(v, d[i].name);

		if (p && p->n_taxels != d[i].n_taxels) {
			part_close(v, p);
			*p = v->parts[--v->n_parts];
			p = NULL;
		}
		if (!p) {
			p = &v->parts[v->n_parts];
			if (part_open(v, p, &d[i])) {
				log_err("part %s: no channels (out of memory)", d[i].name);
				continue;
			}
			v->n_parts++;
		}
		p->live = true;
	}
	for (i = 0; i < v->n_parts; ) {
		if (v->parts[i].live) {
			i++;
			continue;
		}
		log_info("part %s: gone from skind, its channels removed",
			 v->parts[i].name);
		part_close(v, &v->parts[i]);
		v->parts[i] = v->parts[--v->n_parts];
	}
	/* the array moved: index it now */
	for (i = 0; i < n; i++)
		v->by_index[i] = find(v, d[i].name);
	v->n_index = n;
	link_layouts(v);
	return 0;
}

void view_detach(struct view *v)
{
	v->n_index = 0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int view_set_layout(struct view *v, const struct skin_model *model,
		    const char *why, const uint8_t *const *flags,
		    uint64_t generation)
{
	struct view_layout_want *want = calloc(v->n_index ? v->n_index : 1, sizeof(*want));
	struct view_layout l;
	unsigned int i, n = 0, placed = 0, slots = 0;
	size_t len;
	char *text;
	int rc;

	if (!want)
		return -ENOMEM;
	for (i = 0; i < v->n_index; i++) {
		const struct view_part *p = v->by_index[i];

		if (!p)
			continue;
		want[n++] = (struct view_layout_want){ p->name, p->skin_part, p->n_taxels,
						       flags ? flags[i] : NULL };
	}
	rc = view_layout_build(&l, model, why, v->cfg, want, n, generation);
	free(want);
	if (rc) {
		log_err("layout: %s", strerror(-rc));
		return rc;
	}
	text = view_layout_json(&l, LAYOUT_MAX, &len, &rc);
	if (!text) {
		log_err("layout: not published: %s", rc == -E2BIG ?
			"over " "4 MiB of JSON" : strerror(-rc));
		view_layout_free(&l);
		return rc;
	}
	view_layout_free(&v->layout);
	v->layout = l;
	link_layouts(v);
	for (i = 0; i < l.n_parts; i++) {
		placed += l.parts[i].n_placed;
		slots += l.parts[i].n;
	}
	rc = server_publish(v->srv, v->layout_chan, (const uint8_t *)text, len,
			    realtime_ns());
	free(text);
	log_info("layout of generation %llu: %u parts, %u of %u slots placed, %zu bytes",
		 (unsigned long long)generation, l.n_parts, placed, slots, len);
	return rc;
}

void view_set_add_threshold(struct view *v, double add_threshold)
{
	v->add_threshold = add_threshold;
}

static void publish(struct view *v, uint32_t chan, uint64_t ns)
{
	int rc;

	if (v->cdr.err) {
		log_warn("a sample not encoded: out of memory");
		return;
	}
	rc = server_publish(v->srv, chan, cdr_data(&v->cdr), v->cdr.len, ns);
	if (rc)
		log_warn("a sample not served: %s", strerror(-rc));
}

static const struct skin_contact_record *record(const struct view_sample *s,
						unsigned int i)
{
	return (const void *)((const char *)s->contacts + i * s->contact_stride);
}

/* The PartState's contacts: their taxels checked, their 2D centroid */
static int state_contacts(struct view *v, const struct view_part *p,
			  const struct view_sample *s, unsigned int n)
{
	unsigned int nt = s->n_contact_taxels < p->n_taxels ? s->n_contact_taxels : p->n_taxels;
	unsigned int i, k;

	if (n > v->contacts_cap) {
		struct cdr_part_contact *nc = realloc(v->contacts, n * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		v->contacts = nc;
		v->contacts_cap = n;
	}
	if (n && p->layout) {
		if (p->n_taxels > v->values_cap) {
			double *nv = realloc(v->values, p->n_taxels * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			v->values = nv;
			v->values_cap = p->n_taxels;
		}
		for (k = 0; k < p->n_taxels; k++)
			v->values[k] = s->values[k];
	}
	for (i = 0; i < n; i++) {
		const struct skin_contact_record *r = record(s, i);
		struct cdr_part_contact *c = &v->contacts[i];
		double xy[2] = { NAN, NAN };

		c->id = r->id;
		c->pressure = (float)r->pressure;
		c->cop = r->cop;
		c->force = r->force;
		c->normal = r->normal;
		c->taxels = NULL;
		c->n_taxels = 0;
		if (s->contact_taxels && r->first_taxel <= nt &&
		    r->n_taxels <= nt - r->first_taxel) {
			c->taxels = s->contact_taxels + r->first_taxel;
			c->n_taxels = r->n_taxels;
		}
		if (p->layout && c->n_taxels)
			view_layout_centroid(p->layout, c->taxels, c->n_taxels, v->values, xy);
		c->cop2d[0] = (float)xy[0];
		c->cop2d[1] = (float)xy[1];
	}
	return 0;
}

int view_publish_part(struct view *v, unsigned int part,
		      const struct view_sample *s)
{
	struct view_part *p = part < v->n_index ? v->by_index[part] : NULL;
	struct cdr_part_state st;
	uint64_t ns, t0;
	unsigned int n;
	int rc;

	if (!p)
		return -ENOENT;
	t0 = clock_monotonic_ns();
	cdr_stamp_from(&st.stamp, s->frame_ns, clock_mono_to_real_ns());
	ns = (uint64_t)st.stamp.sec * 1000000000ull + st.stamp.nanosec;
	cdr_tactile_state(&v->cdr, &st.stamp, p->frame, p->name, s->values, p->n_taxels);
	publish(v, p->chan[FOX_VALUES], ns);
	cdr_tactile_state_raw(&v->cdr, &st.stamp, p->frame, p->name, s->raw, p->n_taxels);
	publish(v, p->chan[FOX_RAW], ns);
	n = s->contacts ? s->n_contacts : 0;
	/* a release once, then nothing until the next contact */
	if (n || p->last_contacts) {
		cdr_tactile_contacts(&v->cdr, &st.stamp, p->frame, s->contacts, n,
				     s->contact_stride);
		publish(v, p->chan[FOX_CONTACTS], ns);
	}
	p->last_contacts = n;
	rc = state_contacts(v, p, s, n);
	if (rc)
		return rc;
	st.sample = s->sample;
	st.state = s->state;
	st.n = p->n_taxels;
	st.raw = s->raw;
	st.values = s->values;
	st.flags = s->flags;
	st.baselines = s->baselines;
	st.thresholds = s->thresholds;
	st.add_threshold = v->add_threshold;
	st.contacts = v->contacts;
	st.n_contacts = n;
	cdr_part_state(&v->cdr, &st);
	publish(v, p->chan[FOX_STATE], ns);
	v->cost_samples++;
	v->cost_ns += clock_monotonic_ns() - t0;
	return 0;
}

void view_encode_cost(const struct view *v, uint64_t *samples, uint64_t *ns)
{
	*samples = v->cost_samples;
	*ns = v->cost_ns;
}
