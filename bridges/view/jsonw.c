// SPDX-License-Identifier: GPL-2.0
/*
 * jsonw.c - JSON text into a growable buffer (jsonw.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/proc.h>

#include "jsonw.h"

void jw_init(struct jw *w, size_t max)
{
	memset(w, 0, sizeof(*w));
	w->max = max;
	w->first[0] = true;
}

void jw_free(struct jw *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

char *jw_take(struct jw *w, size_t *len)
{
	char *s = w->buf;

	if (w->err || !s) {
		jw_free(w);
		return NULL;
	}
	*len = w->len;
	w->buf = NULL;
	w->len = w->cap = 0;
	return s;
}

/* Room for @n more bytes and the NUL */
static char *room(struct jw *w, size_t n)
{
	if (w->err)
		return NULL;
	if (w->len + n + 1 > w->max) {
		w->err = -E2BIG;
		return NULL;
	}
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		char *nb;

		while (cap < w->len + n + 1)
			cap *= 2;
		nb = realloc(w->buf, cap);
		if (!nb) {
			w->err = -ENOMEM;
			return NULL;
		}
		w->buf = nb;
		w->cap = cap;
	}
	return w->buf + w->len;
}

static void put(struct jw *w, const char *s, size_t n)
{
	char *p = room(w, n);

	if (!p)
		return;
	memcpy(p, s, n);
	w->len += n;
	p[n] = 0;
}

static void putf(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct jw *w, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(w, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* The comma before a value that is not its container's first */
static void value(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		put(w, ",", 1);
	w->first[w->depth] = false;
}

static void open_(struct jw *w, char c)
{
	value(w);
	put(w, &c, 1);
	if (w->depth + 1 >= JW_DEPTH) {
		w->err = -E2BIG;
		return;
	}
	w->first[++w->depth] = true;
}

static void close_(struct jw *w, char c)
{
	put(w, &c, 1);
	if (w->depth)
		w->depth--;
}

void jw_object(struct jw *w)
{
	open_(w, '{');
}

void jw_object_end(struct jw *w)
{
	close_(w, '}');
}

void jw_array(struct jw *w)
{
	open_(w, '[');
}

void jw_array_end(struct jw *w)
{
	close_(w, ']');
}

static void string(struct jw *w, const char *s)
{
	size_t n = skin_json_escape(NULL, 0, s);
	char *p = room(w, n + 2);

	if (!p)
		return;
	p[0] = '"';
	skin_json_escape(p + 1, n + 1, s);
	p[n + 1] = '"';
	p[n + 2] = 0;
	w->len += n + 2;
}

void jw_key(struct jw *w, const char *key)
{
	value(w);
	string(w, key);
	put(w, ":", 1);
	w->after_key = true;
}

void jw_str(struct jw *w, const char *s)
{
	value(w);
	string(w, s ? s : "");
}

void jw_int(struct jw *w, int64_t v)
{
	value(w);
	putf(w, "%" PRId64, v);
}

void jw_uint(struct jw *w, uint64_t v)
{
	value(w);
	putf(w, "%" PRIu64, v);
}

void jw_bool(struct jw *w, bool v)
{
	value(w);
	put(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(struct jw *w)
{
	value(w);
	put(w, "null", 4);
}

void jw_num(struct jw *w, double v, int digits)
{
	value(w);
	if (!isfinite(v))
		put(w, "null", 4);
	else if (v == 0)
		put(w, "0", 1);	/* and -0 too: JSON readers differ on it */
	else
		putf(w, "%.*g", digits, v);
}

void jw_raw(struct jw *w, const char *json, size_t len)
{
	value(w);
	put(w, json, len);
}
