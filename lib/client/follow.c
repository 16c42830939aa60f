// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * follow.c - follow skind across reloads, crashes and restarts
 * (skin/follow.h)
 *
 * A small state machine, driven only by skin_follow_dispatch():
 *
 *	WAITING    no connection; the next attempt at retry_ns
 *	HANDSHAKE  connected, `shm` and `subscribe samples all` sent
 *	           together, their replies not all read yet
 *	ATTACHED   mapped and subscribed: every dispatch copies the parts
 *	           whose sequence number moved; a copy whose sample count
 *	           moved is a SAMPLE, any other a STATE
 *	STALLED    attached, but the heartbeat stopped (DETACHED -ETIMEDOUT
 *	           told); the connection and the mapping are kept, and an
 *	           ATTACHED follows if it beats again
 *
 * Nothing waits: the commands are pipelined at connect and their replies
 * read as they come (skin_client_read_line() with 0), so a skind that is
 * stopped during the handshake costs the caller nothing but the wait.
 * Copies are decided by the sequence numbers, not by the event lines,
 * so a wakeup dropped by skind (its queue full) or read together with
 * others loses nothing but intermediate publications.
 *
 * The socket is non-blocking from its creation
 * (skin_client_connect_nonblock()): a skind whose listen backlog is full
 * (stopped with 128 connections pending) is an -EAGAIN, tried again
 * after retry_ms like an absent one, never a wait.
 *
 * Each followed part has a copy of its own, kept until the part's next
 * delivery (skin_follow_block()), and a copy takes only what the
 * publication holds (skin_shm_read_part_used(): the contacts in use, not
 * all 64).  A part filter (skin_follow_set_parts()) leaves the other
 * parts uncopied and untold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <skin/follow.h>

#include "skin_clock.h"

#define READ_TRIES	100	/* skin_shm_read_part(): a writer mid-block */

enum follow_state { WAITING, HANDSHAKE, ATTACHED, STALLED };

/* What was delivered of a part of the mapped object (zeroed with it). */
struct seen {
	uint64_t seq;			/* the last copy's seqlock value; 0
					 * at ATTACHED: copy it again */
	uint64_t samples;		/* the last SAMPLE's count; 0: none */
	void *block;			/* the newest copy; NULL: not followed */
};

struct skin_follow {
	char *socket;			/* NULL: skin_client_connect()'s default */
	unsigned int retry_ms;
	enum follow_state state;
	uint64_t retry_ns;		/* WAITING: the next attempt */
	struct skin_client *c;
	unsigned int replies;		/* HANDSHAKE: final lines still due */
	bool told;			/* ATTACHED said, no DETACHED since */
	struct skin_shm_map map;	/* map.base: mapped */
	struct seen *seen;		/* per part: what was last delivered */
	char **names;			/* the parts to follow; NULL: all */
	unsigned int n_names;
};

int skin_follow_new(struct skin_follow **fp,
		    const struct skin_follow_options *opts)
{
	struct skin_follow *f;

	*fp = NULL;
	if (opts && opts->socket && !*opts->socket)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->map.fd = -1;
	f->retry_ms = opts && opts->retry_ms ? opts->retry_ms : 500;
	if (opts && opts->socket) {
		f->socket = strdup(opts->socket);
		if (!f->socket) {
			free(f);
			return -ENOMEM;
		}
	}
	f->state = WAITING;
	f->retry_ns = 0;		/* the first dispatch connects */
	*fp = f;
	return 0;
}

static void free_blocks(struct skin_follow *f)
{
	unsigned int i;

	for (i = 0; f->seen && i < skin_shm_n_parts(&f->map); i++)
		free(f->seen[i].block);
	free(f->seen);
	f->seen = NULL;
}

static void free_names(struct skin_follow *f)
{
	unsigned int i;

	for (i = 0; i < f->n_names; i++)
		free(f->names[i]);
	free(f->names);
	f->names = NULL;
	f->n_names = 0;
}

/* Back to no connection, no mapping; the next attempt at @retry_ns. */
static void drop(struct skin_follow *f, uint64_t retry_ns)
{
	skin_client_close(f->c);
	f->c = NULL;
	free_blocks(f);
	if (f->map.base)
		skin_shm_close(&f->map);
	f->state = WAITING;
	f->retry_ns = retry_ns;
	f->told = false;
}

void skin_follow_free(struct skin_follow *f)
{
	if (!f)
		return;
	drop(f, 0);
	free_names(f);
	free(f->socket);
	free(f);
}

int skin_follow_fd(const struct skin_follow *f)
{
	return f->c ? skin_client_fd(f->c) : -1;
}

int skin_follow_timeout_ms(const struct skin_follow *f)
{
	uint64_t now;

	switch (f->state) {
	case WAITING:
		now = clock_monotonic_ns();
		if (f->retry_ns <= now)
			return 0;
		/* rounded up: woken early, a dispatch would find nothing due */
		return (int)((f->retry_ns - now + 999999) / 1000000);
	case HANDSHAKE:
		return -1;		/* the replies wake it */
	default:
		/* the heartbeat is judged by the reader's clock, each beat */
		return f->map.hdr->heartbeat_ms ? (int)f->map.hdr->heartbeat_ms : -1;
	}
}

