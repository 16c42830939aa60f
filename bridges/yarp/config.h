/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - skin-yarp.conf, the YARP bridge's configuration
 *
 *	[yarp]
 *	version = 3                # YARP major version of the readers: 3 or 4
 *	name_server = IP PORT      # else found as YARP finds it (yarp.conf)
 *	advertise = IP             # the address registered ("...": the name
 *	                           # server takes the one it sees us from)
 *	bind = IP                  # where the ports listen (0.0.0.0)
 *	robot = icub               # the ports /ROBOT/skin/<part>[_comp]
 *	manager = skinManager      # /MANAGER/skin_events:o, /MANAGER/rpc
 *	rpc_admin = no             # calib and set from YARP clients
 *	stall_ms = 3000            # a reader stalled that long is dropped
 *	recheck_s = 5              # registrations checked, re-registered
 *	max_connections = 256      # connections held in all (to us and ours)
 *	max_per_address = 32       # connections to us from one address
 *	idle_ms = 10000            # an incomplete message waits that long
 *	raw_period_ms = 20         # a raw port's message this often (0: at
 *	                           # each of skind's publications)
 *
 *	[part NAME]                # a skind part's YARP name (skinManAll.ini's
 *	port = left_arm            # default comes from its SkinPart)
 *
 *	[connect]                  # connections the bridge makes itself
 *	/icub/skin/left_hand_comp = /logger tcp
 *
 * lib/conf's syntax (conf.h): '#' or ';' start comments, booleans are
 * yes/no, true/false, on/off or 1/0, every error names FILE:LINE:COL, and
 * the file is read through skin_file_read() (a FIFO is refused).
 */
#ifndef SKIN_YARP_CONFIG_H
#define SKIN_YARP_CONFIG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "wire.h"

#define YB_MAX_PARTS	32
#define YB_MAX_CONNECT	64

struct yb_part_name {
	char part[32];		/* skind's part name */
	char port[64];		/* the YARP part name (left_arm) */
};

struct yb_connect {
	char from[256], to[256];
	enum yw_carrier carrier;
};

struct yb_config {
	enum yw_version version;
	bool have_name_server;
	char ns_host[64];
	uint16_t ns_port;
	char advertise[64];
	struct in_addr bind;
	char robot[64], manager[64];
	int rpc_admin;			/* a lib/conf boolean */
	unsigned int stall_ms, recheck_s;
	unsigned int max_conns, max_per_addr, idle_ms;
	unsigned int raw_period_ms;	/* 0: a raw message per publication */
	unsigned int n_parts;
	struct yb_part_name parts[YB_MAX_PARTS];
	unsigned int n_connect;
	struct yb_connect connect[YB_MAX_CONNECT];
};

void yb_config_defaults(struct yb_config *c);
/* The [yarp] keys: lib/conf's table (conf.h), n of them */
struct conf_key;
const struct conf_key *yb_config_keys(size_t *n);
/* 0, or -EINVAL with "FILE:LINE:COL: what" in @why */
int yb_config_load(struct yb_config *c, const char *path, char *why,
		   size_t why_len);
/* The YARP name of skind's part @part (SkinPart @skin_part): its [part]
 * entry, else skinManAll.ini's name for that SkinPart, else @part */
const char *yb_config_port_name(const struct yb_config *c, const char *part,
				unsigned int skin_part);

#endif /* SKIN_YARP_CONFIG_H */
