/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin_core.h - the decode-and-assemble core of the skin driver
 *
 * This code is built three times from the same source: into skin.ko, into
 * the KUnit suites, and into user space (unit tests, benchmarks, the board
 * simulator).  It must therefore use nothing but the types below, <linux/can.h>
 * (a UAPI header, the same in the kernel and in user space) and the driver's
 * own UAPI header: no allocation, no locking, no kernel-only calls.
 */
#ifndef _SKIN_CORE_H
#define _SKIN_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <skin_kcompat.h>	/* lib/kcompat/: u8, u16, u32, u64, bool */
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

/* Byte 0 tells the two frames a triangle sends each period apart. */
#define SKIN_BYTE0_HEAD		0x40
#define SKIN_BYTE0_TAIL		0xc0

#define SKIN_TRIANGLES		16	/* per board */
#define SKIN_CHANNELS		12	/* per triangle: 10 taxels, 2 thermal pads */
#define SKIN_BOARD_VALUES	(SKIN_TRIANGLES * SKIN_CHANNELS)
#define SKIN_HEAD_CHANNELS	7	/* channels 0..6, bytes 1..7 */
#define SKIN_TAIL_CHANNELS	5	/* channels 7..11, bytes 1..5 */

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
bool skin_verdict_accepted(enum skin_rx_verdict verdict);
const char *skin_verdict_name(enum skin_rx_verdict verdict);

#endif /* _SKIN_CORE_H */
