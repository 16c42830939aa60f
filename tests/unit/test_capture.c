// SPDX-License-Identifier: GPL-2.0
/*
 * test_capture.c - UDP out of packets (Ethernet, VLAN, Linux cooked SLL
 * and SLL2, raw IP; fragments, other protocols, lies and truncation) and
 * capture files (pcap both byte orders and resolutions, pcapng, damaged
 * files), against packets and files written byte by byte here
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include <skin/capture.h>

/* IPv4 10.0.1.24:12345 -> 10.0.1.104:12345, UDP, payload "skin" */
static const uint8_t ipv4_udp[] = {
	0x45, 0x00, 0x00, 0x20, 0x00, 0x01, 0x40, 0x00,	/* len 32, DF */
	0x40, 0x11, 0x00, 0x00, 10, 0, 1, 24, 10, 0, 1, 104,
	0x30, 0x39, 0x30, 0x39, 0x00, 0x0c, 0x00, 0x00,	/* UDP len 12 */
	's', 'k', 'i', 'n',
};

static size_t with_link(uint8_t *out, const uint8_t *link, size_t llen,
			const uint8_t *ip, size_t iplen)
{
	memcpy(out, link, llen);
	memcpy(out + llen, ip, iplen);
	return llen + iplen;
}

static void expect_udp(uint32_t linktype, const uint8_t *pkt, size_t len)
{
	struct skin_udp u;
	char a[INET_ADDRSTRLEN];

	assert_int_equal(skin_udp_decode(linktype, pkt, len, &u), SKIN_CAP_UDP);
	inet_ntop(AF_INET, &u.src, a, sizeof(a));
	assert_string_equal(a, "10.0.1.24");
	inet_ntop(AF_INET, &u.dst, a, sizeof(a));
	assert_string_equal(a, "10.0.1.104");
	assert_int_equal(u.sport, 12345);
	assert_int_equal(u.dport, 12345);
	assert_int_equal(u.len, 4);
	assert_memory_equal(u.payload, "skin", 4);
}

static void test_link_layers(void **state)
{
	static const uint8_t eth[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2,
					 0x08, 0x00 };
	static const uint8_t vlan[18] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2,
					  0x81, 0x00, 0x00, 0x05, 0x08, 0x00 };
	/* SLL: packet type, ARPHRD, address length, address (8), protocol */
	static const uint8_t sll[16] = { 0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 2,
					 0, 0, 0x08, 0x00 };
	/* SLL2: protocol, reserved, ifindex, ARPHRD, type, addr len, addr */
	static const uint8_t sll2[20] = { 0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1,
					  0, 6, 2, 0, 0, 0, 0, 2, 0, 0 };
	uint8_t pkt[128];
	size_t n;

	(void)state;
	n = with_link(pkt, eth, sizeof(eth), ipv4_udp, sizeof(ipv4_udp));
	expect_udp(SKIN_LINKTYPE_ETHERNET, pkt, n);
	/* Ethernet pads short frames to 60 bytes: the IP length rules */
	memset(pkt + n, 0xee, 60 - n);
	expect_udp(SKIN_LINKTYPE_ETHERNET, pkt, 60);
	n = with_link(pkt, vlan, sizeof(vlan), ipv4_udp, sizeof(ipv4_udp));
	expect_udp(SKIN_LINKTYPE_ETHERNET, pkt, n);
	n = with_link(pkt, sll, sizeof(sll), ipv4_udp, sizeof(ipv4_udp));
	expect_udp(SKIN_LINKTYPE_LINUX_SLL, pkt, n);
	n = with_link(pkt, sll2, sizeof(sll2), ipv4_udp, sizeof(ipv4_udp));
	expect_udp(SKIN_LINKTYPE_LINUX_SLL2, pkt, n);
	expect_udp(SKIN_LINKTYPE_RAW, ipv4_udp, sizeof(ipv4_udp));
}

static enum skin_capture_verdict decode_ip(const uint8_t *ip, size_t len)
{
	struct skin_udp u;

	return skin_udp_decode(SKIN_LINKTYPE_RAW, ip, len, &u);
}

