// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - the one-line summary the service manager shows (status.h)
 *
 * `systemctl status skind` shows the last STATUS= a service sent; it is
 * sent only when its text changes, from the status timer (main.c), after
 * a reload, and when patches were attached or a bus changed (input.c and
 * bus.c call struct skind's status_changed, which main.c points here).  A
 * bus in trouble is named in it ("; bus can0 down").
 */
#include <stdio.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "bus.h"
#include "server.h"
#include "status.h"

void status_update(struct skind *d)
{
	struct skind_skin *s = d->skin;
	unsigned int i, attached = 0, calibrated = 0;
	char status[256], buf[32];
	int n;

	if (!s)
		return;
	for (i = 0; i < s->n_parts; i++) {
		attached += s->parts[i].attached;
		calibrated += !!(s->parts[i].state & SKIN_SHM_PART_CALIBRATED);
	}
	n = snprintf(status, sizeof(status),
		     "%u parts (%u calibrated), %u/%u patches attached, %u clients, %llu events dropped",
		     s->n_parts, calibrated, attached, s->n_patches, server_n_clients(d),
		     (unsigned long long)server_total_drops(d));
	/* a bus in trouble is the first thing to see */
	for (i = 0; i < d->n_buses && n > 0 && (size_t)n < sizeof(status); i++) {
		const char *t = bus_trouble(&d->buses[i], buf, sizeof(buf));

		if (t)
			n += snprintf(status + n, sizeof(status) - (size_t)n,
				      "; bus %s %s", d->buses[i].name, t);
	}
	if (strcmp(status, d->last_status)) {
		sd_notifyf(0, "STATUS=%s", status);
		snprintf(d->last_status, sizeof(d->last_status), "%s", status);
	}
}

void status_resend(struct skind *d)
{
	d->last_status[0] = 0;
	status_update(d);
}
