// SPDX-License-Identifier: GPL-2.0
/*
 * view_source.c - what the two sources of skinctl view share: the frame's
 * arrays and how an error is said (view_source.h)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "view_source.h"

int view_source_frame_alloc(struct view_source *s)
{
	unsigned int n = s->n ? s->n : 1;

	s->max_contacts = n;
	s->values = calloc(n, sizeof(*s->values));
	s->touched = calloc(n, sizeof(*s->touched));
	s->contacts = calloc(n, sizeof(*s->contacts));
	s->ctaxels = calloc(n, sizeof(*s->ctaxels));
	if (!s->values || !s->touched || !s->contacts || !s->ctaxels) {
		fprintf(stderr, "%s: out of memory\n", s->who);
		return -1;
	}
	s->frame.part = s->m->parts[s->part].name;
	s->frame.source = s->source_text;
	s->frame.values = s->values;
	s->frame.touched = s->touched;
	s->frame.contacts = s->contacts;
	s->frame.state = s->state;
	return 0;
}

void view_source_frame_free(struct view_source *s)
{
	free(s->values);
	free(s->touched);
	free(s->contacts);
	free(s->ctaxels);
}

void view_source_say(struct view_source *s, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(s->err, sizeof(s->err), "%s: ", s->who);

	va_start(ap, fmt);
	vsnprintf(s->err + n, sizeof(s->err) - (size_t)n, fmt, ap);
	va_end(ap);
	if (!s->live) {
		fprintf(stderr, "%s\n", s->err);
		s->err[0] = '\0';
	}
}