const struct skin_shm_map *skin_follow_map(const struct skin_follow *f)
{
	return f->state == ATTACHED ? &f->map : NULL;
}

static void emit(struct skin_follow *f, skin_follow_fn fn, void *data,
		 enum skin_follow_event ev, unsigned int part, int reason)
{
	struct skin_follow_sample s = {
		.map = ev == SKIN_FOLLOW_DETACHED ? NULL : &f->map,
		.part = part,
		.block = ev == SKIN_FOLLOW_SAMPLE || ev == SKIN_FOLLOW_STATE ?
			 f->seen[part].block : NULL,
		.reason = reason,
	};

	if (fn)
		fn(f, ev, &s, data);
}

/* A connection, its two commands sent; WAITING again if skind is away. */
static void connect_now(struct skin_follow *f, uint64_t now)
{
	int err;

	f->c = skin_client_connect_nonblock(f->socket, &err);
	if (f->c && (skin_client_send(f->c, "shm") < 0 ||
		     skin_client_send(f->c, "subscribe samples all") < 0)) {
		skin_client_close(f->c);
		f->c = NULL;
	}
	if (!f->c) {
		f->retry_ns = now + f->retry_ms * 1000000ull;
		return;
	}
	f->state = HANDSHAKE;
	f->replies = 2;
}

/* Whether part @i of the map is one the caller follows. */
static bool wanted(const struct skin_follow *f, unsigned int i)
{
	const struct skin_shm_part_desc *d = skin_shm_part(&f->map, i);
	unsigned int k;

	if (!f->names)
		return true;
	for (k = 0; k < f->n_names; k++)
		if (!strncmp(f->names[k], d->name, SKIN_SHM_NAME_LEN))
			return true;
	return false;
}

/* A copy for each followed part of the map that has none, none for the
 * others; a part that starts being followed is copied at the next scan. */
static int follow_parts(struct skin_follow *f)
{
	unsigned int i, n = skin_shm_n_parts(&f->map);

	for (i = 0; i < n; i++) {
		struct seen *sn = &f->seen[i];

		if (!wanted(f, i)) {
			free(sn->block);
			sn->block = NULL;
		} else if (!sn->block) {
			sn->block = calloc(1, skin_shm_part(&f->map, i)->size);
			if (!sn->block)
				return -ENOMEM;
			sn->seq = 0;
		}
	}
	return 0;
}

/* The mapping @fd (the `shm` reply's) and the state its parts need. */
static int map_object(struct skin_follow *f, int fd)
{
	unsigned int n;
	int r;

	if (f->map.base)
		return -EPROTO;		/* one `shm` was sent, one reply */
	r = skin_shm_map_fd(&f->map, fd);
	if (r < 0)
		return r;
	n = skin_shm_n_parts(&f->map);
	f->seen = calloc(n ? n : 1, sizeof(*f->seen));
	if (!f->seen)
		return -ENOMEM;
	return follow_parts(f);
}

int skin_follow_set_parts(struct skin_follow *f, const char *const *names,
			  unsigned int n)
{
	unsigned int i;

	free_names(f);
	if (n) {
		f->names = calloc(n, sizeof(*f->names));
		if (!f->names)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			f->names[i] = strdup(names[i]);
			if (!f->names[i]) {
				f->n_names = i;
				free_names(f);
				return -ENOMEM;
			}
		}
		f->n_names = n;
	}
	return f->seen ? follow_parts(f) : 0;
}

const void *skin_follow_block(const struct skin_follow *f, unsigned int part)
{
	if (f->state != ATTACHED || part >= skin_shm_n_parts(&f->map) ||
	    !f->seen[part].block || !f->seen[part].seq)
		return NULL;
	return f->seen[part].block;
}

/*
 * One line of the handshake.  0 goes on, -ENOMEM is the caller's, other
 * -errno means this connection is of no use (skind refused or lied).
 */
static int handshake_line(struct skin_follow *f, const char *line)
{
	if (!strncmp(line, "shm ", 4)) {
		int fd = skin_client_take_fd(f->c);

		return fd < 0 ? -EPROTO : map_object(f, fd);
	}
	if (!strcmp(line, "ok") || !strncmp(line, "ok ", 3)) {
		if (f->replies == 2 && !f->map.base)
			return -EPROTO;	/* `shm` answered without its line */
		f->replies--;
		return 0;
	}
	if (!strncmp(line, "error ", 6)) {
		/* more parts than subscriptions: the wakeups of the first
		 * ones still bring every part's copy (all are scanned) */
		if (f->replies == 1 &&
		    !strncmp(line, "error too-many-subscriptions ", 29)) {
			f->replies--;
			return 0;
		}
		return -EPROTO;	/* too-many-descriptors, say: try again later */
	}
	return 0;			/* an event before the replies: none due */
}

