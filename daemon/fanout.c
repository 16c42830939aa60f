// SPDX-License-Identifier: GPL-2.0
/*
 * fanout.c - from published parts to subscribers and evdev
 *
 * The real-time path marks a part dirty and enables this deferred source;
 * sd-event runs it once no source of higher priority (the rings) is
 * pending, so however many subscribers there are, and however slowly they
 * read, the next ring frame is never behind them.  One run serves every
 * part published since the last run: subscribers get the newest state,
 * not every intermediate one (rates are what they asked for, at most).
 */
#include "evdev.h"
#include "fanout.h"
#include "server.h"

static int on_fanout(sd_event_source *s, void *data)
{
	struct skind *d = data;
	struct skind_skin *sk = d->skin;
	unsigned int i, ev;

	(void)s;
	if (!sk)
		return 0;
	for (i = 0; i < sk->n_parts; i++) {
		struct skind_part *p = &sk->parts[i];

		if (!p->dirty)
			continue;
		p->dirty = false;
		if (p->told) {
			ev = p->told;
			p->told = 0;
			server_calibration_done(d, p, ev);
		}
		server_fanout_part(d, p);
		evdev_update(p);
	}
	return 0;
}

int fanout_init(struct skind *d)
{
	int r = sd_event_add_defer(d->event, &d->fanout, on_fanout, d);

	if (r < 0)
		return r;
	sd_event_source_set_priority(d->fanout, SKIND_PRIO_FANOUT);
	sd_event_source_set_description(d->fanout, "fanout");
	return sd_event_source_set_enabled(d->fanout, SD_EVENT_OFF);
}

/* [RT] cheap: a flag in sd-event, no system call */
void fanout_schedule(struct skind *d)
{
	sd_event_source_set_enabled(d->fanout, SD_EVENT_ONESHOT);
}
