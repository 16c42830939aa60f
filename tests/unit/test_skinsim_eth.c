// SPDX-License-Identifier: GPL-2.0
/*
 * test_skinsim_eth.c - skinsim's ETH boards, the programs end to end
 * without a network: skinsim --pcap writes a capture of a scenario on the
 * upper body's three buses, carried by two ETH boards (one with both CAN
 * ports, one with a single patch on CAN2); the capture holds one datagram
 * per board every millisecond, sequence numbers from 1, the ROP mix
 * docs/ETH.md gives; skin-eth --replay turns it into candump lines equal,
 * frame for frame and in order per interface, to the CAN log skinsim
 * writes for the same scenario and seed (but for the frames a skin ROP
 * cannot hold, counted); malformed, foreign and repeated datagrams mixed
 * into the capture are counted, none published; the ground truth is the
 * same in both runs; live UDP in a network namespace of its own (skipped
 * where one cannot be made); bad options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_file.h"

#include <arpa/inet.h>

#include <skin/capture.h>
#include <skin/ethrx.h>
#include <skin/ropframe.h>

#include "tap_skip.h"

#define EPOCH		1700000000ull
#define MS		1000000ull
#define BOARDS		"--board 10.0.1.24 --board 10.0.1.10:2"
#define BUSES		"--bus can0=eb24can1 --bus can1=eb24can2 --bus can2=eb10can2"

static char dir[] = "/tmp/test_skinsim_eth_XXXXXX";

static const char *tmp(const char *name)
{
	static char buf[8][1200];
	static unsigned int k;
	char *b = buf[k++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* Run a shell command line; its exit status, stderr in dir/err. */
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(cmd + n, sizeof(cmd) - (size_t)n, " 2>%s", tmp("err"));
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_err(const char *text)
{
	char *e = slurp(tmp("err"));

	if (!strstr(e, text))
		fail_msg("stderr '%s' lacks '%s'", e, text);
	free(e);
}

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/*
 * The frames of a candump log on one interface, "ID#DATA" each, in
 * order; with carried_only, only those a skin ROP holds (11-bit ids and
 * data: no remote request, 29-bit id or error frame).
 */
