// SPDX-License-Identifier: GPL-2.0
/*
 * test_ros2_wire.c - what the bridge puts on the wire, byte for byte
 *
 * Each message is built by the bridge's own code (bridges/ros2/msg.c),
 * written by a writer with the bridge's QoS, taken serialized
 * (dds_takecdr) by a reader with a ROS 2 profile's QoS, and compared
 * with bytes this file computes on its own from the .msg definitions and
 * the XCDR1 rules: little endian after the 4-byte encapsulation header
 * 00 01 00 00, every primitive aligned to its size (8 for float64)
 * counted from the end of that header, strings as uint32 length with the
 * NUL then the bytes and the NUL, sequences as uint32 count then the
 * elements.  One case is spelled out in hex, which checks the encoder
 * below as well.
 *
 * The topics carry this process's pid, so parallel runs on one machine
 * (and one domain) never see each other's samples.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>

#include "dds.h"
#include "msg.h"
#include "skin_clock.h"

/* ---- the independent XCDR1 encoder ---------------------------------- */

struct cdr {
	uint8_t b[16384];
	size_t n;
};

static void cdr_start(struct cdr *c)
{
	static const uint8_t hdr[4] = { 0x00, 0x01, 0x00, 0x00 };	/* CDR_LE */

	memcpy(c->b, hdr, 4);
	c->n = 4;
}

static void cdr_align(struct cdr *c, size_t a)
{
	while ((c->n - 4) % a)
		c->b[c->n++] = 0;
}

static void cdr_bytes(struct cdr *c, const void *p, size_t n, size_t align)
{
	cdr_align(c, align);
	assert_true(c->n + n <= sizeof(c->b));
	memcpy(c->b + c->n, p, n);	/* x86-64 and aarch64: little endian */
	c->n += n;
}

static void cdr_u32(struct cdr *c, uint32_t v) { cdr_bytes(c, &v, 4, 4); }
static void cdr_i32(struct cdr *c, int32_t v) { cdr_bytes(c, &v, 4, 4); }
static void cdr_f32(struct cdr *c, float v) { cdr_bytes(c, &v, 4, 4); }
static void cdr_f64(struct cdr *c, double v) { cdr_bytes(c, &v, 8, 8); }

static void cdr_string(struct cdr *c, const char *s)
{
	cdr_u32(c, (uint32_t)strlen(s) + 1);
	cdr_bytes(c, s, strlen(s) + 1, 1);
}

/* std_msgs/Header: builtin_interfaces/Time stamp (int32 sec, uint32
 * nanosec), string frame_id */
static void enc_header(struct cdr *c, int32_t sec, uint32_t nsec,
		       const char *frame)
{
	cdr_i32(c, sec);
	cdr_u32(c, nsec);
	cdr_string(c, frame);
}

/* tactile_msgs/TactileState: Header header, sensor_msgs/ChannelFloat32[]
 * sensors (string name, float32[] values); here one sensor or none */
static void enc_state(struct cdr *c, int32_t sec, uint32_t nsec,
		      const char *frame, const char *name, const float *v,
		      unsigned int n)
{
	unsigned int i;

	cdr_start(c);
	enc_header(c, sec, nsec, frame);
	if (!name) {
		cdr_u32(c, 0);
		return;
	}
	cdr_u32(c, 1);
	cdr_string(c, name);
	cdr_u32(c, n);
	for (i = 0; i < n; i++)
		cdr_f32(c, v[i]);
}

static void enc_xyz(struct cdr *c, const double d[3])
{
	cdr_f64(c, d[0]);
	cdr_f64(c, d[1]);
	cdr_f64(c, d[2]);
}

/* tactile_msgs/TactileContact: Header header, string name,
 * geometry_msgs/Point position, geometry_msgs/Vector3 normal,
 * geometry_msgs/Wrench wrench (Vector3 force, Vector3 torque) */
static void enc_contact(struct cdr *c, int32_t sec, uint32_t nsec,
			const char *frame, const char *name,
			const struct skin_contact_record *k)
{
	enc_header(c, sec, nsec, frame);
	cdr_string(c, name);
	enc_xyz(c, k->cop);
	enc_xyz(c, k->normal);
	enc_xyz(c, k->force);
	enc_xyz(c, k->moment);
}

