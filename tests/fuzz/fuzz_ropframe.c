// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ropframe.c - libFuzzer harness for the ETH boards' input: the
 * ropframe parser, the receiver of the configured boards, UDP out of
 * packets and the capture file readers
 *
 * The first byte chooses what the rest is (tests/fuzz/corpus/README.md):
 *   0..127    one UDP payload from board 10.0.1.24 (byte & 1: from a
 *             foreign address), parsed and received twice in a row
 *   128..191  one packet of link type Ethernet, SLL, SLL2 or raw IP
 *             (byte & 3), its datagram then received
 *   192..255  a capture file (pcap or pcapng), every packet received
 *
 * Beyond "no crash, no leak, no UB": a frame is handed over only from a
 * datagram found OK, the frames handed over are the ones counted, each
 * an 11-bit id with at most 8 bytes on a patch the board has; the same
 * bytes give the same verdict; every receiver counter adds up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <skin/capture.h>
#include <skin/ethrx.h>
#include <skin/ropframe.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	unsigned int frames;
};

static void check_frame(void *ctx, const struct skin_eth_can *f)
{
	struct seen *s = ctx;

	if (f->id > 0x7ff || f->len > 8)
		abort();
	s->frames++;
}

static void check_rx_frame(void *ctx, const struct skin_eth_board *b,
			   unsigned int patch, const struct skin_eth_can *f)
{
	if (patch >= b->n_patches || patch != f->patch || !b->ifname[patch][0])
		abort();
	check_frame(ctx, f);
}

static void parse(const uint8_t *p, size_t len)
{
	struct skin_ropframe a, b;
	struct seen s = { 0 };
	enum skin_eth_verdict v, w;

	v = skin_ropframe_parse(p, len, &a, check_frame, &s);
	w = skin_ropframe_parse(p, len, &b, NULL, NULL);
	if (v != w || v >= SKIN_ETH_FOREIGN || !skin_eth_verdict_name(v))
		abort();
	if (v != SKIN_ETH_OK && s.frames)
		abort();	/* nothing of a bad datagram published */
	if (v == SKIN_ETH_OK &&
	    (s.frames != a.n_frames || a.n_frames != b.n_frames ||
	     a.n_rops != a.n_skin + a.n_other + a.n_unknown))
		abort();
}

/* Every board's frames counted: a packet of a capture may come from
 * either board. */
static uint64_t frames_counted(const struct skin_eth_rx *rx)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < skin_eth_rx_n_boards(rx); i++)
		n += skin_eth_rx_board(rx, i)->counters.frames;
	return n;
}

static void receive(struct skin_eth_rx *rx, struct in_addr src,
		    const uint8_t *p, size_t len)
{
	struct seen s = { 0 };
	uint64_t before = frames_counted(rx);
	enum skin_eth_verdict v;

	parse(p, len);
	v = skin_eth_rx_datagram(rx, src, p, len, check_rx_frame, &s);
	if (v != SKIN_ETH_OK && s.frames)
		abort();
	if (frames_counted(rx) - before != s.frames)
		abort();
}

static void check_counters(const struct skin_eth_rx *rx)
{
	unsigned int i, v;

	for (i = 0; i < skin_eth_rx_n_boards(rx); i++) {
		const struct skin_eth_counters *c =
			&skin_eth_rx_board(rx, i)->counters;
		uint64_t sum = 0;

		for (v = 0; v < SKIN_ETH_VERDICT_NR; v++)
			sum += c->verdict[v];
		if (sum != c->datagrams)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t links[4] = {
		SKIN_LINKTYPE_ETHERNET, SKIN_LINKTYPE_LINUX_SLL,
		SKIN_LINKTYPE_LINUX_SLL2, SKIN_LINKTYPE_RAW,
	};
	struct skin_eth_rx *rx;
	struct skin_error err;
	struct in_addr board, foreign;
	struct skin_udp u;
	uint8_t mode;

	if (!size)
		return 0;
	mode = data[0];
	data++;
	size--;
	rx = skin_eth_rx_new();
	if (!rx || skin_eth_rx_add_board(rx, "10.0.1.24", &err) ||
	    skin_eth_rx_add_board(rx, "10.0.1.10:2", &err))
		abort();
	inet_pton(AF_INET, "10.0.1.24", &board);
	inet_pton(AF_INET, "10.0.1.99", &foreign);

	if (mode < 128) {
		/* a copy of exactly the bytes, so ASan sees any overread */
		uint8_t *p = malloc(size ? size : 1);

		memcpy(p, data, size);
		receive(rx, mode & 1 ? foreign : board, p, size);
		receive(rx, mode & 1 ? foreign : board, p, size);
		free(p);
	} else if (mode < 192) {
		uint8_t *p = malloc(size ? size : 1);

		memcpy(p, data, size);
		if (skin_udp_decode(links[mode & 3], p, size, &u) ==
		    SKIN_CAP_UDP) {
			if (u.payload < p || u.payload + u.len > p + size)
				abort();
			receive(rx, u.src, u.payload, u.len);
		}
		free(p);
	} else {
		static uint8_t none[1];
		/* (fmemopen refuses a size of 0: an empty file is a byte
		 * already read) */
		FILE *f = fmemopen(size ? (void *)data : none, size ? size : 1,
				   "rb");
		struct skin_capture *c;
		struct skin_capture_packet pk;
		int n = 0, guard = 0;

		if (!f)
			abort();
		if (!size)
			fgetc(f);
		c = skin_capture_open_stream(f, "fuzz.pcap", &err);
		if (c) {
			while ((n = skin_capture_next(c, &pk, &err)) > 0 &&
			       guard++ < 100000) {
				if (pk.caplen > SKIN_CAPTURE_SNAPLEN_MAX)
					abort();
				if (skin_udp_decode(pk.linktype, pk.data,
						    pk.caplen, &u) ==
				    SKIN_CAP_UDP)
					receive(rx, u.src, u.payload, u.len);
			}
			if (n < 0 && !strstr(err.text, "fuzz.pcap"))
				abort();	/* a damaged file names itself */
			skin_capture_close(c);
		} else if (!strstr(err.text, "fuzz.pcap")) {
			abort();
		}
		fclose(f);
	}
	check_counters(rx);
	skin_eth_rx_free(rx);
	return 0;
}
