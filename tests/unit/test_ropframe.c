// SPDX-License-Identifier: GPL-2.0
/*
 * test_ropframe.c - the ETH boards' ropframes against golden bytes written
 * by hand from the owners' headers (EOropframe_hid.h, EOrop.h, EOrop.c,
 * EoProtocol.h, EoSkin.h, EoProtocolSK.h): skin ROPs among management,
 * motion-control and unknown ROPs, with and without signature and time;
 * every malformed kind, each publishing nothing; the writer against the
 * same bytes
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <skin/ropframe.h>

/*
 * A board's datagram: age 0x1234 us, sequence 7, six ROPs:
 *   A  management appl status (ep 0, ent 1, idx 0, tag 3), sig, 6 bytes
 *      of data padded to 8
 *   B  skin CAN data of patch 0 (ep 3, ent 0, idx 0, tag 2), sig, an
 *      array of 2 of its 24 items (data size 24: head + 2 items)
 *   C  motion control joint 2 status_core (ep 1, ent 0, idx 2, tag 10),
 *      sig with signature and time (ctrl 0x0c), 4 bytes of data
 *   D  skin CAN data of patch 1, ctrl 0x0c, 1 item of 3 bytes (data size
 *      14, padded to 16), then signature and time
 *   E  an ack (ctrl confinfo 2) of a set: no data field whatever the
 *      data size says (EOrop.c: eo_rop_datafield_is_required)
 *   F  an endpoint no board has (9), 4 bytes
 */
#define OFF_A	24
#define OFF_B	(OFF_A + 16)
#define OFF_C	(OFF_B + 32)
#define OFF_D	(OFF_C + 24)
#define OFF_E	(OFF_D + 36)
#define OFF_F	(OFF_E + 8)
#define OFF_END	(OFF_F + 12)

static const uint8_t golden[] = {
	/* header: start, ROP bytes 128, ROP count 6, age, sequence */
	0x78, 0x56, 0x34, 0x12, 0x80, 0x00, 0x06, 0x00,
	0x34, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* A: ctrl, sig, dsiz 6, id32 0x00010003 */
	0x00, 0x04, 0x06, 0x00, 0x03, 0x00, 0x01, 0x00,
	0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00, 0x00,
	/* B: ctrl, sig, dsiz 24, id32 0x03000002 */
	0x00, 0x04, 0x18, 0x00, 0x02, 0x00, 0x00, 0x03,
	0x18, 0x0a, 0x02, 0x00,			/* capacity 24, size 10, 2 */
	0xe0, 0x84, 0x40, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0xe1, 0x84, 0xc0, 0x11, 0x12, 0x13, 0x14, 0x15, 0x00, 0x00,
	/* C: +sign +time, sig, dsiz 4, id32 0x0100020a, data, sign, time */
	0x0c, 0x04, 0x04, 0x00, 0x0a, 0x02, 0x00, 0x01,
	0x01, 0x02, 0x03, 0x04,
	0xef, 0xbe, 0xad, 0xde,
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	/* D: +sign +time, sig, dsiz 14, id32 0x03000102 */
	0x0c, 0x04, 0x0e, 0x00, 0x02, 0x01, 0x00, 0x03,
	0x18, 0x0a, 0x01, 0x00,
	0xa5, 0x33, 0x40, 0xaa, 0xbb, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00,				/* padding to 16 */
	0x01, 0x00, 0x00, 0x00,			/* signature */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* time */
	/* E: ack, set, dsiz 16 (no data field), id32 0x00000001 */
	0x02, 0x03, 0x10, 0x00, 0x01, 0x00, 0x00, 0x00,
	/* F: sig, dsiz 4, id32 0x09000000 */
	0x00, 0x04, 0x04, 0x00, 0x00, 0x00, 0x00, 0x09,
	0x01, 0x02, 0x03, 0x04,
	/* footer */
	0x21, 0x43, 0x65, 0x87,
};

struct got {
	unsigned int n;
	struct skin_eth_can f[64];
};

static void collect(void *ctx, const struct skin_eth_can *f)
{
	struct got *g = ctx;

	if (g->n < 64)
		g->f[g->n] = *f;
	g->n++;
}

static void expect_frame(const struct skin_eth_can *f, uint16_t id,
			 uint8_t len, uint8_t patch, const uint8_t *data)
{
	assert_int_equal(f->id, id);
	assert_int_equal(f->len, len);
	assert_int_equal(f->patch, patch);
	assert_memory_equal(f->data, data, len);
}

