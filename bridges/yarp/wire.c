// SPDX-License-Identifier: GPL-2.0
/*
 * wire.c - YARP's wire format (wire.h)
 *
 * Layouts from YARP 3.12.3: BottleImpl::synch (codes and tags),
 * VectorOf::write, Stamp::write, PortCommand::write, AbstractCarrier's
 * defaultSendIndex and createYarpNumber; icub-main's skinContact::write
 * and skinContactList::write for the contacts.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int yw_tag_float64(enum yw_version v)
{
	return v == YW_YARP4 ? 20 : 10;
}

static int tag_float32(enum yw_version v)
{
	return v == YW_YARP4 ? 10 : 128;
}

static const char *const carrier_names[] = {
	[YW_TCP] = "tcp", [YW_FAST_TCP] = "fast_tcp", [YW_TEXT] = "text",
	[YW_UDP] = "udp",
};

const char *yw_carrier_name(enum yw_carrier c)
{
	return carrier_names[c];
}

int yw_carrier_parse(const char *name, enum yw_carrier *c)
{
	unsigned int i;

	for (i = 0; i < sizeof(carrier_names) / sizeof(carrier_names[0]); i++)
		if (!strcmp(name, carrier_names[i])) {
			*c = (enum yw_carrier)i;
			return 0;
		}
	return -EINVAL;
}

static bool control(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f;
}

bool yw_peer_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (!n || n > 255)
		return false;
	for (i = 0; i < n; i++)
		if (control((unsigned char)name[i]))
			return false;
	return true;
}

bool yw_port_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (n < 2 || n > 255 || name[0] != '/' || name[n - 1] == '/')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (control(ch) || ch == ' ' || ch == '"' || ch == '\\' ||
		    ch == '(' || ch == ')')
			return false;
	}
	return true;
}

void yw_buf_init(struct yw_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void yw_buf_free(struct yw_buf *b)
{
	free(b->data);
	yw_buf_init(b);
}

void yw_buf_reset(struct yw_buf *b)
{
	b->len = 0;
	b->failed = false;
}

bool yw_buf_ok(const struct yw_buf *b)
{
	return !b->failed;
}

void yw_put(struct yw_buf *b, const void *p, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d) {
			b->failed = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void yw_put_i32(struct yw_buf *b, int32_t x)
{
	uint8_t le[4] = { (uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16),
			  (uint8_t)((uint32_t)x >> 24) };

	yw_put(b, le, 4);
}

void yw_put_f64(struct yw_buf *b, double x)
{
	uint64_t u;
	uint8_t le[8];
	unsigned int i;

	memcpy(&u, &x, 8);
	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(u >> (8 * i));
	yw_put(b, le, 8);
}

void yw_put_str(struct yw_buf *b, const char *s)
{
	yw_put(b, s, strlen(s));
}

void yw_number(uint8_t out[8], int32_t n)
{
	uint32_t u = (uint32_t)n;

	out[0] = 'Y';
	out[1] = 'A';
	out[2] = (uint8_t)u;
	out[3] = (uint8_t)(u >> 8);
	out[4] = (uint8_t)(u >> 16);
	out[5] = (uint8_t)(u >> 24);
	out[6] = 'R';
	out[7] = 'P';
}

int yw_number_parse(const uint8_t in[8], int32_t *n)
{
	if (in[0] != 'Y' || in[1] != 'A' || in[6] != 'R' || in[7] != 'P')
		return -EPROTO;
	*n = (int32_t)((uint32_t)in[2] | (uint32_t)in[3] << 8 |
		       (uint32_t)in[4] << 16 | (uint32_t)in[5] << 24);
	return 0;
}

/* A Vector's values: one of @d, @f, @u (doubles, skind's floats, its raw
 * bytes); the i-th of them as a double */
struct values {
	const double *d;
	const float *f;
	const uint8_t *u;
};

static double value_at(const struct values *x, unsigned int i)
{
	return x->d ? x->d[i] : x->f ? (double)x->f[i] : (double)x->u[i];
}

static void vector(struct yw_buf *b, enum yw_version v,
		   const struct values *x, unsigned int n)
{
	unsigned int i;

	yw_put_i32(b, YW_TAG_LIST + yw_tag_float64(v));
	yw_put_i32(b, (int32_t)n);
	for (i = 0; i < n; i++)
		yw_put_f64(b, value_at(x, i));
}

