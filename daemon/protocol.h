/* SPDX-License-Identifier: GPL-2.0 */
/*
 * protocol.h - the socket's commands and the text of its lines
 * (protocol.c; docs/PROTOCOL.md is the specification)
 *
 * Owns the wording of every line a client reads, bottle text or JSON:
 * command replies, subscription events, and the server's notices
 * (dropped, reload, calibrated, refusals), and each part's line cache
 * (struct skind_part's cache).  Events format from the part's published
 * snapshot (skind.h), never from lib/proc; only the commands about the
 * processing itself (calibrate, get, set) reach it, through pipeline.h.  Runs at
 * SKIND_PRIO_CLIENT (commands) and from the fan-out (events, notices),
 * never on the real-time path.
 */
#ifndef SKIND_PROTOCOL_H
#define SKIND_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client_io.h"

/* Room for any notice line below, escaped for JSON */
#define PROTOCOL_NOTICE_SIZE	6145

/* One line of the client, without its newline: run it, queue its reply. */
void protocol_command(struct client *c, char *line);
/* The errors the server gives a client outside a command, queued */
void protocol_line_too_long(struct client *c, unsigned int max_line);
void protocol_idle_timeout(struct client *c, unsigned int seconds);

/*
 * The line of @p's latest publication for a subscription of @kind, in
 * @fmt: formatted once per publication and format, cached in the part;
 * *line NULL when it could not be.
 */
void protocol_event_line(struct skind_part *p, enum sub_kind kind,
			 enum client_format fmt, char **line, size_t *len);

/* Notices: a line ending in '\n' into @buf, its length; 0 when it does not fit. */
size_t protocol_dropped_line(char *buf, size_t len, enum client_format fmt,
			     uint64_t count, uint64_t total);
size_t protocol_reload_line(char *buf, size_t len, enum client_format fmt,
			    uint64_t generation);
size_t protocol_calibration_line(char *buf, size_t len, enum client_format fmt,
				 const struct skind_part *p, unsigned int events);
/* A `shm` reply the kernel refused to carry a descriptor (ETOOMANYREFS) */
size_t protocol_shm_refused_line(char *buf, size_t len, enum client_format fmt);
/* A connection over the daemon's limit, or its user's share (bottle) */
size_t protocol_refused_line(char *buf, size_t len, bool per_user);

#endif
