// SPDX-License-Identifier: GPL-2.0
/*
 * port.c - a YARP port on an sd-event loop (port.h)
 *
 * Protocol from YARP 3.12.3: PortCore (admin commands and their replies),
 * PortCommand, TcpCarrier and TextCarrier (headers, replies to headers,
 * acks), AbstractCarrier (index), UdpCarrier and DgramTwoWayStream
 * (udp).  One struct conn per connection, in either direction, each a
 * small state machine fed by its socket (a udp reader's: TCP until it
 * has named its UDP port, then a connected UDP socket).
 */
#define _GNU_SOURCE	/* asprintf, accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "netguard.h"
#include "outq.h"
#include "port.h"
#include "skin_clock.h"

#define IN_MAX		65536	/* a command message, a header line */
#define NAME_MAX_LEN	255
#define MAX_ATOMS	16
#define OUT_SNDBUF	(64 * 1024)	/* per reader (the kernel doubles it) */
/* What a peer that sends commands may have waiting for it: past
 * REPLY_PAUSE its commands are not read (its own socket buffers fill and
 * its writes wait), REPLY_MAX bounds what one reply can add on top */
#define REPLY_PAUSE	(64 * 1024)
#define REPLY_MAX	(1024 * 1024)
#define MESSAGE_MAX	(16 * 1024 * 1024)	/* one message to a reader */
#define SWEEP_MS	500		/* the idle and stall checks (the */
#define SWEEP_SLACK_MS	250		/* ports' timers coalesce) */
#define HEADER_MS	2000		/* a peer says who it is within this */
#define ACCEPT_PAUSE_MS	100		/* no descriptor even in reserve */

enum state {
	/* connections to us */
	ST_HEADER,		/* 8 bytes: the carrier */
	ST_TEXT_NAME,		/* the sender's name, a line */
	ST_NAME_LEN,		/* int32 */
	ST_NAME,		/* the sender's name, NUL-terminated */
	ST_INDEX,		/* "YA 10 RP" + 10 bytes */
	ST_LENGTHS,		/* the block lengths */
	ST_BLOCKS,		/* the blocks */
	ST_TEXT_CMD,		/* a port command line */
	ST_TEXT_ADMIN,		/* an admin command line */
	ST_TEXT_DATA,		/* a data line */
	/* connections we open */
	ST_RESOLVING,
	ST_CONNECTING,
	ST_UDP_PORT,		/* udp: the reader's "YA <port> RP" */
	ST_READY,
};

struct resolve {
	struct conn *c;		/* NULL: the connection went away */
};

struct conn {
	struct yp_port *p;
	struct conn *next;
	int fd;
	sd_event_source *io;
	enum state st;
	bool out;		/* a data connection we opened to a reader */
	enum yw_carrier carrier;
	bool ack;		/* text_ack: "<ACK>" after each message */
	char peer[NAME_MAX_LEN + 1];
	char as[NAME_MAX_LEN + 1];	/* out: the target as [add] named it */
	uint8_t *in;
	size_t in_len, in_cap, need;
	unsigned int n_lengths;
	uint32_t total;
	struct outq sendq;	/* bytes not yet sent, bounded */
	uint64_t since_us;	/* in: the last byte in; out: connect() */
	uint64_t born_us;	/* accepted or opened */
	struct net_slot slot;	/* its place in the guard's counts */
	bool guarded;		/* holds @slot */
	struct yp_call *call;	/* the command being answered (in) */
	struct yp_call *waiter;	/* the admin [add] waiting for us (out) */
	struct resolve *res;
	bool closing;		/* close once @sendq is sent */
	bool parsing;		/* in parse(): replies must not recurse */
};

struct yp_call {
	struct conn *c;		/* NULL: the connection is gone */
	bool text, want_reply, admin;
};

struct yp_port {
	sd_event *e;
	struct yp_port_options o;
	char name[NAME_MAX_LEN + 1];
	int lfd;
	uint16_t number;
	sd_event_source *listen, *sweep, *resume;
	struct conn *conns;
	struct yp_port_stats st;
	struct yw_buf head;
	struct yw_buf dgrams;		/* a message as udp datagrams */
	struct net_guard *own_guard;	/* when the owner gave none */
};

static uint64_t now_us(void)
{
	return clock_monotonic_ns() / 1000;
}

static void conn_free(struct conn *c)
{
	struct conn **pp;

	for (pp = &c->p->conns; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->call)
		c->call->c = NULL;
	if (c->res)
		c->res->c = NULL;
	if (c->waiter) {
		struct yw_atom a[2] = {
			{ .type = YW_ATOM_INT, .i = -1 },
			{ .type = YW_ATOM_STRING },
		};

		snprintf(a[1].s, sizeof(a[1].s), "Cannot connect to %s", c->as);
		yp_call_reply(c->waiter, a, 2);
	}
	sd_event_source_disable_unref(c->io);
	if (c->fd >= 0)
		close(c->fd);
	if (c->guarded)
		net_guard_release(c->p->o.guard, &c->slot);
	free(c->in);
	outq_free(&c->sendq);
	free(c);
}

static struct conn *conn_new(struct yp_port *p, int fd, bool out)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->p = p;
	c->fd = fd;
	c->out = out;
	outq_init(&c->sendq, out ? MESSAGE_MAX : REPLY_PAUSE + REPLY_MAX);
	c->since_us = c->born_us = now_us();
	c->next = p->conns;
	p->conns = c;
	return c;
}

