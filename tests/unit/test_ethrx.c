// SPDX-License-Identifier: GPL-2.0
/*
 * test_ethrx.c - the configured ETH boards: their specs and interface
 * names, foreign sources, each board's sequence numbers (gaps lost,
 * resets, duplicates withheld), patches a board does not have, and the
 * counters per verdict
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include <skin/ethrx.h>

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void test_board_specs(void **state)
{
	struct skin_eth_rx *rx = skin_eth_rx_new();
	const struct skin_eth_board *b;
	struct skin_error err;
	static const char *const refused[] = {
		"", "10.0.1", "10.0.1.300", "10.0.1.5:", "10.0.1.5:3",
		"10.0.1.5:1,1", "10.0.1.5:1,2,1", "10.0.1.5:12", "=10.0.1.5",
		"a b=10.0.1.5", "twelve_chars=10.0.1.5", "10.0.1.5 ",
	};
	unsigned int i;

	(void)state;
	assert_non_null(rx);
	assert_int_equal(skin_eth_rx_add_board(rx, "10.0.1.24", &err), 0);
	assert_int_equal(skin_eth_rx_add_board(rx, "10.0.1.10:2", &err), 0);
	assert_int_equal(skin_eth_rx_add_board(rx, "lleg=10.0.1.11:2,1", &err), 0);
	assert_int_equal(skin_eth_rx_add_board(rx, "elevenchars=192.168.1.1", &err), 0);
	assert_int_equal(skin_eth_rx_n_boards(rx), 4);

	b = skin_eth_rx_board(rx, 0);
	assert_string_equal(b->name, "eb24");
	assert_int_equal(b->n_patches, 2);
	assert_string_equal(b->ifname[0], "eb24can1");
	assert_string_equal(b->ifname[1], "eb24can2");
	b = skin_eth_rx_board(rx, 1);
	assert_int_equal(b->n_patches, 1);
	assert_int_equal(b->port[0], 2);
	assert_string_equal(b->ifname[0], "eb10can2");
	b = skin_eth_rx_board(rx, 2);
	assert_string_equal(b->ifname[0], "llegcan2");
	assert_string_equal(b->ifname[1], "llegcan1");
	b = skin_eth_rx_board(rx, 3);
	assert_string_equal(b->ifname[0], "elevencharscan1");	/* 15 */
	assert_null(skin_eth_rx_board(rx, 4));

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (!skin_eth_rx_add_board(rx, refused[i], &err))
			fail_msg("'%s' was accepted", refused[i]);
		assert_non_null(strstr(err.text, refused[i]));
	}
	/* the same address, or the same name, twice */
	assert_int_equal(skin_eth_rx_add_board(rx, "x=10.0.1.24", &err), -1);
	assert_non_null(strstr(err.text, "already"));
	assert_int_equal(skin_eth_rx_add_board(rx, "10.0.2.24", &err), -1);
	assert_non_null(strstr(err.text, "NAME=ADDR"));
	assert_int_equal(skin_eth_rx_add_board(rx, "eb24b=10.0.2.24", &err), 0);
	assert_int_equal(skin_eth_rx_n_boards(rx), 5);
	skin_eth_rx_free(rx);
}

struct out {
	unsigned int n;
	char ifname[64][IFNAMSIZ];
	uint16_t id[64];
};

static void collect(void *ctx, const struct skin_eth_board *b,
		    unsigned int patch, const struct skin_eth_can *f)
{
	struct out *o = ctx;

	if (o->n < 64) {
		snprintf(o->ifname[o->n], IFNAMSIZ, "%s", b->ifname[patch]);
		o->id[o->n] = f->id;
	}
	o->n++;
}

/* A datagram of sequence seq: one skin ROP per patch given, one frame
 * each (id 0x400 | seq & 0xff); a bad one when corrupt. */
static size_t datagram(uint8_t *buf, size_t cap, uint64_t seq,
		       const uint8_t *patches, unsigned int n, bool corrupt)
{
	struct skin_ropframe_writer w;
	struct skin_eth_can f = { .id = (uint16_t)(0x400 | (seq & 0xff)),
				  .len = 8, .data = { 0x40 } };
	unsigned int i;
	size_t len;

	skin_ropframe_begin(&w, buf, cap, 0, seq);
	for (i = 0; i < n; i++)
		skin_ropframe_add_skin(&w, 0, patches[i], &f, 1, 0, 0);
	len = skin_ropframe_end(&w);
	assert_true(len > 0);
	if (corrupt)
		buf[24 + 8] = 23;	/* the first array's capacity */
	return len;
}

