// SPDX-License-Identifier: GPL-2.0
/*
 * server.c - skin-view's HTTP and WebSocket server (server.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "log.h"
#include "outq.h"
#include "server.h"
#include "skin_clock.h"

#define TOPIC_PREFIX	"/skin"
#define CHECK_PERIOD_US	1000000ull	/* the idle and stall checks */
#define MAX_SUBS	1024		/* a client's subscriptions */
#define KILL_AFTER_S	2		/* a close that was not sent by then */
/* The kernel's send buffer of a client: what it holds for a client that
 * does not read is bounded by this (not tcp_wmem's megabytes), and such
 * a client's stall shows within a second of samples */
#define CLIENT_SNDBUF	(64 * 1024)
/* RFC 6455's registry (IANA), newer than libwebsockets 4.1's list */
#define CLOSE_TRY_AGAIN_LATER	1013

/* A channel's sample, shared by the clients it is pending for: the
 * WebSocket header's room, the Message Data header, the CDR payload.
 * The headers are written just before each client's write (one thread:
 * one write at a time). */
struct blob {
	unsigned int refs;
	size_t len;			/* of the CDR payload */
	uint64_t ns;
	uint8_t data[];			/* LWS_PRE + FOX_DATA_HEADER + len */
};

struct chan {
	struct fox_channel fc;
	bool used;
	struct blob *latest;
};

struct sub {
	uint32_t id;
	uint32_t chan;
	struct blob *pending;		/* the newest sample not sent yet */
};

/* A WebSocket client: libwebsockets' per-session memory (zeroed) */
struct client {
	struct client *prev, *next;
	struct lws *wsi;
	char addr[64];
	struct sub *subs;
	unsigned int n_subs, next_sub;
	struct outq replies;		/* [u32 length][text] each */
	uint8_t *rx;
	size_t rx_len;
	uint64_t said_us;		/* its last message, or its arrival */
	uint64_t progress_us;		/* its last write, or since pending */
	int close_code;			/* to be closed with this, when set */
	char close_why[100];
	bool killed, listed;
};

/* A TCP connection's address, counted from its accept to its end: what
 * libwebsockets accepted is told to protocol 0 (FILTER_NETWORK_CONNECTION,
 * with the address), then its connection is made (WSI_CREATE, at once,
 * in the same call), later ended (WSI_DESTROY) */
struct peer {
	struct peer *next;
	char addr[INET6_ADDRSTRLEN];
	unsigned int conns;
};

/* A connection counted against a peer (by its wsi: libwebsockets keeps
 * a wsi's opaque user data for itself on adoption) */
struct held {
	struct held *next;
	const struct lws *wsi;
	struct peer *peer;
};

struct server {
	struct view_config cfg;
	sd_event *e;
	sd_event_source *check;
	struct lws_context *ctx;
	struct lws_vhost *vh;
	struct lws_http_mount mount;
	struct lws_protocols protocols[5];
	struct client *clients;
	struct chan *chans;
	unsigned int n_chans;
	uint32_t next_id;
	uint8_t *txbuf;			/* LWS_PRE + a reply */
	size_t txcap;
	char session[32];
	struct peer *peers;		/* the addresses connections are held from */
	struct peer *accepted;		/* the one accepted, until its WSI_CREATE */
	struct held *held;		/* the connections counted */
	struct server_stats st;
};

static uint64_t now_us(void)
{
	return clock_monotonic_ns() / 1000;
}

static void blob_put(struct blob *b)
{
	if (b && !--b->refs)
		free(b);
}

static struct blob *blob_get(struct blob *b)
{
	if (b)
		b->refs++;
	return b;
}

static struct chan *chan_find(struct server *s, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < s->n_chans; i++)
		if (s->chans[i].used && s->chans[i].fc.id == id)
			return &s->chans[i];
	return NULL;
}

static bool client_pending(const struct client *c)
{
	unsigned int i;

	if (outq_pending(&c->replies))
		return true;
	for (i = 0; i < c->n_subs; i++)
		if (c->subs[i].pending)
			return true;
	return false;
}

static void want_write(struct client *c)
{
	if (!c->killed)
		lws_callback_on_writable(c->wsi);
}

/* Close @c with @code at its next write; a client that takes nothing is
 * dropped KILL_AFTER_S later all the same */
