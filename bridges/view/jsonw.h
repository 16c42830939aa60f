/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonw.h - JSON text written straight into a growable buffer
 *
 * skin-view's own JSON channels (/skin/layout, /skin/health) are built
 * from arrays of thousands of numbers: written with printf into one
 * buffer, not as a json-c tree of an object per number.  The writer puts
 * the commas itself (jw_key() and each value after the first of an array
 * or object), escapes strings as skind's socket does (skin_json_escape(),
 * lib/proc), writes a number that is not finite as null, and holds at
 * most @max bytes: past it, or out of memory, the error sticks
 * (jw.err: -E2BIG, -ENOMEM) and the text is not to be used.
 *
 * Ownership: the caller's struct jw; jw_free() releases the buffer,
 * jw_take() hands it over.  Threads: one at a time.
 */
#ifndef VIEW_JSONW_H
#define VIEW_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JW_DEPTH 16

struct jw {
	char *buf;
	size_t len, cap, max;
	int err;
	unsigned int depth;
	bool first[JW_DEPTH];	/* nothing written yet in this container */
	bool after_key;
};

void jw_init(struct jw *w, size_t max);
void jw_free(struct jw *w);
/* The text (NUL-terminated, @len bytes), now the caller's; NULL after an
 * error (the buffer freed). */
char *jw_take(struct jw *w, size_t *len);

void jw_object(struct jw *w);
void jw_object_end(struct jw *w);
void jw_array(struct jw *w);
void jw_array_end(struct jw *w);
void jw_key(struct jw *w, const char *key);

void jw_str(struct jw *w, const char *s);
void jw_int(struct jw *w, int64_t v);
void jw_uint(struct jw *w, uint64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* %.*g with @digits significant digits; null when not finite */
void jw_num(struct jw *w, double v, int digits);
/* A JSON value written as it is (the caller's, already valid JSON) */
void jw_raw(struct jw *w, const char *json, size_t len);

#endif /* VIEW_JSONW_H */
