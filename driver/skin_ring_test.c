// SPDX-License-Identifier: GPL-2.0
/*
 * skin_ring_test.c - KUnit suite for the ring: publication, and the
 * reader's detection of frames overwritten before or while it copies them
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "skin_core.h"

#define RING_LOG2	3
#define RING_COUNT	BIT(RING_LOG2)

static struct skin_ring *ring_new(struct kunit *test)
{
	struct skin_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	void *mem = kunit_kzalloc(test, PAGE_SIZE +
				  RING_COUNT * sizeof(struct skin_frame),
				  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, mem);
	skin_ring_init(r, mem, PAGE_SIZE, RING_LOG2);
	return r;
}

/* Publish a frame whose values all equal its sequence number's low byte. */
static void ring_put(struct skin_ring *r)
{
	struct skin_frame *slot = skin_ring_begin(r);

	memset(slot->values, (u8)(r->head + 1), sizeof(slot->values));
	slot->timestamp_ns = r->head + 1;
	skin_ring_commit(r, slot);
}

static enum skin_ring_status ring_get(struct skin_ring *r, u64 *next,
				      struct skin_frame *f, u64 *lost)
{
	return skin_ring_read(r->ctrl, r->slots, next, f, lost);
}

static void skin_ring_layout(struct kunit *test)
{
	struct skin_ring *r = ring_new(test);
	struct skin_ring_ctrl *c = r->ctrl;

	KUNIT_EXPECT_EQ(test, sizeof(struct skin_frame), 256);
	KUNIT_EXPECT_LE(test, sizeof(struct skin_ring_ctrl), 4096);
	KUNIT_EXPECT_EQ(test, c->magic, SKIN_RING_MAGIC);
	KUNIT_EXPECT_EQ(test, c->abi_version, SKIN_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, c->frame_size, 256);
	KUNIT_EXPECT_EQ(test, c->frame_count, RING_COUNT);
	KUNIT_EXPECT_EQ(test, c->frame_count_log2, RING_LOG2);
	KUNIT_EXPECT_EQ(test, c->data_offset, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c->data_size, RING_COUNT * 256);
	KUNIT_EXPECT_EQ(test, c->head, 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)r->slots, (void *)c + PAGE_SIZE);
}

static void skin_ring_in_order(struct kunit *test)
{
	struct skin_ring *r = ring_new(test);
	struct skin_frame f;
	u64 next = 0, lost = 0, want;

	KUNIT_EXPECT_EQ(test, ring_get(r, &next, &f, &lost), SKIN_RING_EMPTY);
	for (want = 1; want <= 3 * RING_COUNT; want++) {
		ring_put(r);
		KUNIT_EXPECT_EQ(test, r->ctrl->head, want);
		KUNIT_ASSERT_EQ(test, ring_get(r, &next, &f, &lost),
				SKIN_RING_FRAME);
		KUNIT_EXPECT_EQ(test, f.seq, want);
		KUNIT_EXPECT_EQ(test, f.values[191], (u8)want);
		KUNIT_EXPECT_EQ(test, f.timestamp_ns, want);
		KUNIT_EXPECT_EQ(test, ring_get(r, &next, &f, &lost),
				SKIN_RING_EMPTY);
	}
	KUNIT_EXPECT_EQ(test, lost, 0);
}

static void skin_ring_lapped_reader(struct kunit *test)
{
	struct skin_ring *r = ring_new(test);
	struct skin_frame f;
	u64 next = 1, lost = 0, want;
	unsigned int i;

	for (i = 0; i < RING_COUNT + 3; i++)
		ring_put(r);
	/* frames 1..3 were overwritten; 4..11 are left */
	for (want = 4; want <= RING_COUNT + 3; want++) {
		KUNIT_ASSERT_EQ(test, ring_get(r, &next, &f, &lost),
				SKIN_RING_FRAME);
		KUNIT_EXPECT_EQ(test, f.seq, want);
		KUNIT_EXPECT_EQ(test, f.values[0], (u8)want);
		KUNIT_EXPECT_EQ(test, lost, 3);
	}
	KUNIT_EXPECT_EQ(test, ring_get(r, &next, &f, &lost), SKIN_RING_EMPTY);
}

/* The writer claims the reader's slot between two of its reads. */
static void skin_ring_overwrite_in_progress(struct kunit *test)
{
	struct skin_ring *r = ring_new(test);
	struct skin_frame f, *slot;
	u64 next = 1, lost = 0, want;
	unsigned int i;

	for (i = 0; i < RING_COUNT; i++)
		ring_put(r);
	slot = skin_ring_begin(r);		/* frame 9, in frame 1's slot */
	KUNIT_EXPECT_EQ(test, slot->seq, 0);
	KUNIT_ASSERT_EQ(test, ring_get(r, &next, &f, &lost), SKIN_RING_FRAME);
	KUNIT_EXPECT_EQ(test, f.seq, 2);
	KUNIT_EXPECT_EQ(test, lost, 1);

	memset(slot->values, 9, sizeof(slot->values));
	skin_ring_commit(r, slot);
	for (want = 3; want <= RING_COUNT + 1; want++) {
		KUNIT_ASSERT_EQ(test, ring_get(r, &next, &f, &lost),
				SKIN_RING_FRAME);
		KUNIT_EXPECT_EQ(test, f.seq, want);
		KUNIT_EXPECT_EQ(test, f.values[100], (u8)want);
	}
	KUNIT_EXPECT_EQ(test, lost, 1);
}

/* A reader that starts at head + 1 sees only what comes after. */
static void skin_ring_reader_from_now(struct kunit *test)
{
	struct skin_ring *r = ring_new(test);
	struct skin_frame f;
	u64 next, lost = 0;

	ring_put(r);
	ring_put(r);
	next = r->ctrl->head + 1;
	KUNIT_EXPECT_EQ(test, ring_get(r, &next, &f, &lost), SKIN_RING_EMPTY);
	ring_put(r);
	KUNIT_ASSERT_EQ(test, ring_get(r, &next, &f, &lost), SKIN_RING_FRAME);
	KUNIT_EXPECT_EQ(test, f.seq, 3);
	KUNIT_EXPECT_EQ(test, lost, 0);
}

static struct kunit_case skin_ring_cases[] = {
	KUNIT_CASE(skin_ring_layout),
	KUNIT_CASE(skin_ring_in_order),
	KUNIT_CASE(skin_ring_lapped_reader),
	KUNIT_CASE(skin_ring_overwrite_in_progress),
	KUNIT_CASE(skin_ring_reader_from_now),
	{}
};

static struct kunit_suite skin_ring_suite = {
	.name = "skin_ring",
	.test_cases = skin_ring_cases,
};

kunit_test_suite(skin_ring_suite);