static void client_close(struct client *c, int code, const char *why)
{
	if (c->close_code)
		return;
	c->close_code = code;
	snprintf(c->close_why, sizeof(c->close_why), "%s", why);
	log_info("client %s: closed (%d %s)", c->addr, code, why);
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, KILL_AFTER_S);
	want_write(c);
}

/* A reply queued whole, or the client closed */
static void client_reply(struct server *s, struct client *c, char *text)
{
	uint32_t n;

	if (!text) {
		client_close(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "out of memory");
		return;
	}
	n = (uint32_t)strlen(text);
	if (!outq_pending(&c->replies) && !client_pending(c))
		c->progress_us = now_us();
	if (outq_pending(&c->replies) + 4 + n > c->replies.limit ||
	    outq_put(&c->replies, &n, 4) || outq_put(&c->replies, text, n)) {
		s->st.closed_queue++;
		client_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION,
			     "replies not taken: queue full");
	} else {
		want_write(c);
	}
	free(text);
}

static void status(struct server *s, struct client *c, int level,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void status(struct server *s, struct client *c, int level,
		   const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	client_reply(s, c, fox_status(level, msg));
}

static void advertise_all(struct server *s, struct client *c)
{
	const struct fox_channel **v = calloc(s->n_chans ? s->n_chans : 1, sizeof(*v));
	unsigned int i, n = 0;

	if (!v) {
		client_reply(s, c, NULL);
		return;
	}
	for (i = 0; i < s->n_chans; i++)
		if (s->chans[i].used)
			v[n++] = &s->chans[i].fc;
	/* the specification: at least one advertise, even of nothing */
	client_reply(s, c, fox_advertise(v, n));
	free(v);
}

static unsigned int clients_from(const struct server *s, const char *addr)
{
	const struct client *c;
	unsigned int n = 0;

	for (c = s->clients; c; c = c->next)
		n += !strcmp(c->addr, addr);
	return n;
}

static void sub_drop(struct client *c, unsigned int i)
{
	blob_put(c->subs[i].pending);
	c->subs[i] = c->subs[--c->n_subs];
}

static int find_sub(const struct client *c, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < c->n_subs; i++)
		if (c->subs[i].id == id)
			return (int)i;
	return -1;
}

static void subscribe(struct server *s, struct client *c,
		      const struct fox_request *r)
{
	unsigned int i, k;

	for (i = 0; i < r->n_subs; i++) {
		const struct fox_sub *q = &r->subs[i];
		struct chan *ch = chan_find(s, q->channel);
		bool twice = false;

		if (find_sub(c, q->id) >= 0) {
			status(s, c, 2, "subscribe: id %" PRIu32 " is in use", q->id);
			continue;
		}
		if (!ch) {
			status(s, c, 2, "subscribe: no channel %" PRIu32, q->channel);
			continue;
		}
		for (k = 0; k < c->n_subs; k++)
			twice |= c->subs[k].chan == q->channel;
		if (twice) {
			status(s, c, 2, "subscribe: channel %" PRIu32 " is subscribed already",
			       q->channel);
			continue;
		}
		if (c->n_subs == MAX_SUBS) {
			status(s, c, 2, "subscribe: more than %u subscriptions", MAX_SUBS);
			return;
		}
		if (!(c->n_subs & (c->n_subs - 1)) || !c->subs) {
			struct sub *ns = realloc(c->subs, (c->n_subs ? 2 * c->n_subs : 4) *
						 sizeof(*ns));

			if (!ns) {
				client_reply(s, c, NULL);
				return;
			}
			c->subs = ns;
		}
		/* the channel's newest sample first: a part that publishes
		 * rarely is shown at once */
		c->subs[c->n_subs++] = (struct sub){ q->id, q->channel,
						      blob_get(ch->latest) };
		if (ch->latest) {
			if (!client_pending(c))
				c->progress_us = now_us();
			want_write(c);
		}
	}
}

static void unsubscribe(struct server *s, struct client *c,
			const struct fox_request *r)
{
	unsigned int i;
	int k;

	for (i = 0; i < r->n_subs; i++) {
		k = find_sub(c, r->subs[i].id);
		if (k < 0)
			status(s, c, 1, "unsubscribe: no subscription %" PRIu32,
			       r->subs[i].id);
		else
			sub_drop(c, (unsigned int)k);
	}
}

