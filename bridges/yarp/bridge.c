// SPDX-License-Identifier: GPL-2.0
/*
 * bridge.c - skind's publications onto YARP ports (bridge.h)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <skin/proc.h>

#include "bridge.h"
#include "log.h"
#include "skin_clock.h"

/*
 * The name server
 */
struct lookup {
	void *cookie;
};

static void on_query(void *data, int err, const char *reply)
{
	struct lookup *l = data;
	struct yn_reg reg;
	struct sockaddr_in sa;

	if (!err && yn_parse_reg(reply, &reg) == 0 && reg.port > 0 &&
	    reg.port < 65536 && yn_address(reg.ip, (uint16_t)reg.port, &sa) == 0)
		yp_resolved(l->cookie, 0, &sa);
	else
		yp_resolved(l->cookie, err ? err : -ENOENT, NULL);
	free(l);
}

/* yp_resolve_fn: a port asks where a reader is */
static void resolve(void *data, const char *name, void *cookie)
{
	struct yb *b = data;
	struct lookup *l = malloc(sizeof(*l));
	char cmd[300];
	int r;

	if (!l) {
		yp_resolved(cookie, -ENOMEM, NULL);
		return;
	}
	l->cookie = cookie;
	snprintf(cmd, sizeof(cmd), "query %s", name);
	r = yn_request(b->nc, cmd, on_query, l);
	if (r < 0) {
		free(l);
		yp_resolved(cookie, r, NULL);
	}
}

static void on_registered(void *data, int err, const char *reply)
{
	const char *name = data;

	if (err && err != -ECANCELED)
		log_warn("registering %s: %s", name, strerror(-err));
	(void)reply;
}

static void register_port(struct yb *b, struct yp_port *p)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "register %s tcp %s %u", yp_port_name(p),
		 b->cfg.advertise, yp_port_number(p));
	yn_request(b->nc, cmd, on_registered, (void *)yp_port_name(p));
}

struct check {
	struct yb *b;
	struct yp_port *p;
};

/* A registration that is not ours any more (the name server restarted,
 * or another process took the name): registered again. */
static void on_check2(void *data, int err, const char *reply)
{
	struct check *c = data;
	struct yn_reg reg;

	if (!err && (yn_parse_reg(reply, &reg) < 0 ||
		     reg.port != yp_port_number(c->p))) {
		log_notice("%s is not registered as ours (%.*s): registering it again",
			yp_port_name(c->p), (int)strcspn(reply, "\r\n"), reply);
		register_port(c->b, c->p);
	}
	free(c);
}

static void connect_configured(struct yb *b)
{
	unsigned int i, j;

	for (i = 0; i < b->cfg.n_connect; i++) {
		const struct yb_connect *cn = &b->cfg.connect[i];

		for (j = 0; j < b->n_ports; j++)
			if (!strcmp(yp_port_name(b->ports[j]), cn->from) &&
			    !yp_port_connected(b->ports[j], cn->to))
				yp_port_connect(b->ports[j], cn->to, cn->carrier);
	}
}

/*
 * What hostile or broken peers cost (docs/YARP.md "Hostile peers"): the
 * counts summed over the ports, said once per recheck when one moved, so
 * an attack shows in the journal without a line per connection
 */
static void report_peers(struct yb *b)
{
	struct yp_port_stats s, t;
	struct net_guard_stats g;
	uint64_t now[9];
	unsigned int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < b->n_ports; i++) {
		yp_port_stats(b->ports[i], &s);
		t.refused += s.refused;
		t.refused_conns += s.refused_conns;
		t.timed_out += s.timed_out;
		t.unread += s.unread;
		t.dropped += s.dropped;
	}
	net_guard_stats(b->guard, &g);
	now[0] = t.refused_conns;
	now[1] = g.refused_addr;
	now[2] = g.refused_total;
	now[3] = g.out_of_fds;
	now[4] = g.evicted;
	now[5] = t.timed_out;
	now[6] = t.unread;
	now[7] = t.dropped;
	now[8] = t.refused + yb_rpc_busy(b->rpc);
	if (!memcmp(now, b->peer_counts, sizeof(now)))
		return;
	memcpy(b->peer_counts, now, sizeof(now));
	log_notice("peers: %u connections; since start %llu refused (%llu over max_per_address, "
		   "%llu over max_connections, %llu out of descriptors), %llu gave their place, "
		   "%llu timed out, %llu left replies unread, %llu readers dropped as stalled, "
		   "%llu commands or names refused or busy",
		   g.conns, (unsigned long long)now[0], (unsigned long long)now[1],
		   (unsigned long long)now[2], (unsigned long long)now[3],
		   (unsigned long long)now[4], (unsigned long long)now[5],
		   (unsigned long long)now[6], (unsigned long long)now[7],
		   (unsigned long long)now[8]);
}

