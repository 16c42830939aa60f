/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_model_util.h - helpers shared by the test_model_* programs
 */
#ifndef TEST_MODEL_UTIL_H
#define TEST_MODEL_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "skin/model.h"

static inline const char *src_path(const char *rel)
{
	static char buf[8][1024];
	static unsigned int k;
	char *b = buf[k++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", SKIN_SOURCE_ROOT, rel);
	return b;
}

static inline struct skin_model *must_load(const char *rel,
					   enum skin_format fmt)
{
	struct skin_error err;
	struct skin_model *m = skin_model_load(src_path(rel), fmt, &err);

	if (!m)
		fail_msg("%s: %s", rel, err.text);
	return m;
}

/* The input must fail with exactly this message (after "NAME:"). */
static inline void must_fail(const char *text, enum skin_format fmt,
			     const char *want)
{
	struct skin_error err;
	struct skin_model *m;

	memset(&err, 0, sizeof(err));
	m = skin_model_load_buffer(text, strlen(text), fmt, "in", &err);
	if (m) {
		skin_model_free(m);
		fail_msg("accepted, want the error: %s", want);
	}
	if (strcmp(err.text, want))
		fail_msg("error\n  got:  %s\n  want: %s", err.text, want);
}

/* Read a file of the repository into memory (NUL-terminated). */
static inline char *slurp(const char *rel, size_t *len)
{
	FILE *fp = fopen(src_path(rel), "rb");
	char *buf;
	long n;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	assert_true(n >= 0);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* Replace the first occurrence of from by to in a heap string. */
static inline char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	size_t a, nf = strlen(from), nt = strlen(to), ns = strlen(s);
	char *r;

	assert_non_null(at);
	a = (size_t)(at - s);
	r = malloc(ns - nf + nt + 1);
	assert_non_null(r);
	memcpy(r, s, a);
	memcpy(r + a, to, nt);
	memcpy(r + a + nt, at + nf, ns - a - nf + 1);
	return r;
}

/* Two models have the same parts, taxels (bit for bit) and links. */
static inline void assert_same_model(const struct skin_model *a,
				     const struct skin_model *b)
{
	unsigned int i;

	assert_int_equal(a->n_parts, b->n_parts);
	assert_int_equal(a->n_taxels, b->n_taxels);
	for (i = 0; i < a->n_parts; i++) {
		assert_string_equal(a->parts[i].name, b->parts[i].name);
		assert_int_equal(a->parts[i].n_taxels, b->parts[i].n_taxels);
		assert_int_equal(a->parts[i].skin_part, b->parts[i].skin_part);
	}
	for (i = 0; i < a->n_taxels; i++) {
		const struct skin_taxel *x = &a->taxels[i], *y = &b->taxels[i];

		if (x->kind != y->kind || x->flags != y->flags ||
		    x->index != y->index ||
		    memcmp(x->pos, y->pos, sizeof(x->pos)) ||
		    memcmp(x->normal, y->normal, sizeof(x->normal)) ||
		    memcmp(x->flat, y->flat, sizeof(x->flat)) ||
		    memcmp(&x->radius, &y->radius, sizeof(x->radius)))
			fail_msg("taxel %u differs", i);
		if ((x->link < 0) != (y->link < 0) ||
		    (x->link >= 0 &&
		     (strcmp(a->links[x->link].name, b->links[y->link].name) ||
		      a->links[x->link].number != b->links[y->link].number)))
			fail_msg("taxel %u: link differs", i);
	}
}

#endif
