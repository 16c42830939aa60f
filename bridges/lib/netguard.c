// SPDX-License-Identifier: GPL-2.0
/*
 * netguard.c - connection caps and accept() without spinning (netguard.h)
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netguard.h"

/* An address and the connections accepted from it */
struct addr_count {
	struct sockaddr_storage addr;
	unsigned int n;		/* 0: a free entry */
};

struct net_guard {
	struct net_guard_limits l;
	struct net_guard_stats st;
	int reserve;			/* /dev/null, given up on EMFILE; -1 */
	struct addr_count *addrs;	/* max_conns entries */
	net_guard_room_fn room;
	void *room_data;
};

void net_guard_set_room(struct net_guard *g, net_guard_room_fn fn, void *data)
{
	g->room = fn;
	g->room_data = data;
}

/* Whether a slot is free in all, made free by the owner if need be */
static bool have_room(struct net_guard *g)
{
	if (g->st.conns < g->l.max_conns)
		return true;
	if (g->room && g->room(g->room_data) && g->st.conns < g->l.max_conns) {
		g->st.evicted++;
		return true;
	}
	return false;
}

static int open_reserve(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int net_guard_new(struct net_guard **gp, const struct net_guard_limits *l)
{
	struct net_guard *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->l = *l;
	if (!g->l.max_conns)
		g->l.max_conns = 256;
	if (!g->l.max_per_addr)
		g->l.max_per_addr = 32;
	g->addrs = calloc(g->l.max_conns, sizeof(*g->addrs));
	g->reserve = open_reserve();
	if (!g->addrs || g->reserve < 0) {
		int r = g->addrs ? -errno : -ENOMEM;

		net_guard_free(g);
		return r;
	}
	*gp = g;
	return 0;
}

void net_guard_free(struct net_guard *g)
{
	if (!g)
		return;
	if (g->reserve >= 0)
		close(g->reserve);
	free(g->addrs);
	free(g);
}

/* Whether @a and @b are the same host (the port does not count) */
static bool same_host(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return true;	/* AF_UNIX and the like: one "address" */
}

static struct addr_count *find_addr(struct net_guard *g,
				    const struct sockaddr_storage *a)
{
	unsigned int i;

	for (i = 0; i < g->l.max_conns; i++)
		if (g->addrs[i].n && same_host(&g->addrs[i].addr, a))
			return &g->addrs[i];
	return NULL;
}

/* Out of descriptors: the reserve makes room to take the connection off
 * the queue and close it */
static int shed(struct net_guard *g, int lfd)
{
	int fd;

	if (g->reserve >= 0) {
		close(g->reserve);
		g->reserve = -1;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		close(fd);
	g->reserve = open_reserve();
	if (fd < 0)
		return errno == EAGAIN ? -EAGAIN : -EMFILE;
	g->st.out_of_fds++;
	return -ECONNREFUSED;
}

int net_guard_accept(struct net_guard *g, int lfd, struct net_slot *slot)
{
	socklen_t sl = sizeof(slot->addr);
	struct addr_count *ac, *free_ac = NULL;
	unsigned int i;
	int fd;

	memset(slot, 0, sizeof(*slot));
	fd = accept4(lfd, (struct sockaddr *)&slot->addr, &sl,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE)
			return shed(g, lfd);
		if (errno == EINTR || errno == ECONNABORTED)
			return -ECONNREFUSED;	/* nothing to do: call again */
		return -errno;
	}
	ac = find_addr(g, &slot->addr);
	if (ac && ac->n >= g->l.max_per_addr) {
		g->st.refused_addr++;
		goto refuse;
	}
	if (!have_room(g)) {
		g->st.refused_total++;
		goto refuse;
	}
	ac = find_addr(g, &slot->addr);	/* the room made may have been its */
	if (!ac) {
		for (i = 0; i < g->l.max_conns && !free_ac; i++)
			if (!g->addrs[i].n)
				free_ac = &g->addrs[i];
		ac = free_ac;	/* there is one: fewer than max_conns held */
		ac->addr = slot->addr;
	}
	ac->n++;
	g->st.conns++;
	return fd;
refuse:
	close(fd);
	return -ECONNREFUSED;
}

int net_guard_take(struct net_guard *g, struct net_slot *slot)
{
	memset(slot, 0, sizeof(*slot));
	slot->addr.ss_family = AF_UNSPEC;
	if (!have_room(g)) {
		g->st.refused_total++;
		return -EMFILE;
	}
	g->st.conns++;
	return 0;
}

void net_guard_release(struct net_guard *g, struct net_slot *slot)
{
	struct addr_count *ac;

	if (slot->addr.ss_family != AF_UNSPEC) {
		ac = find_addr(g, &slot->addr);
		if (ac)
			ac->n--;
	}
	g->st.conns--;
	memset(slot, 0, sizeof(*slot));
}

void net_guard_stats(const struct net_guard *g, struct net_guard_stats *s)
{
	*s = g->st;
}
