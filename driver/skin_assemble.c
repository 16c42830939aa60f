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
 * The caller serialises all calls on one struct skin_asm and publishes:
 *
 *	verdict = skin_asm_check(a, cf, is_fd, &h);
 *	if (skin_verdict_accepted(verdict)) {
 *		if (skin_asm_is_repeat(a, &h))
 *			publish(SKIN_FRAME_REPEAT);
 *		skin_asm_apply(a, &h, now);
 *		if (skin_asm_complete(a))
 *			publish(0);
 *	}
 *
 * where publish(flags) is skin_asm_fill() into a slot of skin_ring_begin()
 * and skin_ring_commit().
 *
 * Portable: see skin_core.h.
 */
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
enum skin_rx_verdict skin_asm_check(const struct skin_asm *a,
				    const struct can_frame *cf, bool is_fd,
				    struct skin_half *half)
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

/**
 * skin_asm_apply() - take the values of an accepted half
 * @a: the assembler
 * @h: an accepted half of this patch, not a repeat
 * @ts: its time of arrival, ns
 */
void skin_asm_apply(struct skin_asm *a, const struct skin_half *h, u64 ts)
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
u16 skin_asm_fill(struct skin_asm *a, struct skin_frame *f, u16 flags)
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
