// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - the one-line summary the service manager shows (status.h)
 *
 * `systemctl status skind` shows the last STATUS= a service sent; it is
 * sent only when its text changes, from the status timer (main.c), after
 * a reload and when patches were attached (input.c).
 */
#include <stdio.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "server.h"
#include "status.h"

void status_update(struct skind *d)
{
	struct skind_skin *s = d->skin;
	unsigned int i, attached = 0, calibrated = 0;
	char status[256];

	if (!s)
		return;
	for (i = 0; i < s->n_parts; i++) {
		attached += s->parts[i].attached;
		calibrated += !!(s->parts[i].state & SKIN_SHM_PART_CALIBRATED);
	}
	snprintf(status, sizeof(status),
		 "%u parts (%u calibrated), %u/%u patches attached, %u clients, %llu events dropped",
		 s->n_parts, calibrated, attached, s->n_patches, server_n_clients(d),
		 (unsigned long long)server_total_drops(d));
	if (strcmp(status, d->last_status)) {
		sd_notifyf(0, "STATUS=%s", status);
		snprintf(d->last_status, sizeof(d->last_status), "%s", status);
	}
}
