// SPDX-License-Identifier: GPL-2.0
/*
 * skin_flood.c - a skin board's traffic on a SocketCAN interface, as fast
 * as wanted: the load of the ring-versus-raw benchmark (docs/PERFORMANCE.md)
 *
 * Every period the board sends, for each of its 16 triangles in order, a
 * head frame (byte 0 0x40, DLC 8, channels 0..6) and a tail frame (byte 0
 * 0xC0, DLC 8, channels 7..11 and a diagnostics word 0); the values change
 * from period to period.  Frames go out in batches of one period (32
 * frames, one sendmmsg()), paced with clock_nanosleep() on absolute
 * CLOCK_MONOTONIC times so that the average rate is --rate frames/s
 * (default 9000, about a saturated 1 Mbit/s bus); --rate 0 sends as fast as
 * the socket takes them.  A full transmit queue (ENOBUFS) is waited out
 * with poll(POLLOUT) and counted.
 *
 *   skin_flood [--rate FPS] [--duration SEC | --frames N] [--board N]
 *              [--class N] IFNAME
 *
 * Without --duration or --frames it runs until SIGINT or SIGTERM.  The last
 * line of output is key=value pairs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#include "measure.h"

#define TRIANGLES	16
#define BATCH		(2 * TRIANGLES)	/* one period of the board */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned long long parse(const char *opt, const char *s,
				unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "skin_flood: %s: bad value '%s' (0..%llu)\n",
			opt, s, max);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: skin_flood [--rate FPS] [--duration SEC | --frames N] "
		"[--board N] [--class N] IFNAME\n");
	exit(2);
}

/* One period of the board; the values move a little every period. */
static void make_period(struct can_frame *cf, unsigned int cls,
			unsigned int board, uint64_t period)
{
	unsigned int t, c;

	for (t = 0; t < TRIANGLES; t++) {
		struct can_frame *h = &cf[2 * t], *tl = &cf[2 * t + 1];
		uint8_t base = 0xf0 - (uint8_t)((period + t) % 16);

		memset(h, 0, sizeof(*h));
		memset(tl, 0, sizeof(*tl));
		h->can_id = tl->can_id = (cls & 7) << 8 | (board & 15) << 4 | t;
		h->len = 8;
		h->data[0] = 0x40;
		for (c = 0; c < 7; c++)
			h->data[1 + c] = base - c;
		tl->len = 8;
		tl->data[0] = 0xc0;
		for (c = 0; c < 5; c++)
			tl->data[1 + c] = base - 7 - c;
	}
}

int main(int argc, char **argv)
{
	unsigned long long rate = 9000, duration = 0, frames = 0;
	unsigned long long sent = 0, enobufs = 0;
	unsigned int cls = 4, board = 14;
	struct sockaddr_can addr = { .can_family = AF_CAN };
	struct can_frame cf[BATCH];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	uint64_t t0, t1, deadline = 0, period = 0;
	struct sigaction sa;
	const char *ifname;
	unsigned int i;
	int a, fd, failed = 0;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		const char *o = argv[a];

		if (a + 1 >= argc)
			usage();
		if (!strcmp(o, "--rate"))
			rate = parse(o, argv[++a], 10000000);
		else if (!strcmp(o, "--duration"))
			duration = parse(o, argv[++a], 86400);
		else if (!strcmp(o, "--frames"))
			frames = parse(o, argv[++a], ~0ULL);
		else if (!strcmp(o, "--board"))
			board = parse(o, argv[++a], 15);
		else if (!strcmp(o, "--class"))
			cls = parse(o, argv[++a], 7);
		else
			usage();
	}
	if (a + 1 != argc || (duration && frames))
		usage();
	ifname = argv[a];

	addr.can_ifindex = if_nametoindex(ifname);
	if (!addr.can_ifindex) {
		fprintf(stderr, "skin_flood: %s: no such CAN interface (%s)\n",
			ifname, strerror(errno));
		return 1;
	}
	fd = socket(PF_CAN, SOCK_RAW, CAN_RAW);
	if (fd < 0) {
		fprintf(stderr, "skin_flood: %s: socket(PF_CAN): %s\n", ifname,
			strerror(errno));
		return 1;
	}
	/* receive nothing: a sender's queue must not fill with the bus */
	if (setsockopt(fd, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0) < 0 ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "skin_flood: %s: %s\n", ifname, strerror(errno));
		return 1;
	}

	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = &cf[i];
		iov[i].iov_len = sizeof(cf[i]);
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t0 = clock_monotonic_ns();
	if (duration)
		deadline = t0 + duration * 1000000000ull;
	while (!stop) {
		unsigned int n = BATCH, done = 0;

		if (frames && sent >= frames)
			break;
		if (frames && frames - sent < n)
			n = frames - sent;
		if (rate) {
			/* when this batch is due: frame `sent` at sent/rate s */
			uint64_t due = t0 + sent * 1000000000ull / rate;

			if (deadline && due >= deadline)
				break;
			clock_sleep_until_mono(due, NULL);
		} else if (deadline && clock_monotonic_ns() >= deadline) {
			break;
		}
		make_period(cf, cls, board, period++);
		while (done < n && !stop) {
			int r = sendmmsg(fd, mm + done, n - done, 0);

			if (r > 0) {
				done += r;
				continue;
			}
			if (r < 0 && (errno == ENOBUFS || errno == EAGAIN)) {
				struct pollfd p = { .fd = fd, .events = POLLOUT };

				enobufs++;
				poll(&p, 1, 100);
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			fprintf(stderr, "skin_flood: %s: sendmmsg: %s\n", ifname,
				r < 0 ? strerror(errno) : "sent nothing");
			failed = 1;
			stop = 1;
		}
		sent += done;
	}
	t1 = clock_monotonic_ns();
	printf("sent=%llu enobufs=%llu wall_s=%.3f rate_fps=%.0f\n", sent,
	       enobufs, (t1 - t0) / 1e9,
	       t1 > t0 ? sent * 1e9 / (t1 - t0) : 0.0);
	return failed;
}
