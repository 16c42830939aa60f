/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evdev.h - one virtual multitouch device per part (evdev.c)
 *
 * Owns struct skind_evdev (the part's uinput device, its slots).
 * evdev_update() runs from the fan-out, never from the real-time path (a
 * uinput write goes through the input core), and reads only the part's
 * snapshot: its contacts, contact_taxels, values and flattening.
 */
#ifndef SKIND_EVDEV_H
#define SKIND_EVDEV_H

#include "skind.h"

/* 0, or -errno (-ENOENT: no /dev/uinput, said once) */
int evdev_create(struct skind_part *p);
void evdev_update(struct skind_part *p);
void evdev_free(struct skind_part *p);

#endif
