/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * skin.h - user-space ABI of the robot skin driver (skin.ko)
 *
 * The skin driver receives the frames of capacitive skin boards (iCub MTB
 * boards) from SocketCAN inside the kernel, validates every one of them and
 * counts what it rejects.  This header holds what user space sees of that.
 */
#ifndef _UAPI_LINUX_SKIN_H
#define _UAPI_LINUX_SKIN_H

#include <linux/types.h>

/*
 * Verdicts of the frame decoder.  Every CAN frame the driver receives gets
 * exactly one of these, and each has its own counter.  The values are part of
 * the ABI: new verdicts are only ever appended before SKIN_RX_NR.
 */
enum skin_rx_verdict {
	SKIN_RX_HEAD = 0,	/* accepted: head frame, channels 0..6 */
	SKIN_RX_TAIL,		/* accepted: tail frame, channels 7..11 */
	SKIN_RX_ERR_FRAME,	/* CAN error frame (bus event, not data) */
	SKIN_RX_BAD_FD,		/* CAN FD frame: the boards only send classic CAN */
	SKIN_RX_BAD_EFF,	/* 29-bit identifier: the boards use 11-bit ids */
	SKIN_RX_BAD_RTR,	/* remote transmission request */
	SKIN_RX_BAD_CLASS,	/* message class is not skin data (0x3 or 0x4) */
	SKIN_RX_BAD_DLC,	/* length wrong for the frame kind */
	SKIN_RX_BAD_BYTE0,	/* byte 0 is neither 0x40 (head) nor 0xC0 (tail) */
	SKIN_RX_NR
};

#endif /* _UAPI_LINUX_SKIN_H */