static void test_golden(void **state)
{
	static const uint8_t d0[] = { 0x40, 1, 2, 3, 4, 5, 6, 7 };
	static const uint8_t d1[] = { 0xc0, 0x11, 0x12, 0x13, 0x14, 0x15, 0, 0 };
	static const uint8_t d2[] = { 0x40, 0xaa, 0xbb };
	struct skin_ropframe info;
	struct got g = { 0 };

	(void)state;
	assert_int_equal(sizeof(golden), OFF_END + 4);
	assert_int_equal(skin_ropframe_parse(golden, sizeof(golden), &info,
					     collect, &g), SKIN_ETH_OK);
	assert_int_equal(g.n, 3);
	expect_frame(&g.f[0], 0x4e0, 8, 0, d0);
	expect_frame(&g.f[1], 0x4e1, 8, 0, d1);
	expect_frame(&g.f[2], 0x3a5, 3, 1, d2);
	assert_int_equal(info.seq, 7);
	assert_int_equal(info.age_us, 0x1234);
	assert_int_equal(info.n_rops, 6);
	assert_int_equal(info.n_skin, 2);
	assert_int_equal(info.n_other, 3);
	assert_int_equal(info.n_unknown, 1);
	assert_int_equal(info.n_frames, 3);
	assert_int_equal(info.patches[0], 0x3);

	/* without a callback: the same verdict and counts */
	assert_int_equal(skin_ropframe_parse(golden, sizeof(golden), &info,
					     NULL, NULL), SKIN_ETH_OK);
	assert_int_equal(info.n_frames, 3);
}

/* The writer lays the same ROPs out byte for byte. */
static void test_writer_matches_golden(void **state)
{
	uint8_t buf[512];
	struct skin_ropframe_writer w;

	(void)state;
	skin_ropframe_begin(&w, buf, sizeof(buf), 0x1234, 7);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG, SKIN_ROP_ID32(0, 1, 0, 3),
			      golden + OFF_A + 8, 6, 0, 0);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG, SKIN_ROP_ID32(3, 0, 0, 2),
			      golden + OFF_B + 8, 24, 0, 0);
	skin_ropframe_add_rop(&w, 0x0c, SKIN_ROP_SIG, SKIN_ROP_ID32(1, 0, 2, 10),
			      golden + OFF_C + 8, 4, 0xdeadbeef,
			      0x0102030405060708ull);
	skin_ropframe_add_rop(&w, 0x0c, SKIN_ROP_SIG, SKIN_ROP_ID32(3, 0, 1, 2),
			      golden + OFF_D + 8, 14, 1, 2);
	skin_ropframe_add_rop(&w, 0x02, SKIN_ROP_SET, SKIN_ROP_ID32(0, 0, 0, 1),
			      NULL, 16, 0, 0);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG, SKIN_ROP_ID32(9, 0, 0, 0),
			      golden + OFF_F + 8, 4, 0, 0);
	assert_int_equal(skin_ropframe_end(&w), sizeof(golden));
	assert_memory_equal(buf, golden, sizeof(golden));
}

/* A board's skin ROP at full size (244 bytes: 24 items), 24 frames. */
static void test_full_array(void **state)
{
	struct skin_eth_can in[25];
	uint8_t buf[1024];
	struct skin_ropframe_writer w;
	struct skin_ropframe info;
	struct got g = { 0 };
	unsigned int i;
	size_t len;

	(void)state;
	for (i = 0; i < 25; i++) {
		memset(&in[i], 0, sizeof(in[i]));
		in[i].id = (uint16_t)(0x400 | (i & 0xff));
		in[i].len = (uint8_t)(i % 9);
		memset(in[i].data, (int)i, in[i].len);
	}
	skin_ropframe_begin(&w, buf, sizeof(buf), 0, 1);
	skin_ropframe_add_skin(&w, 0, 1, in, 24, 0, 0);
	len = skin_ropframe_end(&w);
	assert_int_equal(len, 24 + 8 + 244 + 4);
	assert_int_equal(buf[24 + 2], 244);		/* dsiz */
	assert_int_equal(skin_ropframe_parse(buf, len, &info, collect, &g),
			 SKIN_ETH_OK);
	assert_int_equal(g.n, 24);
	for (i = 0; i < 24; i++)
		expect_frame(&g.f[i], in[i].id, in[i].len, 1, in[i].data);
	assert_int_equal(info.patches[0], 0x2);

	/* 25 frames do not fit an array: the writer refuses */
	skin_ropframe_begin(&w, buf, sizeof(buf), 0, 1);
	skin_ropframe_add_skin(&w, 0, 0, in, 25, 0, 0);
	assert_int_equal(skin_ropframe_end(&w), 0);
	/* nor does a buffer too small */
	skin_ropframe_begin(&w, buf, 200, 0, 1);
	skin_ropframe_add_skin(&w, 0, 0, in, 1, 0, 0);
	assert_int_equal(skin_ropframe_end(&w), 0);
}

