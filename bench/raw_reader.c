// SPDX-License-Identifier: GPL-2.0
/*
 * raw_reader.c - what a user would write instead of the driver: one skin
 * board per CAN interface, read from CAN_RAW sockets and assembled into
 * 192-taxel samples in user space
 *
 * This is side (b) of the ring-versus-raw benchmark (docs/PERFORMANCE.md).
 * It deliberately does not use the driver's core: it is the straightforward
 * program a careful user writes, with the driver's receive filters (the
 * board's data frames, id class<<8 | board<<4 under mask 0x7f0, and error
 * frames), checking each frame's flags, class, board, length and byte 0,
 * and publishing a sample when every enabled triangle sent its head and its
 * tail (a partial one first when a half arrives twice).  Each socket is
 * drained after each epoll_wait(); frames dropped by a full socket queue are
 * counted (SO_RXQ_OVFL).
 *
 *   raw_reader [--duration SEC] [--board N] [--class N] [--triangles MASK]
 *              [--batch N] [--tick MS] IFNAME...
 *
 * --tick MS wakes every MS milliseconds and drains every socket, as a
 * control loop at a fixed rate would, instead of waking on every frame.
 * --batch N receives up to N frames per system call (recvmmsg); the default,
 * 1, is one recvmsg() per frame, what most programs do.
 *
 * The last line of output is key=value pairs; cpu_us is the process's user
 * plus system time while it read (getrusage), cpu_ns_per_sample that over
 * the samples assembled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/error.h>
#include <linux/can/raw.h>

#include "measure.h"

#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

#define TRIANGLES	16
#define CHANNELS	12
#define VALUES		(TRIANGLES * CHANNELS)
#define MAX_BUSES	64
#define MAX_BATCH	64

struct sample {
	uint64_t timestamp_ns;
	uint16_t refreshed;
	bool partial;
	uint16_t diag[TRIANGLES];
	uint8_t values[VALUES];
};

struct bus {
	const char *ifname;
	int fd;
	/* assembly */
	uint16_t have_head, have_tail;
	uint16_t diag[TRIANGLES];
	uint8_t values[VALUES];
	/* counts */
	uint64_t frames, rejected, err_frames, samples, partial;
	uint32_t dropped;	/* SO_RXQ_OVFL: the socket's own count */
	struct sample out;	/* the user's copy of the last sample */
};

static struct bus buses[MAX_BUSES];
static unsigned int nbuses;
static unsigned int cls = 4, board = 14;
static uint16_t enabled = 0xffff;
static volatile sig_atomic_t stop;

static void emit(struct bus *b, bool partial)
{
	b->out.timestamp_ns = clock_monotonic_ns();
	b->out.refreshed = b->have_head & b->have_tail;
	b->out.partial = partial;
	memcpy(b->out.diag, b->diag, sizeof(b->out.diag));
	memcpy(b->out.values, b->values, sizeof(b->out.values));
	b->samples++;
	if (partial)
		b->partial++;
	b->have_head = 0;
	b->have_tail = 0;
}

static void handle(struct bus *b, const struct can_frame *cf)
{
	unsigned int tri, i;
	uint16_t bit;
	bool tail;

	if (cf->can_id & CAN_ERR_FLAG) {
		b->err_frames++;
		return;
	}
	if (cf->can_id & (CAN_EFF_FLAG | CAN_RTR_FLAG) ||
	    ((cf->can_id >> 8) & 7) != cls || ((cf->can_id >> 4) & 15) != board) {
		b->rejected++;
		return;
	}
	tri = cf->can_id & 15;
	bit = 1u << tri;
	if (cf->len == 8 && cf->data[0] == 0x40)
		tail = false;
	else if ((cf->len == 6 || cf->len == 8) && cf->data[0] == 0xc0)
		tail = true;
	else {
		b->rejected++;
		return;
	}
	if (!(enabled & bit)) {
		b->rejected++;
		return;
	}
	b->frames++;

	/* a half seen twice: a frame went missing, publish what we have */
	if ((tail ? b->have_tail : b->have_head) & bit)
		emit(b, true);
	if (tail) {
		for (i = 0; i < 5; i++)
			b->values[tri * CHANNELS + 7 + i] = cf->data[1 + i];
		b->diag[tri] = cf->len == 8 ? (cf->data[6] << 8 | cf->data[7]) : 0;
		b->have_tail |= bit;
	} else {
		for (i = 0; i < 7; i++)
			b->values[tri * CHANNELS + i] = cf->data[1 + i];
		b->have_head |= bit;
	}
	if ((b->have_head & b->have_tail) == enabled)
		emit(b, false);
}

