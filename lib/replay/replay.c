// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - skind's processing on a recorded CAN log (skin_replay.h)
 *
 * Every frame goes to the patch whose bus (the log's interface name) and
 * board address it carries, through the driver's receive sequence,
 * skin_asm_rx() (driver/skin_assemble.c), into a ring of the patch's: a
 * repeated half publishes the pending sample first, a complete sample is
 * published at once, and the driver's timer, 1.5 board periods after a
 * sample's first half, is judged on the log's timestamps (and fires at
 * the end of the log).  Published samples are copied from the rings into
 * a short queue (one log line publishes at most a timeout per patch and a
 * sample per patch of its bus) and are fed to lib/proc one per
 * skin_replay_next(), so the caller sees each sample's outputs before
 * the next one overwrites them.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/capture.h>
#include <skin/ethrx.h>

#include "skin_core.h"
#include "skin_replay.h"

#define ETH_UDP_PORT	12345	/* the boards' (skin-eth's default) */

struct patch_rx {
	struct skin_patch_config cfg;
	struct skin_asm a;
	struct skin_ring ring;		/* two frames: taken at once */
	void *ring_mem;
	const char *bus;
	uint64_t deadline;		/* when the driver's timer fires; 0: not armed */
	uint64_t timeout_ns;
	uint64_t taken;			/* the ring's frames queued so far */
	uint64_t last_ts;
};

/* A ring's memory: its control page, then its frames. */
#define RING_LOG2	SKIN_RING_MIN_LOG2
#define RING_OFFSET	((sizeof(struct skin_ring_ctrl) + 63) & ~(size_t)63)

struct published {
	unsigned int patch;
	struct skin_frame f;
};

int skin_replay_part_find(const struct skin_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->n_parts; i++)
		if (!strcmp(m->parts[i].name, name))
			return (int)i;
	return -1;
}

/* Triangles the driver would be told to expect: those with any taxel. */
static uint16_t patch_triangles(const struct skin_model *m, unsigned int patch)
{
	const struct skin_patch *mp = &m->patches[patch];
	const struct skin_part *sp = &m->parts[mp->part];
	unsigned int k, base = mp->order * SKIN_VALUES_PER_PATCH;
	uint16_t tri = 0;

	for (k = 0; k < SKIN_VALUES_PER_PATCH && base + k < sp->n_taxels; k++)
		if (m->taxels[sp->first_taxel + base + k].kind != SKIN_TAXEL_ABSENT)
			tri |= (uint16_t)(1u << (k / SKIN_CHANNELS_PER_TRIANGLE));
	return tri;
}

static void report_events(struct skin_replay *r, unsigned int part, int ev)
{
	const char *name = r->m->parts[part].name;

	if (ev & SKIN_PROC_EV_CALIBRATED) {
		fprintf(r->msg, "%s: part %s calibrated\n", r->who, name);
		r->calibrated++;
	}
	if (ev & SKIN_PROC_EV_CAL_FAILED)
		fprintf(r->msg, "%s: calibration refused: %s\n", r->who,
			skin_proc_reason(r->p, part));
	if (ev & SKIN_PROC_EV_FAULTS) {
		struct skin_taxel_fault f[8];
		int n = skin_proc_fault_list(r->p, (int)part, f, 8), i;

		fprintf(r->msg, "%s: part %s: %d faulty taxel(s)", r->who, name, n);
		for (i = 0; i < n && i < 8; i++) {
			char names[80];

			skin_fault_names(f[i].flags, names, sizeof(names));
			fprintf(r->msg, "%s %u (%s)", i ? "," : ":", f[i].taxel, names);
		}
		fprintf(r->msg, "%s\n", n > 8 ? ", ..." : "");
	}
}

/* What patch i's ring received since the last look: queue it for
 * skin_replay_next(). */
