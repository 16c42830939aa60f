// SPDX-License-Identifier: GPL-2.0
/*
 * test_eth_replay.c - skin-eth --replay, the program: a capture written
 * here (two boards' datagrams among the head PC's own sends, a foreign
 * source, a lost datagram, a malformed one, another port) replayed to
 * the exact candump -L lines and counters expected; bad captures and
 * bad usage
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "test_file.h"

#include <arpa/inet.h>

#include <skin/capture.h>
#include <skin/ropframe.h>

#define T0	1700000000000000000ull	/* ns */
#define US	1000ull

static char dir[] = "/tmp/test_eth_replay_XXXXXX";
static char cap[64], out[64], errf[64];

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/* skin-eth with args, stdout and stderr to files: its exit status */
static int run(const char *const *args)
{
	const char *argv[32] = { SKIN_ETH };
	pid_t pid;
	int i, status;

	for (i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (!freopen(out, "w", stdout) || !freopen(errf, "w", stderr))
			_exit(127);
		execv(SKIN_ETH, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void put(FILE *f, uint64_t ts, const char *src, uint16_t sport,
		const char *dst, const uint8_t *buf, size_t len)
{
	assert_int_equal(skin_capture_write_udp(f, ts, ip(src), sport, ip(dst),
						12345, buf, len), 0);
}

static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cap, sizeof(cap), "%s/robot.pcap", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(errf, sizeof(errf), "%s/err", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(cap);
	unlink(out);
	unlink(errf);
	rmdir(dir);
	return 0;
}

static void write_capture(void)
{
	const struct skin_eth_can p0[2] = {
		{ .id = 0x4e0, .len = 8, .data = { 0x40, 1, 2, 3, 4, 5, 6, 7 } },
		{ .id = 0x4e1, .len = 8, .data = { 0xc0, 0x11, 0x12, 0x13, 0x14, 0x15 } },
	};
	const struct skin_eth_can p1 = { .id = 0x3a5, .len = 3,
					 .data = { 0x40, 0xaa, 0xbb } };
	const struct skin_eth_can later = { .id = 0x4e2, .len = 8,
					    .data = { 0x40 } };
	const struct skin_eth_can empty = { .id = 0x3a6, .len = 0 };
	const struct skin_eth_can eb10 = { .id = 0x4f0, .len = 8,
					   .data = { 0xc0, 9, 8, 7, 6, 5, 0, 0 } };
	uint8_t joint[24] = { 1 }, buf[2048];
	struct skin_ropframe_writer w;
	FILE *f = fopen(cap, "wb");
	size_t len;

	assert_non_null(f);
	assert_int_equal(skin_capture_write_header(f), 0);

	/* board eb24, sequence 1: patch 0 (CAN1) and patch 1 (CAN2) */
	skin_ropframe_begin(&w, buf, sizeof(buf), 10, 1);
	skin_ropframe_add_skin(&w, 0, 0, p0, 2, 0, 0);
	skin_ropframe_add_skin(&w, 0, 1, &p1, 1, 0, 0);
	len = skin_ropframe_end(&w);
	put(f, T0 + 100 * US, "10.0.1.24", 12345, "10.0.1.104", buf, len);
	/* the head PC's command to the board: not the boards' traffic */
	put(f, T0 + 200 * US, "10.0.1.104", 12345, "10.0.1.24", buf, len);
	/* the same bytes from an address that is no board */
	put(f, T0 + 300 * US, "10.0.1.99", 12345, "10.0.1.104", buf, len);

	/* sequence 2: motion control, then the skin, with sign and time */
	skin_ropframe_begin(&w, buf, sizeof(buf), 20, 2);
	skin_ropframe_add_rop(&w, 0, SKIN_ROP_SIG, SKIN_ROP_ID32(1, 0, 0, 10),
			      joint, sizeof(joint), 0, 0);
	skin_ropframe_add_skin(&w, SKIN_ROP_CTRL_SIGN | SKIN_ROP_CTRL_TIME, 0,
			       &later, 1, 0x11, 0x22);
	len = skin_ropframe_end(&w);
	put(f, T0 + 1100 * US, "10.0.1.24", 12345, "10.0.1.104", buf, len);

	/* sequence 4: 3 was lost */
	skin_ropframe_begin(&w, buf, sizeof(buf), 40, 4);
	skin_ropframe_add_skin(&w, 0, 1, &empty, 1, 0, 0);
	len = skin_ropframe_end(&w);
	put(f, T0 + 2100 * US, "10.0.1.24", 12345, "10.0.1.104", buf, len);

	/* sequence 5, a frame of 9 bytes: withheld, counted */
	skin_ropframe_begin(&w, buf, sizeof(buf), 50, 5);
	skin_ropframe_add_skin(&w, 0, 0, p0, 1, 0, 0);
	len = skin_ropframe_end(&w);
	buf[24 + 8 + 4 + 1] = 0x94;
	put(f, T0 + 3100 * US, "10.0.1.24", 12345, "10.0.1.104", buf, len);

	/* another port altogether */
	assert_int_equal(skin_capture_write_udp(f, T0 + 4200 * US,
						ip("10.0.1.24"), 5000,
						ip("10.0.1.104"), 5000, buf,
						len), 0);

	/* board eb10: one patch, on its CAN2 */
	skin_ropframe_begin(&w, buf, sizeof(buf), 60, 9);
	skin_ropframe_add_skin(&w, 0, 0, &eb10, 1, 0, 0);
	len = skin_ropframe_end(&w);
	put(f, T0 + 5100 * US, "10.0.1.10", 12345, "10.0.1.104", buf, len);
	fclose(f);
}

static void test_replay(void **state)
{
	static const char *const args[] = {
		"--replay", cap, "--board", "10.0.1.24",
		"--board", "10.0.1.10:2", NULL,
	};
	char boards[80];
	const char *const from_file[] = { "--replay", cap, "--boards", boards, NULL };
	char *o, *e;
	FILE *f;

	(void)state;
	write_capture();
	assert_int_equal(run(args), 0);
	o = slurp(out);
	e = slurp(errf);
	assert_string_equal(o,
		"(1700000000.000100) eb24can1 4E0#4001020304050607\n"
		"(1700000000.000100) eb24can1 4E1#C011121314150000\n"
		"(1700000000.000100) eb24can2 3A5#40AABB\n"
		"(1700000000.001100) eb24can1 4E2#4000000000000000\n"
		"(1700000000.002100) eb24can2 3A6#\n"
		"(1700000000.005100) eb10can2 4F0#C009080706050000\n");
	if (!strstr(e, "capture: packets 8 udp 8 other_port 1 to_boards 1\n") ||
	    !strstr(e, "eb24 10.0.1.24: datagrams 4 published 3 frames 5 lost 1 resets 0 rops 4/1/0 bad_item_len 1\n") ||
	    !strstr(e, "eb10 10.0.1.10: datagrams 1 published 1 frames 1 lost 0 resets 0 rops 1/0/0\n") ||
	    !strstr(e, "foreign: datagrams 1\n"))
		fail_msg("counters:\n%s", e);
	free(e);

	/* the same boards from a file as skinctl import writes it */
	snprintf(boards, sizeof(boards), "%s/skin-eth.boards", dir);
	f = fopen(boards, "w");
	assert_non_null(f);
	fputs("# skin-eth.boards\n# left_arm (ems4)\neb24=10.0.1.24:1,2\n"
	      "  10.0.1.10:2   # one patch, CAN2\n", f);
	fclose(f);
	assert_int_equal(run(from_file), 0);
	e = slurp(out);
	assert_string_equal(e, o);
	free(e);
	unlink(boards);
	free(o);
}

/* The same log through --log FILE; none with --no-log */
static void test_log_options(void **state)
{
	char logp[80];
	const char *const to_file[] = {
		"-r", cap, "-b", "10.0.1.24", "-o", logp, NULL,
	};
	const char *const none[] = {
		"-r", cap, "-b", "10.0.1.24", "--no-log", NULL,
	};
	char *o, *l;

	(void)state;
	snprintf(logp, sizeof(logp), "%s/log", dir);
	write_capture();
	assert_int_equal(run(to_file), 0);
	o = slurp(out);
	l = slurp(logp);
	assert_string_equal(o, "");
	/* without eb10 configured, its datagram is foreign */
	assert_non_null(strstr(l, "(1700000000.002100) eb24can2 3A6#\n"));
	assert_null(strstr(l, "eb10"));
	free(o);
	free(l);
	o = slurp(errf);
	assert_non_null(strstr(o, "foreign: datagrams 2\n"));
	free(o);
	unlink(logp);

	assert_int_equal(run(none), 0);
	o = slurp(out);
	assert_string_equal(o, "");
	free(o);
}

static void test_bad_input(void **state)
{
	static const char *const no_board[] = { "--replay", cap, NULL };
	static const char *const bad_board[] = {
		"--replay", cap, "--board", "10.0.1", NULL,
	};
	/* live, the default mode, with no CAN interface on this host */
	static const char *const live[] = { "--board", "10.0.1.24", NULL };
	static const char *const two_modes[] = {
		"--replay", cap, "--setup", "--board", "10.0.1.24", NULL,
	};
	char boards[80];
	const char *const from_file[] = { "--replay", cap, "--boards", boards, NULL };
	static const char *const missing[] = {
		"--replay", "/nonexistent.pcap", "--board", "10.0.1.24", NULL,
	};
	const char *const damaged[] = {
		"--replay", cap, "--board", "10.0.1.24", NULL,
	};
	char *e;
	FILE *f;

	(void)state;
	assert_int_equal(run(no_board), 2);
	assert_int_equal(run(bad_board), 2);
	e = slurp(errf);
	assert_non_null(strstr(e, "10.0.1: expected [NAME=]IPV4"));
	free(e);
	assert_int_equal(run(live), 1);
	e = slurp(errf);
	assert_non_null(strstr(e, "no interface eb24can1 for board eb24"));
	free(e);
	assert_int_equal(run(two_modes), 2);
	/* a boards file: its bad line named FILE:LINE, past comments */
	snprintf(boards, sizeof(boards), "%s/skin-eth.boards", dir);
	f = fopen(boards, "w");
	assert_non_null(f);
	fputs("# comment\n\neb24=10.0.1.24:1,2  # the arm\neb10=10.0.1.300:2\n", f);
	fclose(f);
	assert_int_equal(run(from_file), 1);
	e = slurp(errf);
	assert_non_null(strstr(e, "skin-eth.boards:4: eb10=10.0.1.300:2: expected [NAME=]IPV4"));
	free(e);
	f = fopen(boards, "w");
	fputs("# nothing\n", f);
	fclose(f);
	assert_int_equal(run(from_file), 1);
	e = slurp(errf);
	assert_non_null(strstr(e, "skin-eth.boards: no board in it"));
	free(e);
	unlink(boards);
	assert_int_equal(run(missing), 1);
	e = slurp(errf);
	assert_non_null(strstr(e, "/nonexistent.pcap: cannot open"));
	free(e);

	/* a capture cut inside a packet: the frames before it are written,
	 * the damage said, exit 1 */
	write_capture();
	/* (the first packet: its record, Ethernet, IPv4 and UDP headers,
	 * a ropframe of two full skin ROPs) */
	assert_int_equal(truncate(cap, 24 + 16 + 42 + 24 + 2 * 252 + 4 +
				  16 + 100), 0);
	assert_int_equal(run(damaged), 1);
	e = slurp(out);
	assert_non_null(strstr(e, "eb24can2 3A5#40AABB\n"));
	free(e);
	e = slurp(errf);
	assert_non_null(strstr(e, "after packet 1: truncated"));
	free(e);
	f = fopen(cap, "w");
	fclose(f);
	assert_int_equal(run(damaged), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_log_options),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
