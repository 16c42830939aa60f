/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/follow.h - follow skind: each part's newest publication, across
 * skind's reloads, crashes and restarts
 *
 * For programs that forward the skin elsewhere (the ROS 2 and YARP
 * bridges, loggers): they want every part's latest state as soon as skind
 * publishes it, and they must never need a restart because skind had one.
 *
 * A follower holds one connection to skind's socket, subscribed to
 * `samples` (a short event line per publication: the wakeup, nothing
 * else; /usr/share/doc/skin/PROTOCOL.md), and the shared memory skind
 * passed over it (`shm`), from which it copies each part under its
 * seqlock.  When skind goes away (its socket closes, the object is
 * retired, the heartbeat stops) the follower says so and connects again by
 * itself, every @retry_ms, for as long as it lives.
 *
 * Delivery is latest-state, as the shared memory is: a wakeup makes the
 * follower look at every followed part's sequence number and copy each
 * part that changed (what the publication holds: of the contacts, those
 * in use; skin_shm_read_part_used()), so a dropped or coalesced wakeup loses nothing but
 * intermediate publications; the copy's head says how many samples there
 * were (skin_shm_part.samples).  A copy that holds a new sample is a
 * SAMPLE; one in which only the part's state changed (a patch attached or
 * detached, a calibration started, or no sample yet) is a STATE, so that
 * a program forwarding samples sends each one once.
 *
 *	struct skin_follow *f;
 *	int err = skin_follow_new(&f, NULL);           (NULL: defaults)
 *	for (;;) {
 *		struct pollfd p = { skin_follow_fd(f), POLLIN, 0 };
 *		poll(&p, 1, skin_follow_timeout_ms(f));
 *		skin_follow_dispatch(f, on_event, data);
 *	}
 *	skin_follow_free(f);
 *
 * Any event loop drives it: poll() as above, or an I/O source on
 * skin_follow_fd() (asked again after each dispatch: it changes across
 * reconnections) and a timer of skin_follow_timeout_ms(), each calling
 * skin_follow_dispatch().
 *
 * Ownership: the follower owns its connection, mapping and copies, one
 * per followed part; the map it hands @fn is valid during that call, a
 * part's copy until the dispatch that delivers the part again or a
 * DETACHED (skin_follow_block() finds it between dispatches).
 * Errors: negative errno.  Threads: not thread-safe per follower; one
 * thread dispatches it.  It never blocks: its socket is non-blocking
 * (connect included: a skind whose backlog is full is tried again after
 * @retry_ms), and skin_follow_dispatch() does what is ready and returns.
 */
#ifndef SKIN_FOLLOW_H
#define SKIN_FOLLOW_H

#include <stdint.h>

#include <skin/client.h>

#ifdef __cplusplus
extern "C" {
#endif

struct skin_follow;

/**
 * struct skin_follow_options - zero means the default
 * @socket: skind's socket (NULL: $SKIN_SOCKET, else SKIN_SOCKET_PATH)
 * @retry_ms: between connection attempts while skind is away (500)
 */
struct skin_follow_options {
	const char *socket;
	unsigned int retry_ms;
};

enum skin_follow_event {
	/* Connected and mapped an object: the parts (their names, sizes,
	 * order) may differ from the last object's.  @s->map is valid,
	 * @s->part and @s->block are not.  Every part that has published
	 * follows in the same dispatch, as a SAMPLE when its newest sample
	 * was not delivered yet, else as a STATE (before its first sample,
	 * or after a stall of the same object). */
	SKIN_FOLLOW_ATTACHED,
	/* Part @s->part has a new sample: @s->block is a consistent copy
	 * (skin_shm_values(s->map, s->part, s->block) ...) whose
	 * skin_shm_part.samples moved since the last SAMPLE. */
	SKIN_FOLLOW_SAMPLE,
	/* skind went away, reloaded or stopped beating: the parts of the
	 * last ATTACHED are gone.  @s->map is NULL.  An ATTACHED follows
	 * when skind is back (after -ETIMEDOUT: the same object, once the
	 * heartbeat moves again). */
	SKIN_FOLLOW_DETACHED,
	/* Part @s->part was published without a new sample: its state,
	 * patches_attached or lost_frames changed.  @s->block is a
	 * consistent copy; its values, raw values and contacts are those of
	 * the last SAMPLE (skind's placeholders, noLoad and 0, while
	 * skin_shm_part.samples is 0). */
	SKIN_FOLLOW_STATE,
};

/**
 * struct skin_follow_sample - what an event is about
 * @map: the mapped object (NULL for DETACHED)
 * @part: index of the part in @map (SAMPLE and STATE only)
 * @block: the copy of the part's block (SAMPLE and STATE only)
 * @reason: DETACHED only: -ECONNRESET (socket closed), -ESTALE (object
 *	retired: a reload or a stop), -ETIMEDOUT (heartbeat stopped)
 */
struct skin_follow_sample {
	const struct skin_shm_map *map;
	unsigned int part;
	const void *block;
	int reason;
};

typedef void (*skin_follow_fn)(struct skin_follow *f,
			       enum skin_follow_event ev,
			       const struct skin_follow_sample *s, void *data);

/* A follower that starts connecting (it is not attached on return).
 * 0 or -errno (-ENOMEM, -EINVAL for bad options). */
int skin_follow_new(struct skin_follow **f,
		    const struct skin_follow_options *opts);
void skin_follow_free(struct skin_follow *f);

/* The descriptor to poll for POLLIN.  It changes across reconnections:
 * ask again after each dispatch (-1 while waiting for @retry_ms). */
int skin_follow_fd(const struct skin_follow *f);
/* How long poll() may wait before the follower needs a dispatch anyway
 * (retry, heartbeat check), in milliseconds; -1: until the fd is ready. */
int skin_follow_timeout_ms(const struct skin_follow *f);

/*
 * Do what is due: read wakeups, copy the parts that changed, check the
 * object, reconnect; @fn gets each event in order.  Return: the number
 * of SAMPLE events, or -errno for what the follower cannot recover from
 * (-ENOMEM); skind being away is not an error.
 */
int skin_follow_dispatch(struct skin_follow *f, skin_follow_fn fn,
			 void *data);

/*
 * Follow only the parts named in @names[0 .. @n) (n 0: every part, the
 * default): the others are neither copied nor told.  Names the object
 * does not have are kept for the objects to come (a reload that adds the
 * part).  Any time; a part that starts being followed comes at the next
 * dispatch, as a SAMPLE or a STATE.  0 or -ENOMEM.
 */
int skin_follow_set_parts(struct skin_follow *f, const char *const *names,
			  unsigned int n);

/*
 * The newest copy of part @part of the map (the one the last SAMPLE or
 * STATE of it carried): skin_shm_values(map, part, block) ...  NULL when
 * not attached, the part is not followed, or it has no copy yet.  Valid
 * until the dispatch that delivers the part again or a DETACHED.
 */
const void *skin_follow_block(const struct skin_follow *f, unsigned int part);

/* Whether the follower is attached, and the map (NULL when not). */
const struct skin_shm_map *skin_follow_map(const struct skin_follow *f);

#ifdef __cplusplus
}
#endif
#endif /* SKIN_FOLLOW_H */
