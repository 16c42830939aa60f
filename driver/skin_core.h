/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * skin_core.h - the decode-and-assemble core of the skin driver
 *
 * This code is built three times from the same source: into skin.ko, into
 * the KUnit suites, and into user space (unit tests, benchmarks, the board
 * simulator).  It must therefore use nothing but the types and primitives
 * below, <linux/can.h> and <linux/can/error.h> (UAPI headers, the same in
 * the kernel and in user space) and the driver's own UAPI header: no
 * allocation, no locking, no sleeping, no kernel-only calls.  Callers
 * serialise writers; readers of a ring need no lock (see the contract in
 * <linux/skin.h>).
 *
 * This header, skin_ring.c and lib/kcompat are GPL-2.0 OR MIT: the ring
 * reader is linked into robot programs through libskin (lib/ring, LGPL).
 */
#ifndef _SKIN_CORE_H
#define _SKIN_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#include <linux/string.h>
#include <asm/barrier.h>
#include <linux/compiler.h>
#else
#include <skin_kcompat.h>	/* lib/kcompat/: types, barriers, READ_ONCE */
#endif
#include <linux/can.h>

#include <uapi/linux/skin.h>

/*
 * Identifier of a skin data frame (11 bits):
 *   bits 10..8  message class: SKIN_CLASS_DATA or SKIN_CLASS_DATA_OLD
 *   bits  7..4  board address, 0..15
 *   bits  3..0  triangle number, 0..15
 */
#define SKIN_CLASS_DATA_OLD	0x3
#define SKIN_CLASS_DATA		0x4
#define SKIN_ID_CLASS(id)	(((id) >> 8) & 0x7)
#define SKIN_ID_BOARD(id)	(((id) >> 4) & 0xf)
#define SKIN_ID_TRIANGLE(id)	((id) & 0xf)
#define SKIN_DATA_ID(cls, board, triangle) \
	((((cls) & 0x7) << 8) | (((board) & 0xf) << 4) | ((triangle) & 0xf))
/* The exact filter of one board's data frames: class and board, any triangle */
#define SKIN_DATA_MASK		0x7f0

/* Byte 0 tells the two frames a triangle sends each period apart. */
#define SKIN_BYTE0_HEAD		0x40
#define SKIN_BYTE0_TAIL		0xc0

#define SKIN_HEAD_CHANNELS	7	/* channels 0..6, bytes 1..7 */
#define SKIN_TAIL_CHANNELS	5	/* channels 7..11, bytes 1..5 */

/* Board commands: host (source 0) to board, id 0x200 | board */
#define SKIN_CMD_ID(board)	(0x200 | ((board) & 0xf))
#define SKIN_CMD_SET_BRD_CFG	0x4d	/* [0x4d, skinType, period, noLoad] */
#define SKIN_CMD_SET_TRIANG_CFG	0x50	/* [0x50, first, last, shift, on, cdc lo, hi] */
#define SKIN_CMD_SET_TXMODE	0x07	/* [0x07, 0 = stream, 1 = stop] */
#define SKIN_TXMODE_ON		0x00
#define SKIN_TXMODE_OFF		0x01
/* Boards recalibrate their capacitance offsets after SET_TRIANG_CFG. */
#define SKIN_BOARD_SETTLE_MS	500
/* SET_BRD_CFG + one SET_TRIANG_CFG per run of triangles + SET_TXMODE */
#define SKIN_CMD_MAX		(2 + SKIN_TRIANGLES)

/* Limits of a patch's configuration */
#define SKIN_RING_MIN_LOG2	1
#define SKIN_RING_MAX_LOG2	16
#define SKIN_RING_DEFAULT_LOG2	8

/* Diagnostics word of a tail frame */
#define SKIN_DIAG_NO_ACK	BIT(0)
#define SKIN_DIAG_NOT_CONNECTED	BIT(1)

/**
 * struct skin_half - one decoded head or tail frame of a triangle
 * @cls: message class of the frame (SKIN_CLASS_DATA or SKIN_CLASS_DATA_OLD)
 * @board: board address, 0..15
 * @triangle: triangle number on the board, 0..15
 * @tail: false for a head frame (channels 0..6), true for a tail (7..11)
 * @has_diag: a tail frame of 8 bytes carries a diagnostics word
 * @diag: (byte 6 << 8) | byte 7: bits 15..4 out-of-range channels,
 *	bit 0 no-ack, bit 1 not-connected; 0 when @has_diag is false
 * @first_channel: 0 for a head, 7 for a tail
 * @nvalues: SKIN_HEAD_CHANNELS or SKIN_TAIL_CHANNELS
 * @values: raw channel values, @values[i] is channel @first_channel + i
 */
struct skin_half {
	u8 cls;
	u8 board;
	u8 triangle;
	bool tail;
	bool has_diag;
	u16 diag;
	u8 first_channel;
	u8 nvalues;
	u8 values[SKIN_HEAD_CHANNELS];
};

enum skin_rx_verdict skin_decode(const struct can_frame *cf, bool is_fd,
				 struct skin_half *half);