static int on_recheck(sd_event_source *s, uint64_t usec, void *data)
{
	struct yb *b = data;
	bool skip = yn_pending(b->nc) > 0;
	unsigned int i;

	/* the last round still queued (the name server is slow or away): no
	 * second one behind it, so that readers' lookups are not kept waiting */
	for (i = 0; i < b->n_ports && !skip; i++) {
		struct check *c = malloc(sizeof(*c));
		char cmd[300];

		if (!c)
			break;
		c->b = b;
		c->p = b->ports[i];
		snprintf(cmd, sizeof(cmd), "query %s", yp_port_name(c->p));
		if (yn_request(b->nc, cmd, on_check2, c) < 0)
			free(c);
	}
	connect_configured(b);
	report_peers(b);
	sd_event_source_set_time(s, usec + (uint64_t)b->cfg.recheck_s * 1000000);
	return 0;
}

static struct yp_port *add_port(struct yb *b, const char *name, yp_rpc_fn rpc)
{
	struct yp_port_options o;
	struct yp_port *p;
	int r;

	if (b->n_ports == YB_MAX_PORTS)
		return NULL;
	memset(&o, 0, sizeof(o));
	o.name = name;
	o.version = b->cfg.version;
	o.bind = b->cfg.bind;
	o.stall_ms = b->cfg.stall_ms;
	o.idle_ms = b->cfg.idle_ms;
	o.guard = b->guard;
	o.resolve = resolve;
	o.rpc = rpc;
	o.data = b;
	r = yp_port_new(&p, b->e, &o);
	if (r < 0) {
		log_err("port %s: %s", name, strerror(-r));
		return NULL;
	}
	b->ports[b->n_ports++] = p;
	register_port(b, p);
	return p;
}

/*
 * skind's side
 */
static struct yb_part *part_named(struct yb *b, const char *name)
{
	unsigned int i;

	for (i = 0; i < b->n_parts; i++)
		if (!strcmp(b->parts[i].name, name))
			return &b->parts[i];
	return NULL;
}

static void attached(struct yb *b, const struct skin_shm_map *m)
{
	unsigned int i, n = skin_shm_n_parts(m);

	b->map = m;
	b->period_ms = m->hdr->period_ms ? m->hdr->period_ms : 20;
	for (i = 0; i < b->n_parts; i++) {
		b->parts[i].index = -1;
		b->parts[i].state = 0;	/* a new skind: its states anew */
	}
	for (i = 0; i < n; i++) {
		const struct skin_shm_part_desc *d = skin_shm_part(m, i);
		struct yb_part *p = part_named(b, d->name);
		char name[256];
		const char *yname;

		if (!p) {
			if (b->n_parts == sizeof(b->parts) / sizeof(b->parts[0]))
				continue;
			p = &b->parts[b->n_parts++];
			snprintf(p->name, sizeof(p->name), "%s", d->name);
			yname = yb_config_port_name(&b->cfg, d->name, d->skin_part);
			snprintf(name, sizeof(name), "/%s/skin/%s", b->cfg.robot, yname);
			p->raw = add_port(b, name, NULL);
			/* what analogsensorclient (skinManager's input)
			 * connects to beside the data port */
			snprintf(name, sizeof(name), "/%s/skin/%s/rpc:i", b->cfg.robot, yname);
			p->raw_rpc = add_port(b, name, yb_analog_rpc);
			snprintf(name, sizeof(name), "/%s/skin/%s_comp", b->cfg.robot, yname);
			p->comp = add_port(b, name, NULL);
		}
		p->index = (int)i;
		p->n_taxels = d->n_taxels;
	}
	connect_configured(b);
	b->cycle_last_ns = 0;	/* the running period anew */
	b->cycle_avg_ns = 0;
	sd_event_source_set_time_relative(b->cycle, (uint64_t)b->period_ms * 1000);
	sd_event_source_set_enabled(b->cycle, SD_EVENT_ON);
	if (b->raw_timer) {
		sd_event_source_set_time_relative(b->raw_timer,
						  (uint64_t)b->cfg.raw_period_ms * 1000);
		sd_event_source_set_enabled(b->raw_timer, SD_EVENT_ON);
	}
	log_info("following skind (%u parts, every %u ms)", n,
		b->period_ms);
}

