// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - skin-view --replay (replay.h)
 *
 * The recording's time runs against CLOCK_MONOTONIC: while playing, the
 * log time due now is anchor_log + (now - anchor_mono) * speed, and the
 * next processed sample (read ahead: lib/replay hands it over processed,
 * and lib/proc's outputs stay that sample's until the next one is read)
 * is published when its time is due, by a timer set for it.  Pausing
 * keeps the sample read ahead; every change of speed or position sets
 * the anchors again.  A seek reads without publishing; a seek backwards
 * opens the log and the processor again first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <skin/canlog.h>
#include <skin/capture.h>
#include <skin/model.h>
#include <skin/proc.h>
#include <skin/shm.h>
#include <uapi/linux/skin.h>

#include "log.h"
#include "replay.h"
#include "skin_clock.h"
#include "skin_replay.h"
#include "view.h"

#define SERVICE_REPLAY		4	/* after actions.c's */
#define STATUS_PERIOD_NS	250000000ull	/* /skin/replay, 4 a second */
#define BATCH			512	/* samples per turn of the loop, playing */
#define SEEK_BATCH		4096	/* ... seeking (about 0.1 s under ASan) */

static const struct fox_service services[] = {
	{ SERVICE_REPLAY, "/skin/replay", "skin.ReplayControl",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"op\":{\"enum\":[\"play\",\"pause\",\"seek\",\"speed\"]},"
	  "\"t_s\":{\"type\":\"number\",\"description\":\"seek: from the recording's start\"},"
	  "\"speed\":{\"type\":\"number\",\"minimum\":0.1,\"maximum\":10}},"
	  "\"required\":[\"op\"]}",
	  "{\"type\":\"object\",\"properties\":{\"t_s\":{\"type\":\"number\"},"
	  "\"duration_s\":{\"type\":\"number\"},\"playing\":{\"type\":\"boolean\"},"
	  "\"speed\":{\"type\":\"number\"},\"file\":{\"type\":\"string\"}}}" },
};

/* A part's publication as skind's shared memory would hold it (view.h's
 * struct view_sample points at these) */
struct replay_part {
	uint8_t *raw;			/* the newest raw bytes of its patches */
	float *values;
	uint8_t *flags;			/* SKIN_SHM_TAXEL_*: the model's kinds
					 * kept, touch and faults per output */
	double *thresholds;		/* tactile taxels', 0 elsewhere */
	struct skin_contact_record *contacts;
	unsigned int contacts_cap;
	uint32_t *contact_taxels;	/* n_taxels: contacts share no taxel */
	uint64_t samples;		/* outputs published */
	uint64_t last_ns;		/* its newest output; 0: none yet */
};

struct view_replay {
	sd_event *e;
	struct server *srv;
	struct view *view;
	sd_event_source *timer, *status_timer;
	char config[PATH_MAX], log[PATH_MAX], file[256];
	char **boards;			/* an ETH capture's, or none */
	unsigned int n_boards;
	struct skin_replay *r;
	struct replay_part *parts;
	unsigned int n_parts;
	uint32_t status_chan;
	uint64_t first_ns, last_ns;	/* the log's first and last records */
	struct skin_replay_sample next;	/* read ahead, processed */
	bool have_next, ended;
	uint64_t pos_ns;		/* the last sample taken; 0: none */
	bool seeking;			/* processing up to seek_ns, in batches */
	uint64_t seek_ns, seek_start, seek_samples;
	bool playing;
	double speed;
	uint64_t anchor_mono, anchor_log;	/* log time anchor_log at anchor_mono */
	uint64_t published;
};

const struct fox_service *replay_services(unsigned int *n)
{
	*n = sizeof(services) / sizeof(services[0]);
	return services;
}

