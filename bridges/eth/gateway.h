/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gateway.h - skin-eth's modes and what they share
 *
 * main.c reads the options and the boards (boards.c) into a receiver
 * (skin/ethrx.h).  Each mode hands every packet to gateway_packet(), the
 * one sequence both share: link layer, IPv4 and UDP (skin/capture.h),
 * the port, the head PC's own sends, then the receiver, which checks and
 * counts the datagram and hands over its frames, each onto the output
 * (output.c): a candump -L line, a CAN frame on the board CAN port's
 * interface, or both.  The replay (replay.c) reads a capture file; the
 * live mode (live.c) a packet socket; --setup (setup.c) creates the vcan
 * interfaces.
 */
#ifndef SKIN_ETH_GATEWAY_H
#define SKIN_ETH_GATEWAY_H

#include <stdio.h>

#include <linux/can.h>

#include <skin/capture.h>
#include <skin/ethrx.h>

/**
 * struct gw_port - one board CAN port's output: its CAN_RAW socket
 * @ifname: the interface (eb24can1)
 * @board: its board's name
 * @fd: the socket bound to it, or -1 (no interface, --no-can)
 * @ifindex: the interface index it is bound to
 * @frames: frames written to the interface
 * @dropped: frames not written (interface down or gone, queue full)
 * @rebinds: times the socket was bound again (interface re-created)
 * @next_try_ns: CLOCK_MONOTONIC time of the next rebind attempt
 */
struct gw_port {
	char ifname[IFNAMSIZ];
	const char *board;
	int fd;
	int ifindex;
	unsigned long long frames;
	unsigned long long dropped;
	unsigned long long rebinds;
	uint64_t next_try_ns;
};

struct gateway {
	struct skin_eth_rx *rx;
	uint16_t udp_port;		/* the boards' and head PC's port */
	FILE *log;			/* candump -L lines, or NULL */
	bool log_failed;		/* a write to it failed: no more */
	bool can;			/* frames onto the CAN interfaces */
	/* the board CAN ports: board i's patch p is ports[first[i] + p] */
	struct gw_port *ports;
	unsigned int n_ports;
	unsigned int *first;
	/* what the packets were before they reached the receiver */
	unsigned long long packets;
	unsigned long long capture[SKIN_CAP_VERDICT_NR];
	unsigned long long other_port;	/* UDP on other ports: skipped */
	unsigned long long to_boards;	/* the head PC's own sends: skipped */
	unsigned long long socket_drops; /* live: the kernel's, queue full */
	/* live: datagrams of sources that are no board, counted in the
	 * kernel and never read (live.c, FILTER_OTHERS) */
	unsigned long long foreign_filtered;
	unsigned long long outgoing;	/* live: this host's own packets */
	unsigned long long recv_errors;	/* live: the packet socket's */
};

/* Read a boards file (NAME=IPV4:PORT[,PORT] lines, '#' comments) into
 * the receiver: 0, or -1 with *err naming FILE:LINE. */
int gateway_read_boards(struct skin_eth_rx *rx, const char *path,
			struct skin_error *err);

/* The output's ports, one per board CAN port, sockets closed: 0 or -1
 * (out of memory). */
int gateway_output_init(struct gateway *g);
/* Open and bind every port's CAN socket: 0, or -1 when an interface is
 * missing (said on stderr, naming it and its board) unless @wait, when
 * it is bound once it appears. */
int gateway_output_open(struct gateway *g, bool wait);
void gateway_output_close(struct gateway *g);
/* Retry the ports whose interface is missing (rate-limited inside). */
void gateway_output_retry(struct gateway *g);
/* One frame onto board CAN port @port: counted, never blocking. */
void gateway_output_frame(struct gateway *g, unsigned int port,
			  const struct can_frame *cf);

/* One packet of link type @linktype, through the whole sequence; its
 * frames go to the output with @ts_ns (CLOCK_REALTIME) in the log. */
void gateway_packet(struct gateway *g, uint32_t linktype,
		    const uint8_t *pkt, size_t caplen, uint64_t ts_ns);

/* Replay a capture file: 0, or -1 when it cannot be read (said on
 * stderr); frames as candump -L lines to g->log. */
int gateway_replay(struct gateway *g, const char *path);

/* The live mode's options */
struct live_opts {
	const char *interface;		/* NULL: every interface */
	const char *counters;		/* the counters file, or NULL */
	unsigned int status_period_s;	/* sd_notify STATUS= */
	unsigned int ring_ms;		/* a TPACKET_V3 ring's timeout, or 0:
					   recvmmsg() per wake-up */
};
/* Run the live mode until SIGTERM/SIGINT: the exit status. */
int gateway_live(struct gateway *g, const struct live_opts *o);

/* Create the missing vcan interfaces of the boards and set every one up:
 * the exit status. */
int gateway_setup(struct gateway *g);

/* The counters, to f: the packets', then every board's, then every
 * interface's (when CAN is on). */
void gateway_print_counters(const struct gateway *g, FILE *f);
/* The counters file's text (docs/ETH.md "The counters file") */
void gateway_write_counters(const struct gateway *g, FILE *f);

#endif
