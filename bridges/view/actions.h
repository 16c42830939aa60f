/* SPDX-License-Identifier: GPL-2.0 */
/*
 * actions.h - skin-view's actions: skind's calibrate, set and get as
 * Foxglove services
 *
 * With a token in skin-view.conf the server offers three services
 * (fox.h; requests and responses in JSON, docs/VIEW.md "Actions"):
 *
 *	/skin/calibrate  {"token": T, "part": "NAME" | "all"}
 *	/skin/set        {"token": T, "param": "add_threshold", "value": "7"}
 *	/skin/get        {"param": "add_threshold"}     (every one without)
 *
 * Each goes to skind's socket as `calibrate PART`, `set PARAM VALUE`,
 * `get [PARAM]` on a connection of its own (non-blocking, on the loop:
 * nothing waits for skind), made at the first call and again after skind
 * went away; skind accepts calibrate and set from its admin group only
 * (skin-view.service's supplementary group, docs/VIEW.md).  A call
 * without the token, or with another one, fails "not authorised"
 * (compared in constant time), counted and logged with the client's
 * address; an address with AUTH_FAILURES_MAX such failures within
 * AUTH_WINDOW_S is refused every call until the window has passed, so the
 * token cannot be guessed at the server's speed.
 *
 * Ownership: actions_new()'s object, freed by actions_free() (which logs
 * what it did).  Errors: negative errno.  Threads: the loop's.
 */
#ifndef VIEW_ACTIONS_H
#define VIEW_ACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "fox.h"
#include "server.h"

struct actions;

struct actions_stats {
	uint64_t calls;			/* service calls of the three */
	uint64_t forwarded;		/* sent to skind */
	uint64_t refused;		/* not authorised */
	uint64_t limited;		/* refused: too many failures from there */
	uint64_t bad;			/* requests that are not the schema's */
	uint64_t failed;		/* skind said error, or was not there */
};

/* @socket: skind's ("": $SKIN_SOCKET, else the default); @token: what
 * the calls must carry (not empty) */
int actions_new(struct actions **a, sd_event *e, struct server *srv,
		const char *socket, const char *token);
void actions_free(struct actions *a);

/* The services, for server_set_services(..., actions_call, a) */
const struct fox_service *actions_services(unsigned int *n);
void actions_call(void *a, const struct server_call *c, const char *payload,
		  size_t len);

void actions_stats(const struct actions *a, struct actions_stats *st);

/* @got equals @want, in a time that does not depend on where they differ */
bool actions_token_equal(const char *want, const char *got, size_t got_len);

#endif /* VIEW_ACTIONS_H */