static void test_rejections(void **state)
{
	static const uint8_t arp[14] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 2, 0, 0, 0, 0, 2, 0x08, 0x06 };
	static const uint8_t ipv6[14] = { 0x33, 0x33, 0, 0, 0, 1, 2, 0, 0, 0,
					  0, 2, 0x86, 0xdd };
	uint8_t ip[sizeof(ipv4_udp)];
	struct skin_udp u;
	size_t i;

	(void)state;
	assert_int_equal(skin_udp_decode(SKIN_LINKTYPE_ETHERNET, arp,
					 sizeof(arp), &u), SKIN_CAP_NOT_IPV4);
	assert_int_equal(skin_udp_decode(SKIN_LINKTYPE_ETHERNET, ipv6,
					 sizeof(ipv6), &u), SKIN_CAP_NOT_IPV4);
	assert_int_equal(skin_udp_decode(228, ipv4_udp, sizeof(ipv4_udp), &u),
			 SKIN_CAP_BAD_LINK);

	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[9] = 6;					/* TCP */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_NOT_UDP);

	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[6] = 0x20;					/* more fragments */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_FRAGMENT);
	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[6] = 0x00; ip[7] = 0xb9;			/* offset 1480 */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_FRAGMENT);

	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[0] = 0x44;					/* IHL 16 bytes */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_BAD_IP);
	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[3] = 0x10;					/* total 16 < IHL */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_BAD_IP);
	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[3] = 0x1a;					/* room for 6 of UDP */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_BAD_IP);

	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[25] = 0x0d;					/* UDP 13 > IP's 12 */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_BAD_UDP);
	memcpy(ip, ipv4_udp, sizeof(ip));
	ip[25] = 0x07;					/* UDP 7 < its header */
	assert_int_equal(decode_ip(ip, sizeof(ip)), SKIN_CAP_BAD_UDP);

	/* cut anywhere before the payload's end: truncated, never read
	 * past (ASan watches) */
	for (i = 0; i < sizeof(ipv4_udp); i++) {
		uint8_t *cut = malloc(i ? i : 1);

		memcpy(cut, ipv4_udp, i);
		assert_int_equal(decode_ip(cut, i), SKIN_CAP_TRUNCATED);
		free(cut);
	}
	for (i = 0; i < SKIN_CAP_VERDICT_NR; i++)
		assert_non_null(skin_capture_verdict_name((unsigned int)i));
}

static char path[] = "/tmp/test_capture_XXXXXX";