static void take(struct skin_replay *r, unsigned int i)
{
	struct patch_rx *rx = &r->rx[i];

	while (rx->taken < rx->ring.head) {
		struct published *q = &r->queue[r->q_head + r->q_len++];

		q->patch = i;
		q->f = rx->ring.slots[++rx->taken & rx->ring.mask];
		r->published++;
	}
}

/* The driver's 1.5-period timers that expire before @now, in order. */
static void expire(struct skin_replay *r, uint64_t now)
{
	for (;;) {
		unsigned int i, best = UINT32_MAX;

		for (i = 0; i < r->m->n_patches; i++)
			if (r->rx[i].deadline && r->rx[i].deadline <= now &&
			    (best == UINT32_MAX ||
			     r->rx[i].deadline < r->rx[best].deadline))
				best = i;
		if (best == UINT32_MAX)
			return;
		r->rx[best].deadline = 0;
		if (skin_asm_timeout(&r->rx[best].a, &r->rx[best].ring))
			take(r, best);
	}
}

/* skin_can_rx() for patch i, at the log's time. */
static void rx(struct skin_replay *r, unsigned int i,
	       const struct can_frame *cf, uint64_t ts)
{
	struct patch_rx *p = &r->rx[i];
	unsigned int todo = skin_asm_rx(&p->a, &p->ring, cf, false, ts);

	if (todo & SKIN_ASM_ARM)
		p->deadline = ts + p->timeout_ns;
	if (todo & SKIN_ASM_WAKE)
		take(r, i);
}

/* One log record: 0, or 1 when it is refused (err says why). */
static int dispatch(struct skin_replay *r,
		    const struct skin_canlog_record *rec, struct skin_error *err)
{
	const struct can_frame *cf = (const struct can_frame *)&rec->frame;
	unsigned int i, hits = 0;

	expire(r, rec->ts_ns);
	for (i = 0; i < r->m->n_patches; i++) {
		struct patch_rx *p = &r->rx[i];

		if (strcmp(p->bus, rec->ifname))
			continue;
		if (rec->ts_ns < p->last_ts) {
			snprintf(err->text, sizeof(err->text),
				 "%s:%u: timestamp goes back in time on %s: expected the log's order",
				 r->log, rec->line, rec->ifname);
			return 1;
		}
		p->last_ts = rec->ts_ns;
		/* the driver's filters: its board's data frames and error
		 * frames (which only count) */
		if (cf->can_id & CAN_ERR_FLAG) {
			hits++;
			rx(r, i, cf, rec->ts_ns);
			continue;
		}
		if (rec->is_fd || (cf->can_id & CAN_EFF_FLAG))
			continue;
		if ((cf->can_id & SKIN_DATA_MASK) !=
		    (canid_t)SKIN_DATA_ID(p->cfg.cls, p->cfg.address, 0))
			continue;
		hits++;
		rx(r, i, cf, rec->ts_ns);
	}
	if (!hits)
		r->ignored++;
	return 0;
}

/* A frame an ETH board carried: a record of its CAN port's bus, fed
 * after the datagram's earlier ones (one at a time, as a log's lines) */
static void on_eth_frame(void *ctx, const struct skin_eth_board *b,
			 unsigned int patch, const struct skin_eth_can *f)
{
	struct skin_replay *r = ctx;
	struct can_frame cf = { .can_id = f->id, .len = f->len };

	if (r->pend_len == r->pend_cap) {
		unsigned int cap = r->pend_cap ? 2 * r->pend_cap : 64;
		struct skin_canlog_record *np = realloc(r->pend, cap * sizeof(*np));

		if (!np) {
			r->rejected++;	/* said at the end: the counts */
			return;
		}
		r->pend = np;
		r->pend_cap = cap;
	}
	memcpy(cf.data, f->data, f->len);
	skin_canlog_record_classic(&r->pend[r->pend_len], r->cur_ts, b->ifname[patch], &cf);
	r->pend[r->pend_len++].line = (unsigned int)r->packets;
}

/* The capture's next frame of a board, as skin-eth --replay would log it:
 * 1, 0 at its end, -1 (err.line 0: cannot read on) */