/* A whole text message of the client.  0, or -1 to close it. */
static int on_message(struct server *s, struct client *c)
{
	struct fox_request r;
	char why[128];
	int rc = fox_parse_request((const char *)c->rx, c->rx_len, MAX_SUBS,
				   &r, why, sizeof(why));

	if (rc == -EPROTO) {
		s->st.closed_malformed++;
		client_close(c, LWS_CLOSE_STATUS_INVALID_PAYLOAD, why);
		return 0;
	}
	if (rc == -EBADMSG || rc == -E2BIG) {
		status(s, c, 2, "%s: %s", r.op_name[0] ? r.op_name : "request", why);
		return 0;
	}
	if (rc) {
		client_reply(s, c, NULL);
		return 0;
	}
	switch (r.op) {
	case FOX_REQ_SUBSCRIBE:
		subscribe(s, c, &r);
		break;
	case FOX_REQ_UNSUBSCRIBE:
		unsubscribe(s, c, &r);
		break;
	case FOX_REQ_OTHER:
		status(s, c, 2, "op \"%s\" is not offered: this server is read-only",
		       r.op_name);
		break;
	}
	fox_request_free(&r);
	return 0;
}

static int on_receive(struct server *s, struct client *c, const void *in,
		      size_t len)
{
	struct lws *wsi = c->wsi;
	uint8_t *nb;

	c->said_us = now_us();
	if (c->close_code)
		return 0;		/* what it says now is not read */
	if (lws_frame_is_binary(wsi)) {
		s->st.closed_malformed++;
		client_close(c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
			     "binary messages are not taken: no clientPublish");
		return 0;
	}
	if (lws_is_first_fragment(wsi))
		c->rx_len = 0;
	if (c->rx_len + len > s->cfg.max_frame) {
		char why[64];

		s->st.closed_oversize++;
		snprintf(why, sizeof(why), "message over %u bytes", s->cfg.max_frame);
		client_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, why);
		c->rx_len = 0;
		return 0;
	}
	nb = realloc(c->rx, c->rx_len + len + 1);
	if (!nb) {
		client_reply(s, c, NULL);
		return 0;
	}
	c->rx = nb;
	memcpy(c->rx + c->rx_len, in, len);
	c->rx_len += len;
	if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
		return 0;
	return on_message(s, c);
}

/* One write: a reply first, else a subscription's pending sample, in
 * turn.  0, or -1 to close. */
static int on_writable(struct server *s, struct client *c)
{
	struct lws *wsi = c->wsi;
	unsigned int i;
	int n;

	if (c->close_code) {
		lws_close_reason(wsi, (enum lws_close_status)c->close_code,
				 (unsigned char *)c->close_why, strlen(c->close_why));
		return -1;
	}
	if (outq_pending(&c->replies)) {
		struct outq *q = &c->replies;
		uint32_t len;

		memcpy(&len, q->data + q->off, 4);
		if (LWS_PRE + len > s->txcap) {
			uint8_t *nb = realloc(s->txbuf, LWS_PRE + len);

			if (!nb)
				return -1;
			s->txbuf = nb;
			s->txcap = LWS_PRE + len;
		}
		memcpy(s->txbuf + LWS_PRE, q->data + q->off + 4, len);
		outq_drop(q, 4 + (size_t)len);
		n = lws_write(wsi, s->txbuf + LWS_PRE, len, LWS_WRITE_TEXT);
		if (n < (int)len)
			return -1;
	} else {
		struct sub *sub = NULL;
		struct blob *b;

		for (i = 0; i < c->n_subs && !sub; i++) {
			unsigned int k = (c->next_sub + i) % c->n_subs;

			if (c->subs[k].pending) {
				sub = &c->subs[k];
				c->next_sub = k + 1;
			}
		}
		if (!sub)
			return 0;
		size_t len;

		b = sub->pending;
		sub->pending = NULL;
		len = FOX_DATA_HEADER + b->len;
		fox_data_header(b->data + LWS_PRE, sub->id, b->ns);
		n = lws_write(wsi, b->data + LWS_PRE, len, LWS_WRITE_BINARY);
		blob_put(b);
		if (n < (int)len)
			return -1;
		s->st.frames++;
	}
	c->progress_us = now_us();
	if (client_pending(c))
		want_write(c);
	return 0;
}

