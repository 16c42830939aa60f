// SPDX-License-Identifier: GPL-2.0
/*
 * test_decode.c - the driver's frame decoder, built in user space
 *
 * The same source as in skin.ko (driver/skin_decode.c).  Frames are written
 * the way cansend(1) takes them, so a case reads like the bus traffic it
 * stands for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skin_core.h"

/* Parse "ID#HEXDATA" or "ID#R" (cansend syntax, classic CAN only). */
static struct can_frame frame(const char *text)
{
	struct can_frame cf;
	const char *hash = strchr(text, '#');
	const char *p;
	char *end;

	memset(&cf, 0, sizeof(cf));
	assert_non_null(hash);
	cf.can_id = (canid_t)strtoul(text, &end, 16);
	assert_ptr_equal(end, hash);
	if (hash - text == 8)
		cf.can_id |= CAN_EFF_FLAG;
	p = hash + 1;
	if (*p == 'R') {
		cf.can_id |= CAN_RTR_FLAG;
		return cf;
	}
	while (p[0] && p[1]) {
		unsigned int byte;

		assert_true(cf.len < CAN_MAX_DLEN);
		assert_int_equal(sscanf(p, "%2x", &byte), 1);
		cf.data[cf.len++] = (u8)byte;
		p += 2;
	}
	assert_int_equal(*p, '\0');
	return cf;
}

static void verdict_is(const char *text, enum skin_rx_verdict want)
{
	struct can_frame cf = frame(text);
	struct skin_half h;

	if (skin_decode(&cf, false, &h) != want)
		fail_msg("%s: verdict %s, want %s", text,
			 skin_stat_name(skin_decode(&cf, false, &h)),
			 skin_stat_name(want));
}

static void test_head_values(void **state)
{
	struct can_frame cf = frame("4E5#40F0EFEEEDECEBEA");
	struct skin_half h;
	const u8 want[] = { 0xf0, 0xef, 0xee, 0xed, 0xec, 0xeb, 0xea };

	(void)state;
	assert_int_equal(skin_decode(&cf, false, &h), SKIN_RX_HEAD);
	assert_int_equal(h.cls, 4);
	assert_int_equal(h.board, 14);
	assert_int_equal(h.triangle, 5);
	assert_false(h.tail);
	assert_int_equal(h.first_channel, 0);
	assert_int_equal(h.nvalues, 7);
	assert_memory_equal(h.values, want, sizeof(want));
}

static void test_tail_diagnostics(void **state)
{
	struct can_frame cf = frame("3A0#C00102030405F001");
	struct skin_half h;
	const u8 want[] = { 1, 2, 3, 4, 5 };

	(void)state;
	assert_int_equal(skin_decode(&cf, false, &h), SKIN_RX_TAIL);
	assert_int_equal(h.cls, 3);
	assert_int_equal(h.board, 10);
	assert_int_equal(h.triangle, 0);
	assert_true(h.tail);
	assert_int_equal(h.first_channel, 7);
	assert_int_equal(h.nvalues, 5);
	assert_memory_equal(h.values, want, sizeof(want));
	assert_true(h.has_diag);
	/* bits 15..4: channels out of range; bit 0: no-ack */
	assert_int_equal(h.diag, 0xf001);
}

static void test_rejections(void **state)
{
	(void)state;
	verdict_is("4E5#40F0EFEEEDECEB", SKIN_RX_BAD_DLC);	/* 7 bytes */
	verdict_is("4E5#C0F0EFEEED", SKIN_RX_BAD_DLC);	/* 5 bytes */
	verdict_is("4E5#C0F0EFEEEDECEB", SKIN_RX_BAD_DLC);	/* 7 bytes */
	verdict_is("4E5#C0F0EFEEEDEC", SKIN_RX_TAIL);	/* 6 bytes */
	verdict_is("4E5#", SKIN_RX_BAD_DLC);
	verdict_is("4E5#80F0EFEEEDECEBEA", SKIN_RX_BAD_BYTE0);
	verdict_is("4E5#R", SKIN_RX_BAD_RTR);
	verdict_is("000004E5#40F0EFEEEDECEBEA", SKIN_RX_BAD_EFF);
	verdict_is("5E5#40F0EFEEEDECEBEA", SKIN_RX_BAD_CLASS);
	verdict_is("200#4D00320F", SKIN_RX_BAD_CLASS);	/* host command */
}

static void test_fd_rejected(void **state)
{
	struct can_frame cf = frame("4E5#40F0EFEEEDECEBEA");
	struct skin_half h;

	(void)state;
	assert_int_equal(skin_decode(&cf, true, &h), SKIN_RX_BAD_FD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_values),
		cmocka_unit_test(test_tail_diagnostics),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_fd_rejected),
	};

	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}