static void set_events(struct conn *c)
{
	uint32_t ev = 0;

	if (!c->io)
		return;
	/* a peer that leaves its replies unread is not read either */
	if (!c->call && outq_pending(&c->sendq) < REPLY_PAUSE)
		ev |= EPOLLIN;
	if (c->st == ST_CONNECTING || outq_pending(&c->sendq))
		ev |= EPOLLOUT;
	sd_event_source_set_io_events(c->io, ev);
}

/* Send what is pending; -errno when the connection broke. */
static int flush(struct conn *c)
{
	int r = outq_flush(&c->sendq, c->fd);

	set_events(c);
	return r;
}

/* Queue bytes for the peer (replies, headers: never skipped); past the
 * queue's bound the peer is one that does not read: -ENOBUFS, dropped */
static int queue(struct conn *c, const void *d, size_t n)
{
	int r = outq_put(&c->sendq, d, n);

	if (r == -ENOBUFS) {
		c->p->st.unread++;
		outq_free(&c->sendq);	/* nothing more for it: closed now */
	}
	return r < 0 ? r : flush(c);
}

static void conn_run(struct conn *c);

/*
 * Replies
 */
static void reply_raw(struct yp_call *call, const struct yw_buf *bin,
		      const struct yw_buf *text)
{
	struct conn *c = call->c;
	int r = 0;

	if (c) {
		c->call = NULL;
		if (call->want_reply)
			r = call->text ? queue(c, text->data, text->len) :
					 queue(c, bin->data, bin->len);
		if (!r && call->text && c->ack)
			r = queue(c, "<ACK>\r\n", 7);
		if (!r && !call->text && c->carrier == YW_TCP) {
			uint8_t ack[8];

			yw_number(ack, 0);
			r = queue(c, ack, 8);
		}
		if (r < 0)
			c->closing = true;
	}
	free(call);
	if (c && !c->parsing)
		conn_run(c);	/* an answer later: what came in meanwhile */
}

void yp_call_reply(struct yp_call *call, const struct yw_atom *atoms,
		   unsigned int n)
{
	struct yw_buf bin, text;
	enum yw_version v = call->c ? call->c->p->o.version : YW_YARP3;

	yw_buf_init(&bin);
	yw_buf_init(&text);
	if (call->text) {
		yw_atoms_text(&text, atoms, n);
		yw_put(&text, "\r\n", 2);
	} else {
		yw_atoms_bottle(&bin, v, atoms, n);
	}
	reply_raw(call, &bin, &text);
	yw_buf_free(&bin);
	yw_buf_free(&text);
}

/*
 * Data connections to readers
 */
static struct conn *find_out(struct yp_port *p, const char *name)
{
	struct conn *c;

	for (c = p->conns; c; c = c->next)
		if (c->out && !strcmp(c->peer, name))
			return c;
	return NULL;
}

/* @as: the target as the [add] named it, for the reply */
static int start_out(struct yp_port *p, const char *name, const char *as,
		     enum yw_carrier ca, struct yp_call *waiter)
{
	struct conn *c, *old = find_out(p, name);
	struct resolve *res;
	struct net_slot slot;

	/* the name goes to the name server: YARP's rules, nothing more */
	if (!yw_port_name_ok(name)) {
		p->st.refused++;
		return -EINVAL;
	}
	if (old)		/* [add] replaces, as PortCore::addOutput */
		conn_free(old);
	if (net_guard_take(p->o.guard, &slot) < 0)
		return -EMFILE;
	res = calloc(1, sizeof(*res));
	c = res ? conn_new(p, -1, true) : NULL;
	if (!c) {
		free(res);
		net_guard_release(p->o.guard, &slot);
		return -ENOMEM;
	}
	c->slot = slot;
	c->guarded = true;
	c->st = ST_RESOLVING;
	c->carrier = ca;
	snprintf(c->peer, sizeof(c->peer), "%s", name);
	snprintf(c->as, sizeof(c->as), "%s", as);
	c->waiter = waiter;
	c->res = res;
	res->c = c;
	p->o.resolve(p->o.data, name, res);
	return 0;
}

int yp_port_connect(struct yp_port *p, const char *name, enum yw_carrier c)
{
	return start_out(p, name, name, c, NULL);
}

bool yp_port_connected(const struct yp_port *p, const char *name)
{
	struct conn *c = find_out((struct yp_port *)p, name);

	return c && c->st == ST_READY;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data);

static void out_failed(struct conn *c)
{
	conn_free(c);		/* answers the waiter with -1 */
}

void yp_resolved(void *cookie, int err, const struct sockaddr_in *addr)
{
	struct resolve *res = cookie;
	struct conn *c = res->c;
	int r;

	free(res);
	if (!c)
		return;
	c->res = NULL;
	if (err) {
		if (c->waiter) {
			struct yw_atom a[2] = {
				{ .type = YW_ATOM_INT, .i = -1 },
				{ .type = YW_ATOM_STRING },
			};

			snprintf(a[1].s, sizeof(a[1].s),
				 "Do not know how to connect to %s", c->as);
			yp_call_reply(c->waiter, a, 2);
			c->waiter = NULL;
		}
		conn_free(c);
		return;
	}
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* A fixed send buffer (the kernel's autotuning would grow it to
	 * megabytes): a reader that stopped reading is seen as stalled once
	 * this and its receive buffer are full, seconds of data rather than
	 * minutes, and what a slow reader gets is never that old. */
	if (c->fd >= 0)
		setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &(int){ OUT_SNDBUF },
			   sizeof(int));
	if (c->fd < 0 || (connect(c->fd, (const struct sockaddr *)addr,
				  sizeof(*addr)) < 0 && errno != EINPROGRESS)) {
		out_failed(c);
		return;
	}
	r = sd_event_add_io(c->p->e, &c->io, c->fd, EPOLLOUT, on_io, c);
	if (r < 0) {
		out_failed(c);
		return;
	}
	c->st = ST_CONNECTING;
	c->since_us = now_us();	/* bounded by idle_ms (the sweep) */
}

