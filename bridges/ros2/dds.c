// SPDX-License-Identifier: GPL-2.0
/*
 * dds.c - topic names, QoS and writers as ROS 2 expects them (dds.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dds.h"

static int check_token(const char *s, size_t n)
{
	size_t i;

	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return -EINVAL;
	return 0;
}

int ros2_dds_check_namespace(const char *ns)
{
	const char *p, *e;

	if (!*ns || !strcmp(ns, "/"))
		return 0;
	if (ns[0] != '/')
		return -EINVAL;
	for (p = ns + 1; ; p = e + 1) {
		e = strchr(p, '/');
		if (check_token(p, e ? (size_t)(e - p) : strlen(p)))
			return -EINVAL;
		if (!e)
			return 0;
	}
}

int ros2_dds_topic_name(char *buf, size_t len, const char *ns,
			const char *part, const char *leaf)
{
	int n;

	if (ros2_dds_check_namespace(ns) || check_token(part, strlen(part)) ||
	    check_token(leaf, strlen(leaf)))
		return -EINVAL;
	if (!strcmp(ns, "/"))
		ns = "";
	n = snprintf(buf, len, "rt%s/%s/%s", ns, part, leaf);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

#define ROS2_DDS_CONFIG \
	"<Internal><GenerateKeyhash>true</GenerateKeyhash></Internal>"

dds_entity_t ros2_dds_domain(dds_domainid_t id)
{
	const char *uri = getenv("CYCLONEDDS_URI");
	dds_entity_t d;
	char *config;

	if (!uri || !*uri)
		return dds_create_domain(id, ROS2_DDS_CONFIG);
	if (asprintf(&config, "%s,%s", ROS2_DDS_CONFIG, uri) < 0)
		return DDS_RETCODE_OUT_OF_RESOURCES;
	d = dds_create_domain(id, config);
	free(config);
	return d;
}

static dds_qos_t *qos_xcdr1(void)
{
	dds_qos_t *q = dds_create_qos();

	/* rmw_cyclonedds offers and accepts XCDR1 only */
	dds_qset_data_representation(q, 1, (dds_data_representation_id_t[]){
		DDS_DATA_REPRESENTATION_XCDR1 });
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	return q;
}

dds_qos_t *ros2_dds_writer_qos(void)
{
	dds_qos_t *q = qos_xcdr1();

	/* RELIABLE offers what both profiles request.  A reader that
	 * falls behind costs the writer at most DEPTH samples of history
	 * (KEEP_LAST drops older ones, unacknowledged or not) and a write
	 * never blocks for long: the bridge forwards the latest state. */
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(20));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, ROS2_DDS_DEPTH);
	return q;
}

dds_qos_t *ros2_dds_reader_qos(enum ros2_dds_profile profile)
{
	dds_qos_t *q = qos_xcdr1();

	if (profile == ROS2_DDS_PROFILE_SENSOR_DATA) {
		dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 5);
	} else {
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 10);
	}
	return q;
}

dds_entity_t ros2_dds_writer(dds_entity_t pp,
			     const dds_topic_descriptor_t *desc,
			     const char *topic)
{
	dds_qos_t *q = ros2_dds_writer_qos();
	dds_entity_t t, w;

	t = dds_create_topic(pp, desc, topic, q, NULL);
	if (t < 0) {
		dds_delete_qos(q);
		return t;
	}
	w = dds_create_writer(pp, t, q, NULL);
	dds_delete_qos(q);
	if (w < 0)
		dds_delete(t);
	return w;
}