void yw_vector_f64(struct yw_buf *b, enum yw_version v, const double *x,
		   unsigned int n)
{
	vector(b, v, &(struct values){ .d = x }, n);
}

void yw_vector_f32(struct yw_buf *b, enum yw_version v, const float *x,
		   unsigned int n)
{
	vector(b, v, &(struct values){ .f = x }, n);
}

void yw_vector_u8(struct yw_buf *b, enum yw_version v, const uint8_t *x,
		  unsigned int n)
{
	vector(b, v, &(struct values){ .u = x }, n);
}

/* yarp::conf::numeric::to_string(double) */
static void put_double_text(struct yw_buf *b, double x)
{
	char tmp[48];

	snprintf(tmp, sizeof(tmp), "%.*g", DECIMAL_DIG, x);
	yw_put_str(b, tmp);
	if (!strpbrk(tmp, ".e") && strcmp(tmp, "inf") && strcmp(tmp, "-inf") &&
	    strcmp(tmp, "nan") && strcmp(tmp, "-nan"))
		yw_put_str(b, ".0");
}

static void vector_text(struct yw_buf *b, const struct values *x,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			yw_put(b, " ", 1);
		put_double_text(b, value_at(x, i));
	}
}

void yw_vector_f64_text(struct yw_buf *b, const double *x, unsigned int n)
{
	vector_text(b, &(struct values){ .d = x }, n);
}

void yw_vector_f32_text(struct yw_buf *b, const float *x, unsigned int n)
{
	vector_text(b, &(struct values){ .f = x }, n);
}

void yw_vector_u8_text(struct yw_buf *b, const uint8_t *x, unsigned int n)
{
	vector_text(b, &(struct values){ .u = x }, n);
}

void yw_contact_list(struct yw_buf *b, unsigned int n)
{
	yw_put_i32(b, YW_TAG_LIST);
	yw_put_i32(b, (int32_t)n);
}

static void put_vec3(struct yw_buf *b, enum yw_version v, const double x[3])
{
	yw_put_i32(b, YW_TAG_LIST + yw_tag_float64(v));
	yw_put_i32(b, 3);
	yw_put_f64(b, x[0]);
	yw_put_f64(b, x[1]);
	yw_put_f64(b, x[2]);
}

void yw_contact(struct yw_buf *b, enum yw_version v,
		const struct yw_contact *c)
{
	unsigned int i;

	/* a list of 8: (4 ints) (CoP) (F) (Mu) (geoCenter) (normal)
	 * (taxel ids) pressure */
	yw_put_i32(b, YW_TAG_LIST);
	yw_put_i32(b, 8);
	yw_put_i32(b, YW_TAG_LIST + YW_TAG_INT32);
	yw_put_i32(b, 4);
	yw_put_i32(b, c->id);
	yw_put_i32(b, c->body_part);
	yw_put_i32(b, c->link_number);
	yw_put_i32(b, c->skin_part);
	put_vec3(b, v, c->cop);
	put_vec3(b, v, c->force);
	put_vec3(b, v, c->moment);
	put_vec3(b, v, c->geo);
	put_vec3(b, v, c->normal);
	yw_put_i32(b, YW_TAG_LIST + YW_TAG_INT32);
	yw_put_i32(b, (int32_t)c->n_taxels);
	for (i = 0; i < c->n_taxels; i++)
		yw_put_i32(b, (int32_t)c->taxels[i]);
	yw_put_i32(b, yw_tag_float64(v));
	yw_put_f64(b, c->pressure);
}

void yw_bottle_begin(struct yw_buf *b, int32_t code, unsigned int n)
{
	yw_put_i32(b, code);
	yw_put_i32(b, (int32_t)n);
}

void yw_item_i32(struct yw_buf *b, int32_t x)
{
	yw_put_i32(b, YW_TAG_INT32);
	yw_put_i32(b, x);
}

void yw_item_f64(struct yw_buf *b, enum yw_version v, double x)
{
	yw_put_i32(b, yw_tag_float64(v));
	yw_put_f64(b, x);
}

void yw_item_str(struct yw_buf *b, const char *s)
{
	yw_put_i32(b, YW_TAG_STRING);
	yw_put_i32(b, (int32_t)strlen(s));
	yw_put_str(b, s);
}

