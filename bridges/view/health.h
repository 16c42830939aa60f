/* SPDX-License-Identifier: GPL-2.0 */
/*
 * health.h - the /skin/health channel: skind's, the driver's and
 * skin-eth's view of the skin's health, once a second and on change
 *
 * A second connection to skind's socket (format json), beside the
 * follower's, asks each round `status`, `parts`, `faults` and `get
 * add_threshold` at once and reads the replies as they come in on the
 * sd-event loop, never waiting: the socket is non-blocking, a round
 * starts when the last one is answered (one in flight at a time), and a
 * round not answered within 5 s is given up with its connection (skind
 * hung: skin-view goes on, and connects again a second later).  Then
 * the driver's counters of each patch and skin-eth's counters file are
 * read (counters.h), and the message built (docs/VIEW.md "/skin/health")
 * is published when it differs from the last one (its time aside) or a
 * second has passed.  A skind without the `faults` command (it answers
 * an error) has no fault list ("skind": {"faults": false}, every part's
 * "faults" empty): nothing else changes.  One that cuts the list short
 * ("error truncated") gives the lines it listed.
 *
 * Rounds: every second, and at health_poke() (a part's state or fault
 * flags changed, skind attached or left), at most every 250 ms.
 *
 * Bounds: at most 64 parts, 32 patches per part, 256 faults listed per
 * part (the others counted in "faults_more"), counters.h's; the message
 * at most 1 MiB (past it: not published, said once).
 *
 * Ownership: the health owns its connection; its messages go to its
 * caller (health_ops: skin-view's /skin/health channel).  Errors:
 * negative errno.  Threads: the loop's thread.
 */
#ifndef VIEW_HEALTH_H
#define VIEW_HEALTH_H

#include <stdint.h>

#include <systemd/sd-event.h>

#include "config.h"
#include "jsonw.h"

struct health;

/* Where what it learns goes (each may be NULL) */
struct health_ops {
	/* a message: @len bytes of JSON (and a NUL), built at @real_ns
	 * (CLOCK_REALTIME) */
	void (*publish)(void *data, const char *json, size_t len, uint64_t real_ns);
	/* skind's add_threshold, at each round */
	void (*add_threshold)(void *data, double value);
};

/* @socket: skind's (NULL: the default); @cfg: eth_counters; the health
 * keeps @cfg and @data */
int health_new(struct health **h, sd_event *e, const struct view_config *cfg,
	       const char *socket, const struct health_ops *ops, void *data);
void health_free(struct health *h);

/* Something changed: a round soon */
void health_poke(struct health *h);

/* The last message built, without its time_ns ({"skind":...}), and how
 * many were published; NULL before the first */
const char *health_last(const struct health *h, uint64_t *published);

#endif /* VIEW_HEALTH_H */
