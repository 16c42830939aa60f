// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline.c - from a ring frame to the part's shared memory
 *
 * pipeline_frame() is the real-time path: the processing library
 * (skin/proc.h) takes the board's sample ([RT] calls only), the part's
 * contacts are rebuilt, and the part's shm block is rewritten under its
 * seqlock.  It allocates nothing, makes no system call (the clock is the
 * vDSO's) and logs nothing: what needs I/O (saving a calibration, the
 * journal) is left in p->events for on_events(), a deferred source of
 * lower priority, which leaves what clients are to be told for the
 * fan-out.
 *
 * A part is published on every frame of any of its patches rather than
 * once per period: the newest board sample reaches readers at once, and a
 * part's contacts may span its boards.  Clustering is O(touched taxels),
 * so a part of four boards costs little more than four of one.
 *
 * In compat mode skind runs on skinManager's clock instead
 * (docs/PROCESSING.md, "skinManager's clock"): a frame is only kept by
 * lib/proc, and a timer at [skind] period_ms (on_cycle(), real-time
 * priority, the same rules) processes every part on its boards' newest
 * samples and publishes it, as skinManager's thread reads and writes
 * each part once per period.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <skin/proc.h>

#include "skin_clock.h"
#include "fanout.h"
#include "log.h"
#include "pipeline.h"
#include "shm_write.h"

/*
 * The period_ms lib/proc is given.  Per feed it counts time in samples of
 * a patch, which come once per board period; [skind] period_ms is
 * skinManager's thread period (20 ms), so with boards at 50 ms a 5 s
 * calibration would take 12.5 s (skinctl process does the same).  In
 * compat mode lib/proc cycles at skinManager's period, which counts its
 * calibration.
 */
static unsigned int proc_period_ms(const struct skind_skin *s, bool compat)
{
	return compat ? s->config->comp.period_ms : s->config->board.period_ms;
}

int pipeline_init(struct skind_skin *s, struct skin_error *err)
{
	const struct skin_proc_opts opts = { .cycle = true };
	struct skin_config_comp comp = s->config->comp;
	unsigned int i, k;

	comp.period_ms = proc_period_ms(s, comp.compat);
	s->proc = skin_proc_new_opts(s->model, &comp, &opts, err);
	if (!s->proc) {
		/* lib/proc knows no file: what it refuses, the configuration
		 * described */
		if (!strcmp(err->file, "(processing)"))
			skin_error_set(err, s->config->path, 0, 0, "%s",
				       err->what);
		return -1;
	}
	for (i = 0; i < s->n_parts; i++) {
		/* lib/proc's array, there for the processor's life */
		s->parts[i].proc_baselines = skin_proc_baselines(s->proc, i);
		for (k = 0; k < s->parts[i].n_patches; k++) {
			struct skind_patch *pt = &s->parts[i].patches[k];
			int mp = skin_proc_patch_find(s->proc, pt->ifname, pt->address);

			if (mp < 0 || s->model->patches[mp].part != i) {
				snprintf(err->text, sizeof(err->text),
					 "%s: part %s: patch %s:%d is not in the model",
					 s->config->path, s->parts[i].name,
					 pt->ifname, pt->address);
				return -1;
			}
			pt->model_patch = (unsigned int)mp;
		}
	}
	return 0;
}

void pipeline_free(struct skind_skin *s)
{
	s->cycle = sd_event_source_disable_unref(s->cycle);
	if (s->proc)
		skin_proc_free(s->proc);
	s->proc = NULL;
}

static uint32_t proc_state_bits(enum skin_proc_state st)
{
	switch (st) {
	case SKIN_PROC_RUNNING:
		return SKIN_SHM_PART_CALIBRATED;
	case SKIN_PROC_CALIBRATING:
		return SKIN_SHM_PART_CALIBRATING;
	default:
		return 0;
	}
}

/*
 * The part's touch thresholds and calibration baselines into its
 * snapshot, which the socket and shm read (protocol.c, shm_write.c): they
 * change only when a calibration is committed or a taxel recalibrates
 * itself, so they are copied then, not every sample.  [RT]: a loop over
 * the part's slots, no allocation.
 */
static void copy_thresholds(struct skind_part *p)
{
	const double *thr = skin_proc_thresholds(p->skin->proc, p->index);
	const double *cal = skin_proc_initial_baselines(p->skin->proc, p->index);
	unsigned int i;

	if (skin_proc_state(p->skin->proc, p->index) != SKIN_PROC_RUNNING)
		return;
	for (i = 0; i < p->n_taxels; i++) {
		bool tactile = p->flags[i] & SKIN_SHM_TAXEL_TACTILE;

		p->thr[i] = tactile ? thr[i] : 0;
		p->cal_baselines[i] = tactile ? cal[i] : 0;
	}
	p->thr_valid = true;
	p->thr_dirty = true;
}

