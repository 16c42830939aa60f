/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - the bridge's configuration (skin-ros2.conf(5))
 *
 *	[bridge]
 *	domain_id = 0            DDS domain, 0..232 (ROS_DOMAIN_ID)
 *	namespace = /skin        ROS namespace of every topic
 *	parts = left_hand torso  the parts to publish (default: all)
 *	raw = yes                publish .../raw as well
 *	socket = PATH            skind's socket (default: skind's)
 *
 *	[part left_hand]
 *	frame_id = l_hand_dh_frame
 *
 * lib/conf's syntax (conf.h): '#' and ';' start comments (inline after a
 * blank), booleans are yes/no, true/false, on/off or 1/0, every error
 * names FILE:LINE:COL.
 */
#ifndef ROS2_CONFIG_H
#define ROS2_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skin/model.h>
#include <skin/shm.h>

#include "msg.h"

#define ROS2_CONFIG_MAX_DOMAIN	232	/* DDS's port mapping: 0..232 */
#define ROS2_CONFIG_NS_LEN	128
#define ROS2_CONFIG_PATH_LEN	108	/* sun_path */

struct ros2_config_part {
	char name[SKIN_SHM_NAME_LEN];
	char frame_id[ROS2_MSG_FRAME_LEN];	/* "" : the default */
	bool publish;				/* named in parts = */
	unsigned int line;			/* of its [part NAME]; 0 none */
};

struct ros2_config {
	uint32_t domain_id;
	char ns[ROS2_CONFIG_NS_LEN];
	char socket[ROS2_CONFIG_PATH_LEN];	/* "" : skind's default */
	int raw;				/* a lib/conf boolean */
	bool all_parts;				/* no parts = line */
	unsigned int n_parts;
	struct ros2_config_part *parts;
};

/* Defaults: domain 0, /skin, every part, raw values. */
void ros2_config_init(struct ros2_config *c);
/* The [bridge] keys but parts: lib/conf's table (conf.h), n of them */
struct conf_key;
const struct conf_key *ros2_config_keys(size_t *n);
/* Parse @buf (NUL-terminated), named @name in errors.  0 or -EINVAL
 * (@err says where and why: out of memory too). */
int ros2_config_parse(struct ros2_config *c, const char *buf,
		      const char *name, struct skin_error *err);
/* Read and parse the file @path (a regular file: skin_file_read()). */
int ros2_config_load(struct ros2_config *c, const char *path,
		     struct skin_error *err);
void ros2_config_free(struct ros2_config *c);

/* Whether part @name is to be published, and its frame: the configured
 * one, else the iCub link frame of its SkinPart (skin/model.h's
 * enum skin_part_id; the URDF's *_dh_frame, where skinDynLib's taxel
 * positions are), else the part's name. */
bool ros2_config_publishes(const struct ros2_config *c, const char *name);
const char *ros2_config_frame(const struct ros2_config *c, const char *name,
			      uint32_t skin_part);

#endif /* ROS2_CONFIG_H */
