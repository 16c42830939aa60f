// SPDX-License-Identifier: GPL-2.0
/*
 * eth_bench.c - CPU per datagram of skin-eth's receive path, for a
 * full-body robot's traffic
 *
 * What the gateway (bridges/eth, gateway_packet()) runs per packet:
 * skin_udp_decode() (skin/capture.h) takes the Ethernet frame to its UDP
 * datagram, skin_eth_rx_datagram() (skin/ethrx.h) checks it and hands
 * over its CAN frames, and a callback copies each into a struct can_frame,
 * what the gateway then writes to its vcan interface (bench/eth-live-bench
 * measures the whole live process).
 *
 * The traffic is one second of iCubGenova11's skin (docs/ETH.md's import
 * section): 44 MTB patches on five ETH boards, eb10 CAN1 (7 MTBs) and
 * CAN2 (6), eb11 CAN1 (7) and CAN2 (6), eb22 CAN1 (4), eb24 CAN1 (7),
 * eb27 CAN1 (7).  Every MTB samples every 50 ms, two CAN frames per
 * triangle, 16 triangles: 640 frames a second.  The frames of a port's
 * MTBs queue on its bus, 120 us each (a classic 8-byte frame at 1 Mbit/s,
 * as tools/skinsim/offline.c), and each frame goes in its board's first
 * datagram after it, as tools/skinsim/eth.c does.  Each board sends one
 * datagram every ms: a diagnostics ROP once a second, the 12 motion
 * control ROPs of 4 joints (skinsim's sizes; the receiver walks over them
 * without decoding), one skin ROP per patch index.  The datagrams are
 * written as Ethernet/IPv4/UDP packets by lib/eth's pcap writer into
 * memory and read back by its reader: the bytes a packet socket delivers.
 *
 * Cases, interleaved repetitions of that second in one process, on one
 * pinned CPU, CLOCK_MONOTONIC:
 *
 *   rx        decode + receive + copy of each frame into a can_frame
 *   copy      a memcpy of each packet's bytes into a buffer (baseline:
 *             the least reading a packet from a packet socket costs)
 *   foreign   decode + receive of the same packets with no board
 *             configured: what a datagram of one of the robot's other
 *             ETH boards costs when no BPF filter keeps it out
 *
 * NOT measured: the packet socket's kernel cost (AF_PACKET, the BPF
 * filter, the copy to user space, the wake-ups), the write to vcan and
 * the kernel's CAN stack, skin.ko's assembly of the frames (core_bench
 * measures that), and latency.
 *
 *   eth_bench [--reps N] [--cpu N] [--only rx|copy|foreign]
 *
 * --only runs one case (for callgrind: --toggle-collect='case_*' then
 * counts that case's instructions alone).
 * The last line is key=value pairs for scripts.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/can.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/capture.h>
#include <skin/ethrx.h>
#include <skin/ropframe.h>

#include "measure.h"

#define SECOND_MS	1000		/* datagrams per board: one second */
#define SAMPLE_MS	50		/* an MTB's sample period */
#define TRIANGLES	16
#define FRAME_US	120		/* one CAN frame on a 1 Mbit/s bus */
#define JOINTS		4
#define MC_SIZES	{ 40, 12, 24 }	/* tools/skinsim/eth.c's motion ROPs */
#define INFO_SIZE	72
#define DEFAULT_REPS	201
#define OUT_FRAMES	256		/* the callback's can_frame buffer */

/* iCubGenova11's boards with skin: name=address:ports, MTBs per port */
static const struct {
	const char *spec;
	unsigned int mtbs[SKIN_ETH_CAN_PORTS];
} layout[] = {
	{ "eb10=10.0.1.10:1,2", { 7, 6 } },
	{ "eb11=10.0.1.11:1,2", { 7, 6 } },
	{ "eb22=10.0.1.22:1", { 4, 0 } },
	{ "eb24=10.0.1.24:1", { 7, 0 } },
	{ "eb27=10.0.1.27:1", { 7, 0 } },
};
#define N_BOARDS	(sizeof(layout) / sizeof(layout[0]))

/* The second's packets, as a packet socket hands them over */
struct packet {
	size_t off, len;
};

static uint8_t *arena;
static struct packet *packets;
static size_t n_packets, n_frames;

