// SPDX-License-Identifier: GPL-2.0
/*
 * server.c - the Unix socket: listening, clients, queues, limits
 *
 * Every client socket is non-blocking and has two preallocated buffers:
 * its input line (max_line bytes) and its output queue (queue_bytes, a
 * ring).  Replies to commands are never dropped: a client whose queue
 * cannot take the largest reply is not read from until it drains (it
 * slows itself down, nobody else).  Subscription events are dropped when
 * they do not fit, counted, and the count is told to that client
 * ("dropped N") as soon as there is room.  A token bucket limits commands
 * per second; a client out of tokens is not read from until it has one.
 * Nothing a client does makes the daemon wait: sends are MSG_DONTWAIT,
 * and each dispatch handles a bounded number of lines.
 *
 * Authorisation (SO_PEERCRED, SO_PEERGROUPS at accept): reading is for
 * whoever may connect (the socket's mode and group); calibrate and set
 * only for root, skind's own user and members of --admin-group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include <skin/proc.h>

#include "cleanup.h"
#include "client_io.h"
#include "skin_clock.h"
#include "log.h"
#include "options.h"
#include "protocol.h"
#include "server.h"
#include "skin.h"

#define ACCEPT_BURST	32
#define LINE_BURST	64		/* lines per dispatch */
#define READ_DISCARD	16384		/* bytes of an over-long line per dispatch */

static void client_free(struct client *c);
static bool client_flush(struct client *c);
static void client_update(struct client *c);
static void process_lines(struct client *c);
static void pause_for(struct client *c, uint64_t ns);

/* Room a command's reply may need: half the queue. */
static size_t reply_reserve(const struct client *c)
{
	return c->q_cap / 2;
}


static void fds_shift(struct client *c)
{
	close(c->fds[0].fd);
	memmove(c->fds, c->fds + 1, --c->n_fds * sizeof(c->fds[0]));
}

/*
 * sendmsg() said ETOOMANYREFS: the kernel's bound of descriptors in flight
 * for skind's user (RLIMIT_NOFILE) is reached, whoever reached it.  That is
 * a refusal of this `shm`, not a dead peer: the reply at the head of the
 * queue, not sent, becomes the error a refusal at the command gets.
 */
static void fds_refused_at_send(struct client *c)
{
	struct pass_fd *pf = &c->fds[0];
	size_t len = (size_t)(pf->end - pf->at), n, room, first;
	char line[PROTOCOL_NOTICE_SIZE];

	c->q_head = (c->q_head + len) % c->q_cap;
	c->q_len -= len;
	c->sent_total += len;
	n = protocol_shm_refused_line(line, sizeof(line), pf->format);
	room = client_queue_room(c);
	if (n > room) {			/* a full queue, a short reply: never seen */
		n = room;
		if (n)
			line[n - 1] = '\n';
	}
	c->q_head = (c->q_head + c->q_cap - n) % c->q_cap;
	first = c->q_cap - c->q_head < n ? c->q_cap - c->q_head : n;
	memcpy(c->q + c->q_head, line, first);
	memcpy(c->q, line + first, n - first);
	c->q_len += n;
	c->sent_total -= n;
	c->errors++;
	c->srv->fds_refused++;
	client_fds_release(c, 1);
	fds_shift(c);
	log_debug("client %llu: shm: the kernel refused the descriptor (ETOOMANYREFS)",
		  (unsigned long long)c->id);
}


/* Tell a client what it missed, when there is room to say so. */
static void report_drops(struct client *c)
{
	char line[PROTOCOL_NOTICE_SIZE];
	size_t n;

	if (c->drops == c->drops_reported)
		return;
	n = protocol_dropped_line(line, sizeof(line), c->format,
				  c->drops - c->drops_reported, c->drops);
	if (client_queue(c, line, n))
		c->drops_reported = c->drops;
}