static int capture_next(struct skin_replay *r, struct skin_canlog_record *rec,
			struct skin_error *err)
{
	while (r->pend_head == r->pend_len) {
		struct skin_capture_packet p;
		struct skin_udp u;
		int n;

		r->pend_head = r->pend_len = 0;
		n = skin_capture_next(r->cap, &p, err);
		if (n <= 0) {
			err->line = 0;
			return n;
		}
		r->packets++;
		if (skin_udp_decode(p.linktype, p.data, p.caplen, &u) != SKIN_CAP_UDP ||
		    (u.sport != r->eth_udp_port && u.dport != r->eth_udp_port))
			continue;
		r->cur_ts = p.ts_ns;
		/* foreign sources (the head PC's commands too) are counted by
		 * the receiver and carry nothing */
		skin_eth_rx_datagram(r->eth, u.src, u.payload, u.len, on_eth_frame, r);
	}
	*rec = r->pend[r->pend_head++];
	return 1;
}

/* Read the log until something is published or it ends. */
static void refill(struct skin_replay *r)
{
	struct skin_canlog_record rec;
	struct skin_error err;
	int n;

	r->q_head = 0;
	while (!r->q_len && !r->ended) {
		n = r->cap ? capture_next(r, &rec, &err) : skin_canlog_next(r->l, &rec, &err);
		if (n == 0 || (n < 0 && !err.line)) {
			if (n < 0) {	/* cannot read on */
				fprintf(r->msg, "%s: %s\n", r->who, err.text);
				r->rejected++;
			}
			/* the end of the log: the timers of what is
			 * pending expire */
			expire(r, UINT64_MAX);
			r->ended = true;
		} else if (n < 0 || dispatch(r, &rec, &err)) {
			fprintf(r->msg, "%s: %s\n", r->who, err.text);
			r->rejected++;
		}
	}
}

/* Cycling: the next part of the current cycle, else samples fed (each
 * only its patch's newest) until the log's time reaches the next cycle.
 * 1 with @s a part's cycle, 0 at the end, or -errno. */
static int next_cycle(struct skin_replay *r, struct skin_replay_sample *s)
{
	struct published *q;
	int ev;

	while (r->cycle_part >= r->m->n_parts) {
		if (!r->q_len)
			refill(r);
		if (!r->q_len)
			return 0;
		q = &r->queue[r->q_head];
		if (!r->next_cycle_ns)
			r->next_cycle_ns = q->f.timestamp_ns + r->cycle_ns;
		if (q->f.timestamp_ns >= r->next_cycle_ns) {
			r->cycle_ts = r->next_cycle_ns;
			r->next_cycle_ns += r->cycle_ns;
			r->cycles++;
			r->cycle_part = 0;
			break;
		}
		r->q_head++;
		r->q_len--;
		ev = skin_proc_feed(r->p, q->patch, &q->f);
		if (ev < 0)
			return ev;
		if (ev)
			report_events(r, r->m->patches[q->patch].part, ev);
	}
	memset(s, 0, sizeof(*s));
	s->patch = UINT_MAX;
	s->part = r->cycle_part++;
	s->ts_ns = r->cycle_ts;
	s->seq = r->cycles;
	s->cycle = true;
	s->ev = skin_proc_cycle(r->p, s->part, r->cycle_ts);
	return s->ev < 0 ? s->ev : 1;
}

/* The next published sample, fed: 1, 0 at the end, or -errno. */
static int next_sample(struct skin_replay *r, struct skin_replay_sample *s)
{
	struct published *q;

	if (!r->q_len)
		refill(r);
	if (!r->q_len)
		return 0;
	q = &r->queue[r->q_head++];
	r->q_len--;
	memset(s, 0, sizeof(*s));
	s->patch = q->patch;
	s->part = r->m->patches[q->patch].part;
	s->ts_ns = q->f.timestamp_ns;
	s->seq = q->f.seq;
	s->values = q->f.values;
	s->ev = skin_proc_feed(r->p, q->patch, &q->f);
	return s->ev < 0 ? s->ev : 1;
}

