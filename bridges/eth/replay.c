// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - skin-eth --replay: a capture file through the receiver into
 * a candump log, natively, with no kernel
 *
 * Each packet goes the way the live gateway's do (gateway_packet()),
 * with the packet's capture time in the log.
 */
#include <errno.h>
#include <string.h>

#include "gateway.h"

int gateway_replay(struct gateway *g, const char *path)
{
	struct skin_capture_packet p;
	struct skin_capture *c;
	struct skin_error err;
	int n = 0;

	c = skin_capture_open(path, &err);
	if (!c) {
		fprintf(stderr, "skin-eth: %s\n", err.text);
		return -1;
	}
	while (!g->log_failed && (n = skin_capture_next(c, &p, &err)) > 0)
		gateway_packet(g, p.linktype, p.data, p.caplen, p.ts_ns);
	if (n < 0)
		fprintf(stderr, "skin-eth: %s\n", err.text);
	skin_capture_close(c);
	if (g->log_failed)
		return -1;
	if (g->log && fflush(g->log)) {
		fprintf(stderr, "skin-eth: writing the log: %s\n",
			strerror(errno));
		return -1;
	}
	return n < 0 ? -1 : 0;
}