/* The contacts of the last clustering, into the part's preallocated arrays. */
static void copy_contacts(struct skind_part *p)
{
	const double *values = skin_proc_values(p->skin->proc, p->index);
	bool flat = p->flat.x && p->flat.how == SKIN_FLATTEN_FLAT;
	unsigned int i, nt, n;

	n = skin_proc_shm_contacts(p->skin->proc, p->index, p->contacts,
				   SKIND_MAX_CONTACTS, p->contact_taxels,
				   p->n_taxels, &nt);
	if (n > SKIND_MAX_CONTACTS) {
		p->contacts_cut += n - SKIND_MAX_CONTACTS;
		n = SKIND_MAX_CONTACTS;
	}
	/* the part's own flattened layout only (shm.h): NaN for positions
	 * projected or unrolled.  Here, not at fan-out: shm publishes it
	 * with the contact, and it costs a loop over the contact's taxels
	 * (300 instructions a contact) */
	for (i = 0; i < n; i++) {
		struct skin_contact_record *o = &p->contacts[i];

		o->flat[0] = o->flat[1] = NAN;
		if (flat)
			skin_flatten_centroid(&p->flat, &p->contact_taxels[o->first_taxel],
					      o->n_taxels, values, o->flat);
	}
	p->n_contacts = n;
	p->n_contact_taxels = nt;
}

/* What lib/proc's feed or cycle @ev saw, for on_events() */
static void note_events(struct skind_part *p, int ev)
{
	if (ev <= 0)
		return;
	p->events |= (unsigned int)ev;
	/* [RT] cheap: a flag in sd-event, no system call */
	sd_event_source_set_enabled(p->d->events, SD_EVENT_ONESHOT);
	if (ev & (SKIN_PROC_EV_CALIBRATED | SKIN_PROC_EV_RECAL))
		copy_thresholds(p);
}

/*
 * The part's processed state into its snapshot: state bits, values,
 * flags (touched, faults), contacts; published to shm and the fan-out.
 * [RT]: two passes over the part's taxels, no allocation.
 */
static void publish(struct skind_part *p)
{
	struct skind_skin *s = p->skin;
	enum skin_proc_state st;
	const double *values;
	unsigned int i;

	st = skin_proc_state(s->proc, p->index);
	p->state = (p->state & ~(SKIN_SHM_PART_CALIBRATED | SKIN_SHM_PART_CALIBRATING)) |
		   proc_state_bits(st);
	values = skin_proc_values(s->proc, p->index);
	for (i = 0; i < p->n_taxels; i++)
		p->values[i] = (float)values[i];
	skin_proc_shm_flags(s->proc, p->index, p->flags);
	if (st == SKIN_PROC_RUNNING) {
		skin_proc_cluster(s->proc, p->index);
		copy_contacts(p);
	} else {
		p->n_contacts = 0;
		p->n_contact_taxels = 0;
	}
	p->samples++;
	p->publish_ns = clock_monotonic_ns();
	shm_publish_part(p);
	fanout_published(p);
}

/**
 * pipeline_frame() - one board sample, from the ring to shared memory
 * @pt: the patch it came from
 * @f: the frame
 *
 * [RT]: see the top of this file.  Published here, or in compat mode by
 * the part's next cycle (on_cycle()).
 */
void pipeline_frame(struct skind_patch *pt, const struct skin_frame *f)
{
	struct skind_part *p = pt->part;
	struct skind_skin *s = p->skin;
	unsigned int first = pt->order * SKIN_BOARD_VALUES, n;

	note_events(p, skin_proc_feed(s->proc, pt->model_patch, f));
	pt->frames++;
	pt->last_ts_ns = f->timestamp_ns;
	if (f->flags & SKIN_FRAME_PARTIAL) {
		pt->partial++;
		p->state |= SKIN_SHM_PART_PARTIAL;
	} else {
		p->state &= ~SKIN_SHM_PART_PARTIAL;
	}
	if (first < p->n_taxels) {
		n = p->n_taxels - first;
		if (n > SKIN_BOARD_VALUES)
			n = SKIN_BOARD_VALUES;
		memcpy(p->raw + first, f->values, n);
	}
	p->frame_ts_ns = f->timestamp_ns;
	if (s->cycle)
		return;		/* compat: on_cycle() publishes */
	publish(p);
}

/*
 * Compat mode, every [skind] period_ms: skinManager's cycle of every part
 * (skin_proc_cycle(): its boards' newest samples, processed whether new
 * or not, or its calibration's next sample), published with the newest
 * raw values, as skinManager writes each _comp port once per period.  A
 * part none of whose boards has sent anything is not published.  [RT]:
 * the sample path's work for every part, no allocation, no system call
 * (re-arming a timer is sd-event's bookkeeping).
 */
