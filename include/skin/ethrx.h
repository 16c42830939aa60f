/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/ethrx.h - the ETH boards a gateway listens to, and what each sent
 *
 * A receiver knows the configured boards (address, name, which CAN port
 * each patch index is) and takes every UDP datagram with its source
 * address, from a capture file or from the wire alike: a datagram from an
 * address that is no board is counted as foreign; a board's datagram is
 * checked whole (skin/ropframe.h), its sequence number followed (gaps
 * counted as lost, going backwards as a reset of the board, the same
 * number again as a duplicate, not published), and only a sound one hands
 * its CAN frames over, each with the interface name of its board's CAN
 * port, in the datagram's order.
 *
 * Interface names: the board's name and "can" and the port, e.g.
 * "eb24can1" for CAN port 1 of the board named eb24; a board's name is
 * by default "eb" and the last number of its IPv4 address, the way
 * robots-configuration names the boards at 10.0.1.N (docs/ETH.md).
 *
 *	struct skin_eth_rx *rx = skin_eth_rx_new();
 *	skin_eth_rx_add_board(rx, "10.0.1.24", &err);	(CAN1, CAN2)
 *	skin_eth_rx_add_board(rx, "10.0.1.10:2", &err);	(one patch, on CAN2)
 *	...
 *	skin_eth_rx_datagram(rx, src, payload, len, fn, ctx);
 *	...
 *	skin_eth_rx_free(rx);
 *
 * Not thread-safe per receiver.
 */
#ifndef SKIN_ETHRX_H
#define SKIN_ETHRX_H

#include <stdint.h>
#include <stdio.h>

#include <net/if.h>
#include <netinet/in.h>

#include <skin/model.h>		/* struct skin_error */
#include <skin/ropframe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The UDP port of the boards and of the head PC */
#define SKIN_ETH_UDP_PORT	12345
/* CAN ports of an ETH board (ems4, mc4plus, mc2plus) */
#define SKIN_ETH_CAN_PORTS	2
/* A board's name: its interfaces' names are the name, "can" and a digit */
#define SKIN_ETH_NAME_MAX	(IFNAMSIZ - 1 - 4)

/**
 * struct skin_eth_counters - what one source sent
 * @datagrams: datagrams received, whatever their verdict
 * @verdict: datagrams per verdict; verdict[SKIN_ETH_OK] were published
 * @frames: CAN frames published
 * @rops_skin: skin CAN data ROPs published
 * @rops_other: other ROPs of the known endpoints in published datagrams
 * @rops_unknown: ROPs of unknown endpoints in published datagrams
 * @lost: sequence numbers skipped (datagrams never received)
 * @seq_resets: times the sequence number went backwards (board restart)
 */
struct skin_eth_counters {
	uint64_t datagrams;
	uint64_t verdict[SKIN_ETH_VERDICT_NR];
	uint64_t frames;
	uint64_t rops_skin;
	uint64_t rops_other;
	uint64_t rops_unknown;
	uint64_t lost;
	uint64_t seq_resets;
};

/**
 * struct skin_eth_board - one configured board
 * @name: the board's name (eb24)
 * @addr: its IPv4 address
 * @n_patches: the patch indexes it sends (1 or 2)
 * @port: the CAN port (1, 2) of each patch index
 * @ifname: the interface name of each patch index (eb24can1)
 * @counters: what it sent
 * @have_seq: a sequence number was seen
 * @last_seq: the last one, of a datagram whose framing was sound
 */
struct skin_eth_board {
	char name[SKIN_ETH_NAME_MAX + 1];
	struct in_addr addr;
	unsigned int n_patches;
	unsigned int port[SKIN_ETH_CAN_PORTS];
	char ifname[SKIN_ETH_CAN_PORTS][IFNAMSIZ];
	struct skin_eth_counters counters;
	bool have_seq;
	uint64_t last_seq;
};

struct skin_eth_rx;

struct skin_eth_rx *skin_eth_rx_new(void);
void skin_eth_rx_free(struct skin_eth_rx *rx);

/*
 * Add a board: "[NAME=]ADDR[:PORT[,PORT]]".  The ports are the CAN ports
 * of patch index 0 and 1, in that order (yarprobotinterface's embObjSkin
 * numbers a board's patches from 0 in the order of its CAN ports, so a
 * board with skinCanAddrsPatch2 alone sends index 0 for CAN2: "ADDR:2");
 * without them, index 0 is CAN1 and index 1 CAN2.  0, or -1 with *err
 * (a bad spec, a second board at the same address or of the same name).
 */
int skin_eth_rx_add_board(struct skin_eth_rx *rx, const char *spec,
			  struct skin_error *err);
unsigned int skin_eth_rx_n_boards(const struct skin_eth_rx *rx);
const struct skin_eth_board *skin_eth_rx_board(const struct skin_eth_rx *rx,
					       unsigned int i);
/* What sources that are no board sent: datagrams, verdict[FOREIGN] */
const struct skin_eth_counters *
skin_eth_rx_foreign(const struct skin_eth_rx *rx);

/* Called once per published CAN frame, in order. */
typedef void (*skin_eth_rx_fn)(void *ctx, const struct skin_eth_board *b,
			       unsigned int patch,
			       const struct skin_eth_can *f);

/* One UDP payload from src: its verdict, counted; fn called for each of
 * its frames when it is SKIN_ETH_OK. */
enum skin_eth_verdict skin_eth_rx_datagram(struct skin_eth_rx *rx,
					   struct in_addr src,
					   const void *buf, size_t len,
					   skin_eth_rx_fn fn, void *ctx);

/* One line of counters, "datagrams N published N frames N lost N ..."
 * with the non-zero rejections by name; snprintf's return. */
int skin_eth_counters_format(char *buf, size_t len,
			     const struct skin_eth_counters *c);
/* Every board's line and the foreign sources', to f. */
void skin_eth_rx_print(const struct skin_eth_rx *rx, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* SKIN_ETHRX_H */
