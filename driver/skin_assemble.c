// SPDX-License-Identifier: GPL-2.0
/*
 * skin_assemble.c - assemble a board's head and tail frames into samples
 *
 * A board sends, every period, a head and a tail frame for each enabled
 * triangle, in no promised order.  A sample is published when every enabled
 * triangle has delivered both halves since the last publication.  When a
 * half arrives that is already pending, a frame was lost (or the board's
 * period restarted): what is pending is published first, as a partial
 * sample, and the half starts the next one.  A timer of the caller's
 * (1.5 periods) publishes whatever is pending when the board goes quiet.
 *
 * skin_asm_rx() is the whole receive sequence of one frame, written once
 * for every receive path: the driver's (driver/skin_can.c), the board
 * simulator's ring files (lib/sim/ring_file.c), skinctl's replay of a CAN log
 * and the core's benchmark.  It publishes into the patch's ring and counts
 * in the ring's control page; what it leaves to its caller is the lock, the
 * clock, the timer and waking the readers.  The caller serialises all calls
 * on one assembler and its ring.
 *
 * Portable: see skin_core.h.
 */
#include <linux/can/error.h>

#include "skin_core.h"

/**
 * skin_asm_init() - start assembling for a configured patch
 * @a: the assembler
 * @cfg: the patch's configuration, valid (skin_patch_config_check())
 *
 * Every channel starts at the board's noLoad value, what an unloaded taxel
 * reads, so that a sample published before a triangle first reports shows
 * "no pressure" for it rather than full pressure.
 */
void skin_asm_init(struct skin_asm *a, const struct skin_patch_config *cfg)
{
	memset(a, 0, sizeof(*a));
	a->enabled = cfg->triangles;
	a->cls = cfg->cls;
	a->address = cfg->address;
	memset(a->values, cfg->no_load, sizeof(a->values));
}

/*
 * The steps of skin_asm_rx(), each called once there and inlined by the
 * compiler: a frame costs one call into the core and one into
 * skin_decode().
 */

/**
 * skin_asm_check() - decode a frame and check that it is for this patch
 * @a: the assembler
 * @cf: the frame
 * @is_fd: the frame arrived as CAN FD
 * @half: the decoded half, valid when the verdict is accepted
 *
 * The driver's receive filters pass only the patch's class and board, so
 * the class and board checks guard against a filter that is wider than
 * meant; the triangle check catches a board whose triangle configuration
 * differs from ours.
 *
 * Return: the verdict.
 */
static enum skin_rx_verdict
skin_asm_check(const struct skin_asm *a, const struct can_frame *cf,
	       bool is_fd, struct skin_half *half)
{
	enum skin_rx_verdict verdict = skin_decode(cf, is_fd, half);

	if (!skin_verdict_accepted(verdict))
		return verdict;
	if (half->cls != a->cls)
		return SKIN_RX_BAD_CLASS;
	if (half->board != a->address)
		return SKIN_RX_BAD_BOARD;
	if (!(a->enabled & (1U << half->triangle)))
		return SKIN_RX_BAD_TRIANGLE;
	return verdict;
}

/* Whether an accepted half is already pending: publish before applying it. */
static bool skin_asm_is_repeat(const struct skin_asm *a,
			       const struct skin_half *h)
{
	u16 have = h->tail ? a->have_tail : a->have_head;

	return have & (1U << h->triangle);
}

/**
 * skin_asm_apply() - take the values of an accepted half
 * @a: the assembler
 * @h: an accepted half of this patch, not a repeat
 * @ts: its time of arrival, ns
 */
static void skin_asm_apply(struct skin_asm *a, const struct skin_half *h,
			   u64 ts)
{
	u8 *v = &a->values[h->triangle * SKIN_CHANNELS + h->first_channel];
	u16 bit = 1U << h->triangle;

	if (h->tail) {
		memcpy(v, h->values, SKIN_TAIL_CHANNELS);
		a->have_tail |= bit;
		if (h->has_diag) {
			a->diag[h->triangle] = h->diag;
			a->diag_valid |= bit;
		}
	} else {
		memcpy(v, h->values, SKIN_HEAD_CHANNELS);
		a->have_head |= bit;
	}
	a->last_ts = ts;
}

/**
 * skin_asm_fill() - write the pending sample into a frame and start anew
 * @a: the assembler
 * @f: the frame, a ring slot from skin_ring_begin(); @f->seq is not touched
 * @flags: SKIN_FRAME_REPEAT or SKIN_FRAME_TIMEOUT when that is the cause
 *
 * Return: the frame's flags.  SKIN_FRAME_PARTIAL is added when some enabled
 * triangle did not deliver both halves, SKIN_FRAME_DIAG when a triangle's
 * last diagnostics word is not 0.
 */