/* ---- a writer with the bridge's QoS, readers with ROS 2's ------------ */

struct wire {
	dds_entity_t pp, w, r[2];
};

static void wire_open(struct wire *x, const dds_topic_descriptor_t *desc,
		      const char *leaf)
{
	char topic[ROS2_DDS_TOPIC_LEN], part[64];
	dds_entity_t t;
	dds_qos_t *q;
	int i;

	x->pp = dds_create_participant(DDS_DOMAIN_DEFAULT, NULL, NULL);
	assert_true(x->pp > 0);
	snprintf(part, sizeof(part), "wire_test_%d", (int)getpid());
	assert_int_equal(ros2_dds_topic_name(topic, sizeof(topic), "/skin",
					     part, leaf), 0);
	x->w = ros2_dds_writer(x->pp, desc, topic);
	assert_true(x->w > 0);
	t = dds_get_topic(x->w);
	assert_true(t > 0);
	for (i = 0; i < 2; i++) {
		q = ros2_dds_reader_qos(i ? ROS2_DDS_PROFILE_SENSOR_DATA :
					ROS2_DDS_PROFILE_DEFAULT);
		x->r[i] = dds_create_reader(x->pp, t, q, NULL);
		dds_delete_qos(q);
		assert_true(x->r[i] > 0);
	}
}

static void wire_close(struct wire *x)
{
	dds_delete(x->pp);
}

/* The next sample of reader @r, serialized, into @buf; its size. */
static size_t take_cdr(dds_entity_t r, uint8_t *buf, size_t room)
{
	struct ddsi_serdata *sd = NULL;
	dds_sample_info_t info;
	int i;
	size_t n;

	for (i = 0; i < 500; i++) {
		if (dds_takecdr(r, &sd, 1, &info, DDS_ANY_STATE) == 1)
			break;
		usleep(10000);
	}
	assert_non_null(sd);
	n = ddsi_serdata_size(sd);
	assert_true(n <= room);
	ddsi_serdata_to_ser(sd, 0, n, buf);
	ddsi_serdata_unref(sd);
	return n;
}

static void hexdump_diff(const uint8_t *got, size_t ng, const struct cdr *want)
{
	size_t i, n = ng > want->n ? ng : want->n;

	for (i = 0; i < n; i++)
		if (i >= ng || i >= want->n || got[i] != want->b[i])
			print_message("# byte %zu: got %s%02x, want %s%02x\n", i,
				      i < ng ? "" : "(none) ", i < ng ? got[i] : 0,
				      i < want->n ? "" : "(none) ",
				      i < want->n ? want->b[i] : 0);
}

/* Write @sample and check that both readers take exactly @want. */
static void expect_wire(struct wire *x, const void *sample,
			const struct cdr *want)
{
	uint8_t got[sizeof(want->b) + 64];
	size_t n;
	int i;

	assert_int_equal(dds_write(x->w, sample), DDS_RETCODE_OK);
	for (i = 0; i < 2; i++) {
		n = take_cdr(x->r[i], got, sizeof(got));
		/* XCDR1: Cyclone may pad the end to 4 bytes, in the header's
		 * options (byte 3: the padding's length) */
		if (n != want->n || memcmp(got, want->b, n))
			hexdump_diff(got, n, want);
		assert_int_equal(n, want->n);
		assert_memory_equal(got, want->b, n);
	}
}

/* ---- cases ------------------------------------------------------------ */