static void detached(struct yb *b, int reason)
{
	b->map = NULL;
	sd_event_source_set_enabled(b->cycle, SD_EVENT_OFF);
	if (b->raw_timer)
		sd_event_source_set_enabled(b->raw_timer, SD_EVENT_OFF);
	log_info("skind went away (%s); waiting for it",
		strerror(-reason));
}

/*
 * The raw port as the CAN skin device writes it (icub-main's CanBusSkin:
 * its vector starts at 0 and only the frames that come are written in, 12
 * values per triangle): a triangle with no taxel in the model (absent, it
 * sends nothing) reads 0, where skind's ring starts every channel at the
 * board's noLoad; a present triangle's slots stay as the board sent them,
 * its unused ones included.
 */
#define TRIANGLE_SLOTS 12

/* how late sd-event may run a periodic thread's tick, the raw ports' and
 * skinManager's cycle (its default: 250 ms, which a silent skin, waking
 * the loop for nothing else, would let it take) */
#define TICK_ACCURACY_US 1000

static void zero_absent(uint8_t *raw, const uint8_t *flags, unsigned int n)
{
	unsigned int t, i;

	for (t = 0; t + TRIANGLE_SLOTS <= n; t += TRIANGLE_SLOTS) {
		for (i = 0; i < TRIANGLE_SLOTS; i++)
			if (flags[t + i] & (SKIN_SHM_TAXEL_TACTILE | SKIN_SHM_TAXEL_THERMAL))
				break;
		if (i == TRIANGLE_SLOTS)
			memset(raw + t, 0, TRIANGLE_SLOTS);
	}
}

/* The raw values of @block as the CAN device gives them, zero-filled, in
 * the bridge's own copy (the follower's is read-only); NULL when out of
 * memory */
static const uint8_t *raw_as_device(struct yb *b, const struct skin_shm_map *m,
				    unsigned int part, const void *block,
				    unsigned int n)
{
	if (b->raw_size < n) {
		uint8_t *r = realloc(b->raw, n);

		if (!r)
			return NULL;
		b->raw = r;
		b->raw_size = n;
	}
	memcpy(b->raw, skin_shm_raw(m, part, block), n);
	zero_absent(b->raw, skin_shm_flags(m, part, block), n);
	return b->raw;
}

/* A Vector of @f (compensated) or @u (raw) to @port's readers; a port
 * without readers costs nothing, and text is made only for text readers */
static void write_values(struct yb *b, struct yp_port *port, const float *f,
			 const uint8_t *u, unsigned int n, const char *env)
{
	bool text;

	if (!port || !yp_port_readers(port))
		return;
	text = yp_port_wants_text(port);
	yw_buf_reset(&b->bin);
	yw_buf_reset(&b->text);
	if (f)
		yw_vector_f32(&b->bin, b->cfg.version, f, n);
	else
		yw_vector_u8(&b->bin, b->cfg.version, u, n);
	if (text && f)
		yw_vector_f32_text(&b->text, f, n);
	else if (text)
		yw_vector_u8_text(&b->text, u, n);
	yp_port_write(port, &b->bin, text ? &b->text : NULL, env);
}

/*
 * info:o, skinManager's occasional messages (CompensationThread's
 * infoPort): a Bottle of two strings, the part's input port and ": " and
 * the message, as Compensator::sendInfoMsg() writes them, no envelope.
 * The bridge writes the one a part's calibration ends with
 * (Compensator::calibrationFinish(): "Calibration finished"), when
 * skind's part goes from calibrating to calibrated; skinManager's
 * messages about its own faults have no counterpart.
 */
