// SPDX-License-Identifier: GPL-2.0
/*
 * net_watch.c - the host's usable network addresses (net_watch.h)
 *
 * A plain NETLINK_ROUTE socket in the link and address groups, as
 * skind's daemon/bus.c watches its CAN buses: its messages only wake us;
 * what is usable is read again as a whole with getifaddrs(3), which needs
 * no parsing of rtnetlink's attributes and cannot drift from it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "net_watch.h"

struct net_watch {
	sd_event *e;
	sd_event_source *io, *settle;
	net_watch_fn fn;
	void *data;
	char *in_use;			/* the set last taken or reported */
	char *now;			/* the set last read */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "IFNAME ADDRESS, ..." sorted, of the usable addresses; NULL: no memory */
static char *usable_set(void)
{
	struct ifaddrs *ifs = NULL, *i;
	char **v = NULL, *out = NULL;
	size_t n = 0, cap = 0, len = 1, k;

	if (getifaddrs(&ifs) < 0)
		return strdup("");
	for (i = ifs; i; i = i->ifa_next) {
		char addr[INET6_ADDRSTRLEN];
		const void *a;
		int fam;

		if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK) ||
		    (i->ifa_flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING))
			continue;
		fam = i->ifa_addr->sa_family;
		if (fam == AF_INET) {
			a = &((const struct sockaddr_in *)i->ifa_addr)->sin_addr;
		} else if (fam == AF_INET6) {
			const struct in6_addr *a6 = &((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;

			if (IN6_IS_ADDR_LINKLOCAL(a6))
				continue;
			a = a6;
		} else {
			continue;
		}
		if (!inet_ntop(fam, a, addr, sizeof(addr)))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof(*v));

			if (!nv)
				goto out;
			v = nv;
		}
		if (asprintf(&v[n], "%s %s", i->ifa_name, addr) < 0)
			goto out;
		len += strlen(v[n++]) + 2;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	out = malloc(len);
	if (!out)
		goto out;
	out[0] = '\0';
	for (k = 0; k < n; k++) {
		if (k)
			strcat(out, ", ");
		strcat(out, v[k]);
	}
out:
	for (k = 0; k < n; k++)
		free(v[k]);
	free(v);
	freeifaddrs(ifs);
	return out;
}

static void reread(struct net_watch *w)
{
	char *now = usable_set();

	if (!now)
		return;		/* no memory: the next event tries again */
	free(w->now);
	w->now = now;
}

static int on_settled(sd_event_source *s, uint64_t usec, void *data)
{
	struct net_watch *w = data;

	(void)s;
	(void)usec;
	reread(w);
	if (!w->now || !w->now[0] || !strcmp(w->now, w->in_use))
		return 0;
	log_info("network: usable addresses now %s (were %s)", w->now,
		 w->in_use[0] ? w->in_use : "none");
	free(w->in_use);
	w->in_use = w->now;
	w->now = NULL;
	w->fn(w, w->data);
	return 0;
}

/* Every event (or events lost, ENOBUFS) pushes the check back by the
 * settling time: one report for a burst. */
static void changed(struct net_watch *w)
{
	uint64_t now;

	if (sd_event_now(w->e, CLOCK_MONOTONIC, &now) < 0)
		return;
	sd_event_source_set_time(w->settle, now + NET_WATCH_SETTLE_MS * 1000ULL);
	sd_event_source_set_enabled(w->settle, SD_EVENT_ONESHOT);
}

static int on_netlink(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct net_watch *w = data;
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	unsigned int rounds;

	(void)s;
	(void)revents;
	/* bounded, as every handler: what is left wakes us again */
	for (rounds = 0; rounds < 16; rounds++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0) {
			if (errno == ENOBUFS)
				changed(w);
			return 0;
		}
		changed(w);
	}
	return 0;
}

int net_watch_new(struct net_watch **wp, sd_event *e, net_watch_fn fn,
		  void *data)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR,
	};
	struct net_watch *w = calloc(1, sizeof(*w));
	int fd = -1, r;

	if (!w)
		return -ENOMEM;
	w->e = sd_event_ref(e);
	w->fn = fn;
	w->data = data;
	r = sd_event_add_time(e, &w->settle, CLOCK_MONOTONIC, UINT64_MAX, 0,
			      on_settled, w);
	if (r < 0)
		goto fail;
	sd_event_source_set_enabled(w->settle, SD_EVENT_OFF);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* watched nothing, said once: the rest works as before */
		log_warn("rtnetlink: %s: a network that comes up later is not followed (the unit needs AF_NETLINK)",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	} else {
		r = sd_event_add_io(e, &w->io, fd, EPOLLIN, on_netlink, w);
		if (r < 0)
			goto fail;
		sd_event_source_set_io_fd_own(w->io, 1);
		fd = -1;
		sd_event_source_set_description(w->io, "rtnetlink");
	}
	/* taken after the socket subscribed: a change between is reported */
	w->in_use = usable_set();
	if (!w->in_use) {
		r = -ENOMEM;
		goto fail;
	}
	*wp = w;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	net_watch_free(w);
	return r;
}

void net_watch_free(struct net_watch *w)
{
	if (!w)
		return;
	sd_event_source_disable_unref(w->io);
	sd_event_source_disable_unref(w->settle);
	sd_event_unref(w->e);
	free(w->in_use);
	free(w->now);
	free(w);
}

const char *net_watch_describe(struct net_watch *w)
{
	reread(w);
	return w->now ? w->now : "";
}