static void test_sequence_and_verdicts(void **state)
{
	struct skin_eth_rx *rx = skin_eth_rx_new();
	const struct skin_eth_board *b;
	struct in_addr board = ip("10.0.1.24"), other = ip("10.0.1.99");
	const uint8_t p0 = 0, p01[2] = { 0, 1 }, p1 = 1, p7 = 7;
	struct skin_error err;
	uint8_t buf[2048];
	struct out o = { 0 };
	size_t len;

	(void)state;
	assert_int_equal(skin_eth_rx_add_board(rx, "10.0.1.24:2", &err), 0);
	b = skin_eth_rx_board(rx, 0);

	len = datagram(buf, sizeof(buf), 1, &p0, 1, false);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_OK);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.ifname[0], "eb24can2");
	assert_int_equal(o.id[0], 0x401);

	/* a foreign source: counted, nothing published */
	assert_int_equal(skin_eth_rx_datagram(rx, other, buf, len, collect, &o),
			 SKIN_ETH_FOREIGN);
	assert_int_equal(o.n, 1);
	assert_int_equal(skin_eth_rx_foreign(rx)->datagrams, 1);
	assert_int_equal(skin_eth_rx_foreign(rx)->verdict[SKIN_ETH_FOREIGN], 1);

	/* 2, then 5: 3 and 4 lost */
	len = datagram(buf, sizeof(buf), 2, &p0, 1, false);
	skin_eth_rx_datagram(rx, board, buf, len, collect, &o);
	len = datagram(buf, sizeof(buf), 5, &p0, 1, false);
	skin_eth_rx_datagram(rx, board, buf, len, collect, &o);
	assert_int_equal(b->counters.lost, 2);
	assert_int_equal(o.n, 3);

	/* 5 again: a duplicate, withheld */
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_DUPLICATE);
	assert_int_equal(o.n, 3);

	/* 6, malformed but soundly framed: its number is the board's, so
	 * 7 after it loses nothing */
	len = datagram(buf, sizeof(buf), 6, &p0, 1, true);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_BAD_ARRAY_HEAD);
	len = datagram(buf, sizeof(buf), 7, &p0, 1, false);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_OK);
	assert_int_equal(b->counters.lost, 2);
	/* a broken footer: not the board's framing, its number unused */
	len = datagram(buf, sizeof(buf), 1000, &p0, 1, false);
	buf[len - 1] = 0;
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_BAD_END);
	len = datagram(buf, sizeof(buf), 8, &p0, 1, false);
	skin_eth_rx_datagram(rx, board, buf, len, collect, &o);
	assert_int_equal(b->counters.lost, 2);
	assert_int_equal(o.n, 5);

	/* the board restarts: its numbers begin again */
	len = datagram(buf, sizeof(buf), 1, &p0, 1, false);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_OK);
	assert_int_equal(b->counters.seq_resets, 1);
	assert_int_equal(b->counters.lost, 2);

	/* patch 1 on a board of one patch, and patch 7: nothing of the
	 * datagram is published, not even its patch 0 */
	len = datagram(buf, sizeof(buf), 2, p01, 2, false);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_BAD_PATCH);
	len = datagram(buf, sizeof(buf), 3, &p1, 1, false);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_BAD_PATCH);
	len = datagram(buf, sizeof(buf), 4, &p7, 1, false);
	assert_int_equal(skin_eth_rx_datagram(rx, board, buf, len, collect, &o),
			 SKIN_ETH_BAD_PATCH);
	assert_int_equal(o.n, 6);
	assert_int_equal(b->counters.lost, 2);

	/* every datagram counted once, under one verdict */
	assert_int_equal(b->counters.datagrams, 12);
	assert_int_equal(b->counters.verdict[SKIN_ETH_OK], 6);
	assert_int_equal(b->counters.verdict[SKIN_ETH_DUPLICATE], 1);
	assert_int_equal(b->counters.verdict[SKIN_ETH_BAD_ARRAY_HEAD], 1);
	assert_int_equal(b->counters.verdict[SKIN_ETH_BAD_END], 1);
	assert_int_equal(b->counters.verdict[SKIN_ETH_BAD_PATCH], 3);
	assert_int_equal(b->counters.frames, 6);
	assert_int_equal(b->counters.rops_skin, 6);
	skin_eth_rx_free(rx);
}

static void test_counters_format(void **state)
{
	struct skin_eth_counters c = { 0 };
	char line[512], small[16];

	(void)state;
	c.datagrams = 10;
	c.verdict[SKIN_ETH_OK] = 7;
	c.verdict[SKIN_ETH_BAD_ITEM_LEN] = 2;
	c.verdict[SKIN_ETH_DUPLICATE] = 1;
	c.frames = 42;
	c.lost = 3;
	assert_true(skin_eth_counters_format(line, sizeof(line), &c) > 0);
	assert_string_equal(line,
			    "datagrams 10 published 7 frames 42 lost 3 resets 0 rops 0/0/0 bad_item_len 2 duplicate 1");
	/* cut, NUL-terminated, the full length returned */
	assert_int_equal(skin_eth_counters_format(small, sizeof(small), &c),
			 (int)strlen(line));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_board_specs),
		cmocka_unit_test(test_sequence_and_verdicts),
		cmocka_unit_test(test_counters_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
