// SPDX-License-Identifier: GPL-2.0
/*
 * encode.c - contacts as skinContactList bottle text and as JSON, into a
 * caller's buffer (snprintf semantics, no allocation)
 *
 * Bottle text (docs/ICUB.md, section 3), one list per contact inside one
 * outer list:
 *   ((id bodyPart link skinPart) (CoP) (F) (M) (geoCenter) (normal)
 *    (taxel ids) pressure)
 * skinDynLib reads a skinContact from text by converting it to a binary
 * bottle and expecting typed lists: (4 ints), then lists of 3 doubles,
 * then a list of ints, then a double.  A double printed as "0" would turn
 * its list into an int list, so every double here carries a '.' or an
 * exponent ("0.0", "1e-05").
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proc-private.h"

struct out {
	char *buf;
	size_t len, off;
};

static void put(struct out *o, const char *fmt, ...) SKIN_PRINTF_LIKE(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(o->off < o->len ? o->buf + o->off : NULL,
		      o->off < o->len ? o->len - o->off : 0, fmt, ap);
	va_end(ap);
	if (w > 0)
		o->off += (size_t)w;
}

/*
 * A double as the shortest of %.9g that YARP reads as a double: 9
 * significant digits keep micrometres of a metre-sized position and far
 * more than the 8-bit values need.  JSON has no NaN or infinity: null.
 */
static void put_double(struct out *o, double x, bool json)
{
	char tmp[40];

	if (!isfinite(x)) {
		put(o, "%s", json ? "null" : (isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"));
		return;
	}
	if (x == 0)
		x = 0;	/* no "-0.0" */
	snprintf(tmp, sizeof(tmp), "%.9g", x);
	if (!json && !strpbrk(tmp, ".eE"))
		put(o, "%s.0", tmp);
	else
		put(o, "%s", tmp);
}

static void put_vec(struct out *o, const double v[3], bool json)
{
	unsigned int i;

	put(o, json ? "[" : "(");
	for (i = 0; i < 3; i++) {
		if (i)
			put(o, json ? "," : " ");
		put_double(o, v[i], json);
	}
	put(o, json ? "]" : ")");
}

static void bottle_one(struct out *o, const struct skin_contact *c)
{
	unsigned int i;

	put(o, "((%llu %d %d %d) ", (unsigned long long)c->r.id,
	    (int)c->body_part, c->link_number, (int)c->skin_part);
	put_vec(o, c->r.cop, false);
	put(o, " ");
	put_vec(o, c->r.force, false);
	put(o, " ");
	put_vec(o, c->r.moment, false);
	put(o, " ");
	put_vec(o, c->r.geo, false);
	put(o, " ");
	put_vec(o, c->r.normal, false);
	put(o, " (");
	for (i = 0; i < c->r.n_taxels; i++)
		put(o, i ? " %u" : "%u", c->taxels[i]);
	put(o, ") ");
	put_double(o, c->r.pressure, false);
	put(o, ")");
}

/* Length of the well-formed UTF-8 sequence at @s, or 0 (RFC 3629). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* a NUL ends it here too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;		/* overlong, a surrogate, past Unicode */
	return n;
}

size_t skin_json_escape(char *buf, size_t len, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0, full = 0;

	while (*s) {
		char tmp[8];
		const char *piece = tmp;
		size_t n = utf8_len(s), w;

		if (n > 1) {
			piece = (const char *)s;	/* well-formed: as it is */
			w = n;
		} else if (*s == '"' || *s == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)*s;
			w = 2;
			n = 1;
		} else if (*s < 0x20 || *s == 0x7f) {
			w = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", *s);
			n = 1;
		} else if (n == 1) {
			tmp[0] = (char)*s;
			w = 1;
		} else {
			/* a byte that is no UTF-8: the replacement character */
			memcpy(tmp, "\\ufffd", 6);
			w = 6;
			n = 1;
		}
		/* whole escapes and characters only, and room for the NUL */
		if (o == full && o + w < len) {
			memcpy(buf + o, piece, w);
			o += w;
		}
		full += w;
		s += n;
	}
	if (len)
		buf[o] = '\0';
	return full;
}

/* A JSON string's contents into @o. */
static void put_json_string(struct out *o, const char *s)
{
	size_t room = o->off < o->len ? o->len - o->off : 0;

	o->off += skin_json_escape(room ? o->buf + o->off : NULL, room, s);
}

static void json_one(struct out *o, const struct skin_model *m,
		     const struct skin_contact *c)
{
	unsigned int i;
	const char *name = m && c->part < m->n_parts ? m->parts[c->part].name : "";

	put(o, "{\"id\":%llu,\"part\":\"", (unsigned long long)c->r.id);
	put_json_string(o, name);
	put(o, "\",\"body_part\":%d,\"skin_part\":%d,\"link\":%d,\"cop\":",
	    (int)c->body_part, (int)c->skin_part, c->link_number);
	put_vec(o, c->r.cop, true);
	put(o, ",\"force\":");
	put_vec(o, c->r.force, true);
	put(o, ",\"moment\":");
	put_vec(o, c->r.moment, true);
	put(o, ",\"geo\":");
	put_vec(o, c->r.geo, true);
	put(o, ",\"normal\":");
	put_vec(o, c->r.normal, true);
	put(o, ",\"pressure\":");
	put_double(o, c->r.pressure, true);
	put(o, ",\"taxels\":[");
	for (i = 0; i < c->r.n_taxels; i++)
		put(o, i ? ",%u" : "%u", c->taxels[i]);
	put(o, "]}");
}

static int finish(struct out *o)
{
	if (o->len)
		o->buf[o->off < o->len ? o->off : o->len - 1] = '\0';
	return (int)o->off;
}