static void info_message(struct yb *b, struct yb_part *p, const char *msg)
{
	struct yw_atom a[2] = { { .type = YW_ATOM_STRING }, { .type = YW_ATOM_STRING } };
	bool text = yp_port_wants_text(b->info);

	snprintf(a[0].s, sizeof(a[0].s), "%s", yp_port_name(p->raw));
	snprintf(a[1].s, sizeof(a[1].s), ": %s", msg);
	yw_buf_reset(&b->bin);
	yw_buf_reset(&b->text);
	yw_atoms_bottle(&b->bin, b->cfg.version, a, 2);
	if (text)
		yw_atoms_text(&b->text, a, 2);
	if (yw_buf_ok(&b->bin) && yw_buf_ok(&b->text))
		yp_port_write(b->info, &b->bin, text ? &b->text : NULL, NULL);
}

/* A part's state as published with a sample or alone: its calibration's
 * end is said on info:o */
static void part_state(struct yb *b, struct yb_part *p, uint32_t state)
{
	if ((p->state & SKIN_SHM_PART_CALIBRATING) &&
	    !(state & SKIN_SHM_PART_CALIBRATING) && (state & SKIN_SHM_PART_CALIBRATED) &&
	    p->raw && b->info)
		info_message(b, p, "Calibration finished");
	p->state = state;
}

/* A Vector's envelope: the part's publication count, and the time of the
 * sample (the driver's, on the realtime clock as yarp::os::Time, through
 * the offset of now, as the ROS 2 bridge stamps: a step of the realtime
 * clock shows at once) */
static void sample_envelope(char *env, size_t len, const struct skin_shm_part *h)
{
	double t = (double)((int64_t)h->frame_ts_ns + clock_mono_to_real_ns()) / 1e9;

	yw_stamp_text(env, len, (int32_t)h->samples, t);
}

/* Part @p's raw port from @block, the part's copy number @part of @m,
 * under @block's envelope; the zero-filled copy only for a port someone
 * reads */
static void write_raw(struct yb *b, struct yb_part *p, const struct skin_shm_map *m,
		      unsigned int part, const void *block)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);
	const uint8_t *raw;
	char env[64];

	if (!p->raw || !yp_port_readers(p->raw))
		return;
	raw = raw_as_device(b, m, part, block, d->n_taxels);
	if (!raw)
		return;
	sample_envelope(env, sizeof(env), skin_shm_head(block));
	write_values(b, p->raw, NULL, raw, d->n_taxels, env);
}

/*
 * The raw ports as the robot's wrapper writes them (YARP's analogServer,
 * AnalogWrapper::run(): every period, 20 ms in robots-configuration, the
 * device's newest whole-part vector): each tick writes each part's newest
 * copy, a part with no new sample since the last tick its last vector
 * again under the same envelope (count and time unchanged, so a reader
 * sees a skin gone silent; docs/YARP.md, "The raw ports' rate", says
 * why it is written at all: skinManager drops a part after 100 cycles
 * without a new message).  A late tick is not made up: the next is the
 * first of the period's grid after now, as a periodic thread that
 * overran.
 */
static int on_raw_tick(sd_event_source *s, uint64_t usec, void *data)
{
	struct yb *b = data;
	uint64_t period = (uint64_t)b->cfg.raw_period_ms * 1000, now;
	unsigned int i;

	if (sd_event_now(b->e, CLOCK_MONOTONIC, &now) < 0 || now < usec)
		now = usec;
	sd_event_source_set_time(s, usec + period * ((now - usec) / period + 1));
	for (i = 0; i < b->n_parts; i++) {
		struct yb_part *p = &b->parts[i];
		const void *block = yb_block(b, p);

		if (block)
			write_raw(b, p, b->map, (unsigned int)p->index, block);
	}
	return 0;
}

static void sample(struct yb *b, const struct skin_follow_sample *s)
{
	const struct skin_shm_part_desc *d = skin_shm_part(s->map, s->part);
	const struct skin_shm_part *h = skin_shm_head(s->block);
	struct yb_part *p = part_named(b, d->name);
	char env[64];

	if (!p || p->index != (int)s->part)
		return;
	part_state(b, p, h->state);
	b->samples++;
	/* raw_period_ms = 0: the raw port at every publication too, else
	 * at on_raw_tick()'s */
	if (!b->raw_timer)
		write_raw(b, p, s->map, s->part, s->block);
	sample_envelope(env, sizeof(env), h);
	write_values(b, p->comp, skin_shm_values(s->map, s->part, s->block), NULL,
		     d->n_taxels, env);
}

