// SPDX-License-Identifier: GPL-2.0
/*
 * cdr.c - tactile_msgs in CDR (cdr.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdr.h"

void cdr_init(struct cdr *c, size_t head)
{
	memset(c, 0, sizeof(*c));
	c->head = head;
}

void cdr_free(struct cdr *c)
{
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

static uint8_t *room(struct cdr *c, size_t n)
{
	if (c->err)
		return NULL;
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 1024;
		uint8_t *nb;

		while (cap < c->len + n)
			cap *= 2;
		nb = realloc(c->buf, c->head + cap);
		if (!nb) {
			c->err = -ENOMEM;
			return NULL;
		}
		c->buf = nb;
		c->cap = cap;
	}
	return c->buf + c->head + c->len;
}

static void put(struct cdr *c, const void *d, size_t n)
{
	uint8_t *p = room(c, n);

	if (!p)
		return;
	memcpy(p, d, n);
	c->len += n;
}

/* Alignment counts from the end of the encapsulation header */
static void align(struct cdr *c, size_t a)
{
	static const uint8_t zero[8];
	size_t off = (c->len - 4) % a;

	if (off)
		put(c, zero, a - off);
}

/* little endian on the wire whatever the host */
static void u32(struct cdr *c, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	align(c, 4);
	put(c, b, 4);
}

static void u64(struct cdr *c, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	align(c, 8);
	put(c, b, 8);
}

static void f32(struct cdr *c, float f)
{
	uint32_t v;

	memcpy(&v, &f, 4);
	u32(c, v);
}

/* A float32 at @p, little endian */
static inline void put_f32(uint8_t *p, float f)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &f, 4);
#else
	uint32_t b;

	memcpy(&b, &f, 4);
	p[0] = (uint8_t)b;
	p[1] = (uint8_t)(b >> 8);
	p[2] = (uint8_t)(b >> 16);
	p[3] = (uint8_t)(b >> 24);
#endif
}

/* @n float32 little endian, in one piece (aligned: 4-byte elements after
 * their 4-byte count) */
static void f32_array(struct cdr *c, const float *v, unsigned int n)
{
	uint8_t *p;
	unsigned int i;

	align(c, 4);
	p = room(c, (size_t)n * 4);
	if (!p)
		return;
	for (i = 0; i < n; i++)
		put_f32(p + 4 * i, v[i]);
	c->len += (size_t)n * 4;
}

/* @n bytes as float32 (raw values), in one piece */
static void f32_array_u8(struct cdr *c, const uint8_t *v, unsigned int n)
{
	uint8_t *p;
	unsigned int i;

	align(c, 4);
	p = room(c, (size_t)n * 4);
	if (!p)
		return;
	for (i = 0; i < n; i++)
		put_f32(p + 4 * i, v[i]);
	c->len += (size_t)n * 4;
}

static void f64(struct cdr *c, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	u64(c, v);
}

static void string(struct cdr *c, const char *s)
{
	size_t n = strlen(s) + 1;

	u32(c, (uint32_t)n);
	put(c, s, n);
}

void cdr_reset(struct cdr *c)
{
	static const uint8_t encapsulation[4] = { 0x00, 0x01, 0x00, 0x00 };

	c->len = 0;
	c->err = 0;
	put(c, encapsulation, 4);
}

void cdr_stamp_from(struct cdr_stamp *t, uint64_t mono_ns, int64_t offset_ns)
{
	int64_t ns = (int64_t)mono_ns + offset_ns;

	if (ns < 0)
		ns = 0;
	t->sec = (int32_t)(ns / 1000000000);
	t->nanosec = (uint32_t)(ns % 1000000000);
}

/* std_msgs/Header */
static void header(struct cdr *c, const struct cdr_stamp *t, const char *frame)
{
	u32(c, (uint32_t)t->sec);
	u32(c, t->nanosec);
	string(c, frame);
}

/* TactileState up to its one channel's values' count */
static void state_head(struct cdr *c, const struct cdr_stamp *t,
		       const char *frame, const char *sensor, unsigned int n)
{
	cdr_reset(c);
	header(c, t, frame);
	u32(c, 1);		/* sensors: one ChannelFloat32 */
	string(c, sensor);
	u32(c, n);
}

void cdr_tactile_state(struct cdr *c, const struct cdr_stamp *t,
		       const char *frame_id, const char *sensor,
		       const float *values, unsigned int n)
{
	state_head(c, t, frame_id, sensor, n);
	f32_array(c, values, n);
}

void cdr_tactile_state_raw(struct cdr *c, const struct cdr_stamp *t,
			   const char *frame_id, const char *sensor,
			   const uint8_t *raw, unsigned int n)
{
	state_head(c, t, frame_id, sensor, n);
	f32_array_u8(c, raw, n);
}

static void vec3(struct cdr *c, const double v[3])
{
	f64(c, v[0]);
	f64(c, v[1]);
	f64(c, v[2]);
}

void cdr_tactile_contacts(struct cdr *c, const struct cdr_stamp *t,
			  const char *frame_id,
			  const struct skin_contact_record *k, unsigned int n,
			  size_t stride)
{
	char name[32];
	unsigned int i;

	cdr_reset(c);
	u32(c, n);
	for (i = 0; i < n; i++) {
		const struct skin_contact_record *r = (const void *)
			((const char *)k + i * stride);

		header(c, t, frame_id);
		snprintf(name, sizeof(name), "contact_%" PRIu64, r->id);
		string(c, name);
		vec3(c, r->cop);	/* position */
		vec3(c, r->normal);
		vec3(c, r->force);	/* wrench */
		vec3(c, r->moment);
	}
}

static void u8s(struct cdr *c, const uint8_t *v, unsigned int n)
{
	u32(c, n);
	put(c, v, n);
}

/* float32[] of doubles; NULL: zeros.  @add is added to each that is not 0 */
static void f32s_of(struct cdr *c, const double *v, unsigned int n, double add)
{
	uint8_t *p;
	unsigned int i;

	u32(c, n);
	p = room(c, (size_t)n * 4);
	if (!p)
		return;
	for (i = 0; i < n; i++)
		put_f32(p + 4 * i, v && v[i] != 0 ? (float)(v[i] + add) : 0.0f);
	c->len += (size_t)n * 4;
}

void cdr_part_state(struct cdr *c, const struct cdr_part_state *s)
{
	unsigned int i, k;

	cdr_reset(c);
	u32(c, (uint32_t)s->stamp.sec);
	u32(c, s->stamp.nanosec);
	u64(c, s->sample);
	u32(c, s->state);
	u8s(c, s->raw, s->n);
	u32(c, s->n);
	f32_array(c, s->values, s->n);
	u8s(c, s->flags, s->n);
	f32s_of(c, s->baselines, s->n, 0);
	f32s_of(c, s->thresholds, s->n, s->add_threshold);
	u32(c, s->n_contacts);
	for (i = 0; i < s->n_contacts; i++) {
		const struct cdr_part_contact *k0 = &s->contacts[i];

		u32(c, (uint32_t)k0->id);
		f32(c, k0->pressure);
		f32(c, k0->cop2d[0]);
		f32(c, k0->cop2d[1]);
		vec3(c, k0->cop);
		vec3(c, k0->force);
		vec3(c, k0->normal);
		u32(c, k0->n_taxels);
		for (k = 0; k < k0->n_taxels; k++)
			u32(c, k0->taxels[k]);
	}
}
