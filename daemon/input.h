/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input.h - the patches' rings: attaching, draining, re-attaching (input.c)
 *
 * Owns each patch's ring mapping and event source (struct skind_patch's
 * "while attached" fields), the rescan timer and the inotify watch of the
 * ring directory, and the overload guard of the real-time path (struct
 * skind's rt_* fields).  Its ring sources run at SKIND_PRIO_RT: that is
 * where the real-time path starts, each frame handed to pipeline_frame().
 * The calls below are housekeeping (start-up, reload, rescans), not [RT].
 */
#ifndef SKIND_INPUT_H
#define SKIND_INPUT_H

#include "skind.h"

int input_start(struct skind *d);
void input_stop(struct skind *d);
/* Attach every configured patch whose ring is there and not yet read. */
void input_attach_all(struct skind *d);
/* Say which boards went silent or were heard again (the status timer). */
void input_check_silent(struct skind *d);
/* Stop reading a skin's rings (it is being replaced or freed). */
void input_detach_skin(struct skind_skin *s);

#endif
