/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fanout.h - from published parts to the outputs (fanout.c)
 *
 * Owns the deferred source (struct skind's fanout) that runs, below the
 * real-time priority, once for every part published since its last run,
 * and the marks that say which (struct skind_part's dirty and told): the
 * pipeline tells it what it published (fanout_published(), [RT]) and what
 * clients are to be told (fanout_tell()).  For each such part it calls the
 * one function main.c registered, which hands the part to the outputs (the
 * socket's subscribers, evdev), each formatting from the part's snapshot.
 * It calls neither the outputs nor the pipeline: the outputs' commands
 * reach the pipeline (pipeline.h), so a call from here to them would make
 * a circle.
 */
#ifndef SKIND_FANOUT_H
#define SKIND_FANOUT_H

#include "skind.h"

/* What a part published since the last run is handed to; @told: the
 * SKIN_PROC_EV_* the clients are to be told of, 0 none */
typedef void fanout_fn(struct skind *d, struct skind_part *p, unsigned int told);

int fanout_init(struct skind *d, fanout_fn *fn);
/* [RT] @p was published: marked, and a flag in sd-event, no system call */
void fanout_published(struct skind_part *p);
/* The pipeline's events on @p the clients are to be told of */
void fanout_tell(struct skind_part *p, unsigned int told);

#endif
