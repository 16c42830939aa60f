/* SPDX-License-Identifier: GPL-2.0 */
/*
 * net_watch.h - the host's usable network addresses, watched through
 * rtnetlink, as a source of an sd-event loop
 *
 * A middleware that picks its interfaces once, when it starts (Cyclone
 * DDS 0.10 does: with no usable address it settles on `lo` and never
 * looks again), misses a link that comes up later: a robot's PC usually
 * boots before the robot is switched on, and systemd-networkd or
 * NetworkManager give a link its address only once it has carrier.  This
 * source tells its owner when the set of usable addresses changed, so
 * that the owner starts its middleware again on them.
 *
 * Usable: an IPv4 or IPv6 address (not IPv6 link-local) on an interface
 * that is up, has carrier (IFF_RUNNING) and is not a loopback.  The set
 * is read with getifaddrs(3) NET_WATCH_SETTLE_MS after the last rtnetlink
 * event of a burst (a link's carrier, then its addresses), and compared
 * with the set taken when the watch was made or last reported: @fn is
 * called when they differ and the new set is not empty.  A set that
 * empties is not reported (the middleware keeps what it has; the same
 * addresses back are no change; others are).
 *
 * Without rtnetlink (a sandbox without AF_NETLINK) the watch says so on
 * the log and watches nothing.  Ownership: the caller frees the watch.
 * Errors: negative errno.  Threads: the loop's thread.
 */
#ifndef SKIN_BRIDGE_NET_WATCH_H
#define SKIN_BRIDGE_NET_WATCH_H

#include <systemd/sd-event.h>

#define NET_WATCH_SETTLE_MS	500

struct net_watch;

typedef void (*net_watch_fn)(struct net_watch *w, void *data);

/* Make it before the middleware takes its addresses: a change between
 * the two is then reported, never missed. */
int net_watch_new(struct net_watch **w, sd_event *e, net_watch_fn fn,
		  void *data);
/* NULL is fine */
void net_watch_free(struct net_watch *w);

/* The usable addresses now, "IFNAME ADDRESS" joined by ", " (for the
 * log); "" when there is none. */
const char *net_watch_describe(struct net_watch *w);

#endif /* SKIN_BRIDGE_NET_WATCH_H */