const void *yb_block(const struct yb *b, const struct yb_part *p)
{
	return b->map && p->index >= 0 ?
	       skin_follow_block(follow_source_follower(b->follow),
					 (unsigned int)p->index) : NULL;
}

/* The contacts of part @p's copy, bounded by what its descriptor allows;
 * *taxels set to the part's contact_taxels.  Return the count (0 while
 * there is no copy). */
static unsigned int part_contacts(struct yb *b, struct yb_part *p,
				  const uint32_t **taxels, unsigned int *n_taxels)
{
	const struct skin_shm_part_desc *d = skin_shm_part(b->map, (unsigned int)p->index);
	const void *block = yb_block(b, p);
	const struct skin_shm_part *h;
	unsigned int n;

	*taxels = NULL;
	*n_taxels = 0;
	if (!block)
		return 0;
	h = skin_shm_head(block);
	n = h->n_contacts;

	if (n > d->max_contacts)
		n = d->max_contacts;
	*taxels = skin_shm_contact_taxels(b->map, (unsigned int)p->index, block);
	*n_taxels = h->n_contact_taxels < d->n_taxels ? h->n_contact_taxels : d->n_taxels;
	return n;
}

/* skinManager writes skin_events:o every cycle, empty when nothing touches */
static void send_events(struct yb *b)
{
	struct skin_contact tc[64];
	unsigned int i, j, total = 0, nt = 0;
	bool text = yp_port_wants_text(b->events);
	char env[64];

	if (!b->map || !b->events || !yp_port_readers(b->events))
		return;
	for (i = 0; i < b->n_parts; i++) {
		const uint32_t *tx;
		unsigned int ntx;

		if (b->parts[i].index >= 0)
			total += part_contacts(b, &b->parts[i], &tx, &ntx);
	}
	yw_buf_reset(&b->bin);
	yw_contact_list(&b->bin, total);
	for (i = 0; i < b->n_parts; i++) {
		struct yb_part *p = &b->parts[i];
		const struct skin_shm_part_desc *d;
		const uint32_t *tx;
		unsigned int n, ntx;

		if (p->index < 0)
			continue;
		d = skin_shm_part(b->map, (unsigned int)p->index);
		n = part_contacts(b, p, &tx, &ntx);
		for (j = 0; j < n; j++) {
			const struct skin_contact_record *c =
				skin_shm_contact(b->map, (unsigned int)p->index, yb_block(b, p), j);
			struct yw_contact y;

			memset(&y, 0, sizeof(y));
			y.id = (int32_t)c->id;
			y.body_part = (int32_t)d->body_part;
			y.link_number = d->link_number;
			y.skin_part = (int32_t)d->skin_part;
			memcpy(y.cop, c->cop, sizeof(y.cop));
			memcpy(y.force, c->force, sizeof(y.force));
			memcpy(y.moment, c->moment, sizeof(y.moment));
			memcpy(y.geo, c->geo, sizeof(y.geo));
			memcpy(y.normal, c->normal, sizeof(y.normal));
			y.pressure = c->pressure;
			/* the writer's indices, checked against the copy's bounds */
			if (c->first_taxel <= ntx && c->n_taxels <= ntx - c->first_taxel) {
				y.n_taxels = c->n_taxels;
				y.taxels = tx + c->first_taxel;
			}
			yw_contact(&b->bin, b->cfg.version, &y);
			if (text && nt < sizeof(tc) / sizeof(tc[0])) {
				struct skin_contact *k = &tc[nt++];

				memset(k, 0, sizeof(*k));
				k->r = *c;	/* the record, its taxels checked */
				k->r.n_taxels = y.n_taxels;
				k->body_part = (enum skin_body_part)d->body_part;
				k->skin_part = (enum skin_part_id)d->skin_part;
				k->link_number = d->link_number;
				k->taxels = y.taxels;
			}
		}
	}
	yw_buf_reset(&b->text);
	if (text) {
		/* lib/proc's skinContactList text (the outer list's parentheses
		 * are the Bottle's own: a text reader gets its contents) */
		int len = skin_contacts_bottle(NULL, 0, tc, nt);
		char *t = malloc((size_t)len + 1);

		if (t) {
			skin_contacts_bottle(t, (size_t)len + 1, tc, nt);
			yw_put(&b->text, t + 1, (size_t)len - 2);
			free(t);
		}
	}
	yw_stamp_text(env, sizeof(env), (int32_t)b->events_seq++,
		      (double)clock_realtime_ns() / 1e9);
	yp_port_write(b->events, &b->bin, text ? &b->text : NULL, env);
}

