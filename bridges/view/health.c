// SPDX-License-Identifier: GPL-2.0
/*
 * health.c - the /skin/health channel (health.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include <skin/client.h>
#include <skin/model.h>

#include "counters.h"
#include "health.h"
#include "log.h"
#include "skin_clock.h"

#define TICK_NS		(250 * 1000000ull)	/* the timer */
#define ROUND_NS	(1000 * 1000000ull)	/* a round a second */
#define POKE_GAP_NS	(250 * 1000000ull)	/* rounds asked for, at most */
#define ROUND_TIMEOUT_NS (5000 * 1000000ull)	/* a round not answered */
#define RETRY_NS	(1000 * 1000000ull)	/* connecting again */
#define MAX_PARTS	64
#define MAX_PATCHES	32
#define MAX_FAULTS	256
#define HEALTH_MAX	(1u << 20)
#define SYSFS_ROOT	"/sys/class/skin"

enum cmd { C_FORMAT, C_STATUS, C_PARTS, C_FAULTS, C_GET };

struct h_patch {
	char name[SKIN_SHM_NAME_LEN + 8];
	char bus[32];
	int address;
	bool attached, silent, listen_only;
	uint64_t frames, lost, partial, skipped;
};

struct h_fault {
	unsigned int taxel;
	char flags[128];
	uint64_t since_ns;
	double raw, baseline;
};

struct h_part {
	char name[SKIN_SHM_NAME_LEN];
	char state[24];
	uint64_t samples, lost;
	unsigned int taxels, contacts;
	struct h_patch patches[MAX_PATCHES];
	unsigned int n_patches;
	struct h_fault *faults;
	unsigned int n_faults, cap_faults, faults_more;
};

struct health {
	sd_event *e;
	const struct view_config *cfg;
	struct health_ops ops;
	void *data;
	char socket[VIEW_CONFIG_SOCK_LEN];	/* "": the default */
	sd_event_source *timer, *io;
	struct skin_client *c;
	enum cmd expect[8];
	unsigned int n_expect;
	bool in_round, poked, faults_ok, faults_truncated;
	bool said_no_faults, said_away, said_big;
	uint64_t round_ns, last_round_ns, last_try_ns, last_pub_ns;
	json_object *status;
	struct h_part *parts;
	unsigned int n_parts;
	char *last_body;		/* the last message but its time */
	size_t last_len;
	uint64_t published;
};

static uint64_t now_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- skind's replies ----------------------------------------------------- */

static const char *str_of(json_object *o, const char *k, const char *def)
{
	json_object *f;

	return json_object_object_get_ex(o, k, &f) && json_object_is_type(f, json_type_string) ?
	       json_object_get_string(f) : def;
}

static uint64_t u64_of(json_object *o, const char *k)
{
	json_object *f;
	int64_t v;

	if (!json_object_object_get_ex(o, k, &f) || !json_object_is_type(f, json_type_int))
		return 0;
	v = json_object_get_int64(f);
	return v < 0 ? 0 : (uint64_t)v;
}

static double dbl_of(json_object *o, const char *k)
{
	json_object *f;

	if (!json_object_object_get_ex(o, k, &f) ||
	    !(json_object_is_type(f, json_type_int) || json_object_is_type(f, json_type_double)))
		return NAN;
	return json_object_get_double(f);
}

static bool bool_of(json_object *o, const char *k)
{
	json_object *f;

	return json_object_object_get_ex(o, k, &f) && json_object_get_boolean(f);
}

static void parts_clear(struct health *h)
{
	unsigned int i;

	for (i = 0; i < h->n_parts; i++)
		free(h->parts[i].faults);
	h->n_parts = 0;
}

static struct h_part *part_named(struct health *h, const char *name)
{
	unsigned int i;

	for (i = h->n_parts; i-- > 0; )
		if (!strcmp(h->parts[i].name, name))
			return &h->parts[i];
	return NULL;
}