static void die(const char *what)
{
	fprintf(stderr, "eth_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint8_t taxel(unsigned int s, unsigned int mtb, unsigned int c)
{
	return (uint8_t)(0xf0 - (s * 7 + mtb * 3 + c) % 6);
}

/* One board's datagram of ms n (1..1000): frames queued before n ms */
static size_t board_datagram(unsigned int j, unsigned int n, uint8_t *buf,
			     size_t cap, size_t *frames)
{
	static const uint16_t mc[] = MC_SIZES;
	uint8_t data[64] = { 0 }, info[INFO_SIZE] = { 0 };
	struct skin_eth_can f[SKIN_ROP_ARRAY_CAPACITY];
	struct skin_ropframe_writer w;
	unsigned int p, k, i;

	skin_ropframe_begin(&w, buf, cap, (uint64_t)n * 1000, n);
	if (n % SECOND_MS == 1)
		skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG,
				      SKIN_ROP_ID32(SKIN_ROP_EP_MANAGEMENT, 2, 0, 3),
				      info, sizeof(info), 0, 0);
	for (k = 0; k < JOINTS; k++)
		for (i = 0; i < 3; i++)
			skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG,
					      SKIN_ROP_ID32(SKIN_ROP_EP_MOTION,
							    i == 2, k,
							    i == 0 ? 10 : i == 1 ? 15 : 9),
					      data, mc[i], 0, 0);
	for (p = 0; p < SKIN_ETH_CAN_PORTS && layout[j].mtbs[p]; p++) {
		unsigned int per_sample = layout[j].mtbs[p] * 2 * TRIANGLES;
		unsigned int m = 0, q;

		/* frame q of a sample leaves the bus at q x 120 us after
		 * the sample's start; it is carried in the first datagram
		 * after that */
		for (q = 0; q < per_sample; q++) {
			unsigned int t_us = q * FRAME_US + FRAME_US;
			unsigned int mtb = q / (2 * TRIANGLES);
			unsigned int tri = q / 2 % TRIANGLES;
			struct skin_eth_can *c;
			unsigned int s;

			if (n < t_us / 1000 + 1 ||
			    (n - t_us / 1000 - 1) % SAMPLE_MS)
				continue;
			s = (n - t_us / 1000 - 1) / SAMPLE_MS;
			if (m == SKIN_ROP_ARRAY_CAPACITY) {
				fprintf(stderr, "eth_bench: a port's ms holds more than 24 frames\n");
				exit(1);
			}
			c = &f[m++];
			memset(c, 0, sizeof(*c));
			/* class 4, address in bits 7-4 (from 1), triangle
			 * in 3-0; a head, then a tail */
			c->id = (uint16_t)(0x400 | (mtb + 1) << 4 | tri);
			c->len = 8;
			c->patch = (uint8_t)p;
			c->data[0] = q & 1 ? 0xc0 : 0x40;
			for (i = 1; i < 8; i++)
				c->data[i] = taxel(s, mtb, i);
		}
		skin_ropframe_add_skin(&w, 0, (uint8_t)p, f, m, 0, 0);
		*frames += m;
	}
	return skin_ropframe_end(&w);
}

static struct skin_eth_rx *new_rx(bool boards);

/* The second's packets: lib/eth's writer into memory, its reader back */
static void make_packets(void)
{
	struct in_addr head = { .s_addr = htonl(0x0a000168) };	/* 10.0.1.104 */
	struct skin_eth_rx *boards = new_rx(true);
	struct skin_capture_packet cp;
	struct skin_error err;
	struct skin_capture *c;
	char *mem = NULL;
	size_t mem_len = 0, arena_len = 0;
	unsigned int n, j;
	uint8_t buf[1472];
	FILE *f;

	f = open_memstream(&mem, &mem_len);
	if (!f || skin_capture_write_header(f))
		die("writing packets");
	for (n = 1; n <= SECOND_MS; n++)
		for (j = 0; j < N_BOARDS; j++) {
			struct in_addr src = skin_eth_rx_board(boards, j)->addr;
			size_t len = board_datagram(j, n, buf, sizeof(buf),
						    &n_frames);

			if (!len) {
				fprintf(stderr, "eth_bench: datagram over %zu bytes\n",
					sizeof(buf));
				exit(1);
			}
			if (skin_capture_write_udp(f, (uint64_t)n * 1000000,
						   src, SKIN_ETH_UDP_PORT, head,
						   SKIN_ETH_UDP_PORT, buf, len))
				die("writing packets");
		}
	skin_eth_rx_free(boards);
	if (fclose(f))
		die("writing packets");
	f = fmemopen(mem, mem_len, "r");
	if (!f)
		die("reading packets");
	c = skin_capture_open_stream(f, "packets", &err);
	if (!c) {
		fprintf(stderr, "eth_bench: %s\n", err.text);
		exit(1);
	}
	packets = calloc(SECOND_MS * N_BOARDS, sizeof(*packets));
	arena = malloc(mem_len);
	if (!packets || !arena)
		die("packets");
	while (skin_capture_next(c, &cp, &err) > 0) {
		if (n_packets == SECOND_MS * N_BOARDS)
			break;
		memcpy(arena + arena_len, cp.data, cp.caplen);
		packets[n_packets].off = arena_len;
		packets[n_packets].len = cp.caplen;
		arena_len += cp.caplen;
		n_packets++;
	}
	skin_capture_close(c);
	fclose(f);
	free(mem);
	if (n_packets != SECOND_MS * N_BOARDS) {
		fprintf(stderr, "eth_bench: read back %zu packets of %zu\n",
			n_packets, (size_t)SECOND_MS * N_BOARDS);
		exit(1);
	}
}

