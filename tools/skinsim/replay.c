// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - a candump -l log back onto CAN, or into ring files
 *
 * At the log's own timing (the gaps between its timestamps, from the
 * first frame on; a timestamp that goes backwards restarts the clock, as
 * canplayer does) or, with --fast, back to back.  Each line's interface
 * is used as named, or as --bus maps it.  A line that is not a frame is
 * reported with its file, line and column and skipped; the exit status
 * then says the log was damaged.  With --ring and --config the frames go
 * through the driver's receive path into the ring files of the config's
 * boards instead: a robot capture becomes /dev/skin-like rings on a
 * machine without the module.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can/raw.h>

#include "skinsim.h"

#define MAX_IFS	16

struct iface {
	char name[IFNAMSIZ];
	int fd;
	bool fd_frames;
};

static struct iface *get_iface(struct iface *ifs, unsigned int *n,
			       const char *name)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	struct iface *i;
	unsigned int k;

	for (k = 0; k < *n; k++)
		if (!strcmp(ifs[k].name, name))
			return &ifs[k];
	if (*n == MAX_IFS) {
		fprintf(stderr, "skinsim: more than %d interfaces in the log\n", MAX_IFS);
		return NULL;
	}
	i = &ifs[(*n)++];
	snprintf(i->name, sizeof(i->name), "%s", name);
	i->fd = socket(PF_CAN, SOCK_RAW | SOCK_CLOEXEC, CAN_RAW);
	if (i->fd < 0) {
		fprintf(stderr, "skinsim: CAN socket: %s\n", strerror(errno));
		return NULL;
	}
	addr.can_ifindex = (int)if_nametoindex(name);
	if (!addr.can_ifindex) {
		fprintf(stderr, "skinsim: %s: no such interface\n", name);
		return NULL;
	}
	/* send only: receive nothing */
	if (setsockopt(i->fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0) < 0 ||
	    bind(i->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "skinsim: %s: %s\n", name, strerror(errno));
		return NULL;
	}
	return i;
}

static int send_record(struct iface *i, const struct skin_canlog_record *rec,
		       const char *log)
{
	const void *buf;
	size_t len;
	struct can_frame cf;
	int tries;

	if (rec->is_fd) {
		int on = 1;

		if (!i->fd_frames &&
		    setsockopt(i->fd, SOL_CAN_RAW, CAN_RAW_FD_FRAMES, &on, sizeof(on)) < 0) {
			fprintf(stderr, "skinsim: %s:%u: CAN FD frame, and %s takes none: %s\n",
				log, rec->line, i->name, strerror(errno));
			return 1;
		}
		i->fd_frames = true;
		buf = &rec->frame;
		len = CANFD_MTU;
	} else {
		memset(&cf, 0, sizeof(cf));
		cf.can_id = rec->frame.can_id;
		cf.len = rec->frame.len;
		cf.len8_dlc = rec->len8_dlc;
		memcpy(cf.data, rec->frame.data, CAN_MAX_DLEN);
		buf = &cf;
		len = CAN_MTU;
	}
	for (tries = 0; tries < 50; tries++) {
		if (write(i->fd, buf, len) == (ssize_t)len)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			break;
		poll(NULL, 0, 2);	/* the queue is full */
	}
	fprintf(stderr, "skinsim: %s:%u: %s: %s\n", log, rec->line, i->name,
		strerror(errno));
	return 1;
}

int run_replay(struct run *r)
{
	struct iface ifs[MAX_IFS];
	unsigned int nifs = 0, k, bad = 0, failed = 0;
	struct skin_canlog_record rec;
	struct skin_canlog *l;
	struct skin_error err;
	uint64_t ts0 = 0, t0 = 0, prev = 0, sent = 0;
	bool first = true;
	int n, status = 1;

	l = skin_canlog_open(r->o->replay, &err);
	if (!l) {
		fprintf(stderr, "skinsim: %s\n", err.text);
		return 1;
	}
	while (!skinsim_stop && (n = skin_canlog_next(l, &rec, &err)) != 0) {
		const char *ifname;
		uint64_t when;

		if (n < 0) {
			fprintf(stderr, "skinsim: %s\n", err.text);
			if (!err.line)
				goto out;	/* a read error: the log is over */
			bad++;
			continue;
		}
		ifname = bus_map(r->o, rec.ifname);
		if (first || rec.ts_ns < prev) {
			ts0 = rec.ts_ns;
			t0 = clock_monotonic_ns();
			first = false;
		}
		prev = rec.ts_ns;
		when = t0 + (rec.ts_ns - ts0);
		if (!r->o->fast)
			clock_sleep_until_mono(when, &skinsim_stop);
		if (r->rings) {
			struct can_frame cf;

			if (rec.is_fd)
				continue;	/* the driver takes none */
			memset(&cf, 0, sizeof(cf));
			cf.can_id = rec.frame.can_id;
			cf.len = rec.frame.len;
			memcpy(cf.data, rec.frame.data, CAN_MAX_DLEN);
			for (k = 0; k < skin_sim_patches(r->sim); k++) {
				if (strcmp(bus_map(r->o, skin_sim_patch(r->sim, k)->bus),
					   ifname))
					continue;
				skin_sim_ring_tick(r->rings[k], when);
				skin_sim_ring_rx(r->rings[k], &cf, when);
			}
			sent++;
			continue;
		}
		{
			struct iface *i = get_iface(ifs, &nifs, ifname);

			if (!i)
				goto out;
			if (send_record(i, &rec, r->o->replay))
				failed++;
			else
				sent++;
		}
	}
	if (r->rings)
		for (k = 0; k < skin_sim_patches(r->sim); k++)
			skin_sim_ring_flush(r->rings[k]);
	status = bad || failed ? 1 : 0;
	if (r->o->verbose || bad || failed)
		fprintf(stderr, "skinsim: %s: %llu frames replayed, %u bad lines, %u frames not sent\n",
			r->o->replay, (unsigned long long)sent, bad, failed);
out:
	for (k = 0; k < nifs; k++)
		if (ifs[k].fd >= 0)
			close(ifs[k].fd);
	skin_canlog_close(l);
	return status;
}
