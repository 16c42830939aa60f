/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin_replay.h - skind's processing on a recorded CAN log, one sample at a time
 *
 * What `skinctl process` runs, shared with `skinctl view --log` and
 * `skin-view --replay`:
 * a skind.conf's model and processor, and a candump -l log (or the
 * frames an ETH capture's boards carried, through lib/eth) fed through
 * the driver's assembly core (driver/skin_assemble.c) in the order
 * skin_can_rx() runs it, with the 1.5-period timeouts judged on the log's
 * timestamps.  skin_replay_next() hands back each published sample
 * after lib/proc has processed it (and clustered its part when running),
 * so the caller reads skin_proc_values() and friends of that very sample.
 *
 *	struct skin_replay_opts o = { .who = "skinctl view", ... };
 *	struct skin_replay *r = skin_replay_open(&o);
 *	struct skin_replay_sample s;
 *	while ((n = skin_replay_next(r, &s)) > 0)
 *		if (s.output) ... skin_proc_values(r->p, s.part) ...
 *	skin_replay_summary(r);
 *	skin_replay_close(r);
 *
 * With cycle_ms (compat mode only), the parts run on skinManager's clock
 * instead (docs/PROCESSING.md, "skinManager's clock"): a sample only
 * becomes its patch's newest, and every cycle_ms of the log's time, from
 * the first sample on, each part is processed on its patches' newest
 * samples, an output per part and cycle (skin_replay_sample.cycle), as
 * skind's pipeline timer does; the calibration counts cycles.  Cycles run
 * up to the log's last sample, not past it.
 *
 * Messages (progress, refusals, faults, bad lines) go to r->msg (stderr
 * unless the caller changes it) prefixed with o.who.  Bad lines are
 * reported, counted (rejected) and skipped.
 */
#ifndef SKIN_REPLAY_H
#define SKIN_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <skin/canlog.h>
#include <skin/model.h>
#include <skin/proc.h>

struct skin_replay_opts {
	const char *who;		/* "skinctl process": message prefix */
	const char *config;		/* skind.conf */
	const char *log;		/* candump -l log, "-" for stdin */
	bool compat;			/* [skind] compat = true */
	char **sets;			/* PARAM=VALUE, applied in order */
	unsigned int n_sets;
	const char *calibration;	/* restore this file instead of
					 * calibrating on the log's start */
	unsigned int cycle_ms;		/* compat: skinManager's period, the
					 * parts cycled on the log's clock;
					 * 0: each sample processed */
	/* An ETH capture (pcap, pcapng: skin/capture.h) in place of the
	 * log: its boards as skin-eth's --board takes them, the frames they
	 * carry going to the buses their CAN ports name (eb24can1, ...), as
	 * skin-eth --replay would write them; none: a candump log */
	char **eth_boards;
	unsigned int n_eth_boards;
	unsigned int eth_udp_port;	/* 0: the boards' 12345 */
};

/* One published board sample, processed; or, cycling, one part's cycle. */
struct skin_replay_sample {
	unsigned int patch;		/* model patch index; UINT_MAX for a
					 * cycle */
	unsigned int part;		/* its part */
	int ev;				/* skin_proc_feed()'s SKIN_PROC_EV_* */
	uint64_t ts_ns;			/* the sample's timestamp (log clock) */
	uint64_t seq;			/* the patch's sample number, from 1 */
	bool output;			/* the part is running and was
					 * clustered: an output sample */
	bool cycle;			/* a cycle of the part (ts_ns its
					 * time, seq its number), not a sample */
	const uint8_t *values;		/* a sample's SKIN_BOARD_VALUES raw
					 * bytes (NULL for a cycle), valid
					 * until the next call */
};

struct patch_rx;
struct published;
struct skin_capture;
struct skin_eth_rx;

struct skin_replay {
	const char *who;
	FILE *msg;			/* where messages go: stderr */
	const char *log;
	struct skin_config *cfg;
	struct skin_model *m;
	struct skin_proc *p;
	struct skin_canlog *l;		/* the log, or: */
	struct skin_capture *cap;	/* the capture and its boards */
	struct skin_eth_rx *eth;
	struct skin_canlog_record *pend;	/* a datagram's frames not fed */
	unsigned int pend_head, pend_len, pend_cap;
	unsigned int eth_udp_port;
	uint64_t cur_ts;		/* the packet's capture time */
	uint64_t packets;		/* the capture's, read so far */
	struct patch_rx *rx;
	struct published *queue;	/* published, not yet fed */
	unsigned int q_head, q_len, q_cap;
	bool ended;
	uint64_t cycle_ns;		/* 0: not cycling */
	uint64_t next_cycle_ns;		/* 0: before the first sample */
	uint64_t cycle_ts, cycles;	/* the current cycle's time, count */
	unsigned int cycle_part;	/* its next part; n_parts: none due */
	uint64_t published, ignored, rejected;
	unsigned int calibrated;
};

/* NULL after saying why on stderr. */
struct skin_replay *skin_replay_open(const struct skin_replay_opts *o);
/* The next processed sample: 1, 0 at the end of the log, or -errno
 * (said on stderr). */
int skin_replay_next(struct skin_replay *r, struct skin_replay_sample *s);
/* "N samples (...), N frames for no patch, N bad lines" on stderr. */
void skin_replay_summary(const struct skin_replay *r);
/* The model's part named @name, or -1. */
int skin_replay_part_find(const struct skin_model *m, const char *name);
void skin_replay_close(struct skin_replay *r);

#endif