/* The log time due now */
static uint64_t now_log(const struct view_replay *v)
{
	uint64_t t = v->anchor_log;

	if (v->seeking)
		return v->seek_ns;
	if (v->playing)
		t += (uint64_t)((double)(clock_monotonic_ns() - v->anchor_mono) * v->speed);
	return t < v->last_ns ? t : v->last_ns;
}

static void anchor(struct view_replay *v, uint64_t log_ns)
{
	v->anchor_log = log_ns;
	v->anchor_mono = clock_monotonic_ns();
}

static char *status_json(const struct view_replay *v)
{
	json_object *o = json_object_new_object();
	char *s;

	if (!o)
		return NULL;
	json_object_object_add(o, "t_s",
			       json_object_new_double((double)(now_log(v) - v->first_ns) / 1e9));
	json_object_object_add(o, "duration_s",
			       json_object_new_double((double)(v->last_ns - v->first_ns) / 1e9));
	json_object_object_add(o, "playing", json_object_new_boolean(v->playing));
	json_object_object_add(o, "speed", json_object_new_double(v->speed));
	json_object_object_add(o, "file", json_object_new_string(v->file));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static void publish_status(struct view_replay *v)
{
	char *s = status_json(v);

	if (s)
		server_publish(v->srv, v->status_chan, (const uint8_t *)s, strlen(s),
			       clock_realtime_ns());
	free(s);
}

/* The processor's contacts of part @i as the shared memory holds them
 * (lib/proc's one copy of that form).  Their number, or -ENOMEM. */
static int copy_contacts(struct view_replay *v, unsigned int i, unsigned int *n_taxels)
{
	struct replay_part *p = &v->parts[i];
	const struct skin_contact *c;
	unsigned int n = skin_proc_contacts(v->r->p, i, &c);

	if (n > p->contacts_cap) {
		struct skin_contact_record *nc = realloc(p->contacts, n * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		p->contacts = nc;
		p->contacts_cap = n;
	}
	return (int)skin_proc_shm_contacts(v->r->p, i, p->contacts, n,
					   p->contact_taxels,
					   v->r->m->parts[i].n_taxels, n_taxels);
}

/*
 * Part @i's newest output, on view.h's one publication path, as main.c
 * hands it a sample of skind's shared memory: the same channels
 * (/skin/PART/values, raw, contacts, state), stamped with the
 * recording's own time (Foxglove shows when it happened).  The part's
 * patches count as attached: the recording is all there is.
 */
static void publish_part(struct view_replay *v, unsigned int i)
{
	struct replay_part *p = &v->parts[i];
	const struct skin_part *mp = &v->r->m->parts[i];
	const struct skin_proc *proc = v->r->p;
	const double *val = skin_proc_values(proc, i);
	const double *thr = skin_proc_thresholds(proc, i);
	enum skin_proc_state st = skin_proc_state(proc, i);
	bool running = st == SKIN_PROC_RUNNING;
	unsigned int k, nt = 0;
	int n = running ? copy_contacts(v, i, &nt) : 0;
	int rc;

	for (k = 0; k < mp->n_taxels; k++) {
		bool tactile = p->flags[k] & SKIN_SHM_TAXEL_TACTILE;

		p->values[k] = (float)val[k];
		p->thresholds[k] = running && tactile ? thr[k] : 0;
	}
	skin_proc_shm_flags(proc, i, p->flags);
	if (n < 0) {
		log_warn("part %s: a sample not served: %s", mp->name, strerror(-n));
		return;
	}
	rc = view_publish_part(v->view, i, &(struct view_sample){
		.frame_ns = p->last_ns,
		.recorded = true,
		.sample = ++p->samples,
		.state = SKIN_SHM_PART_ATTACHED |
			 (running ? SKIN_SHM_PART_CALIBRATED | SKIN_SHM_PART_THRESHOLDS : 0) |
			 (st == SKIN_PROC_CALIBRATING ? SKIN_SHM_PART_CALIBRATING : 0),
		.raw = p->raw,
		.values = p->values,
		.flags = p->flags,
		.baselines = skin_proc_baselines(proc, i),
		.thresholds = running ? p->thresholds : NULL,
		.contacts = p->contacts,
		.contact_stride = sizeof(*p->contacts),
		.n_contacts = (unsigned int)n,
		.contact_taxels = p->contact_taxels,
		.n_contact_taxels = nt,
	});
	if (rc)
		log_warn("part %s: a sample not served: %s", mp->name, strerror(-rc));
	v->published++;
}

/* The read-ahead sample taken in: its raw bytes kept, its part's output
 * marked */
static void take(struct view_replay *v)
{
	const struct skin_replay_sample *s = &v->next;
	struct replay_part *p = &v->parts[s->part];

	if (s->values && s->patch < v->r->m->n_patches) {
		const struct skin_part *mp = &v->r->m->parts[s->part];
		unsigned int first = v->r->m->patches[s->patch].order * SKIN_BOARD_VALUES;

		if (first < mp->n_taxels)
			memcpy(p->raw + first, s->values,
			       mp->n_taxels - first < SKIN_BOARD_VALUES ?
			       mp->n_taxels - first : SKIN_BOARD_VALUES);
	}
	v->pos_ns = s->ts_ns;
	if (s->output)
		p->last_ns = s->ts_ns;
	v->have_next = false;
}

/* The next sample read ahead: true, or false at the end (or an error) */
static bool read_ahead(struct view_replay *v)
{
	int n;

	if (v->have_next)
		return true;
	if (v->ended)
		return false;
	n = skin_replay_next(v->r, &v->next);
	if (n <= 0) {
		v->ended = true;
		return false;
	}
	v->have_next = true;
	return true;
}

/* The timer at @log_ns's time (now when that has passed) */
static void arm(struct view_replay *v, uint64_t log_ns)
{
	uint64_t at = v->anchor_mono;

	if (log_ns > v->anchor_log)
		at += (uint64_t)((double)(log_ns - v->anchor_log) / v->speed);

	sd_event_source_set_time(v->timer, at / 1000);
	sd_event_source_set_enabled(v->timer, SD_EVENT_ONESHOT);
}

static void arm_now(struct view_replay *v)
{
	sd_event_source_set_time(v->timer, 0);
	sd_event_source_set_enabled(v->timer, SD_EVENT_ONESHOT);
}

static void stop_at_end(struct view_replay *v)
{
	anchor(v, v->last_ns);
	v->playing = false;
	log_info("replay: the end of %s (%llu outputs published)", v->file,
		 (unsigned long long)v->published);
	publish_status(v);
}

/* A batch of a seek's processing; at its end, every part's state at the
 * new time published and the replay's time anchored there */
static void seek_step(struct view_replay *v)
{
	unsigned int n = 0, i;

	while (read_ahead(v) && v->next.ts_ns <= v->seek_ns) {
		take(v);
		v->seek_samples++;
		if (++n == SEEK_BATCH) {
			/* the clients and the loop between two batches */
			arm_now(v);
			return;
		}
	}
	v->seeking = false;
	anchor(v, v->seek_ns);
	/* every part, as it is at the new time: one with no output yet (still
	 * calibrating there) too, or a client would keep showing what the
	 * part was at the time it came from */
	for (i = 0; i < v->n_parts; i++) {
		if (!v->parts[i].last_ns)
			v->parts[i].last_ns = v->seek_ns;
		publish_part(v, i);
	}
	log_info("replay: at %.3f s of %s (%llu samples processed in %.3f s)",
		 (double)(v->seek_ns - v->first_ns) / 1e9, v->file,
		 (unsigned long long)v->seek_samples,
		 (double)(clock_monotonic_ns() - v->seek_start) / 1e9);
	publish_status(v);
	if (v->playing)
		arm_now(v);
}

/* Publish what is due, then wait for the next sample's time */
static int on_timer(sd_event_source *es, uint64_t usec, void *data)
{
	struct view_replay *v = data;
	uint64_t due = now_log(v);
	unsigned int n = 0;

	(void)es;
	(void)usec;
	if (v->seeking) {
		seek_step(v);
		return 0;
	}
	if (!v->playing)
		return 0;
	while (read_ahead(v)) {
		if (v->next.ts_ns > due) {
			arm(v, v->next.ts_ns);
			return 0;
		}
		take(v);
		if (v->next.output)
			publish_part(v, v->next.part);
		if (++n == BATCH) {
			/* behind: the loop's other sources first */
			arm_now(v);
			return 0;
		}
	}
	stop_at_end(v);
	return 0;
}

static int on_status(sd_event_source *es, uint64_t usec, void *data)
{
	struct view_replay *v = data;

	publish_status(v);
	return sd_event_source_set_time(es, usec + STATUS_PERIOD_NS / 1000);
}

static int open_log(struct view_replay *v)
{
	struct skin_replay_opts o = { .who = "skin-view", .config = v->config,
				      .log = v->log, .eth_boards = v->boards,
				      .n_eth_boards = v->n_boards };
	unsigned int i;

	skin_replay_close(v->r);
	v->r = skin_replay_open(&o);
	if (!v->r)
		return -EINVAL;
	v->have_next = v->ended = false;
	v->pos_ns = 0;
	for (i = 0; i < v->n_parts; i++) {
		const struct skin_part *mp = &v->r->m->parts[i];

		memset(v->parts[i].raw, v->r->cfg->board.no_load, mp->n_taxels);
		v->parts[i].last_ns = 0;
	}
	return 0;
}

/* Processed without publishing up to @log_ns (in batches, on the timer:
 * seek_step()), then each part's newest output published */
static int seek(struct view_replay *v, uint64_t log_ns)
{
	if (log_ns < v->first_ns)
		log_ns = v->first_ns;
	if (log_ns > v->last_ns)
		log_ns = v->last_ns;
	if (log_ns < v->pos_ns) {
		int rc = open_log(v);

		if (rc) {
			/* nothing to play: paused at the start */
			v->seeking = v->playing = false;
			anchor(v, v->first_ns);
			return rc;
		}
	}
	if (!v->seeking) {
		v->seek_start = clock_monotonic_ns();
		v->seek_samples = 0;
	}
	v->seeking = true;
	v->seek_ns = log_ns;
	arm_now(v);
	return 0;
}

static void play(struct view_replay *v)
{
	if (v->playing)
		return;
	if (now_log(v) >= v->last_ns && v->ended && !v->have_next)
		seek(v, v->first_ns);
	anchor(v, now_log(v));
	v->playing = true;
	arm(v, v->anchor_log);
}

static void pause_(struct view_replay *v)
{
	if (!v->playing)
		return;
	anchor(v, now_log(v));
	v->playing = false;
	if (!v->seeking)	/* a seek goes on to its end */
		sd_event_source_set_enabled(v->timer, SD_EVENT_OFF);
}

static bool get_num(json_object *o, const char *key, double *x)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f) ||
	    !(json_object_is_type(f, json_type_double) || json_object_is_type(f, json_type_int)))
		return false;
	*x = json_object_get_double(f);
	return isfinite(*x);
}

