/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skinsim.h - what the files of skinsim share: a run (run.c) and its
 * modes (can.c, offline.c, replay.c), which skinsim.c chooses from
 */
#ifndef SKINSIM_H
#define SKINSIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <skin/canlog.h>
#include <skin/sim.h>

#include "skin_clock.h"

#define MAX_BUS_MAPS	16
#define MAX_ETH_BOARDS	64
/* The head PC, where the ETH boards send (robots-configuration's pc104) */
#define SKINSIM_HEAD	"10.0.1.104:12345"

struct options {
	const char *scenario;
	const char *config;
	const char *ring_dir;
	const char *log;
	const char *truth;
	const char *replay;
	const char *pcap;	/* ETH boards: their datagrams, a pcap file */
	bool eth;		/* ETH boards: their datagrams over UDP */
	const char *head;	/* ETH boards: where they send */
	unsigned int n_boards;
	const char *boards[MAX_ETH_BOARDS];	/* --board specs */
	bool fast;
	bool can;		/* CAN mode even with --log */
	bool list;
	bool have_seed;
	uint64_t seed;
	bool have_duration;
	uint64_t duration_ns;
	unsigned int ring_log2;
	uint8_t cls;
	bool all_triangles;	/* offline boards: every triangle, not the present ones */
	int verbose;
	bool have_epoch;
	uint64_t epoch_ns;	/* log timestamps start here */
	unsigned int n_maps;
	char map_from[MAX_BUS_MAPS][IFNAMSIZ];
	char map_to[MAX_BUS_MAPS][IFNAMSIZ];
};

/* Everything a run needs. */
struct run {
	struct options *o;
	struct skin_sim *sim;		/* NULL for a replay without a config */
	struct skin_config *config;
	uint64_t duration_ns;
	FILE *truth;
	FILE *log;
	FILE *pcap;
	struct eth *eth;		/* the ETH boards, --pcap or --eth */
	struct skin_sim_ring **rings;	/* per patch, --ring */
	uint64_t last_contacts_t;	/* truth: contacts written up to */
	bool contacts_written;
};

/* run.c: set by skinsim.c's signal handler; every mode ends its run when
 * it is set (clock_sleep_until_mono() returns early) */
extern volatile sig_atomic_t skinsim_stop;

/* run.c */
const char *bus_map(const struct options *o, const char *bus);
int write_truth_sample(struct run *r, const struct skin_sim_board *b,
		       const struct skin_sim_sample *smp);
int log_frame(struct run *r, const char *bus, const struct can_frame *cf,
	      uint64_t ts_real);
void board_for_offline(const struct run *r, unsigned int i,
		       struct skin_sim_board *b);
int open_rings(struct run *r);

/* eth.c: the ETH boards; each does nothing without them (r->eth) */
int eth_open(struct run *r);
/* a frame the MTB boards of a patch sent */
int eth_frame(struct run *r, unsigned int patch, const struct can_frame *cf);
/* the datagrams due up to t (ns from the start); 0 or -1 */
int eth_advance(struct run *r, uint64_t t, uint64_t epoch, uint64_t t0_mono);
int eth_finish(struct run *r, uint64_t epoch, uint64_t t0_mono);
void eth_close(struct run *r);

/* offline.c: --ring, --log, --pcap, --eth */
int run_offline(struct run *r);
/* can.c */
int run_can(struct run *r);
/* replay.c */
int run_replay(struct run *r);

#endif