static FILE *new_file(void)
{
	int fd;

	strcpy(path, "/tmp/test_capture_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	return fdopen(fd, "w");
}

/* the writer's pcap, read back */
static void test_pcap_round_trip(void **state)
{
	struct in_addr board, pc;
	struct skin_capture *c;
	struct skin_capture_packet p;
	struct skin_error err;
	struct skin_udp u;
	uint8_t big[1400];
	FILE *f = new_file();

	(void)state;
	inet_pton(AF_INET, "10.0.1.24", &board);
	inet_pton(AF_INET, "10.0.1.104", &pc);
	memset(big, 0x5a, sizeof(big));
	assert_int_equal(skin_capture_write_header(f), 0);
	assert_int_equal(skin_capture_write_udp(f, 1700000000123456789ull,
						board, 12345, pc, 12345,
						"skin", 4), 0);
	assert_int_equal(skin_capture_write_udp(f, 1700000001000000000ull,
						pc, 12345, board, 12345,
						big, sizeof(big)), 0);
	assert_int_equal(skin_capture_write_udp(f, 0, pc, 1, board, 2, big,
						70000), -1);
	fclose(f);

	c = skin_capture_open(path, &err);
	assert_non_null(c);
	assert_int_equal(skin_capture_next(c, &p, &err), 1);
	assert_int_equal(p.ts_ns, 1700000000123456000ull);	/* us */
	assert_int_equal(p.linktype, SKIN_LINKTYPE_ETHERNET);
	expect_udp(p.linktype, p.data, p.caplen);
	/* the IPv4 header checksum is right: it sums to 0xffff */
	{
		uint32_t sum = 0;
		size_t i;

		for (i = 14; i < 34; i += 2)
			sum += (uint32_t)(p.data[i] << 8 | p.data[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		assert_int_equal(sum, 0xffff);
	}
	assert_int_equal(skin_capture_next(c, &p, &err), 1);
	assert_int_equal(skin_udp_decode(p.linktype, p.data, p.caplen, &u),
			 SKIN_CAP_UDP);
	assert_int_equal(u.len, sizeof(big));
	assert_memory_equal(u.payload, big, sizeof(big));
	assert_int_equal(skin_capture_next(c, &p, &err), 0);
	assert_int_equal(skin_capture_next(c, &p, &err), 0);
	assert_int_equal(skin_capture_count(c), 2);
	skin_capture_close(c);
	unlink(path);
}

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* a big-endian nanosecond pcap of raw IP, as another machine writes it */
static void test_pcap_swapped_ns(void **state)
{
	uint8_t h[24] = { 0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4 };
	uint8_t rec[16];
	struct skin_capture *c;
	struct skin_capture_packet p;
	struct skin_error err;
	FILE *f = new_file();

	(void)state;
	put32be(h + 16, 65535);
	put32be(h + 20, SKIN_LINKTYPE_RAW);
	fwrite(h, 1, sizeof(h), f);
	put32be(rec, 1700000000);
	put32be(rec + 4, 999999999);
	put32be(rec + 8, sizeof(ipv4_udp));
	put32be(rec + 12, sizeof(ipv4_udp));
	fwrite(rec, 1, sizeof(rec), f);
	fwrite(ipv4_udp, 1, sizeof(ipv4_udp), f);
	fclose(f);

	c = skin_capture_open(path, &err);
	assert_non_null(c);
	assert_int_equal(skin_capture_next(c, &p, &err), 1);
	assert_int_equal(p.ts_ns, 1700000000999999999ull);
	assert_int_equal(p.linktype, SKIN_LINKTYPE_RAW);
	expect_udp(p.linktype, p.data, p.caplen);
	assert_int_equal(skin_capture_next(c, &p, &err), 0);
	skin_capture_close(c);
	unlink(path);
}

static void put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static size_t block(uint8_t *out, uint32_t type, const uint8_t *body,
		    size_t len)
{
	size_t total = 12 + ((len + 3) & ~(size_t)3);

	put32le(out, type);
	put32le(out + 4, (uint32_t)total);
	memset(out + 8, 0, total - 12);
	memcpy(out + 8, body, len);
	put32le(out + total - 4, (uint32_t)total);
	return total;
}

/* pcapng as dumpcap writes it: section, interfaces (the second in
 * nanoseconds, Linux cooked), a statistics block to skip, enhanced
 * packets on each interface, and a simple packet */
static void test_pcapng(void **state)
{
	static const uint8_t shb[16] = { 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
					 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff };
	static const uint8_t idb0[8] = { 101, 0, 0, 0, 0, 0, 4, 0 };
	/* link 113, snaplen 262144, if_tsresol 9, end of options */
	static const uint8_t idb1[20] = { 113, 0, 0, 0, 0, 0, 4, 0,
					  9, 0, 1, 0, 9, 0, 0, 0,
					  0, 0, 0, 0 };
	static const uint8_t sll[16] = { 0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 2,
					 0, 0, 0x08, 0x00 };
	uint8_t buf[1024], body[256];
	struct skin_capture *c;
	struct skin_capture_packet p;
	struct skin_error err;
	uint64_t ts;
	size_t n = 0;
	FILE *f = new_file();

	(void)state;
	n += block(buf + n, 0x0a0d0d0a, shb, sizeof(shb));
	n += block(buf + n, 1, idb0, sizeof(idb0));
	n += block(buf + n, 1, idb1, sizeof(idb1));
	n += block(buf + n, 5, body, 12);		/* statistics */
	/* EPB on interface 0, microseconds: 1700000000.5 s */
	ts = 1700000000500000ull;
	put32le(body, 0);
	put32le(body + 4, (uint32_t)(ts >> 32));
	put32le(body + 8, (uint32_t)ts);
	put32le(body + 12, sizeof(ipv4_udp));
	put32le(body + 16, sizeof(ipv4_udp));
	memcpy(body + 20, ipv4_udp, sizeof(ipv4_udp));
	n += block(buf + n, 6, body, 20 + sizeof(ipv4_udp));
	/* EPB on interface 1, nanoseconds */
	ts = 1700000000123456789ull;
	put32le(body, 1);
	put32le(body + 4, (uint32_t)(ts >> 32));
	put32le(body + 8, (uint32_t)ts);
	put32le(body + 12, 16 + sizeof(ipv4_udp));
	put32le(body + 16, 16 + sizeof(ipv4_udp));
	memcpy(body + 20, sll, sizeof(sll));
	memcpy(body + 36, ipv4_udp, sizeof(ipv4_udp));
	n += block(buf + n, 6, body, 36 + sizeof(ipv4_udp));
	/* SPB: interface 0, no time */
	put32le(body, sizeof(ipv4_udp));
	memcpy(body + 4, ipv4_udp, sizeof(ipv4_udp));
	n += block(buf + n, 3, body, 4 + sizeof(ipv4_udp));
	fwrite(buf, 1, n, f);
	fclose(f);

	c = skin_capture_open(path, &err);
	if (!c)
		fail_msg("%s", err.text);
	assert_int_equal(skin_capture_next(c, &p, &err), 1);
	assert_int_equal(p.ts_ns, 1700000000500000000ull);
	expect_udp(p.linktype, p.data, p.caplen);
	assert_int_equal(skin_capture_next(c, &p, &err), 1);
	assert_int_equal(p.linktype, SKIN_LINKTYPE_LINUX_SLL);
	assert_int_equal(p.ts_ns, 1700000000123456789ull);
	expect_udp(p.linktype, p.data, p.caplen);
	assert_int_equal(skin_capture_next(c, &p, &err), 1);
	assert_int_equal(p.linktype, SKIN_LINKTYPE_RAW);
	expect_udp(p.linktype, p.data, p.caplen);
	assert_int_equal(skin_capture_next(c, &p, &err), 0);
	skin_capture_close(c);

	/* a packet of an interface never described */
	f = fopen(path, "r+b");
	fseek(f, 28 + 20 + 32 + 24, SEEK_SET);	/* the first EPB's body */
	fseek(f, 8, SEEK_CUR);
	put32le(body, 7);
	fwrite(body, 1, 4, f);
	fclose(f);
	c = skin_capture_open(path, &err);
	assert_non_null(c);
	assert_int_equal(skin_capture_next(c, &p, &err), -1);
	assert_non_null(strstr(err.text, "undescribed interface"));
	assert_int_equal(skin_capture_next(c, &p, &err), 0);
	skin_capture_close(c);
	unlink(path);
}

static void expect_damaged(const uint8_t *bytes, size_t len, int packets,
			   const char *what)
{
	struct skin_capture *c;
	struct skin_capture_packet p;
	struct skin_error err;
	FILE *f = new_file();
	int i;

	fwrite(bytes, 1, len, f);
	fclose(f);
	c = skin_capture_open(path, &err);
	if (packets < 0) {
		assert_null(c);
	} else {
		assert_non_null(c);
		for (i = 0; i < packets; i++)
			assert_int_equal(skin_capture_next(c, &p, &err), 1);
		assert_int_equal(skin_capture_next(c, &p, &err), -1);
		skin_capture_close(c);
	}
	if (!strstr(err.text, what) || !strstr(err.text, path))
		fail_msg("'%s' does not say '%s' and the file", err.text, what);
	unlink(path);
}

static void test_damaged(void **state)
{
	uint8_t b[256] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0 };
	uint8_t ng[64];
	size_t n;

	(void)state;
	put32le(b + 16, 65535);
	put32le(b + 20, 1);
	expect_damaged((const uint8_t *)"hello, world", 12, -1,
		       "not a pcap or pcapng capture");
	expect_damaged(b, 2, -1, "empty or truncated");
	expect_damaged(b, 20, -1, "truncated pcap file header");
	b[4] = 3;
	expect_damaged(b, 24, -1, "version");
	b[4] = 2;
	/* a record header cut short */
	expect_damaged(b, 30, 0, "truncated record header");
	/* a packet cut short */
	put32le(b + 24, 1);
	put32le(b + 28, 0);
	put32le(b + 32, 40);
	put32le(b + 36, 40);
	expect_damaged(b, 24 + 16 + 39, 0, "truncated packet");
	/* a packet bigger than any capture holds */
	put32le(b + 32, 0x7fffffff);
	expect_damaged(b, 24 + 16 + 40, 0, "longer than");
	/* a microsecond fraction of a million */
	put32le(b + 28, 1000000);
	put32le(b + 32, 40);
	expect_damaged(b, 24 + 16 + 40, 0, "fraction");
	/* after a good packet, the packet is named */
	put32le(b + 28, 0);
	memcpy(b + 80, b + 24, 16);
	expect_damaged(b, 80 + 10, 1, "after packet 1");

	/* pcapng: a block whose two lengths differ, a length out of range */
	n = block(ng, 0x0a0d0d0a, (const uint8_t *)"\x4d\x3c\x2b\x1a\1\0\0\0"
		  "\xff\xff\xff\xff\xff\xff\xff\xff", 16);
	ng[n - 4] ^= 4;
	expect_damaged(ng, n, 0, "two lengths differ");
	ng[n - 4] ^= 4;
	put32le(ng + n, 1);
	put32le(ng + n + 4, 0x7ffffff0);
	expect_damaged(ng, n + 8, 0, "out of range");
	put32le(ng + 8, 0x11223344);
	expect_damaged(ng, n, 0, "byte-order magic");

	{
		struct skin_error err;

		assert_null(skin_capture_open("/nonexistent/x.pcap", &err));
		assert_string_equal(err.text,
				    "/nonexistent/x.pcap: cannot open: No such file or directory");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_layers),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_pcap_round_trip),
		cmocka_unit_test(test_pcap_swapped_ns),
		cmocka_unit_test(test_pcapng),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
