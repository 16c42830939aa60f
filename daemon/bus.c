// SPDX-License-Identifier: GPL-2.0
/*
 * bus.c - the CAN buses the skin uses, as rtnetlink sees them (bus.h)
 *
 * A plain NETLINK_ROUTE socket, no library: per bus an RTM_GETLINK by
 * name (the reply is an RTM_NEWLINK, or an error: ENODEV, no such
 * interface), and the RTNLGRP_LINK multicast group for what changes
 * meanwhile.  Links are known by name, as skind.conf and the driver know
 * them; a link renamed away from a bus's name is gone (its ifindex says
 * which).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can/netlink.h>
#include <linux/if_arp.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if.h>

#include "bus.h"
#include "log.h"

/* the sequence numbers of our requests: bus i's is seq_base + i */
#define BUS_SEQ_STEP	1024u

const char *bus_link_name(enum bus_link link)
{
	switch (link) {
	case BUS_LINK_MISSING:
		return "missing";
	case BUS_LINK_NOT_CAN:
		return "not-can";
	case BUS_LINK_DOWN:
		return "down";
	case BUS_LINK_UP:
		return "up";
	default:
		return "unknown";
	}
}

const char *bus_state_name(const struct skind_bus *b)
{
	static const char *const names[] = {
		[CAN_STATE_ERROR_ACTIVE] = "error-active",
		[CAN_STATE_ERROR_WARNING] = "error-warning",
		[CAN_STATE_ERROR_PASSIVE] = "error-passive",
		[CAN_STATE_BUS_OFF] = "bus-off",
		[CAN_STATE_STOPPED] = "stopped",
		[CAN_STATE_SLEEPING] = "sleeping",
	};

	if (b->link >= BUS_LINK_DOWN && b->is_virtual)
		return "virtual";
	if (b->state >= 0 && b->state < CAN_STATE_MAX)
		return names[b->state];
	return "none";
}

const char *bus_trouble(const struct skind_bus *b, char *buf, size_t size)
{
	switch (b->link) {
	case BUS_LINK_UNKNOWN:
		return NULL;
	case BUS_LINK_MISSING:
		return "missing";
	case BUS_LINK_NOT_CAN:
		return "not CAN";
	case BUS_LINK_DOWN:
		return "down";
	case BUS_LINK_UP:
		break;
	}
	if (b->is_virtual)
		return NULL;
	if (b->bitrate != b->configured) {
		snprintf(buf, size, "at %u bit/s", b->bitrate);
		return buf;
	}
	if (b->state > CAN_STATE_ERROR_ACTIVE && b->state < CAN_STATE_MAX)
		return bus_state_name(b);
	return NULL;
}

/* The sentence the journal gets, and its priority. */
static int describe(const struct skind_bus *b, char *text, size_t size)
{
	switch (b->link) {
	case BUS_LINK_UNKNOWN:
		return -1;
	case BUS_LINK_MISSING:
		snprintf(text, size, "bus %s: no such interface; its boards cannot be heard",
			 b->name);
		return LOG_WARNING;
	case BUS_LINK_NOT_CAN:
		snprintf(text, size, "bus %s: not a CAN interface", b->name);
		return LOG_WARNING;
	case BUS_LINK_DOWN:
		snprintf(text, size,
			 "bus %s: down; bring it up at %u bit/s (docs/INSTALL.md, \"Bringing the CAN bus up\")",
			 b->name, b->configured);
		return LOG_WARNING;
	case BUS_LINK_UP:
		break;
	}
	if (b->is_virtual) {
		snprintf(text, size, "bus %s: up (virtual, %s: no bitrate)", b->name,
			 b->kind[0] ? b->kind : "no bit timing");
		return LOG_INFO;
	}
	if (b->bitrate != b->configured) {
		snprintf(text, size,
			 "bus %s: up at %u bit/s, but [bus %s] bitrate is %u: its boards cannot be heard",
			 b->name, b->bitrate, b->name, b->configured);
		return LOG_WARNING;
	}
	snprintf(text, size, "bus %s: up at %u bit/s, %s", b->name, b->bitrate,
		 bus_state_name(b));
	switch (b->state) {
	case CAN_STATE_ERROR_ACTIVE:
		return LOG_INFO;
	case CAN_STATE_BUS_OFF:
		snprintf(text, size,
			 "bus %s: up at %u bit/s, bus-off: it sends and hears nothing until restarted (restart-ms, or ip link set %s type can restart)",
			 b->name, b->bitrate, b->name);
		return LOG_ERR;
	default:
		return LOG_WARNING;
	}
}