int skin_replay_next(struct skin_replay *r, struct skin_replay_sample *s)
{
	int n = r->cycle_ns ? next_cycle(r, s) : next_sample(r, s);

	if (n < 0) {
		fprintf(r->msg, "%s: %s\n", r->who, strerror(-n));
		return n;
	}
	if (n == 0)
		return 0;
	if (s->ev)
		report_events(r, s->part, s->ev);
	/* the last calibration sample (or cycle) is no output */
	if (skin_proc_state(r->p, s->part) != SKIN_PROC_RUNNING ||
	    (s->ev & SKIN_PROC_EV_CALIBRATED))
		return 1;
	if (skin_proc_cluster(r->p, s->part) < 0) {
		fprintf(r->msg, "%s: cannot cluster part %s\n", r->who,
			r->m->parts[s->part].name);
		return -EINVAL;
	}
	s->output = true;
	return 1;
}

static int apply_sets(struct skin_replay *r, const struct skin_replay_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->n_sets; i++) {
		char name[64], why[256];
		const char *eq = strchr(o->sets[i], '=');

		if (!eq || eq == o->sets[i] ||
		    (size_t)(eq - o->sets[i]) >= sizeof(name)) {
			fprintf(r->msg, "%s: --set '%s': expected PARAM=VALUE\n",
				r->who, o->sets[i]);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
		if (skin_proc_set(r->p, name, eq + 1, why, sizeof(why))) {
			fprintf(r->msg, "%s: --set: %s\n", r->who, why);
			return -1;
		}
	}
	return 0;
}

static int setup_patches(struct skin_replay *r)
{
	unsigned int i;

	for (i = 0; i < r->m->n_patches; i++) {
		struct patch_rx *p = &r->rx[i];
		const struct skin_patch *mp = &r->m->patches[i];
		const struct skin_config_board *board;
		const char *why;

		skin_patch_config_default(&p->cfg);
		snprintf(p->cfg.ifname, sizeof(p->cfg.ifname), "%s",
			 mp->bus ? mp->bus : "");
		p->cfg.cls = SKIN_CLASS_DATA;
		p->cfg.address = (u8)mp->address;
		p->cfg.skin_part = (u8)r->m->parts[mp->part].skin_part;
		p->cfg.triangles = patch_triangles(r->m, i);
		board = skin_config_board_of(r->cfg, mp->bus, mp->address);
		p->cfg.period_ms = (u16)board->period_ms;
		p->cfg.no_load = (u8)board->no_load;
		why = skin_patch_config_check(&p->cfg);
		if (why) {
			fprintf(r->msg, "%s: patch %s:%d: %s\n", r->who,
				mp->bus ? mp->bus : "?", mp->address, why);
			return -1;
		}
		p->ring_mem = calloc(1, RING_OFFSET +
					(sizeof(struct skin_frame) << RING_LOG2));
		if (!p->ring_mem) {
			fprintf(r->msg, "%s: out of memory\n", r->who);
			return -1;
		}
		skin_ring_init(&p->ring, p->ring_mem, (u32)RING_OFFSET, RING_LOG2);
		skin_asm_init(&p->a, &p->cfg);
		p->bus = mp->bus ? mp->bus : "";
		p->timeout_ns = (uint64_t)p->cfg.period_ms * 1500000u;
	}
	return 0;
}

struct skin_replay *skin_replay_open(const struct skin_replay_opts *o)
{
	struct skin_replay *r = calloc(1, sizeof(*r));
	struct skin_error err;
	unsigned int n;

