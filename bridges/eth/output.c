// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - the frames onto one CAN interface per board CAN port
 * (gateway.h)
 *
 * One CAN_RAW socket per port, bound to its interface by index, never
 * blocking, receiving nothing (no filter matches, no loopback of our own
 * frames).  A write the interface refuses is counted as dropped and
 * never ends the gateway: down (ENETDOWN) or its queue full (ENOBUFS,
 * EAGAIN) resumes by itself once it is up; deleted (ENODEV, ENXIO) is
 * bound again, by name, once it exists again, at most once a second.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#include "gateway.h"

#define RETRY_NS	1000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int gateway_output_init(struct gateway *g)
{
	unsigned int i, p, n = 0, nb = skin_eth_rx_n_boards(g->rx);

	for (i = 0; i < nb; i++)
		n += skin_eth_rx_board(g->rx, i)->n_patches;
	g->ports = calloc(n ? n : 1, sizeof(*g->ports));
	g->first = calloc(nb ? nb : 1, sizeof(*g->first));
	if (!g->ports || !g->first)
		return -1;
	for (i = 0; i < nb; i++) {
		const struct skin_eth_board *b = skin_eth_rx_board(g->rx, i);

		g->first[i] = g->n_ports;
		for (p = 0; p < b->n_patches; p++) {
			struct gw_port *o = &g->ports[g->n_ports++];

			memcpy(o->ifname, b->ifname[p], sizeof(o->ifname));
			o->board = b->name;
			o->fd = -1;
		}
	}
	return 0;
}

/* Bind port @o's socket to its interface: 0, or -errno (ENODEV: none) */
static int bind_port(struct gw_port *o)
{
	struct sockaddr_can a = { .can_family = AF_CAN };
	int fd, zero = 0;
	unsigned int idx = if_nametoindex(o->ifname);

	if (!idx)
		return -ENODEV;
	fd = socket(PF_CAN, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, CAN_RAW);
	if (fd < 0)
		return -errno;
	/* a writer only: nothing queued for reading, not even our frames */
	if (setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0) ||
	    setsockopt(fd, SOL_CAN_RAW, CAN_RAW_RECV_OWN_MSGS, &zero, sizeof(zero))) {
		int e = -errno;

		close(fd);
		return e;
	}
	a.can_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (o->fd >= 0)
		close(o->fd);
	o->fd = fd;
	o->ifindex = (int)idx;
	return 0;
}

int gateway_output_open(struct gateway *g, bool wait)
{
	unsigned int i;
	int r, status = 0;

	for (i = 0; i < g->n_ports; i++) {
		struct gw_port *o = &g->ports[i];

		r = bind_port(o);
		if (!r)
			continue;
		if (r == -ENODEV && wait) {
			fprintf(stderr, "skin-eth: no interface %s (board %s) yet: its frames are dropped until it exists\n",
				o->ifname, o->board);
			o->next_try_ns = now_ns() + RETRY_NS;
			continue;
		}
		if (r == -ENODEV)
			fprintf(stderr, "skin-eth: no interface %s for board %s (create it: skin-eth --setup, or ip link add %s type vcan; or --wait-interfaces)\n",
				o->ifname, o->board, o->ifname);
		else
			fprintf(stderr, "skin-eth: %s (board %s): %s\n", o->ifname,
				o->board, strerror(-r));
		status = -1;
	}
	return status;
}

void gateway_output_close(struct gateway *g)
{
	unsigned int i;

	for (i = 0; i < g->n_ports; i++) {
		if (g->ports[i].fd >= 0)
			close(g->ports[i].fd);
		g->ports[i].fd = -1;
	}
	free(g->ports);
	free(g->first);
	g->ports = NULL;
	g->first = NULL;
	g->n_ports = 0;
}

/* Bind again a port whose interface went away, at most once a second */
static void rebind(struct gw_port *o, uint64_t now)
{
	if (now < o->next_try_ns)
		return;
	o->next_try_ns = now + RETRY_NS;
	if (!bind_port(o))
		o->rebinds++;
}

void gateway_output_retry(struct gateway *g)
{
	uint64_t now = now_ns();
	unsigned int i;

	for (i = 0; i < g->n_ports; i++)
		if (g->ports[i].fd < 0 || g->ports[i].ifindex !=
		    (int)if_nametoindex(g->ports[i].ifname))
			rebind(&g->ports[i], now);
}

void gateway_output_frame(struct gateway *g, unsigned int port,
			  const struct can_frame *cf)
{
	struct gw_port *o = &g->ports[port];

	if (o->fd < 0) {
		o->dropped++;
		return;
	}
	if (write(o->fd, cf, sizeof(*cf)) == (ssize_t)sizeof(*cf)) {
		o->frames++;
		return;
	}
	o->dropped++;
	/* ENETDOWN, ENOBUFS, EAGAIN: the interface is down or full, and
	 * takes frames again by itself; gone: bound again once back */
	if (errno == ENODEV || errno == ENXIO)
		rebind(o, now_ns());
}
