/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/ropframe.h - the ETH boards' UDP datagrams ("ropframes"), read
 *
 * An iCub's ETH boards (ems4, mc4plus, mc2plus) carry their MTB boards'
 * CAN frames verbatim inside UDP datagrams to the head PC (port 12345).
 * One datagram is one ropframe, all little-endian (docs/ETH.md has the
 * layout and the owners' file each fact comes from):
 *
 *	header	u32 start 0x12345678, u16 ROP bytes, u16 ROP count,
 *		u64 age (us), u64 sequence number			24 B
 *	ROPs	u8 ctrl, u8 opcode, u16 data size, u32 id32		 8 B
 *		data, padded to 4 (set, say and sig without a confirmation)
 *		u32 signature (ctrl bit 3), u64 time (ctrl bit 2)
 *	footer	u32 0x87654321						 4 B
 *
 * id32 = endpoint << 24 | entity << 16 | index << 8 | tag.  The skin's
 * CAN data is endpoint 3, entity 0, tag 2, index = the board's patch: an
 * array head (u8 capacity 24, u8 item size 10, u8 count, u8 spare) and
 * count items of u16 info ((len << 12) | 11-bit CAN id) + 8 data bytes.
 *
 * skin_ropframe_parse() checks the whole datagram first and hands over
 * its CAN frames only when every part of it is sound: a datagram with one
 * bad ROP publishes nothing (its ROP boundaries, hence every later ROP,
 * come from bytes already shown to be wrong); the verdict says why.  ROPs
 * of other endpoints and tags (motion control, management, analog
 * sensors share the stream) are walked over, counted, and not decoded.
 *
 * The writer builds ropframes the same way (tests, the simulator).
 * No allocation, no I/O, no global state: thread-safe per call.
 */
#ifndef SKIN_ROPFRAME_H
#define SKIN_ROPFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKIN_ROPFRAME_START	0x12345678u
#define SKIN_ROPFRAME_END	0x87654321u
#define SKIN_ROPFRAME_HEADER	24
#define SKIN_ROPFRAME_FOOTER	4
#define SKIN_ROP_HEAD		8

/* ROP opcodes (eOropcodevalues_t) */
#define SKIN_ROP_ASK		1
#define SKIN_ROP_SAY		2
#define SKIN_ROP_SET		3
#define SKIN_ROP_SIG		4
#define SKIN_ROP_RST		5

/* ROP ctrl byte (eOropctrl_t): bits 0-1 confirmation (0 none, 1 nak,
 * 2 ack), 2 +time, 3 +signature, 4 time requested, 5 confirmation
 * requested, 6-7 version (must be 0) */
#define SKIN_ROP_CTRL_CONF	0x03
#define SKIN_ROP_CTRL_TIME	0x04
#define SKIN_ROP_CTRL_SIGN	0x08
#define SKIN_ROP_CTRL_VERSION	0xc0

#define SKIN_ROP_ID32(ep, ent, idx, tag) \
	((uint32_t)(((ep) & 0xffu) << 24 | ((ent) & 0xffu) << 16 | \
		    ((idx) & 0xffu) << 8 | ((tag) & 0xffu)))
#define SKIN_ROP_ID32_EP(id)	((uint8_t)((id) >> 24))
#define SKIN_ROP_ID32_ENT(id)	((uint8_t)((id) >> 16))
#define SKIN_ROP_ID32_INDEX(id)	((uint8_t)((id) >> 8))
#define SKIN_ROP_ID32_TAG(id)	((uint8_t)(id))

/* Endpoints (eOprot_endpoint_t); the skin's entity and data tag */
#define SKIN_ROP_EP_MANAGEMENT	0
#define SKIN_ROP_EP_MOTION	1
#define SKIN_ROP_EP_ANALOG	2
#define SKIN_ROP_EP_SKIN	3
#define SKIN_ROP_SKIN_ENTITY	0
#define SKIN_ROP_SKIN_TAG_CANDATA 2

/* The skin's array of CAN data (EOarray_of_skincandata_t) */
#define SKIN_ROP_ARRAY_HEAD	4
#define SKIN_ROP_ARRAY_CAPACITY	24
#define SKIN_ROP_ITEM_SIZE	10
#define SKIN_ROP_ARRAY_SIZE	(SKIN_ROP_ARRAY_HEAD + \
				 SKIN_ROP_ARRAY_CAPACITY * SKIN_ROP_ITEM_SIZE)
#define SKIN_ROP_ITEM_INFO(len, id) \
	((uint16_t)((((len) & 0xfu) << 12) | ((id) & 0xfffu)))

/*
 * What became of a datagram: the first fault found, checked from the
 * outside in (size, markers, sizes, each ROP in order), so a datagram
 * wrong in several ways counts once, under its first fault.  Only
 * SKIN_ETH_OK publishes.  The verdicts after SKIN_ETH_BAD_ITEM_ID are
 * the receiver's (skin/ethrx.h), about who sent it and when.
 */
