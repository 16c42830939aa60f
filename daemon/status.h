/* SPDX-License-Identifier: GPL-2.0 */
/*
 * status.h - the one-line summary the service manager shows (status.c)
 *
 * sd_notify's STATUS=, sent when it changes: parts calibrated, patches
 * attached, clients, events dropped.  Owns struct skind's last_status.
 * Housekeeping only: it makes a system call.
 */
#ifndef SKIND_STATUS_H
#define SKIND_STATUS_H

#include "skind.h"

/* Send STATUS= if its text changed */
void status_update(struct skind *d);
/* Send STATUS= again even if unchanged (after RELOADING=1) */
void status_resend(struct skind *d);

#endif