void server_fanout_part(struct skind *d, struct skind_part *p)
{
	struct skind_server *srv = d->server;
	uint64_t now = clock_monotonic_ns();
	struct client *c, *next;
	unsigned int i;

	if (!srv)
		return;
	for (c = srv->clients; c; c = next) {
		bool queued = false;

		next = c->next;
		for (i = 0; i < c->n_subs; i++) {
			struct subscription *s = &c->subs[i];
			size_t len;
			char *line;

			if (s->part_index != (int)p->index || s->last_sample == p->samples)
				continue;
			if (s->interval_ns && now < s->next_ns)
				continue;
			s->next_ns = s->next_ns + s->interval_ns > now ?
				     s->next_ns + s->interval_ns : now + s->interval_ns;
			s->last_sample = p->samples;
			protocol_event_line(p, s->kind, c->format, &line, &len);
			if (!line)
				continue;
			report_drops(c);
			if (c->drops == c->drops_reported &&
			    client_queue(c, line, len)) {
				queued = true;
			} else {
				c->drops++;
				srv->total_drops++;
			}
		}
		if (queued)
			client_flush(c);
	}
}

void server_skin_replaced(struct skind *d)
{
	struct skind_server *srv = d->server;
	struct client *c, *next;
	unsigned int i;
	char line[PROTOCOL_NOTICE_SIZE];
	size_t n;

	if (!srv)
		return;
	for (c = srv->clients; c; c = next) {
		next = c->next;
		for (i = 0; i < c->n_subs; i++) {
			struct skind_part *p = skind_skin_part(d->skin, c->subs[i].part);

			c->subs[i].part_index = p ? (int)p->index : -1;
			c->subs[i].last_sample = 0;
		}
		n = protocol_reload_line(line, sizeof(line), c->format, d->generation);
		if (c->n_subs) {
			if (!client_queue(c, line, n))
				c->drops++;
			client_flush(c);
		}
	}
}

void server_calibration_done(struct skind *d, struct skind_part *p,
			     unsigned int events)
{
	struct skind_server *srv = d->server;
	struct client *c;
	char line[PROTOCOL_NOTICE_SIZE];
	uint64_t id;
	size_t n;

	if (!srv || !(events & (SKIN_PROC_EV_CALIBRATED | SKIN_PROC_EV_CAL_FAILED)))
		return;
	id = client_take_calibration(p);
	if (!id)
		return;
	for (c = srv->clients; c; c = c->next)
		if (c->id == id)
			break;
	if (!c)
		return;
	n = protocol_calibration_line(line, sizeof(line), c->format, p, events);
	if (n && !client_queue(c, line, n))
		c->drops++;
	client_flush(c);
}

unsigned int server_n_clients(const struct skind *d)
{
	return d->server ? d->server->n_clients : 0;
}

uint64_t server_total_drops(const struct skind *d)
{
	return d->server ? d->server->total_drops : 0;
}

/* --- I/O ------------------------------------------------------------------ */

static void client_update(struct client *c)
{
	uint32_t ev = 0;

	if (!c->paused && !c->read_closed && !c->closing)
		ev |= EPOLLIN;
	if (c->q_len)
		ev |= EPOLLOUT;
	sd_event_source_set_io_events(c->io, ev);
}

static bool client_done(const struct client *c)
{
	if (c->q_len)
		return false;
	return c->closing || (c->read_closed && !c->n_subs);
}

/* Send what the socket takes.  Return: false when @c was freed. */
static bool client_flush(struct client *c)
{
	while (c->q_len) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct msghdr msg = { 0 };
		struct iovec iov[2];
		size_t limit = c->q_len, first;
		bool with_fd = false;
		uint64_t stop = 0;
		ssize_t n;

		/* a descriptor goes with the first byte of its own reply, and no
		 * send carries two: the kernel ends a read at an skb with
		 * descriptors, so each reaches the client with its reply */
		if (c->n_fds && c->fds[0].at > c->sent_total)
			stop = c->fds[0].at;
		else if (c->n_fds) {
			with_fd = true;
			if (c->n_fds > 1)
				stop = c->fds[1].at;
		}
		if (stop && stop - c->sent_total < limit)
			limit = (size_t)(stop - c->sent_total);
		first = c->q_cap - c->q_head < limit ? c->q_cap - c->q_head : limit;
		iov[0].iov_base = c->q + c->q_head;
		iov[0].iov_len = first;
		iov[1].iov_base = c->q;
		iov[1].iov_len = limit - first;
		msg.msg_iov = iov;
		msg.msg_iovlen = limit > first ? 2 : 1;
		if (with_fd) {
			struct cmsghdr *cm;

			memset(cbuf, 0, sizeof(cbuf));
			msg.msg_control = cbuf;
			msg.msg_controllen = sizeof(cbuf);
			cm = CMSG_FIRSTHDR(&msg);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &c->fds[0].fd, sizeof(int));
		}
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			if (errno == ETOOMANYREFS && with_fd) {
				fds_refused_at_send(c);
				continue;
			}
			log_debug("client %llu: send: %s", (unsigned long long)c->id,
				  strerror(errno));
			c->q_len = 0;		/* the peer is gone */
			c->read_closed = true;
			c->n_subs = 0;
			c->closing = true;
			break;
		}
		if (with_fd) {
			fds_shift(c);
			c->fds_sent++;		/* in flight until read */
		}
		c->q_head = (c->q_head + (size_t)n) % c->q_cap;
		c->q_len -= (size_t)n;
		c->sent_total += (uint64_t)n;
	}
	if (!c->q_len)
		c->q_head = 0;
	/* a client paused for a full queue reads again once it has room */
	if (c->paused && !c->resume && client_queue_room(c) >= reply_reserve(c))
		pause_for(c, 0);
	if (client_done(c)) {
		client_free(c);
		return false;
	}
	client_update(c);
	return true;
}