/*
 * monitor:o as skinManager's (CompensationThread::sendMonitorData()),
 * only when someone reads it: a Vector of 1 + 2N doubles, N the sum of
 * the parts' lengths in the bridge's part order (`get info`'s): the
 * cycle's frequency, then each part's drift per taxel (the baselines
 * less the calibration's, skin/shm.h 1.3: Compensator::getCompensation()),
 * then each part's raw values as its raw port publishes them
 * (Compensator::getRawData(), the vector skinManager read).  A part that
 * is calibrating or was never calibrated leaves its ranges 0 (skinManager
 * sends nothing but the frequency while it calibrates), and so does one
 * skind does not publish now (skinManager's compensator not working), at
 * its last known length; a writer older than 1.3 gives no drift (0).  No
 * envelope: skinManager sets none on this port.
 */
static void send_monitor(struct yb *b)
{
	unsigned int i, k, n = 0, at;
	bool text;
	double *v;

	if (!b->map || !b->monitor || !yp_port_readers(b->monitor))
		return;
	for (i = 0; i < b->n_parts; i++)
		n += b->parts[i].n_taxels;
	if (b->monitor_size < 1 + 2 * (size_t)n) {
		v = realloc(b->monitor_values, (1 + 2 * (size_t)n) * sizeof(*v));
		if (!v)
			return;
		b->monitor_values = v;
		b->monitor_size = 1 + 2 * (size_t)n;
	}
	v = b->monitor_values;
	memset(v, 0, (1 + 2 * (size_t)n) * sizeof(*v));
	/* YARP's 1.0 / getEstimatedPeriod(): the running period measured,
	 * the configured one until there is one */
	v[0] = b->cycle_avg_ns > 0 ? 1e9 / b->cycle_avg_ns : 1000.0 / b->period_ms;
	for (i = 0, at = 1; i < b->n_parts; at += b->parts[i++].n_taxels) {
		struct yb_part *p = &b->parts[i];
		const void *block = yb_block(b, p);
		const struct skin_shm_part_desc *d;
		const double *base, *cal;
		const uint8_t *raw;
		uint32_t st;

		if (!block)
			continue;
		d = skin_shm_part(b->map, (unsigned int)p->index);
		st = skin_shm_head(block)->state;
		if (d->n_taxels != p->n_taxels || !(st & SKIN_SHM_PART_CALIBRATED) ||
		    (st & SKIN_SHM_PART_CALIBRATING))
			continue;
		base = skin_shm_baselines(b->map, (unsigned int)p->index, block);
		cal = skin_shm_cal_baselines(b->map, (unsigned int)p->index, block);
		if (base && cal && (st & SKIN_SHM_PART_THRESHOLDS))
			for (k = 0; k < p->n_taxels; k++)
				v[at + k] = base[k] - cal[k];
		raw = raw_as_device(b, b->map, (unsigned int)p->index, block, p->n_taxels);
		if (raw)
			for (k = 0; k < p->n_taxels; k++)
				v[at + n + k] = raw[k];
	}
	text = yp_port_wants_text(b->monitor);
	yw_buf_reset(&b->bin);
	yw_buf_reset(&b->text);
	yw_vector_f64(&b->bin, b->cfg.version, v, 1 + 2 * n);
	if (text)
		yw_vector_f64_text(&b->text, v, 1 + 2 * n);
	/* the whole body's is 135 KB (370 KB as text): not half of one */
	if (yw_buf_ok(&b->bin) && yw_buf_ok(&b->text))
		yp_port_write(b->monitor, &b->bin, text ? &b->text : NULL, NULL);
}

/*
 * skinManager's thread cycle (CompensationThread::run(), every period_ms):
 * its skin_events:o and monitor:o.  The period is measured as YARP's
 * PeriodicThread estimates it (getEstimatedPeriod(), which monitor:o
 * reports): here a running mean of the last cycles, so that a host that
 * holds the loop up shows in it.
 */
