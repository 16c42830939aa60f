/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline.h - from a ring frame to the part's published state (pipeline.c)
 *
 * Owns the processing (struct skind_skin's proc: lib/proc, skin/proc.h)
 * and writes the part's snapshot: raw, values, flags, contacts,
 * contact_taxels, thr, state and the sample's counters and times of
 * struct skind_part, which every output formats from (shm.h, protocol.h,
 * evdev.h) without reading lib/proc again; the only module that calls
 * lib/proc.  pipeline_frame() is the real-time path [RT]: it publishes
 * the part (shm_publish_part()) and tells the fan-out
 * (fanout_published()).  What it saw that needs I/O (the journal, a
 * calibration to save) it leaves in the part's events for its own
 * deferred step (pipeline_events_init()), which tells the fan-out what
 * clients are to be told (fanout_tell()).
 *
 * Calls go one way: input -> pipeline -> publication (shm, fan-out).
 * Commands about the processing itself (calibrate, get, set) come down
 * from protocol.c, through the functions below only.
 */
#ifndef SKIND_PIPELINE_H
#define SKIND_PIPELINE_H

#include "skind.h"

struct skin_taxel_fault;

/* skind_skin_build(): lib/proc for the skin's model, patches matched */
int pipeline_init(struct skind_skin *s, struct skin_error *err);
void pipeline_free(struct skind_skin *s);
/* After a build: the saved calibration, or a new one; every part published */
void pipeline_start(struct skind_skin *s);
/* The deferred step of the pipeline's events, before the fan-out */
int pipeline_events_init(struct skind *d);

/* [RT] one board sample of @pt, processed and published (compat mode:
 * kept, for the part's next cycle, which publishes it) */
void pipeline_frame(struct skind_patch *pt, const struct skin_frame *f);
/* input.c changed p->attached: the part's state follows, published */
void pipeline_part_attached(struct skind_part *p);

/* Start calibrating part @part (-1: every part), published: 0 or -errno */
int pipeline_calibrate(struct skind_skin *s, int part);
/* How long a calibration takes, s */
double pipeline_calibration_s(const struct skind_skin *s);

/*
 * The processing's parameters, for the socket's get and set (lib/proc's
 * names, values as text, errors: skin/proc.h's skin_proc_get() and
 * skin_proc_set()); the only way to them from the outputs.
 */
const char *const *pipeline_param_names(void);
int pipeline_get(struct skind_skin *s, const char *name, char *value,
		 size_t size);
int pipeline_set(struct skind_skin *s, const char *name, const char *value,
		 char *why, size_t why_size);
int pipeline_save_calibration(struct skind_skin *s);

/* The faulty taxels of part @part, for the socket's `faults` (lib/proc's
 * skin_proc_fault_list(): how many in all, at most @max into @out) */
int pipeline_fault_list(struct skind_skin *s, unsigned int part,
			struct skin_taxel_fault *out, unsigned int max);

#endif