void replay_call(void *data, const struct server_call *c, const char *payload,
		 size_t len)
{
	struct view_replay *v = data;
	json_tokener *tok = json_tokener_new_ex(8);
	json_object *o = NULL, *op;
	const char *name;
	char *answer;
	double x;

	if (tok)
		o = json_tokener_parse_ex(tok, payload, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "op", &op) || !json_object_is_type(op, json_type_string)) {
		server_call_fail(v->srv, c, "the request is not a JSON object with a string op");
		goto out;
	}
	name = json_object_get_string(op);
	if (!strcmp(name, "play")) {
		play(v);
	} else if (!strcmp(name, "pause")) {
		pause_(v);
	} else if (!strcmp(name, "seek")) {
		if (!get_num(o, "t_s", &x) || x < 0) {
			server_call_fail(v->srv, c, "seek: t_s, seconds from the start");
			goto out;
		}
		if (x * 1e9 > (double)(v->last_ns - v->first_ns))
			x = (double)(v->last_ns - v->first_ns) / 1e9;
		if (seek(v, v->first_ns + (uint64_t)(x * 1e9))) {
			server_call_fail(v->srv, c, "seek: the recording could not be read again");
			goto out;
		}
	} else if (!strcmp(name, "speed")) {
		if (!get_num(o, "speed", &x) || x < REPLAY_SPEED_MIN || x > REPLAY_SPEED_MAX) {
			server_call_fail(v->srv, c, "speed: a number from 0.1 to 10");
			goto out;
		}
		anchor(v, now_log(v));
		v->speed = x;
		if (v->playing && !v->seeking && v->have_next)
			arm(v, v->next.ts_ns);
	} else {
		server_call_fail(v->srv, c, "op: play, pause, seek or speed");
		goto out;
	}
	publish_status(v);
	answer = status_json(v);
	if (answer)
		server_call_done(v->srv, c, answer);
	else
		server_call_fail(v->srv, c, "out of memory");
	free(answer);
