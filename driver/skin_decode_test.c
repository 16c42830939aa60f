// SPDX-License-Identifier: GPL-2.0
/*
 * skin_decode_test.c - KUnit suite for the frame decoder
 *
 * Walks every byte 0, every length, every class and every frame flag and
 * checks the verdict of each against the protocol (docs/ICUB.md, section 1).
 */
#include <kunit/test.h>
#include <linux/can/error.h>
#include <linux/string.h>

#include "skin_core.h"

static struct can_frame skin_test_frame(u32 id, u8 len, u8 byte0)
{
	struct can_frame cf;
	unsigned int i;

	memset(&cf, 0, sizeof(cf));
	cf.can_id = id;
	cf.len = len;
	cf.data[0] = byte0;
	for (i = 1; i < CAN_MAX_DLEN; i++)
		cf.data[i] = 0x10 * i + i;	/* 0x11, 0x22, ... 0x77 */
	return cf;
}

static void skin_decode_head(struct kunit *test)
{
	struct can_frame cf = skin_test_frame(0x4e5, 8, SKIN_BYTE0_HEAD);
	struct skin_half h;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_HEAD);
	KUNIT_EXPECT_EQ(test, h.cls, SKIN_CLASS_DATA);
	KUNIT_EXPECT_EQ(test, h.board, 14);
	KUNIT_EXPECT_EQ(test, h.triangle, 5);
	KUNIT_EXPECT_FALSE(test, h.tail);
	KUNIT_EXPECT_FALSE(test, h.has_diag);
	KUNIT_EXPECT_EQ(test, h.diag, 0);
	KUNIT_EXPECT_EQ(test, h.first_channel, 0);
	KUNIT_EXPECT_EQ(test, h.nvalues, SKIN_HEAD_CHANNELS);
	for (i = 0; i < SKIN_HEAD_CHANNELS; i++)
		KUNIT_EXPECT_EQ(test, h.values[i], cf.data[1 + i]);
}

static void skin_decode_tail(struct kunit *test)
{
	struct can_frame cf = skin_test_frame(0x30f, 8, SKIN_BYTE0_TAIL);
	struct skin_half h;
	unsigned int i;

	cf.data[6] = 0x80;
	cf.data[7] = 0x12;
	KUNIT_ASSERT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_TAIL);
	KUNIT_EXPECT_EQ(test, h.cls, SKIN_CLASS_DATA_OLD);
	KUNIT_EXPECT_EQ(test, h.board, 0);
	KUNIT_EXPECT_EQ(test, h.triangle, 15);
	KUNIT_EXPECT_TRUE(test, h.tail);
	KUNIT_EXPECT_EQ(test, h.first_channel, SKIN_HEAD_CHANNELS);
	KUNIT_EXPECT_EQ(test, h.nvalues, SKIN_TAIL_CHANNELS);
	for (i = 0; i < SKIN_TAIL_CHANNELS; i++)
		KUNIT_EXPECT_EQ(test, h.values[i], cf.data[1 + i]);
	KUNIT_EXPECT_TRUE(test, h.has_diag);
	KUNIT_EXPECT_EQ(test, h.diag, 0x8012);

	/* Six bytes: the values without a diagnostics word. */
	cf.len = 6;
	KUNIT_ASSERT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_TAIL);
	KUNIT_EXPECT_FALSE(test, h.has_diag);
	KUNIT_EXPECT_EQ(test, h.diag, 0);
	for (i = 0; i < SKIN_TAIL_CHANNELS; i++)
		KUNIT_EXPECT_EQ(test, h.values[i], cf.data[1 + i]);
}

static void skin_decode_every_byte0(struct kunit *test)
{
	struct skin_half h;
	unsigned int b;

	for (b = 0; b < 256; b++) {
		struct can_frame cf = skin_test_frame(0x4a3, 8, b);
		enum skin_rx_verdict want = SKIN_RX_BAD_BYTE0;

		if (b == SKIN_BYTE0_HEAD)
			want = SKIN_RX_HEAD;
		else if (b == SKIN_BYTE0_TAIL)
			want = SKIN_RX_TAIL;
		KUNIT_EXPECT_EQ_MSG(test, skin_decode(&cf, false, &h), want,
				    "byte0 0x%02x", b);
	}
}

