/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bus.h - the CAN buses the skin uses, as rtnetlink sees them (bus.c)
 *
 * For every bus a configured patch is on: does the interface exist, is it
 * a CAN interface, is it up, its bitrate (IFLA_CAN_BITTIMING) against
 * `[bus NAME] bitrate`, and its error state (IFLA_CAN_STATE).  What it
 * finds is said once per change, by name, in the journal (a BUS= field),
 * and shown in `status` (protocol.c) and in STATUS= (status.c).
 *
 * Owns struct skind's buses and its rtnetlink socket: subscribed to
 * RTNLGRP_LINK, so a link going up, down or away is seen at once; the
 * kernel announces no change of a CAN error state, so the status timer
 * also asks again once a second (bus_refresh()).  Housekeeping only.
 */
#ifndef SKIND_BUS_H
#define SKIND_BUS_H

#include <stdbool.h>
#include <stddef.h>

#include "skind.h"

enum bus_link {
	BUS_LINK_UNKNOWN,		/* not asked yet, or rtnetlink refused */
	BUS_LINK_MISSING,		/* no such interface */
	BUS_LINK_NOT_CAN,		/* an interface, not ARPHRD_CAN */
	BUS_LINK_DOWN,
	BUS_LINK_UP,
};

struct skind_bus {
	char name[SKIN_IFNAME_LEN];
	unsigned int configured;	/* [bus NAME] bitrate, bit/s */

	/* what rtnetlink said last */
	enum bus_link link;
	int ifindex;
	bool is_virtual;		/* vcan, vxcan: no bit timing */
	char kind[16];			/* IFLA_INFO_KIND: "can", "vcan", ... */
	unsigned int bitrate;		/* 0: none reported */
	int state;			/* enum can_state, -1: none reported */

	char said[256];			/* what the journal heard last */
};

/* The rtnetlink socket; without it (refused) the buses are "unknown". */
int bus_start(struct skind *d);
void bus_stop(struct skind *d);
/* The buses the current skin's patches use (at start and after a
 * reload): what is known of a bus that stays is kept, then all asked. */
int bus_configure(struct skind *d);
/* Ask the kernel about every bus again (the status timer). */
void bus_refresh(struct skind *d);

const struct skind_bus *bus_find(const struct skind *d, const char *name);
/* What is wrong with it, in a few words ("down", "bus-off", "bitrate
 * 500000"), or NULL when nothing is (or nothing is known). */
const char *bus_trouble(const struct skind_bus *b, char *buf, size_t size);
const char *bus_link_name(enum bus_link link);
/* "error-active" ... "sleeping"; "virtual" for vcan, "none" otherwise */
const char *bus_state_name(const struct skind_bus *b);

#endif