out:
	json_object_put(o);
	json_tokener_free(tok);
}

/* The capture's first and last packet times */
static int capture_span(struct view_replay *v)
{
	struct skin_capture_packet p;
	struct skin_error err;
	struct skin_capture *c = skin_capture_open(v->log, &err);
	int n;

	if (!c) {
		log_err("%s", err.text);
		return -EINVAL;
	}
	v->first_ns = v->last_ns = 0;
	while ((n = skin_capture_next(c, &p, &err)) > 0) {
		if (!v->first_ns)
			v->first_ns = p.ts_ns;
		v->last_ns = p.ts_ns;
	}
	skin_capture_close(c);
	if (n < 0)
		log_warn("%s (read up to there)", err.text);
	if (!v->first_ns) {
		log_err("%s: no packet", v->log);
		return -ENODATA;
	}
	return 0;
}

/* The log's first and last times, read once (no processing) */
static int log_span(struct view_replay *v)
{
	struct skin_canlog_record rec;
	struct skin_error err;
	struct skin_canlog *l;
	int n;

	if (v->n_boards)
		return capture_span(v);
	l = skin_canlog_open(v->log, &err);
	if (!l) {
		log_err("%s", err.text);
		return -EINVAL;
	}
	v->first_ns = v->last_ns = 0;
	while ((n = skin_canlog_next(l, &rec, &err)) != 0) {
		if (n < 0) {
			if (!err.line)
				break;
			continue;
		}
		if (!v->first_ns)
			v->first_ns = rec.ts_ns;
		v->last_ns = rec.ts_ns;
	}
	skin_canlog_close(l);
	if (!v->first_ns) {
		log_err("%s: no CAN frame", v->log);
		return -ENODATA;
	}
	return 0;
}