/*
 * The idle timeout: a client must complete a command within
 * --idle-timeout of connecting, and a line within it of the line's first
 * byte; one that does not holds a slot for nothing (slowloris) and is
 * closed.  Lines complete in the buffer wait on us, not on the client.
 */
static void idle_update(struct client *c)
{
	bool waiting = !c->commands || (c->in_len && !c->read_closed &&
					 !memchr(c->in, '\n', c->in_len));
	int on;

	if (!c->idle || sd_event_source_get_enabled(c->idle, &on) < 0)
		return;
	if (!waiting) {
		if (on)
			sd_event_source_set_enabled(c->idle, SD_EVENT_OFF);
		return;
	}
	if (on)
		return;			/* the time runs from the first byte */
	sd_event_source_set_time(c->idle, (clock_monotonic_ns() + (uint64_t)c->srv->d->opt.idle_timeout_s *
					   1000000000ull) / 1000);
	sd_event_source_set_enabled(c->idle, SD_EVENT_ONESHOT);
}

static int on_idle(sd_event_source *s, uint64_t usec, void *data)
{
	struct client *c = data;

	(void)s;
	(void)usec;
	if (c->in_len && memchr(c->in, '\n', c->in_len))
		return 0;		/* complete, not yet run: ours */
	c->srv->timeouts++;
	log_debug("client %llu (pid %d uid %d): no complete command in %u s; closing",
		  (unsigned long long)c->id, (int)c->cred.pid, (int)c->cred.uid,
		  c->srv->d->opt.idle_timeout_s);
	protocol_idle_timeout(c, c->srv->d->opt.idle_timeout_s);
	c->closing = true;
	c->in_len = 0;
	/* what the socket takes now, then the slot is free */
	if (client_flush(c))
		client_free(c);
	return 0;
}

static void refill(struct client *c, uint64_t now)
{
	double rate = c->srv->d->opt.cmd_rate;

	c->tokens += (double)(now - c->tokens_ns) * rate / 1e9;
	if (c->tokens > rate)
		c->tokens = rate;	/* a burst of one second's worth */
	c->tokens_ns = now;
}

static int on_resume(sd_event_source *s, uint64_t usec, void *data)
{
	struct client *c = data;

	(void)usec;
	(void)s;
	c->resume = sd_event_source_disable_unref(c->resume);
	c->paused = false;
	process_lines(c);
	return 0;
}

/* Come back in @ns (0: as soon as the loop is free). */
static void pause_for(struct client *c, uint64_t ns)
{
	int r;

	c->paused = true;
	if (c->resume)
		return;
	/* from the real now, not the loop's cached one */
	r = sd_event_add_time(c->srv->d->event, &c->resume, CLOCK_MONOTONIC,
			      (clock_monotonic_ns() + ns) / 1000, 1000, on_resume, c);
	if (r >= 0)
		sd_event_source_set_priority(c->resume, SKIND_PRIO_CLIENT);
}

/*
 * The line splitter: take the next line of the input buffer, if it is
 * complete, and run it (protocol_command()).  A line of max_line bytes
 * without its newline is answered "line-too-long" once and skipped to its
 * newline; after EOF a last line without a newline runs.  Each command
 * and each "line-too-long" costs a token.  No I/O: the fuzzer
 * (tests/fuzz/fuzz_protocol.c) drives it on a buffer.  Returns true when
 * it took something (a line, or a too-long line's bytes), false when the
 * buffer holds no complete line.
 */
