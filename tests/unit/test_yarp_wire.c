// SPDX-License-Identifier: GPL-2.0
/*
 * test_yarp_wire.c - YARP's wire format, byte for byte
 *
 * Every expected byte string here is written out by hand from the layouts
 * of docs/YARP.md (and YARP 3.12.3's sources),
 * not produced by the encoder under test: a change of the encoder that
 * changes a byte fails here.  tests/yarp checks the same encodings
 * against YARP's own tools.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "wire.h"

#define I32(x) (uint8_t)((x) & 0xff), (uint8_t)(((x) >> 8) & 0xff), \
	(uint8_t)(((x) >> 16) & 0xff), (uint8_t)(((x) >> 24) & 0xff)
/* little-endian IEEE 754 doubles used below */
#define F64_0    0, 0, 0, 0, 0, 0, 0, 0
#define F64_1    0, 0, 0, 0, 0, 0, 0xf0, 0x3f
#define F64_2    0, 0, 0, 0, 0, 0, 0, 0x40
#define F64_M1_5 0, 0, 0, 0, 0, 0, 0xf8, 0xbf	/* -1.5 */
#define F64_30   0, 0, 0, 0, 0, 0, 0x3e, 0x40	/* 30.0 */
#define F64_255  0, 0, 0, 0, 0, 0xe0, 0x6f, 0x40	/* 255.0 */
#define F64_0_5  0, 0, 0, 0, 0, 0, 0xe0, 0x3f	/* 0.5 */

