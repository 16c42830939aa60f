// SPDX-License-Identifier: GPL-2.0
/*
 * name.c - YARP's name server (name.h)
 */
#define _GNU_SOURCE	/* asprintf, accept4 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "name.h"

#define REPLY_END "*** end of message"
#define REPLY_MAX 65536
/* Requests waiting at most: each is a peer's lookup or our own
 * registrations; past it a lookup fails at once rather than queue for
 * minutes behind a slow name server */
#define PENDING_MAX 128

/* YARP's yarpconfighome() */
static int config_dir(char *buf, size_t len, const char *(*env)(const char *))
{
	const char *v = env("YARP_CONFIG_HOME");

	if (v && *v)
		return snprintf(buf, len, "%s", v);
	v = env("XDG_CONFIG_HOME");
	if (v && *v)
		return snprintf(buf, len, "%s/yarp", v);
	v = env("HOME");
	if (v && *v)
		return snprintf(buf, len, "%s/.config/yarp", v);
	return -1;
}

static const char *real_getenv(const char *name)
{
	return getenv(name);
}

/* The first line of @path into @buf: 1, 0 when there is no such file, -errno */
static int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 1;
}

int yn_find(struct yn_server *s, const char *(*env)(const char *name),
	    char *why, size_t why_len)
{
	char dir[400], path[512], line[256], host[64], mode[32], *end;
	const char *ns;
	unsigned long port;
	int r, n;

	if (!env)
		env = real_getenv;
	memset(s, 0, sizeof(*s));
	if (config_dir(dir, sizeof(dir), env) < 0) {
		snprintf(why, why_len, "no YARP_CONFIG_HOME, XDG_CONFIG_HOME or HOME");
		return -ENOENT;
	}
	ns = env("YARP_NAMESPACE");
	if (ns && *ns) {
		snprintf(s->ns, sizeof(s->ns), "%.*s", (int)strcspn(ns, " \t"), ns);
	} else {
		snprintf(path, sizeof(path), "%s/yarp_namespace.conf", dir);
		r = read_first_line(path, line, sizeof(line));
		if (r < 0) {
			snprintf(why, why_len, "%s: %s", path, strerror(-r));
			return -EINVAL;
		}
		if (r > 0 && sscanf(line, "%63s", s->ns) != 1)
			s->ns[0] = '\0';
	}
	if (!s->ns[0])
		snprintf(s->ns, sizeof(s->ns), "/root");
	if (!strcmp(s->ns, "/root")) {
		snprintf(s->file, sizeof(s->file), "%s/yarp.conf", dir);
	} else {
		char safe[64];
		size_t i;

		for (i = 0; s->ns[i]; i++)
			safe[i] = isalnum((unsigned char)s->ns[i]) ? s->ns[i] : '_';
		safe[i] = '\0';
		snprintf(s->file, sizeof(s->file), "%s/%s.conf", dir, safe);
	}
	r = read_first_line(s->file, line, sizeof(line));
	if (r == 0) {
		snprintf(why, why_len, "%s: no such file (namespace %s; `yarp conf IP PORT` writes it)",
			 s->file, s->ns);
		return -ENOENT;
	}
	if (r < 0) {
		snprintf(why, why_len, "%s: %s", s->file, strerror(-r));
		return -EINVAL;
	}
	if (line[0] == '[') {
		snprintf(why, why_len, "%s:1: the [name] group form is not supported; write \"IP PORT\"",
			 s->file);
		return -EINVAL;
	}
	n = sscanf(line, "%63s %255s %31s", host, path, mode);
	if (n < 2) {
		snprintf(why, why_len, "%s:1: want \"IP PORT [MODE]\", have \"%s\"",
			 s->file, line);
		return -EINVAL;
	}
	errno = 0;
	port = strtoul(path, &end, 10);
	if (errno || *end || port == 0 || port > 65535) {
		snprintf(why, why_len, "%s:1: bad port \"%s\"", s->file, path);
		return -EINVAL;
	}
	if (n == 3 && strcmp(mode, "yarp")) {
		snprintf(why, why_len, "%s:1: mode \"%s\": only \"yarp\" name servers are spoken to",
			 s->file, mode);
		return -EINVAL;
	}
	snprintf(s->host, sizeof(s->host), "%s", host);
	s->port = (uint16_t)port;
	return 0;
}

int yn_parse_reg(const char *reply, struct yn_reg *r)
{
	const char *p = strstr(reply, "registration name ");

	memset(r, 0, sizeof(*r));
	if (!p)
		return -EPROTO;
	if (sscanf(p, "registration name %255s ip %63s port %d type %31s",
		   r->name, r->ip, &r->port, r->carrier) < 3)
		return -EPROTO;
	return 0;
}

int yn_address(const char *host, uint16_t port, struct sockaddr_in *sa)
{
	struct addrinfo hints, *res;
	int r;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sa->sin_addr) == 1)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(host, NULL, &hints, &res);
	if (r)
		return -EHOSTUNREACH;
	sa->sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
	freeaddrinfo(res);
	return 0;
}

/*
 * Requests
 */
struct request {
	struct yn_client *c;
	struct request *next;
	int fd;
	sd_event_source *io, *timer;
	char *out;
	size_t out_len, out_off;
	char *in;
	size_t in_len;
	yn_reply_fn fn;
	void *data;
};

/*
 * One request at a time, in order: yarpserver (3.12) answers a burst of
 * simultaneous connections a second or two late, all together, where it
 * answers the same commands one after the other in a millisecond each.
 */
