// SPDX-License-Identifier: GPL-2.0
/*
 * skin_assemble_test.c - KUnit suite for assembly and publication
 *
 * Drives skin_asm_rx() and skin_asm_timeout(), the receive sequence of
 * skin_can_rx() and of the timer, over a small ring, and checks every
 * frame published (complete, repeated half, timeout, partial), what each
 * call leaves to its caller (arm the timer, wake the readers) and the
 * counters in the control page.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/can/error.h>

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
	unsigned int todo;	/* what the last call left to its caller */
};

static u64 asm_test_stat(struct asm_test *t, unsigned int stat)
{
	return t->ring.ctrl->stats[stat];
}

/*
 * One CAN frame through skin_asm_rx(); returns its verdict, the one
 * counter of enum skin_rx_verdict that the frame increased.
 */
static int asm_test_rx(struct kunit *test, struct asm_test *t,
		       const struct can_frame *cf, u64 ts)
{
	u64 before[SKIN_RX_NR];
	int v, verdict = -1;

	for (v = 0; v < SKIN_RX_NR; v++)
		before[v] = asm_test_stat(t, v);
	t->todo = skin_asm_rx(&t->a, &t->ring, cf, false, ts);
	for (v = 0; v < SKIN_RX_NR; v++) {
		if (asm_test_stat(t, v) == before[v])
			continue;
		KUNIT_EXPECT_EQ(test, asm_test_stat(t, v), before[v] + 1);
		KUNIT_EXPECT_EQ(test, verdict, -1);
		verdict = v;
	}
	return verdict;
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
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 100),
			SKIN_RX_HEAD);
	KUNIT_EXPECT_EQ(test, t->todo, SKIN_ASM_ARM);	/* the first half */
	cf = tail_frame(2, 50, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 200),
			SKIN_RX_TAIL);
	KUNIT_EXPECT_EQ(test, t->todo, 0);
	cf = head_frame(2, 50);
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 300),
			SKIN_RX_HEAD);
	KUNIT_EXPECT_EQ(test, t->todo, 0);
	asm_test_no_frame(test, t);		/* triangle 0's tail missing */
	cf = tail_frame(0, 10, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 400),
			SKIN_RX_TAIL);
	KUNIT_EXPECT_EQ(test, t->todo, SKIN_ASM_WAKE);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_RX_HEAD), 2);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_RX_TAIL), 2);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_FRAMES), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_PARTIAL), 0);
	/* a timer that finds the sample published does nothing */
	KUNIT_EXPECT_EQ(test, skin_asm_timeout(&t->a, &t->ring), 0);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_TIMEOUTS), 0);

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
	asm_test_rx(test, t, &cf, 1);
	cf = tail_frame(0, 10, 0);
	asm_test_rx(test, t, &cf, 2);
	cf = head_frame(1, 30);
	asm_test_rx(test, t, &cf, 3);
	/* triangle 1's tail is lost; the next period begins */
	cf = head_frame(0, 20);
	asm_test_rx(test, t, &cf, 4);
	/* published, and the repeated half begins a sample */
	KUNIT_EXPECT_EQ(test, t->todo, SKIN_ASM_WAKE | SKIN_ASM_ARM);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_REPEATS), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_FRAMES), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_PARTIAL), 1);

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
	asm_test_rx(test, t, &cf, 5);
	cf = head_frame(1, 40);
	asm_test_rx(test, t, &cf, 6);
	cf = tail_frame(1, 40, 0);
	asm_test_rx(test, t, &cf, 7);
	KUNIT_EXPECT_EQ(test, t->todo, SKIN_ASM_WAKE);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_REPEATS), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_FRAMES), 2);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_PARTIAL), 1);
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
	KUNIT_EXPECT_EQ(test, skin_asm_timeout(&t->a, &t->ring), 0);
	asm_test_no_frame(test, t);
	cf = head_frame(15, 99);
	asm_test_rx(test, t, &cf, 11);
	KUNIT_EXPECT_EQ(test, t->todo, SKIN_ASM_ARM);
	KUNIT_EXPECT_TRUE(test, skin_asm_pending(&t->a));
	KUNIT_EXPECT_FALSE(test, skin_asm_complete(&t->a));

	/* the timer of skin_can_timeout() */
	KUNIT_EXPECT_EQ(test, skin_asm_timeout(&t->a, &t->ring), SKIN_ASM_WAKE);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_FRAMES), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_PARTIAL), 1);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_TIMEOUT | SKIN_FRAME_PARTIAL);
	KUNIT_EXPECT_EQ(test, f->refreshed, 0);
	KUNIT_EXPECT_EQ(test, f->timestamp_ns, 11);
	KUNIT_EXPECT_EQ(test, f->values[15 * SKIN_CHANNELS + 6], 105);
	/* values persist into later frames */
	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	cf = tail_frame(15, 99, 0);
	asm_test_rx(test, t, &cf, 12);
	KUNIT_EXPECT_EQ(test, t->todo, SKIN_ASM_ARM);
	KUNIT_EXPECT_EQ(test, skin_asm_timeout(&t->a, &t->ring), SKIN_ASM_WAKE);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_TIMEOUTS), 2);
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
	asm_test_rx(test, t, &cf, 1);
	cf = tail_frame(0, 1, 0x8002);		/* ch 11 out of range, n.c. */
	asm_test_rx(test, t, &cf, 2);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_DIAG), 1);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_DIAG);
	KUNIT_EXPECT_EQ(test, f->diag[0], 0x8002);
	KUNIT_EXPECT_EQ(test, f->diag_valid, 0x0001);

	/* a 6-byte tail keeps the last diagnostics word */
	cf = head_frame(0, 1);
	asm_test_rx(test, t, &cf, 3);
	cf = tail_frame(0, 1, 0);
	cf.len = 6;
	asm_test_rx(test, t, &cf, 4);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_DIAG), 1);
	f = asm_test_frame(test, t);
	KUNIT_EXPECT_EQ(test, f->diag[0], 0x8002);
	KUNIT_EXPECT_EQ(test, f->flags, SKIN_FRAME_DIAG);
}

