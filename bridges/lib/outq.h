/* SPDX-License-Identifier: GPL-2.0 */
/*
 * outq.h - a bounded output queue for one peer of a network process
 *
 * What a process has for a peer and the peer's socket could not take yet:
 * appended whole or refused (-ENOBUFS past the queue's limit, so a peer
 * that does not read costs at most the limit), sent from the front on a
 * non-blocking descriptor as the socket takes it, and the time of its
 * last progress, so its owner drops a peer that has taken nothing for
 * its stall time.  The discipline every network-facing process of the
 * project keeps (docs/YARP.md "Hostile peers"): nothing it does for a
 * peer blocks its loop, nothing it holds for a peer grows without bound.
 *
 * Ownership: the caller's struct; outq_free() releases its buffer.
 * Errors: negative errno.  Threads: one at a time.
 */
#ifndef SKIN_BRIDGE_OUTQ_H
#define SKIN_BRIDGE_OUTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct outq {
	uint8_t *data;
	size_t len;		/* bytes held, from data[0] */
	size_t off;		/* of them sent */
	size_t cap;		/* allocated */
	size_t limit;		/* most bytes it holds unsent */
	uint64_t since_us;	/* CLOCK_MONOTONIC of the last progress */
};

/* Empty, holding at most @limit bytes unsent */
void outq_init(struct outq *q, size_t limit);
void outq_free(struct outq *q);

/* Bytes not sent yet */
static inline size_t outq_pending(const struct outq *q)
{
	return q->len - q->off;
}

/* Append @n bytes whole: 0, -ENOBUFS (past the limit: nothing appended),
 * -ENOMEM. */
int outq_put(struct outq *q, const void *d, size_t n);

/* Send what the socket @fd takes now (MSG_NOSIGNAL, never waiting): 0
 * (sent or not: see outq_pending()), or -errno when the connection broke. */
int outq_flush(struct outq *q, int fd);

/* The first @n pending bytes taken by a writer of the owner's own (a
 * library that owns the socket, as libwebsockets does): dropped from the
 * front, as outq_flush() drops what it sent; progress. */
void outq_drop(struct outq *q, size_t n);

/* Whether it has held bytes with no progress for more than @ms */
bool outq_stalled(const struct outq *q, uint64_t now_us, unsigned int ms);
/* (now_us: clock_monotonic_ns() / 1000, skin_clock.h) */

#endif /* SKIN_BRIDGE_OUTQ_H */