static int on_cycle(sd_event_source *s, uint64_t usec, void *data)
{
	struct yb *b = data;
	uint64_t now = clock_monotonic_ns();

	sd_event_source_set_time(s, usec + (uint64_t)b->period_ms * 1000);
	if (b->cycle_last_ns) {
		double dt = (double)(now - b->cycle_last_ns);

		/* a mean over about 32 cycles; the first one as it is */
		b->cycle_avg_ns = b->cycle_avg_ns > 0 ?
				  b->cycle_avg_ns + (dt - b->cycle_avg_ns) / 32 : dt;
	}
	b->cycle_last_ns = now;
	send_events(b);
	send_monitor(b);
	return 0;
}

static void on_follow(struct skin_follow *f, enum skin_follow_event ev,
		      const struct skin_follow_sample *s, void *data)
{
	struct yb *b = data;

	(void)f;
	switch (ev) {
	case SKIN_FOLLOW_ATTACHED:
		attached(b, s->map);
		break;
	case SKIN_FOLLOW_SAMPLE:
		sample(b, s);
		break;
	case SKIN_FOLLOW_DETACHED:
		detached(b, s->reason);
		break;
	case SKIN_FOLLOW_STATE: {
		/* no new sample: skinManager's data ports carry samples
		 * only; info:o may have something to say */
		const struct skin_shm_part_desc *d = skin_shm_part(s->map, s->part);
		struct yb_part *p = part_named(b, d->name);

		if (p && p->index == (int)s->part)
			part_state(b, p, skin_shm_head(s->block)->state);
		break;
	}
	}
}

/* max_connections must fit under the descriptor limit (the unit's
 * LimitNOFILE=), with the listeners and the bridge's own beside them:
 * else a flood would meet EMFILE before the cap */
static void warn_nofile(const struct yb_config *cfg)
{
	struct rlimit rl;
	uint64_t need = (uint64_t)cfg->max_conns + YB_MAX_PORTS + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    need > rl.rlim_cur)
		log_warn("max_connections = %u needs about %llu descriptors, the limit is %llu "
			 "(LimitNOFILE= in the unit): lower it, or raise the limit",
			 cfg->max_conns, (unsigned long long)need,
			 (unsigned long long)rl.rlim_cur);
}

/* netguard.h's make-room: a connection that has not said who it is yet,
 * on any port, gives its slot to a new one */
static bool make_room(void *data)
{
	struct yb *b = data;
	unsigned int i;

	for (i = 0; i < b->n_ports; i++)
		if (yp_port_evict(b->ports[i]))
			return true;
	return false;
}

