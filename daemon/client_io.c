// SPDX-License-Identifier: GPL-2.0
/*
 * client_io.c - a client's I/O as protocol.c uses it (client_io.h)
 *
 * The output queue (a ring of bytes, a line queued whole or not at all),
 * the descriptors a `shm` reply carries and the bounds on those in flight,
 * and the subscriptions.  No socket call but SIOCOUTQ: sending, reading
 * and dispatching the lines are server.c's, which calls protocol.c, which
 * calls this; so the calls go one way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/sockios.h>

#include "client_io.h"
#include "skin.h"

size_t client_queue_room(const struct client *c)
{
	return c->q_cap - c->q_len;
}

bool client_queue(struct client *c, const char *buf, size_t len)
{
	size_t tail, first;

	if (len > client_queue_room(c))
		return false;
	tail = (c->q_head + c->q_len) % c->q_cap;
	first = c->q_cap - tail < len ? c->q_cap - tail : len;
	memcpy(c->q + tail, buf, first);
	memcpy(c->q, buf + first, len - first);
	c->q_len += len;
	c->q_total += len;
	return true;
}

/* --- descriptors in flight (client_io.h) ----------------------------------- */

void client_fds_release(struct client *c, unsigned int n)
{
	c->user->fds -= n;
	c->srv->fds_inflight -= n;
}

/* Those sent are no longer in flight once the client has read all we sent. */
static void fds_received(struct client *c)
{
	int outq;

	if (!c->fds_sent || ioctl(c->fd, SIOCOUTQ, &outq) < 0 || outq > 0)
		return;
	client_fds_release(c, c->fds_sent);
	c->fds_sent = 0;
}

static bool fds_full(const struct client *c)
{
	return c->n_fds + c->fds_sent >= CLIENT_FDS_MAX ||
	       c->user->fds >= c->srv->user_fds_max ||
	       c->srv->fds_inflight >= c->srv->fds_budget;
}

/*
 * Whether a `shm` reply of @c may carry a descriptor: 0, or -EBUSY
 * (counted) when the client, its user or the daemon has its bound in
 * flight.  At the user's or the daemon's bound, the clients that count
 * are asked whether they have read theirs.
 */
int client_fd_room(struct client *c)
{
	struct skind_server *srv = c->srv;
	struct client *x;

	fds_received(c);
	if (c->n_fds + c->fds_sent < CLIENT_FDS_MAX && fds_full(c))
		for (x = srv->clients; x; x = x->next)
			if (x->fds_sent && (x->user == c->user ||
					    srv->fds_inflight >= srv->fds_budget))
				fds_received(x);
	if (fds_full(c)) {
		srv->fds_refused++;
		return -EBUSY;
	}
	return 0;
}

/*
 * The reply queued from byte @at to now carries @fd (SCM_RIGHTS), which is
 * ours to close; client_fd_room() said there is room.
 */
void client_pass_fd(struct client *c, int fd, uint64_t at)
{
	struct pass_fd *p = &c->fds[c->n_fds++];

	p->fd = fd;
	p->at = at;
	p->end = c->q_total;
	p->format = c->format;
	c->user->fds++;
	c->srv->fds_inflight++;
}

void client_close_after_reply(struct client *c)
{
	c->closing = true;
}

/* --- subscriptions ------------------------------------------------------ */

static uint64_t rate_interval(unsigned int rate_hz)
{
	return rate_hz ? 1000000000ull / rate_hz : 0;
}

int client_subscribe(struct client *c, enum sub_kind kind, const char *part,
		     unsigned int rate_hz)
{
	struct skind_part *p = skind_skin_part(c->srv->d->skin, part);
	struct subscription *s = NULL;
	unsigned int i;

	if (!p)
		return -ENOENT;
	for (i = 0; i < c->n_subs; i++)
		if (c->subs[i].kind == kind && !strcmp(c->subs[i].part, part))
			s = &c->subs[i];	/* a new rate for the same one */
	if (!s) {
		if (c->n_subs >= c->srv->d->opt.max_subscriptions)
			return -ENOSPC;
		s = &c->subs[c->n_subs++];
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->part, sizeof(s->part), "%s", part);
	s->part_index = (int)p->index;
	s->kind = kind;
	s->rate_hz = rate_hz;
	s->interval_ns = rate_interval(rate_hz);
	return 0;
}

/* kind -1: any; part NULL: any.  Returns how many were removed. */
unsigned int client_unsubscribe(struct client *c, int kind, const char *part)
{
	unsigned int i = 0, n = 0;

	while (i < c->n_subs) {
		struct subscription *s = &c->subs[i];

		if ((kind < 0 || (int)s->kind == kind) &&
		    (!part || !strcmp(s->part, part))) {
			*s = c->subs[--c->n_subs];
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/* --- the calibration a client waits for --------------------------------- */

void client_wait_calibration(struct client *c, struct skind_part *p)
{
	p->calibrate_client = c->id;
}

uint64_t client_take_calibration(struct skind_part *p)
{
	uint64_t id = p->calibrate_client;

	p->calibrate_client = 0;
	return id;
}
