// SPDX-License-Identifier: GPL-2.0
/*
 * ros2sub.c - a ROS 2 subscriber without ROS, for the ros2 layer
 *
 * Knows only what a ROS 2 node knows: the ROS topic names, the message
 * types (tactile_msgs.idl, named as rmw_cyclonedds names them) and ROS
 * 2's QoS profiles.  For each TOPIC it reads with a default-profile and a
 * sensor_data-profile reader and prints every sample as one line:
 *
 *	PROFILE TOPIC state SEC NSEC FRAME NSENSORS NAME N V0 V1 ...
 *	PROFILE TOPIC contacts SEC NSEC N
 *	        [NAME FRAME SEC NSEC PX PY PZ NX NY NZ FX FY FZ TX TY TZ] ...
 *
 * (PROFILE "default" or "sensor"; floats %.9g, doubles %.17g: exact).
 * "ready" once the readers exist; "matched PROFILE TOPIC N" when the
 * number of matched writers changes.  Stops after SECONDS or on stdin's
 * end.
 *
 * Usage: ros2sub [-d DOMAIN] [-t SECONDS] /ns/part/values:state
 *                /ns/part/contacts:contacts ...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dds.h"
#include "msg.h"
#include "skin_clock.h"

#define MAX_TOPICS	64

struct sub {
	char name[ROS2_DDS_TOPIC_LEN];
	bool contacts;
	dds_entity_t r[2];
	int32_t matched[2];
};

static const char *const profile_names[2] = { "default", "sensor" };

static void print_state(const char *prof, const char *topic, const ros2_state *s)
{
	unsigned int i, j;

	printf("%s %s state %d %u %s %u", prof, topic, s->header_.stamp_.sec_,
	       s->header_.stamp_.nanosec_, s->header_.frame_id_,
	       s->sensors_._length);
	for (i = 0; i < s->sensors_._length; i++) {
		const sensor_msgs_msg_dds__ChannelFloat32_ *c = &s->sensors_._buffer[i];

		printf(" %s %u", c->name_, c->values_._length);
		for (j = 0; j < c->values_._length; j++)
			printf(" %.9g", c->values_._buffer[j]);
	}
	putchar('\n');
}

static void print_contacts(const char *prof, const char *topic,
			   const ros2_contacts *s)
{
	unsigned int i;

	printf("%s %s contacts %u", prof, topic, s->contacts_._length);
	for (i = 0; i < s->contacts_._length; i++) {
		const ros2_contact *c = &s->contacts_._buffer[i];

		printf(" %s %s %d %u %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g",
		       c->name_, c->header_.frame_id_, c->header_.stamp_.sec_,
		       c->header_.stamp_.nanosec_,
		       c->position_.x_, c->position_.y_, c->position_.z_,
		       c->normal_.x_, c->normal_.y_, c->normal_.z_,
		       c->wrench_.force_.x_, c->wrench_.force_.y_, c->wrench_.force_.z_,
		       c->wrench_.torque_.x_, c->wrench_.torque_.y_, c->wrench_.torque_.z_);
	}
	putchar('\n');
}

static void drain(struct sub *s, int k)
{
	void *samples[16] = { NULL };
	dds_sample_info_t info[16];
	int n, i;

	{
		dds_subscription_matched_status_t m;

		if (dds_get_subscription_matched_status(s->r[k], &m) == 0 &&
		    (int32_t)m.current_count != s->matched[k]) {
			s->matched[k] = (int32_t)m.current_count;
			printf("matched %s %s %d\n", profile_names[k], s->name,
			       s->matched[k]);
		}
	}
	while ((n = dds_take(s->r[k], samples, info, 16, 16)) > 0) {
		for (i = 0; i < n; i++) {
			if (!info[i].valid_data)
				continue;
			if (s->contacts)
				print_contacts(profile_names[k], s->name, samples[i]);
			else
				print_state(profile_names[k], s->name, samples[i]);
		}
		dds_return_loan(s->r[k], samples, n);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct sub subs[MAX_TOPICS];
	unsigned int domain = 0, n = 0, i, k;
	double seconds = 30;
	uint64_t t0;
	dds_entity_t pp, ws;
	int o;

	while ((o = getopt(argc, argv, "d:t:")) != -1) {
		switch (o) {
		case 'd': domain = (unsigned int)atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		default:
			fprintf(stderr, "usage: ros2sub [-d DOMAIN] [-t SECONDS] ROS_TOPIC:state|contacts ...\n");
			return 2;
		}
	}
	pp = dds_create_participant(domain, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "ros2sub: participant: %s\n", dds_strretcode(pp));
		return 1;
	}
	ws = dds_create_waitset(pp);
	for (; optind < argc && n < MAX_TOPICS; optind++, n++) {
		struct sub *s = &subs[n];
		char *colon = strrchr(argv[optind], ':');
		const dds_topic_descriptor_t *desc;
		dds_entity_t tp;

		if (!colon || argv[optind][0] != '/') {
			fprintf(stderr, "ros2sub: %s: expected /ROS/NAME:state|contacts\n", argv[optind]);
			return 2;
		}
		*colon = '\0';
		s->contacts = !strcmp(colon + 1, "contacts");
		desc = s->contacts ? &tactile_msgs_msg_dds__TactileContacts__desc :
				     &tactile_msgs_msg_dds__TactileState__desc;
		snprintf(s->name, sizeof(s->name), "%s", argv[optind]);
		{
			char dds_name[ROS2_DDS_TOPIC_LEN + 2];

			snprintf(dds_name, sizeof(dds_name), "rt%s", argv[optind]);
			tp = dds_create_topic(pp, desc, dds_name, NULL, NULL);
		}
		if (tp < 0) {
			fprintf(stderr, "ros2sub: topic %s: %s\n", s->name, dds_strretcode(tp));
			return 1;
		}
		for (k = 0; k < 2; k++) {
			dds_qos_t *q = ros2_dds_reader_qos(k ? ROS2_DDS_PROFILE_SENSOR_DATA :
							   ROS2_DDS_PROFILE_DEFAULT);

			s->r[k] = dds_create_reader(pp, tp, q, NULL);
			dds_delete_qos(q);
			if (s->r[k] < 0) {
				fprintf(stderr, "ros2sub: reader: %s\n", dds_strretcode(s->r[k]));
				return 1;
			}
			dds_set_status_mask(s->r[k], DDS_DATA_AVAILABLE_STATUS |
					    DDS_SUBSCRIPTION_MATCHED_STATUS);
			dds_waitset_attach(ws, s->r[k], (dds_attach_t)(n * 2 + k));
		}
	}
	printf("ready\n");
	fflush(stdout);
	t0 = clock_monotonic_ns();
	for (;;) {
		dds_attach_t trig[32];
		struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
		int m = dds_waitset_wait(ws, trig, 32, DDS_MSECS(100));

		for (i = 0; i < (unsigned int)(m > 0 ? m : 0); i++)
			drain(&subs[trig[i] / 2], (int)(trig[i] % 2));
		if ((double)(clock_monotonic_ns() - t0) * 1e-9 > seconds)
			break;
		if (poll(&p, 1, 0) > 0) {
			char buf[64];

			if (read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
				break;
		}
	}
	dds_delete(pp);
	dds_delete(DDS_CYCLONEDDS_HANDLE);
	return 0;
}