/* An empty TactileState with a 2-letter frame: spelled out. */
static void test_state_empty_literal(void **state)
{
	static const uint8_t lit[] = {
		0x00, 0x01, 0x00, 0x00,		/* CDR_LE, no options */
		0x01, 0x00, 0x00, 0x00,		/* stamp.sec 1 */
		0x02, 0x00, 0x00, 0x00,		/* stamp.nanosec 2 */
		0x03, 0x00, 0x00, 0x00,		/* frame_id: 3 bytes */
		'a', 'b', 0x00, 0x00,		/* "ab", NUL */
		0x00, 0x00, 0x00, 0x00,		/* sensors: none */
	};
	struct ros2_msg_part p;
	struct wire x;
	struct cdr want;
	ros2_time t = { 1, 2 };

	(void)state;
	enc_state(&want, 1, 2, "ab", NULL, NULL, 0);
	assert_int_equal(want.n, sizeof(lit));
	assert_memory_equal(want.b, lit, sizeof(lit));

	assert_int_equal(ros2_msg_part_init(&p, "s", "ab", 0, 0), 0);
	p.values.header_.stamp_ = t;
	p.values.sensors_._length = 0;
	wire_open(&x, &tactile_msgs_msg_dds__TactileState__desc, "empty");
	expect_wire(&x, &p.values, &want);
	wire_close(&x);
	ros2_msg_part_free(&p);
}

/* Compensated values: an odd-length name (padding before the count). */
static void test_state_values(void **state)
{
	static const float v[7] = { 0.0f, 1.5f, -2.25f, 255.0f, 1e-3f,
				    (float)M_PI, 42.0f };
	struct ros2_msg_part p;
	struct wire x;
	struct cdr want;
	ros2_time t;

	(void)state;
	ros2_msg_stamp(&t, 1234567890123ull, 1700000000000000000ll);
	assert_int_equal(t.sec_, 1700001234);
	assert_int_equal(t.nanosec_, 567890123u);
	assert_int_equal(ros2_msg_part_init(&p, "left_hand", "l_hand_dh_frame",
					    7, 4), 0);
	ros2_msg_fill_values(&p, &t, v);
	enc_state(&want, 1700001234, 567890123u, "l_hand_dh_frame",
		  "left_hand", v, 7);
	wire_open(&x, &tactile_msgs_msg_dds__TactileState__desc, "values");
	expect_wire(&x, &p.values, &want);
	wire_close(&x);
	ros2_msg_part_free(&p);
}

/* Raw values: bytes as float32, even-length names, no padding; and a
 * part of no taxels (an empty float sequence). */
static void test_state_raw(void **state)
{
	static const uint8_t raw[5] = { 0, 1, 127, 200, 255 };
	static const float f[5] = { 0, 1, 127, 200, 255 };
	struct ros2_msg_part p;
	struct wire x;
	struct cdr want;
	ros2_time t = { 7, 999999999u };

	(void)state;
	assert_int_equal(ros2_msg_part_init(&p, "torso_", "chest", 5, 0), 0);
	ros2_msg_fill_raw(&p, &t, raw);
	enc_state(&want, 7, 999999999u, "chest", "torso_", f, 5);
	wire_open(&x, &tactile_msgs_msg_dds__TactileState__desc, "raw");
	expect_wire(&x, &p.raw, &want);
	ros2_msg_part_free(&p);

	assert_int_equal(ros2_msg_part_init(&p, "abc", "x", 0, 0), 0);
	ros2_msg_fill_raw(&p, &t, raw);
	enc_state(&want, 7, 999999999u, "x", "abc", NULL, 0);
	expect_wire(&x, &p.raw, &want);
	wire_close(&x);
	ros2_msg_part_free(&p);
}

static void contact_set(struct skin_contact_record *k, uint64_t id, double s)
{
	int i;

	memset(k, 0, sizeof(*k));
	k->id = id;
	for (i = 0; i < 3; i++) {
		k->cop[i] = s * (i + 1) * 1e-3;
		k->normal[i] = i == 2 ? 1.0 : -0.125 * s;
		k->force[i] = -0.05 * s * (i + 1);
		k->moment[i] = 0.0;
	}
}

/* TactileContacts: none; two with odd-length frame and names, so that
 * each Point realigns to 8 after padding; the release rule. */