static void skin_decode_every_dlc(struct kunit *test)
{
	struct skin_half h;
	unsigned int len;

	for (len = 0; len <= 15; len++) {
		struct can_frame head = skin_test_frame(0x410, len,
							SKIN_BYTE0_HEAD);
		struct can_frame tail = skin_test_frame(0x410, len,
							SKIN_BYTE0_TAIL);
		struct can_frame odd = skin_test_frame(0x410, len, 0x41);

		KUNIT_EXPECT_EQ_MSG(test, skin_decode(&head, false, &h),
				    len == 8 ? SKIN_RX_HEAD : SKIN_RX_BAD_DLC,
				    "head, len %u", len);
		KUNIT_EXPECT_EQ_MSG(test, skin_decode(&tail, false, &h),
				    len == 6 || len == 8 ? SKIN_RX_TAIL :
				    SKIN_RX_BAD_DLC, "tail, len %u", len);
		/* Without a byte 0 there is nothing to tell the kind by. */
		KUNIT_EXPECT_EQ_MSG(test, skin_decode(&odd, false, &h),
				    len >= 1 && len <= 8 ? SKIN_RX_BAD_BYTE0 :
				    SKIN_RX_BAD_DLC, "byte0 0x41, len %u", len);
	}
}

static void skin_decode_every_class(struct kunit *test)
{
	struct skin_half h;
	unsigned int cls, board;

	for (cls = 0; cls < 8; cls++) {
		for (board = 0; board < 16; board++) {
			u32 id = SKIN_DATA_ID(cls, board, 15 - board);
			struct can_frame cf = skin_test_frame(id, 8,
							      SKIN_BYTE0_HEAD);
			bool data = cls == 3 || cls == 4;

			KUNIT_EXPECT_EQ_MSG(test, skin_decode(&cf, false, &h),
					    data ? SKIN_RX_HEAD :
					    SKIN_RX_BAD_CLASS, "id 0x%03x", id);
			if (data) {
				KUNIT_EXPECT_EQ(test, h.cls, cls);
				KUNIT_EXPECT_EQ(test, h.board, board);
				KUNIT_EXPECT_EQ(test, h.triangle, 15 - board);
			}
		}
	}
}

static void skin_decode_flags(struct kunit *test)
{
	struct can_frame cf = skin_test_frame(0x4e5, 8, SKIN_BYTE0_HEAD);
	struct skin_half h;

	cf.can_id = 0x4e5 | CAN_RTR_FLAG;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_BAD_RTR);
	cf.can_id = 0x4e5 | CAN_EFF_FLAG;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_BAD_EFF);
	cf.can_id = 0x4e5 | CAN_EFF_FLAG | CAN_RTR_FLAG;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_BAD_EFF);
	cf.can_id = CAN_ERR_FLAG | CAN_ERR_BUSOFF;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_ERR_FRAME);
	cf.can_id = 0x4e5;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, true, &h), SKIN_RX_BAD_FD);
	/* An error frame is an error frame whatever else it claims. */
	cf.can_id = CAN_ERR_FLAG | CAN_EFF_FLAG | CAN_RTR_FLAG;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, true, &h), SKIN_RX_ERR_FRAME);
}

static void skin_decode_reject_leaves_half(struct kunit *test)
{
	struct can_frame cf = skin_test_frame(0x4e5, 7, SKIN_BYTE0_HEAD);
	struct skin_half h, before;

	memset(&h, 0xa5, sizeof(h));
	before = h;
	KUNIT_EXPECT_EQ(test, skin_decode(&cf, false, &h), SKIN_RX_BAD_DLC);
	KUNIT_EXPECT_EQ(test, memcmp(&h, &before, sizeof(h)), 0);
}

static void skin_stat_names_unique(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < SKIN_STAT_NR; i++) {
		const char *name = skin_stat_name(i);

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "counter %u", i);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, name, skin_stat_name(j));
	}
	for (i = 0; i < SKIN_RX_NR; i++)
		KUNIT_EXPECT_EQ(test, skin_verdict_accepted(i),
				i == SKIN_RX_HEAD || i == SKIN_RX_TAIL);
	KUNIT_EXPECT_NULL(test, skin_stat_name(SKIN_STAT_NR));
	KUNIT_EXPECT_NULL(test, skin_stat_name(-1));
	KUNIT_EXPECT_LE(test, SKIN_STAT_NR, SKIN_STAT_MAX);
}

static struct kunit_case skin_decode_cases[] = {
	KUNIT_CASE(skin_decode_head),
	KUNIT_CASE(skin_decode_tail),
	KUNIT_CASE(skin_decode_every_byte0),
	KUNIT_CASE(skin_decode_every_dlc),
	KUNIT_CASE(skin_decode_every_class),
	KUNIT_CASE(skin_decode_flags),
	KUNIT_CASE(skin_decode_reject_leaves_half),
	KUNIT_CASE(skin_stat_names_unique),
	{}
};

static struct kunit_suite skin_decode_suite = {
	.name = "skin_decode",
	.test_cases = skin_decode_cases,
};

kunit_test_suite(skin_decode_suite);

MODULE_DESCRIPTION("KUnit tests for the skin frame decoder");
MODULE_LICENSE("GPL");