static void out_ready(struct conn *c);

static void out_connected(struct conn *c)
{
	struct yp_port *p = c->p;
	struct yw_buf h;
	int err = 0, r;
	socklen_t el = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
		out_failed(c);
		return;
	}
	c->st = ST_READY;
	yw_buf_init(&h);
	yw_conn_header(&h, c->carrier, p->name);
	r = yw_buf_ok(&h) ? queue(c, h.data, h.len) : -ENOMEM;
	yw_buf_free(&h);
	if (r < 0) {
		out_failed(c);
		return;
	}
	if (c->carrier == YW_UDP) {
		c->st = ST_UDP_PORT;	/* answered when it names its port */
		c->since_us = now_us();
		return;
	}
	out_ready(c);
}

/* A reader's connection is up: the [add] that asked for it is answered */
static void out_ready(struct conn *c)
{
	struct yp_port *p = c->p;

	if (c->waiter) {
		struct yw_atom a[2] = {
			{ .type = YW_ATOM_INT, .i = 0 },
			{ .type = YW_ATOM_STRING },
		};

		/* PortCore::addOutput names the target as it was given */
		snprintf(a[1].s, sizeof(a[1].s), "Added connection from %s to %s",
			 p->name, c->as);
		yp_call_reply(c->waiter, a, 2);
		c->waiter = NULL;
	}
}

/* Whatever a reader sends us (the reply to our header, acks): read and
 * forgotten.  0, or -1 when it closed. */
static int drain(struct conn *c)
{
	char buf[4096];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n > 0)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		return -1;
	}
}

/*
 * udp (UdpCarrier::expectReplyToHeader): the reader has a UDP socket for
 * us and names its port, "YA <port> RP", on the TCP connection, which is
 * then done with; messages go to that port at the address the TCP
 * connection reached.  The UDP socket is connected: a reader that went
 * away is seen when the kernel reports its port unreachable.  0, or -1
 * when the reader failed.
 */
static int udp_port(struct conn *c)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int32_t port;
	ssize_t n;
	int fd;

	if (!c->in) {
		c->in = malloc(8);
		if (!c->in)
			return -1;
		c->in_cap = 8;
	}
	n = recv(c->fd, c->in + c->in_len, 8 - c->in_len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	c->in_len += (size_t)n;
	if (c->in_len < 8)
		return 0;
	if (yw_number_parse(c->in, &port) < 0 || port < 1 || port > 65535 ||
	    getpeername(c->fd, (struct sockaddr *)&sa, &sl) < 0) {
		c->p->st.refused++;
		return -1;
	}
	c->in_len = 0;
	sa.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* the same event source, now on the UDP socket */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    sd_event_source_set_io_fd(c->io, fd) < 0) {
		close(fd);
		return -1;
	}
	close(c->fd);
	c->fd = fd;
	outq_free(&c->sendq);	/* the header went over TCP */
	c->st = ST_READY;
	out_ready(c);
	set_events(c);
	return 0;
}

/* What comes back on a UDP reader's socket: datagrams (nothing a YARP
 * reader sends; discarded, a bounded batch per wake-up) and the errors
 * the kernel holds for it (its port unreachable: it went away).  0, or -1
 * when it is gone. */
static int udp_drain(struct conn *c)
{
	char buf[512];
	int i;

	for (i = 0; i < 64; i++) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n >= 0 || errno == EINTR)
			continue;
		return errno == EAGAIN ? 0 : -1;
	}
	return 0;
}

/* @pl with its message head as datagrams in p->dgrams, each prefixed with
 * its CRC and index: false when out of memory */
static bool cut_dgrams(struct yp_port *p, const struct yw_buf *pl)
{
	size_t msg = p->head.len + pl->len, off = 0;
	int32_t index = 0;

	yw_buf_reset(&p->dgrams);
	while (off < msg) {
		size_t n = msg - off < YW_DGRAM_MAX - YW_DGRAM_HEAD ?
			   msg - off : YW_DGRAM_MAX - YW_DGRAM_HEAD;
		size_t start = p->dgrams.len, k = 0;

		/* room for the head, then this slice of head + payload */
		yw_put(&p->dgrams, (uint8_t[YW_DGRAM_HEAD]){ 0 }, YW_DGRAM_HEAD);
		while (k < n) {
			size_t at = off + k, m;

			if (at < p->head.len) {
				m = p->head.len - at < n - k ? p->head.len - at : n - k;
				yw_put(&p->dgrams, p->head.data + at, m);
			} else {
				m = n - k;
				yw_put(&p->dgrams, pl->data + (at - p->head.len), m);
			}
			k += m;
		}
		if (!yw_buf_ok(&p->dgrams))
			return false;
		yw_dgram_head(p->dgrams.data + start,
			      p->dgrams.data + start + YW_DGRAM_HEAD, n, index++);
		off += n;
	}
	return true;
}

/* Send the datagrams of p->dgrams to a UDP reader: whole messages only (a
 * full socket buffer skips the message; the reader drops a cut one
 * anyway).  0, or -1 when the reader is gone. */
static int send_dgrams(struct conn *c)
{
	struct yp_port *p = c->p;
	size_t off = 0;

	while (off < p->dgrams.len) {
		size_t n = p->dgrams.len - off;
		ssize_t r;

		if (n > YW_DGRAM_MAX)
			n = YW_DGRAM_MAX;
		r = send(c->fd, p->dgrams.data + off, n, 0);
		if (r < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
			p->st.skipped++;
			return 0;
		}
		if (r < 0 && errno != EINTR)
			return -1;	/* ECONNREFUSED: its port is closed */
		if (r < 0)
			continue;
		off += n;
	}
	p->st.sent++;
	return 0;
}