static void overflow(struct bus *b, struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL)
			memcpy(&b->dropped, CMSG_DATA(c), sizeof(b->dropped));
}

/* Read everything queued on the socket; 0, or -1 on a real error. */
static int drain(struct bus *b, unsigned int batch)
{
	static struct can_frame cf[MAX_BATCH];
	static char ctrl[MAX_BATCH][CMSG_SPACE(sizeof(uint32_t))];
	static struct mmsghdr mm[MAX_BATCH];
	static struct iovec iov[MAX_BATCH];
	unsigned int i;
	int n;

	for (;;) {
		for (i = 0; i < batch; i++) {
			iov[i].iov_base = &cf[i];
			iov[i].iov_len = sizeof(cf[i]);
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = ctrl[i];
			mm[i].msg_hdr.msg_controllen = sizeof(ctrl[i]);
		}
		if (batch == 1) {
			ssize_t len = recvmsg(b->fd, &mm[0].msg_hdr, MSG_DONTWAIT);

			n = len < 0 ? -1 : 1;
			mm[0].msg_len = len < 0 ? 0 : len;
		} else {
			n = recvmmsg(b->fd, mm, batch, MSG_DONTWAIT, NULL);
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			fprintf(stderr, "raw_reader: %s: recvmsg: %s\n",
				b->ifname, strerror(errno));
			return -1;
		}
		for (i = 0; i < (unsigned int)n; i++) {
			overflow(b, &mm[i].msg_hdr);
			if (mm[i].msg_len != CAN_MTU) {
				b->rejected++;	/* not a classic CAN frame */
				continue;
			}
			handle(b, &cf[i]);
		}
	}
}