/* The model's parts on the view, with their layout (one configuration
 * for the replay's life: generation 1) */
static int view_parts(struct view_replay *v)
{
	const struct skin_model *m = v->r->m;
	struct view_part_desc *d = calloc(m->n_parts ? m->n_parts : 1, sizeof(*d));
	unsigned int i;
	int rc;

	if (!d)
		return -ENOMEM;
	for (i = 0; i < m->n_parts; i++)
		d[i] = (struct view_part_desc){ m->parts[i].name, m->parts[i].skin_part,
						m->parts[i].n_taxels };
	rc = view_set_parts(v->view, d, m->n_parts);
	free(d);
	if (rc)
		return rc;
	view_set_add_threshold(v->view, v->r->cfg->comp.add_threshold);
	return view_set_layout(v->view, m, NULL, NULL, 1);
}

int replay_new(struct view_replay **vp, sd_event *e, struct server *srv,
	       struct view *view, const char *config, const char *log,
	       char **boards, unsigned int n_boards)
{
	struct view_replay *v = calloc(1, sizeof(*v));
	char tmp[PATH_MAX];
	unsigned int i, k;
	int64_t id;
	int rc;

	if (!v)
		return -ENOMEM;
	v->e = e;
	v->srv = srv;
	v->view = view;
	v->speed = 1.0;
	v->boards = boards;
	v->n_boards = n_boards;
	snprintf(v->config, sizeof(v->config), "%s", config);
	snprintf(v->log, sizeof(v->log), "%s", log);
	snprintf(tmp, sizeof(tmp), "%s", log);
	snprintf(v->file, sizeof(v->file), "%s", basename(tmp));
	rc = log_span(v);
	if (rc)
		goto fail;
	rc = open_log(v);
	if (rc)
		goto fail;
	v->n_parts = v->r->m->n_parts;
	v->parts = calloc(v->n_parts ? v->n_parts : 1, sizeof(*v->parts));
	if (!v->parts) {
		rc = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < v->n_parts; i++) {
		const struct skin_part *mp = &v->r->m->parts[i];
		struct replay_part *p = &v->parts[i];
		unsigned int n = mp->n_taxels ? mp->n_taxels : 1;

		p->raw = calloc(n, 1);
		p->values = calloc(n, sizeof(*p->values));
		p->flags = calloc(n, 1);
		p->thresholds = calloc(n, sizeof(*p->thresholds));
		p->contact_taxels = calloc(n, sizeof(*p->contact_taxels));
		if (!p->raw || !p->values || !p->flags || !p->thresholds || !p->contact_taxels) {
			rc = -ENOMEM;
			goto fail;
		}
		memset(p->raw, v->r->cfg->board.no_load, mp->n_taxels);
		for (k = 0; k < mp->n_taxels; k++) {
			enum skin_taxel_kind kind = v->r->m->taxels[mp->first_taxel + k].kind;

			p->flags[k] = kind == SKIN_TAXEL_TACTILE ? SKIN_SHM_TAXEL_TACTILE :
				      kind == SKIN_TAXEL_THERMAL ? SKIN_SHM_TAXEL_THERMAL : 0;
		}
	}
	rc = view_parts(v);
	if (rc)
		goto fail;
	id = server_channel_add(srv, NULL, FOX_REPLAY);
	if (id < 0) {
		rc = (int)id;
		goto fail;
	}
	v->status_chan = (uint32_t)id;
	/* accuracy 1 us: 0 would be sd-event's default, 250 ms */
	rc = sd_event_add_time(e, &v->timer, CLOCK_MONOTONIC, 0, 1, on_timer, v);
	if (rc >= 0)
		rc = sd_event_add_time(e, &v->status_timer, CLOCK_MONOTONIC,
				       clock_monotonic_ns() / 1000, 10000, on_status, v);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(v->status_timer, SD_EVENT_ON);
	if (rc < 0)
		goto fail;
	anchor(v, v->first_ns);
	v->playing = false;
	play(v);
	log_info("replay: %s, %.3f s, %u parts: playing", v->file,
		 (double)(v->last_ns - v->first_ns) / 1e9, v->n_parts);
	*vp = v;
	return 0;
fail:
	replay_free(v);
	return rc;
}

void replay_free(struct view_replay *v)
{
	unsigned int i;

	if (!v)
		return;
	sd_event_source_disable_unref(v->timer);
	sd_event_source_disable_unref(v->status_timer);
	for (i = 0; v->parts && i < v->n_parts; i++) {
		struct replay_part *p = &v->parts[i];

		free(p->raw);
		free(p->values);
		free(p->flags);
		free(p->thresholds);
		free(p->contacts);
		free(p->contact_taxels);
	}
	free(v->parts);
	skin_replay_close(v->r);
	free(v);
}