void yp_port_write(struct yp_port *p, const struct yw_buf *bin,
		   const struct yw_buf *text, const char *envelope)
{
	struct conn *c, *next;
	uint64_t now = now_us();
	bool cut = false;

	p->st.written++;
	for (c = p->conns; c; c = next) {
		const struct yw_buf *pl = c->carrier == YW_TEXT ? text : bin;
		struct iovec iov[3];
		size_t total, sent;
		ssize_t n;
		int iovn;

		next = c->next;
		if (!c->out || c->st != ST_READY)
			continue;
		if (c->carrier == YW_UDP) {
			/* one cut for every udp reader of this message */
			if (!cut) {
				yw_buf_reset(&p->head);
				yw_msg_head(&p->head, envelope, false, bin->len);
				if (!yw_buf_ok(&p->head) || !cut_dgrams(p, bin))
					return;
				cut = true;
			}
			if (send_dgrams(c) < 0) {
				p->st.dropped++;
				conn_free(c);
			}
			continue;
		}
		if (outq_pending(&c->sendq)) {
			p->st.skipped++;
			if (outq_stalled(&c->sendq, now, p->o.stall_ms)) {
				p->st.dropped++;
				conn_free(c);
			}
			continue;
		}
		if (!pl)
			continue;	/* the owner sends no text: skip */
		yw_buf_reset(&p->head);
		if (c->carrier == YW_TEXT)
			yw_msg_head_text(&p->head, envelope, false);
		else
			yw_msg_head(&p->head, envelope, false, pl->len);
		if (!yw_buf_ok(&p->head))
			return;
		iov[0] = (struct iovec){ p->head.data, p->head.len };
		iov[1] = (struct iovec){ pl->data, pl->len };
		iovn = 2;
		if (c->carrier == YW_TEXT)
			iov[iovn++] = (struct iovec){ "\r\n", 2 };
		total = p->head.len + pl->len + (iovn == 3 ? 2 : 0);
		n = writev(c->fd, iov, iovn);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			conn_free(c);
			continue;
		}
		p->st.sent++;
		sent = n < 0 ? 0 : (size_t)n;
		if (sent < total) {
			/* the rest waits for room; later messages skip this reader */
			size_t off = sent;
			int i, r = 0;

			for (i = 0; i < iovn && !r; i++) {
				if (off >= iov[i].iov_len) {
					off -= iov[i].iov_len;
					continue;
				}
				r = outq_put(&c->sendq, (const uint8_t *)iov[i].iov_base + off,
					     iov[i].iov_len - off);
				off = 0;
			}
			if (r < 0) {
				conn_free(c);
				continue;
			}
			set_events(c);
		}
	}
}

/*
 * Connections to us
 */
static void admin(struct conn *c, const struct yw_atom *a, int n, bool text);
static void rpc(struct conn *c, const uint8_t *payload, size_t len,
		const char *line, bool want_reply);

static void refuse(struct conn *c)
{
	c->p->st.refused++;
	c->closing = true;
}

/* A line of the input, without its "\r\n" or "\n": its length, -1 if
 * there is none yet */