static void test_empty_and_other_skin_tags(void **state)
{
	uint8_t buf[256];
	struct skin_ropframe_writer w;
	struct skin_ropframe info;
	struct got g = { 0 };
	uint8_t sigmode[8] = { 2 };
	size_t len;

	(void)state;
	/* no ROP at all: sound, nothing carried */
	skin_ropframe_begin(&w, buf, sizeof(buf), 0, 3);
	len = skin_ropframe_end(&w);
	assert_int_equal(len, 28);
	assert_int_equal(skin_ropframe_parse(buf, len, &info, collect, &g),
			 SKIN_ETH_OK);
	assert_int_equal(g.n, 0);
	assert_int_equal(info.n_rops, 0);

	/* the skin's other tags and an ask of its CAN data: walked over */
	skin_ropframe_begin(&w, buf, sizeof(buf), 0, 4);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_SAY, SKIN_ROP_ID32(3, 0, 0, 1),
			      sigmode, sizeof(sigmode), 0, 0);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_ASK, SKIN_ROP_ID32(3, 0, 0, 2),
			      NULL, 0, 0, 0);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_RST, SKIN_ROP_ID32(3, 0, 1, 2),
			      NULL, 0, 0, 0);
	len = skin_ropframe_end(&w);
	assert_int_equal(skin_ropframe_parse(buf, len, &info, collect, &g),
			 SKIN_ETH_OK);
	assert_int_equal(g.n, 0);
	assert_int_equal(info.n_other, 3);
	assert_int_equal(info.n_skin, 0);
}

static uint8_t bad[sizeof(golden)];

static void reset(void)
{
	memcpy(bad, golden, sizeof(golden));
}

static void expect_rejected(size_t len, enum skin_eth_verdict want,
			    const char *what)
{
	struct skin_ropframe info;
	struct got g = { 0 };
	enum skin_eth_verdict v = skin_ropframe_parse(bad, len, &info,
						      collect, &g);

	if (v != want)
		fail_msg("%s: verdict %s, expected %s", what,
			 skin_eth_verdict_name(v), skin_eth_verdict_name(want));
	if (g.n)
		fail_msg("%s: %u frames published", what, g.n);
}

