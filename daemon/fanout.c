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
#include "fanout.h"

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
		ev = p->told;
		p->told = 0;
		d->fanout_to(d, p, ev);
	}
	return 0;
}

int fanout_init(struct skind *d, fanout_fn *fn)
{
	int r = sd_event_add_defer(d->event, &d->fanout, on_fanout, d);

	if (r < 0)
		return r;
	d->fanout_to = fn;
	sd_event_source_set_priority(d->fanout, SKIND_PRIO_FANOUT);
	sd_event_source_set_description(d->fanout, "fanout");
	return sd_event_source_set_enabled(d->fanout, SD_EVENT_OFF);
}

/* [RT] cheap: a flag in sd-event, no system call */
void fanout_published(struct skind_part *p)
{
	p->dirty = true;
	sd_event_source_set_enabled(p->d->fanout, SD_EVENT_ONESHOT);
}

void fanout_tell(struct skind_part *p, unsigned int told)
{
	p->told |= told;
	fanout_published(p);
}