static void skin_asm_rejects_foreign(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x0001);
	struct can_frame cf;

	cf = head_frame(1, 1);			/* triangle not enabled */
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 1),
			SKIN_RX_BAD_TRIANGLE);
	cf = head_frame(0, 1);
	cf.can_id = SKIN_DATA_ID(SKIN_CLASS_DATA, 3, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 1),
			SKIN_RX_BAD_BOARD);
	cf.can_id = SKIN_DATA_ID(SKIN_CLASS_DATA_OLD, TEST_BOARD, 0);
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 1),
			SKIN_RX_BAD_CLASS);
	cf = head_frame(0, 1);
	cf.len = 5;
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 1),
			SKIN_RX_BAD_DLC);
	KUNIT_EXPECT_EQ(test, t->todo, 0);
	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	KUNIT_EXPECT_EQ(test, t->a.values[0], 0xf0);
	asm_test_no_frame(test, t);
}

static void skin_asm_error_frames(struct kunit *test)
{
	struct asm_test *t = asm_test_new(test, 0x0001);
	struct can_frame cf = {
		.can_id = CAN_ERR_FLAG | CAN_ERR_BUSOFF,
		.len = CAN_ERR_DLC,
	};

	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 1),
			SKIN_RX_ERR_FRAME);
	KUNIT_EXPECT_EQ(test, t->todo, 0);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_BUS_OFF), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_BUS_ERROR), 0);
	cf.can_id = CAN_ERR_FLAG | CAN_ERR_PROT;
	KUNIT_EXPECT_EQ(test, asm_test_rx(test, t, &cf, 2),
			SKIN_RX_ERR_FRAME);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_BUS_OFF), 1);
	KUNIT_EXPECT_EQ(test, asm_test_stat(t, SKIN_STAT_BUS_ERROR), 1);
	KUNIT_EXPECT_FALSE(test, skin_asm_pending(&t->a));
	asm_test_no_frame(test, t);
}

static struct kunit_case skin_asm_cases[] = {
	KUNIT_CASE(skin_asm_complete_frame),
	KUNIT_CASE(skin_asm_repeat_publishes_partial),
	KUNIT_CASE(skin_asm_timeout_publishes_partial),
	KUNIT_CASE(skin_asm_diagnostics),
	KUNIT_CASE(skin_asm_rejects_foreign),
	KUNIT_CASE(skin_asm_error_frames),
	{}
};

static struct kunit_suite skin_asm_suite = {
	.name = "skin_assemble",
	.test_cases = skin_asm_cases,
};

kunit_test_suite(skin_asm_suite);