int yb_new(struct yb **bp, sd_event *e, const struct yb_config *cfg,
	   const char *socket, char *why, size_t why_len)
{
	struct skin_follow_options fo = { .socket = socket };
	struct yb *b = calloc(1, sizeof(*b));
	char name[256];
	int r;

	if (!b)
		return -ENOMEM;
	b->e = e;
	b->cfg = *cfg;
	b->socket = socket;
	yw_buf_init(&b->bin);
	yw_buf_init(&b->text);
	if (cfg->have_name_server) {
		r = yn_address(cfg->ns_host, cfg->ns_port, &b->ns);
		if (r < 0)
			snprintf(why, why_len, "name_server %s: cannot resolve", cfg->ns_host);
	} else {
		struct yn_server s;

		r = yn_find(&s, NULL, why, why_len);
		if (!r) {
			r = yn_address(s.host, s.port, &b->ns);
			if (r < 0)
				snprintf(why, why_len, "%s: cannot resolve %s", s.file, s.host);
		}
	}
	if (r < 0)
		goto fail;
	r = yn_client_new(&b->nc, e, &b->ns, 2000);
	if (r < 0)
		goto fail;
	{
		struct net_guard_limits l = {
			.max_conns = cfg->max_conns,
			.max_per_addr = cfg->max_per_addr,
		};

		r = net_guard_new(&b->guard, &l);
		if (r < 0)
			goto fail;
		net_guard_set_room(b->guard, make_room, b);
		warn_nofile(cfg);
	}
	r = yb_rpc_new(&b->rpc, b);
	if (r < 0)
		goto fail;
	snprintf(name, sizeof(name), "/%s/skin_events:o", cfg->manager);
	b->events = add_port(b, name, NULL);
	/* skinManager's "/" + getName("/rpc"), where its clients connect
	 * (skinManagerGui's default, skinDynLib's skinManagerClient) */
	snprintf(name, sizeof(name), "/%s/rpc", cfg->manager);
	b->rpc_port = add_port(b, name, yb_rpc_handle);
	snprintf(name, sizeof(name), "/%s/info:o", cfg->manager);
	b->info = add_port(b, name, NULL);
	snprintf(name, sizeof(name), "/%s/monitor:o", cfg->manager);
	b->monitor = add_port(b, name, NULL);
	if (!b->events || !b->rpc_port || !b->info || !b->monitor) {
		snprintf(why, why_len, "cannot open the manager's ports");
		r = -EADDRINUSE;
		goto fail;
	}
	r = sd_event_add_time_relative(e, &b->cycle, CLOCK_MONOTONIC,
				       20000, TICK_ACCURACY_US, on_cycle, b);
	if (r >= 0)
		r = sd_event_source_set_enabled(b->cycle, SD_EVENT_OFF);
	/* a periodic thread's tick, not sd-event's default slack of 250 ms */
	if (r >= 0 && cfg->raw_period_ms)
		r = sd_event_add_time_relative(e, &b->raw_timer, CLOCK_MONOTONIC,
					       (uint64_t)cfg->raw_period_ms * 1000,
					       TICK_ACCURACY_US, on_raw_tick, b);
	if (r >= 0 && b->raw_timer)
		r = sd_event_source_set_enabled(b->raw_timer, SD_EVENT_OFF);
	if (r >= 0)
		r = sd_event_add_time_relative(e, &b->recheck, CLOCK_MONOTONIC,
					       (uint64_t)cfg->recheck_s * 1000000, 0,
					       on_recheck, b);
	if (r >= 0)
		r = sd_event_source_set_enabled(b->recheck, SD_EVENT_ON);
	if (r < 0) {
		snprintf(why, why_len, "sd-event: %s", strerror(-r));
		goto fail;
	}
	r = follow_source_new(&b->follow, e, &fo, on_follow, b);
	if (r < 0) {
		snprintf(why, why_len, "following skind: %s", strerror(-r));
		goto fail;
	}
	*bp = b;
	return 0;
fail:
	yb_free(b, 0);
	return r;
}

static void on_unregistered(void *data, int err, const char *reply)
{
	(void)data;
	(void)err;
	(void)reply;
}

void yb_free(struct yb *b, unsigned int ms)
{
	unsigned int i;

	if (!b)
		return;
	/* nothing re-registers or writes while the ports are unregistered */
	sd_event_source_set_enabled(b->recheck, SD_EVENT_OFF);
	sd_event_source_set_enabled(b->cycle, SD_EVENT_OFF);
	if (b->raw_timer)
		sd_event_source_set_enabled(b->raw_timer, SD_EVENT_OFF);
	/* the map is the follower's: gone with it, so that what still runs
	 * while the ports unregister (an rpc call answered by skind, e.g. `get
	 * touch thr`) sees no skind rather than a freed one */
	follow_source_free(b->follow);
	b->follow = NULL;
	b->map = NULL;
	if (b->nc && ms) {
		uint64_t t0;

		for (i = 0; i < b->n_ports; i++) {
			char cmd[300];

			snprintf(cmd, sizeof(cmd), "unregister %s", yp_port_name(b->ports[i]));
			yn_request(b->nc, cmd, on_unregistered, NULL);
		}
		t0 = clock_monotonic_ns();
		do {
			if (sd_event_run(b->e, 10000) < 0)
				break;	/* a finished loop runs no more */
		} while (yn_pending(b->nc) &&
			 clock_monotonic_ns() - t0 < (uint64_t)ms * 1000000);
	}
	/* the name server's requests first: their answers (-ECANCELED)
	 * reach ports still open */
	yn_client_free(b->nc);
	for (i = 0; i < b->n_ports; i++)
		yp_port_free(b->ports[i]);
	yb_rpc_free(b->rpc);
	net_guard_free(b->guard);
	sd_event_source_disable_unref(b->cycle);
	sd_event_source_disable_unref(b->raw_timer);
	sd_event_source_disable_unref(b->recheck);
	yw_buf_free(&b->bin);
	yw_buf_free(&b->text);
	free(b->raw);
	free(b->monitor_values);
	free(b);
}
