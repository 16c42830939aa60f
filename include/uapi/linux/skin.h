/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * skin.h - user-space ABI of the robot skin driver (skin.ko)
 *
 * The skin driver receives the frames of capacitive skin boards (iCub MTB
 * boards) from SocketCAN inside the kernel, validates every one of them,
 * assembles the 192 channel values of each board into frames and publishes
 * them to user space through a character device per patch, /dev/skin/NAME:
 * an mmap()able ring of frames, read(), poll() and the ioctls below.
 *
 * Patches are created and configured through configfs, in
 * /sys/kernel/config/skin/NAME/ (UAPI.md of skin's documentation,
 * /usr/share/doc/skin, describes both).
 */
#ifndef _UAPI_LINUX_SKIN_H
#define _UAPI_LINUX_SKIN_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SKIN_ABI_VERSION	1

#define SKIN_TRIANGLES		16	/* per board */
#define SKIN_CHANNELS		12	/* per triangle: 10 taxels, 2 thermal pads */
#define SKIN_BOARD_VALUES	(SKIN_TRIANGLES * SKIN_CHANNELS)	/* 192 */
#define SKIN_NAME_LEN		32	/* patch names: 1..31 of [A-Za-z0-9_.-] */
#define SKIN_IFNAME_LEN		16	/* IFNAMSIZ */

/*
 * Verdicts of the frame decoder.  Every CAN frame the driver receives gets
 * exactly one of these, and each has its own counter (the first SKIN_RX_NR
 * entries of enum skin_stat).
 */
enum skin_rx_verdict {
	SKIN_RX_HEAD = 0,	/* accepted: head frame, channels 0..6 */
	SKIN_RX_TAIL,		/* accepted: tail frame, channels 7..11 */
	SKIN_RX_ERR_FRAME,	/* CAN error frame (bus event, not data) */
	SKIN_RX_BAD_FD,		/* CAN FD frame: the boards only send classic CAN */
	SKIN_RX_BAD_EFF,	/* 29-bit identifier: the boards use 11-bit ids */
	SKIN_RX_BAD_RTR,	/* remote transmission request */
	SKIN_RX_BAD_CLASS,	/* message class is not the patch's data class */
	SKIN_RX_BAD_BOARD,	/* board address is not the patch's */
	SKIN_RX_BAD_DLC,	/* length wrong for the frame kind */
	SKIN_RX_BAD_BYTE0,	/* byte 0 is neither 0x40 (head) nor 0xC0 (tail) */
	SKIN_RX_BAD_TRIANGLE,	/* valid frame of a triangle not enabled */
	SKIN_RX_NR
};

/*
 * Counters of a patch: the decoder verdicts, then what assembly, the bus
 * and board control did.  Read them with SKIN_IOC_GET_STATS, in sysfs
 * (/sys/class/skin/NAME/stats/) or in the control page of the ring.
 * New counters are only ever appended before SKIN_STAT_NR.
 */
enum skin_stat {
	/* 0 .. SKIN_RX_NR - 1: enum skin_rx_verdict */
	SKIN_STAT_FRAMES = SKIN_RX_NR,	/* frames published */
	SKIN_STAT_PARTIAL,	/* of which partial (SKIN_FRAME_PARTIAL) */
	SKIN_STAT_REPEATS,	/* halves seen twice before completion */
	SKIN_STAT_TIMEOUTS,	/* publications by the 1.5 x period timer */
	SKIN_STAT_DIAG,		/* tail frames with a nonzero diagnostics word */
	SKIN_STAT_BUS_OFF,	/* error frames reporting bus-off */
	SKIN_STAT_BUS_ERROR,	/* other error frames */
	SKIN_STAT_TX,		/* board commands sent */
	SKIN_STAT_TX_FAILED,	/* board commands the CAN core refused */
	SKIN_STAT_BIND_FAILED,	/* interfaces the CAN core refused to receive from */
	SKIN_STAT_TX_WITHHELD,	/* board commands a listen-only patch did not send */
	SKIN_STAT_NR
};

#define SKIN_STAT_MAX	64	/* room in the ABI structures */

/* struct skin_frame.flags */
#define SKIN_FRAME_PARTIAL	(1U << 0) /* not every enabled triangle refreshed */
#define SKIN_FRAME_REPEAT	(1U << 1) /* published because a half repeated */
#define SKIN_FRAME_TIMEOUT	(1U << 2) /* published by the 1.5 x period timer */
#define SKIN_FRAME_DIAG		(1U << 3) /* some triangle reports diagnostics */
#define SKIN_FRAME_LOST		(1U << 4) /* read(): frames were lost before */

