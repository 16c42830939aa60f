// SPDX-License-Identifier: GPL-2.0
/*
 * eth_latency - what the ETH gateway adds: a board sample's path from its
 * datagram to the driver, against the same frames written straight to the
 * patch's vcan, in one run (docs/PERFORMANCE.md, "The ETH gateway")
 *
 *	eth_latency --ifname eb24can1 --board 14 --device /dev/skin/NAME
 *	            --netns /run/netns/robot --from 10.0.1.24 --head 10.0.1.104
 *	            [--port 12345] [--patch 0] [--samples N] [--period-ms P]
 *
 * The patch has one triangle (triangles = 0x0001): a sample is a head and
 * a tail frame.  Samples alternate between two paths, every period:
 *
 *  - vcan: the head, then the tail, written to IFNAME (CAN_RAW), as a
 *          gateway-less bus delivers them;
 *  - eth:  one ropframe carrying both, sent from FROM:PORT inside the
 *          robot's network namespace to HEAD:PORT, through the veth, the
 *          gateway's packet socket and its write onto IFNAME.
 *
 * Latency = the ring frame's timestamp_ns (the driver's receive time of
 * the tail, CLOCK_MONOTONIC) - the time just before the tail's write or
 * the datagram's send; and, to the reader, the time poll() returns -
 * the same start.  Samples go out every period whatever has arrived (a
 * path slower than the period does not hold the other back); each
 * sample's first two values carry its number, so an arrival is matched
 * to its sample whatever came before it, and its other values are
 * checked.  A sample not in the ring a second after the last one was
 * sent, or with other values, is counted lost.  Prints "BENCH ..."
 * lines; asserts nothing.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#include <skin/ring.h>
#include <skin/ropframe.h>

#include "measure.h"

enum { PATH_VCAN, PATH_ETH, PATH_NR };
static const char *const path_name[PATH_NR] = { "vcan", "eth" };

struct series {
	uint64_t *to_driver, *to_reader;	/* ns */
	int n, lost;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(uint64_t *v, int n, double p)
{
	if (!n)
		return 0;
	return v[(int)(p * (n - 1) + 0.5)] / 1e3;
}

static void report(const char *what, uint64_t *v, int n, const char *path)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	printf("BENCH eth_latency path=%s to=%s n=%d median_us=%.1f p10_us=%.1f p90_us=%.1f p99_us=%.1f\n",
	       path, what, n, pct(v, n, 0.5), pct(v, n, 0.1), pct(v, n, 0.9),
	       pct(v, n, 0.99));
}

static int can_open(const char *ifname)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	int s = socket(PF_CAN, SOCK_RAW, CAN_RAW);

	if (s < 0)
		return -1;
	/* send only: the driver reads the bus itself */
	setsockopt(s, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0);
	addr.can_ifindex = (int)if_nametoindex(ifname);
	if (!addr.can_ifindex || bind(s, (struct sockaddr *)&addr, sizeof(addr))) {
		close(s);
		return -1;
	}
	return s;
}

/* a UDP socket of the robot's namespace, bound to the board's address */
static int board_socket(const char *netns, struct in_addr from, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
				   .sin_addr = from };
	int ns = open(netns, O_RDONLY | O_CLOEXEC);
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int s = -1, one = 1;

	if (ns < 0 || self < 0 || setns(ns, CLONE_NEWNET))
		goto out;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* skinsim may hold the board's port: share it for the run */
	if (s >= 0 && (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		       bind(s, (struct sockaddr *)&sin, sizeof(sin)))) {
		close(s);
		s = -1;
	}
	if (setns(self, CLONE_NEWNET)) {
		perror("eth_latency: back to the head PC's namespace");
		exit(1);
	}
out:
	if (ns >= 0)
		close(ns);
	if (self >= 0)
		close(self);
	return s;
}

/* sample k's two frames: triangle 0 of BOARD; channels 0 and 1 carry k
 * (7 bits each: up to 16,384 samples), the others follow from it */