/* Say what changed, once. */
static void evaluate(struct skind *d, struct skind_bus *b)
{
	char text[sizeof(b->said)];
	int prio = describe(b, text, sizeof(text));

	if (prio < 0 || !strcmp(text, b->said))
		return;
	snprintf(b->said, sizeof(b->said), "%s", text);
	log_field(prio, "BUS", b->name, "%s", text);
	if (d->status_changed)
		d->status_changed(d);
}

static struct skind_bus *find(struct skind *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->n_buses; i++)
		if (!strcmp(d->buses[i].name, name))
			return &d->buses[i];
	return NULL;
}

const struct skind_bus *bus_find(const struct skind *d, const char *name)
{
	return find((struct skind *)d, name);
}

static void request(struct skind *d, unsigned int i)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[RTA_SPACE(IFNAMSIZ)];
	} req;
	struct rtattr *rta = (struct rtattr *)req.attrs;
	size_t len = strlen(d->buses[i].name) + 1;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = d->bus_seq + i;
	req.ifi.ifi_family = AF_UNSPEC;
	rta->rta_type = IFLA_IFNAME;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), d->buses[i].name, len);
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi)) + RTA_ALIGN(rta->rta_len);
	/* a full socket buffer loses one round; the next refresh asks again */
	if (send(d->bus_fd, &req, req.nh.nlmsg_len, MSG_DONTWAIT) < 0)
		log_debug("rtnetlink: %s: %s", d->buses[i].name, strerror(errno));
}

void bus_refresh(struct skind *d)
{
	unsigned int i;

	if (d->bus_fd < 0)
		return;
	for (i = 0; i < d->n_buses; i++)
		request(d, i);
}

/* The CAN attributes nested in IFLA_INFO_DATA. */
static void parse_can(struct skind_bus *b, struct rtattr *data, int len)
{
	struct rtattr *a;

	for (a = data; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_CAN_BITTIMING &&
		    RTA_PAYLOAD(a) >= sizeof(struct can_bittiming)) {
			struct can_bittiming bt;

			memcpy(&bt, RTA_DATA(a), sizeof(bt));
			b->bitrate = bt.bitrate;
		} else if (a->rta_type == IFLA_CAN_STATE &&
			   RTA_PAYLOAD(a) >= sizeof(__u32)) {
			__u32 st;

			memcpy(&st, RTA_DATA(a), sizeof(st));
			b->state = (int)st;
		}
	}
}

static void parse_linkinfo(struct skind_bus *b, struct rtattr *info, int len)
{
	struct rtattr *a, *data = NULL;

	for (a = info; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_INFO_KIND) {
			snprintf(b->kind, sizeof(b->kind), "%.*s",
				 (int)RTA_PAYLOAD(a), (const char *)RTA_DATA(a));
		} else if (a->rta_type == IFLA_INFO_DATA) {
			data = a;
		}
	}
	if (data && !strcmp(b->kind, "can"))
		parse_can(b, RTA_DATA(data), (int)RTA_PAYLOAD(data));
}

static void on_link(struct skind *d, const struct nlmsghdr *nh)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = (int)nh->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	struct rtattr *a, *info = NULL;
	char name[IFNAMSIZ] = "";
	struct skind_bus *b;
	unsigned int i;

	if (len < 0)
		return;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_IFNAME)
			snprintf(name, sizeof(name), "%.*s", (int)RTA_PAYLOAD(a),
				 (const char *)RTA_DATA(a));
		else if (a->rta_type == IFLA_LINKINFO)
			info = a;
	}
	/* renamed away from a bus's name: that bus is gone */
	for (i = 0; i < d->n_buses; i++) {
		b = &d->buses[i];
		if (b->ifindex == ifi->ifi_index && strcmp(b->name, name) &&
		    b->link != BUS_LINK_MISSING) {
			b->link = BUS_LINK_MISSING;
			b->ifindex = 0;
			evaluate(d, b);
		}
	}
	b = find(d, name);
	if (!b)
		return;
	if (nh->nlmsg_type == RTM_DELLINK) {
		b->link = BUS_LINK_MISSING;
		b->ifindex = 0;
		evaluate(d, b);
		return;
	}
	b->ifindex = ifi->ifi_index;
	b->kind[0] = 0;
	b->bitrate = 0;
	b->state = -1;
	if (info)
		parse_linkinfo(b, RTA_DATA(info), (int)RTA_PAYLOAD(info));
	if (ifi->ifi_type != ARPHRD_CAN)
		b->link = BUS_LINK_NOT_CAN;
	else
		b->link = ifi->ifi_flags & IFF_UP ? BUS_LINK_UP : BUS_LINK_DOWN;
	/* a CAN controller cannot be up without bit timing: none is vcan's
	 * or vxcan's, which have none */
	b->is_virtual = b->link >= BUS_LINK_DOWN && strcmp(b->kind, "can");
	evaluate(d, b);
}

