// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * client.c - skind's socket, the client side (skin/client.h)
 *
 * Every read is a recvmsg() that also collects a descriptor skind may
 * pass (the `shm` command's SCM_RIGHTS), so no descriptor is lost
 * whichever read its bytes arrive with.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <skin/client.h>

#include "skin_clock.h"

struct skin_client {
	int fd;
	char *buf;		/* buf[start, len): received, not yet returned */
	size_t start, len, cap;
	size_t line_end;	/* end of the line returned last, to drop */
	int passed_fd;		/* from SCM_RIGHTS, -1 none */
};

static struct skin_client *connect_to(const char *path, int type, int *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct skin_client *c;

	if (!path)
		path = getenv("SKIN_SOCKET");
	if (!path || !*path)
		path = SKIN_SOCKET_PATH;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	strcpy(sa.sun_path, path);
	c = calloc(1, sizeof(*c));
	if (!c) {
		*err = -ENOMEM;
		return NULL;
	}
	c->passed_fd = -1;
	c->cap = 65536;
	c->buf = malloc(c->cap);
	c->fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (!c->buf || c->fd < 0 ||
	    connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		*err = c->buf ? -errno : -ENOMEM;
		if (c->fd >= 0)
			close(c->fd);
		free(c->buf);
		free(c);
		return NULL;
	}
	*err = 0;
	return c;
}

struct skin_client *skin_client_connect(const char *path, int *err)
{
	return connect_to(path, SOCK_STREAM, err);
}

struct skin_client *skin_client_connect_nonblock(const char *path, int *err)
{
	return connect_to(path, SOCK_STREAM | SOCK_NONBLOCK, err);
}

void skin_client_close(struct skin_client *c)
{
	if (!c)
		return;
	close(c->fd);
	if (c->passed_fd >= 0)
		close(c->passed_fd);
	free(c->buf);
	free(c);
}

int skin_client_fd(const struct skin_client *c)
{
	return c->fd;
}

int skin_client_send(struct skin_client *c, const char *cmd)
{
	size_t len = strlen(cmd), off = 0;
	char nl = '\n';

	while (off < len) {
		ssize_t n = send(c->fd, cmd + off, len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += (size_t)n;
	}
	while (send(c->fd, &nl, 1, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* One recvmsg(): more bytes, and a passed descriptor if one comes. */
static int receive(struct skin_client *c)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct msghdr msg = { 0 };
	struct cmsghdr *cm;
	struct iovec iov;
	ssize_t n;

	/* the lines returned are dropped here, once per read, not once per
	 * line: a thousand queued lines cost one move, not a thousand */
	if (c->start) {
		memmove(c->buf, c->buf + c->start, c->len - c->start);
		c->len -= c->start;
		c->start = 0;
	}
	if (c->cap - c->len < 4096) {
		size_t cap = c->cap * 2;
		char *b = realloc(c->buf, cap);

		if (!b)
			return -ENOMEM;
		c->buf = b;
		c->cap = cap;
	}
	iov.iov_base = c->buf + c->len;
	iov.iov_len = c->cap - c->len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	do
		n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t k, nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int fds[4];

			memcpy(fds, CMSG_DATA(cm), nfd * sizeof(int));
			for (k = 0; k < nfd; k++) {
				if (c->passed_fd >= 0)
					close(c->passed_fd);
				c->passed_fd = fds[k];
			}
		}
	}
	if (n == 0)
		return -ECONNRESET;
	c->len += (size_t)n;
	return 0;
}

static int64_t now_ms(void)
{
	return (int64_t)(clock_monotonic_ns() / 1000000);
}

int skin_client_read_line(struct skin_client *c, const char **line,
			  int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	char *nl;
	int r;

	if (c->line_end) {
		c->start = c->line_end;
		c->line_end = 0;
	}
	while (!(nl = memchr(c->buf + c->start, '\n', c->len - c->start))) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		int wait = -1;

		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			if (left < 0)
				return 0;
			wait = (int)left;
		}
		r = poll(&pfd, 1, wait);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r == 0 && wait == 0)
			return 0;	/* nothing more within the time (0: now) */
		if (r <= 0)
			continue;
		r = receive(c);
		if (r < 0)
			return r;
	}
	*nl = 0;
	if (nl > c->buf + c->start && nl[-1] == '\r')
		nl[-1] = 0;
	c->line_end = (size_t)(nl - c->buf) + 1;
	*line = c->buf + c->start;
	return 1;
}

/* "ok", "ok TEXT", {"type":"ok"...}: 1; error: -1; else (data) 0 */
static int final_line(const char *l)
{
	if (!strcmp(l, "ok") || !strncmp(l, "ok ", 3) ||
	    !strncmp(l, "{\"type\":\"ok\"", 12))
		return 1;
	if (!strncmp(l, "error ", 6) || !strncmp(l, "{\"type\":\"error\"", 15))
		return -1;
	return 0;
}

int skin_client_command(struct skin_client *c, const char *cmd,
			skin_client_line_fn fn, void *data, char *why,
			size_t why_len)
{
	const char *line;
	int r, f;

	if (why && why_len)
		why[0] = 0;
	r = skin_client_send(c, cmd);
	if (r < 0)
		return r;
	for (;;) {
		r = skin_client_read_line(c, &line, -1);
		if (r < 0)
			return r;
		f = final_line(line);
		if (!f) {
			if (fn)
				fn(line, data);
			continue;
		}
		if (why && why_len)
			snprintf(why, why_len, "%s",
				 f > 0 ? (line[2] == ' ' ? line + 3 : "") : line);
		return f > 0 ? 0 : -EPROTO;
	}
}

int skin_client_take_fd(struct skin_client *c)
{
	int fd = c->passed_fd;

	c->passed_fd = -1;
	return fd;
}

int skin_client_shm(struct skin_client *c, struct skin_shm_map *m)
{
	char why[256];
	int r, fd;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	fd = skin_client_take_fd(c);
	if (fd >= 0)
		close(fd);
	r = skin_client_command(c, "shm", NULL, NULL, why, sizeof(why));
	if (r < 0)
		return r;
	fd = skin_client_take_fd(c);
	if (fd < 0)
		return -EPROTO;		/* skind sent no descriptor */
	return skin_shm_map_fd(m, fd);
}
