/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netguard.h - the connections a network process holds, bounded
 *
 * One guard per process, shared by all its listeners: a cap on the
 * connections it holds in all (accepted and opened) and on those accepted
 * from one address, and accept() that never spins: out of descriptors
 * (EMFILE, ENFILE), the guard gives up a descriptor it keeps in reserve to
 * accept the connection and close it at once, so the listener's queue
 * drains instead of waking the loop again and again; if even that fails
 * the caller pauses its listener for a moment (-EMFILE).  A connection
 * over a cap is accepted and closed at once, counted: its peer sees the
 * connection closed before anything is said.  With every slot held, the
 * owner's make-room function is asked first to close one connection it
 * values least (one that has not said who it is yet): many peers that
 * connect and say nothing do not lock out one that speaks.
 *
 * Ownership: the guard is its creator's; a connection's slot, from
 * net_guard_accept() or net_guard_take(), is given back once with
 * net_guard_release().  Errors: negative errno.  Threads: one at a time.
 */
#ifndef SKIN_BRIDGE_NETGUARD_H
#define SKIN_BRIDGE_NETGUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct net_guard_limits {
	unsigned int max_conns;		/* held in all (0: 256) */
	unsigned int max_per_addr;	/* accepted from one address (0: 32) */
};

struct net_guard_stats {
	unsigned int conns;		/* held now */
	uint64_t refused_total;		/* over max_conns */
	uint64_t evicted;		/* closed by make-room for a newer one */
	uint64_t refused_addr;		/* over max_per_addr */
	uint64_t out_of_fds;		/* accepted and closed for EMFILE/ENFILE */
};

/* A connection's place in the guard: which address it counts against */
struct net_slot {
	struct sockaddr_storage addr;	/* ss_family AF_UNSPEC: none (opened) */
};

struct net_guard;

int net_guard_new(struct net_guard **g, const struct net_guard_limits *l);

/* With max_conns held: @fn(@data) may close a connection (releasing its
 * slot) and return true, or return false (none it would give up) */
typedef bool (*net_guard_room_fn)(void *data);
void net_guard_set_room(struct net_guard *g, net_guard_room_fn fn, void *data);
void net_guard_free(struct net_guard *g);

/*
 * Accept one connection from the listener @lfd (non-blocking, close on
 * exec): its descriptor, with @slot filled; -EAGAIN when none is waiting;
 * -ECONNREFUSED when it was over a cap or out of descriptors (accepted,
 * closed, counted: call again); -EMFILE when no descriptor could be had
 * even from the reserve (pause the listener); other -errno of accept4().
 */
int net_guard_accept(struct net_guard *g, int lfd, struct net_slot *slot);

/* A slot for a connection the process opens (counted in all only):
 * 0, or -EMFILE when max_conns are held. */
int net_guard_take(struct net_guard *g, struct net_slot *slot);

/* Give a slot back (its connection closed) */
void net_guard_release(struct net_guard *g, struct net_slot *slot);

void net_guard_stats(const struct net_guard *g, struct net_guard_stats *s);

#endif /* SKIN_BRIDGE_NETGUARD_H */