static u16 skin_asm_fill(struct skin_asm *a, struct skin_frame *f, u16 flags)
{
	u16 refreshed = a->have_head & a->have_tail;
	unsigned int t;

	if (refreshed != a->enabled)
		flags |= SKIN_FRAME_PARTIAL;
	for (t = 0; t < SKIN_TRIANGLES; t++) {
		if (a->diag[t]) {
			flags |= SKIN_FRAME_DIAG;
			break;
		}
	}
	f->timestamp_ns = a->last_ts;
	f->refreshed = refreshed;
	f->flags = flags;
	f->diag_valid = a->diag_valid;
	f->reserved = 0;
	memcpy(f->diag, a->diag, sizeof(f->diag));
	memcpy(f->values, a->values, sizeof(f->values));
	memset(f->pad, 0, sizeof(f->pad));
	a->have_head = 0;
	a->have_tail = 0;
	return flags;
}

/* The pending sample, into the ring. */
static void skin_asm_publish(struct skin_asm *a, struct skin_ring *r,
			     u16 flags)
{
	struct skin_frame *slot = skin_ring_begin(r);

	flags = skin_asm_fill(a, slot, flags);
	skin_ring_commit(r, slot);
	skin_ring_stat_inc(r, SKIN_STAT_FRAMES);
	if (flags & SKIN_FRAME_PARTIAL)
		skin_ring_stat_inc(r, SKIN_STAT_PARTIAL);
}

/**
 * skin_asm_rx() - one received frame, from check to publication
 * @a: the assembler
 * @r: the patch's ring, whose control page holds the counters
 * @cf: the frame, as the patch's receive filters pass it: its board's data
 *	frames and error frames
 * @is_fd: the frame arrived as CAN FD
 * @ts: its time of arrival, ns
 *
 * Counts the frame's verdict (and, for an error frame, bus-off or bus
 * error).  An accepted half that is already pending publishes the pending
 * sample first, flagged SKIN_FRAME_REPEAT; a sample that the half makes
 * complete is published at once.  A frame publishes at most one sample:
 * after a repeat, one half is pending, and a sample needs two.
 *
 * Return: SKIN_ASM_WAKE when a sample was published, SKIN_ASM_ARM when
 * the half is the first of a sample (the caller arms its timer, which
 * calls skin_asm_timeout() 1.5 periods later; a complete sample does not
 * disarm it, as a timer that finds nothing pending does nothing); or 0.
 */
unsigned int skin_asm_rx(struct skin_asm *a, struct skin_ring *r,
			 const struct can_frame *cf, bool is_fd, u64 ts)
{
	enum skin_rx_verdict verdict;
	unsigned int todo = 0;
	struct skin_half h;

	verdict = skin_asm_check(a, cf, is_fd, &h);
	skin_ring_stat_inc(r, verdict);
	if (verdict == SKIN_RX_ERR_FRAME) {
		skin_ring_stat_inc(r, cf->can_id & CAN_ERR_BUSOFF ?
				   SKIN_STAT_BUS_OFF : SKIN_STAT_BUS_ERROR);
		return 0;
	}
	if (!skin_verdict_accepted(verdict))
		return 0;
	if (h.diag)
		skin_ring_stat_inc(r, SKIN_STAT_DIAG);
	if (skin_asm_is_repeat(a, &h)) {
		skin_asm_publish(a, r, SKIN_FRAME_REPEAT);
		skin_ring_stat_inc(r, SKIN_STAT_REPEATS);
		todo = SKIN_ASM_WAKE;
	}
	if (!skin_asm_pending(a))
		todo |= SKIN_ASM_ARM;
	skin_asm_apply(a, &h, ts);
	if (skin_asm_complete(a)) {
		skin_asm_publish(a, r, 0);
		todo |= SKIN_ASM_WAKE;
	}
	return todo;
}

/**
 * skin_asm_timeout() - the timer of a sample that did not complete
 * @a: the assembler
 * @r: the patch's ring
 *
 * Publishes what is pending, flagged SKIN_FRAME_TIMEOUT; nothing when the
 * sample completed (or was published on a repeat) meanwhile.
 *
 * Return: SKIN_ASM_WAKE when a sample was published, else 0.
 */
unsigned int skin_asm_timeout(struct skin_asm *a, struct skin_ring *r)
{
	if (!skin_asm_pending(a))
		return 0;
	skin_asm_publish(a, r, SKIN_FRAME_TIMEOUT);
	skin_ring_stat_inc(r, SKIN_STAT_TIMEOUTS);
	return SKIN_ASM_WAKE;
}
