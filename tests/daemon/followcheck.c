// SPDX-License-Identifier: GPL-2.0
/*
 * followcheck - a follower of skind (skin/follow.h) that says what it
 * sees, for the daemon layer to compare with skind's socket
 *
 *	followcheck SOCKET SECONDS [PART [raw]]
 *
 * Polls the follower as its header says and prints, flushed at once:
 *
 *	attached pid P generation G instance I parts NAME,NAME...
 *	detached ECONNRESET|ESTALE|ETIMEDOUT
 *	sample PART SAMPLES FRAME_TS_NS PUBLISH_NS      (every SAMPLE)
 *	state PART SAMPLES state STATE attached N       (every STATE)
 *
 * and for PART, after its sample line, the copy as skind's socket would
 * print the same publication (docs/PROTOCOL.md), so that a test compares
 * the lines of equal SAMPLES:
 *
 *	taxels PART SAMPLES FRAME_TS_NS PUBLISH_NS (V0 ... Vn-1) (TOUCHED ...)
 *	contacts PART SAMPLES (TAXEL ...) (TAXEL ...) ...
 *
 * and with "raw", the rest of the publication (skin-view's PartState
 * carries it all; the thresholds without add_threshold, %.9g):
 *
 *	raw PART SAMPLES FRAME_TS_NS (R0 ... Rn-1)
 *	flags PART SAMPLES (F0 ... Fn-1)
 *	baselines PART SAMPLES (B0 ... Bn-1)           (when published)
 *	thresholds PART SAMPLES (T0 ... Tn-1)          (when published)
 *
 * "end samples N" after SECONDS or at SIGTERM.  What breaks the header's contract (an
 * event out of order, a SAMPLE with no copy, a SAMPLE whose sample count
 * did not move since the last within one object, a STATE whose did)
 * prints "error WHAT" and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <skin/follow.h>

#include "skin_clock.h"

struct watch {
	const char *part;		/* printed in full, or NULL */
	bool raw;			/* ... with raw, flags, baselines */
	bool attached;
	uint64_t *last;			/* per part: samples last seen */
	uint64_t instance;		/* of the object @last is about */
	unsigned int n_parts;
	unsigned long samples;
	bool failed;
};

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	return (double)clock_monotonic_ns() / 1e9;
}

static void fail(struct watch *w, const char *what)
{
	printf("error %s\n", what);
	w->failed = true;
}

static const char *reason_name(int reason)
{
	switch (reason) {
	case -ECONNRESET:
		return "ECONNRESET";
	case -ESTALE:
		return "ESTALE";
	case -ETIMEDOUT:
		return "ETIMEDOUT";
	default:
		return "other";
	}
}

static void print_attached(struct watch *w, const struct skin_shm_map *m)
{
	unsigned int i, n = skin_shm_n_parts(m);

	/* the same object after a stall: its samples go on from where
	 * they were, none is delivered again */
	if (!w->last || m->hdr->instance != w->instance || n != w->n_parts) {
		free(w->last);
		w->last = calloc(n ? n : 1, sizeof(*w->last));
		if (!w->last) {
			fail(w, "out of memory");
			return;
		}
		w->instance = m->hdr->instance;
		w->n_parts = n;
	}
	printf("attached pid %u generation %llu instance %016llx parts ",
	       m->hdr->pid, (unsigned long long)m->hdr->generation,
	       (unsigned long long)m->hdr->instance);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? "," : "", skin_shm_part(m, i)->name);
	printf("\n");
}

static void print_doubles(const char *what, const char *part, uint64_t samples,
			  const double *v, unsigned int n)
{
	unsigned int i;

	if (!v)
		return;
	printf("%s %s %llu (", what, part, (unsigned long long)samples);
	for (i = 0; i < n; i++)
		printf(i ? " %.9g" : "%.9g", v[i]);
	printf(")\n");
}

/* The rest of the publication: raw values, flags, baselines, thresholds */
static void print_rest(const struct skin_shm_map *m, unsigned int part,
		       const void *block)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);
	const struct skin_shm_part *h = skin_shm_head(block);
	const uint8_t *raw = skin_shm_raw(m, part, block);
	const uint8_t *fl = skin_shm_flags(m, part, block);
	unsigned int i;

	printf("raw %s %llu %llu (", d->name, (unsigned long long)h->samples,
	       (unsigned long long)h->frame_ts_ns);
	for (i = 0; i < d->n_taxels; i++)
		printf(i ? " %u" : "%u", raw[i]);
	printf(")\nflags %s %llu (", d->name, (unsigned long long)h->samples);
	for (i = 0; i < d->n_taxels; i++)
		printf(i ? " %u" : "%u", fl[i]);
	printf(")\n");
	print_doubles("baselines", d->name, h->samples,
		      skin_shm_baselines(m, part, block), d->n_taxels);
	print_doubles("thresholds", d->name, h->samples,
		      skin_shm_thresholds(m, part, block), d->n_taxels);
}

