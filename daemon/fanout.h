/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fanout.h - from published parts to the socket's subscribers and evdev
 * (fanout.c)
 *
 * Owns the deferred source (struct skind's fanout) that runs, below the
 * real-time priority, once for every part published since its last run
 * (p->dirty): the calibration replies the pipeline's events left
 * (p->told), then server_fanout_part() and evdev_update(), each of which
 * formats from the part's snapshot.  It never calls back into the
 * pipeline.  fanout_schedule() is [RT].
 */
#ifndef SKIND_FANOUT_H
#define SKIND_FANOUT_H

#include "skind.h"

int fanout_init(struct skind *d);
/* [RT] cheap: a flag in sd-event, no system call */
void fanout_schedule(struct skind *d);

#endif
