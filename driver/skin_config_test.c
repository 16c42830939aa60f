// SPDX-License-Identifier: GPL-2.0
/*
 * skin_config_test.c - KUnit suite for configuration checks and the board
 * commands (docs/ICUB.md, section 1)
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "skin_core.h"

static struct skin_patch_config valid_config(void)
{
	struct skin_patch_config cfg;

	skin_patch_config_default(&cfg);
	strscpy(cfg.ifname, "can0", sizeof(cfg.ifname));
	return cfg;
}

static void skin_config_defaults(struct kunit *test)
{
	struct skin_patch_config cfg;

	skin_patch_config_default(&cfg);
	KUNIT_EXPECT_STREQ(test, skin_patch_config_check(&cfg), "no interface");
	cfg = valid_config();
	KUNIT_EXPECT_NULL(test, skin_patch_config_check(&cfg));
	KUNIT_EXPECT_EQ(test, cfg.cls, 4);
	KUNIT_EXPECT_EQ(test, cfg.period_ms, 50);
	KUNIT_EXPECT_EQ(test, cfg.no_load, 0xf0);
	KUNIT_EXPECT_EQ(test, cfg.shift, 2);
	KUNIT_EXPECT_EQ(test, cfg.cdc_offset, 0x2200);
	KUNIT_EXPECT_EQ(test, cfg.triangles, 0xffff);
	KUNIT_EXPECT_EQ(test, cfg.ring_log2, SKIN_RING_DEFAULT_LOG2);
	KUNIT_EXPECT_EQ(test, cfg.listen_only, 0);
}

static void skin_config_rejects(struct kunit *test)
{
	struct skin_patch_config cfg;

#define EXPECT_BAD(field, value, msg) do {				\
		cfg = valid_config();					\
		cfg.field = value;					\
		KUNIT_EXPECT_STREQ(test, skin_patch_config_check(&cfg), msg);	\
	} while (0)

	EXPECT_BAD(cls, 5, "class must be 3 or 4");
	EXPECT_BAD(cls, 0, "class must be 3 or 4");
	EXPECT_BAD(address, 16, "board address must be 0..15");
	EXPECT_BAD(triangles, 0, "no triangle enabled");
	EXPECT_BAD(period_ms, 0, "period must be 1..255 ms");
	EXPECT_BAD(period_ms, 256, "period must be 1..255 ms");
	EXPECT_BAD(skin_type, 16, "skin type must be 0..15");
	EXPECT_BAD(shift, 16, "shift must be 0..15");
	EXPECT_BAD(ring_log2, 0, "ring size must be a power of two, 2..65536 frames");
	EXPECT_BAD(ring_log2, 17, "ring size must be a power of two, 2..65536 frames");
	EXPECT_BAD(listen_only, 2, "listen_only must be 0 or 1");
#undef EXPECT_BAD

	cfg = valid_config();
	cfg.cls = 3;
	cfg.address = 15;
	cfg.ring_log2 = 16;
	cfg.listen_only = 1;
	KUNIT_EXPECT_NULL(test, skin_patch_config_check(&cfg));
	memset(cfg.ifname, 'x', sizeof(cfg.ifname));
	KUNIT_EXPECT_STREQ(test, skin_patch_config_check(&cfg),
			   "interface name not terminated");
}

static void skin_config_names(struct kunit *test)
{
	KUNIT_EXPECT_NULL(test, skin_name_check("left_hand"));
	KUNIT_EXPECT_NULL(test, skin_name_check("torso.3-b"));
	KUNIT_EXPECT_NULL(test, skin_name_check("a234567890123456789012345678901"));
	KUNIT_EXPECT_STREQ(test, skin_name_check(""), "empty name");
	KUNIT_EXPECT_STREQ(test, skin_name_check(".hidden"),
			   "name starts with a dot");
	KUNIT_EXPECT_STREQ(test, skin_name_check("by-part"),
			   "name of a link directory in /dev/skin (udev)");
	KUNIT_EXPECT_STREQ(test, skin_name_check("by-board"),
			   "name of a link directory in /dev/skin (udev)");
	KUNIT_EXPECT_NULL(test, skin_name_check("by-parts"));
	KUNIT_EXPECT_STREQ(test, skin_name_check("a2345678901234567890123456789012"),
			   "name longer than 31 characters");
	KUNIT_EXPECT_STREQ(test, skin_name_check("a/b"),
			   "name has a character outside [A-Za-z0-9_.-]");
	KUNIT_EXPECT_STREQ(test, skin_name_check("a b"),
			   "name has a character outside [A-Za-z0-9_.-]");
}

static void expect_cmd(struct kunit *test, const struct can_frame *cf,
		       u32 id, u8 len, const u8 *data)
{
	KUNIT_EXPECT_EQ(test, cf->can_id, id);
	KUNIT_EXPECT_EQ(test, cf->len, len);
	KUNIT_EXPECT_EQ(test, memcmp(cf->data, data, len), 0);
}

static void skin_config_board_commands(struct kunit *test)
{
	struct skin_patch_config cfg = valid_config();
	struct can_frame cmds[SKIN_CMD_MAX];
	static const u8 brd[] = { 0x4d, 0x00, 50, 0xf0 };
	static const u8 on_0_7[] = { 0x50, 0, 7, 2, 1, 0x00, 0x22 };
	static const u8 off_8_9[] = { 0x50, 8, 9, 2, 0, 0x00, 0x22 };
	static const u8 on_10_15[] = { 0x50, 10, 15, 2, 1, 0x00, 0x22 };
	static const u8 txon[] = { 0x07, 0x00 };
	static const u8 txoff[] = { 0x07, 0x01 };

	cfg.address = 12;
	cfg.triangles = 0xfcff;		/* 0..7 and 10..15 */
	KUNIT_ASSERT_EQ(test, skin_board_commands(&cfg, true, cmds), 5);
	expect_cmd(test, &cmds[0], 0x20c, 4, brd);
	expect_cmd(test, &cmds[1], 0x20c, 7, on_0_7);
	expect_cmd(test, &cmds[2], 0x20c, 7, off_8_9);
	expect_cmd(test, &cmds[3], 0x20c, 7, on_10_15);
	expect_cmd(test, &cmds[4], 0x20c, 2, txon);

	KUNIT_ASSERT_EQ(test, skin_board_commands(&cfg, false, cmds), 1);
	expect_cmd(test, &cmds[0], 0x20c, 2, txoff);

	/* every other triangle: the most runs there can be */
	cfg.triangles = 0x5555;
	KUNIT_EXPECT_EQ(test, skin_board_commands(&cfg, true, cmds),
			SKIN_CMD_MAX);
	cfg.triangles = 0xffff;
	cfg.skin_type = 8;
	cfg.period_ms = 20;
	cfg.cdc_offset = 0x1234;
	KUNIT_ASSERT_EQ(test, skin_board_commands(&cfg, true, cmds), 3);
	KUNIT_EXPECT_EQ(test, cmds[0].data[1], 8);
	KUNIT_EXPECT_EQ(test, cmds[0].data[2], 20);
	KUNIT_EXPECT_EQ(test, cmds[1].data[1], 0);
	KUNIT_EXPECT_EQ(test, cmds[1].data[2], 15);
	KUNIT_EXPECT_EQ(test, cmds[1].data[5], 0x34);
	KUNIT_EXPECT_EQ(test, cmds[1].data[6], 0x12);
}

static struct kunit_case skin_config_cases[] = {
	KUNIT_CASE(skin_config_defaults),
	KUNIT_CASE(skin_config_rejects),
	KUNIT_CASE(skin_config_names),
	KUNIT_CASE(skin_config_board_commands),
	{}
};

static struct kunit_suite skin_config_suite = {
	.name = "skin_config",
	.test_cases = skin_config_cases,
};

kunit_test_suite(skin_config_suite);