/* The copy in the words of skind's `taxels` and `contacts` lines. */
static void print_copy(struct watch *w, const struct skin_shm_map *m,
		       unsigned int part, const void *block)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);
	const struct skin_shm_part *h = skin_shm_head(block);
	const float *v = skin_shm_values(m, part, block);
	const uint8_t *fl = skin_shm_flags(m, part, block);
	const uint32_t *ct = skin_shm_contact_taxels(m, part, block);
	unsigned int i, k, t;
	bool first = true;

	printf("taxels %s %llu %llu %llu (", d->name, (unsigned long long)h->samples,
	       (unsigned long long)h->frame_ts_ns, (unsigned long long)h->publish_ns);
	for (i = 0; i < d->n_taxels; i++)
		printf(i ? " %.4g" : "%.4g", (double)v[i]);
	printf(") (");
	for (i = 0; i < d->n_taxels; i++)
		if (fl[i] & SKIN_SHM_TAXEL_TOUCHED) {
			printf(first ? "%u" : " %u", i);
			first = false;
		}
	printf(")\n");
	if (h->n_contacts > d->max_contacts || h->n_contact_taxels > d->n_taxels) {
		fail(w, "contact counts out of bounds");
		return;
	}
	printf("contacts %s %llu", d->name, (unsigned long long)h->samples);
	for (k = 0; k < h->n_contacts; k++) {
		const struct skin_contact_record *c = skin_shm_contact(m, part, block, k);

		if (c->first_taxel > h->n_contact_taxels ||
		    c->n_taxels > h->n_contact_taxels - c->first_taxel) {
			printf("\n");
			fail(w, "contact taxels out of bounds");
			return;
		}
		printf(" (");
		for (t = 0; t < c->n_taxels; t++)
			printf(t ? " %u" : "%u", ct[c->first_taxel + t]);
		printf(")");
	}
	printf("\n");
}

/* The head of a SAMPLE's or STATE's copy, or NULL (said) when the event
 * came detached, without its copy, or torn. */
static const struct skin_shm_part *part_copy(struct watch *w,
					     const struct skin_follow_sample *s,
					     const char *ev)
{
	char why[80];

	if (!w->attached || !s->map || !s->block ||
	    s->part >= skin_shm_n_parts(s->map)) {
		snprintf(why, sizeof(why), "%s while detached, or without its copy", ev);
		fail(w, why);
		return NULL;
	}
	if (skin_shm_head(s->block)->seq & 1) {
		snprintf(why, sizeof(why), "%s with a torn copy", ev);
		fail(w, why);
		return NULL;
	}
	return skin_shm_head(s->block);
}

static void on_event(struct skin_follow *f, enum skin_follow_event ev,
		     const struct skin_follow_sample *s, void *data)
{
	struct watch *w = data;
	const struct skin_shm_part *h;

	switch (ev) {
	case SKIN_FOLLOW_ATTACHED:
		if (w->attached || !s->map || s->map != skin_follow_map(f))
			fail(w, "ATTACHED while attached, or without its map");
		w->attached = true;
		print_attached(w, s->map);
		break;
	case SKIN_FOLLOW_DETACHED:
		if (!w->attached || s->map || skin_follow_map(f))
			fail(w, "DETACHED while detached, or with a map");
		w->attached = false;
		printf("detached %s\n", reason_name(s->reason));
		break;
	case SKIN_FOLLOW_STATE:
		h = part_copy(w, s, "STATE");
		if (!h)
			break;
		if (h->samples != w->last[s->part])
			fail(w, "a STATE whose sample count moved");
		printf("state %s %llu state 0x%x attached %u\n",
		       skin_shm_part(s->map, s->part)->name,
		       (unsigned long long)h->samples, h->state,
		       h->patches_attached);
		break;
	case SKIN_FOLLOW_SAMPLE:
		h = part_copy(w, s, "SAMPLE");
		if (!h)
			break;
		if (!h->samples || h->samples <= w->last[s->part])
			fail(w, "a SAMPLE that holds no new sample");
		w->last[s->part] = h->samples;
		w->samples++;
		printf("sample %s %llu %llu %llu\n", skin_shm_part(s->map, s->part)->name,
		       (unsigned long long)h->samples, (unsigned long long)h->frame_ts_ns,
		       (unsigned long long)h->publish_ns);
		if (w->part && !strcmp(w->part, skin_shm_part(s->map, s->part)->name)) {
			print_copy(w, s->map, s->part, s->block);
			if (w->raw)
				print_rest(s->map, s->part, s->block);
		}
		break;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };	/* no SA_RESTART */
	struct skin_follow_options o = { 0 };
	struct watch w = { 0 };
	struct skin_follow *f;
	double end;
	int r;

	if (argc < 3 || argc > 5 || (argc == 5 && strcmp(argv[4], "raw"))) {
		fprintf(stderr, "usage: followcheck SOCKET SECONDS [PART [raw]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	o.socket = argv[1];
	o.retry_ms = 100;
	w.part = argc > 3 ? argv[3] : NULL;
	w.raw = argc > 4;
	r = skin_follow_new(&f, &o);
	if (r < 0) {
		fprintf(stderr, "followcheck: %s\n", strerror(-r));
		return 1;
	}
	end = now_s() + atof(argv[2]);
	while (now_s() < end && !w.failed && !stop) {
		struct pollfd p = { skin_follow_fd(f), POLLIN, 0 };
		int t = skin_follow_timeout_ms(f);

		if (t < 0 || t > 100)
			t = 100;	/* SECONDS is kept */
		if (poll(&p, 1, t) < 0 && errno != EINTR)
			break;
		r = skin_follow_dispatch(f, on_event, &w);
		if (r < 0) {
			printf("error dispatch %s\n", strerror(-r));
			w.failed = true;
		}
	}
	printf("end samples %lu\n", w.samples);
	skin_follow_free(f);
	free(w.last);
	return w.failed ? 1 : 0;
}