	if (!r) {
		fprintf(stderr, "%s: out of memory\n", o->who);
		return NULL;
	}
	r->who = o->who;
	r->log = o->log;
	r->msg = stderr;
	r->cfg = skin_config_load(o->config, &err);
	if (!r->cfg || !(r->m = skin_config_build_model(r->cfg, &err)))
		goto fail_err;
	if (o->compat)
		r->cfg->comp.compat = 1;
	if (o->cycle_ms && !r->cfg->comp.compat) {
		fprintf(r->msg, "%s: cycling is skinManager's clock: it goes with compat mode\n",
			r->who);
		goto fail;
	}
	/* samples of a patch come every board period, cycles every
	 * cycle_ms: the calibration counts them in that unit */
	r->cfg->comp.period_ms = o->cycle_ms ? o->cycle_ms : r->cfg->board.period_ms;
	r->cycle_ns = (uint64_t)o->cycle_ms * 1000000u;
	r->cycle_part = r->m->n_parts;	/* no cycle due */
	r->p = skin_proc_new_opts(r->m, &r->cfg->comp,
				  &(struct skin_proc_opts){ .cycle = o->cycle_ms != 0 },
				  &err);
	if (!r->p)
		goto fail_err;
	if (apply_sets(r, o))
		goto fail;
	n = r->m->n_patches ? r->m->n_patches : 1;
	r->rx = calloc(n, sizeof(*r->rx));
	r->q_cap = 3 * n + 1;
	r->queue = calloc(r->q_cap, sizeof(*r->queue));
	if (!r->rx || !r->queue) {
		fprintf(r->msg, "%s: out of memory\n", r->who);
		goto fail;
	}
	if (setup_patches(r))
		goto fail;
	if (o->calibration) {
		if (skin_proc_restore(r->p, o->calibration, &err))
			goto fail_err;
	} else {
		skin_proc_calibrate(r->p, -1);
	}
	if (o->n_eth_boards) {
		unsigned int i;

		r->eth_udp_port = o->eth_udp_port ? o->eth_udp_port : ETH_UDP_PORT;
		r->eth = skin_eth_rx_new();
		if (!r->eth) {
			fprintf(r->msg, "%s: out of memory\n", r->who);
			goto fail;
		}
		for (i = 0; i < o->n_eth_boards; i++)
			if (skin_eth_rx_add_board(r->eth, o->eth_boards[i], &err))
				goto fail_err;
		r->cap = skin_capture_open(o->log, &err);
		if (!r->cap)
			goto fail_err;
	} else {
		r->l = skin_canlog_open(o->log, &err);
		if (!r->l)
			goto fail_err;
	}
	return r;
fail_err:
	fprintf(r->msg, "%s: %s\n", r->who, err.text);
fail:
	skin_replay_close(r);
	return NULL;
}

/* A counter of the driver's, over every patch. */
static uint64_t stat_sum(const struct skin_replay *r, unsigned int stat)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < r->m->n_patches; i++)
		n += r->rx[i].ring.ctrl->stats[stat];
	return n;
}

void skin_replay_summary(const struct skin_replay *r)
{
	if (r->cycle_ns)
		fprintf(r->msg, "%s: %" PRIu64 " cycles of %" PRIu64 " ms\n", r->who,
			r->cycles, r->cycle_ns / 1000000u);
	fprintf(r->msg, "%s: %" PRIu64 " samples (%" PRIu64 " timed out, %" PRIu64
		" on a repeated half), %" PRIu64 " frames for no patch, %" PRIu64
		" bad lines\n", r->who, r->published,
		stat_sum(r, SKIN_STAT_TIMEOUTS), stat_sum(r, SKIN_STAT_REPEATS),
		r->ignored, r->rejected);
}

void skin_replay_close(struct skin_replay *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; r->rx && i < r->m->n_patches; i++)
		free(r->rx[i].ring_mem);
	if (r->l)
		skin_canlog_close(r->l);
	if (r->cap)
		skin_capture_close(r->cap);
	skin_eth_rx_free(r->eth);
	free(r->pend);
	skin_proc_free(r->p);
	skin_model_free(r->m);
	skin_config_free(r->cfg);
	free(r->rx);
	free(r->queue);
	free(r);
}
