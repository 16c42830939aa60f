/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gateway.h - skin-eth's modes and what they share
 *
 * main.c reads the options and the boards into a receiver
 * (skin/ethrx.h); each mode takes the boards' datagrams through it: the
 * replay (replay.c) from a capture file, the live mode (to come) from a
 * packet socket, onto the same output of CAN frames.
 */
#ifndef SKIN_ETH_GATEWAY_H
#define SKIN_ETH_GATEWAY_H

#include <stdio.h>

#include <skin/capture.h>
#include <skin/ethrx.h>

struct gateway {
	struct skin_eth_rx *rx;
	uint16_t udp_port;		/* the boards' and head PC's port */
	FILE *log;			/* candump -L lines, or NULL */
	/* what the packets were before they reached the receiver */
	unsigned long long packets;
	unsigned long long capture[SKIN_CAP_VERDICT_NR];
	unsigned long long other_port;	/* UDP on other ports: skipped */
	unsigned long long to_boards;	/* the head PC's own sends: skipped */
};

/* Replay a capture file: 0, or -1 when it cannot be read (said on
 * stderr); frames as candump -L lines to g->log. */
int gateway_replay(struct gateway *g, const char *path);
/* The counters, to f: the capture's, then every board's. */
void gateway_print_counters(const struct gateway *g, FILE *f);

#endif