/**
 * struct skin_frame - one sample of a board
 * @seq: sequence number, 1 for the first frame of the patch; consecutive
 *	frames have consecutive numbers.  In the ring, 0 marks a slot that is
 *	being written (see the ordering contract below).
 * @timestamp_ns: CLOCK_MONOTONIC time of the last CAN frame in the sample
 * @refreshed: triangles (bit n = triangle n) whose head and tail both
 *	arrived since the previous frame
 * @flags: SKIN_FRAME_*
 * @diag_valid: triangles whose last tail carried a diagnostics word
 * @reserved: 0
 * @diag: per triangle, the last diagnostics word: bits 15..4 out-of-range
 *	channels, bit 0 no-ack, bit 1 not-connected; 0 means OK
 * @values: raw values, channel c of triangle t at @values[12 * t + c].
 *	Unloaded taxels read about noLoad and pressure drives them down.
 *	Channels not refreshed keep their last value, noLoad before the first.
 */
struct skin_frame {
	__aligned_u64 seq;
	__aligned_u64 timestamp_ns;
	__u16 refreshed;
	__u16 flags;
	__u16 diag_valid;
	__u16 reserved;
	__u16 diag[SKIN_TRIANGLES];
	__u8 values[SKIN_BOARD_VALUES];
	__u8 pad[8];
};				/* 256 bytes */

#define SKIN_RING_MAGIC		0x4e494b53	/* "SKIN", little endian */

/**
 * struct skin_ring_ctrl - page 0 of the mapping of /dev/skin/NAME
 * @magic: SKIN_RING_MAGIC
 * @abi_version: SKIN_ABI_VERSION
 * @frame_size: sizeof(struct skin_frame), the stride of the ring
 * @frame_count_log2: the ring holds 1 << @frame_count_log2 frames
 * @frame_count: 1 << @frame_count_log2
 * @data_offset: offset of slot 0 from the start of the mapping (a page)
 * @data_size: @frame_count * @frame_size
 * @head: sequence number of the newest published frame, 0 before the first
 * @name: patch name, NUL-terminated
 * @ifname: CAN interface, NUL-terminated
 * @cls: CAN message class of the data frames (3 or 4)
 * @address: board address, 0..15
 * @skin_part: skin part (iCub SkinPart enumeration, 0 = unknown)
 * @reserved0: 0
 * @triangles: enabled triangles
 * @period_ms: board period
 * @no_load: board noLoad value
 * @reserved1: 0
 * @stats: counters, enum skin_stat; updated with plain stores, read them
 *	as indicative values
 *
 * Memory-ordering contract (the writer is the kernel, any number of
 * readers are user space; the writer never waits for a reader):
 *
 * Frame N goes to slot (N & (frame_count - 1)).  The kernel writes it as
 *
 *	WRITE_ONCE(slot->seq, 0);	smp_wmb();
 *	... the rest of the frame ...
 *	smp_store_release(&slot->seq, N);
 *	smp_store_release(&ctrl->head, N);
 *
 * A reader that wants frame N (with N <= head, loaded with
 * smp_load_acquire(&ctrl->head), or __atomic_load_n(..., __ATOMIC_ACQUIRE))
 * copies it out and checks it was not overwritten meanwhile:
 *
 *	s1 = smp_load_acquire(&slot->seq);
 *	copy the frame;
 *	smp_rmb();			(__atomic_thread_fence(__ATOMIC_ACQUIRE))
 *	s2 = READ_ONCE(slot->seq);
 *
 * The copy is frame N when s1 == s2 == N.  Otherwise the writer has lapped
 * the reader (or is writing the slot): frames older than
 * head - frame_count + 1 are gone, and the reader continues from there,
 * counting the ones it lost.  @head and @seq are 8 bytes: a 32-bit reader
 * must load each with one 64-bit atomic load, never as two halves;
 * __atomic_load_n() on these __aligned_u64 fields is one on i386.
 *
 * 32-bit programs (i386, x32) use every structure here as it is: each
 * 64-bit field is an __aligned_u64 at a multiple of 8, and each size a
 * multiple of 8, so i386 (whose plain __u64 is 4-byte aligned in a
 * structure) has the offsets, sizes and ioctl numbers of x86_64.
 */
struct skin_ring_ctrl {
	__u32 magic;
	__u32 abi_version;
	__u32 frame_size;
	__u32 frame_count_log2;
	__u32 frame_count;
	__u32 data_offset;
	__aligned_u64 data_size;
	__aligned_u64 head;
	char name[SKIN_NAME_LEN];
	char ifname[SKIN_IFNAME_LEN];
	__u8 cls;
	__u8 address;
	__u8 skin_part;
	__u8 reserved0;
	__u16 triangles;
	__u16 period_ms;
	__u8 no_load;
	__u8 reserved1[7];
	__aligned_u64 stats[SKIN_STAT_MAX];
};

