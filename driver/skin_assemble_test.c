// SPDX-License-Identifier: GPL-2.0
/*
 * skin_assemble_test.c - KUnit suite for assembly and publication
 *
 * Drives the assembler the way skin_can_rx() and the timer do (see the
 * sequence at the top of skin_assemble.c) over a small ring, and checks
 * every frame published: complete, repeated half, timeout, partial.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "skin_core.h"

#define TEST_BOARD	14
#define TEST_LOG2	3

struct asm_test {
	struct skin_patch_config cfg;
	struct skin_asm a;
	struct skin_ring ring;
	void *mem;
	u64 next;		/* reader position */
	u64 lost;
	unsigned int repeats;
};

static void asm_test_publish(struct asm_test *t, u16 flags)
{
	struct skin_frame *slot = skin_ring_begin(&t->ring);

	skin_asm_fill(&t->a, slot, flags);
	skin_ring_commit(&t->ring, slot);
}

/* One CAN frame through the receive sequence; returns its verdict. */
static enum skin_rx_verdict asm_test_rx(struct asm_test *t,
					const struct can_frame *cf, u64 ts)
{
	enum skin_rx_verdict v;
	struct skin_half h;

	v = skin_asm_check(&t->a, cf, false, &h);
	if (!skin_verdict_accepted(v))
		return v;
	if (skin_asm_is_repeat(&t->a, &h)) {
		asm_test_publish(t, SKIN_FRAME_REPEAT);
		t->repeats++;
	}
	skin_asm_apply(&t->a, &h, ts);
	if (skin_asm_complete(&t->a))
		asm_test_publish(t, 0);
	return v;
}

static struct can_frame head_frame(unsigned int tri, u8 base)
{
	struct can_frame cf = {
		.can_id = SKIN_DATA_ID(SKIN_CLASS_DATA, TEST_BOARD, tri),
		.len = 8,
	};
	unsigned int i;

	cf.data[0] = SKIN_BYTE0_HEAD;
	for (i = 0; i < 7; i++)
		cf.data[1 + i] = base + i;
	return cf;
}

static struct can_frame tail_frame(unsigned int tri, u8 base, u16 diag)
{
	struct can_frame cf = {
		.can_id = SKIN_DATA_ID(SKIN_CLASS_DATA, TEST_BOARD, tri),
		.len = 8,
	};
	unsigned int i;

	cf.data[0] = SKIN_BYTE0_TAIL;
	for (i = 0; i < 5; i++)
		cf.data[1 + i] = base + 7 + i;
	cf.data[6] = diag >> 8;
	cf.data[7] = diag & 0xff;
	return cf;
}

static struct asm_test *asm_test_new(struct kunit *test, u16 triangles)
{
	struct asm_test *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	skin_patch_config_default(&t->cfg);
	strscpy(t->cfg.ifname, "vcan0", sizeof(t->cfg.ifname));
	t->cfg.address = TEST_BOARD;
	t->cfg.triangles = triangles;
	t->mem = kunit_kzalloc(test, PAGE_SIZE + (sizeof(struct skin_frame)
						   << TEST_LOG2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->mem);
	skin_ring_init(&t->ring, t->mem, PAGE_SIZE, TEST_LOG2);
	skin_asm_init(&t->a, &t->cfg);
	t->next = 1;
	return t;
}

/* The next frame a reader gets, or fail the test. */
static struct skin_frame *asm_test_frame(struct kunit *test,
					 struct asm_test *t)
{
	struct skin_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_EQ(test, skin_ring_read(t->ring.ctrl, t->ring.slots,
					     &t->next, f, &t->lost),
			SKIN_RING_FRAME);
	return f;
}

static void asm_test_no_frame(struct kunit *test, struct asm_test *t)
{
	struct skin_frame f;

	KUNIT_EXPECT_EQ(test, skin_ring_read(t->ring.ctrl, t->ring.slots,
					     &t->next, &f, &t->lost),
			SKIN_RING_EMPTY);
}

static void skin_asm_complete_frame(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x0005);	/* 0 and 2 */
	struct can_frame cf;
	struct skin_frame *f;
	unsigned int c;

	cf = head_frame(0, 10);
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 100), SKIN_RX_HEAD);
	cf = tail_frame(2, 50, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 200), SKIN_RX_TAIL);
	cf = head_frame(2, 50);
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 300), SKIN_RX_HEAD);
	asm_test_no_frame(test, t);		/* triangle 0's tail missing */
	cf = tail_frame(0, 10, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 400), SKIN_RX_TAIL);

	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->seq, 1);
	KUNIT_EXPECT_EQ(test, f->timestamp_ns, 400);
	KUNIT_EXPECT_EQ(test, f->refreshed, 0x0005);
	KUNIT_EXPECT_EQ(test, f->flags, 0);
	KUNIT_EXPECT_EQ(test, f->diag_valid, 0x0005);
	for (c = 0; c < SKIN_CHANNELS; c++) {
		KUNIT_EXPECT_EQ(test, f->values[c], 10 + c);
		KUNIT_EXPECT_EQ(test, f->values[2 * SKIN_CHANNELS + c], 50 + c);
		/* triangle 1 is not enabled: noLoad */
		KUNIT_EXPECT_EQ(test, f->values[SKIN_CHANNELS + c], 0xf0);
	}
	KUNIT_EXPECT_EQ(test, t->ring.ctrl->head, 1);
	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	asm_test_no_frame(test, t);
	KUNIT_EXPECT_EQ(test, t->lost, 0);
}

