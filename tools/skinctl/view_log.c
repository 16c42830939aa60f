// SPDX-License-Identifier: GPL-2.0
/*
 * view_log.c - skinctl view's frames from a candump log, processed as
 * `skinctl process` does (lib/replay): the part's Nth output sample, then,
 * live, the log at its own pace (view_source.h)
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <skin/proc.h>

#include "skin_clock.h"
#include "skinctl.h"
#include "view_source.h"

struct view_log {
	struct view_source s;
	const struct view_source_opts *o;
	struct skin_replay *rp;
	uint64_t outputs;		/* output samples of the part so far */
	uint64_t t0_log;		/* live playback: log time at t0_wall */
	double t0_wall;
	bool playing;			/* live: the first frame was drawn */
	bool ended;
	FILE *msgs;			/* live: the replay's messages wait */
	char *msg_text;
	size_t msg_len;
};

static struct view_log *of(struct view_source *s)
{
	return (struct view_log *)s;
}

static double wall_s(void)
{
	return (double)clock_monotonic_ns() / 1e9;
}

static void frame_from_proc(struct view_log *l, const struct skin_replay_sample *smp)
{
	struct view_source *s = &l->s;
	const struct skin_contact *c;
	const double *v = skin_proc_values(l->rp->p, s->part);
	const uint8_t *t = skin_proc_touched(l->rp->p, s->part);
	unsigned int n = skin_proc_contacts(l->rp->p, s->part, &c);
	unsigned int i, k, used = 0;

	memcpy(s->values, v, s->n * sizeof(*v));
	memcpy(s->touched, t, s->n);
	s->frame.n_contacts = 0;
	for (i = 0; i < n; i++) {
		struct view_contact *vc = &s->contacts[s->frame.n_contacts];

		/* contacts are disjoint sets of the part's taxels */
		if (used + c[i].r.n_taxels > s->n || s->frame.n_contacts >= s->max_contacts)
			break;
		vc->id = c[i].r.id;
		vc->pressure = c[i].r.pressure;
		vc->n_taxels = c[i].r.n_taxels;
		vc->taxels = &s->ctaxels[used];
		for (k = 0; k < c[i].r.n_taxels; k++)
			s->ctaxels[used++] = c[i].taxels[k];
		s->frame.n_contacts++;
	}
	s->frame.sample = l->outputs;
	s->frame.time_s = smp->ts_ns / 1e9;
	snprintf(s->state, sizeof(s->state), "running");
	s->have_frame = true;
}

/*
 * Process the log up to the part's output sample @upto (0: to the end;
 * with @until_ns, up to the first output sample at or after that log
 * time).  1 when the frame changed, 0 when not, -1 on error.
 */
static int advance(struct view_log *l, uint64_t upto, uint64_t until_ns)
{
	struct view_source *s = &l->s;
	struct skin_replay_sample smp;
	int n, changed = 0;

	while (!l->ended && (!upto || l->outputs < upto)) {
		n = skin_replay_next(l->rp, &smp);
		if (n < 0)
			return -1;
		if (n == 0) {
			l->ended = true;
			changed = 1;	/* the status line says so */
			break;
		}
		if (!smp.output || smp.part != s->part)
			continue;
		l->outputs++;
		frame_from_proc(l, &smp);
		changed = 1;
		if (until_ns && smp.ts_ns >= until_ns)
			break;
	}
	if (l->ended) {
		snprintf(s->state, sizeof(s->state), "end of log");
		if (!s->have_frame) {
			fprintf(stderr, "%s: %s has no output sample of part %s (%" PRIu64
				" samples, %u parts calibrated)\n", s->who, l->rp->log,
				s->frame.part, l->rp->published, l->rp->calibrated);
			return -1;
		}
	}
	return changed;
}

static int log_first(struct view_source *s, uint64_t sample, bool still)
{
	struct view_log *l = of(s);

	/* still: the sample asked for, or the last; live: from it, or the
	 * first */
	if (advance(l, still ? sample : sample ? sample : 1, 0) < 0)
		return -1;
	if (sample && l->outputs < sample) {
		fprintf(stderr, "%s: --sample %" PRIu64 ": the log has %" PRIu64
			" output samples of part %s\n", s->who, sample, l->outputs,
			l->o->part);
		return -1;
	}
	l->t0_log = (uint64_t)llround(s->frame.time_s * 1e9);
	return 0;
}

static int log_update(struct view_source *s)
{
	struct view_log *l = of(s);

	/* the sample asked for first, then the log's pace */
	if (!l->playing) {
		l->playing = true;
		return 0;
	}
	return advance(l, 0, l->t0_log + (uint64_t)((wall_s() - l->t0_wall) * 1e9));
}

static void log_set_live(struct view_source *s, bool live)
{
	struct view_log *l = of(s);

	s->live = live;
	if (live) {
		/* the log's messages wait until the screen is ours again */
		l->msgs = open_memstream(&l->msg_text, &l->msg_len);
		if (l->msgs)
			l->rp->msg = l->msgs;
		l->t0_wall = wall_s();
		return;
	}
	if (l->msgs) {
		l->rp->msg = stderr;
		if (!fclose(l->msgs))
			fputs(l->msg_text, stderr);
		free(l->msg_text);
		l->msgs = NULL;
		l->msg_text = NULL;
	}
}

static bool log_rejected(const struct view_source *s)
{
	return ((const struct view_log *)s)->rp->rejected != 0;
}

static void log_close(struct view_source *s)
{
	struct view_log *l = of(s);

	if (!l)
		return;
	skin_replay_close(l->rp);
	view_source_frame_free(s);
	free(l);
}

static const struct view_source_ops log_ops = {
	.first = log_first,
	.update = log_update,
	.set_live = log_set_live,
	.rejected = log_rejected,
	.close = log_close,
};

struct view_source *view_log_open(const struct view_source_opts *o)
{
	struct view_log *l = calloc(1, sizeof(*l));
	struct view_source *s;
	int part;

	if (!l) {
		fprintf(stderr, "%s: out of memory\n", o->who);
		return NULL;
	}
	s = &l->s;
	s->ops = &log_ops;
	s->who = o->who;
	l->o = o;
	l->rp = skin_replay_open(&o->replay);
	if (!l->rp)
		goto fail;
	s->m = l->rp->m;
	part = skin_replay_part_find(s->m, o->part);
	if (part < 0) {
		fprintf(stderr, "%s: no part '%s' in %s\n", s->who, o->part, o->config);
		goto fail;
	}
	s->part = (unsigned int)part;
	s->n = s->m->parts[s->part].n_taxels;
	snprintf(s->source_text, sizeof(s->source_text), "log %s", o->replay.log);
	if (view_source_frame_alloc(s))
		goto fail;
	return s;
fail:
	log_close(s);
	return NULL;
}