bool client_take_line(struct client *c)
{
	unsigned int max_line = c->srv->d->opt.max_line;
	char *nl = memchr(c->in, '\n', c->in_len);
	size_t used;

	if (!nl) {
		if (c->in_len >= max_line) {
			if (!c->discarding)
				protocol_line_too_long(c, max_line);
			c->discarding = true;
			c->in_len = 0;
			c->tokens -= 1;
			return true;
		}
		if (!c->read_closed || !c->in_len || c->discarding)
			return false;
		/* EOF after a last line without a newline: run it */
		nl = c->in + c->in_len;
		c->in_len++;
	}
	used = (size_t)(nl - c->in) + 1;
	if (c->discarding) {
		c->discarding = false;	/* the tail of a long line */
	} else {
		c->tokens -= 1;
		*nl = 0;
		if (nl > c->in && nl[-1] == '\r')
			nl[-1] = 0;
		c->commands++;
		protocol_command(c, c->in);
	}
	memmove(c->in, c->in + used, c->in_len - used);
	c->in_len -= used;
	return true;
}

/*
 * Run the complete lines of the input buffer, within the client's budget
 * of tokens, queue room and lines per dispatch.
 */
static void process_lines(struct client *c)
{
	unsigned int done = 0;

	refill(c, clock_monotonic_ns());
	while (!c->paused && !c->closing) {
		if (c->tokens < 1) {
			pause_for(c, (uint64_t)((1 - c->tokens) * 1e9 /
				  c->srv->d->opt.cmd_rate) + 1000);
			break;
		}
		if (client_queue_room(c) < reply_reserve(c)) {
			c->paused = true;	/* client_flush() resumes it */
			break;
		}
		if (++done > LINE_BURST) {
			pause_for(c, 0);	/* let the others have a turn */
			break;
		}
		if (!client_take_line(c))
			break;
	}
	idle_update(c);
	client_flush(c);
}

static void read_input(struct client *c)
{
	unsigned int max_line = c->srv->d->opt.max_line;
	ssize_t n;

	n = read(c->fd, c->in + c->in_len, max_line - c->in_len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		c->read_closed = true;
		c->closing = true;	/* reset by the peer */
		c->q_len = 0;
		c->n_subs = 0;
		return;
	}
	if (n == 0) {
		c->read_closed = true;
		return;
	}
	c->in_len += (size_t)n;
}

static int on_client(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct client *c = data;

	(void)s;
	(void)fd;
	if (revents & EPOLLIN) {
		read_input(c);
		process_lines(c);	/* may free c */
		return 0;
	}
	if (revents & EPOLLOUT) {
		client_flush(c);	/* may free c */
		return 0;
	}
	if (revents & (EPOLLHUP | EPOLLERR)) {
		c->read_closed = true;
		c->closing = true;
		c->q_len = 0;
		client_free(c);
	}
	return 0;
}

/*
 * What a client holds, and the client: its event sources, the descriptors
 * it has in flight, its socket (fd -1: not its own yet), its buffers.  Not
 * in the server's list (client_free() takes it out).
 */
static void client_destroy(struct client *c)
{
	if (!c)
		return;
	c->io = sd_event_source_disable_unref(c->io);
	c->resume = sd_event_source_disable_unref(c->resume);
	c->idle = sd_event_source_disable_unref(c->idle);
	if (c->n_fds + c->fds_sent)
		client_fds_release(c, c->n_fds + c->fds_sent);
	while (c->n_fds)
		fds_shift(c);
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->q);
	free(c->subs);
	free(c);
}

static void client_destroyp(struct client **c)
{
	client_destroy(*c);
}

static void client_free(struct client *c)
{
	struct skind_server *srv = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		srv->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	srv->n_clients--;
	log_debug("client %llu (pid %d uid %d) gone: %llu commands, %llu errors, %llu dropped",
		  (unsigned long long)c->id, (int)c->cred.pid, (int)c->cred.uid,
		  (unsigned long long)c->commands, (unsigned long long)c->errors,
		  (unsigned long long)c->drops);
	c->user->clients--;
	client_destroy(c);
	/* a full house may take the one that waited */
	if (srv->listen_io)
		sd_event_source_set_enabled(srv->listen_io, SD_EVENT_ON);
}