static void on_error(struct skind *d, const struct nlmsghdr *nh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	uint32_t i = nh->nlmsg_seq - d->bus_seq;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)) || !e->error ||
	    i >= d->n_buses)
		return;
	if (e->error == -ENODEV) {
		d->buses[i].link = BUS_LINK_MISSING;
		d->buses[i].ifindex = 0;
		evaluate(d, &d->buses[i]);
	} else {
		log_debug("rtnetlink: %s: %s", d->buses[i].name, strerror(-e->error));
	}
}

static int on_netlink(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct skind *d = data;
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	unsigned int rounds;

	(void)s;
	(void)revents;
	/* bounded, as every handler: what is left wakes us again */
	for (rounds = 0; rounds < 16; rounds++) {
		struct sockaddr_nl sa;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr msg = { .msg_name = &sa, .msg_namelen = sizeof(sa),
				      .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
		struct nlmsghdr *nh;
		int len;

		if (n < 0) {
			/* events lost: ask about everything again */
			if (errno == ENOBUFS)
				bus_refresh(d);
			return 0;
		}
		if (sa.nl_pid != 0)	/* only the kernel talks to us */
			continue;
		len = (int)n;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == RTM_NEWLINK || nh->nlmsg_type == RTM_DELLINK)
				on_link(d, nh);
			else if (nh->nlmsg_type == NLMSG_ERROR)
				on_error(d, nh);
		}
	}
	return 0;
}

int bus_start(struct skind *d)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd, r;

	d->bus_fd = -1;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		log_warn("rtnetlink: %s; the CAN buses are not checked (skind.service needs AF_NETLINK and the host's network namespace)",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return bus_configure(d);	/* known as "unknown" */
	}
	r = sd_event_add_io(d->event, &d->bus_source, fd, EPOLLIN, on_netlink, d);
	if (r < 0) {
		close(fd);
		return r;
	}
	sd_event_source_set_priority(d->bus_source, SKIND_PRIO_HOUSEKEEPING);
	sd_event_source_set_description(d->bus_source, "rtnetlink");
	d->bus_fd = fd;
	return bus_configure(d);
}

void bus_stop(struct skind *d)
{
	d->bus_source = sd_event_source_disable_unref(d->bus_source);
	if (d->bus_fd >= 0)
		close(d->bus_fd);
	d->bus_fd = -1;
	free(d->buses);
	d->buses = NULL;
	d->n_buses = 0;
}

int bus_configure(struct skind *d)
{
	struct skind_skin *s = d->skin;
	struct skind_bus *buses;
	unsigned int i, k, j, n = 0;

	if (!s)
		return 0;
	buses = calloc(s->n_patches ? s->n_patches : 1, sizeof(*buses));
	if (!buses)
		return -ENOMEM;
	for (i = 0; i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			const char *name = s->parts[i].patches[k].ifname;
			const struct skind_bus *old = find(d, name);
			struct skind_bus *b;

			for (j = 0; j < n && strcmp(buses[j].name, name); j++)
				;
			if (j < n)
				continue;
			b = &buses[n++];
			if (old)
				*b = *old;	/* what was said stays said */
			else {
				snprintf(b->name, sizeof(b->name), "%s", name);
				b->state = -1;
			}
			b->configured = 1000000;
			for (j = 0; j < s->config->n_buses; j++)
				if (!strcmp(s->config->buses[j].name, name))
					b->configured = s->config->buses[j].bitrate;
		}
	free(d->buses);
	d->buses = buses;
	d->n_buses = n;
	/* replies to an older list's requests must not land on this one */
	d->bus_seq += BUS_SEQ_STEP;
	for (i = 0; i < n; i++)
		evaluate(d, &d->buses[i]);	/* a bitrate newly configured */
	bus_refresh(d);
	return 0;
}