static void on_part(struct health *h, json_object *o)
{
	struct h_part *p;

	if (h->n_parts == MAX_PARTS)
		return;
	p = &h->parts[h->n_parts++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", str_of(o, "name", "?"));
	snprintf(p->state, sizeof(p->state), "%s", str_of(o, "state", "?"));
	p->samples = u64_of(o, "samples");
	p->lost = u64_of(o, "lost");
	p->taxels = (unsigned int)u64_of(o, "taxels");
	p->contacts = (unsigned int)u64_of(o, "contacts");
}

static void on_patch(struct health *h, json_object *o)
{
	struct h_part *p = part_named(h, str_of(o, "part", ""));
	struct h_patch *t;
	json_object *f;

	if (!p || p->n_patches == MAX_PATCHES)
		return;
	t = &p->patches[p->n_patches++];
	snprintf(t->name, sizeof(t->name), "%s", str_of(o, "name", "?"));
	snprintf(t->bus, sizeof(t->bus), "%s", str_of(o, "bus", ""));
	t->address = json_object_object_get_ex(o, "address", &f) ? json_object_get_int(f) : -1;
	t->attached = bool_of(o, "attached");
	t->silent = bool_of(o, "silent");
	t->listen_only = bool_of(o, "listen_only");
	t->frames = u64_of(o, "frames");
	t->lost = u64_of(o, "lost");
	t->partial = u64_of(o, "partial");
	t->skipped = u64_of(o, "skipped");
}

/* A fault line (docs/PROTOCOL.md, `faults`): its flags as skind writes
 * them, "stuck,noisy" (or a JSON array of the names) */
static void on_fault(struct health *h, json_object *o)
{
	struct h_part *p = part_named(h, str_of(o, "part", ""));
	struct h_fault *f;
	json_object *fl;

	if (!p)
		return;
	if (p->n_faults == MAX_FAULTS) {
		p->faults_more++;
		return;
	}
	if (p->n_faults == p->cap_faults) {
		unsigned int cap = p->cap_faults ? 2 * p->cap_faults : 16;
		struct h_fault *nf = realloc(p->faults, cap * sizeof(*nf));

		if (!nf) {
			p->faults_more++;
			return;
		}
		p->faults = nf;
		p->cap_faults = cap;
	}
	f = &p->faults[p->n_faults++];
	memset(f, 0, sizeof(*f));
	f->taxel = (unsigned int)u64_of(o, "taxel");
	f->since_ns = u64_of(o, "since_ns");
	f->raw = dbl_of(o, "raw");
	f->baseline = dbl_of(o, "baseline");
	if (json_object_object_get_ex(o, "flags", &fl)) {
		if (json_object_is_type(fl, json_type_array)) {
			size_t i, len = 0;

			for (i = 0; i < json_object_array_length(fl); i++) {
				const char *s = json_object_get_string(json_object_array_get_idx(fl, i));

				len += (size_t)snprintf(f->flags + len, len < sizeof(f->flags) ?
							sizeof(f->flags) - len : 0, "%s%s",
							i ? "," : "", s ? s : "");
				if (len >= sizeof(f->flags))
					break;
			}
		} else {
			snprintf(f->flags, sizeof(f->flags), "%s", json_object_get_string(fl));
		}
	}
}

static void publish(struct health *h, bool force);

static void round_done(struct health *h)
{
	h->in_round = false;
	publish(h, false);
}

static void on_line(struct health *h, const char *line)
{
	json_object *o = json_tokener_parse(line);
	const char *type;
	enum cmd front;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return;
	}
	type = str_of(o, "type", "");
	front = h->n_expect ? h->expect[0] : C_FORMAT;
	if (!strcmp(type, "ok") || !strcmp(type, "error")) {
		bool ok = type[0] == 'o';

		if (h->n_expect) {
			memmove(h->expect, h->expect + 1, --h->n_expect * sizeof(*h->expect));
			/* skind lists what fits its queue for us, then says
			 * "error truncated": a fault list all the same */
			bool truncated = !ok && !strcmp(str_of(o, "code", ""), "truncated");

			if (front == C_FAULTS) {
				h->faults_ok = ok || truncated;
				h->faults_truncated = truncated;
				if (!ok && !truncated && !h->said_no_faults) {
					/* an older skind: no fault list, the rest as ever */
					log_info("skind lists no faulty taxels (faults: %s): health without them",
						 str_of(o, "message", "an error"));
					h->said_no_faults = true;
				}
			}
			if (front == C_GET && h->in_round)
				round_done(h);
		}
	} else if (!strcmp(type, "status") && front == C_STATUS) {
		json_object_object_del(o, "type");
		json_object_put(h->status);
		h->status = json_object_get(o);
	} else if (!strcmp(type, "part") && front == C_PARTS) {
		on_part(h, o);
	} else if (!strcmp(type, "patch") && front == C_PARTS) {
		on_patch(h, o);
	} else if (!strcmp(type, "fault") && front == C_FAULTS) {
		on_fault(h, o);
	} else if (!strcmp(type, "param") && front == C_GET) {
		const char *v = str_of(o, "value", NULL);
		char *end;
		double x;

		if (v && !strcmp(str_of(o, "name", ""), "add_threshold") && h->ops.add_threshold) {
			x = strtod(v, &end);
			if (end != v && !*end)
				h->ops.add_threshold(h->data, x);
		}
	} else if (!strcmp(type, "reload")) {
		h->poked = true;
	}
	json_object_put(o);
}