/*
 * Copy each part whose sequence number moved: a SAMPLE when its sample
 * count moved since the last SAMPLE, else a STATE.  skind also publishes
 * a part when only its state changes (a patch attached or detached, a
 * calibration started) and before its first sample; a bridge that sent
 * each of those on as a sample would repeat the last one, or send the
 * noLoad placeholder as if a board had.
 */
static int scan(struct skin_follow *f, skin_follow_fn fn, void *data)
{
	unsigned int i, n = skin_shm_n_parts(&f->map);
	const struct skin_shm_part *h;
	int samples = 0;

	for (i = 0; i < n; i++) {
		struct seen *sn = &f->seen[i];
		uint64_t seq = skin_shm_seq(&f->map, i);

		if (!sn->block || seq == sn->seq || seq < 2)
			continue;	/* not followed, nothing new, or never
					 * published */
		if (skin_shm_read_part_used(&f->map, i, sn->block, READ_TRIES) < 0) {
			sn->seq = 0;	/* busy: the copy may be torn, the
					 * next wakeup takes it */
			continue;
		}
		h = skin_shm_head(sn->block);
		sn->seq = h->seq;
		if (!h->samples || h->samples == sn->samples) {
			emit(f, fn, data, SKIN_FOLLOW_STATE, i, 0);
			continue;
		}
		sn->samples = h->samples;
		emit(f, fn, data, SKIN_FOLLOW_SAMPLE, i, 0);
		samples++;
	}
	return samples;
}

/* Leave an object: DETACHED (unless said already), then reconnect. */
static void detach(struct skin_follow *f, skin_follow_fn fn, void *data,
		   int reason)
{
	bool told = f->told;

	/* a reload or a stop: skind is there (or gone for good), ask at
	 * once; a crash: its successor needs time, wait a retry.  An object
	 * retired before it was even told (a skind serving an object another
	 * one replaced) waits a retry too, or this would loop flat out. */
	drop(f, reason == -ESTALE && told ? 0 :
		clock_monotonic_ns() + f->retry_ms * 1000000ull);
	if (told)
		emit(f, fn, data, SKIN_FOLLOW_DETACHED, 0, reason);
}

/*
 * Read what has arrived.  Return: 0, or the reason the connection is
 * over (-ECONNRESET, -ESTALE), or -ENOMEM.
 */
static int read_lines(struct skin_follow *f)
{
	const char *line;
	int r;

	while ((r = skin_client_read_line(f->c, &line, 0)) > 0) {
		if (f->state != HANDSHAKE)
			continue;	/* sample, reload, dropped: the scan and
					 * the check below tell what they mean */
		r = handshake_line(f, line);
		if (r < 0)
			return r;
		if (!f->replies)
			f->state = ATTACHED;
	}
	if (r == 0)
		return 0;
	/* closed: by a skind that stopped (it retires its object first) or
	 * by one that died */
	if (f->map.base && skin_shm_retired(&f->map))
		return -ESTALE;
	return r == -ENOMEM ? r : -ECONNRESET;
}

int skin_follow_dispatch(struct skin_follow *f, skin_follow_fn fn, void *data)
{
	uint64_t now;
	unsigned int i;
	int r;

	if (f->state == WAITING) {
		now = clock_monotonic_ns();
		if (now < f->retry_ns)
			return 0;
		connect_now(f, now);
		if (f->state == WAITING)
			return 0;
	}
	r = read_lines(f);
	if (r == -ENOMEM) {
		/* the connection is dropped with what it held; told as a
		 * closed connection, the next dispatches try again */
		detach(f, fn, data, -ECONNRESET);
		return r;
	}
	if (f->state == HANDSHAKE) {
		if (r < 0)		/* never attached: nothing to tell */
			drop(f, clock_monotonic_ns() + f->retry_ms * 1000000ull);
		return 0;
	}
	if (r < 0) {
		detach(f, fn, data, r);
		return 0;
	}
	r = skin_shm_check(&f->map);
	if (r == -ESTALE) {
		detach(f, fn, data, r);
		return 0;
	}
	if (r == -ETIMEDOUT) {
		if (f->state == ATTACHED) {
			f->state = STALLED;
			if (f->told)
				emit(f, fn, data, SKIN_FOLLOW_DETACHED, 0, r);
			f->told = false;
		}
		return 0;
	}
	f->state = ATTACHED;
	if (!f->told) {
		/* new, or beating again: every part's state follows; after a
		 * stall, one whose sample was delivered comes as a STATE */
		for (i = 0; i < skin_shm_n_parts(&f->map); i++)
			f->seen[i].seq = 0;
		f->told = true;
		emit(f, fn, data, SKIN_FOLLOW_ATTACHED, 0, 0);
	}
	return scan(f, fn, data);
}