const char *skin_stat_name(unsigned int stat);

/* Whether a verdict carries channel values. */
static inline bool skin_verdict_accepted(enum skin_rx_verdict verdict)
{
	return verdict == SKIN_RX_HEAD || verdict == SKIN_RX_TAIL;
}

/**
 * struct skin_patch_config - what user space configures for a patch
 * @ifname: CAN interface
 * @cls: data class, SKIN_CLASS_DATA or SKIN_CLASS_DATA_OLD
 * @address: board address, 0..15
 * @skin_part: iCub SkinPart, 0..255 (0 = unknown)
 * @triangles: enabled triangles, not 0
 * @period_ms: board period, 1..255 ms
 * @skin_type: board skinType, 0..15
 * @no_load: board noLoad, the value of an unloaded taxel
 * @shift: board shift, 0..15
 * @cdc_offset: board cdcOffset
 * @ring_log2: the ring holds 1 << @ring_log2 frames
 * @listen_only: 1 when the patch must send its board nothing (another
 *	program configures the board, e.g. on an ETH robot's tapped bus)
 */
struct skin_patch_config {
	char ifname[SKIN_IFNAME_LEN];
	u8 cls;
	u8 address;
	u8 skin_part;
	u16 triangles;
	u16 period_ms;
	u8 skin_type;
	u8 no_load;
	u8 shift;
	u16 cdc_offset;
	u8 ring_log2;
	u8 listen_only;
};

void skin_patch_config_default(struct skin_patch_config *cfg);
const char *skin_patch_config_check(const struct skin_patch_config *cfg);
const char *skin_name_check(const char *name);
unsigned int skin_board_commands(const struct skin_patch_config *cfg, bool start,
				 struct can_frame cmds[SKIN_CMD_MAX]);

/**
 * struct skin_asm - assembly of one board's frames into samples
 * @enabled: triangles expected (the configured mask)
 * @have_head: triangles whose head arrived since the last publication
 * @have_tail: likewise for tails
 * @diag_valid: triangles whose last tail carried diagnostics
 * @cls: the patch's data class
 * @address: the patch's board address
 * @last_ts: time of the last accepted frame, ns
 * @diag: last diagnostics word per triangle
 * @values: the staging frame: the last value of every channel
 */
struct skin_asm {
	u16 enabled;
	u16 have_head;
	u16 have_tail;
	u16 diag_valid;
	u8 cls;
	u8 address;
	u64 last_ts;
	u16 diag[SKIN_TRIANGLES];
	u8 values[SKIN_BOARD_VALUES];
};

struct skin_ring;

/* What skin_asm_rx() and skin_asm_timeout() leave to their caller */
#define SKIN_ASM_WAKE	BIT(0)	/* a sample was published: wake its readers */
#define SKIN_ASM_ARM	BIT(1)	/* a sample began: arm the 1.5-period timer */

void skin_asm_init(struct skin_asm *a, const struct skin_patch_config *cfg);
unsigned int skin_asm_rx(struct skin_asm *a, struct skin_ring *r,
			 const struct can_frame *cf, bool is_fd, u64 ts);
unsigned int skin_asm_timeout(struct skin_asm *a, struct skin_ring *r);

/* The assembler's state, inline: skin_asm_rx() asks for every frame. */

/* Whether every enabled triangle sent both halves since the last sample. */
static inline bool skin_asm_complete(const struct skin_asm *a)
{
	return (a->have_head & a->have_tail) == a->enabled;
}

/* Whether any half arrived since the last publication. */
static inline bool skin_asm_pending(const struct skin_asm *a)
{
	return a->have_head | a->have_tail;
}

/**
 * struct skin_ring - the writer's view of a ring (see <linux/skin.h>)
 * @ctrl: the control page
 * @slots: the frames
 * @mask: frame count - 1
 * @head: sequence number of the last frame published
 */
struct skin_ring {
	struct skin_ring_ctrl *ctrl;
	struct skin_frame *slots;
	u32 mask;
	u64 head;
};

void skin_ring_init(struct skin_ring *r, void *mem, u32 data_offset,
		    unsigned int count_log2);

/*
 * The patch's counters (enum skin_stat) are plain u64s in the control
 * page, written by the ring's one writer (under its lock) and read
 * without one.
 */
static inline void skin_ring_stat_inc(struct skin_ring *r, unsigned int stat)
{
	WRITE_ONCE(r->ctrl->stats[stat], r->ctrl->stats[stat] + 1);
}

struct skin_frame *skin_ring_begin(struct skin_ring *r);
void skin_ring_commit(struct skin_ring *r, struct skin_frame *slot);

/* The reader side, lock-free; the same code serves read() and user space. */
enum skin_ring_status {
	SKIN_RING_FRAME,	/* *out holds frame *next - 1 */
	SKIN_RING_EMPTY,	/* no frame at or after *next yet */
};

enum skin_ring_status skin_ring_read(const struct skin_ring_ctrl *ctrl,
				     const struct skin_frame *slots,
				     u64 *next, struct skin_frame *out,
				     u64 *lost);

#endif /* _SKIN_CORE_H */
