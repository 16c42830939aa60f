/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - the Unix socket: listening, clients, queues, limits (server.c)
 *
 * The socket for the rest of the daemon: started and stopped, told of a
 * reload, fed from the fan-out (a part's publication, a calibration's
 * end: main.c's on_published()), all by main.c; counted (status.c).  Its objects,
 * shared with protocol.c only, are in client_io.h.  Never on the real-time
 * path.
 */
#ifndef SKIND_SERVER_H
#define SKIND_SERVER_H

#include <stdint.h>

#include "skind.h"

struct client;

int server_start(struct skind *d);
void server_stop(struct skind *d);
/* The subscribers of @p: its latest publication's lines, queued and sent */
void server_fanout_part(struct skind *d, struct skind_part *p);
/* After a reload: subscriptions follow their parts by name, "reload" told */
void server_skin_replaced(struct skind *d);
/* The client that asked for @p's calibration: how it ended */
void server_calibration_done(struct skind *d, struct skind_part *p,
			     unsigned int events);
unsigned int server_n_clients(const struct skind *d);
uint64_t server_total_drops(const struct skind *d);
/*
 * The line splitter: the next complete line of @c's input run through
 * protocol_command(); no I/O (a buffer and a client: the fuzzer's entry)
 */
bool client_take_line(struct client *c);

#endif
