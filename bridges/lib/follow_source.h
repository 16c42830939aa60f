/* SPDX-License-Identifier: GPL-2.0 */
/*
 * follow_source.h - skind's follower (skin/follow.h) as a source of an
 * sd-event loop
 *
 * The follower's descriptor changes across skind's restarts, and it wants
 * a dispatch at its own deadlines (retries, the heartbeat check) as well
 * as when the descriptor is readable: this source keeps one I/O source on
 * the current descriptor and one timer at the follower's deadline, and
 * hands every event to @fn.  A follower error it cannot recover from
 * (-ENOMEM) ends the loop: sd_event_exit(e, 1), said on the log.
 *
 * Ownership: the source owns its follower; skin/follow.h's rules for what
 * @fn gets hold.  Errors: negative errno.  Threads: the loop's thread.
 */
#ifndef SKIN_BRIDGE_FOLLOW_SOURCE_H
#define SKIN_BRIDGE_FOLLOW_SOURCE_H

#include <systemd/sd-event.h>

#include <skin/follow.h>

struct follow_source;

int follow_source_new(struct follow_source **fs, sd_event *e,
		      const struct skin_follow_options *opts,
		      skin_follow_fn fn, void *data);
/* Its sources off, its follower closed; NULL is fine. */
void follow_source_free(struct follow_source *fs);

/* The follower (its map: skin_follow_map()) */
struct skin_follow *follow_source_follower(const struct follow_source *fs);

#endif /* SKIN_BRIDGE_FOLLOW_SOURCE_H */