static int on_established(struct server *s, struct client *c, struct lws *wsi)
{
	unsigned int from;

	c->wsi = wsi;
	lws_get_peer_simple(wsi, c->addr, sizeof(c->addr));
	from = clients_from(s, c->addr);
	if (s->st.clients >= s->cfg.max_clients || from >= s->cfg.max_per_address) {
		char why[80];

		s->st.refused_cap++;
		snprintf(why, sizeof(why), "%s: try again later",
			 from >= s->cfg.max_per_address ?
			 "too many clients from this address" : "too many clients");
		log_info("client %s: refused (%s)", c->addr, why);
		lws_close_reason(wsi, (enum lws_close_status)CLOSE_TRY_AGAIN_LATER,
				 (unsigned char *)why, strlen(why));
		return -1;
	}
	{
		int sndbuf = CLIENT_SNDBUF;

		setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &sndbuf,
			   sizeof(sndbuf));
	}
	c->next = s->clients;
	if (s->clients)
		s->clients->prev = c;
	s->clients = c;
	c->listed = true;
	s->st.clients++;
	s->st.accepted++;
	outq_init(&c->replies, s->cfg.queue_bytes);
	c->said_us = c->progress_us = now_us();
	client_reply(s, c, fox_server_info("skin-view " SKIN_VERSION, s->session));
	advertise_all(s, c);
	return 0;
}

static void on_closed(struct server *s, struct client *c)
{
	if (!c->listed)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->listed = false;
	s->st.clients--;
	while (c->n_subs)
		sub_drop(c, c->n_subs - 1);
	free(c->subs);
	free(c->rx);
	outq_free(&c->replies);
}

static int fox_callback(struct lws *wsi, enum lws_callback_reasons reason,
			void *user, void *in, size_t len)
{
	struct server *s = lws_context_user(lws_get_context(wsi));
	struct client *c = user;

	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED:
		return on_established(s, c, wsi);
	case LWS_CALLBACK_CLOSED:
		on_closed(s, c);
		return 0;
	case LWS_CALLBACK_RECEIVE:
		return c->listed ? on_receive(s, c, in, len) : -1;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return c->listed ? on_writable(s, c) : -1;
	default:
		return 0;
	}
}

/* The page's files (the mount) and the WebSocket upgrades that named no
 * subprotocol of ours */
static void peer_put(struct server *s, struct peer *p)
{
	struct peer **pp;

	if (!p || --p->conns)
		return;
	for (pp = &s->peers; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	free(p);
}

/* A connection accepted from @sa: counted against its address, or
 * refused (false) over max_connections_per_address */
static bool peer_accept(struct server *s, const struct sockaddr_storage *sa)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	struct peer *p;

	if (sa->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr,
			  sizeof(addr));
	else if (sa->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr,
			  sizeof(addr));
	/* one accepted that never became a connection: not held */
	peer_put(s, s->accepted);
	s->accepted = NULL;
	for (p = s->peers; p && strcmp(p->addr, addr); p = p->next)
		;
	if (p && p->conns >= s->cfg.max_connections_per_address) {
		if (s->st.refused_addr++ % 1000 == 0)
			log_info("connections from %s refused: %u held (%llu refused so far)",
				 addr, p->conns, (unsigned long long)s->st.refused_addr);
		return false;
	}
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return false;
		snprintf(p->addr, sizeof(p->addr), "%s", addr);
		p->next = s->peers;
		s->peers = p;
	}
	p->conns++;
	s->accepted = p;
	return true;
}

