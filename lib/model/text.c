// SPDX-License-Identifier: GPL-2.0
/*
 * text.c - numbers and growing text for the writers
 *
 * The bottom of libskinmodel with error.c and file.c: it calls nothing of
 * the library, so every format's reader and writer may use it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

void skin_fmt_double(char *buf, size_t size, double v)
{
	int prec;

	/* The shortest of %.15g..%.17g that reads back exactly: 0.0345 stays
	 * 0.0345 and any double survives a round trip. */
	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		{
			size_t nc = b->cap ? b->cap * 2 : 4096;
			char *s;

			while (nc - b->len <= (size_t)n)
				nc *= 2;
			s = realloc(b->s, nc);
			if (!s) {
				b->oom = true;
				return;
			}
			b->s = s;
			b->cap = nc;
		}
	}
}

void sbuf_double(struct sbuf *b, double v)
{
	char num[40];

	skin_fmt_double(num, sizeof(num), v);
	sbuf_printf(b, "%s", num);
}