void yw_item_vocab(struct yw_buf *b, const char *v)
{
	uint32_t x = 0;
	unsigned int i;

	for (i = 0; i < 4 && v[i]; i++)
		x |= (uint32_t)(uint8_t)v[i] << (8 * i);
	yw_put_i32(b, YW_TAG_VOCAB32);
	yw_put_i32(b, (int32_t)x);
}

/* 'Y' 'A', 7777 + specifier as 16 bits, 0 0, 'R' 'P' (TcpCarrier: 0x64
 * fast_tcp without acks, 0xe4 tcp with) */
static const uint8_t head_tcp[8] = { 'Y', 'A', 0xe4, 0x1e, 0, 0, 'R', 'P' };
static const uint8_t head_fast[8] = { 'Y', 'A', 0x64, 0x1e, 0, 0, 'R', 'P' };
/* UdpCarrier: specifier 0 */
static const uint8_t head_udp[8] = { 'Y', 'A', 0x61, 0x1e, 0, 0, 'R', 'P' };

void yw_conn_header(struct yw_buf *b, enum yw_carrier c, const char *from)
{
	if (c == YW_TEXT) {
		yw_put_str(b, "CONNECT ");
		yw_put_str(b, from);
		yw_put_str(b, "\r\n");
		return;
	}
	yw_put(b, c == YW_TCP ? head_tcp : c == YW_UDP ? head_udp : head_fast, 8);
	yw_put_i32(b, (int32_t)strlen(from) + 1);
	yw_put(b, from, strlen(from) + 1);
}

int yw_conn_header_parse(const uint8_t in[8], enum yw_carrier *c,
			 bool *ack_variant)
{
	*ack_variant = false;
	if (!memcmp(in, head_tcp, 8)) {
		*c = YW_TCP;
		return 0;
	}
	if (!memcmp(in, head_fast, 8)) {
		*c = YW_FAST_TCP;
		return 0;
	}
	if (!memcmp(in, head_udp, 8)) {
		*c = YW_UDP;
		return 0;
	}
	if (!memcmp(in, "CONNECT ", 8)) {
		*c = YW_TEXT;
		return 0;
	}
	if (!memcmp(in, "CONNACK ", 8)) {
		*c = YW_TEXT;
		*ack_variant = true;
		return 0;
	}
	return -EPROTO;
}

/* NetType::getCrc: the CRC-32 of zlib and PNG (reflected 0xedb88320,
 * initial and final ~0) */