int skin_contacts_bottle(char *buf, size_t len, const struct skin_contact *c,
			 unsigned int n)
{
	struct out o = { buf, len, 0 };
	unsigned int i;

	put(&o, "(");
	for (i = 0; i < n; i++) {
		if (i)
			put(&o, " ");
		bottle_one(&o, &c[i]);
	}
	put(&o, ")");
	return finish(&o);
}

int skin_contacts_json(char *buf, size_t len, const struct skin_model *m,
		       const struct skin_contact *c, unsigned int n)
{
	struct out o = { buf, len, 0 };
	unsigned int i;

	put(&o, "{\"contacts\":[");
	for (i = 0; i < n; i++) {
		if (i)
			put(&o, ",");
		json_one(&o, m, &c[i]);
	}
	put(&o, "]}");
	return finish(&o);
}

/* Every part's contacts (or one part's) in one list. */
static int proc_encode(const struct skin_proc *p, int part, char *buf,
		       size_t len, bool json)
{
	struct out o = { buf, len, 0 };
	unsigned int i, j, k = 0;

	if (part >= (int)p->n_parts || part < -1)
		return -EINVAL;
	put(&o, json ? "{\"contacts\":[" : "(");
	for (i = 0; i < p->n_parts; i++) {
		const struct skin_contact *c;
		unsigned int n;

		if (part >= 0 && (unsigned int)part != i)
			continue;
		n = skin_proc_contacts(p, i, &c);
		for (j = 0; j < n; j++, k++) {
			if (k)
				put(&o, json ? "," : " ");
			if (json)
				json_one(&o, p->m, &c[j]);
			else
				bottle_one(&o, &c[j]);
		}
	}
	put(&o, json ? "]}" : ")");
	return finish(&o);
}

int skin_proc_bottle(const struct skin_proc *p, int part, char *buf,
		     size_t len)
{
	return proc_encode(p, part, buf, len, false);
}

int skin_proc_json(const struct skin_proc *p, int part, char *buf, size_t len)
{
	return proc_encode(p, part, buf, len, true);
}

/*
 * %.4g without printf.  For 1e-4 <= |v| < 1e4 the four significant digits
 * are v * 10^k rounded, k = 3 - X in 0..7 (X the decimal exponent): a
 * float's 24-bit mantissa times 10^k (< 2^24) fits a double's 53 bits, so
 * the product is exact and rounding it half to even is the correctly
 * rounded result glibc prints.  What rounds out of that range (%.4g
 * switches to an exponent there), NaN and infinities go to snprintf
 * itself.
 */
static const double pow10_k[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7 };

/* x * 10^(3 - e) rounded half to even: the 4 digits at exponent e */
static uint32_t digits4(double x, int e)
{
	double y = x * pow10_k[3 - e];
	uint32_t m = (uint32_t)y;	/* y > 0: truncation is floor */
	double d = y - m;

	if (d > 0.5 || (d == 0.5 && (m & 1)))
		m++;
	return m;
}

/* the text of v (|v| in [1e-4, 1e4)) into t, at least 16 bytes; its length */
static int g4(char *t, float v, double x)
{
	char d[4], *s = t;
	uint32_t m;
	int e, i, last;

	/* the exponent: the largest e with 10^e <= x (exact comparisons) */
	if (x >= 1)
		e = x >= 1000 ? 3 : x >= 100 ? 2 : x >= 10 ? 1 : 0;
	else
		for (e = -1; e > -4 && x * pow10_k[3 - e] < 1000; e--)
			;
	m = digits4(x, e);
	if (m >= 10000) {
		if (++e > 3)
			return -1;
		m = digits4(x, e);
	}
	if (m < 1000)	/* below 1e-4 once rounded */
		return -1;
	d[0] = (char)('0' + m / 1000);
	d[1] = (char)('0' + m / 100 % 10);
	d[2] = (char)('0' + m / 10 % 10);
	d[3] = (char)('0' + m % 10);
	last = d[3] != '0' ? 3 : d[2] != '0' ? 2 : d[1] != '0' ? 1 : 0;
	if (v < 0)
		*s++ = '-';
	/* fixed stores, then the length: no loop for the compiler to call
	 * memcpy for */
	if (e >= 0) {		/* d.ddd, dd.dd, ddd.d, dddd */
		s[0] = d[0];
		s[e + 1] = '.';
		for (i = 1; i < 4; i++)
			s[i + (i > e)] = d[i];
		s += e + 1 + (last > e ? 1 + last - e : 0);
	} else {		/* 0.dddd to 0.000dddd */
		memcpy(s, "0.000", 5);
		for (i = 0; i < 4; i++)
			s[1 - e + i] = d[i];
		s += 1 - e + last + 1;
	}
	*s = '\0';
	return (int)(s - t);
}

int skin_value_g4(char *buf, size_t len, float v)
{
	char tmp[16];
	double x = fabs((double)v);
	int n;

	if (x == 0 && len >= 3) {	/* most taxels, untouched */
		n = signbit(v) ? 1 : 0;
		buf[0] = '-';
		buf[n] = '0';
		buf[n + 1] = '\0';
		return n + 1;
	}
	if (!(x >= 1e-4 && x < 1e4))
		return snprintf(buf, len, "%.4g", (double)v);
	if (len >= sizeof(tmp))	/* a line's buffer: in place */
		n = g4(buf, v, x);
	else if ((n = g4(tmp, v, x)) >= 0 && len) {
		size_t c = (size_t)n < len ? (size_t)n : len - 1;

		memcpy(buf, tmp, c);
		buf[c] = '\0';
	}
	return n >= 0 ? n : snprintf(buf, len, "%.4g", (double)v);
}
