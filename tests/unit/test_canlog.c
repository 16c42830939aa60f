// SPDX-License-Identifier: GPL-2.0
/*
 * test_canlog.c - can-utils' log format: every frame kind both ways, every
 * kind of bad line with its line and column, the file reader
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/can/error.h>

#include <skin/canlog.h>

static struct skin_canlog_record parse_ok(const char *line)
{
	struct skin_canlog_record r;
	struct skin_error err;
	int n = skin_canlog_parse_line(line, strlen(line), "t.log", 7, &r, &err);

	if (n != 1)
		fail_msg("'%s' did not parse: %d %s", line, n, n < 0 ? err.text : "");
	assert_int_equal(r.line, 7);
	return r;
}

/* Parses, then formats back to exactly the same text. */
static struct skin_canlog_record round_trip(const char *line)
{
	struct skin_canlog_record r = parse_ok(line);
	char buf[SKIN_CANLOG_LINE_MAX];
	char want[SKIN_CANLOG_LINE_MAX];

	snprintf(want, sizeof(want), "%s\n", line);
	assert_int_equal(skin_canlog_format(buf, sizeof(buf), &r), strlen(want));
	assert_string_equal(buf, want);
	return r;
}

static void test_classic(void **state)
{
	struct skin_canlog_record r;

	(void)state;
	r = round_trip("(1700000000.123456) can0 4E5#40F0F1F2F3F4F5F6");
	assert_int_equal(r.ts_ns, 1700000000123456000ULL);
	assert_string_equal(r.ifname, "can0");
	assert_false(r.is_fd);
	assert_int_equal(r.frame.can_id, 0x4e5);
	assert_int_equal(r.frame.len, 8);
	assert_int_equal(r.frame.flags, 0);
	assert_int_equal(r.frame.data[0], 0x40);
	assert_int_equal(r.frame.data[7], 0xf6);

	r = round_trip("(0000000001.000001) vcan12 000#");
	assert_int_equal(r.ts_ns, 1000001000ULL);
	assert_int_equal(r.frame.can_id, 0);
	assert_int_equal(r.frame.len, 0);

	r = round_trip("(0000000000.000000) c 7FF#C0010203040506");
	assert_int_equal(r.frame.can_id, 0x7ff);
	assert_int_equal(r.frame.len, 7);

	/* lower case, '.' separators, CRLF and extra blanks are read too */
	r = parse_ok("(1.000002)\tcan0   4e5#40.f0.01  \r\n");
	assert_int_equal(r.ts_ns, 1000002000ULL);
	assert_int_equal(r.frame.can_id, 0x4e5);
	assert_int_equal(r.frame.len, 3);
	assert_int_equal(r.frame.data[1], 0xf0);
}

static void test_extended_rtr_error_fd(void **state)
{
	struct skin_canlog_record r;

	(void)state;
	r = round_trip("(0000000010.500000) can1 12345678#0011");
	assert_int_equal(r.frame.can_id, 0x12345678 | CAN_EFF_FLAG);
	assert_int_equal(r.frame.len, 2);

	r = round_trip("(0000000010.500000) can1 00000001#");
	assert_int_equal(r.frame.can_id, 1 | CAN_EFF_FLAG);

	r = round_trip("(0000000010.500000) can1 123#R");
	assert_int_equal(r.frame.can_id, 0x123 | CAN_RTR_FLAG);
	assert_int_equal(r.frame.len, 0);
	r = round_trip("(0000000010.500000) can1 123#R5");
	assert_int_equal(r.frame.len, 5);
	r = round_trip("(0000000010.500000) can1 1ABCDEF0#R8");
	assert_int_equal(r.frame.can_id, 0x1abcdef0 | CAN_EFF_FLAG | CAN_RTR_FLAG);
	assert_int_equal(r.frame.len, 8);

	r = round_trip("(0000000010.500000) can1 20000080#0000000000000000");
	assert_int_equal(r.frame.can_id, CAN_ERR_FLAG | CAN_ERR_BUSERROR);
	assert_int_equal(r.frame.len, 8);
	assert_false(r.is_fd);

	r = round_trip("(0000000010.500000) can1 123##1001122");
	assert_true(r.is_fd);
	assert_int_equal(r.frame.flags, CANFD_BRS);
	assert_int_equal(r.frame.len, 3);
	assert_int_equal(r.frame.data[2], 0x22);

	r = round_trip("(0000000010.500000) can1 12345678##3"
		       "000102030405060708090A0B0C0D0E0F"
		       "101112131415161718191A1B1C1D1E1F"
		       "202122232425262728292A2B2C2D2E2F"
		       "303132333435363738393A3B3C3D3E3F");
	assert_true(r.is_fd);
	assert_int_equal(r.frame.len, 64);
	assert_int_equal(r.frame.data[63], 0x3f);
	assert_int_equal(r.frame.can_id, 0x12345678 | CAN_EFF_FLAG);

	r = round_trip("(0000000010.500000) can1 123#0011223344556677_C");
	assert_int_equal(r.len8_dlc, 12);
	assert_int_equal(r.frame.len, 8);
}