static void expect_bytes(const struct yw_buf *b, const uint8_t *want,
			 size_t n)
{
	size_t i;

	assert_true(yw_buf_ok(b));
	if (b->len != n)
		print_error("length %zu, want %zu\n", b->len, n);
	for (i = 0; i < n && i < b->len; i++)
		if (b->data[i] != want[i]) {
			print_error("byte %zu: %02x, want %02x\n", i,
				    b->data[i], want[i]);
			break;
		}
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

/* YARP's documented example Vector, {1.0, 2.0} */
static void vector_example(void **state)
{
	static const uint8_t want[] = {
		0x0a, 0x01, 0, 0, 0x02, 0, 0, 0, F64_1, F64_2,
	};
	const float x[] = { 1.0f, 2.0f };
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_vector_f32(&b, YW_YARP3, x, 2);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_free(&b);
}

/* YARP 4.0: FLOAT64 is 20, the list code 276 */
static void vector_yarp4(void **state)
{
	static const uint8_t want[] = {
		0x14, 0x01, 0, 0, 0x03, 0, 0, 0, F64_0, F64_255, F64_0_5,
	};
	const float x[] = { 0.0f, 255.0f, 0.5f };
	const uint8_t raw[] = { 0, 255 };
	static const uint8_t want_raw[] = {
		0x14, 0x01, 0, 0, 0x02, 0, 0, 0, F64_0, F64_255,
	};
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_vector_f32(&b, YW_YARP4, x, 3);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_reset(&b);
	yw_vector_u8(&b, YW_YARP4, raw, 2);
	expect_bytes(&b, want_raw, sizeof(want_raw));
	yw_buf_free(&b);
}

/* Text: YARP's to_string, "%.21g" and ".0" on whole numbers */
static void vector_text(void **state)
{
	const float x[] = { 1.0f, 0.5f, -3.0f, 0.1f };
	const uint8_t raw[] = { 0, 17, 255 };
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_vector_f32_text(&b, x, 4);
	yw_put(&b, "", 1);
	/* 0.1f is 0.100000001490116119384765625 exactly */
	assert_string_equal((char *)b.data,
			    "1.0 0.5 -3.0 0.100000001490116119385");
	yw_buf_reset(&b);
	yw_vector_u8_text(&b, raw, 3);
	yw_put(&b, "", 1);
	assert_string_equal((char *)b.data, "0.0 17.0 255.0");
	yw_buf_free(&b);
}

/*
 * monitor:o's Vector of doubles, as skinManager's yarp::sig::Vector:
 * {frequency, drift..., raw...}, the doubles as they are (a drift's
 * fraction kept, not a float's), and its text with YARP's %.21g
 */
static void vector_f64(void **state)
{
	static const uint8_t want[] = {
		0x0a, 0x01, 0, 0, 0x03, 0, 0, 0, F64_0_5, F64_255, F64_0,
	};
	static const uint8_t want4[] = {
		0x14, 0x01, 0, 0, 0x01, 0, 0, 0, F64_1,
	};
	const double x[] = { 0.5, 255.0, 0.0 }, one = 1.0;
	const double text[] = { 49.99, -0.0125, 3.0, 0.1 };
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_vector_f64(&b, YW_YARP3, x, 3);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_reset(&b);
	yw_vector_f64(&b, YW_YARP4, &one, 1);
	expect_bytes(&b, want4, sizeof(want4));
	yw_buf_reset(&b);
	yw_vector_f64_text(&b, text, 4);
	yw_put(&b, "", 1);
	/* a double's own digits: 0.1 is not 0.1f's 0.100000001490116... */
	assert_string_equal((char *)b.data,
			    "49.9900000000000019895 -0.0125000000000000006939 3.0 "
			    "0.100000000000000005551");
	yw_buf_free(&b);
}

static void contacts_empty(void **state)
{
	static const uint8_t want[] = { I32(256), I32(0) };
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_contact_list(&b, 0);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_free(&b);
}

static const uint32_t taxels_a[] = { 3, 5, 12 };
static const uint32_t taxels_b[] = { 191 };

static struct yw_contact contact_a(void)
{
	struct yw_contact c;

	memset(&c, 0, sizeof(c));
	c.id = 7;
	c.body_part = 3;	/* LEFT_ARM */
	c.link_number = 6;
	c.skin_part = 1;	/* SKIN_LEFT_HAND */
	c.cop[0] = 1.0;
	c.force[2] = -1.5;
	c.geo[1] = 2.0;
	c.normal[2] = 1.0;
	c.pressure = 30.0;
	c.n_taxels = 3;
	c.taxels = taxels_a;
	return c;
}

/* skinContact::write, one contact: [256][8] (4 ints) 5 x (3 doubles)
 * (ids) [FLOAT64] pressure */
#define CONTACT_A(F) \
	I32(256), I32(8), \
	I32(257), I32(4), I32(7), I32(3), I32(6), I32(1), \
	I32(256 + F), I32(3), F64_1, F64_0, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_M1_5, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_2, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_1, \
	I32(257), I32(3), I32(3), I32(5), I32(12), \
	I32(F), F64_30

#define CONTACT_B(F) \
	I32(256), I32(8), \
	I32(257), I32(4), I32(8), I32(3), I32(4), I32(2), \
	I32(256 + F), I32(3), F64_0, F64_0, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_0, \
	I32(256 + F), I32(3), F64_0, F64_0, F64_0, \
	I32(257), I32(1), I32(191), \
	I32(F), F64_0_5

static void contacts_one(void **state)
{
	static const uint8_t want[] = { I32(256), I32(1), CONTACT_A(10) };
	static const uint8_t want4[] = { I32(256), I32(1), CONTACT_A(20) };
	struct yw_contact c = contact_a();
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_contact_list(&b, 1);
	yw_contact(&b, YW_YARP3, &c);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_reset(&b);
	yw_contact_list(&b, 1);
	yw_contact(&b, YW_YARP4, &c);
	expect_bytes(&b, want4, sizeof(want4));
	yw_buf_free(&b);
}

static void contacts_several(void **state)
{
	static const uint8_t want[] = {
		I32(256), I32(3), CONTACT_A(10), CONTACT_B(10), CONTACT_A(10),
	};
	struct yw_contact a = contact_a(), c;
	struct yw_buf b;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.id = 8;
	c.body_part = 3;
	c.link_number = 4;
	c.skin_part = 2;	/* SKIN_LEFT_FOREARM */
	c.pressure = 0.5;
	c.n_taxels = 1;
	c.taxels = taxels_b;
	yw_buf_init(&b);
	yw_contact_list(&b, 3);
	yw_contact(&b, YW_YARP3, &a);
	yw_contact(&b, YW_YARP3, &c);
	yw_contact(&b, YW_YARP3, &a);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_free(&b);
}

static void stamp(void **state)
{
	char s[64];

	(void)state;
	assert_int_equal(yw_stamp_text(s, sizeof(s), 12, 1700000000.25), 16);
	assert_string_equal(s, "12 1700000000.25");
	yw_stamp_text(s, sizeof(s), 0, 0.1);
	assert_string_equal(s, "0 0.1");		/* DBL_DIG = 15 */
	yw_stamp_text(s, sizeof(s), 3, 1764031234.123456789);
	assert_string_equal(s, "3 1764031234.12346");
}

/* A data message of a Vector {1, 2}, no envelope: index, command, payload */
static void message_plain(void **state)
{
	static const uint8_t want[] = {
		'Y', 'A', 10, 0, 0, 0, 'R', 'P',
		2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I32(8), I32(24), I32(0),
		0, 0, 0, 0, '~', 'D', 0, 1,
		0x0a, 0x01, 0, 0, 0x02, 0, 0, 0, F64_1, F64_2,
	};
	const float x[] = { 1.0f, 2.0f };
	struct yw_buf b, p;

	(void)state;
	yw_buf_init(&b);
	yw_buf_init(&p);
	yw_vector_f32(&p, YW_YARP3, x, 2);
	yw_msg_head(&b, NULL, false, p.len);
	yw_put(&b, p.data, p.len);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_free(&b);
	yw_buf_free(&p);
}

/* With an envelope: int32 L, '~', 0, 0, 1, "D 5 2.5\0" (L = 8) */
static void message_envelope(void **state)
{
	static const uint8_t want[] = {
		'Y', 'A', 10, 0, 0, 0, 'R', 'P',
		2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I32(16), I32(8), I32(0),
		I32(8), '~', 0, 0, 1, 'D', ' ', '5', ' ', '2', '.', '5', 0,
		I32(256), I32(0),
	};
	struct yw_buf b, p;
	char env[32];

	(void)state;
	yw_buf_init(&b);
	yw_buf_init(&p);
	yw_contact_list(&p, 0);
	yw_stamp_text(env, sizeof(env), 5, 2.5);
	yw_msg_head(&b, env, false, p.len);
	yw_put(&b, p.data, p.len);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_reset(&b);
	yw_msg_head_text(&b, env, false);
	yw_put(&b, "", 1);
	assert_string_equal((char *)b.data, "D 5 2.5\r\n");
	yw_buf_free(&b);
	yw_buf_free(&p);
}

/* The connection header a source sends, per carrier */
static void conn_header(void **state)
{
	static const uint8_t tcp[] = {
		'Y', 'A', 0xe4, 0x1e, 0, 0, 'R', 'P', I32(3), '/', 'a', 0,
	};
	static const uint8_t fast[] = {
		'Y', 'A', 0x64, 0x1e, 0, 0, 'R', 'P', I32(3), '/', 'a', 0,
	};
	static const char text[] = "CONNECT /a\r\n";
	enum yw_carrier c;
	bool ack;
	struct yw_buf b;

	(void)state;
	yw_buf_init(&b);
	yw_conn_header(&b, YW_TCP, "/a");
	expect_bytes(&b, tcp, sizeof(tcp));
	assert_int_equal(yw_conn_header_parse(b.data, &c, &ack), 0);
	assert_int_equal(c, YW_TCP);
	assert_false(ack);
	yw_buf_reset(&b);
	yw_conn_header(&b, YW_FAST_TCP, "/a");
	expect_bytes(&b, fast, sizeof(fast));
	assert_int_equal(yw_conn_header_parse(b.data, &c, &ack), 0);
	assert_int_equal(c, YW_FAST_TCP);
	yw_buf_reset(&b);
	yw_conn_header(&b, YW_TEXT, "/a");
	expect_bytes(&b, (const uint8_t *)text, strlen(text));
	assert_int_equal(yw_conn_header_parse((const uint8_t *)"CONNACK admin", &c, &ack), 0);
	assert_int_equal(c, YW_TEXT);
	assert_true(ack);
	assert_int_equal(yw_conn_header_parse((const uint8_t *)"GET / HTTP", &c, &ack),
			 -EPROTO);
	yw_buf_free(&b);
}

/* YARP's NetworkBase::isValidPortName, and nothing the name server's
 * text protocol would read as more than one word */
static void port_names(void **state)
{
	static const char *const good[] = {
		"/icub/skin/left_hand_comp", "/skinManager/rpc", "/skinManager/info:o", "/a",
		"/tmp/port/1",
		"/r_ev-1.2@x", "/\xc3\xa9",
	};
	static const char *const bad[] = {
		"", "/", "a", "...", "/x/", "/x y", "/x\ny", "/x\ry", "/x\ty",
		"/x\x7f", "/x\"y", "/x(y", "/x)y", "/x\\y",
	};
	char longname[300];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(yw_port_name_ok(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(yw_port_name_ok(bad[i]));
	memset(longname, 'a', sizeof(longname));
	longname[0] = '/';
	longname[256] = '\0';
	assert_false(yw_port_name_ok(longname));
	longname[255] = '\0';
	assert_true(yw_port_name_ok(longname));
	assert_true(yw_peer_name_ok("admin"));
	assert_true(yw_peer_name_ok("/x y"));
	assert_false(yw_peer_name_ok(""));
	assert_false(yw_peer_name_ok("/x\r\n<ACK>"));
	assert_false(yw_peer_name_ok("/x\x1b[2J"));
}

static void numbers(void **state)
{
	uint8_t n[8];
	int32_t x;

	(void)state;
	yw_number(n, 10123);
	assert_memory_equal(n, ((uint8_t[]){ 'Y', 'A', 0x8b, 0x27, 0, 0, 'R', 'P' }), 8);
	assert_int_equal(yw_number_parse(n, &x), 0);
	assert_int_equal(x, 10123);
	n[7] = 'X';
	assert_int_equal(yw_number_parse(n, &x), -EPROTO);
}

/* Reading the commands a `yarp rpc` sends: a Bottle of strings (260) and
 * a mixed one (256) with a tagged int and double */
static void parse_bottle(void **state)
{
	static const uint8_t strings[] = {
		I32(260), I32(3), I32(3), 'g', 'e', 't', I32(5), 't', 'o',
		'u', 'c', 'h', I32(3), 't', 'h', 'r',
	};
	static const uint8_t mixed[] = {
		I32(256), I32(4), I32(4), I32(3), 's', 'e', 't', I32(1), I32(-2),
		I32(10), F64_0_5, I32(9), 'o', 'n', 0, 0,
	};
	struct yw_atom a[8];

	(void)state;
	assert_int_equal(yw_parse_bottle(strings, sizeof(strings), YW_YARP3, a, 8), 3);
	assert_string_equal(a[0].s, "get");
	assert_string_equal(a[1].s, "touch");
	assert_string_equal(a[2].s, "thr");
	assert_int_equal(yw_parse_bottle(mixed, sizeof(mixed), YW_YARP3, a, 8), 4);
	assert_int_equal(a[1].type, YW_ATOM_INT);
	assert_int_equal(a[1].i, -2);
	assert_int_equal(a[2].type, YW_ATOM_FLOAT);
	assert_true(a[2].f == 0.5);
	assert_string_equal(a[3].s, "on");
	/* too short, trailing bytes, too many atoms, a nested list */
	assert_int_equal(yw_parse_bottle(strings, sizeof(strings) - 1, YW_YARP3, a, 8), -EPROTO);
	assert_int_equal(yw_parse_bottle(mixed, sizeof(mixed) + 0, YW_YARP3, a, 3), -EPROTO);
	assert_int_equal(yw_parse_bottle((const uint8_t[]){ I32(256), I32(1), I32(256), I32(0) },
					 16, YW_YARP3, a, 8), -EPROTO);
	assert_int_equal(yw_parse_text("set threshold 12", a, 8), 3);
	assert_int_equal(a[2].type, YW_ATOM_INT);
	assert_int_equal(yw_parse_text("set smooth factor 0.5 \"x y\"", a, 8), 5);
	assert_int_equal(a[3].type, YW_ATOM_FLOAT);
	assert_string_equal(a[4].s, "x y");
	assert_int_equal(yw_parse_text("(nested)", a, 8), -EPROTO);
}

/* skinManager's `get info` shape: items then nested lists, depth first in
 * the array; a list is tag 256, count, tagged items, as BottleImpl::synch
 * writes a nested one and YARP reads it.  A list whose count overruns the
 * array is cut at its end. */
static void reply_nested(void **state)
{
	static const uint8_t want[] = {
		I32(256), I32(4),
		I32(256), I32(2), I32(4), I32(6), 'N', 'a', 'm', 'e', ':', ' ',
		I32(4), I32(11), 's', 'k', 'i', 'n', 'M', 'a', 'n', 'a', 'g', 'e', 'r',
		I32(256), I32(2), I32(256), I32(1), I32(4), I32(1), 'a',
		I32(1), I32(192),
		I32(256), I32(0),
		I32(10), F64_0_5,
	};
	static const uint8_t cut[] = {
		I32(256), I32(1), I32(256), I32(1), I32(1), I32(7),
	};
	struct yw_atom a[9];
	struct yw_buf b;

	(void)state;
	memset(a, 0, sizeof(a));
	a[0].type = YW_ATOM_LIST;
	a[0].i = 2;
	a[1].type = YW_ATOM_STRING;
	snprintf(a[1].s, sizeof(a[1].s), "Name: ");
	a[2].type = YW_ATOM_STRING;
	snprintf(a[2].s, sizeof(a[2].s), "skinManager");
	a[3].type = YW_ATOM_LIST;	/* ((a) 192) */
	a[3].i = 2;
	a[4].type = YW_ATOM_LIST;
	a[4].i = 1;
	a[5].type = YW_ATOM_STRING;
	snprintf(a[5].s, sizeof(a[5].s), "a");
	a[6].type = YW_ATOM_INT;
	a[6].i = 192;
	a[7].type = YW_ATOM_LIST;	/* () */
	a[7].i = 0;
	a[8].type = YW_ATOM_FLOAT;
	a[8].f = 0.5;
	yw_buf_init(&b);
	yw_atoms_bottle(&b, YW_YARP3, a, 9);
	expect_bytes(&b, want, sizeof(want));
	yw_buf_reset(&b);
	yw_atoms_text(&b, a, 9);
	yw_put(&b, "", 1);
	assert_string_equal((const char *)b.data,
			    "(\"Name: \" \"skinManager\") ((\"a\") 192) () 0.5");
	yw_buf_reset(&b);
	a[0].i = 5;
	a[1].type = YW_ATOM_INT;
	a[1].i = 7;
	yw_atoms_bottle(&b, YW_YARP3, a, 2);
	expect_bytes(&b, cut, sizeof(cut));
	yw_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vector_example),
		cmocka_unit_test(vector_yarp4),
		cmocka_unit_test(vector_text),
		cmocka_unit_test(vector_f64),
		cmocka_unit_test(contacts_empty),
		cmocka_unit_test(contacts_one),
		cmocka_unit_test(contacts_several),
		cmocka_unit_test(stamp),
		cmocka_unit_test(message_plain),
		cmocka_unit_test(message_envelope),
		cmocka_unit_test(conn_header),
		cmocka_unit_test(numbers),
		cmocka_unit_test(port_names),
		cmocka_unit_test(parse_bottle),
		cmocka_unit_test(reply_nested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