uint32_t yw_crc32(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= b[i];
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

void yw_dgram_head(uint8_t out[YW_DGRAM_HEAD], const void *rest, size_t n,
		   int32_t index)
{
	uint32_t crc = yw_crc32(rest, n);
	int i;

	for (i = 0; i < 4; i++) {
		out[i] = (uint8_t)(crc >> (8 * i));
		out[4 + i] = (uint8_t)((uint32_t)index >> (8 * i));
	}
}

int yw_stamp_text(char *buf, size_t len, int32_t seq, double time)
{
	return snprintf(buf, len, "%d %.*g", seq, DBL_DIG, time);
}

void yw_msg_head(struct yw_buf *b, const char *envelope, bool reply,
		 size_t payload_len)
{
	static const uint8_t index[10] = { 2, 1, 0xff, 0xff, 0xff, 0xff,
					   0xff, 0xff, 0xff, 0xff };
	uint8_t num[8];
	size_t cmd_len = 8;

	if (envelope)
		cmd_len += 2 + strlen(envelope) + 1;
	yw_number(num, 10);
	yw_put(b, num, 8);
	yw_put(b, index, 10);
	yw_put_i32(b, (int32_t)cmd_len);
	yw_put_i32(b, (int32_t)payload_len);
	yw_put_i32(b, 0);
	if (envelope) {
		/* PortCommand('\0', "D " + envelope): int32 length, '~', 0 */
		yw_put_i32(b, (int32_t)(cmd_len - 8));
		yw_put(b, "~\0\0\1", 4);
		yw_put_str(b, reply ? "d " : "D ");
		yw_put(b, envelope, strlen(envelope) + 1);
	} else {
		yw_put_i32(b, 0);
		yw_put(b, reply ? "~d\0\1" : "~D\0\1", 4);
	}
}

void yw_msg_head_text(struct yw_buf *b, const char *envelope, bool reply)
{
	if (envelope) {
		yw_put_str(b, reply ? "d " : "D ");
		yw_put_str(b, envelope);
	} else {
		yw_put_str(b, reply ? "d" : "D");
	}
	yw_put_str(b, "\r\n");
}

/*
 * Reading
 */
struct rd {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static int32_t rd_i32(struct rd *r)
{
	const uint8_t *q;

	if (r->bad || r->len - r->off < 4) {
		r->bad = true;
		return 0;
	}
	q = r->p + r->off;
	r->off += 4;
	return (int32_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 |
			 (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24);
}

static uint64_t rd_u64(struct rd *r)
{
	uint64_t lo = (uint32_t)rd_i32(r), hi = (uint32_t)rd_i32(r);

	return lo | hi << 32;
}

static void rd_atom(struct rd *r, enum yw_version v, int32_t tag,
		    struct yw_atom *a)
{
	memset(a, 0, sizeof(*a));
	if (tag == YW_TAG_INT32) {
		a->type = YW_ATOM_INT;
		a->i = rd_i32(r);
	} else if (tag == YW_TAG_INT64) {
		a->type = YW_ATOM_INT;
		a->i = (int64_t)rd_u64(r);
	} else if (tag == yw_tag_float64(v)) {
		uint64_t u = rd_u64(r);

		a->type = YW_ATOM_FLOAT;
		memcpy(&a->f, &u, 8);
	} else if (tag == tag_float32(v)) {
		uint32_t u = (uint32_t)rd_i32(r);
		float f;

		memcpy(&f, &u, 4);
		a->type = YW_ATOM_FLOAT;
		a->f = f;
	} else if (tag == YW_TAG_VOCAB32) {
		uint32_t u = (uint32_t)rd_i32(r);
		unsigned int i;

		a->type = YW_ATOM_VOCAB;
		for (i = 0; i < 4 && (u >> (8 * i)) & 0xff; i++)
			a->s[i] = (char)(u >> (8 * i));
	} else if (tag == YW_TAG_STRING) {
		int32_t n = rd_i32(r);

		a->type = YW_ATOM_STRING;
		if (r->bad || n < 0 || (size_t)n >= sizeof(a->s) ||
		    r->len - r->off < (size_t)n) {
			r->bad = true;
			return;
		}
		memcpy(a->s, r->p + r->off, (size_t)n);
		r->off += (size_t)n;
		/* before 2.3.64 strings carried their NUL */
		a->s[n] = '\0';
	} else {
		r->bad = true;
	}
}

int yw_parse_bottle(const uint8_t *p, size_t len, enum yw_version v,
		    struct yw_atom *atoms, unsigned int max)
{
	struct rd r = { p, len, 0, false };
	int32_t code = rd_i32(&r), n = rd_i32(&r), i;

	if (r.bad || (code & ~0xff) != YW_TAG_LIST || n < 0 ||
	    (unsigned int)n > max)
		return -EPROTO;
	for (i = 0; i < n && !r.bad; i++)
		rd_atom(&r, v, code == YW_TAG_LIST ? rd_i32(&r) : code & 0xff,
			&atoms[i]);
	return r.bad || r.off != len ? -EPROTO : n;
}

int yw_parse_text(const char *line, struct yw_atom *atoms, unsigned int max)
{
	const char *s = line;
	unsigned int n = 0;

	for (;;) {
		struct yw_atom *a;
		size_t w;
		char *end;

		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s)
			return (int)n;
		if (n == max)
			return -EPROTO;
		a = &atoms[n++];
		memset(a, 0, sizeof(*a));
		if (*s == '"') {
			const char *q = strchr(s + 1, '"');

			if (!q || (size_t)(q - s - 1) >= sizeof(a->s))
				return -EPROTO;
			a->type = YW_ATOM_STRING;
			memcpy(a->s, s + 1, (size_t)(q - s - 1));
			s = q + 1;
			continue;
		}
		if (*s == '[') {
			const char *q = strchr(s + 1, ']');

			if (!q || q - s - 1 > 4)
				return -EPROTO;
			a->type = YW_ATOM_VOCAB;
			memcpy(a->s, s + 1, (size_t)(q - s - 1));
			s = q + 1;
			continue;
		}
		if (*s == '(' || *s == '{')
			return -EPROTO;
		w = strcspn(s, " \t\r\n");
		if (w >= sizeof(a->s))
			return -EPROTO;
		memcpy(a->s, s, w);
		s += w;
		a->i = strtoll(a->s, &end, 10);
		if (end != a->s && !*end) {
			a->type = YW_ATOM_INT;
			continue;
		}
		a->f = strtod(a->s, &end);
		if (end != a->s && !*end) {
			a->type = YW_ATOM_FLOAT;
			continue;
		}
		a->type = YW_ATOM_STRING;
	}
}

/* The array entries atom @a's item spans (itself and a list's items), at
 * most @n */
static unsigned int atom_span(const struct yw_atom *a, unsigned int n)
{
	unsigned int used = 1;
	int64_t k;

	if (a->type != YW_ATOM_LIST)
		return 1;
	for (k = 0; k < a->i && used < n; k++)
		used += atom_span(a + used, n - used);
	return used;
}

/* The items among @n entries at the top level (a list and its items count one) */
static unsigned int atom_items(const struct yw_atom *a, unsigned int n)
{
	unsigned int used = 0, items = 0;

	while (used < n) {
		used += atom_span(a + used, n - used);
		items++;
	}
	return items;
}

static void put_atoms_bottle(struct yw_buf *b, enum yw_version v,
			     const struct yw_atom *atoms, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		switch (atoms[i].type) {
		case YW_ATOM_INT:
			if (atoms[i].i == (int32_t)atoms[i].i) {
				yw_item_i32(b, (int32_t)atoms[i].i);
			} else {
				yw_put_i32(b, YW_TAG_INT64);
				yw_put_i32(b, (int32_t)(uint32_t)atoms[i].i);
				yw_put_i32(b, (int32_t)(uint32_t)((uint64_t)atoms[i].i >> 32));
			}
			break;
		case YW_ATOM_FLOAT:
			yw_item_f64(b, v, atoms[i].f);
			break;
		case YW_ATOM_STRING:
			yw_item_str(b, atoms[i].s);
			break;
		case YW_ATOM_VOCAB:
			yw_item_vocab(b, atoms[i].s);
			break;
		case YW_ATOM_LIST: {
			/* a nested Bottle: its tag, then count and items as at
			 * the top (BottleImpl::synch with nested set) */
			unsigned int span = atom_span(&atoms[i], n - i);

			yw_bottle_begin(b, YW_TAG_LIST, atom_items(&atoms[i + 1], span - 1));
			put_atoms_bottle(b, v, &atoms[i + 1], span - 1);
			i += span - 1;
			break;
		}
		}
}

void yw_atoms_bottle(struct yw_buf *b, enum yw_version v,
		     const struct yw_atom *atoms, unsigned int n)
{
	yw_bottle_begin(b, YW_TAG_LIST, atom_items(atoms, n));
	put_atoms_bottle(b, v, atoms, n);
}

void yw_atoms_text(struct yw_buf *b, const struct yw_atom *atoms,
		   unsigned int n)
{
	unsigned int i, span;
	char tmp[32];
	const char *c;

	for (i = 0; i < n; i++) {
		if (i)
			yw_put(b, " ", 1);
		switch (atoms[i].type) {
		case YW_ATOM_INT:
			snprintf(tmp, sizeof(tmp), "%lld", (long long)atoms[i].i);
			yw_put_str(b, tmp);
			break;
		case YW_ATOM_FLOAT:
			put_double_text(b, atoms[i].f);
			break;
		case YW_ATOM_STRING:
			yw_put(b, "\"", 1);
			for (c = atoms[i].s; *c; c++) {
				if (*c == '"' || *c == '\\')
					yw_put(b, "\\", 1);
				yw_put(b, c, 1);
			}
			yw_put(b, "\"", 1);
			break;
		case YW_ATOM_VOCAB:
			yw_put(b, "[", 1);
			yw_put_str(b, atoms[i].s);
			yw_put(b, "]", 1);
			break;
		case YW_ATOM_LIST:
			span = atom_span(&atoms[i], n - i);
			yw_put(b, "(", 1);
			yw_atoms_text(b, &atoms[i + 1], span - 1);
			yw_put(b, ")", 1);
			i += span - 1;
			break;
		}
	}
}