static void disconnect(struct health *h, const char *why)
{
	if (!h->c)
		return;
	if (!h->said_away)
		log_info("health: skind's socket: %s", why);
	h->said_away = true;
	h->io = sd_event_source_disable_unref(h->io);
	skin_client_close(h->c);
	h->c = NULL;
	h->n_expect = 0;
	h->in_round = false;
	json_object_put(h->status);
	h->status = NULL;
	parts_clear(h);
	publish(h, true);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct health *h = data;
	unsigned int n;

	(void)s;
	(void)fd;
	(void)revents;
	/* what has come, and no more: a loop turn is never held long */
	for (n = 0; h->c && n < 4096; n++) {
		const char *line;
		int r = skin_client_read_line(h->c, &line, 0);

		if (r == 0)
			break;
		if (r < 0) {
			disconnect(h, r == -ECONNRESET ? "closed by skind" : strerror(-r));
			break;
		}
		on_line(h, line);
	}
	return 0;
}

static int send_cmds(struct health *h, const char *text, const enum cmd *cmds,
		     unsigned int n)
{
	int r;

	if (h->n_expect + n > sizeof(h->expect) / sizeof(h->expect[0]))
		return -ENOBUFS;
	r = skin_client_send(h->c, text);
	if (r < 0)
		return r;
	memcpy(h->expect + h->n_expect, cmds, n * sizeof(*cmds));
	h->n_expect += n;
	return 0;
}

static void try_connect(struct health *h, uint64_t now)
{
	static const enum cmd fmt[] = { C_FORMAT };
	int err = 0, r;

	h->last_try_ns = now;
	h->c = skin_client_connect_nonblock(h->socket[0] ? h->socket : NULL, &err);
	if (!h->c)
		return;		/* skind away: the follower says so */
	r = sd_event_add_io(h->e, &h->io, skin_client_fd(h->c), EPOLLIN, on_io, h);
	if (r >= 0)
		r = send_cmds(h, "format json", fmt, 1);
	if (r < 0) {
		disconnect(h, strerror(-r));
		return;
	}
	if (h->said_away)
		log_info("health: skind's socket connected");
	h->said_away = false;
}

