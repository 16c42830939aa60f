/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - skin-view's HTTP and WebSocket server (libwebsockets)
 *
 * One listening socket serves the page's files from the data directory
 * (libwebsockets' file mount: nothing outside it, the content type from
 * the extension) and Foxglove's WebSocket protocol (fox.h) on the same
 * port.  The server's channels are what it advertises; a sample published
 * on a channel replaces the channel's previous one and is sent to every
 * client subscribed to it.
 *
 * Slow and hostile clients (docs/VIEW.md "Clients"): a client holds, per
 * subscription, at most one sample not sent yet (the newest replaces an
 * unsent older one, counted) and at most queue_bytes of replies; the
 * WebSocket clients are capped in all and per address (over a cap: close
 * 1013), the TCP connections too (over max_connections_per_address: hung
 * up at once, before a byte is read); a client's message is at most max_frame bytes (1009), text
 * that is not a JSON object with an op closes it (1007), a binary message
 * too (1003: nothing is published by clients); a connection that
 * subscribes to nothing and says nothing for idle_timeout_s is closed
 * (1008), one that takes nothing sent to it for as long is dropped.
 * Nothing a client does makes the loop wait.
 *
 * The loop: libwebsockets waits (poll) on its sockets and on the sd-event
 * loop's descriptor (sd_event_get_fd()), and server_wait() is
 * service_run_beside()'s wait: the follower's and the service's sources
 * run between two waits.
 *
 * Ownership: the server owns its clients, channels and samples.  Errors:
 * negative errno.  Threads: the loop's thread.
 */
#ifndef VIEW_SERVER_H
#define VIEW_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "config.h"
#include "fox.h"

struct server;

struct server_stats {
	unsigned int clients;		/* WebSocket clients now */
	uint64_t accepted;		/* WebSocket clients served */
	uint64_t refused_cap;		/* over max_clients or max_per_address */
	uint64_t refused_addr;		/* connections over max_connections_per_address */
	uint64_t frames;		/* Message Data sent */
	uint64_t replaced;		/* samples a newer one replaced unsent */
	uint64_t closed_idle, closed_stalled, closed_malformed, closed_oversize,
		 closed_queue;
};

int server_new(struct server **s, sd_event *e, const struct view_config *cfg);
void server_free(struct server *s);

/* Wait for and serve what is ready (libwebsockets' poll, which includes
 * the sd-event loop's descriptor): service_run_beside()'s @wait */
int server_wait(void *s);

/* A new channel PREFIX/PART/LEAF (PREFIX/LEAF: @part NULL, the
 * channels of no part), advertised to every client: its id (ids are
 * never reused), or -errno */
int64_t server_channel_add(struct server *s, const char *part,
			   enum fox_kind kind);
/* Unadvertised, its subscriptions ended */
void server_channel_remove(struct server *s, uint32_t id);
/* A sample of channel @id: @len bytes of its encoding at @cdr (CDR or
 * JSON), received at @ns (ns since the epoch: the Message Data
 * timestamp).  It replaces the channel's newest, which a new subscriber
 * gets at once, and each subscription's unsent one (newest wins). */
int server_publish(struct server *s, uint32_t id, const uint8_t *cdr,
		   size_t len, uint64_t ns);

void server_stats(const struct server *s, struct server_stats *st);

#endif /* VIEW_SERVER_H */