/* ------------------------------------------------------------------ */
/* The cases                                                           */

struct out {
	struct can_frame f[OUT_FRAMES];
	size_t n;
};

/* What the gateway does with a frame before writing it to vcan */
static void to_can_frame(void *ctx, const struct skin_eth_board *b,
			 unsigned int patch, const struct skin_eth_can *f)
{
	struct out *o = ctx;
	struct can_frame *cf = &o->f[o->n++ % OUT_FRAMES];

	(void)b;
	(void)patch;
	memset(cf, 0, sizeof(*cf));
	cf->can_id = f->id;
	cf->len = f->len;
	memcpy(cf->data, f->data, sizeof(cf->data));
}

static struct skin_eth_rx *new_rx(bool boards)
{
	struct skin_eth_rx *rx = skin_eth_rx_new();
	struct skin_error err;
	unsigned int j;

	if (!rx)
		die("receiver");
	for (j = 0; boards && j < N_BOARDS; j++)
		if (skin_eth_rx_add_board(rx, layout[j].spec, &err)) {
			fprintf(stderr, "eth_bench: %s\n", err.text);
			exit(1);
		}
	return rx;
}

/* The second's packets through the receive path: frames published */
static __attribute__((noinline)) size_t
case_rx(struct skin_eth_rx *rx, struct out *o, enum skin_eth_verdict want)
{
	size_t i, bad = 0;

	o->n = 0;
	for (i = 0; i < n_packets; i++) {
		struct skin_udp u;

		if (skin_udp_decode(SKIN_LINKTYPE_ETHERNET,
				    arena + packets[i].off, packets[i].len,
				    &u) != SKIN_CAP_UDP ||
		    skin_eth_rx_datagram(rx, u.src, u.payload, u.len,
					 to_can_frame, o) != want)
			bad++;
	}
	return bad ? SIZE_MAX : o->n;
}

static uint8_t copy_buf[2048];

static __attribute__((noinline)) unsigned int case_copy(void)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < n_packets; i++) {
		memcpy(copy_buf, arena + packets[i].off, packets[i].len);
		__asm__ volatile("" : : "r"(copy_buf) : "memory");
		sum += copy_buf[packets[i].len - 1];
	}
	return sum;
}

enum bench_case { C_RX, C_COPY, C_FOREIGN, C_NR };

static const char *const case_name[C_NR] = {
	[C_RX] = "rx", [C_COPY] = "copy", [C_FOREIGN] = "foreign",
};

static const char *const case_what[C_NR] = {
	[C_RX] = "decode + receive + can_frame copy",
	[C_COPY] = "memcpy of the packet (baseline)",
	[C_FOREIGN] = "decode + receive, no board (foreign)",
};