struct yn_client {
	sd_event *e;
	struct sockaddr_in server;
	unsigned int timeout_ms;
	struct request *reqs;		/* the first is the one running */
	unsigned int n;
};

static int req_start(struct request *q);
static void req_done(struct request *q, int err);

static void req_free(struct request *q)
{
	struct request **pp;

	for (pp = &q->c->reqs; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			break;
		}
	q->c->n--;
	sd_event_source_disable_unref(q->io);
	sd_event_source_disable_unref(q->timer);
	if (q->fd >= 0)
		close(q->fd);
	free(q->out);
	free(q->in);
	free(q);
}

/* The next request, if any, starts; the callback last: it may make new
 * requests or free the client. */
static void req_done(struct request *q, int err)
{
	struct yn_client *c = q->c;
	yn_reply_fn fn = q->fn;
	void *data = q->data;
	char *in = q->in;

	q->in = NULL;
	req_free(q);
	while (c->reqs && !c->reqs->io) {
		int r = req_start(c->reqs);

		if (r < 0) {
			struct request *f = c->reqs;
			yn_reply_fn ffn = f->fn;
			void *fdata = f->data;

			req_free(f);
			ffn(fdata, r, NULL);
		}
	}
	fn(data, err, err ? NULL : in);
	free(in);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct request *q = data;
	ssize_t n;

	(void)s;
	if (q->out_off < q->out_len) {
		int err = 0;
		socklen_t el = sizeof(err);

		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
			req_done(q, err ? -err : -errno);
			return 0;
		}
		if (!(revents & EPOLLOUT))
			return 0;
		n = send(fd, q->out + q->out_off, q->out_len - q->out_off,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				req_done(q, -errno);
			return 0;
		}
		q->out_off += (size_t)n;
		if (q->out_off == q->out_len)
			sd_event_source_set_io_events(q->io, EPOLLIN);
		return 0;
	}
	for (;;) {
		char buf[4096], *p;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			req_done(q, -errno);
			return 0;
		}
		if (n == 0) {	/* closed before the end marker */
			req_done(q, -EPROTO);
			return 0;
		}
		if (q->in_len + (size_t)n > REPLY_MAX) {
			req_done(q, -EMSGSIZE);
			return 0;
		}
		p = realloc(q->in, q->in_len + (size_t)n + 1);
		if (!p) {
			req_done(q, -ENOMEM);
			return 0;
		}
		q->in = p;
		memcpy(q->in + q->in_len, buf, (size_t)n);
		q->in_len += (size_t)n;
		q->in[q->in_len] = '\0';
		if (strstr(q->in, REPLY_END)) {
			req_done(q, 0);
			return 0;
		}
	}
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *data)
{
	(void)s;
	(void)usec;
	req_done(data, -ETIMEDOUT);
	return 0;
}

int yn_client_new(struct yn_client **cp, sd_event *e,
		  const struct sockaddr_in *server, unsigned int timeout_ms)
{
	struct yn_client *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->e = e;
	c->server = *server;
	c->timeout_ms = timeout_ms ? timeout_ms : 2000;
	*cp = c;
	return 0;
}

void yn_client_free(struct yn_client *c)
{
	if (!c)
		return;
	/* every request is answered, -ECANCELED, so its data is freed */
	while (c->reqs) {
		struct request *q = c->reqs;
		yn_reply_fn fn = q->fn;
		void *data = q->data;

		req_free(q);
		fn(data, -ECANCELED, NULL);
	}
	free(c);
}

unsigned int yn_pending(const struct yn_client *c)
{
	return c->n;
}

/* Connect; the time limit runs from here.  0 or -errno. */
static int req_start(struct request *q)
{
	struct yn_client *c = q->c;
	int r;

	q->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (q->fd < 0)
		return -errno;
	if (connect(q->fd, (const struct sockaddr *)&c->server,
		    sizeof(c->server)) < 0 && errno != EINPROGRESS)
		return -errno;
	r = sd_event_add_io(c->e, &q->io, q->fd, EPOLLOUT | EPOLLIN, on_io, q);
	if (r < 0)
		return r;
	return sd_event_add_time_relative(c->e, &q->timer, CLOCK_MONOTONIC,
					  (uint64_t)c->timeout_ms * 1000, 0,
					  on_timeout, q);
}

int yn_request(struct yn_client *c, const char *cmd, yn_reply_fn fn,
	       void *data)
{
	struct request *q, **pp;
	const char *ch;
	int r;

	/* one command, one line: whatever a peer's name held, nothing with
	 * a control character (a newline would start a second command)
	 * reaches the name server */
	for (ch = cmd; *ch; ch++)
		if ((unsigned char)*ch < 0x20 || *ch == 0x7f)
			return -EINVAL;
	if (c->n >= PENDING_MAX)
		return -EBUSY;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->c = c;
	q->fn = fn;
	q->data = data;
	q->fd = -1;
	for (pp = &c->reqs; *pp; pp = &(*pp)->next)
		;
	*pp = q;
	c->n++;
	r = asprintf(&q->out, "NAME_SERVER %s\n", cmd);
	if (r < 0) {
		q->out = NULL;
		req_free(q);
		return -ENOMEM;
	}
	q->out_len = (size_t)r;
	if (c->reqs == q) {
		r = req_start(q);
		if (r < 0) {
			req_free(q);
			return r;
		}
	}
	return 0;
}