static unsigned int log_frames(const char *path, const char *ifname,
			       bool carried_only, char (*out)[40],
			       unsigned int max)
{
	FILE *f = fopen(path, "r");
	char line[256], ifn[32], frame[40];
	unsigned int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "(%*[0-9.]) %31s %39s", ifn, frame) != 2)
			fail_msg("%s: not a candump line: %s", path, line);
		if (strcmp(ifn, ifname))
			continue;
		if (carried_only && (strchr(frame, '#') - frame != 3 ||
				     strstr(frame, "#R")))
			continue;
		assert_true(n < max);
		strcpy(out[n++], frame);
	}
	fclose(f);
	return n;
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	f = fopen(tmp("arm.scn"), "w");
	assert_non_null(f);
	/* a touch, lost frames and garbage (some of it not carriable) */
	fprintf(f, "config %s/etc/skind.conf\nseed 7\nduration 1s\n"
		"at 0.2s press left_forearm taxel 300 radius 12mm force 90 name f\n"
		"at 0.7s release f\n"
		"at 0.3s fault drop 0.1 board can1:13 for 0.2s\n"
		"at 0.5s fault garbage can2:8 5 for 0.1s\n", SKIN_SOURCE_ROOT);
	fclose(f);
	/* the same scenario as a CAN log and as ETH boards' datagrams */
	assert_int_equal(sh("%s %s --fast --epoch %llu %s --log %s --truth %s",
			    SKINSIM_PATH, tmp("arm.scn"), EPOCH, BUSES,
			    tmp("can.log"), tmp("can.truth")), 0);
	assert_int_equal(sh("%s %s --fast --epoch %llu %s %s --pcap %s --truth %s",
			    SKINSIM_PATH, tmp("arm.scn"), EPOCH, BUSES, BOARDS,
			    tmp("eth.pcap"), tmp("eth.truth")), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[1200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The ground truth does not depend on how the frames leave. */
static void test_truth_same(void **state)
{
	char *a = slurp(tmp("can.truth")), *b = slurp(tmp("eth.truth"));

	(void)state;
	assert_true(strlen(a) > 10000);
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* the garbage's 29-bit ids and remote requests are not carried */
	assert_int_equal(sh("%s %s --fast --epoch %llu %s %s --pcap /dev/null",
			    SKINSIM_PATH, tmp("arm.scn"), EPOCH, BUSES, BOARDS), 0);
	expect_err(" not (29-bit ids, remote requests, error frames");
}

struct board_seen {
	const char *addr;
	unsigned int n_patches;
	uint64_t datagrams;
	uint64_t last_ts;
	uint64_t frames;
};

/* What the capture holds: per board a datagram every 1 ms from 1 ms,
 * sequence numbers 1, 2..., age in us since the start, from port 12345
 * to the head PC's 10.0.1.104:12345, each with 4 joints' 3 motion-control
 * ROPs, a skin ROP per patch index and, in the first of every thousand, a
 * management ROP. */
static void test_capture_shape(void **state)
{
	struct board_seen b[2] = { { "10.0.1.24", 2, 0, 0, 0 },
				   { "10.0.1.10", 1, 0, 0, 0 } };
	struct skin_capture_packet p;
	struct skin_capture *c;
	struct skin_error err;
	uint64_t total_frames = 0;
	unsigned int i;
	int n;

	(void)state;
	c = skin_capture_open(tmp("eth.pcap"), &err);
	assert_non_null(c);
	while ((n = skin_capture_next(c, &p, &err)) > 0) {
		struct skin_ropframe info;
		struct skin_udp u;

		assert_int_equal(skin_udp_decode(p.linktype, p.data, p.caplen, &u),
				 SKIN_CAP_UDP);
		assert_int_equal(u.sport, 12345);
		assert_int_equal(u.dport, 12345);
		assert_int_equal(u.dst.s_addr, ip("10.0.1.104").s_addr);
		for (i = 0; i < 2; i++)
			if (u.src.s_addr == ip(b[i].addr).s_addr)
				break;
		assert_true(i < 2);
		assert_int_equal(skin_ropframe_parse(u.payload, u.len, &info, NULL,
						     NULL), SKIN_ETH_OK);
		b[i].datagrams++;
		assert_int_equal(info.seq, b[i].datagrams);
		assert_int_equal(p.ts_ns, EPOCH * 1000000000ull + b[i].datagrams * MS);
		assert_int_equal(info.age_us, b[i].datagrams * 1000);
		assert_int_equal(info.n_skin, b[i].n_patches);
		assert_int_equal(info.n_other, 12 + (info.seq % 1000 == 1));
		assert_int_equal(info.n_unknown, 0);
		assert_int_equal(info.patches[0], (1u << b[i].n_patches) - 1);
		assert_true(info.n_frames <= 2 * 24);
		b[i].frames += info.n_frames;
		total_frames += info.n_frames;
	}
	assert_int_equal(n, 0);
	skin_capture_close(c);
	/* 1 s: a thousand each, and the frames still queued at the end */
	for (i = 0; i < 2; i++) {
		assert_true(b[i].datagrams >= 1000 && b[i].datagrams <= 1010);
		assert_true(b[i].frames > 1000);
	}
	assert_true(total_frames > 5000);

	/* --head moves where they go */
	assert_int_equal(sh("%s %s --fast -d 5ms %s --board 10.0.1.24 --head 192.168.7.1:4000 --pcap %s",
			    SKINSIM_PATH, tmp("arm.scn"),
			    "--bus can0=eb24can1 --bus can1=eb24can1 --bus can2=eb24can2",
			    tmp("head.pcap")), 0);
	c = skin_capture_open(tmp("head.pcap"), &err);
	assert_non_null(c);
	for (i = 0; (n = skin_capture_next(c, &p, &err)) > 0; i++) {
		struct skin_udp u;

		assert_int_equal(skin_udp_decode(p.linktype, p.data, p.caplen, &u),
				 SKIN_CAP_UDP);
		assert_int_equal(u.dst.s_addr, ip("192.168.7.1").s_addr);
		assert_int_equal(u.dport, 4000);
		assert_int_equal(u.sport, 12345);
	}
	assert_int_equal(n, 0);
	assert_true(i >= 5);
	skin_capture_close(c);
}

/* The replay's frames, per interface, against the CAN log's */
static void compare_logs(const char *replayed)
{
	static const char *const ifs[] = { "eb24can1", "eb24can2", "eb10can2" };
	static char a[20000][40], b[20000][40];
	unsigned int i, k, na, nb, all;

	for (i = 0; i < 3; i++) {
		all = log_frames(tmp("can.log"), ifs[i], false, a, 20000);
		na = log_frames(tmp("can.log"), ifs[i], true, a, 20000);
		nb = log_frames(replayed, ifs[i], false, b, 20000);
		assert_true(na > 500);
		/* only eb10can2 (can2) had garbage */
		if (i == 2)
			assert_true(all > na);
		else
			assert_int_equal(all, na);
		assert_int_equal(nb, na);
		for (k = 0; k < na; k++)
			if (strcmp(a[k], b[k]))
				fail_msg("%s frame %u: CAN log %s, ETH %s", ifs[i],
					 k, a[k], b[k]);
	}
}

static void test_round_trip(void **state)
{
	char *e;

	(void)state;
	assert_int_equal(sh("%s --replay %s " BOARDS " --log %s", SKIN_ETH,
			    tmp("eth.pcap"), tmp("eth.log")), 0);
	compare_logs(tmp("eth.log"));
	e = slurp(tmp("err"));
	assert_non_null(strstr(e, "lost 0 resets 0"));
	assert_null(strstr(e, "bad_"));
	assert_non_null(strstr(e, "foreign: datagrams 0\n"));
	free(e);
}

static void put(FILE *f, uint64_t ts, const char *src, const char *dst,
		uint16_t port, const uint8_t *buf, size_t len)
{
	assert_int_equal(skin_capture_write_udp(f, ts, ip(src), port, ip(dst),
						port, buf, len), 0);
}

/*
 * The capture again, every packet as it was, with others among them: a
 * foreign source, the head PC's command to a board, another port, and
 * from board eb24 a cut one, a wrong footer, a repeat of its last
 * datagram, one with a frame of 9 bytes and one with a ROP count that
 * lies (those two as a repeat of its last sequence number, so that no
 * real datagram is taken for a repeat).  The replay publishes the same
 * frames and counts each.
 */
static void test_mixed_capture(void **state)
{
	struct skin_capture_packet p;
	struct skin_capture *c;
	struct skin_error err;
	FILE *f = fopen(tmp("mixed.pcap"), "wb");
	unsigned int k = 0, inserted = 0;
	char want[256], *e;
	int n;

	(void)state;
	assert_non_null(f);
	assert_int_equal(skin_capture_write_header(f), 0);
	c = skin_capture_open(tmp("eth.pcap"), &err);
	assert_non_null(c);
	while ((n = skin_capture_next(c, &p, &err)) > 0) {
		uint8_t d[2048];
		struct skin_udp u;
		size_t len;

		assert_int_equal(skin_udp_decode(p.linktype, p.data, p.caplen, &u),
				 SKIN_CAP_UDP);
		put(f, p.ts_ns, inet_ntoa(u.src), "10.0.1.104", u.dport,
		    u.payload, u.len);
		k++;
		if (u.src.s_addr != ip("10.0.1.24").s_addr)
			continue;
		len = u.len;
		assert_true(len <= sizeof(d));
		memcpy(d, u.payload, len);
		switch (k) {
		case 101:	/* a board's bytes from no board */
			put(f, p.ts_ns + 1, "10.0.1.99", "10.0.1.104", 12345, d, len);
			break;
		case 201:	/* the head PC's to the board */
			put(f, p.ts_ns + 1, "10.0.1.104", "10.0.1.24", 12345, d, len);
			break;
		case 301:	/* another port */
			put(f, p.ts_ns + 1, "10.0.1.24", "10.0.1.104", 4000, d, len);
			break;
		case 401:	/* cut short */
			put(f, p.ts_ns + 1, "10.0.1.24", "10.0.1.104", 12345, d, 20);
			break;
		case 501:	/* the footer wrong */
			d[len - 1] ^= 0xff;
			put(f, p.ts_ns + 1, "10.0.1.24", "10.0.1.104", 12345, d, len);
			break;
		case 601:	/* the same datagram twice */
			put(f, p.ts_ns + 1, "10.0.1.24", "10.0.1.104", 12345, d, len);
			break;
		case 701:	/* the last skin ROP's first frame: 9 bytes */
			d[len - 4 - 244 + 4 + 1] |= 0x90;
			d[len - 4 - 244 + 2] = 1;	/* (count at least 1) */
			put(f, p.ts_ns + 1, "10.0.1.24", "10.0.1.104", 12345, d, len);
			break;
		case 801:	/* a ROP count one too many */
			d[6]++;
			put(f, p.ts_ns + 1, "10.0.1.24", "10.0.1.104", 12345, d, len);
			break;
		default:
			continue;
		}
		inserted++;
	}
	assert_int_equal(n, 0);
	skin_capture_close(c);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(inserted, 8);

	assert_int_equal(sh("%s --replay %s " BOARDS " --log %s", SKIN_ETH,
			    tmp("mixed.pcap"), tmp("mixed.log")), 0);
	compare_logs(tmp("mixed.log"));
	e = slurp(tmp("err"));
	snprintf(want, sizeof(want), "capture: packets %u udp %u other_port 1 to_boards 1\n",
		 k + 8, k + 8);
	if (!strstr(e, want))
		fail_msg("counters '%s' lack '%s'", e, want);
	assert_non_null(strstr(e, "foreign: datagrams 1\n"));
	/* eb24: 5 more than it sent, each under its verdict, none lost */
	assert_non_null(strstr(e, " lost 0 resets 0 rops "));
	if (!strstr(e, " truncated 1 bad_end 1 bad_rop_count 1 bad_item_len 1 duplicate 1\n"))
		fail_msg("counters '%s' lack eb24's rejections", e);
	free(e);
}

/* The head PC's receiver: "SRC PORT LEN SEQ" a datagram, from the first
 * (however late it comes: a loaded host) until 2 s of silence */
static const char receiver[] =
"import socket, struct, sys\n"
"s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
"s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)\n"
"s.bind(('10.0.1.104', 12345))\n"
"s.settimeout(120)\n"
"open(sys.argv[1] + '.ready', 'w').close()\n"
"with open(sys.argv[1], 'w') as out:\n"
"    try:\n"
"        while True:\n"
"            d, a = s.recvfrom(2048)\n"
"            s.settimeout(2)\n"
"            out.write('%s %d %d %d\\n' % (a[0], a[1], len(d), struct.unpack_from('<Q', d, 16)[0]))\n"
"    except socket.timeout:\n"
"        pass\n";

/* The namespace's UDP RcvbufErrors (/proc/net/snmp, as saved): the
 * datagrams its kernel dropped for a full receive buffer */
static unsigned long rcvbuf_errors(const char *path)
{
	char names[1024], values[1024], *n, *v, *sn, *sv;
	FILE *f = fopen(path, "r");
	unsigned long r = 0;
	bool found = false;

	assert_non_null(f);
	while (fgets(names, sizeof(names), f))
		if (!strncmp(names, "Udp: ", 5) && fgets(values, sizeof(values), f))
			break;
	fclose(f);
	assert_int_equal(strncmp(values, "Udp: ", 5), 0);
	for (n = strtok_r(names, " \n", &sn), v = strtok_r(values, " \n", &sv);
	     n && v; n = strtok_r(NULL, " \n", &sn), v = strtok_r(NULL, " \n", &sv))
		if (!strcmp(n, "RcvbufErrors")) {
			r = strtoul(v, NULL, 10);
			found = true;
		}
	assert_true(found);
	return r;
}

/* Live: both boards on the loopback of a network namespace of their own,
 * with the head PC, which receives each datagram as it was sent. */
static void test_live_udp(void **state)
{
	struct skin_capture_packet p;
	struct skin_capture *c;
	struct skin_error err;
	unsigned int sent = 0, dropped = 0;
	char line[128], *got;
	size_t off = 0;
	FILE *f;
	int n;

	(void)state;
	if (sh("unshare -rn true")) {
		skip();		/* (no user and network namespace here) */
		return;
	}
	f = fopen(tmp("recv.py"), "w");
	assert_non_null(f);
	fputs(receiver, f);
	fclose(f);
	f = fopen(tmp("live.sh"), "w");
	assert_non_null(f);
	fprintf(f, "set -e\nip link set lo up\n"
		"ip addr add 10.0.1.24/32 dev lo\nip addr add 10.0.1.10/32 dev lo\n"
		"ip addr add 10.0.1.104/32 dev lo\n"
		"python3 %s %s &\n"
		"while [ ! -e %s.ready ]; do sleep 0.05; done\n"
		"%s %s -d 200ms --epoch %llu %s %s --eth --pcap %s -v\n"
		"wait\ncat /proc/net/snmp >%s\n", tmp("recv.py"), tmp("live.txt"),
		tmp("live.txt"), SKINSIM_PATH, tmp("arm.scn"), EPOCH, BUSES,
		BOARDS, tmp("live.pcap"), tmp("snmp"));
	fclose(f);
	assert_int_equal(sh("unshare -rn sh %s", tmp("live.sh")), 0);
	expect_err("board eb24: ");
	expect_err("board eb10: ");
	expect_err(" datagrams, 0 not sent");

	/* every datagram the pcap says was sent, received, in the order
	 * sent (UDP on a loopback keeps it), but those the receiver's
	 * kernel dropped for a full buffer (a loaded host), which it counted */
	got = slurp(tmp("live.txt"));
	c = skin_capture_open(tmp("live.pcap"), &err);
	assert_non_null(c);
	while ((n = skin_capture_next(c, &p, &err)) > 0) {
		struct skin_ropframe info;
		struct skin_udp u;

		assert_int_equal(skin_udp_decode(p.linktype, p.data, p.caplen, &u),
				 SKIN_CAP_UDP);
		assert_int_equal(skin_ropframe_parse(u.payload, u.len, &info,
						     NULL, NULL), SKIN_ETH_OK);
		snprintf(line, sizeof(line), "%s 12345 %zu %llu\n",
			 inet_ntoa(u.src), u.len, (unsigned long long)info.seq);
		if (!strncmp(got + off, line, strlen(line)))
			off += strlen(line);
		else
			dropped++;
		sent++;
	}
	assert_int_equal(n, 0);
	skin_capture_close(c);
	if (got[off])
		fail_msg("received '%.60s', not sent then", got + off);
	assert_int_equal(dropped, rcvbuf_errors(tmp("snmp")));
	assert_true(sent >= 2 * 200);
	if (dropped)
		printf("# %u of %u datagrams dropped by the receiver's kernel (buffer full)\n",
		       dropped, sent);
	free(got);
}

static void test_errors(void **state)
{
	FILE *f;

	(void)state;
	assert_int_equal(sh("%s --pcap x %s", SKINSIM_PATH, tmp("arm.scn")), 2);
	expect_err("--pcap and --eth need the boards: --board");
	assert_int_equal(sh("%s --board 10.0.1.24 --log x %s", SKINSIM_PATH,
			    tmp("arm.scn")), 2);
	expect_err("--board goes with --pcap or --eth");
	assert_int_equal(sh("%s --eth --fast " BOARDS " %s", SKINSIM_PATH,
			    tmp("arm.scn")), 2);
	expect_err("--eth sends in real time: no --fast");
	assert_int_equal(sh("%s --can --pcap x " BOARDS " %s", SKINSIM_PATH,
			    tmp("arm.scn")), 2);
	assert_int_equal(sh("%s --pcap - --log - " BOARDS " %s", SKINSIM_PATH,
			    tmp("arm.scn")), 2);
	expect_err("one of --pcap, --log and --truth on stdout");
	assert_int_equal(sh("%s --fast --pcap %s --board 10.0.1.300 %s %s",
			    SKINSIM_PATH, tmp("x.pcap"), BUSES, tmp("arm.scn")), 1);
	expect_err("--board: 10.0.1.300: expected [NAME=]IPV4[:PORT[,PORT]]");
	assert_int_equal(sh("%s --fast --pcap %s " BOARDS " --head 10.0.1.104:0 %s %s",
			    SKINSIM_PATH, tmp("x.pcap"), BUSES, tmp("arm.scn")), 1);
	expect_err("--head: expected IPV4[:PORT], not '10.0.1.104:0'");
	/* a bus no board carries */
	assert_int_equal(sh("%s --fast --pcap %s " BOARDS " %s", SKINSIM_PATH,
			    tmp("x.pcap"), tmp("arm.scn")), 1);
	expect_err("its bus can0 is no CAN port of a --board");
	/* --eth binds each board's address: not one of this host's */
	f = fopen("/proc/sys/net/ipv4/ip_nonlocal_bind", "r");
	if (f && fgetc(f) == '0') {
		assert_int_equal(sh("%s -d 10ms --board 192.0.2.1 --eth "
				    "--bus can0=eb1can1 --bus can1=eb1can1 --bus can2=eb1can1 %s",
				    SKINSIM_PATH, tmp("arm.scn")), 1);
		expect_err("board eb1: UDP 192.0.2.1:12345: Cannot assign requested address");
	}
	if (f)
		fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truth_same),
		cmocka_unit_test(test_capture_shape),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_mixed_capture),
		cmocka_unit_test(test_live_udp),
		cmocka_unit_test(test_errors),
	};

	tap_skip_filter();
	return cmocka_run_group_tests(tests, setup, teardown);
}