static int on_cycle(sd_event_source *src, uint64_t usec, void *data)
{
	struct skind_skin *s = data;
	const uint64_t period_us = (uint64_t)skin_proc_params(s->proc)->period_ms * 1000;
	const uint64_t now = clock_monotonic_ns();
	unsigned int i, k;

	for (i = 0; i < s->n_parts; i++) {
		struct skind_part *p = &s->parts[i];
		bool fed = false;

		for (k = 0; k < p->n_patches; k++)
			fed |= p->patches[k].frames > 0;
		if (!fed)
			continue;
		note_events(p, skin_proc_cycle(s->proc, i, now));
		publish(p);
	}
	/* the next period from this one's, not from now: no drift; one
	 * missed (the loop held up) is not made up */
	usec += period_us;
	if (usec * 1000 < now)
		usec = now / 1000 + period_us;
	sd_event_source_set_time(src, usec);
	return 0;
}

/*
 * The cycle timer on in compat mode, off otherwise (at start, and when
 * `set compat` changes it).  0 or -errno.
 */
static int cycle_update(struct skind_skin *s)
{
	const struct skin_config_comp *c = skin_proc_params(s->proc);
	int r;

	if (!c->compat) {
		s->cycle = sd_event_source_disable_unref(s->cycle);
		return 0;
	}
	if (s->cycle)
		return 0;
	/* accuracy 1 us: sd-event's default would batch us by 250 ms */
	r = sd_event_add_time_relative(s->d->event, &s->cycle, CLOCK_MONOTONIC,
				       (uint64_t)c->period_ms * 1000, 1,
				       on_cycle, s);
	if (r < 0) {
		log_err("cannot start compat mode's cycle: %s", strerror(-r));
		return r;
	}
	sd_event_source_set_priority(s->cycle, SKIND_PRIO_RT);
	sd_event_source_set_description(s->cycle, "compat-cycle");
	/* a timer source is one-shot: on_cycle() re-arms it */
	return sd_event_source_set_enabled(s->cycle, SD_EVENT_ON);
}

static void calibration_path(const struct skind_skin *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s/calibration", s->d->opt.state_dir);
}

int pipeline_save_calibration(struct skind_skin *s)
{
	struct skin_error err;
	char path[600];

	if (!skin_proc_params(s->proc)->persist_calibration)
		return 0;
	calibration_path(s, path, sizeof(path));
	if (skin_proc_save(s->proc, path, &err) < 0) {
		log_err("cannot save the calibration: %s", err.text);
		return -1;
	}
	log_info("calibration saved in %s", path);
	return 0;
}

/*
 * A command's calibration (protocol.c) or one at start: the parts
 * published as calibrating at once, so that shm readers see it before
 * the next sample.
 */
int pipeline_calibrate(struct skind_skin *s, int part)
{
	unsigned int i;
	int r = skin_proc_calibrate(s->proc, part);

	if (r < 0)
		return r;
	for (i = 0; i < s->n_parts; i++)
		if (part < 0 || (unsigned int)part == i) {
			s->parts[i].state |= SKIN_SHM_PART_CALIBRATING;
			s->parts[i].state &= ~SKIN_SHM_PART_CALIBRATED;
			log_field(LOG_NOTICE, "PART", s->parts[i].name,
				  "%s: calibrating (do not touch the skin)",
				  s->parts[i].name);
			shm_publish_part(&s->parts[i]);
		}
	return 0;
}

double pipeline_calibration_s(const struct skind_skin *s)
{
	return skin_proc_params(s->proc)->calibration_s;
}

const char *const *pipeline_param_names(void)
{
	return skin_proc_param_names();
}

int pipeline_get(struct skind_skin *s, const char *name, char *value,
		 size_t size)
{
	return skin_proc_get(s->proc, name, value, size);
}

int pipeline_set(struct skind_skin *s, const char *name, const char *value,
		 char *why, size_t why_size)
{
	const bool was = skin_proc_params(s->proc)->compat;
	char period[16];
	int r = skin_proc_set(s->proc, name, value, why, why_size);
	bool compat;

	if (r < 0)
		return r;
	compat = skin_proc_params(s->proc)->compat;
	if (compat != was) {
		/* what period_ms counts changes with the mode (proc_period_ms) */
		snprintf(period, sizeof(period), "%u", proc_period_ms(s, compat));
		skin_proc_set(s->proc, "period_ms", period, NULL, 0);
		r = cycle_update(s);
	}
	return r;
}

int pipeline_fault_list(struct skind_skin *s, unsigned int part,
			struct skin_taxel_fault *out, unsigned int max)
{
	return skin_proc_fault_list(s->proc, (int)part, out, max);
}