static void sample_frames(struct can_frame f[2], int board, int k)
{
	int i, c;

	for (i = 0; i < 2; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].can_id = (canid_t)(4 << 8 | board << 4);
		f[i].len = 8;
		f[i].data[0] = i ? 0xc0 : 0x40;
		for (c = 1; c < 8; c++)
			f[i].data[c] = (uint8_t)(100 + (k * 7 + c + i * 7) % 120);
	}
	f[0].data[1] = (uint8_t)(k & 0x7f);
	f[0].data[2] = (uint8_t)(k >> 7 & 0x7f);
	f[1].data[6] = 0;	/* the tail's diagnostics word: OK */
	f[1].data[7] = 0;
}

/* the sample number a published frame carries, or -1 if its values are
 * none of ours */
static int sample_of(const struct skin_frame *got, int board, int n)
{
	struct can_frame f[2];
	int k = got->values[0] | got->values[1] << 7;

	if (got->values[0] > 0x7f || got->values[1] > 0x7f || k >= n)
		return -1;
	sample_frames(f, board, k);
	if (memcmp(got->values, f[0].data + 1, 7) || memcmp(got->values + 7, f[1].data + 1, 5))
		return -1;
	return k;
}

/* every sample the ring holds now: its latencies, by its number */
static void take_arrivals(struct skin_ring_map *map, int board, int n,
			  const uint64_t *t0, uint64_t *to_driver, uint64_t *to_reader,
			  bool *seen)
{
	uint64_t now = clock_monotonic_ns();
	struct skin_frame got;
	int k;

	while (skin_ring_map_next(map, &got) > 0) {
		k = sample_of(&got, board, n);
		if (k < 0 || seen[k] || !t0[k] || got.timestamp_ns < t0[k])
			continue;
		seen[k] = true;
		to_driver[k] = got.timestamp_ns - t0[k];
		to_reader[k] = now - t0[k];
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "board", required_argument, NULL, 'b' },
		{ "device", required_argument, NULL, 'd' },
		{ "netns", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "head", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'p' },
		{ "patch", required_argument, NULL, 'P' },
		{ "samples", required_argument, NULL, 's' },
		{ "period-ms", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *ifname = NULL, *device = NULL, *netns = NULL;
	struct in_addr from = { 0 }, head = { 0 };
	int board = -1, patch = 0, samples = 1000, period_ms = 10, port = 12345;
	struct series ser[PATH_NR] = { 0 };
	struct skin_ring_map map;
	struct sockaddr_in to;
	uint64_t next, seq = 1, *t0, *to_driver, *to_reader;
	int can, udp, c, k, p, n;
	bool *seen;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 'b': board = atoi(optarg); break;
		case 'd': device = optarg; break;
		case 'n': netns = optarg; break;
		case 'f': inet_aton(optarg, &from); break;
		case 'H': inet_aton(optarg, &head); break;
		case 'p': port = atoi(optarg); break;
		case 'P': patch = atoi(optarg); break;
		case 's': samples = atoi(optarg); break;
		case 't': period_ms = atoi(optarg); break;
		default: return 2;
		}
	}
	if (!ifname || !device || !netns || board < 0 || board > 15 || !from.s_addr ||
	    !head.s_addr || samples < 2 || samples > 8192 || period_ms < 1 || port < 1 ||
	    port > 65535) {
		fprintf(stderr, "usage: see the head of bench/eth_latency.c\n");
		return 2;
	}
	can = can_open(ifname);
	udp = board_socket(netns, from, (uint16_t)port);
	if (can < 0 || udp < 0) {
		fprintf(stderr, "eth_latency: %s: %s\n", can < 0 ? ifname : netns, strerror(errno));
		return 1;
	}
	if (skin_ring_map_open(&map, device)) {
		fprintf(stderr, "eth_latency: %s: %s\n", device, strerror(errno));
		return 1;
	}
	n = 2 * samples;
	t0 = calloc((size_t)n, sizeof(*t0));
	to_driver = calloc((size_t)n, sizeof(*to_driver));
	to_reader = calloc((size_t)n, sizeof(*to_reader));
	seen = calloc((size_t)n, sizeof(*seen));
	for (p = 0; p < PATH_NR; p++) {
		ser[p].to_driver = calloc((size_t)samples, sizeof(uint64_t));
		ser[p].to_reader = calloc((size_t)samples, sizeof(uint64_t));
		if (!ser[p].to_driver || !ser[p].to_reader)
			return 1;
	}
	if (!t0 || !to_driver || !to_reader || !seen)
		return 1;
	to = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				   .sin_addr = head };
	/* whatever the ring holds already is not this run's */
	map.next = skin_ring_map_head(&map);

	next = clock_monotonic_ns();
	for (k = 0; k <= n; k++) {
		struct skin_eth_can items[2];
		struct skin_ropframe_writer w;
		struct can_frame f[2];
		uint8_t buf[512];
		size_t len;
		int i;

		/* until the next send (a second after the last), the arrivals */
		next += k < n ? (uint64_t)period_ms * 1000000ull : 1000000000ull;
		for (;;) {
			struct pollfd pf = { .fd = map.fd, .events = POLLIN };
			uint64_t now = clock_monotonic_ns();

			take_arrivals(&map, board, n, t0, to_driver, to_reader, seen);
			if (now >= next)
				break;
			poll(&pf, 1, (int)((next - now) / 1000000) + 1);
		}
		if (k == n)
			break;
		sample_frames(f, board, k);
		if (k % 2 == PATH_VCAN) {
			if (write(can, &f[0], sizeof(f[0])) != sizeof(f[0]))
				perror("eth_latency: vcan head");
			t0[k] = clock_monotonic_ns();
			if (write(can, &f[1], sizeof(f[1])) != sizeof(f[1]))
				perror("eth_latency: vcan tail");
		} else {
			for (i = 0; i < 2; i++) {
				items[i].id = (uint16_t)f[i].can_id;
				items[i].len = f[i].len;
				memcpy(items[i].data, f[i].data, 8);
			}
			skin_ropframe_begin(&w, buf, sizeof(buf), 0, seq++);
			skin_ropframe_add_skin(&w, 0, (uint8_t)patch, items, 2, 0, 0);
			len = skin_ropframe_end(&w);
			t0[k] = clock_monotonic_ns();
			if (sendto(udp, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
				perror("eth_latency: sendto");
		}
	}
	for (k = 0; k < n; k++) {
		struct series *s = &ser[k % 2];

		if (!seen[k]) {
			s->lost++;
			continue;
		}
		s->to_driver[s->n] = to_driver[k];
		s->to_reader[s->n] = to_reader[k];
		s->n++;
	}
	printf("BENCH eth_latency setup ifname=%s board=%d samples=%d period_ms=%d\n",
	       ifname, board, samples, period_ms);
	for (p = 0; p < PATH_NR; p++) {
		if (ser[p].lost)
			printf("BENCH eth_latency path=%s lost=%d\n", path_name[p], ser[p].lost);
		report("driver", ser[p].to_driver, ser[p].n, path_name[p]);
		report("reader", ser[p].to_reader, ser[p].n, path_name[p]);
	}
	printf("BENCH eth_latency added_median_us=%.1f (driver) %.1f (reader)\n",
	       pct(ser[PATH_ETH].to_driver, ser[PATH_ETH].n, 0.5) -
	       pct(ser[PATH_VCAN].to_driver, ser[PATH_VCAN].n, 0.5),
	       pct(ser[PATH_ETH].to_reader, ser[PATH_ETH].n, 0.5) -
	       pct(ser[PATH_VCAN].to_reader, ser[PATH_VCAN].n, 0.5));
	skin_ring_map_close(&map);
	return 0;
}