static void test_contacts(void **state)
{
	/* twice the writer's stride would be: a stride other than sizeof */
	struct { struct skin_contact_record k; uint8_t more[40]; } ks[3];
	struct ros2_msg_part p;
	struct wire x;
	struct cdr want;
	ros2_time t = { 100, 5 };
	unsigned int i;

	(void)state;
	memset(ks, 0xa5, sizeof(ks));
	contact_set(&ks[0].k, 7, 1.0);
	contact_set(&ks[1].k, 123456789012ull, -3.5);
	contact_set(&ks[2].k, 9, 2.0);
	ks[1].k.cop[0] = NAN;		/* a contact without a position */
	assert_int_equal(ros2_msg_part_init(&p, "left_forearm",
					    "l_forearm_dh_frame", 10, 2), 0);
	wire_open(&x, &tactile_msgs_msg_dds__TactileContacts__desc, "contacts");

	/* nothing touched, nothing before: nothing to publish */
	assert_false(ros2_msg_fill_contacts(&p, &t, &ks[0].k, 0, sizeof(ks[0])));

	/* three contacts, room for two: the first two */
	assert_true(ros2_msg_fill_contacts(&p, &t, &ks[0].k, 3, sizeof(ks[0])));
	cdr_start(&want);
	cdr_u32(&want, 2);
	enc_contact(&want, 100, 5, "l_forearm_dh_frame", "contact_7", &ks[0].k);
	enc_contact(&want, 100, 5, "l_forearm_dh_frame",
		    "contact_123456789012", &ks[1].k);
	expect_wire(&x, &p.contacts, &want);

	/* the release: one empty message, then silence */
	assert_true(ros2_msg_fill_contacts(&p, &t, &ks[0].k, 0, sizeof(ks[0])));
	cdr_start(&want);
	cdr_u32(&want, 0);
	expect_wire(&x, &p.contacts, &want);
	for (i = 0; i < 3; i++)
		assert_false(ros2_msg_fill_contacts(&p, &t, &ks[0].k, 0,
						    sizeof(ks[0])));
	wire_close(&x);
	ros2_msg_part_free(&p);
}

/* ROS names: "rt" + the ROS name; what ROS refuses is refused. */
static void test_topic_names(void **state)
{
	char b[ROS2_DDS_TOPIC_LEN];

	(void)state;
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/skin", "left_hand", "values"), 0);
	assert_string_equal(b, "rt/skin/left_hand/values");
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/robot1/skin", "torso", "contacts"), 0);
	assert_string_equal(b, "rt/robot1/skin/torso/contacts");
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "", "torso", "raw"), 0);
	assert_string_equal(b, "rt/torso/raw");
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/", "torso", "raw"), 0);
	assert_string_equal(b, "rt/torso/raw");
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "skin", "a", "raw"), -EINVAL);
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/skin/", "a", "raw"), -EINVAL);
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/sk//in", "a", "raw"), -EINVAL);
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/1skin", "a", "raw"), -EINVAL);
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/skin", "left-hand", "raw"), -EINVAL);
	assert_int_equal(ros2_dds_topic_name(b, sizeof(b), "/skin", "", "raw"), -EINVAL);
	assert_int_equal(ros2_dds_topic_name(b, 10, "/skin", "left_hand", "raw"), -ENAMETOOLONG);
}

/* The stamp: CLOCK_MONOTONIC + the offset is CLOCK_REALTIME. */
static void test_stamp(void **state)
{
	ros2_time t;
	int64_t off = clock_mono_to_real_ns(), got, want;
	uint64_t m;

	(void)state;
	m = clock_monotonic_ns();
	want = (int64_t)clock_realtime_ns();
	ros2_msg_stamp(&t, m, off);
	got = (int64_t)t.sec_ * 1000000000 + t.nanosec_;
	assert_true(llabs(got - want) < 5000000);	/* 5 ms: a preemption */
	ros2_msg_stamp(&t, 0, -5);
	assert_int_equal(t.sec_, 0);
	assert_int_equal(t.nanosec_, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_empty_literal),
		cmocka_unit_test(test_state_values),
		cmocka_unit_test(test_state_raw),
		cmocka_unit_test(test_contacts),
		cmocka_unit_test(test_topic_names),
		cmocka_unit_test(test_stamp),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	dds_delete(DDS_CYCLONEDDS_HANDLE);
	return rc;
}