static void skin_asm_repeat_publishes_partial(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x0003);
	struct can_frame cf;
	struct skin_frame *f;

	cf = head_frame(0, 10);
	asm_test_rx(t, &cf, 1);
	cf = tail_frame(0, 10, 0);
	asm_test_rx(t, &cf, 2);
	cf = head_frame(1, 30);
	asm_test_rx(t, &cf, 3);
	/* triangle 1's tail is lost; the next period begins */
	cf = head_frame(0, 20);
	asm_test_rx(t, &cf, 4);
	KUNIT_EXPECT_EQ(test, t->repeats, 1);

	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->seq, 1);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_REPEAT | SKIN_FRAME_PARTIAL);
	KUNIT_EXPECT_EQ(test, f->refreshed, 0x0001);
	KUNIT_EXPECT_EQ(test, f->timestamp_ns, 3);
	KUNIT_EXPECT_EQ(test, f->values[0], 10);	/* before the repeat */
	KUNIT_EXPECT_EQ(test, f->values[SKIN_CHANNELS], 30);
	/* triangle 1's tail channels never came: noLoad */
	KUNIT_EXPECT_EQ(test, f->values[SKIN_CHANNELS + 7], 0xf0);

	/* The repeated head starts the next sample. */
	cf = tail_frame(0, 20, 0);
	asm_test_rx(t, &cf, 5);
	cf = head_frame(1, 40);
	asm_test_rx(t, &cf, 6);
	cf = tail_frame(1, 40, 0);
	asm_test_rx(t, &cf, 7);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->seq, 2);
	KUNIT_EXPECT_EQ(test, f->flags, 0);
	KUNIT_EXPECT_EQ(test, f->refreshed, 0x0003);
	KUNIT_EXPECT_EQ(test, f->values[0], 20);
	KUNIT_EXPECT_EQ(test, f->values[SKIN_CHANNELS + 7], 47);
}

static void skin_asm_timeout_publishes_partial(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x8001);
	struct can_frame cf;
	struct skin_frame *f;

	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	cf = head_frame(15, 99);
	asm_test_rx(t, &cf, 11);
	KUNIT_EXPECT_TRUE(test, skin_asm_pending(&t->a));
	KUNIT_EXPECT_FALSE(test, skin_asm_complete(&t->a));

	/* what skin_can_timeout() does */
	asm_test_publish(t, SKIN_FRAME_TIMEOUT);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_TIMEOUT | SKIN_FRAME_PARTIAL);
	KUNIT_EXPECT_EQ(test, f->refreshed, 0);
	KUNIT_EXPECT_EQ(test, f->timestamp_ns, 11);
	KUNIT_EXPECT_EQ(test, f->values[15 * SKIN_CHANNELS + 6], 105);
	/* values persist into later frames */
	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	cf = tail_frame(15, 99, 0);
	asm_test_rx(t, &cf, 12);
	asm_test_publish(t, SKIN_FRAME_TIMEOUT);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->values[15 * SKIN_CHANNELS + 6], 105);
	KUNIT_EXPECT_EQ(test, f->values[15 * SKIN_CHANNELS + 11], 110);
}

static void skin_asm_diagnostics(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x0001);
	struct can_frame cf;
	struct skin_frame *f;

	cf = head_frame(0, 1);
	asm_test_rx(t, &cf, 1);
	cf = tail_frame(0, 1, 0x8002);		/* ch 11 out of range, n.c. */
	asm_test_rx(t, &cf, 2);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_DIAG);
	KUNIT_EXPECT_EQ(test, f->diag[0], 0x8002);
	KUNIT_EXPECT_EQ(test, f->diag_valid, 0x0001);

	/* a 6-byte tail keeps the last diagnostics word */
	cf = head_frame(0, 1);
	asm_test_rx(t, &cf, 3);
	cf = tail_frame(0, 1, 0);
	cf.len = 6;
	asm_test_rx(t, &cf, 4);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->diag[0], 0x8002);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_DIAG);
}

static void skin_asm_rejects_foreign(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x0001);
	struct can_frame cf;

	cf = head_frame(1, 1);			/* triangle not enabled */
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 1), SKIN_RX_BAD_TRIANGLE);
	cf = head_frame(0, 1);
	cf.can_id = SKIN_DATA_ID(SKIN_CLASS_DATA, 3, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 1), SKIN_RX_BAD_BOARD);
	cf.can_id = SKIN_DATA_ID(SKIN_CLASS_DATA_OLD, TEST_BOARD, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 1), SKIN_RX_BAD_CLASS);
	cf = head_frame(0, 1);
	cf.len = 5;
	KUNIT_EXPECT_EQ(test, asm_test_rx(t, &cf, 1), SKIN_RX_BAD_DLC);
	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	KUNIT_EXPECT_EQ(test, t->a.values[0], 0xf0);
}

static struct kunit_case skin_asm_cases[] = {
	KUNIT_CASE(skin_asm_complete_frame),
	KUNIT_CASE(skin_asm_repeat_publishes_partial),
	KUNIT_CASE(skin_asm_timeout_publishes_partial),
	KUNIT_CASE(skin_asm_diagnostics),
	KUNIT_CASE(skin_asm_rejects_foreign),
	{}
};

static struct kunit_suite skin_asm_suite = {
	.name = "skin_assemble",
	.test_cases = skin_asm_cases,
};

kunit_test_suite(skin_asm_suite);
