/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - other components' counters as JSON, for /skin/health
 *
 * The driver's counters of a patch (/sys/class/skin/NAME/stats/, one
 * file per counter: docs/UAPI.md) and skin-eth's counters file
 * (docs/ETH.md "The counters file"), read when asked and written into a
 * JSON text (jsonw.h), never trusted: a name that could not be a
 * device's or a counter's is not looked up, at most 64 counters a patch
 * and 512 lines and 64 KiB of the file are read, and a value that is not
 * all digits is a string.
 *
 * Errors: none; what is absent is null, what cannot be read is said.
 * Threads: any.
 */
#ifndef VIEW_COUNTERS_H
#define VIEW_COUNTERS_H

#include <stdint.h>

#include "jsonw.h"

/* Patch @name's driver counters under @root (/sys/class/skin): an
 * object of every file of NAME/stats sorted by name ({"frames": 120,
 * ...}), or null when there is no such directory or the name could not
 * be a device's */
void counters_driver_json(struct jw *w, const char *root, const char *name);

/* skin-eth's counters file at @path as /skin/health's "eth" object
 * (docs/VIEW.md), its age against @now_real_ns; null when absent,
 * {"file", "error"} when it cannot be read */
void counters_eth_json(struct jw *w, const char *path, uint64_t now_real_ns);

#endif /* VIEW_COUNTERS_H */