static void test_comments_and_direction(void **state)
{
	struct skin_canlog_record r;
	struct skin_error err;

	(void)state;
	assert_int_equal(skin_canlog_parse_line("", 0, "t", 1, &r, &err), 0);
	assert_int_equal(skin_canlog_parse_line("  \t\n", 4, "t", 1, &r, &err), 0);
	assert_int_equal(skin_canlog_parse_line("# hi (1.000000) x 1#", 20,
						"t", 1, &r, &err), 0);
	r = parse_ok("(1.000000) can0 123#01 R");
	assert_int_equal(r.frame.len, 1);
	r = parse_ok("(1.000000) can0 123#01 T ");
	assert_int_equal(r.frame.len, 1);
}

struct bad {
	const char *line;
	unsigned int col;
	const char *what;	/* a part of the message */
};

static const struct bad bad_lines[] = {
	{ "junk", 1, "expected '(' and a timestamp" },
	{ " (1.000000) can0 123#", 2, "start with '(' in column 1" },
	{ "(.000000) can0 123#", 2, "seconds" },
	{ "(1,000000) can0 123#", 3, "expected '.'" },
	{ "(1.00000) can0 123#", 9, "6 fractional digits" },
	{ "(1.0000001) can0 123#", 10, "more than 6" },
	{ "(1.000000 can0 123#", 10, "expected ')'" },
	{ "(99999999999999999999.000000) can0 123#", 2, "out of range" },
	{ "(1.000000)can0 123#", 11, "blank before the interface" },
	{ "(1.000000) ", 12, "interface name" },
	{ "(1.000000) can0", 16, "blank before the frame" },
	{ "(1.000000) abcdefghijklmnop 123#", 12, "longer than 15" },
	{ "(1.000000) can0 #", 17, "expected a CAN id" },
	{ "(1.000000) can0 12#00", 17, "3 (standard) or 8" },
	{ "(1.000000) can0 1234#00", 17, "3 (standard) or 8" },
	{ "(1.000000) can0 123456789#00", 17, "3 (standard) or 8" },
	{ "(1.000000) can0 123:00", 20, "expected '#'" },
	{ "(1.000000) can0 800#00", 17, "above 0x7FF" },
	{ "(1.000000) can0 FFF#00", 17, "above 0x7FF" },
	{ "(1.000000) can0 40000000#", 17, "above 0x1FFFFFFF" },
	{ "(1.000000) can0 E0000004#00", 17, "EFF or RTR" },
	{ "(1.000000) can0 20000004#R", 26, "error frame cannot be a remote" },
	{ "(1.000000) can0 20000004##100", 26, "error frame cannot be CAN FD" },
	{ "(1.000000) can0 123#R9", 22, "DLC 9 above 8" },
	{ "(1.000000) can0 123#0", 21, "two hex digits" },
	{ "(1.000000) can0 123#001", 23, "two hex digits" },
	{ "(1.000000) can0 123#00112233445566778", 37, "more than 8" },
	{ "(1.000000) can0 123#001122334455667788", 37, "more than 8" },
	{ "(1.000000) can0 123##", 22, "CAN FD flags" },
	{ "(1.000000) can0 123##1000102030405060708", 17, "length 9" },
	{ "(1.000000) can0 123#0011223344556677_8", 38, "raw DLC 9..F" },
	{ "(1.000000) can0 123#0011223344556677_", 38, "raw DLC 9..F" },
	{ "(1.000000) can0 123#00g", 23, "unexpected 'g' in the frame" },
	{ "(1.000000) can0 123#00 x", 24, "after the frame" },
	{ "(1.000000) can0 123#00 R R", 26, "after the frame" },
	{ "(1.000000) can0 123#00 RT", 24, "after the frame" },
};