/**
 * struct skin_info - SKIN_IOC_GET_INFO: identity and state of a patch
 * @abi_version: SKIN_ABI_VERSION
 * @frame_size: sizeof(struct skin_frame)
 * @frame_count: frames in the ring
 * @flags: SKIN_INFO_*
 * @head: sequence number of the newest frame
 * @name: patch name
 * @ifname: CAN interface
 * @cls: data class
 * @address: board address
 * @skin_part: skin part
 * @skin_type: board skinType
 * @triangles: enabled triangles
 * @period_ms: board period
 * @no_load: board noLoad
 * @shift: board shift
 * @cdc_offset: board cdcOffset
 * @reserved: 0
 */
struct skin_info {
	__u32 abi_version;
	__u32 frame_size;
	__u32 frame_count;
	__u32 flags;
	__aligned_u64 head;
	char name[SKIN_NAME_LEN];
	char ifname[SKIN_IFNAME_LEN];
	__u8 cls;
	__u8 address;
	__u8 skin_part;
	__u8 skin_type;
	__u16 triangles;
	__u16 period_ms;
	__u8 no_load;
	__u8 shift;
	__u16 cdc_offset;
	__u32 reserved[5];
};

#define SKIN_INFO_BOUND		(1U << 0) /* the CAN interface exists */
#define SKIN_INFO_UP		(1U << 1) /* ... and is up */
#define SKIN_INFO_STREAMING	(1U << 2) /* the board was told to stream */
#define SKIN_INFO_REMOVED	(1U << 3) /* the patch was disabled or removed */
/*
 * The patch sends its board nothing (another program configures it, e.g.
 * on an ETH robot's tapped bus); SKIN_INFO_STREAMING then says the patch
 * is started, not that the board was told anything.
 */
#define SKIN_INFO_LISTEN_ONLY	(1U << 4)

/**
 * struct skin_stats - SKIN_IOC_GET_STATS
 * @count: on return, SKIN_STAT_NR of the running driver
 * @reserved: 0
 * @stat: counters, enum skin_stat
 */
struct skin_stats {
	__u32 count;
	__u32 reserved;
	__aligned_u64 stat[SKIN_STAT_MAX];
};

/**
 * struct skin_wakeup - SKIN_IOC_SET_WAKEUP, SKIN_IOC_GET_WAKEUP: wakeup
 *	moderation of one open file of /dev/skin/NAME
 * @frames: POLLIN (and the return of a blocking read()) once at least this
 *	many frames are pending for the file; 1 (the default) wakes on every
 *	frame.  At most half the ring: a batch must leave the reader as many
 *	slots to drain it as it took to fill, or frames are overwritten
 *	before the wakeup that delivers them.
 * @usecs: ... or once the oldest pending frame has waited this long, so a
 *	stream that stops mid-batch (unplug, bus-off, end of a recording)
 *	still delivers its last frames.  Required (nonzero) when @frames > 1;
 *	ignored when @frames is 1.
 * @flags: 0
 * @reserved: 0
 *
 * "Pending" is what poll() counts for the file: frames not yet read() for
 * a file read with read(); frames published since poll() last reported
 * POLLIN for a mapped file.  POLLHUP and POLLERR are never moderated, and
 * pending frames are reported (POLLIN) at once when the patch is removed
 * or its interface disappears.  A reader that sets @frames > 1 trades
 * latency (up to @usecs) for wakeups (about one per @frames frames).
 * Invalid settings are EINVAL and leave the setting unchanged.
 */
struct skin_wakeup {
	__u32 frames;
	__u32 usecs;
	__u32 flags;
	__u32 reserved;
};

#define SKIN_IOC_MAGIC		0xb5
#define SKIN_IOC_GET_INFO	_IOR(SKIN_IOC_MAGIC, 0, struct skin_info)
#define SKIN_IOC_GET_STATS	_IOR(SKIN_IOC_MAGIC, 1, struct skin_stats)
#define SKIN_IOC_RESET_STATS	_IO(SKIN_IOC_MAGIC, 2)
#define SKIN_IOC_START		_IO(SKIN_IOC_MAGIC, 3) /* configure, stream */
#define SKIN_IOC_STOP		_IO(SKIN_IOC_MAGIC, 4) /* SET_TXMODE(off) */
#define SKIN_IOC_SET_WAKEUP	_IOW(SKIN_IOC_MAGIC, 5, struct skin_wakeup)
#define SKIN_IOC_GET_WAKEUP	_IOR(SKIN_IOC_MAGIC, 6, struct skin_wakeup)

#endif /* _UAPI_LINUX_SKIN_H */