static ssize_t take_line(struct conn *c, char *line, size_t max)
{
	uint8_t *nl = memchr(c->in, '\n', c->in_len);
	size_t n, used;

	if (!nl)
		return -1;
	used = (size_t)(nl - c->in) + 1;
	n = used - 1;
	if (n && c->in[n - 1] == '\r')
		n--;
	if (n >= max)
		n = max - 1;
	memcpy(line, c->in, n);
	line[n] = '\0';
	memmove(c->in, c->in + used, c->in_len - used);
	c->in_len -= used;
	return (ssize_t)n;
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* A whole binary message is in: its port command and payload */
static void message(struct conn *c)
{
	const uint8_t *m = c->in + 4 * c->n_lengths;
	uint32_t first = le32(c->in);
	const uint8_t *payload;
	size_t plen;
	char ch;

	if (c->n_lengths < 1 || first < 8 || first > c->total || m[4] != '~') {
		refuse(c);
		return;
	}
	ch = (char)m[5];
	if (!ch) {
		/* "d <envelope>" as a NUL-terminated string */
		if (first == 8 || !memchr(m + 8, '\0', first - 8)) {
			refuse(c);
			return;
		}
		ch = (char)m[8];
	}
	payload = m + first;
	plen = c->total - first;
	if (ch == 'q') {
		c->closing = true;
	} else if (ch == 'a') {
		struct yw_atom a[MAX_ATOMS];
		int n = yw_parse_bottle(payload, plen, c->p->o.version, a, MAX_ATOMS);

		if (n < 0)
			refuse(c);
		else
			admin(c, a, n, false);
	} else if (ch == 'd' || ch == 'D') {
		rpc(c, payload, plen, NULL, ch == 'd');
	} else if (c->carrier == YW_TCP) {
		uint8_t ack[8];	/* a command we do not act on: acked */

		yw_number(ack, 0);
		if (queue(c, ack, 8) < 0)
			c->closing = true;
	}
	consume(c, 4 * c->n_lengths + c->total);
	c->st = ST_INDEX;
	c->need = 18;
}

/* Work through the input while it holds whole units and no command is
 * being answered. */
static void parse_units(struct conn *c);

static void parse(struct conn *c)
{
	c->parsing = true;
	parse_units(c);
	c->parsing = false;
}

/* Parse what is in, then close if asked to and all is sent; @c may be
 * freed. */
static void conn_run(struct conn *c)
{
	parse(c);
	if (c->in_len == IN_MAX + 64 && !c->call && !c->closing &&
	    outq_pending(&c->sendq) < REPLY_PAUSE)
		refuse(c);	/* a full buffer and no whole unit in it */
	if (!c->in_len && c->in_cap > 4096) {
		free(c->in);	/* a big message is done: its buffer too */
		c->in = NULL;
		c->in_cap = 0;
	}
	set_events(c);
	if (c->closing && !outq_pending(&c->sendq))
		conn_free(c);
}

static void parse_units(struct conn *c)
{
	char line[1024];

	/* a peer that leaves its replies unread gets no more of them */
	while (!c->call && !c->closing && outq_pending(&c->sendq) < REPLY_PAUSE) {
		switch (c->st) {
		case ST_HEADER: {
			int r;

			if (c->in_len < 8)
				return;
			r = yw_conn_header_parse(c->in, &c->carrier, &c->ack);
			/* commands come over a stream, never udp */
			if (r < 0 || c->carrier == YW_UDP) {
				refuse(c);
				return;
			}
			consume(c, 8);
			c->st = c->carrier == YW_TEXT ? ST_TEXT_NAME : ST_NAME_LEN;
			c->need = 4;
			break;
		}
		case ST_TEXT_NAME: {
			char w[NAME_MAX_LEN + 20];

			if (take_line(c, line, sizeof(line)) < 0)
				return;
			/* echoed in replies ([list] [in], "Welcome"): printable */
			if (!yw_peer_name_ok(line)) {
				refuse(c);
				return;
			}
			snprintf(c->peer, sizeof(c->peer), "%.255s", line);
			snprintf(w, sizeof(w), "Welcome %s\r\n", c->peer);
			if (queue(c, w, strlen(w)) < 0)
				c->closing = true;
			c->st = ST_TEXT_CMD;
			break;
		}
		case ST_NAME_LEN: {
			uint32_t n;

			if (c->in_len < 4)
				return;
			n = le32(c->in);
			if (n < 1 || n > NAME_MAX_LEN + 1) {
				refuse(c);
				return;
			}
			consume(c, 4);
			c->need = n;
			c->st = ST_NAME;
			break;
		}
		case ST_NAME: {
			uint8_t num[8];

			if (c->in_len < c->need)
				return;
			snprintf(c->peer, sizeof(c->peer), "%.*s", (int)c->need, c->in);
			if (!yw_peer_name_ok(c->peer)) {
				refuse(c);
				return;
			}
			consume(c, c->need);
			/* TcpCarrier::respondToHeader: our port number */
			yw_number(num, c->p->number);
			if (queue(c, num, 8) < 0)
				c->closing = true;
			c->st = ST_INDEX;
			c->need = 18;
			break;
		}
		case ST_INDEX: {
			int32_t len;

			if (c->in_len < 18)
				return;
			if (yw_number_parse(c->in, &len) < 0 || len != 10) {
				refuse(c);
				return;
			}
			c->n_lengths = (unsigned int)c->in[8] + c->in[9];
			consume(c, 18);
			c->need = 4 * c->n_lengths;
			c->st = ST_LENGTHS;
			break;
		}
		case ST_LENGTHS: {
			unsigned int i;
			uint64_t total = 0;

			if (c->in_len < c->need)
				return;
			for (i = 0; i < c->n_lengths; i++)
				total += le32(c->in + 4 * i);
			if (total > IN_MAX) {
				refuse(c);
				return;
			}
			c->total = (uint32_t)total;
			c->need = 4 * c->n_lengths + c->total;
			c->st = ST_BLOCKS;
			break;
		}
		case ST_BLOCKS:
			if (c->in_len < c->need)
				return;
			message(c);
			break;
		case ST_TEXT_CMD:
			if (take_line(c, line, sizeof(line)) < 0)
				return;
			if (!strcmp(line, "a"))
				c->st = ST_TEXT_ADMIN;
			else if (!strcmp(line, "q"))
				c->closing = true;
			else if (line[0] == 'd' || line[0] == 'D')
				c->st = ST_TEXT_DATA;	/* "d", "D", "d <envelope>" */
			else
				rpc(c, NULL, 0, line, true);	/* a bare line: a command */
			break;
		case ST_TEXT_ADMIN: {
			struct yw_atom a[MAX_ATOMS];
			int n;

			if (take_line(c, line, sizeof(line)) < 0)
				return;
			c->st = ST_TEXT_CMD;
			n = yw_parse_text(line, a, MAX_ATOMS);
			if (n < 0)
				refuse(c);
			else
				admin(c, a, n, true);
			break;
		}
		case ST_TEXT_DATA:
			if (take_line(c, line, sizeof(line)) < 0)
				return;
			c->st = ST_TEXT_CMD;
			rpc(c, NULL, 0, line, true);
			break;
		default:
			return;
		}
	}
}

static struct yp_call *call_new(struct conn *c, bool text, bool want_reply)
{
	struct yp_call *call = calloc(1, sizeof(*call));

	if (!call) {
		c->closing = true;
		return NULL;
	}
	call->c = c;
	call->text = text;
	call->want_reply = want_reply;
	c->call = call;
	set_events(c);
	return call;
}

static void rpc(struct conn *c, const uint8_t *payload, size_t len,
		const char *line, bool want_reply)
{
	struct yw_atom a[MAX_ATOMS];
	struct yp_call *call;
	int n;

	n = line ? yw_parse_text(line, a, MAX_ATOMS) :
		   yw_parse_bottle(payload, len, c->p->o.version, a, MAX_ATOMS);
	call = call_new(c, line != NULL, want_reply);
	if (!call)
		return;
	if (!c->p->o.rpc || n < 0) {
		struct yw_atom e[1] = { { .type = YW_ATOM_STRING } };

		snprintf(e[0].s, sizeof(e[0].s), "%s",
			 c->p->o.rpc ? "malformed command" : "this port takes no commands");
		c->p->st.refused++;
		yp_call_reply(call, e, 1);
		return;
	}
	c->p->o.rpc(c->p->o.data, call, a, (unsigned int)n);
}

static bool is(const struct yw_atom *a, const char *s)
{
	return (a->type == YW_ATOM_STRING || a->type == YW_ATOM_VOCAB) &&
	       !strcmp(a->s, s);
}

static void admin(struct conn *c, const struct yw_atom *a, int n, bool text)
{
	struct yp_port *p = c->p;
	struct yp_call *call = call_new(c, text, true);
	struct yw_atom r[MAX_ATOMS];
	struct conn *o;
	unsigned int k = 0;

	if (!call)
		return;
	memset(r, 0, sizeof(r));
	if (n >= 2 && is(&a[0], "add")) {
		enum yw_carrier ca = YW_TCP;
		char name[NAME_MAX_LEN + 1];
		const char *t = a[1].s, *sep = strstr(t, ":/");

		/* "carrier://name" (`yarp connect` sends "tcp://dst") or a
		 * carrier as a third word */
		if (sep) {
			char cn[16];

			snprintf(cn, sizeof(cn), "%.*s", (int)(sep - t), t);
			t = sep + 2;	/* "tcp:/" + "/dst" */
			if (yw_carrier_parse(cn, &ca) < 0)
				goto unknown_carrier;
		} else if (n >= 3 && yw_carrier_parse(a[2].s, &ca) < 0) {
			goto unknown_carrier;
		}
		snprintf(name, sizeof(name), "%.255s", t);
		if (start_out(p, name, a[1].s, ca, call) < 0) {
			r[0] = (struct yw_atom){ .type = YW_ATOM_INT, .i = -1 };
			r[1].type = YW_ATOM_STRING;
			snprintf(r[1].s, sizeof(r[1].s), "Cannot connect to %.255s", a[1].s);
			yp_call_reply(call, r, 2);
		}
		return;	/* answered when the connection is up, or failed */
unknown_carrier:
		r[0] = (struct yw_atom){ .type = YW_ATOM_INT, .i = -1 };
		r[1].type = YW_ATOM_STRING;
		snprintf(r[1].s, sizeof(r[1].s),
			 "Do not know how to connect to %.255s (carriers: tcp, fast_tcp, text, udp)",
			 a[1].s);
		yp_call_reply(call, r, 2);
		return;
	}
	if (n >= 2 && is(&a[0], "del")) {
		o = find_out(p, a[1].s);
		r[0] = (struct yw_atom){ .type = YW_ATOM_INT, .i = o ? 0 : -1 };
		r[1].type = YW_ATOM_STRING;
		if (o)
			snprintf(r[1].s, sizeof(r[1].s), "Removed connection from %.255s to %.255s",
				 p->name, o->peer);
		else
			snprintf(r[1].s, sizeof(r[1].s),
				 "Could not find an outgoing connection to %.255s", a[1].s);
		if (o)
			conn_free(o);
		yp_call_reply(call, r, 2);
		return;
	}
	if (n >= 2 && is(&a[0], "list") && is(&a[1], "out")) {
		struct yw_buf bin, txt;

		yw_buf_init(&bin);
		yw_buf_init(&txt);
		if (n >= 3) {
			o = find_out(p, a[2].s);
			if (o && o->st == ST_READY) {
				/* describeRoute(): (from A) (to B) (carrier C) */
				const char *kv[3][2] = {
					{ "from", p->name }, { "to", o->peer },
					{ "carrier", yw_carrier_name(o->carrier) },
				};
				unsigned int i;

				yw_bottle_begin(&bin, YW_TAG_LIST, 3);
				for (i = 0; i < 3; i++) {
					yw_put_i32(&bin, YW_TAG_LIST + YW_TAG_STRING);
					yw_put_i32(&bin, 2);
					yw_put_i32(&bin, (int32_t)strlen(kv[i][0]));
					yw_put_str(&bin, kv[i][0]);
					yw_put_i32(&bin, (int32_t)strlen(kv[i][1]));
					yw_put_str(&bin, kv[i][1]);
					yw_put_str(&txt, i ? " (" : "(");
					yw_put_str(&txt, kv[i][0]);
					yw_put_str(&txt, " \"");
					yw_put_str(&txt, kv[i][1]);
					yw_put_str(&txt, "\")");
				}
			} else {
				yw_bottle_begin(&bin, YW_TAG_LIST, 0);
			}
		} else {
			for (o = p->conns; o && k < MAX_ATOMS; o = o->next)
				if (o->out && o->st == ST_READY) {
					r[k].type = YW_ATOM_STRING;
					snprintf(r[k].s, sizeof(r[k].s), "%s", o->peer);
					k++;
				}
			yw_atoms_bottle(&bin, p->o.version, r, k);
			yw_atoms_text(&txt, r, k);
		}
		yw_put(&txt, "\r\n", 2);
		reply_raw(call, &bin, &txt);
		yw_buf_free(&bin);
		yw_buf_free(&txt);
		return;
	}
	if (n >= 2 && is(&a[0], "list") && is(&a[1], "in")) {
		for (o = p->conns; o && k < MAX_ATOMS; o = o->next)
			if (!o->out && o != c && o->peer[0] && strcmp(o->peer, "admin")) {
				r[k].type = YW_ATOM_STRING;
				snprintf(r[k].s, sizeof(r[k].s), "%s", o->peer);
				k++;
			}
		yp_call_reply(call, r, k);
		return;
	}
	if (n >= 1 && is(&a[0], "ver")) {
		r[0] = (struct yw_atom){ .type = YW_ATOM_VOCAB, .s = "ver" };
		r[1] = (struct yw_atom){ .type = YW_ATOM_INT, .i = 1 };
		r[2] = (struct yw_atom){ .type = YW_ATOM_INT, .i = 2 };
		r[3] = (struct yw_atom){ .type = YW_ATOM_INT, .i = 3 };
		yp_call_reply(call, r, 4);
		return;
	}
	if (n >= 1 && is(&a[0], "help")) {
		static const char *const help[] = {
			"[help]                  # give this help",
			"[ver]                   # report protocol version information",
			"[add] $portname         # add an output connection",
			"[add] $portname $car    # add an output with a given protocol",
			"[del] $portname         # remove an output connection",
			"[list] [in]             # list input connections",
			"[list] [out]            # list output connections",
			"[list] [out] $portname  # give details for output",
		};
		unsigned int i;

		r[0] = (struct yw_atom){ .type = YW_ATOM_VOCAB, .s = "many" };
		for (i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
			r[i + 1].type = YW_ATOM_STRING;
			snprintf(r[i + 1].s, sizeof(r[i + 1].s), "%s", help[i]);
		}
		yp_call_reply(call, r, i + 1);
		return;
	}
	r[0] = (struct yw_atom){ .type = YW_ATOM_VOCAB, .s = "fail" };
	r[1] = (struct yw_atom){ .type = YW_ATOM_STRING,
				 .s = "send [help] for list of valid commands" };
	yp_call_reply(call, r, 2);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct conn *c = data;

	(void)s;
	(void)fd;
	if (c->st == ST_CONNECTING) {
		out_connected(c);
		return 0;
	}
	if (c->carrier == YW_UDP && c->out) {
		if ((revents & EPOLLOUT) && flush(c) < 0) {
			conn_free(c);
			return 0;
		}
		if (c->st == ST_UDP_PORT ?
		    (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) && udp_port(c) < 0 :
		    (revents & (EPOLLIN | EPOLLERR)) && udp_drain(c) < 0) {
			if (c->st == ST_READY)
				c->p->st.dropped++;
			conn_free(c);
		}
		return 0;
	}
	if ((revents & EPOLLOUT) && flush(c) < 0) {
		conn_free(c);
		return 0;
	}
	if (c->out) {
		if ((revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) && drain(c) < 0)
			conn_free(c);
		return 0;
	}
	if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		for (;;) {
			ssize_t n;

			if (c->in_len == IN_MAX + 64 || c->call ||
			    outq_pending(&c->sendq) >= REPLY_PAUSE)
				break;
			if (c->in_len == c->in_cap) {
				/* grown as a message needs it: an idle or
				 * chatty peer holds 4 KB, not 64 */
				size_t cap = c->in_cap ? 2 * c->in_cap : 4096;
				uint8_t *in;

				if (cap > IN_MAX + 64)
					cap = IN_MAX + 64;
				in = realloc(c->in, cap);
				if (!in) {
					conn_free(c);
					return 0;
				}
				c->in = in;
				c->in_cap = cap;
			}
			n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n <= 0) {
				conn_free(c);	/* closed: a call in flight is orphaned */
				return 0;
			}
			c->in_len += (size_t)n;
			c->since_us = now_us();
			parse(c);
			if (c->closing)
				break;
		}
	}
	conn_run(c);
	return 0;
}

