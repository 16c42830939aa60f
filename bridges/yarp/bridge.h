/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bridge.h - skin-yarp: skind's outputs on a YARP network, where
 * skinManager and the CAN skin devices put them (docs/YARP.md)
 *
 * One process, one sd-event loop: a follower of skind (skin/follow.h)
 * feeds the ports; the name server client registers them and resolves
 * readers; rpc.c maps skinManager's rpc commands onto skind's socket.
 * skind never waits for the bridge, and the bridge never waits for a
 * YARP peer.
 */
#ifndef SKIN_YARP_BRIDGE_H
#define SKIN_YARP_BRIDGE_H

#include <skin/client.h>
#include <skin/follow.h>

#include "config.h"
#include "follow_source.h"
#include "name.h"
#include "port.h"

#define YB_MAX_PORTS	(3 * 64 + 4)

struct yb_part {
	char name[SKIN_SHM_NAME_LEN];	/* skind's */
	struct yp_port *raw, *raw_rpc, *comp;
	int index;			/* in the map now, -1: not attached */
	unsigned int n_taxels;		/* its vector's length, as last seen */
	uint32_t state;			/* SKIN_SHM_PART_*, as last seen */
};

struct yb_rpc;

struct yb {
	sd_event *e;
	struct yb_config cfg;
	const char *socket;		/* skind's (NULL: the default) */
	struct sockaddr_in ns;
	struct yn_client *nc;
	struct net_guard *guard;	/* every port's connections */
	struct follow_source *follow;
	/* skinManager's thread: skin_events:o and monitor:o every period */
	sd_event_source *cycle, *recheck;
	uint64_t cycle_last_ns;		/* the cycle's last run, 0: none yet */
	double cycle_avg_ns;		/* its running period, 0: not known */
	sd_event_source *raw_timer;	/* raw_period_ms > 0: the raw ports' */
	const struct skin_shm_map *map;	/* while attached */
	unsigned int period_ms;
	struct yb_part parts[64];
	unsigned int n_parts;
	struct yp_port *ports[YB_MAX_PORTS];
	unsigned int n_ports;
	struct yp_port *events, *rpc_port, *info, *monitor;
	struct yb_rpc *rpc;
	struct yw_buf bin, text;
	uint8_t *raw;			/* a raw port's values, zero-filled */
	size_t raw_size;
	double *monitor_values;		/* monitor:o's vector */
	size_t monitor_size;		/* entries */
	uint32_t events_seq;
	uint64_t samples;		/* SAMPLE events forwarded */
	uint64_t peer_counts[9];	/* report_peers()'s, last said */
};

int yb_new(struct yb **b, sd_event *e, const struct yb_config *cfg,
	   const char *socket, char *why, size_t why_len);
/* Unregister every port (waiting at most @ms for the name server), free */
void yb_free(struct yb *b, unsigned int ms);

/* rpc.c: the rpc port's handler */
int yb_rpc_new(struct yb_rpc **r, struct yb *b);
void yb_rpc_free(struct yb_rpc *r);
/* Commands answered "busy" (skind slow) since start */
uint64_t yb_rpc_busy(const struct yb_rpc *r);
/* A raw port's <port>/rpc:i, as YARP's analogServer wrapper answers it
 * (the IAnalogSensor commands analogsensorclient sends) */
void yb_analog_rpc(void *data, struct yp_call *call,
		   const struct yw_atom *a, unsigned int n);
void yb_rpc_handle(void *data, struct yp_call *call,
		   const struct yw_atom *atoms, unsigned int n);

/* Part @p's newest copy, the follower's (skin_follow_block()); NULL
 * while it has none (not attached, no publication yet) */
const void *yb_block(const struct yb *b, const struct yb_part *p);

#endif /* SKIN_YARP_BRIDGE_H */
