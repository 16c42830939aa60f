/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg.h - one part's ROS 2 messages (tactile_msgs.idl), filled in place
 *
 * Each part owns its messages and their buffers, sized once from the
 * part's descriptor, so filling them for a sample allocates nothing.  The
 * values channel does not copy: it points into the caller's copy of the
 * part's block, which must outlive the write that follows the fill.
 *
 * Names (docs/ROS2.md): every TactileState carries one ChannelFloat32
 * named after the part (what a urdf_tactile <sensor> refers to); each
 * contact is named "contact_ID" (skind's contact id, stable while the
 * contact lasts).
 */
#ifndef ROS2_MSG_H
#define ROS2_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include <skin/shm.h>

#include "tactile_msgs.h"

#define ROS2_MSG_NAME_LEN	32	/* "contact_" + a uint64 + NUL fits */
#define ROS2_MSG_FRAME_LEN	128

typedef builtin_interfaces_msg_dds__Time_ ros2_time;
typedef tactile_msgs_msg_dds__TactileState_ ros2_state;
typedef tactile_msgs_msg_dds__TactileContact_ ros2_contact;
typedef tactile_msgs_msg_dds__TactileContacts_ ros2_contacts;

struct ros2_msg_part {
	char sensor[SKIN_SHM_NAME_LEN];
	char frame_id[ROS2_MSG_FRAME_LEN];
	unsigned int n_taxels;
	unsigned int max_contacts;
	/* what the contacts topic last said: a release is published once */
	unsigned int last_contacts;

	sensor_msgs_msg_dds__ChannelFloat32_ values_ch;
	sensor_msgs_msg_dds__ChannelFloat32_ raw_ch;
	ros2_state values;
	ros2_state raw;
	float *raw_buf;				/* n_taxels */
	ros2_contacts contacts;
	ros2_contact *contact_buf;		/* max_contacts */
	char (*names)[ROS2_MSG_NAME_LEN];	/* max_contacts */
};

/* Buffers for a part of @n_taxels taxels and @max_contacts contacts.
 * @sensor and @frame_id are copied (-ENAMETOOLONG past their room). */
int ros2_msg_part_init(struct ros2_msg_part *p, const char *sensor,
		       const char *frame_id, unsigned int n_taxels,
		       unsigned int max_contacts);
void ros2_msg_part_free(struct ros2_msg_part *p);

/* @mono_ns + @offset_ns as builtin_interfaces/Time (sec, nanosec); the
 * offset is clock_mono_to_real_ns() (skin_clock.h), read per sample: the
 * wall clock may be stepped. */
void ros2_msg_stamp(ros2_time *t, uint64_t mono_ns, int64_t offset_ns);

/* The compensated values (@values: n_taxels floats, not copied) and the
 * raw ones (@raw: n_taxels bytes, converted) of one sample. */
void ros2_msg_fill_values(struct ros2_msg_part *p, const ros2_time *stamp,
			  const float *values);
void ros2_msg_fill_raw(struct ros2_msg_part *p, const ros2_time *stamp,
		       const uint8_t *raw);
/*
 * The contacts of one sample (@n of them, @stride bytes apart: the
 * writer's contact_size), at most max_contacts.  Return: whether the
 * contacts topic should carry this sample: any contact, or none right
 * after some (the release, published once).
 */
bool ros2_msg_fill_contacts(struct ros2_msg_part *p, const ros2_time *stamp,
			    const struct skin_contact_record *c, unsigned int n,
			    size_t stride);

#endif /* ROS2_MSG_H */