static int on_resume(sd_event_source *s, uint64_t usec, void *data)
{
	struct yp_port *p = data;

	(void)s;
	(void)usec;
	sd_event_source_set_enabled(p->listen, SD_EVENT_ON);
	return 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct yp_port *p = data;
	struct net_slot slot;
	struct conn *c;
	int cfd, n;

	(void)revents;
	/* a bounded batch: the other sources have their turn between */
	for (n = 0; n < 64; n++) {
		cfd = net_guard_accept(p->o.guard, fd, &slot);
		if (cfd == -ECONNREFUSED) {
			p->st.refused_conns++;
			continue;
		}
		if (cfd == -EMFILE) {
			/* not even the reserve: the listener rests a moment
			 * rather than wake the loop for ever */
			p->st.refused_conns++;
			sd_event_source_set_enabled(s, SD_EVENT_OFF);
			sd_event_source_set_time_relative(p->resume,
							  ACCEPT_PAUSE_MS * 1000);
			sd_event_source_set_enabled(p->resume, SD_EVENT_ONESHOT);
			return 0;
		}
		if (cfd < 0)
			return 0;
		c = conn_new(p, cfd, false);
		if (!c) {
			close(cfd);
			net_guard_release(p->o.guard, &slot);
			continue;
		}
		c->slot = slot;
		c->guarded = true;
		c->st = ST_HEADER;
		c->need = 8;
		if (sd_event_add_io(p->e, &c->io, cfd, EPOLLIN, on_io, c) < 0)
			conn_free(c);
	}
	return 0;
}