static int http_callback(struct lws *wsi, enum lws_callback_reasons reason,
			 void *user, void *in, size_t len)
{
	static const char why[] = "subprotocol foxglove.websocket.v1 needed";
	struct server *s = lws_context_user(lws_get_context(wsi));

	switch (reason) {
	case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: {
		const struct lws_filter_network_conn_args *a = user;

		return a && peer_accept(s, &a->cli_addr) ? 0 : 1;
	}
	case LWS_CALLBACK_WSI_CREATE:
		/* the connection just accepted, or one of the server's own */
		if (s->accepted) {
			struct held *h = malloc(sizeof(*h));

			if (h) {
				*h = (struct held){ s->held, wsi, s->accepted };
				s->held = h;
			} else {
				peer_put(s, s->accepted);	/* not counted */
			}
			s->accepted = NULL;
		}
		return 0;
	case LWS_CALLBACK_WSI_DESTROY: {
		struct held **hp, *h;

		for (hp = &s->held; *hp && (*hp)->wsi != wsi; hp = &(*hp)->next)
			;
		if (*hp) {
			h = *hp;
			*hp = h->next;
			peer_put(s, h->peer);
			free(h);
		}
		return 0;
	}
	default:
		break;
	}
	if (reason == LWS_CALLBACK_ESTABLISHED) {
		lws_close_reason(wsi, LWS_CLOSE_STATUS_PROTOCOL_ERR,
				 (unsigned char *)why, sizeof(why) - 1);
		return -1;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* The sd-event loop's descriptor, adopted as a raw file: its readiness
 * ends libwebsockets' poll, the loop's sources run after it.  No client
 * gets this protocol. */
static int loop_callback(struct lws *wsi, enum lws_callback_reasons reason,
			 void *user, void *in, size_t len)
{
	(void)wsi;
	(void)user;
	(void)in;
	(void)len;
	switch (reason) {
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
	case LWS_CALLBACK_ESTABLISHED:
		return -1;
	default:
		return 0;
	}
}

static int on_check(sd_event_source *es, uint64_t usec, void *data)
{
	struct server *s = data;
	uint64_t now = now_us(), limit = (uint64_t)s->cfg.idle_timeout_s * 1000000;
	struct client *c;

	for (c = s->clients; c; c = c->next) {
		if (c->close_code || c->killed)
			continue;
		if (client_pending(c) && now - c->progress_us > limit) {
			/* it takes nothing: no close frame would reach it */
			s->st.closed_stalled++;
			log_info("client %s: dropped (took nothing for %u s)",
				 c->addr, s->cfg.idle_timeout_s);
			c->killed = true;
			lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK,
					LWS_TO_KILL_ASYNC);
		} else if (!c->n_subs && now - c->said_us > limit) {
			char why[64];

			s->st.closed_idle++;
			snprintf(why, sizeof(why), "idle: nothing subscribed for %u s",
				 s->cfg.idle_timeout_s);
			client_close(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, why);
		}
	}
	return sd_event_source_set_time(es, usec + CHECK_PERIOD_US);
}

static void lws_to_log(int level, const char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == '\n')
		n--;
	if (level & LLL_ERR)
		log_err("libwebsockets: %.*s", (int)n, line);
	else
		log_warn("libwebsockets: %.*s", (int)n, line);
}

int server_new(struct server **sp, sd_event *e, const struct view_config *cfg)
{
	struct lws_context_creation_info info;
	struct server *s = calloc(1, sizeof(*s));
	lws_sock_file_fd_type fd;
	struct timespec ts;
	int r;

	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->e = e;
	s->next_id = 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(s->session, sizeof(s->session), "%lld.%09ld-%d",
		 (long long)ts.tv_sec, ts.tv_nsec, (int)getpid());

	s->mount = (struct lws_http_mount){
		.mountpoint = "/",
		.mountpoint_len = 1,
		.origin = s->cfg.data_dir,
		.def = "index.html",
		.origin_protocol = LWSMPRO_FILE,
	};
	s->protocols[0] = (struct lws_protocols){ .name = "http",
						  .callback = http_callback };
	s->protocols[1] = (struct lws_protocols){ .name = FOX_SUBPROTOCOL,
						  .callback = fox_callback,
						  .per_session_data_size = sizeof(struct client),
						  .rx_buffer_size = 4096 };
	s->protocols[2] = s->protocols[1];
	s->protocols[2].name = FOX_SUBPROTOCOL_SDK;
	s->protocols[3] = (struct lws_protocols){ .name = "skin-view-loop",
						  .callback = loop_callback };

	lws_set_log_level(LLL_ERR | LLL_WARN, lws_to_log);
	memset(&info, 0, sizeof(info));
	info.port = (int)cfg->port;
	info.iface = s->cfg.address;
	info.protocols = s->protocols;
	info.mounts = &s->mount;
	info.vhost_name = "skin-view";
	info.user = s;
	info.count_threads = 1;
	info.fd_limit_per_thread = cfg->max_connections + 8;
	info.timeout_secs = cfg->idle_timeout_s;
	info.keepalive_timeout = (int)cfg->idle_timeout_s;
	info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 |
		       LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
	if (!strchr(cfg->address, ':'))
		info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	s->ctx = lws_create_context(&info);
	if (!s->ctx) {
		log_err("%s port %u: no server (in use? see above)", cfg->address,
			cfg->port);
		free(s);
		return -EADDRINUSE;
	}
	s->vh = lws_get_vhost_by_name(s->ctx, "skin-view");
	/* a descriptor of its own on the loop's epoll: libwebsockets
	 * closes what it adopted, sd-event closes its own */
	fd.filefd = fcntl(sd_event_get_fd(e), F_DUPFD_CLOEXEC, 3);
	if (fd.filefd < 0 || !s->vh ||
	    !lws_adopt_descriptor_vhost(s->vh, LWS_ADOPT_RAW_FILE_DESC, fd,
					"skin-view-loop", NULL)) {
		log_err("the event loop's descriptor could not be watched");
		if (fd.filefd >= 0)
			close(fd.filefd);
		server_free(s);
		return -EIO;
	}
	r = sd_event_add_time(e, &s->check, CLOCK_MONOTONIC,
			      now_us() + CHECK_PERIOD_US, 100000, on_check, s);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->check, SD_EVENT_ON);
	if (r < 0) {
		server_free(s);
		return r;
	}
	*sp = s;
	return 0;
}

