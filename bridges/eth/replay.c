// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - skin-eth --replay: a capture file through the receiver into
 * a candump log, natively, with no kernel
 *
 * Each packet goes the way the live gateway's will: link layer, IPv4 and
 * UDP (skin/capture.h), the port, then the receiver (skin/ethrx.h), which
 * counts and checks it and hands over the frames of a sound datagram from
 * a configured board, each written as one candump -L line on its board
 * CAN port's interface with the packet's capture time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <skin/canlog.h>

#include "gateway.h"

struct replay_ctx {
	struct gateway *g;
	uint64_t ts_ns;
	bool write_failed;
};

static void write_frame(void *ctx, const struct skin_eth_board *b,
			unsigned int patch, const struct skin_eth_can *f)
{
	struct replay_ctx *r = ctx;
	struct skin_canlog_record rec;
	struct can_frame cf = { .can_id = f->id, .len = f->len };

	if (!r->g->log || r->write_failed)
		return;
	memcpy(cf.data, f->data, f->len);
	/* the receiver passes only patches the board has */
	skin_canlog_record_classic(&rec, r->ts_ns, b->ifname[patch], &cf);
	if (skin_canlog_write(r->g->log, &rec))
		r->write_failed = true;
}

static bool is_board(const struct skin_eth_rx *rx, struct in_addr a)
{
	unsigned int i;

	for (i = 0; i < skin_eth_rx_n_boards(rx); i++)
		if (skin_eth_rx_board(rx, i)->addr.s_addr == a.s_addr)
			return true;
	return false;
}

int gateway_replay(struct gateway *g, const char *path)
{
	struct replay_ctx r = { .g = g };
	struct skin_capture_packet p;
	struct skin_capture *c;
	struct skin_error err;
	int n;

	c = skin_capture_open(path, &err);
	if (!c) {
		fprintf(stderr, "skin-eth: %s\n", err.text);
		return -1;
	}
	while ((n = skin_capture_next(c, &p, &err)) > 0) {
		struct skin_udp u;
		enum skin_capture_verdict v;

		g->packets++;
		v = skin_udp_decode(p.linktype, p.data, p.caplen, &u);
		g->capture[v]++;
		if (v != SKIN_CAP_UDP)
			continue;
		if (u.sport != g->udp_port && u.dport != g->udp_port) {
			g->other_port++;
			continue;
		}
		/* the head PC's commands to a board (yarprobotinterface's) */
		if (is_board(g->rx, u.dst) && !is_board(g->rx, u.src)) {
			g->to_boards++;
			continue;
		}
		r.ts_ns = p.ts_ns;
		skin_eth_rx_datagram(g->rx, u.src, u.payload, u.len,
				     write_frame, &r);
		if (r.write_failed)
			break;
	}
	if (n < 0)
		fprintf(stderr, "skin-eth: %s\n", err.text);
	skin_capture_close(c);
	if (r.write_failed || (g->log && fflush(g->log))) {
		fprintf(stderr, "skin-eth: writing the log: %s\n",
			strerror(errno));
		return -1;
	}
	return n < 0 ? -1 : 0;
}

void gateway_print_counters(const struct gateway *g, FILE *f)
{
	unsigned int v;

	fprintf(f, "capture: packets %llu udp %llu other_port %llu to_boards %llu",
		g->packets, g->capture[SKIN_CAP_UDP], g->other_port,
		g->to_boards);
	for (v = SKIN_CAP_UDP + 1; v < SKIN_CAP_VERDICT_NR; v++)
		if (g->capture[v])
			fprintf(f, " %s %llu", skin_capture_verdict_name(v),
				g->capture[v]);
	fputc('\n', f);
	skin_eth_rx_print(g->rx, f);
}