/* Whether connection @c to us has not said who it is yet (a YARP peer
 * sends its header as it connects) */
static bool unnamed(const struct conn *c)
{
	return !c->out && (c->st == ST_HEADER || c->st == ST_TEXT_NAME ||
			   c->st == ST_NAME_LEN || c->st == ST_NAME);
}

bool yp_port_evict(struct yp_port *p)
{
	struct conn *c, *oldest = NULL;

	for (c = p->conns; c; c = c->next)
		if (unnamed(c) && (!oldest || c->born_us < oldest->born_us))
			oldest = c;
	if (!oldest)
		return false;
	conn_free(oldest);	/* counted by the guard (evicted) */
	return true;
}

static bool evict_own(void *data)
{
	return yp_port_evict(data);
}

/*
 * Every SWEEP_MS: a connection to us that has not sent its header within
 * HEADER_MS, or has sent nothing for idle_ms in the middle of a message,
 * one that has left its replies unread for stall_ms, and a connection of
 * ours still not up after idle_ms are closed (counted).  A connection
 * between messages may stay idle for ever (an rpc client, a GUI).
 */
static int on_sweep(sd_event_source *s, uint64_t usec, void *data)
{
	struct yp_port *p = data;
	struct conn *c, *next;
	uint64_t now = now_us(), idle = (uint64_t)p->o.idle_ms * 1000;

	for (c = p->conns; c; c = next) {
		next = c->next;
		if (c->out) {
			if ((c->st == ST_CONNECTING || c->st == ST_UDP_PORT) &&
			    now - c->since_us > idle) {
				out_failed(c);
			} else if (c->st == ST_READY &&
				   outq_stalled(&c->sendq, now, p->o.stall_ms)) {
				p->st.dropped++;	/* and nothing written since */
				conn_free(c);
			}
			continue;
		}
		if (outq_stalled(&c->sendq, now, p->o.stall_ms)) {
			p->st.unread++;
			conn_free(c);
		} else if (unnamed(c) ? now - c->born_us > HEADER_MS * 1000 :
			   !c->call && !outq_pending(&c->sendq) && c->in_len &&
			   now - c->since_us > idle) {
			p->st.timed_out++;
			conn_free(c);
		}
	}
	sd_event_source_set_time(s, usec + SWEEP_MS * 1000);
	return 0;
}