static void test_malformed(void **state)
{
	size_t n = sizeof(golden);

	(void)state;
	reset();
	expect_rejected(0, SKIN_ETH_TRUNCATED, "empty");
	expect_rejected(27, SKIN_ETH_TRUNCATED, "shorter than header+footer");

	reset(); bad[0] ^= 1;
	expect_rejected(n, SKIN_ETH_BAD_START, "start marker");
	reset(); bad[n - 1] = 0x88;
	expect_rejected(n, SKIN_ETH_BAD_END, "footer");

	/* the ROP bytes disagree with the datagram's length */
	reset(); bad[4] = 0x84;
	expect_rejected(n, SKIN_ETH_BAD_SIZE, "ROP bytes larger");
	reset(); bad[4] = 0x7c;
	expect_rejected(n, SKIN_ETH_BAD_SIZE, "ROP bytes smaller");
	reset();
	expect_rejected(n - 4, SKIN_ETH_BAD_SIZE, "a truncated datagram");
	expect_rejected(n - 1, SKIN_ETH_BAD_SIZE, "one byte short");

	/* the ROP count disagrees with the ROPs found */
	reset(); bad[6] = 5;
	expect_rejected(n, SKIN_ETH_BAD_ROP_COUNT, "bytes after the last ROP");
	reset(); bad[6] = 7;
	expect_rejected(n, SKIN_ETH_BAD_ROP_COUNT, "fewer ROPs than counted");

	/* a ROP running past the ROP bytes */
	reset(); bad[OFF_B + 2] = 0x00; bad[OFF_B + 3] = 0x01;
	expect_rejected(n, SKIN_ETH_BAD_ROP_SIZE, "skin data size 256");
	reset(); bad[OFF_F + 0] = 0x08;		/* +sign: 4 bytes more */
	expect_rejected(n, SKIN_ETH_BAD_ROP_SIZE, "a signature past the end");
	reset(); bad[OFF_F + 2] = 0x05;		/* 5, padded to 8 */
	expect_rejected(n, SKIN_ETH_BAD_ROP_SIZE, "padding past the end");

	/* ctrl bits no board sends */
	reset(); bad[OFF_A] = 0x40;
	expect_rejected(n, SKIN_ETH_BAD_ROP_CTRL, "version 1");
	reset(); bad[OFF_D] = 0x8c;
	expect_rejected(n, SKIN_ETH_BAD_ROP_CTRL, "version 2 on a skin ROP");
	reset(); bad[OFF_E] = 0x03;
	expect_rejected(n, SKIN_ETH_BAD_ROP_CTRL, "confirmation 3");

	reset(); bad[OFF_A + 1] = 0;
	expect_rejected(n, SKIN_ETH_BAD_ROP_CODE, "opcode 0");
	reset(); bad[OFF_C + 1] = 6;
	expect_rejected(n, SKIN_ETH_BAD_ROP_CODE, "opcode 6");
	reset(); bad[OFF_A + 2] = 0;
	expect_rejected(n, SKIN_ETH_BAD_ROP_EMPTY, "a sig without data");

	/* the skin array's head lies */
	reset(); bad[OFF_B + 8] = 23;
	expect_rejected(n, SKIN_ETH_BAD_ARRAY_HEAD, "capacity 23");
	reset(); bad[OFF_B + 9] = 9;
	expect_rejected(n, SKIN_ETH_BAD_ARRAY_HEAD, "item size 9");
	reset(); bad[OFF_D + 2] = 3;	/* data 3 bytes: no room for a head;
					   the ROP itself is then 12 bytes */
	expect_rejected(n, SKIN_ETH_BAD_ARRAY_HEAD, "data shorter than a head");
	reset(); bad[OFF_B + 10] = 3;
	expect_rejected(n, SKIN_ETH_BAD_ARRAY_COUNT, "3 items in 24 bytes");
	reset(); bad[OFF_D + 10] = 25;
	expect_rejected(n, SKIN_ETH_BAD_ARRAY_COUNT, "25 items");

	/* an item lies */
	reset(); bad[OFF_B + 13] = 0x94;		/* len 9 */
	expect_rejected(n, SKIN_ETH_BAD_ITEM_LEN, "a CAN frame of 9 bytes");
	reset(); bad[OFF_D + 13] = 0xf3;		/* len 15 */
	expect_rejected(n, SKIN_ETH_BAD_ITEM_LEN, "a CAN frame of 15 bytes");
	reset(); bad[OFF_B + 23] = 0x8c;		/* id 0xce1 */
	expect_rejected(n, SKIN_ETH_BAD_ITEM_ID, "a 12-bit CAN id");

	/* a fault in a later ROP still withholds the earlier skin ROP's
	 * frames: a datagram publishes whole or not at all */
	reset(); bad[OFF_F + 1] = 9;
	expect_rejected(n, SKIN_ETH_BAD_ROP_CODE, "the last ROP's opcode");
}

/* Faults found where they are, for messages */
static void test_fault_offset(void **state)
{
	struct skin_ropframe info;

	(void)state;
	reset(); bad[OFF_C + 1] = 6;
	skin_ropframe_parse(bad, sizeof(bad), &info, NULL, NULL);
	assert_int_equal(info.fault_offset, OFF_C);
	assert_int_equal(info.n_rops, 2);
	reset(); bad[OFF_B + 23] = 0x8c;
	skin_ropframe_parse(bad, sizeof(bad), &info, NULL, NULL);
	assert_int_equal(info.fault_offset, OFF_B + 22);
	assert_int_equal(info.seq, 7);
}

static void test_names(void **state)
{
	unsigned int v;

	(void)state;
	for (v = 0; v < SKIN_ETH_VERDICT_NR; v++)
		assert_non_null(skin_eth_verdict_name(v));
	assert_string_equal(skin_eth_verdict_name(SKIN_ETH_BAD_ITEM_LEN),
			    "bad_item_len");
	assert_null(skin_eth_verdict_name(SKIN_ETH_VERDICT_NR));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_writer_matches_golden),
		cmocka_unit_test(test_full_array),
		cmocka_unit_test(test_empty_and_other_skin_tags),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_fault_offset),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