static void start_round(struct health *h, uint64_t now)
{
	static const enum cmd round[] = { C_STATUS, C_PARTS, C_FAULTS, C_GET };
	int r;

	parts_clear(h);
	r = send_cmds(h, "status\nparts\nfaults\nget add_threshold", round, 4);
	if (r < 0) {
		disconnect(h, strerror(-r));
		return;
	}
	h->in_round = true;
	h->poked = false;
	h->round_ns = h->last_round_ns = now;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *data)
{
	struct health *h = data;
	uint64_t now = clock_monotonic_ns();

	if (!h->c && now - h->last_try_ns >= RETRY_NS)
		try_connect(h, now);
	if (h->c && h->in_round && now - h->round_ns > ROUND_TIMEOUT_NS)
		disconnect(h, "no reply within 5 s");
	else if (h->c && !h->in_round &&
		 (now - h->last_round_ns >= ROUND_NS ||
		  (h->poked && now - h->last_round_ns >= POKE_GAP_NS)))
		start_round(h, now);
	if (!h->c && now - h->last_pub_ns >= ROUND_NS)
		publish(h, true);
	return sd_event_source_set_time(s, usec + TICK_NS / 1000);
}

/* --- the message ----------------------------------------------------------- */

static void fault_json(struct jw *w, const struct h_fault *f)
{
	char flags[sizeof(f->flags)], *tok, *save = NULL;

	jw_object(w);
	jw_key(w, "taxel");
	jw_uint(w, f->taxel);
	jw_key(w, "flags");
	jw_array(w);
	snprintf(flags, sizeof(flags), "%s", f->flags);
	for (tok = strtok_r(flags, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		jw_str(w, tok);
	jw_array_end(w);
	jw_key(w, "since_ns");
	jw_uint(w, f->since_ns);
	jw_key(w, "raw");
	jw_num(w, f->raw, 6);
	jw_key(w, "baseline");
	jw_num(w, f->baseline, 6);
	jw_object_end(w);
}

static void part_json(struct jw *w, const struct h_part *p)
{
	unsigned int i;

	jw_object(w);
	jw_key(w, "name");
	jw_str(w, p->name);
	jw_key(w, "state");
	jw_str(w, p->state);
	jw_key(w, "taxels");
	jw_uint(w, p->taxels);
	jw_key(w, "samples");
	jw_uint(w, p->samples);
	jw_key(w, "lost");
	jw_uint(w, p->lost);
	jw_key(w, "contacts");
	jw_uint(w, p->contacts);
	jw_key(w, "patches");
	jw_array(w);
	for (i = 0; i < p->n_patches; i++) {
		const struct h_patch *t = &p->patches[i];

		jw_object(w);
		jw_key(w, "name");
		jw_str(w, t->name);
		jw_key(w, "bus");
		jw_str(w, t->bus);
		jw_key(w, "address");
		jw_int(w, t->address);
		jw_key(w, "attached");
		jw_bool(w, t->attached);
		jw_key(w, "silent");
		jw_bool(w, t->silent);
		jw_key(w, "listen_only");
		jw_bool(w, t->listen_only);
		jw_key(w, "frames");
		jw_uint(w, t->frames);
		jw_key(w, "lost");
		jw_uint(w, t->lost);
		jw_key(w, "partial");
		jw_uint(w, t->partial);
		jw_key(w, "skipped");
		jw_uint(w, t->skipped);
		jw_key(w, "driver");
		counters_driver_json(w, SYSFS_ROOT, t->name);
		jw_object_end(w);
	}
	jw_array_end(w);
	jw_key(w, "faults");
	jw_array(w);
	for (i = 0; i < p->n_faults; i++)
		fault_json(w, &p->faults[i]);
	jw_array_end(w);
	jw_key(w, "faults_more");
	jw_uint(w, p->faults_more);
	jw_object_end(w);
}

/* The message but its time: {"skind":...,"parts":[...],"eth":...} */
static char *body(struct health *h, uint64_t now_real, size_t *len, int *err)
{
	struct jw w;
	json_object *g = NULL;
	unsigned int i;

	jw_init(&w, HEALTH_MAX);
	jw_object(&w);
	jw_key(&w, "skind");
	jw_object(&w);
	jw_key(&w, "connected");
	jw_bool(&w, h->c && h->status);
	jw_key(&w, "generation");
	if (h->status && json_object_object_get_ex(h->status, "generation", &g))
		jw_int(&w, json_object_get_int64(g));
	else
		jw_null(&w);
	jw_key(&w, "faults");
	jw_bool(&w, h->c && h->faults_ok);
	jw_key(&w, "faults_truncated");
	jw_bool(&w, h->c && h->faults_ok && h->faults_truncated);
	jw_key(&w, "status");
	if (h->c && h->status) {
		const char *s = json_object_to_json_string_ext(h->status, JSON_C_TO_STRING_PLAIN);

		jw_raw(&w, s, strlen(s));
	} else {
		jw_null(&w);
	}
	jw_object_end(&w);
	jw_key(&w, "parts");
	jw_array(&w);
	for (i = 0; h->c && i < h->n_parts; i++)
		part_json(&w, &h->parts[i]);
	jw_array_end(&w);
	jw_key(&w, "eth");
	counters_eth_json(&w, h->cfg->eth_counters, now_real);
	jw_object_end(&w);
	*err = w.err;
	return jw_take(&w, len);
}

/* Published when it changed, or a second after the last (@force: now) */
static void publish(struct health *h, bool force)
{
	uint64_t now = clock_monotonic_ns(), real = now_real_ns();
	char head[96], *b, *msg;
	size_t len, hl;
	int err = 0;

	b = body(h, real, &len, &err);
	if (!b) {
		if (!h->said_big)
			log_warn("health: not published: %s", err == -E2BIG ?
				 "over its bound of 1 MiB" : strerror(-err));
		h->said_big = true;
		return;
	}
	if (!force && h->last_body && len == h->last_len && !memcmp(b, h->last_body, len) &&
	    now - h->last_pub_ns < ROUND_NS) {
		free(b);
		return;
	}
	/* {"time_ns":T,"monotonic_ns":M, then the body after its '{': the
	 * two clocks at one instant, so that a reader turns the faults'
	 * since_ns (skind's frame times, CLOCK_MONOTONIC) into dates */
	hl = (size_t)snprintf(head, sizeof(head),
			      "{\"time_ns\":%" PRIu64 ",\"monotonic_ns\":%" PRIu64 ",",
			      real, now);
	msg = malloc(hl + len);
	if (msg) {
		memcpy(msg, head, hl);
		memcpy(msg + hl, b + 1, len - 1);
		msg[hl + len - 1] = 0;
		if (h->ops.publish)
			h->ops.publish(h->data, msg, hl + len - 1, real);
		free(msg);
	}
	h->published++;
	free(h->last_body);
	h->last_body = b;
	h->last_len = len;
	h->last_pub_ns = now;
}

const char *health_last(const struct health *h, uint64_t *published)
{
	*published = h->published;
	return h->last_body;
}

void health_poke(struct health *h)
{
	if (h)
		h->poked = true;
}

int health_new(struct health **hp, sd_event *e, const struct view_config *cfg,
	       const char *socket, const struct health_ops *ops, void *data)
{
	struct health *h = calloc(1, sizeof(*h));
	int r;

	if (!h)
		return -ENOMEM;
	h->parts = calloc(MAX_PARTS, sizeof(*h->parts));
	if (!h->parts) {
		free(h);
		return -ENOMEM;
	}
	h->e = e;
	h->cfg = cfg;
	if (ops)
		h->ops = *ops;
	h->data = data;
	if (socket)
		snprintf(h->socket, sizeof(h->socket), "%s", socket);
	r = sd_event_add_time_relative(e, &h->timer, CLOCK_MONOTONIC, 0, 10000, on_tick, h);
	if (r >= 0)
		r = sd_event_source_set_enabled(h->timer, SD_EVENT_ON);
	if (r < 0) {
		health_free(h);
		return r;
	}
	*hp = h;
	return 0;
}

void health_free(struct health *h)
{
	if (!h)
		return;
	sd_event_source_disable_unref(h->timer);
	sd_event_source_disable_unref(h->io);
	skin_client_close(h->c);
	json_object_put(h->status);
	parts_clear(h);
	free(h->parts);
	free(h->last_body);
	free(h);
}