void server_free(struct server *s)
{
	unsigned int i;

	if (!s)
		return;
	sd_event_source_disable_unref(s->check);
	if (s->ctx)
		lws_context_destroy(s->ctx);	/* closes the clients */
	for (i = 0; i < s->n_chans; i++)
		blob_put(s->chans[i].latest);
	while (s->held) {
		struct held *h = s->held;

		s->held = h->next;
		free(h);
	}
	peer_put(s, s->accepted);
	while (s->peers) {
		struct peer *p = s->peers;

		s->peers = p->next;
		free(p);
	}
	free(s->chans);
	free(s->txbuf);
	free(s);
}

int server_wait(void *data)
{
	struct server *s = data;

	return lws_service(s->ctx, 0) < 0 ? -EIO : 0;
}

int64_t server_channel_add(struct server *s, const char *part,
			   enum fox_kind kind)
{
	struct fox_channel *fc;
	const struct fox_channel *one;
	struct client *c;
	struct chan *ch = NULL;
	unsigned int i;

	for (i = 0; i < s->n_chans && !ch; i++)
		if (!s->chans[i].used)
			ch = &s->chans[i];
	if (!ch) {
		struct chan *nc = realloc(s->chans, (s->n_chans + 1) * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		s->chans = nc;
		ch = &s->chans[s->n_chans++];
	}
	memset(ch, 0, sizeof(*ch));
	fc = &ch->fc;
	fc->id = s->next_id++;
	fc->kind = kind;
	if (part)
		snprintf(fc->topic, sizeof(fc->topic), TOPIC_PREFIX "/%s/%s", part,
			 fox_leaf(kind));
	else
		snprintf(fc->topic, sizeof(fc->topic), TOPIC_PREFIX "/%s", fox_leaf(kind));
	ch->used = true;
	one = fc;
	for (c = s->clients; c; c = c->next)
		client_reply(s, c, fox_advertise(&one, 1));
	return fc->id;
}

void server_channel_remove(struct server *s, uint32_t id)
{
	struct chan *ch = chan_find(s, id);
	struct client *c;
	unsigned int i;

	if (!ch)
		return;
	for (c = s->clients; c; c = c->next) {
		for (i = 0; i < c->n_subs; )
			if (c->subs[i].chan == id)
				sub_drop(c, i);
			else
				i++;
		client_reply(s, c, fox_unadvertise(&id, 1));
	}
	blob_put(ch->latest);
	memset(ch, 0, sizeof(*ch));
}

int server_publish(struct server *s, uint32_t id, const uint8_t *cdr,
		   size_t len, uint64_t ns)
{
	struct chan *ch = chan_find(s, id);
	struct blob *b;
	struct client *c;
	unsigned int i;

	if (!ch)
		return -ENOENT;
	b = malloc(sizeof(*b) + LWS_PRE + FOX_DATA_HEADER + len);
	if (!b)
		return -ENOMEM;
	b->refs = 1;
	b->len = len;
	b->ns = ns;
	memcpy(b->data + LWS_PRE + FOX_DATA_HEADER, cdr, len);
	blob_put(ch->latest);
	ch->latest = b;
	for (c = s->clients; c; c = c->next) {
		if (c->close_code || c->killed)
			continue;
		for (i = 0; i < c->n_subs; i++) {
			struct sub *sub = &c->subs[i];

			if (sub->chan != id)
				continue;
			if (sub->pending) {
				s->st.replaced++;
				blob_put(sub->pending);
			} else if (!client_pending(c)) {
				c->progress_us = now_us();
			}
			sub->pending = blob_get(b);
			want_write(c);
		}
	}
	return 0;
}

void server_stats(const struct server *s, struct server_stats *st)
{
	*st = s->st;
}
