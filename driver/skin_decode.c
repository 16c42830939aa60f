// SPDX-License-Identifier: GPL-2.0
/*
 * skin_decode.c - validate and decode one CAN frame of a skin board
 *
 * The upstream host driver reads whatever arrives: a short frame, a wrong
 * class or an unknown byte 0 is silently misread as taxel values.  Here every
 * frame gets one verdict; only SKIN_RX_HEAD and SKIN_RX_TAIL carry data.
 *
 * Portable: see skin_core.h.
 */
#include "skin_core.h"

static const char * const skin_stat_names[SKIN_STAT_NR] = {
	[SKIN_RX_HEAD]		= "rx_head",
	[SKIN_RX_TAIL]		= "rx_tail",
	[SKIN_RX_ERR_FRAME]	= "rx_error_frames",
	[SKIN_RX_BAD_FD]	= "rx_bad_fd",
	[SKIN_RX_BAD_EFF]	= "rx_bad_eff",
	[SKIN_RX_BAD_RTR]	= "rx_bad_rtr",
	[SKIN_RX_BAD_CLASS]	= "rx_bad_class",
	[SKIN_RX_BAD_BOARD]	= "rx_bad_board",
	[SKIN_RX_BAD_DLC]	= "rx_bad_dlc",
	[SKIN_RX_BAD_BYTE0]	= "rx_bad_byte0",
	[SKIN_RX_BAD_TRIANGLE]	= "rx_bad_triangle",
	[SKIN_STAT_FRAMES]	= "frames",
	[SKIN_STAT_PARTIAL]	= "frames_partial",
	[SKIN_STAT_REPEATS]	= "repeats",
	[SKIN_STAT_TIMEOUTS]	= "timeouts",
	[SKIN_STAT_DIAG]	= "diag_reports",
	[SKIN_STAT_BUS_OFF]	= "bus_off",
	[SKIN_STAT_BUS_ERROR]	= "bus_errors",
	[SKIN_STAT_TX]		= "tx_commands",
	[SKIN_STAT_TX_FAILED]	= "tx_failed",
	[SKIN_STAT_BIND_FAILED]	= "bind_failed",
	[SKIN_STAT_TX_WITHHELD]	= "tx_withheld",
};

/**
 * skin_stat_name() - name of a counter, as shown in sysfs and by skinctl
 * @stat: enum skin_stat (the first SKIN_RX_NR are the decoder verdicts)
 *
 * Return: a static string, or NULL for a value outside the enumeration.
 */
const char *skin_stat_name(unsigned int stat)
{
	if (stat >= SKIN_STAT_NR)
		return NULL;
	return skin_stat_names[stat];
}

/**
 * skin_decode() - validate one CAN frame and decode it if it is skin data
 * @cf: the frame; for a CAN FD frame, its classic-CAN-compatible prefix
 * @is_fd: the frame arrived as CAN FD
 * @half: filled in when the verdict is SKIN_RX_HEAD or SKIN_RX_TAIL, and left
 *	untouched otherwise
 *
 * The checks run from the outside in (frame type, identifier, length, byte 0,
 * length for the kind), so a frame that is wrong in several ways is counted
 * under the most basic of its faults.  Whether the frame is for the patch
 * (board, triangle) is skin_asm_check()'s business.
 *
 * Return: the verdict.
 */
enum skin_rx_verdict skin_decode(const struct can_frame *cf, bool is_fd,
				 struct skin_half *half)
{
	u32 id = cf->can_id;
	unsigned int cls;
	bool tail;

	if (id & CAN_ERR_FLAG)
		return SKIN_RX_ERR_FRAME;
	if (is_fd)
		return SKIN_RX_BAD_FD;
	if (id & CAN_EFF_FLAG)
		return SKIN_RX_BAD_EFF;
	if (id & CAN_RTR_FLAG)
		return SKIN_RX_BAD_RTR;

	cls = SKIN_ID_CLASS(id);
	if (cls != SKIN_CLASS_DATA && cls != SKIN_CLASS_DATA_OLD)
		return SKIN_RX_BAD_CLASS;

	if (cf->len < 1 || cf->len > CAN_MAX_DLEN)
		return SKIN_RX_BAD_DLC;

	switch (cf->data[0]) {
	case SKIN_BYTE0_HEAD:
		if (cf->len != 1 + SKIN_HEAD_CHANNELS)
			return SKIN_RX_BAD_DLC;
		tail = false;
		break;
	case SKIN_BYTE0_TAIL:
		/* 6 bytes: values only; 8 bytes: values and diagnostics */
		if (cf->len != 1 + SKIN_TAIL_CHANNELS && cf->len != CAN_MAX_DLEN)
			return SKIN_RX_BAD_DLC;
		tail = true;
		break;
	default:
		return SKIN_RX_BAD_BYTE0;
	}

	half->cls = cls;
	half->board = SKIN_ID_BOARD(id);
	half->triangle = SKIN_ID_TRIANGLE(id);
	half->tail = tail;
	half->first_channel = tail ? SKIN_HEAD_CHANNELS : 0;
	half->nvalues = tail ? SKIN_TAIL_CHANNELS : SKIN_HEAD_CHANNELS;
	/* fixed-size copies: the compiler makes them two moves, not a loop */
	memcpy(half->values, &cf->data[1], SKIN_HEAD_CHANNELS);
	if (tail) {
		half->values[SKIN_TAIL_CHANNELS] = 0;	/* the diagnostics */
		half->values[SKIN_TAIL_CHANNELS + 1] = 0;
	}
	half->has_diag = tail && cf->len == CAN_MAX_DLEN;
	half->diag = half->has_diag ? (u16)(cf->data[6] << 8 | cf->data[7]) : 0;

	return tail ? SKIN_RX_TAIL : SKIN_RX_HEAD;
}