/*
 * input.c attached or detached one of @p's patches (p->attached): the
 * part is ATTACHED when all of them are, published at once.
 */
void pipeline_part_attached(struct skind_part *p)
{
	if (p->attached == p->n_patches)
		p->state |= SKIN_SHM_PART_ATTACHED;
	else
		p->state &= ~SKIN_SHM_PART_ATTACHED;
	shm_publish_part(p);
}

/*
 * At start and after a reload: the saved calibration when there is one
 * that fits the model, a new calibration for every part it does not
 * cover.
 */
void pipeline_start(struct skind_skin *s)
{
	struct skin_error err;
	unsigned int i;
	char path[600];
	struct stat st;

	cycle_update(s);
	calibration_path(s, path, sizeof(path));
	if (skin_proc_params(s->proc)->persist_calibration && !stat(path, &st)) {
		if (skin_proc_restore(s->proc, path, &err) < 0)
			log_warn("saved calibration not used: %s", err.text);
		else
			log_info("calibration restored from %s", path);
	}
	for (i = 0; i < s->n_parts; i++) {
		struct skind_part *p = &s->parts[i];

		if (skin_proc_state(s->proc, i) == SKIN_PROC_RUNNING) {
			p->state |= SKIN_SHM_PART_CALIBRATED;
			copy_thresholds(p);
			log_field(LOG_INFO, "PART", p->name,
				  "%s: using the saved calibration", p->name);
		} else if (!pipeline_calibrate(s, (int)i)) {
			continue;	/* published as calibrating */
		}
		shm_publish_part(p);
	}
}

/* Outside the real-time path: act on what it saw; returns the events. */
static unsigned int part_events(struct skind_part *p)
{
	unsigned int ev = p->events;

	p->events = 0;
	if (ev & SKIN_PROC_EV_CALIBRATED) {
		log_field(LOG_NOTICE, "PART", p->name, "%s: calibrated", p->name);
		pipeline_save_calibration(p->skin);
	}
	if (ev & SKIN_PROC_EV_CAL_FAILED) {
		/* for the client that asked, as the journal has it */
		snprintf(p->cal_reason, sizeof(p->cal_reason), "%s",
			 skin_proc_reason(p->skin->proc, p->index));
		log_field(LOG_WARNING, "PART", p->name,
			  "%s: calibration refused: %s", p->name, p->cal_reason);
	}
	if (ev & SKIN_PROC_EV_FAULTS) {
		struct skin_taxel_fault f[4];
		char list[256] = "", names[128];
		int n = skin_proc_fault_list(p->skin->proc, (int)p->index, f, 4);
		size_t o = 0;
		int i;

		/* the first few by name, so that the journal says which
		 * (the socket's `faults` lists them all) */
		for (i = 0; i < n && i < 4 && o < sizeof(list); i++) {
			skin_fault_names(f[i].flags, names, sizeof(names));
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%u %s",
					      i ? ", " : ": taxel ", f[i].taxel, names);
		}
		if (n > 4 && o < sizeof(list))
			snprintf(list + o, sizeof(list) - o, ", ...");
		log_field(LOG_WARNING, "PART", p->name,
			  "%s: taxel faults changed: %d faulty now%s", p->name, n, list);
	}
	if (ev & SKIN_PROC_EV_RECAL)
		log_field(LOG_INFO, "PART", p->name,
			  "%s: a taxel recalibrated itself", p->name);
	/* the histograms are dead until the next calibration: most of
	 * skind's private memory otherwise (docs/PERFORMANCE.md) */
	if (ev & (SKIN_PROC_EV_CALIBRATED | SKIN_PROC_EV_CAL_FAILED | SKIN_PROC_EV_RECAL))
		skin_proc_trim(p->skin->proc, (int)p->index);
	return ev;
}

/*
 * The events the real-time path saw, handled before the fan-out (a higher
 * priority): the journal, the calibration saved; what the clients are to
 * be told is handed to the fan-out (fanout_tell()), which never calls back
 * into the pipeline.
 */
static int on_events(sd_event_source *src, void *data)
{
	struct skind *d = data;
	struct skind_skin *s = d->skin;
	unsigned int i;

	(void)src;
	for (i = 0; s && i < s->n_parts; i++) {
		struct skind_part *p = &s->parts[i];

		if (!p->events)
			continue;
		fanout_tell(p, part_events(p));
	}
	return 0;
}

int pipeline_events_init(struct skind *d)
{
	int r = sd_event_add_defer(d->event, &d->events, on_events, d);

	if (r < 0)
		return r;
	sd_event_source_set_priority(d->events, SKIND_PRIO_FANOUT - 1);
	sd_event_source_set_description(d->events, "pipeline-events");
	return sd_event_source_set_enabled(d->events, SD_EVENT_OFF);
}