static void test_bad_lines(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_lines) / sizeof(bad_lines[0]); i++) {
		const struct bad *b = &bad_lines[i];
		struct skin_canlog_record r;
		struct skin_error err;
		char want[64];
		int n;

		memset(&err, 0, sizeof(err));
		n = skin_canlog_parse_line(b->line, strlen(b->line), "x.log",
					   42, &r, &err);
		if (n != -1)
			fail_msg("'%s' was accepted (%d)", b->line, n);
		snprintf(want, sizeof(want), "x.log:42:%u: ", b->col);
		if (strncmp(err.text, want, strlen(want)) ||
		    !strstr(err.what, b->what))
			fail_msg("'%s': got '%s', want '%s%s...'", b->line,
				 err.text, want, b->what);
		assert_int_equal(err.line, 42);
		assert_int_equal(err.column, b->col);
	}
}

static void test_nul_byte(void **state)
{
	static const char line[] = "(1.000000) can0 123#00\0";
	struct skin_canlog_record r;
	struct skin_error err;

	(void)state;
	assert_int_equal(skin_canlog_parse_line(line, sizeof(line) - 1, "n", 3,
						&r, &err), -1);
	assert_string_equal(err.text, "n:3:23: unexpected byte 0x00 in the frame");
}

static void test_format_refuses(void **state)
{
	struct skin_canlog_record r;
	char buf[SKIN_CANLOG_LINE_MAX];

	(void)state;
	memset(&r, 0, sizeof(r));
	strcpy(r.ifname, "can0");
	r.frame.can_id = 0x800;			/* not 11-bit */
	assert_int_equal(skin_canlog_format(buf, sizeof(buf), &r), -1);
	r.frame.can_id = 0x123;
	r.frame.len = 9;
	assert_int_equal(skin_canlog_format(buf, sizeof(buf), &r), -1);
	r.is_fd = true;
	assert_int_equal(skin_canlog_format(buf, sizeof(buf), &r), -1);
	r.frame.len = 12;
	assert_true(skin_canlog_format(buf, sizeof(buf), &r) > 0);
	assert_int_equal(skin_canlog_format(buf, 10, &r), -1);	/* too small */
	r.ifname[0] = '\0';
	assert_int_equal(skin_canlog_format(buf, sizeof(buf), &r), -1);
	strcpy(r.ifname, "ca n");
	assert_int_equal(skin_canlog_format(buf, sizeof(buf), &r), -1);
}