static int open_bus(struct bus *b)
{
	struct can_filter filter = {
		.can_id = (cls & 7) << 8 | (board & 15) << 4,
		.can_mask = 0x7f0,
	};
	can_err_mask_t err_mask = CAN_ERR_MASK;
	struct sockaddr_can addr = { .can_family = AF_CAN };
	int one = 1;

	addr.can_ifindex = if_nametoindex(b->ifname);
	if (!addr.can_ifindex) {
		fprintf(stderr, "raw_reader: %s: no such CAN interface (%s)\n",
			b->ifname, strerror(errno));
		return -1;
	}
	b->fd = socket(PF_CAN, SOCK_RAW, CAN_RAW);
	if (b->fd < 0) {
		fprintf(stderr, "raw_reader: %s: socket(PF_CAN): %s\n",
			b->ifname, strerror(errno));
		return -1;
	}
	if (setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_FILTER, &filter,
		       sizeof(filter)) < 0 ||
	    setsockopt(b->fd, SOL_CAN_RAW, CAN_RAW_ERR_FILTER, &err_mask,
		       sizeof(err_mask)) < 0 ||
	    setsockopt(b->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) < 0) {
		fprintf(stderr, "raw_reader: %s: setsockopt: %s\n", b->ifname,
			strerror(errno));
		return -1;
	}
	if (bind(b->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "raw_reader: %s: bind: %s\n", b->ifname,
			strerror(errno));
		return -1;
	}
	memset(b->values, 0xf0, sizeof(b->values));	/* noLoad */
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned long parse(const char *opt, const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "raw_reader: %s: bad value '%s' (0..%lu)\n",
			opt, s, max);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: raw_reader [--duration SEC] [--board N] [--class N] "
		"[--triangles MASK] [--batch N] [--tick MS] IFNAME...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct epoll_event ev[MAX_BUSES];
	uint64_t t0, t1, deadline, c0, c1, cpu, b0, b1;
	unsigned long duration = 10, batch = 1, tick_ms = 0;
	struct sigaction sa;
	struct bus sum;
	unsigned int i;
	int a, k, ep;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		perror("raw_reader: epoll_create1");
		return 1;
	}
	for (a = 1; a < argc; a++) {
		const char *o = argv[a];

		if (o[0] != '-')
			break;
		if (a + 1 >= argc)
			usage();
		if (!strcmp(o, "--duration"))
			duration = parse(o, argv[++a], 86400);
		else if (!strcmp(o, "--board"))
			board = parse(o, argv[++a], 15);
		else if (!strcmp(o, "--class"))
			cls = parse(o, argv[++a], 7);
		else if (!strcmp(o, "--triangles"))
			enabled = parse(o, argv[++a], 0xffff);
		else if (!strcmp(o, "--batch"))
			batch = parse(o, argv[++a], MAX_BATCH);
		else if (!strcmp(o, "--tick"))
			tick_ms = parse(o, argv[++a], 86400);
		else
			usage();
	}
	if (a == argc || argc - a > MAX_BUSES || !enabled || !batch)
		usage();
	for (; a < argc; a++) {
		struct bus *b = &buses[nbuses];

		b->ifname = argv[a];
		if (open_bus(b) < 0)
			return 1;
		ev[0].events = EPOLLIN;
		ev[0].data.u32 = nbuses;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, b->fd, &ev[0]) < 0) {
			fprintf(stderr, "raw_reader: %s: epoll_ctl: %s\n",
				b->ifname, strerror(errno));
			return 1;
		}
		nbuses++;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	b0 = bench_busy_us();
	c0 = bench_cpu_us();
	t0 = clock_monotonic_ns();
	deadline = t0 + duration * 1000000000ull;
	while (!stop) {
		uint64_t now = clock_monotonic_ns();
		int n;

		if (now >= deadline)
			break;
		if (tick_ms) {
			clock_sleep_until_mono(now + tick_ms * 1000000ull, NULL);
			for (i = 0; i < nbuses; i++)
				if (drain(&buses[i], batch) < 0)
					return 1;
			continue;
		}
		n = epoll_wait(ep, ev, nbuses,
			       (int)((deadline - now) / 1000000) + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("raw_reader: epoll_wait");
			return 1;
		}
		for (k = 0; k < n; k++) {
			i = ev[k].data.u32;
			if (ev[k].events & EPOLLERR) {
				fprintf(stderr, "raw_reader: %s: socket error\n",
					buses[i].ifname);
				return 1;
			}
			if ((ev[k].events & EPOLLIN) &&
			    drain(&buses[i], batch) < 0)
				return 1;
		}
	}
	t1 = clock_monotonic_ns();
	c1 = bench_cpu_us();
	b1 = bench_busy_us();

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < nbuses; i++) {
		struct bus *b = &buses[i];

		fprintf(stderr, "raw_reader: %s: samples %llu (partial %llu), "
			"frames %llu, rejected %llu, error frames %llu, "
			"dropped %u\n", b->ifname,
			(unsigned long long)b->samples,
			(unsigned long long)b->partial,
			(unsigned long long)b->frames,
			(unsigned long long)b->rejected,
			(unsigned long long)b->err_frames, b->dropped);
		sum.samples += b->samples;
		sum.partial += b->partial;
		sum.frames += b->frames;
		sum.rejected += b->rejected;
		sum.err_frames += b->err_frames;
		sum.dropped += b->dropped;
	}
	cpu = c1 - c0;
	printf("buses=%u batch=%lu samples=%llu partial=%llu frames=%llu "
	       "rejected=%llu err_frames=%llu dropped=%u wall_s=%.3f "
	       "cpu_us=%llu cpu_ns_per_sample=%.0f cpu_ns_per_frame=%.0f "
	       "machine_busy_us=%llu\n",
	       nbuses, batch, (unsigned long long)sum.samples,
	       (unsigned long long)sum.partial, (unsigned long long)sum.frames,
	       (unsigned long long)sum.rejected,
	       (unsigned long long)sum.err_frames, sum.dropped,
	       (t1 - t0) / 1e9, (unsigned long long)cpu,
	       sum.samples ? cpu * 1000.0 / sum.samples : 0.0,
	       sum.frames ? cpu * 1000.0 / sum.frames : 0.0,
	       (unsigned long long)(b1 - b0));
	return 0;
}