/* One repetition: ns for the second's packets */
static double run_rep(enum bench_case c)
{
	struct skin_eth_rx *rx = c == C_COPY ? NULL : new_rx(c == C_RX);
	static struct out o;
	uint64_t t0, t1;
	size_t got = 0;

	t0 = clock_monotonic_ns();
	if (c == C_COPY)
		got = case_copy();
	else
		got = case_rx(rx, &o, c == C_RX ? SKIN_ETH_OK :
				       SKIN_ETH_FOREIGN);
	t1 = clock_monotonic_ns();
	if (c != C_COPY) {
		skin_eth_rx_free(rx);
		if (got != (c == C_RX ? n_frames : 0)) {
			fprintf(stderr, "eth_bench: %s: %zu frames published, not %zu\n",
				case_what[c], got, c == C_RX ? n_frames : 0);
			exit(1);
		}
	}
	return (double)(t1 - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void usage(void)
{
	fprintf(stderr, "usage: eth_bench [--reps N] [--cpu N] [--only rx|copy|foreign]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int reps = DEFAULT_REPS, cpu = -1, only = -1, i, c;
	double *ns[C_NR], med[C_NR], min[C_NR];
	uint64_t cpu_us[C_NR] = { 0 }, bytes = 0;
	double core_fraction, dgrams_s;
	cpu_set_t set;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			for (only = C_NR - 1; only >= 0; only--)
				if (!strcmp(argv[i + 1], case_name[only]))
					break;
			if (only < 0)
				usage();
			i++;
		} else
			usage();
	}
	if (reps < 1)
		usage();
	if (cpu < 0)
		cpu = sched_getcpu();
	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	if (cpu < 0 || sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "eth_bench: not pinned to cpu %d: %s\n", cpu,
			strerror(errno));
		cpu = -1;
	}

	make_packets();
	for (i = 0; i < (int)n_packets; i++)
		bytes += packets[i].len;
	if (only >= 0) {
		for (i = 0; i < reps; i++)
			run_rep((enum bench_case)only);
		printf("%s: %d repetitions of %zu datagrams\n", case_name[only],
		       reps, n_packets);
		free(packets);
		free(arena);
		return 0;
	}
	for (c = 0; c < C_NR; c++) {
		ns[c] = calloc((size_t)reps, sizeof(double));
		if (!ns[c])
			die("memory");
		run_rep((enum bench_case)c);	/* warm up */
	}
	for (i = 0; i < reps; i++)
		for (c = 0; c < C_NR; c++) {
			uint64_t u0 = bench_cpu_us();

			ns[c][i] = run_rep((enum bench_case)c);
			cpu_us[c] += bench_cpu_us() - u0;
		}
	for (c = 0; c < C_NR; c++) {
		med[c] = median(ns[c], reps);
		min[c] = ns[c][0];
	}
	dgrams_s = (double)n_packets;	/* the packets are one second's */
	core_fraction = med[C_RX] / 1e9;

	printf("eth_bench: one second of iCubGenova11's skin: %u boards, 44 MTBs, %zu datagrams (%.0f B mean packet), %zu CAN frames\n",
	       (unsigned int)N_BOARDS, n_packets, (double)bytes / n_packets,
	       n_frames);
	printf("eth_bench: %d repetitions per case, interleaved, cpu %d%s\n",
	       reps, cpu, cpu < 0 ? " (not pinned)" : " (pinned)");
	printf("\n%-38s %12s %12s %12s %10s\n", "case", "min ns/dgram",
	       "med ns/dgram", "med ns/frame", "x copy");
	for (c = 0; c < C_NR; c++) {
		char per_frame[32] = "-";

		if (c == C_RX)
			snprintf(per_frame, sizeof(per_frame), "%.1f",
				 med[c] / n_frames);
		printf("%-38s %12.1f %12.1f %12s %10.2f\n", case_what[c],
		       min[c] / n_packets, med[c] / n_packets, per_frame,
		       med[c] / med[C_COPY]);
	}
	printf("\nCPU (getrusage) over the timed repetitions: rx %.1f ms, copy %.1f ms, foreign %.1f ms\n",
	       cpu_us[C_RX] / 1e3, cpu_us[C_COPY] / 1e3, cpu_us[C_FOREIGN] / 1e3);
	printf("At the robot's rate (%.0f datagrams/s, %zu frames/s) the receive path takes %.3f%% of one core.\n",
	       dgrams_s, n_frames, 100 * core_fraction);
	printf("Not measured: the packet socket's kernel cost (AF_PACKET, BPF, the copy out, wake-ups), the write to vcan and the kernel CAN stack, skin.ko's assembly (core_bench), latency.\n");
	printf("rx_ns_per_dgram=%.1f rx_ns_per_frame=%.2f copy_ns_per_dgram=%.1f foreign_ns_per_dgram=%.1f rx_x_copy=%.2f core_percent=%.4f dgrams_per_s=%.0f frames_per_s=%zu\n",
	       med[C_RX] / n_packets, med[C_RX] / n_frames,
	       med[C_COPY] / n_packets, med[C_FOREIGN] / n_packets,
	       med[C_RX] / med[C_COPY], 100 * core_fraction, dgrams_s,
	       n_frames);
	for (c = 0; c < C_NR; c++)
		free(ns[c]);
	free(packets);
	free(arena);
	return 0;
}
