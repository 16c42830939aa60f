// SPDX-License-Identifier: GPL-2.0
/*
 * msg.c - one part's ROS 2 messages, filled in place (msg.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

static int copy_name(char *dst, size_t room, const char *src)
{
	size_t n = strlen(src);

	if (n >= room)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

static void state_init(ros2_state *s, sensor_msgs_msg_dds__ChannelFloat32_ *ch,
		       char *sensor, char *frame_id, unsigned int n)
{
	ch->name_ = sensor;
	ch->values_._maximum = n;
	ch->values_._length = n;
	ch->values_._buffer = NULL;
	ch->values_._release = false;
	s->header_.frame_id_ = frame_id;
	s->sensors_._maximum = 1;
	s->sensors_._length = 1;
	s->sensors_._buffer = ch;
	s->sensors_._release = false;
}

int ros2_msg_part_init(struct ros2_msg_part *p, const char *sensor,
		       const char *frame_id, unsigned int n_taxels,
		       unsigned int max_contacts)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	if (copy_name(p->sensor, sizeof(p->sensor), sensor) ||
	    copy_name(p->frame_id, sizeof(p->frame_id), frame_id))
		return -ENAMETOOLONG;
	p->n_taxels = n_taxels;
	p->max_contacts = max_contacts;
	p->raw_buf = calloc(n_taxels ? n_taxels : 1, sizeof(*p->raw_buf));
	p->contact_buf = calloc(max_contacts ? max_contacts : 1,
				sizeof(*p->contact_buf));
	p->names = calloc(max_contacts ? max_contacts : 1, sizeof(*p->names));
	if (!p->raw_buf || !p->contact_buf || !p->names) {
		ros2_msg_part_free(p);
		return -ENOMEM;
	}
	state_init(&p->values, &p->values_ch, p->sensor, p->frame_id, n_taxels);
	state_init(&p->raw, &p->raw_ch, p->sensor, p->frame_id, n_taxels);
	p->raw_ch.values_._buffer = p->raw_buf;
	for (i = 0; i < max_contacts; i++) {
		p->contact_buf[i].header_.frame_id_ = p->frame_id;
		p->contact_buf[i].name_ = p->names[i];
	}
	p->contacts.contacts_._maximum = max_contacts;
	p->contacts.contacts_._length = 0;
	p->contacts.contacts_._buffer = p->contact_buf;
	p->contacts.contacts_._release = false;
	return 0;
}

void ros2_msg_part_free(struct ros2_msg_part *p)
{
	free(p->raw_buf);
	free(p->contact_buf);
	free(p->names);
	memset(p, 0, sizeof(*p));
}

void ros2_msg_stamp(ros2_time *t, uint64_t mono_ns, int64_t offset_ns)
{
	int64_t ns = (int64_t)mono_ns + offset_ns;

	if (ns < 0)
		ns = 0;
	/* builtin_interfaces/Time: int32 seconds (until 2038, as ROS 2) */
	t->sec_ = (int32_t)(ns / 1000000000);
	t->nanosec_ = (uint32_t)(ns % 1000000000);
}

void ros2_msg_fill_values(struct ros2_msg_part *p, const ros2_time *stamp,
			  const float *values)
{
	p->values.header_.stamp_ = *stamp;
	/* the sequence only reads its buffer, the cast drops nothing */
	p->values_ch.values_._buffer = (float *)(uintptr_t)values;
}

void ros2_msg_fill_raw(struct ros2_msg_part *p, const ros2_time *stamp,
		       const uint8_t *raw)
{
	unsigned int i;

	p->raw.header_.stamp_ = *stamp;
	for (i = 0; i < p->n_taxels; i++)
		p->raw_buf[i] = raw[i];
}

static void vec3(geometry_msgs_msg_dds__Vector3_ *v, const double d[3])
{
	v->x_ = d[0];
	v->y_ = d[1];
	v->z_ = d[2];
}

bool ros2_msg_fill_contacts(struct ros2_msg_part *p, const ros2_time *stamp,
			    const struct skin_contact_record *c, unsigned int n,
			    size_t stride)
{
	unsigned int i;
	bool publish;

	if (n > p->max_contacts)
		n = p->max_contacts;
	for (i = 0; i < n; i++) {
		const struct skin_contact_record *k = (const void *)
			((const char *)c + i * stride);
		ros2_contact *m = &p->contact_buf[i];

		m->header_.stamp_ = *stamp;
		snprintf(p->names[i], sizeof(p->names[i]), "contact_%" PRIu64,
			 k->id);
		m->position_.x_ = k->cop[0];
		m->position_.y_ = k->cop[1];
		m->position_.z_ = k->cop[2];
		vec3(&m->normal_, k->normal);
		vec3(&m->wrench_.force_, k->force);
		vec3(&m->wrench_.torque_, k->moment);
	}
	p->contacts.contacts_._length = n;
	publish = n > 0 || p->last_contacts > 0;
	p->last_contacts = n;
	return publish;
}
