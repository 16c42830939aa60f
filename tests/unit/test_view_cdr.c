// SPDX-License-Identifier: GPL-2.0
/*
 * test_view_cdr.c - skin-view's CDR is the ROS 2 bridge's, byte for byte
 *
 * Each message is filled by the ROS 2 bridge's own code
 * (bridges/ros2/msg.c, the types idlc generates from tactile_msgs.idl)
 * and serialized by Cyclone DDS's own serializer (dds_stream_writeLE()
 * on the type's descriptor, what Cyclone's default serdata runs for a
 * sample it writes, little endian, XCDR1), then compared with what
 * skin-view's encoder (bridges/view/cdr.c) writes for the same sample
 * after its 4-byte encapsulation header.  That header, CDR_LE, is the
 * one the ROS 2 layer's wire test takes from Cyclone's serdata
 * (tests/ros2/test_ros2_wire.c, dds_takecdr) ahead of the same stream.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dds/dds.h>
#include <dds/ddsi/ddsi_cdrstream.h>
#include <dds/ddsi/q_protocol.h>

#include "cdr.h"
#include "msg.h"

/* Cyclone's serialization of @sample (of type @desc) after the header */
static void cyclone(const dds_topic_descriptor_t *desc, const void *sample,
		    uint8_t **out, size_t *n)
{
	dds_ostreamLE_t os;

	dds_ostreamLE_init(&os, 0, CDR_ENC_VERSION_1);
	assert_non_null(dds_stream_writeLE(&os, sample, desc->m_ops));
	*n = os.x.m_index;
	*out = malloc(*n ? *n : 1);
	assert_non_null(*out);
	memcpy(*out, os.x.m_buffer, *n);
	dds_ostreamLE_fini(&os);
}

static void assert_same(const struct cdr *c, const dds_topic_descriptor_t *desc,
			const void *sample)
{
	static const uint8_t cdr_le[4] = { 0x00, 0x01, 0x00, 0x00 };
	uint8_t *want;
	size_t n, i;

	assert_int_equal(c->err, 0);
	cyclone(desc, sample, &want, &n);
	assert_true(c->len >= 4);
	assert_memory_equal(cdr_data(c), cdr_le, 4);
	if (c->len - 4 != n || memcmp(cdr_data(c) + 4, want, n)) {
		for (i = 0; i < n && i < c->len - 4; i++)
			if (cdr_data(c)[4 + i] != want[i])
				break;
		fail_msg("%zu bytes, Cyclone %zu; first difference at %zu", c->len - 4,
			 n, i);
	}
	free(want);
}

static float value(unsigned int i)
{
	if (i % 37 == 5)
		return NAN;
	return (float)i * 1.25f - 40.0f;
}

/* Names of every length modulo 4, so that each alignment after a string
 * is met */
static const char *const frames[] = { "l", "l_hand_dh_frame", "ab", "abc", "" };
static const char *const sensors[] = { "pad", "left_hand", "torso_", "x" };

static void test_state(void **state)
{
	static const unsigned int sizes[] = { 0, 1, 3, 192, 384 };
	struct ros2_msg_part p;
	struct cdr c;
	ros2_time t;
	unsigned int f, s, k, i;

	(void)state;
	cdr_init(&c, 0);
	for (f = 0; f < sizeof(frames) / sizeof(frames[0]); f++)
		for (s = 0; s < sizeof(sensors) / sizeof(sensors[0]); s++)
			for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
				unsigned int n = sizes[k];
				float *v = calloc(n + 1, sizeof(*v));
				uint8_t *raw = calloc(n + 1, 1);
				struct cdr_stamp ct;

				assert_non_null(v);
				assert_non_null(raw);
				for (i = 0; i < n; i++) {
					v[i] = value(i + f);
					raw[i] = (uint8_t)(255 - i * 7);
				}
				assert_int_equal(ros2_msg_part_init(&p, sensors[s], frames[f], n, 4), 0);
				ros2_msg_stamp(&t, 1234567890123456789ull + f, 17);
				cdr_stamp_from(&ct, 1234567890123456789ull + f, 17);
				assert_int_equal(ct.sec, t.sec_);
				assert_int_equal(ct.nanosec, t.nanosec_);

				ros2_msg_fill_values(&p, &t, v);
				cdr_tactile_state(&c, &ct, frames[f], sensors[s], v, n);
				assert_same(&c, &tactile_msgs_msg_dds__TactileState__desc, &p.values);

				ros2_msg_fill_raw(&p, &t, raw);
				cdr_tactile_state_raw(&c, &ct, frames[f], sensors[s], raw, n);
				assert_same(&c, &tactile_msgs_msg_dds__TactileState__desc, &p.raw);
				ros2_msg_part_free(&p);
				free(v);
				free(raw);
			}
	cdr_free(&c);
}

/* The writer's contact records, @stride bytes apart (a newer writer's
 * contact_size may be larger than this build's record) */
static void test_contacts(void **state)
{
	static const unsigned int counts[] = { 0, 1, 2, 5 };
	const size_t stride = sizeof(struct skin_contact_record) + 24;
	struct ros2_msg_part p;
	struct cdr c;
	ros2_time t;
	unsigned int f, k, i, j;

	(void)state;
	cdr_init(&c, 0);
	for (f = 0; f < sizeof(frames) / sizeof(frames[0]); f++)
		for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			unsigned int n = counts[k];
			uint8_t *recs = calloc(n + 1, stride);
			struct cdr_stamp ct;

			assert_non_null(recs);
			for (i = 0; i < n; i++) {
				struct skin_contact_record *r = (void *)(recs + i * stride);

				r->id = i == 1 ? 18446744073709551615ull : 1000 + i * 77;
				for (j = 0; j < 3; j++) {
					/* a contact with no position: NaN */
					r->cop[j] = i == 2 ? NAN : 0.01 * (i + 1) * (j + 1);
					r->normal[j] = i == 2 ? NAN : (j == 2 ? 1.0 : 0.0);
					r->force[j] = -0.05 * (i + j);
					r->moment[j] = 1e-3 * (double)(i * 3 + j);
				}
			}
			assert_int_equal(ros2_msg_part_init(&p, "pad", frames[f], 8, 8), 0);
			ros2_msg_stamp(&t, 5000000000ull * (k + 1) + 999999999ull, -3);
			cdr_stamp_from(&ct, 5000000000ull * (k + 1) + 999999999ull, -3);
			/* the bridge's last_contacts: a release is published */
			p.last_contacts = 1;
			assert_true(ros2_msg_fill_contacts(&p, &t, (const void *)recs, n, stride));
			cdr_tactile_contacts(&c, &ct, frames[f], (const void *)recs, n, stride);
			assert_same(&c, &tactile_msgs_msg_dds__TactileContacts__desc, &p.contacts);
			ros2_msg_part_free(&p);
			free(recs);
		}
	cdr_free(&c);
}

/* The encoder's head room: the bytes after it are the same */
static void test_head_room(void **state)
{
	static const float v[3] = { 1, 2, 3 };
	struct cdr a, b;
	struct cdr_stamp t = { 7, 8 };

	(void)state;
	cdr_init(&a, 0);
	cdr_init(&b, 29);
	cdr_tactile_state(&a, &t, "f", "s", v, 3);
	cdr_tactile_state(&b, &t, "f", "s", v, 3);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(cdr_data(&a), cdr_data(&b), a.len);
	assert_ptr_equal(cdr_data(&b), b.buf + 29);
	cdr_free(&a);
	cdr_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_contacts),
		cmocka_unit_test(test_head_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
