/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cdr.h - tactile_msgs in CDR, as the ROS 2 bridge puts them on the wire
 *
 * The Foxglove channels of skin-view carry the bytes a ROS 2 subscriber of
 * skin-ros2-bridge receives for the same sample (docs/VIEW.md), so that
 * Foxglove decodes them with the ros2msg schemas of tactile_msgs: XCDR1
 * (plain CDR, what rmw_cyclonedds speaks), little endian, after the
 * 4-byte encapsulation header {0x00, 0x01, 0, 0} (CDR_LE, DDSI-RTPS 9.4.2.12);
 * primitives aligned to their size from the end of that header (8 for a
 * double: XCDR1), strings as a uint32 length with the NUL counted, then
 * the bytes and the NUL; sequences as a uint32 count, then the elements.
 * The messages (bridges/ros2/tactile_msgs.idl and its msg.c fill): a
 * TactileState of one ChannelFloat32 named after the part, a
 * TactileContacts of one TactileContact per contact named "contact_ID".
 * tests/unit/test_view_cdr.c compares every encoder with Cyclone DDS's
 * serializer run on the ROS 2 bridge's own types.
 *
 * Ownership: the caller's struct cdr; cdr_free() releases its buffer.
 * Errors: a failed allocation sticks (cdr.err -ENOMEM) and the bytes are
 * not to be used.  Threads: one at a time.
 */
#ifndef VIEW_CDR_H
#define VIEW_CDR_H

#include <stddef.h>
#include <stdint.h>

#include <skin/contact.h>

/* Bytes the caller keeps free before the encapsulation header (the
 * WebSocket header and the Foxglove message header go there). */
struct cdr {
	uint8_t *buf;
	size_t head;		/* room before the CDR data */
	size_t len;		/* bytes written after head */
	size_t cap;		/* allocated after head */
	int err;
};

struct cdr_stamp {
	int32_t sec;
	uint32_t nanosec;
};

void cdr_init(struct cdr *c, size_t head);
void cdr_free(struct cdr *c);
/* Empty again, its encapsulation header written */
void cdr_reset(struct cdr *c);

/* The CDR data: buf + head, len bytes */
static inline const uint8_t *cdr_data(const struct cdr *c)
{
	return c->buf + c->head;
}

/* As ros2_msg_stamp() (bridges/ros2/msg.c): @mono_ns + @offset_ns */
void cdr_stamp_from(struct cdr_stamp *t, uint64_t mono_ns, int64_t offset_ns);

/* tactile_msgs/msg/TactileState with one ChannelFloat32 @sensor: values
 * as they are (@values) or the raw bytes as floats (@raw) */
void cdr_tactile_state(struct cdr *c, const struct cdr_stamp *t,
		       const char *frame_id, const char *sensor,
		       const float *values, unsigned int n);
void cdr_tactile_state_raw(struct cdr *c, const struct cdr_stamp *t,
			   const char *frame_id, const char *sensor,
			   const uint8_t *raw, unsigned int n);
/* tactile_msgs/msg/TactileContacts: @n contacts @stride bytes apart */
void cdr_tactile_contacts(struct cdr *c, const struct cdr_stamp *t,
			  const char *frame_id,
			  const struct skin_contact_record *k, unsigned int n,
			  size_t stride);

/*
 * skin_msgs/msg/PartState (skin-view's own, docs/VIEW.md): a part's whole
 * publication in one message, for the page and Foxglove:
 *
 *	builtin_interfaces/Time stamp
 *	uint64 sample
 *	uint32 state			SKIN_SHM_PART_*
 *	uint8[] raw
 *	float32[] values
 *	uint8[] flags			SKIN_SHM_TAXEL_*
 *	float32[] baselines
 *	float32[] thresholds		incl. add_threshold; 0: none
 *	PartContact[] contacts
 *
 * skin_msgs/msg/PartContact:
 *
 *	uint32 id
 *	float32 pressure
 *	float32[2] cop2d		in the part's layout; NaN: none
 *	float64[3] cop			link frame, m; NaN: none
 *	float64[3] force
 *	float64[3] normal
 *	uint32[] taxels
 */
struct cdr_part_contact {
	uint64_t id;			/* the wire's uint32: its low bits */
	float pressure;
	float cop2d[2];
	const double *cop, *force, *normal;	/* 3 each */
	const uint32_t *taxels;
	unsigned int n_taxels;
};

struct cdr_part_state {
	struct cdr_stamp stamp;
	uint64_t sample;
	uint32_t state;
	unsigned int n;			/* slots */
	const uint8_t *raw;
	const float *values;
	const uint8_t *flags;
	const double *baselines;	/* NULL: 0 each */
	const double *thresholds;	/* NULL: 0 each */
	double add_threshold;		/* added to every threshold that is not 0 */
	const struct cdr_part_contact *contacts;
	unsigned int n_contacts;
};

void cdr_part_state(struct cdr *c, const struct cdr_part_state *s);

#endif /* VIEW_CDR_H */
