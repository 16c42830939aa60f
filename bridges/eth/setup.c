// SPDX-License-Identifier: GPL-2.0
/*
 * setup.c - skin-eth --setup: the boards' vcan interfaces, created over
 * rtnetlink where missing and set up, with no `ip` to run
 *
 * Needs CAP_NET_ADMIN (the unit runs it as ExecStartPre=+) and the vcan
 * module, which the kernel loads on the first request for a vcan link
 * where module loading is allowed.  An interface that exists is left as
 * it is, only set up: it may be the administrator's (a real CAN bus, a
 * vxcan pair into a container).
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "gateway.h"

struct nlreq {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[256];
};

static struct rtattr *add_attr(struct nlreq *r, unsigned short type,
			       const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

/* Send @r and read its acknowledgement: 0 or -errno */
static int talk(int fd, struct nlreq *r)
{
	char buf[4096];
	struct nlmsghdr *nh;
	ssize_t n;

	r->nh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno == EINTR ? -EAGAIN : -errno;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (unsigned int)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != r->nh.nlmsg_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				return e->error;
			}
		}
	}
}

/* Create vcan @name, up: 0 or -errno */
static int create_vcan(int fd, const char *name, unsigned int seq)
{
	struct nlreq r = { 0 };
	struct rtattr *info;

	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(r.ifi));
	r.nh.nlmsg_type = RTM_NEWLINK;
	r.nh.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	r.nh.nlmsg_seq = seq;
	r.ifi.ifi_family = AF_UNSPEC;
	r.ifi.ifi_flags = IFF_UP;
	r.ifi.ifi_change = IFF_UP;
	add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	info = add_attr(&r, IFLA_LINKINFO, NULL, 0);
	add_attr(&r, IFLA_INFO_KIND, "vcan", 4);
	info->rta_len = (unsigned short)((char *)&r + r.nh.nlmsg_len - (char *)info);
	return talk(fd, &r);
}

/* Set interface @index up: 0 or -errno */
static int set_up(int fd, int index, unsigned int seq)
{
	struct nlreq r = { 0 };

	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(r.ifi));
	r.nh.nlmsg_type = RTM_NEWLINK;
	r.nh.nlmsg_seq = seq;
	r.ifi.ifi_family = AF_UNSPEC;
	r.ifi.ifi_index = index;
	r.ifi.ifi_flags = IFF_UP;
	r.ifi.ifi_change = IFF_UP;
	return talk(fd, &r);
}

int gateway_setup(struct gateway *g)
{
	struct sockaddr_nl a = { .nl_family = AF_NETLINK };
	unsigned int i, seq = 1, created = 0, existing = 0;
	int fd, r, status = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "skin-eth: --setup: rtnetlink: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	for (i = 0; i < g->n_ports; i++) {
		const struct gw_port *o = &g->ports[i];
		int index = (int)if_nametoindex(o->ifname);

		if (index) {
			existing++;
			r = set_up(fd, index, seq++);
			if (r)
				fprintf(stderr, "skin-eth: --setup: setting %s (board %s) up: %s\n",
					o->ifname, o->board, strerror(-r));
		} else {
			r = create_vcan(fd, o->ifname, seq++);
			if (!r) {
				printf("skin-eth: created %s (board %s)\n", o->ifname, o->board);
				created++;
			} else {
				fprintf(stderr, "skin-eth: --setup: creating vcan %s (board %s): %s%s\n",
					o->ifname, o->board, strerror(-r),
					r == -EOPNOTSUPP ? " (no vcan module: modprobe vcan)" :
					r == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
			}
		}
		if (r)
			status = 1;
	}
	close(fd);
	printf("skin-eth: %u interface%s created, %u already there\n", created,
	       created == 1 ? "" : "s", existing);
	fflush(stdout);
	return status;
}
