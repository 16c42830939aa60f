/* SPDX-License-Identifier: GPL-2.0 */
/*
 * client_io.h - the socket's server and clients, the objects server.c keeps
 * and protocol.c answers; a client's I/O (client_io.c)
 *
 * server.c owns them (server.h is its interface to the rest of the
 * daemon): the listening socket, each client's socket, input line,
 * rate and idle limits, reading and sending.  The client_*() functions
 * below are client_io.c's: the output queue, the descriptors in flight,
 * the subscriptions, for protocol.c (and server.c's sending).  What a
 * client reads is protocol.c's (protocol.h): it runs the commands and
 * words every line.  server.c calls protocol.c, which calls client_io.c:
 * one way.  Everything here runs at SKIND_PRIO_CLIENT or
 * from the fan-out, never on the real-time path; no call blocks (sockets
 * are non-blocking).  struct ucred: the includer defines _GNU_SOURCE.
 */
#ifndef SKIND_CLIENT_H
#define SKIND_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "skind.h"

enum client_format { FORMAT_BOTTLE = 0, FORMAT_JSON = 1 };
/* SUB_SAMPLES: a short line per publication, the wakeup of shm readers */
enum sub_kind { SUB_CONTACTS = 0, SUB_TAXELS = 1, SUB_SAMPLES = 2 };
#define SUB_KINDS	3

struct subscription {
	char part[SKIN_SHM_NAME_LEN];	/* by name: survives reloads */
	int part_index;			/* in the current skin, -1 gone */
	enum sub_kind kind;
	unsigned int rate_hz;		/* 0: every publication */
	uint64_t interval_ns;
	uint64_t next_ns;
	uint64_t last_sample;		/* publication last sent */
};

/*
 * Descriptors in flight: a `shm` reply's descriptor is in flight from the
 * moment it is queued until the client has read everything skind sent it
 * (SIOCOUTQ 0: the kernel's count of descriptors in flight falls only
 * then).  Bounded per client, per user and for the daemon (a share of
 * RLIMIT_NOFILE), so that no client can make sendmsg() fail for the
 * others (ETOOMANYREFS, issue 16 item 2).
 */
#define CLIENT_FDS_MAX		8
#define USER_FDS_MAX		32

struct pass_fd {
	int fd;
	uint64_t at;			/* the first byte of its reply (q_total) */
	uint64_t end;			/* the byte after its reply */
	enum client_format format;	/* of the reply, for a refusal */
};

/* The clients of one uid (SO_PEERCRED): their slots and descriptors. */
struct peer_user {
	uid_t uid;
	unsigned int clients;		/* 0: a free entry */
	unsigned int fds;		/* in flight */
};

struct client {
	struct client *next, *prev;
	struct skind_server *srv;
	uint64_t id;
	int fd;
	sd_event_source *io;
	sd_event_source *resume;	/* rate limit: timer to read again */
	sd_event_source *idle;		/* on while no command is complete */
	struct ucred cred;
	struct peer_user *user;		/* the server's entry of cred.uid */
	bool admin;			/* may calibrate and set */
	enum client_format format;

	/* input: one line at most max_line bytes */
	char *in;
	size_t in_len;
	bool discarding;		/* inside a line that was too long */
	bool read_closed;		/* EOF: half-closed or gone */
	bool paused;			/* queue full or out of tokens */
	bool closing;			/* close once the queue is sent */

	/* output: a ring of bytes */
	char *q;
	size_t q_cap, q_head, q_len;
	uint64_t q_total;		/* bytes ever queued */
	uint64_t sent_total;		/* bytes ever sent (or taken back) */
	struct pass_fd fds[CLIENT_FDS_MAX];	/* queued, in byte order */
	unsigned int n_fds;
	unsigned int fds_sent;		/* sent; in flight until SIOCOUTQ is 0 */

	/* events not queued because the queue was full */
	uint64_t drops, drops_reported;

	/* command budget (token bucket) */
	double tokens;
	uint64_t tokens_ns;
	uint64_t commands, errors;

	unsigned int n_subs;
	struct subscription *subs;	/* max_subscriptions */
};

struct skind_server {
	struct skind *d;
	int listen_fd;
	bool activated;			/* fd from systemd */
	sd_event_source *listen_io;
	struct client *clients;		/* list */
	unsigned int n_clients;
	uint64_t next_id;
	uint64_t accepted, refused, total_drops;
	sd_event_source *accept_resume;
	struct peer_user *users;	/* max_clients entries */
	unsigned int fds_inflight, fds_budget, user_fds_max;
	uint64_t fds_refused;		/* `shm` answered too-many-descriptors */
	uint64_t refused_user;		/* over the per-user share of slots */
	uint64_t timeouts;		/* closed: no command within the time */
};

/*
 * The client's I/O, for protocol.c: the queue (a line is queued whole or
 * not at all), the descriptor a `shm` reply carries, its subscriptions.
 */
bool client_queue(struct client *c, const char *buf, size_t len);
/* Bytes the queue can take */
size_t client_queue_room(const struct client *c);
int client_fd_room(struct client *c);
void client_pass_fd(struct client *c, int fd, uint64_t at);
/* @n of the client's descriptors are no longer in flight */
void client_fds_release(struct client *c, unsigned int n);
void client_close_after_reply(struct client *c);
int client_subscribe(struct client *c, enum sub_kind kind, const char *part,
		     unsigned int rate_hz);
unsigned int client_unsubscribe(struct client *c, int kind, const char *part);
/*
 * The client that asked for @p's calibration (struct skind_part's
 * calibrate_client, written here only): set by `calibrate`, taken (and
 * cleared) when the calibration ended, 0 none.
 */
void client_wait_calibration(struct client *c, struct skind_part *p);
uint64_t client_take_calibration(struct skind_part *p);

#endif
