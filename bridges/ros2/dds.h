/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dds.h - the DDS side as ROS 2 sees it: topic names, QoS, writers
 *
 * rmw_cyclonedds maps a ROS topic /a/b to the DDS topic "rt/a/b" and
 * speaks XCDR1 only; the bridge's writers are RELIABLE, KEEP_LAST
 * ROS2_DDS_DEPTH and VOLATILE, which ROS 2's default profile (RELIABLE)
 * and its sensor_data profile (BEST_EFFORT) both match
 * (docs/ROS2.md, "QoS").
 */
#ifndef ROS2_DDS_H
#define ROS2_DDS_H

#include <stddef.h>

#include <dds/dds.h>

#define ROS2_DDS_DEPTH		10	/* rmw's default profile's depth */
#define ROS2_DDS_TOPIC_LEN	256

/* ROS 2's two profiles (rmw/qos_profiles.h), for readers */
enum ros2_dds_profile {
	ROS2_DDS_PROFILE_DEFAULT,	/* KEEP_LAST 10, RELIABLE, VOLATILE */
	ROS2_DDS_PROFILE_SENSOR_DATA,	/* KEEP_LAST 5, BEST_EFFORT, VOLATILE */
};

/*
 * The DDS topic of the ROS topic @ns/@part/@leaf ("rt" + the ROS name).
 * @ns is "" or starts with '/'; the ROS rules for names are checked:
 * components of [A-Za-z0-9_], not starting with a digit, no "//".
 * 0, -EINVAL (a bad name) or -ENAMETOOLONG.
 */
int ros2_dds_topic_name(char *buf, size_t len, const char *ns,
			const char *part, const char *leaf);
/* Whether @ns is a ROS namespace: "" or "/" and components as above. */
int ros2_dds_check_namespace(const char *ns);

/* The bridge's writers' QoS, and a ROS reader's (dds_delete_qos them). */
dds_qos_t *ros2_dds_writer_qos(void);
dds_qos_t *ros2_dds_reader_qos(enum ros2_dds_profile profile);

/*
 * Domain @id, made explicitly so that the bridge's settings come first and
 * CYCLONEDDS_URI's (interfaces, peers) after them, where they win:
 * Internal/GenerateKeyhash puts a key hash in Cyclone's discovery data
 * (SPDP, SEDP), without which Fast DDS 2.9 ignores Cyclone's disposal of
 * a writer or a participant and its readers unmatch only when the lease
 * ends (10 s); with it they unmatch as Cyclone's own do (docs/ROS2.md,
 * "Stop, restart, late join").  The bridge's own topics have no key: their
 * bytes do not change.  dds_delete() it after its participant.
 * Return: the domain, or a negative DDS return code.
 */
dds_entity_t ros2_dds_domain(dds_domainid_t id);

/* A topic and a writer on it in @pp (delete the writer, then its topic).
 * Return: the writer, or a negative DDS return code. */
dds_entity_t ros2_dds_writer(dds_entity_t pp,
			     const dds_topic_descriptor_t *desc,
			     const char *topic);

#endif /* ROS2_DDS_H */