/* Every frame the 11/29-bit spaces and lengths allow, through a file. */
static void test_file_round_trip(void **state)
{
	char path[] = "/tmp/test_canlog_XXXXXX";
	struct skin_canlog_record w, r;
	struct skin_canlog *l;
	struct skin_error err;
	unsigned int i, n = 0;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (i = 0; i < 2000; i++) {
		struct can_frame cf = { 0 };
		unsigned int k;

		cf.can_id = (i * 2654435761u) & (i % 3 ? CAN_SFF_MASK : CAN_EFF_MASK);
		if (i % 3 == 0)
			cf.can_id |= CAN_EFF_FLAG;
		if (i % 7 == 0)
			cf.can_id |= CAN_RTR_FLAG;
		if (i % 11 == 0)
			cf.can_id = CAN_ERR_FLAG | (i & CAN_ERR_MASK);
		cf.len = (uint8_t)(i % 9);
		for (k = 0; k < 8; k++)
			cf.data[k] = (uint8_t)(i * 31 + k * 7);
		skin_canlog_record_classic(&w, 1000ULL * i * 997, i % 2 ? "vcan0" : "can1", &cf);
		assert_int_equal(skin_canlog_write(f, &w), 0);
	}
	fprintf(f, "# a comment\n\n(1.000000) can0 bad\n(2.000000) can0 001#AA\n");
	fclose(f);

	l = skin_canlog_open(path, &err);
	assert_non_null(l);
	for (i = 0; i < 2000; i++) {
		struct can_frame cf = { 0 };
		unsigned int k;

		assert_int_equal(skin_canlog_next(l, &r, &err), 1);
		assert_int_equal(r.line, i + 1);
		cf.can_id = (i * 2654435761u) & (i % 3 ? CAN_SFF_MASK : CAN_EFF_MASK);
		if (i % 3 == 0)
			cf.can_id |= CAN_EFF_FLAG;
		if (i % 7 == 0)
			cf.can_id |= CAN_RTR_FLAG;
		if (i % 11 == 0)
			cf.can_id = CAN_ERR_FLAG | (i & CAN_ERR_MASK);
		assert_int_equal(r.frame.can_id, cf.can_id);
		assert_int_equal(r.frame.len, i % 9);
		assert_int_equal(r.ts_ns, 1000ULL * i * 997);
		assert_string_equal(r.ifname, i % 2 ? "vcan0" : "can1");
		if (!(cf.can_id & CAN_RTR_FLAG))
			for (k = 0; k < r.frame.len; k++)
				assert_int_equal(r.frame.data[k], (uint8_t)(i * 31 + k * 7));
		n++;
	}
	/* the bad line is reported with its number, and reading goes on */
	assert_int_equal(skin_canlog_next(l, &r, &err), -1);
	assert_int_equal(err.line, 2003);
	assert_non_null(strstr(err.text, ":2003:"));
	assert_int_equal(skin_canlog_line(l), 2003);
	assert_int_equal(skin_canlog_next(l, &r, &err), 1);
	assert_int_equal(r.line, 2004);
	assert_int_equal(r.frame.can_id, 1);
	assert_int_equal(skin_canlog_next(l, &r, &err), 0);
	assert_int_equal(skin_canlog_next(l, &r, &err), 0);
	skin_canlog_close(l);
	unlink(path);
	assert_int_equal(n, 2000);
}

static void test_long_line_and_missing_file(void **state)
{
	char path[] = "/tmp/test_canlog_XXXXXX";
	struct skin_canlog_record r;
	struct skin_canlog *l;
	struct skin_error err;
	int fd = mkstemp(path);
	FILE *f;
	int i;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "(1.000000) can0 123#");
	for (i = 0; i < 400; i++)
		fputs("00", f);
	fprintf(f, "\n(1.000000) can0 123#11\n");
	fclose(f);
	l = skin_canlog_open(path, &err);
	assert_non_null(l);
	assert_int_equal(skin_canlog_next(l, &r, &err), -1);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.what, "longer than"));
	assert_int_equal(skin_canlog_next(l, &r, &err), 1);
	assert_int_equal(r.line, 2);
	skin_canlog_close(l);
	unlink(path);

	assert_null(skin_canlog_open("/nonexistent/x.log", &err));
	assert_string_equal(err.text,
			    "/nonexistent/x.log: cannot open: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classic),
		cmocka_unit_test(test_extended_rtr_error_fd),
		cmocka_unit_test(test_comments_and_direction),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_format_refuses),
		cmocka_unit_test(test_file_round_trip),
		cmocka_unit_test(test_long_line_and_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
