// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * skin_ring.c - the frame ring shared with user space, both sides
 *
 * One writer (the patch's receive path, serialised by the caller), any
 * number of lock-free readers: the kernel's read() and user space through
 * mmap().  The writer never waits for a reader; a reader detects that it was
 * lapped from the per-slot sequence numbers.  The ordering contract is
 * written down in <linux/skin.h>, next to struct skin_ring_ctrl.
 *
 * Portable: see skin_core.h.
 */
#include "skin_core.h"

/**
 * skin_ring_init() - lay out a ring in zeroed memory
 * @r: the writer's handle
 * @mem: the memory: the control page, then the frames; zeroed
 * @data_offset: offset of the frames, the page size when mapped
 * @count_log2: the ring holds 1 << @count_log2 frames
 *
 * The caller fills the patch identity in the control page.
 */
void skin_ring_init(struct skin_ring *r, void *mem, u32 data_offset,
		    unsigned int count_log2)
{
	struct skin_ring_ctrl *ctrl = mem;
	u32 count = 1U << count_log2;

	ctrl->magic = SKIN_RING_MAGIC;
	ctrl->abi_version = SKIN_ABI_VERSION;
	ctrl->frame_size = sizeof(struct skin_frame);
	ctrl->frame_count_log2 = count_log2;
	ctrl->frame_count = count;
	ctrl->data_offset = data_offset;
	ctrl->data_size = (u64)count * sizeof(struct skin_frame);
	ctrl->head = 0;

	r->ctrl = ctrl;
	r->slots = (struct skin_frame *)((u8 *)mem + data_offset);
	r->mask = count - 1;
	r->head = 0;
}

/**
 * skin_ring_begin() - claim the slot of the next frame
 * @r: the ring
 *
 * The slot's sequence number is 0 from here until skin_ring_commit(), so a
 * reader copying the frame it held sees the overwrite.
 *
 * Return: the slot, to be filled (all but ->seq) and committed.
 */
struct skin_frame *skin_ring_begin(struct skin_ring *r)
{
	struct skin_frame *slot = &r->slots[(r->head + 1) & r->mask];

	WRITE_ONCE(slot->seq, 0);
	smp_wmb();	/* seq = 0 before the frame's new contents */
	return slot;
}

/**
 * skin_ring_commit() - publish the frame of skin_ring_begin()
 * @r: the ring
 * @slot: the slot skin_ring_begin() returned, filled
 */
void skin_ring_commit(struct skin_ring *r, struct skin_frame *slot)
{
	u64 seq = ++r->head;

	/* the frame's contents before its sequence number ... */
	smp_store_release(&slot->seq, seq);
	/* ... and the slot's sequence number before the head */
	smp_store_release(&r->ctrl->head, seq);
}

/**
 * skin_ring_read() - copy the next frame a reader has not seen
 * @ctrl: the ring's control page
 * @slots: the ring's frames
 * @next: the reader's position: the sequence number it wants next (1 for the
 *	first frame ever, head + 1 for the next new one); advanced past the
 *	frame returned, and past the frames lost
 * @out: the frame, when one is returned
 * @lost: increased by the number of frames the writer overwrote before the
 *	reader could copy them
 *
 * Return: SKIN_RING_FRAME with *@out filled, or SKIN_RING_EMPTY when the
 * reader is up to date.
 */
enum skin_ring_status skin_ring_read(const struct skin_ring_ctrl *ctrl,
				     const struct skin_frame *slots,
				     u64 *next, struct skin_frame *out,
				     u64 *lost)
{
	u32 count = ctrl->frame_count;

	for (;;) {
		/* pairs with the head's store-release in skin_ring_commit() */
		u64 head = smp_load_acquire(&ctrl->head);
		u64 oldest = head >= count ? head - count + 1 : 1;
		const struct skin_frame *slot;
		u64 s1, s2;

		if (*next == 0)
			*next = 1;
		if (*next > head)
			return SKIN_RING_EMPTY;
		if (*next < oldest) {
			*lost += oldest - *next;
			*next = oldest;
		}

		slot = &slots[*next & (count - 1)];
		/* pairs with the slot's store-release in skin_ring_commit() */
		s1 = smp_load_acquire(&slot->seq);
		if (s1 == *next) {
			memcpy(out, slot, sizeof(*out));
			smp_rmb();	/* the copy before the second look */
			s2 = READ_ONCE(slot->seq);
			if (s2 == *next) {
				out->seq = s2;
				(*next)++;
				return SKIN_RING_FRAME;
			}
		}
		/*
		 * Lapped: the slot holds (or is receiving) a frame at least
		 * one ring newer.  Frame *next is gone; the head moved past
		 * it, so the next round skips to the oldest frame left.
		 */
		(*lost)++;
		(*next)++;
	}
}