int yp_port_new(struct yp_port **pp, sd_event *e,
		const struct yp_port_options *o)
{
	struct yp_port *p;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int one = 1, r;

	if (!o->name || o->name[0] != '/' || strlen(o->name) > NAME_MAX_LEN ||
	    !o->resolve)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->e = e;
	p->o = *o;
	if (!p->o.stall_ms)
		p->o.stall_ms = 3000;
	if (!p->o.idle_ms)
		p->o.idle_ms = 10000;
	if (!p->o.guard) {
		struct net_guard_limits l = { 0, 0 };

		r = net_guard_new(&p->own_guard, &l);
		if (r < 0) {
			free(p);
			return r;
		}
		p->o.guard = p->own_guard;
		net_guard_set_room(p->own_guard, evict_own, p);
	}
	snprintf(p->name, sizeof(p->name), "%s", o->name);
	p->o.name = p->name;
	yw_buf_init(&p->head);
	yw_buf_init(&p->dgrams);
	p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->lfd < 0) {
		r = -errno;
		goto fail;
	}
	setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr = o->bind;
	sa.sin_port = htons(o->port);
	if (bind(p->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(p->lfd, 16) < 0 ||
	    getsockname(p->lfd, (struct sockaddr *)&sa, &sl) < 0) {
		r = -errno;
		goto fail;
	}
	p->number = ntohs(sa.sin_port);
	r = sd_event_add_io(e, &p->listen, p->lfd, EPOLLIN, on_accept, p);
	if (r >= 0)
		r = sd_event_add_time_relative(e, &p->resume, CLOCK_MONOTONIC,
					       ACCEPT_PAUSE_MS * 1000, 0, on_resume, p);
	if (r >= 0)
		r = sd_event_source_set_enabled(p->resume, SD_EVENT_OFF);
	if (r >= 0)
		r = sd_event_add_time_relative(e, &p->sweep, CLOCK_MONOTONIC,
					       SWEEP_MS * 1000, SWEEP_SLACK_MS * 1000,
					       on_sweep, p);
	if (r >= 0)
		r = sd_event_source_set_enabled(p->sweep, SD_EVENT_ON);
	if (r < 0)
		goto fail;
	*pp = p;
	return 0;
fail:
	sd_event_source_disable_unref(p->listen);
	sd_event_source_disable_unref(p->resume);
	sd_event_source_disable_unref(p->sweep);
	if (p->lfd >= 0)
		close(p->lfd);
	net_guard_free(p->own_guard);
	free(p);
	return r;
}

void yp_port_free(struct yp_port *p)
{
	struct conn *c, *next;

	if (!p)
		return;
	/* connections to us first: an [add] they wait for is answered
	 * into nothing when its connection goes */
	for (c = p->conns; c; c = next) {
		next = c->next;
		if (!c->out)
			conn_free(c);
	}
	while (p->conns)
		conn_free(p->conns);
	sd_event_source_disable_unref(p->listen);
	sd_event_source_disable_unref(p->resume);
	sd_event_source_disable_unref(p->sweep);
	close(p->lfd);
	yw_buf_free(&p->head);
	yw_buf_free(&p->dgrams);
	net_guard_free(p->own_guard);
	free(p);
}

const char *yp_port_name(const struct yp_port *p)
{
	return p->name;
}

uint16_t yp_port_number(const struct yp_port *p)
{
	return p->number;
}

void yp_port_stats(const struct yp_port *p, struct yp_port_stats *s)
{
	*s = p->st;
	s->readers = yp_port_readers(p);
}

unsigned int yp_port_readers(const struct yp_port *p)
{
	const struct conn *c;
	unsigned int n = 0;

	for (c = p->conns; c; c = c->next)
		n += c->out && c->st == ST_READY;
	return n;
}

bool yp_port_wants_text(const struct yp_port *p)
{
	const struct conn *c;

	for (c = p->conns; c; c = c->next)
		if (c->out && c->carrier == YW_TEXT)
			return true;
	return false;
}