enum skin_eth_verdict {
	SKIN_ETH_OK,
	SKIN_ETH_TRUNCATED,	 /* shorter than a header and a footer */
	SKIN_ETH_BAD_START,	 /* start marker is not 0x12345678 */
	SKIN_ETH_BAD_SIZE,	 /* header's ROP bytes != the datagram's */
	SKIN_ETH_BAD_END,	 /* footer is not 0x87654321 */
	SKIN_ETH_BAD_ROP_SIZE,	 /* a ROP runs past the ROP bytes */
	SKIN_ETH_BAD_ROP_COUNT,	 /* ROPs found != header's ROP count */
	SKIN_ETH_BAD_ROP_CTRL,	 /* version bits, or confirmation 3 */
	SKIN_ETH_BAD_ROP_CODE,	 /* opcode not ask..rst */
	SKIN_ETH_BAD_ROP_EMPTY,	 /* set, say or sig with data size 0 */
	SKIN_ETH_BAD_ARRAY_HEAD, /* skin array: data < 4 B, capacity != 24,
				    item size != 10, data > 244 B */
	SKIN_ETH_BAD_ARRAY_COUNT,/* skin array: count > 24 or past the data */
	SKIN_ETH_BAD_ITEM_LEN,	 /* a CAN frame's length > 8 */
	SKIN_ETH_BAD_ITEM_ID,	 /* a CAN id above 0x7ff */
	SKIN_ETH_FOREIGN,	 /* the source is not a configured board */
	SKIN_ETH_BAD_PATCH,	 /* a skin ROP's index is no patch of the board */
	SKIN_ETH_DUPLICATE,	 /* the board's last sequence number again */
	SKIN_ETH_VERDICT_NR
};

/* "ok", "truncated", "bad_start"...: the counter's name; NULL outside */
const char *skin_eth_verdict_name(unsigned int verdict);

/**
 * struct skin_eth_can - one MTB CAN frame a skin ROP carried
 * @id: 11-bit CAN id
 * @len: 0..8
 * @patch: the ROP's id32 index: the board's patch (0, 1), which
 *	skin/ethrx.h maps to one of the board's CAN ports
 * @data: @len bytes; the rest as the datagram had them
 */
struct skin_eth_can {
	uint16_t id;
	uint8_t len;
	uint8_t patch;
	uint8_t data[8];
};

/**
 * struct skin_ropframe - what a datagram's header and ROPs said
 * @age_us: the board's age of the frame, microseconds
 * @seq: the board's sequence number
 * @n_rops: ROPs in the datagram
 * @n_skin: skin CAN data ROPs
 * @n_other: ROPs of the known endpoints (0..3) not carrying skin CAN data
 * @n_unknown: ROPs of other endpoints
 * @n_frames: CAN frames in the skin ROPs
 * @patches: the indexes of the skin ROPs seen, a bit each (256 bits)
 * @fault_offset: where the fault was found (verdict not OK), byte offset
 *
 * Filled as far as the parse got: when the verdict is not OK, @age_us and
 * @seq are valid when the datagram was at least a header long, the
 * counts are what was walked before the fault.
 */
struct skin_ropframe {
	uint64_t age_us;
	uint64_t seq;
	unsigned int n_rops;
	unsigned int n_skin;
	unsigned int n_other;
	unsigned int n_unknown;
	unsigned int n_frames;
	uint64_t patches[4];
	size_t fault_offset;
};

/* Called once per carried CAN frame, in the datagram's order. */
typedef void (*skin_eth_can_fn)(void *ctx, const struct skin_eth_can *f);

/*
 * Check one UDP payload and, when it is sound, call fn (may be NULL) for
 * each CAN frame its skin ROPs carry, in order.  *info (may be NULL) gets
 * what was read.  Returns SKIN_ETH_OK or the first fault; fn is never
 * called for a datagram that is not OK.  Verdicts after
 * SKIN_ETH_BAD_ITEM_ID are never returned here.
 */
enum skin_eth_verdict skin_ropframe_parse(const void *buf, size_t len,
					  struct skin_ropframe *info,
					  skin_eth_can_fn fn, void *ctx);

/*
 * For a datagram skin_ropframe_parse() found OK: call fn for each of its
 * CAN frames, in order (the receiver checks who sent it in between).
 */
void skin_ropframe_emit(const void *buf, size_t len, skin_eth_can_fn fn,
			void *ctx);

/*
 * Writing a ropframe into a caller's buffer, the way a board lays it out
 * (data, then signature, then time; padding zeroed):
 *
 *	struct skin_ropframe_writer w;
 *	skin_ropframe_begin(&w, buf, sizeof(buf), age_us, seq);
 *	skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG, id32, data, n, 0, 0);
 *	skin_ropframe_add_skin(&w, 0, patch, frames, n_frames, 0, 0);
 *	len = skin_ropframe_end(&w);	(0: the buffer was too small)
 */
struct skin_ropframe_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	unsigned int n_rops;
	bool overflow;
};

void skin_ropframe_begin(struct skin_ropframe_writer *w, void *buf,
			 size_t cap, uint64_t age_us, uint64_t seq);
/* One ROP: ctrl as it goes on the wire (its +sign/+time bits say whether
 * sign and time are written), data of dsiz bytes (written only when the
 * opcode and ctrl call for a data field, as the boards' parser reads). */
void skin_ropframe_add_rop(struct skin_ropframe_writer *w, uint8_t ctrl,
			   uint8_t opcode, uint32_t id32, const void *data,
			   uint16_t dsiz, uint32_t sign, uint64_t time);
/* A sig ROP of the skin's array of CAN data for patch (at most 24
 * frames), of its full size (244 bytes), as the boards send it. */
void skin_ropframe_add_skin(struct skin_ropframe_writer *w, uint8_t ctrl,
			    uint8_t patch, const struct skin_eth_can *frames,
			    unsigned int n, uint32_t sign, uint64_t time);
/* The footer and the header's sizes: the datagram's length, or 0 when
 * something did not fit (or more than 24 frames were given). */
size_t skin_ropframe_end(struct skin_ropframe_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* SKIN_ROPFRAME_H */
