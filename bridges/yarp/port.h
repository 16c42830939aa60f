/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port.h - a YARP port on an sd-event loop, without YARP
 *
 * A port listens on a TCP port of its own and accepts what YARP peers
 * open to it:
 *  - admin connections ("CONNACK " text_ack, a port command "a" and one
 *    command line): [add] [del] [list] [ver] [help], which is how `yarp
 *    connect /ours /reader` and `yarp read /reader /ours` ask us to open
 *    a data connection to the reader;
 *  - data connections from a writer (tcp, fast_tcp, text; never udp): each message
 *    is a command for the port's rpc handler, whose reply goes back on
 *    the same connection (`yarp rpc /ours`).
 * and opens data connections to readers (tcp, fast_tcp, text, udp), on an
 * admin [add] or from the owner (yp_port_connect()).
 *
 * Writing never blocks and never waits for a reader: a message goes to
 * every reader whose connection has room for it now; a reader that still
 * holds part of an earlier message skips this one (counted), and one that
 * has taken nothing for @stall_ms is dropped (counted), so a stalled
 * reader delays no other.  Acks (tcp) and whatever else a reader sends
 * are read and discarded.
 *
 * Names are resolved by the owner (yp_resolve_fn: the name server, async).
 *
 * Hostile peers (docs/YARP.md): the connections a process holds are
 * counted by a guard shared by its ports (netguard.h: in all, per address,
 * accept() without spinning when out of descriptors); a connection to us
 * that stops in the middle of a header or a message for @idle_ms is
 * closed, one that has not sent its header within 2 s too (the oldest of
 * those is closed first when the guard is full: yp_port_evict()); one
 * whose replies are not read is not read either (past 64 KB
 * waiting) and is closed when it has taken none for @stall_ms; a name a
 * peer asks us to connect to is checked by YARP's rules
 * (yw_port_name_ok()) before it reaches the name server, and the name a
 * peer gives for itself must be printable (it is echoed in replies).
 */
#ifndef SKIN_YARP_PORT_H
#define SKIN_YARP_PORT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "netguard.h"
#include "wire.h"

struct yp_port;
struct yp_call;

/* Resolve @name (a port name); call yp_resolved(@cookie, ...) once,
 * now or later.  */
typedef void (*yp_resolve_fn)(void *data, const char *name, void *cookie);
void yp_resolved(void *cookie, int err, const struct sockaddr_in *addr);

/* An rpc command: @atoms; answer with yp_call_reply() once, now or later */
typedef void (*yp_rpc_fn)(void *data, struct yp_call *call,
			  const struct yw_atom *atoms, unsigned int n);
/* @atoms of the reply (strings, ints, floats); the call is freed.  A call
 * whose connection closed meanwhile is answered into nothing. */
void yp_call_reply(struct yp_call *call, const struct yw_atom *atoms,
		   unsigned int n);

struct yp_port_options {
	const char *name;		/* "/icub/skin/left_hand_comp" */
	enum yw_version version;	/* float tags of what it writes */
	struct in_addr bind;		/* INADDR_ANY: every interface */
	uint16_t port;			/* 0: the kernel chooses */
	unsigned int stall_ms;		/* drop a reader stalled that long (0: 3000) */
	unsigned int idle_ms;		/* an incomplete message that long (0: 10000) */
	struct net_guard *guard;	/* the process's caps (NULL: the port's own) */
	yp_resolve_fn resolve;
	yp_rpc_fn rpc;			/* NULL: an output port, no commands */
	void *data;
};

struct yp_port_stats {
	uint64_t written;	/* messages handed to yp_port_write() */
	uint64_t sent;		/* message copies sent to readers (started) */
	uint64_t skipped;	/* copies a busy reader skipped */
	uint64_t dropped;	/* readers dropped as stalled */
	uint64_t refused;	/* connections or commands refused as malformed,
				 * names refused by YARP's rules */
	uint64_t refused_conns;	/* connections over a cap, or out of fds */
	uint64_t timed_out;	/* closed in the middle of a message, idle */
	uint64_t unread;	/* peers closed for leaving their replies unread */
	unsigned int readers;	/* data connections open now */
};

int yp_port_new(struct yp_port **p, sd_event *e,
		const struct yp_port_options *o);
void yp_port_free(struct yp_port *p);
const char *yp_port_name(const struct yp_port *p);
uint16_t yp_port_number(const struct yp_port *p);
void yp_port_stats(const struct yp_port *p, struct yp_port_stats *s);
/* Whether some reader wants text (then pass @text to yp_port_write) */
bool yp_port_wants_text(const struct yp_port *p);
/* Readers connected (any carrier) */
unsigned int yp_port_readers(const struct yp_port *p);
/* Close the oldest connection to @p that has not said who it is yet (the
 * guard's make-room, netguard.h): whether there was one */
bool yp_port_evict(struct yp_port *p);

/*
 * Send one message to every reader: @bin, the binary payload (a Bottle,
 * a Vector), @text the same as a text line (NULL when no reader wants
 * text), @envelope the Stamp text or NULL.
 */
void yp_port_write(struct yp_port *p, const struct yw_buf *bin,
		   const struct yw_buf *text, const char *envelope);

/* Open a data connection to reader @name over @carrier, as an admin [add]
 * would (replacing one to the same reader). 0 or -errno; the connection
 * completes later. */
int yp_port_connect(struct yp_port *p, const char *name, enum yw_carrier c);
/* Whether a connection to @name is up */
bool yp_port_connected(const struct yp_port *p, const char *name);

#endif /* SKIN_YARP_PORT_H */