static bool is_admin(const struct skind_options *o, int fd,
		     const struct ucred *cr)
{
	gid_t groups[256];
	socklen_t len = sizeof(groups);
	unsigned int i;

	if (cr->uid == 0 || cr->uid == geteuid())
		return true;
	if (!o->admin_gid_valid)
		return false;
	if (cr->gid == o->admin_gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == o->admin_gid)
			return true;
	return false;
}

static void refuse(struct skind_server *srv, int fd, bool user)
{
	char line[PROTOCOL_NOTICE_SIZE];
	size_t n = protocol_refused_line(line, sizeof(line), user);

	if (user)
		srv->refused_user++;
	else
		srv->refused++;
	if (send(fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		log_debug("refused client: %s", strerror(errno));
	close(fd);
}

/* The entry of @uid; there is one for every client, and n_clients < max. */
static struct peer_user *user_of(struct skind_server *srv, uid_t uid)
{
	struct peer_user *free_entry = NULL;
	unsigned int i;

	for (i = 0; i < srv->d->opt.max_clients; i++) {
		struct peer_user *u = &srv->users[i];

		if (u->clients && u->uid == uid)
			return u;
		if (!u->clients && !free_entry)
			free_entry = u;
	}
	free_entry->uid = uid;
	free_entry->fds = 0;
	return free_entry;
}

static void accept_one(struct skind_server *srv, int fd)
{
	struct skind_options *o = &srv->d->opt;
	socklen_t len = sizeof(struct ucred);
	_cleanup_(client_destroyp) struct client *c = NULL;
	struct peer_user *u;
	struct ucred cred;
	int r;

	if (srv->n_clients >= o->max_clients) {
		refuse(srv, fd, false);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		cred.pid = 0;
		cred.uid = (uid_t)-1;
		cred.gid = (gid_t)-1;
	}
	/* a user's share of the slots, so that one cannot hold them all */
	u = user_of(srv, cred.uid);
	if (u->clients >= o->max_user_clients) {
		refuse(srv, fd, true);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		goto fail;
	c->fd = -1;		/* refuse() closes it until the client is made */
	c->in = malloc(o->max_line + 1);
	c->q = malloc(o->queue_bytes);
	c->subs = calloc(o->max_subscriptions, sizeof(*c->subs));
	if (!c->in || !c->q || !c->subs)
		goto fail;
	c->srv = srv;
	c->q_cap = o->queue_bytes;
	c->id = ++srv->next_id;
	c->tokens = o->cmd_rate;
	c->tokens_ns = clock_monotonic_ns();
	c->cred = cred;
	c->user = u;
	c->admin = is_admin(o, fd, &c->cred);
	r = sd_event_add_io(srv->d->event, &c->io, fd, EPOLLIN, on_client, c);
	if (r < 0)
		goto fail;
	sd_event_source_set_priority(c->io, SKIND_PRIO_CLIENT);
	r = sd_event_add_time(srv->d->event, &c->idle, CLOCK_MONOTONIC,
			      (clock_monotonic_ns() + (uint64_t)o->idle_timeout_s * 1000000000ull) / 1000,
			      100000, on_idle, c);
	if (r < 0)
		goto fail;
	sd_event_source_set_priority(c->idle, SKIND_PRIO_CLIENT);
	c->fd = fd;
	c->user->clients++;
	c->next = srv->clients;
	if (srv->clients)
		srv->clients->prev = c;
	srv->clients = c;
	srv->n_clients++;
	srv->accepted++;
	log_debug("client %llu: pid %d uid %d gid %d%s", (unsigned long long)c->id,
		  (int)c->cred.pid, (int)c->cred.uid, (int)c->cred.gid,
		  c->admin ? " (admin)" : "");
	TAKE_PTR(c);
	return;
fail:
	/* its sources gone before the socket they watch is closed */
	client_destroy(TAKE_PTR(c));
	refuse(srv, fd, false);
}

static int on_accept_resume(sd_event_source *s, uint64_t usec, void *data)
{
	struct skind_server *srv = data;

	(void)s;
	(void)usec;
	srv->accept_resume = sd_event_source_disable_unref(srv->accept_resume);
	sd_event_source_set_enabled(srv->listen_io, SD_EVENT_ON);
	return 0;
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct skind_server *srv = data;
	unsigned int i;

	(void)revents;
	for (i = 0; i < ACCEPT_BURST; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (cfd >= 0) {
			accept_one(srv, cfd);
			continue;
		}
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			break;
		/* EMFILE, ENFILE, ENOBUFS: stop listening for a while */
		log_warn("accept: %s; not accepting for 100 ms", strerror(errno));
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
		if (!srv->accept_resume)
			sd_event_add_time_relative(srv->d->event, &srv->accept_resume,
						   CLOCK_MONOTONIC, 100000, 0,
						   on_accept_resume, srv);
		break;
	}
	return 0;
}

/*
 * A stale socket file from a skind that died may be replaced; a live one
 * not.  The socket is bound under a temporary name and renamed into place
 * once it listens: a client that sees the path can connect (bound but not
 * yet listening, it would get ECONNREFUSED).
 */
static int bind_listen(int fd, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int probe, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
			close(probe);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
	}
	r = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s.%d", path, (int)getpid());
	if (r < 0 || (size_t)r >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	/* reading for the group the directory gives; writers are decided
	 * per command */
	if (chmod(sa.sun_path, 0660) < 0 || listen(fd, 128) < 0 ||
	    rename(sa.sun_path, path) < 0) {
		r = -errno;
		unlink(sa.sun_path);
		return r;
	}
	return 0;
}

/* The server without its clients: the listening socket, its sources. */
static void server_free(struct skind_server *srv)
{
	if (!srv)
		return;
	srv->listen_io = sd_event_source_disable_unref(srv->listen_io);
	srv->accept_resume = sd_event_source_disable_unref(srv->accept_resume);
	if (srv->listen_fd >= 0)
		close(srv->listen_fd);
	free(srv->users);
	free(srv);
}

static void server_freep(struct skind_server **srv)
{
	server_free(*srv);
}

/* The listening socket, into srv->listen_fd: systemd's or our own. */
static int server_listen(struct skind_server *srv)
{
	const char *path = srv->d->opt.socket_path;
	_cleanup_(cleanup_closep) int fd = -1;
	int n, r;

	n = sd_listen_fds(1);
	if (n > 1) {
		log_err("socket activation passed %d sockets; expected one", n);
		return -EINVAL;
	}
	if (n == 1) {
		if (sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0) {
			log_err("the socket systemd passed is not a listening Unix stream socket");
			return -EINVAL;
		}
		fd = SD_LISTEN_FDS_START;
		srv->activated = true;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		log_info("listening on the socket systemd passed");
	} else {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		r = bind_listen(fd, path);
		if (r < 0) {
			log_err("%s: %s", path, strerror(-r));
			return r;
		}
		log_info("listening on %s", path);
	}
	srv->listen_fd = TAKE_FD(fd);
	return 0;
}

int server_start(struct skind *d)
{
	_cleanup_(server_freep) struct skind_server *srv = calloc(1, sizeof(*srv));
	struct rlimit rl;
	int r;

	if (!srv)
		return -ENOMEM;
	srv->d = d;
	srv->listen_fd = -1;
	srv->users = calloc(d->opt.max_clients, sizeof(*srv->users));
	if (!srv->users)
		return -ENOMEM;
	/* a quarter of what the kernel allows skind's user in flight */
	srv->fds_budget = 256;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < srv->fds_budget)
		srv->fds_budget = rl.rlim_cur / 4 > 1 ? (unsigned int)(rl.rlim_cur / 4) : 1;
	/* and a user a quarter of that, so that four users may be served */
	srv->user_fds_max = srv->fds_budget / 4 < USER_FDS_MAX ?
			    srv->fds_budget / 4 : USER_FDS_MAX;
	if (!srv->user_fds_max)
		srv->user_fds_max = 1;
	r = server_listen(srv);
	if (r < 0)
		return r;
	r = sd_event_add_io(d->event, &srv->listen_io, srv->listen_fd, EPOLLIN,
			    on_listen, srv);
	if (r < 0)
		return r;
	sd_event_source_set_priority(srv->listen_io, SKIND_PRIO_CLIENT);
	d->server = TAKE_PTR(srv);
	return 0;
}

void server_stop(struct skind *d)
{
	struct skind_server *srv = d->server;
	bool ours;

	if (!srv)
		return;
	while (srv->clients) {
		struct client *c = srv->clients;

		client_flush(c);
		if (srv->clients == c)
			client_free(c);
	}
	ours = !srv->activated;
	server_free(srv);
	if (ours)
		unlink(d->opt.socket_path);
	d->server = NULL;
}
