// SPDX-License-Identifier: GPL-2.0
/*
 * outq.c - a bounded output queue (outq.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "outq.h"
#include "skin_clock.h"

void outq_init(struct outq *q, size_t limit)
{
	memset(q, 0, sizeof(*q));
	q->limit = limit;
}

void outq_free(struct outq *q)
{
	free(q->data);
	q->data = NULL;
	q->len = q->off = q->cap = 0;
}

int outq_put(struct outq *q, const void *d, size_t n)
{
	size_t pending = outq_pending(q);

	if (n > q->limit || pending > q->limit - n)
		return -ENOBUFS;
	if (!pending)
		q->since_us = clock_monotonic_ns() / 1000;	/* the stall clock starts now */
	if (q->off && q->len + n > q->cap) {
		/* the sent front makes room first */
		memmove(q->data, q->data + q->off, pending);
		q->len = pending;
		q->off = 0;
	}
	if (q->len + n > q->cap) {
		size_t cap = q->cap ? q->cap : 4096;
		uint8_t *nd;

		while (cap < q->len + n)
			cap *= 2;
		nd = realloc(q->data, cap);
		if (!nd)
			return -ENOMEM;
		q->data = nd;
		q->cap = cap;
	}
	memcpy(q->data + q->len, d, n);
	q->len += n;
	return 0;
}

int outq_flush(struct outq *q, int fd)
{
	while (q->off < q->len) {
		ssize_t n = send(fd, q->data + q->off, q->len - q->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return -errno;
		}
		q->off += (size_t)n;
		q->since_us = clock_monotonic_ns() / 1000;
	}
	q->len = q->off = 0;
	/* a burst's buffer is not kept for ever */
	if (q->cap > 65536) {
		free(q->data);
		q->data = NULL;
		q->cap = 0;
	}
	return 0;
}

void outq_drop(struct outq *q, size_t n)
{
	if (n > outq_pending(q))
		n = outq_pending(q);
	q->off += n;
	q->since_us = clock_monotonic_ns() / 1000;
	if (q->off == q->len)
		q->len = q->off = 0;
}

bool outq_stalled(const struct outq *q, uint64_t now_us, unsigned int ms)
{
	return outq_pending(q) && now_us - q->since_us > (uint64_t)ms * 1000;
}
