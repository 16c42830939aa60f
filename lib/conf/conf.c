// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c - values of configuration keys, checked against their table
 * (conf.h)
 */
#define _GNU_SOURCE	/* open_memstream */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

bool conf_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

void conf_key_expected(const struct conf_key *k, char *buf, size_t size)
{
	switch (k->type) {
	case CONF_BOOL:
		snprintf(buf, size, "yes or no (true/false, on/off, 1/0)");
		break;
	case CONF_CUSTOM:
		snprintf(buf, size, "%s", k->expected);
		break;
	case CONF_UINT:
		snprintf(buf, size, "an integer %.0f..%.0f%s%s", k->min, k->max,
			 k->unit ? " " : "", k->unit ? k->unit : "");
		break;
	default:
		snprintf(buf, size, "a number %s %g and <= %g%s%s",
			 k->min_open ? ">" : ">=", k->min, k->max,
			 k->unit ? " " : "", k->unit ? k->unit : "");
		break;
	}
}

static bool in_range(const struct conf_key *k, double x)
{
	return x >= k->min && x <= k->max && !(k->min_open && x == k->min);
}

int conf_key_set(const struct conf_key *k, void *base, const char *v,
		 char *why, size_t why_len)
{
	char *field = (char *)base + k->offset, *end, expected[256];
	double x;
	bool b;

	if (!v)
		v = "";
	switch (k->type) {
	case CONF_BOOL:
		if (!conf_parse_bool(v, &b))
			goto bad;
		*(int *)field = b;
		return 0;
	case CONF_CUSTOM:
		if (k->parse(k, base, v))
			goto bad;
		return 0;
	case CONF_UINT: {
		unsigned long u;

		/* 0x hex as well: [board]'s register values are hex */
		errno = 0;
		u = strtoul(v, &end, v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10);
		if (!*v || *v == '-' || *v == '+' || *end || errno ||
		    !in_range(k, (double)u))
			goto bad;
		*(unsigned int *)field = (unsigned int)u;
		return 0;
	}
	default:
		errno = 0;
		x = strtod(v, &end);
		/* strtod takes "nan", "inf" and hex floats; a key wants a
		 * finite decimal number */
		if (!*v || *end || errno || !isfinite(x) ||
		    strpbrk(v, "xXnNiI") || !in_range(k, x))
			goto bad;
		*(double *)field = x;
		return 0;
	}
bad:
	conf_key_expected(k, expected, sizeof(expected));
	snprintf(why, why_len, "%s = '%s': expected %s", k->name, v, expected);
	return -EINVAL;
}

const struct conf_key *conf_key_find(const struct conf_key *t, size_t n,
				     const char *name)
{
	size_t i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

void conf_keys_default(const struct conf_key *t, size_t n, void *base)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *field = (char *)base + t[i].offset;

		switch (t[i].type) {
		case CONF_BOOL:
			*(int *)field = t[i].def != 0;
			break;
		case CONF_CUSTOM:
			if (t[i].def_text)
				t[i].parse(&t[i], base, t[i].def_text);
			break;
		case CONF_UINT:
			*(unsigned int *)field = (unsigned int)t[i].def;
			break;
		default:
			*(double *)field = t[i].def;
			break;
		}
	}
}

const struct conf_key *conf_keys_check(const struct conf_key *t, size_t n,
				       const void *base, char *why,
				       size_t why_len)
{
	char expected[256];
	size_t i;

	for (i = 0; i < n; i++) {
		const char *field = (const char *)base + t[i].offset;
		double x;

		switch (t[i].type) {
		case CONF_CUSTOM:
			continue;	/* its parse() checked it */
		case CONF_BOOL:
			x = *(const int *)field;
			if (x == 0 || x == 1)
				continue;
			break;
		case CONF_UINT:
			x = *(const unsigned int *)field;
			break;
		default:
			x = *(const double *)field;
			break;
		}
		if (t[i].type != CONF_BOOL && in_range(&t[i], x))
			continue;
		conf_key_expected(&t[i], expected, sizeof(expected));
		snprintf(why, why_len, "%s = %g: expected %s", t[i].name, x,
			 expected);
		return &t[i];
	}
	return NULL;
}

char *conf_keys_man(const struct conf_key *t, size_t n)
{
	char *out = NULL, expected[256];
	size_t i, len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		if (t[i].man_before)
			fprintf(f, ".PP\n%s\n", t[i].man_before);
		fprintf(f, ".TP\n.BR %s \" (", t[i].name);
		if (t[i].type == CONF_CUSTOM)
			fprintf(f, "%s", t[i].def_text ? t[i].def_text : "none");
		else if (t[i].type == CONF_BOOL)
			fprintf(f, "%s", t[i].def ? "true" : "false");
		else if (t[i].hex)
			fprintf(f, "0x%x", (unsigned int)t[i].def);
		else if (t[i].type == CONF_UINT)
			fprintf(f, "%u", (unsigned int)t[i].def);
		else
			fprintf(f, "%g", t[i].def);
		conf_key_expected(&t[i], expected, sizeof(expected));
		fprintf(f, ")\"\n%s;\n%s\n", t[i].doc, expected);
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

char *conf_read_file(const char *path, size_t *len, struct skin_error *err)
{
	char *buf = skin_file_read(path, CONF_FILE_MAX, len, err);
	size_t i, bol = 0;
	unsigned int line = 1;

	if (!buf)
		return NULL;
	for (i = 0; i < *len; i++) {
		if (buf[i] == '\n') {
			line++;
			bol = i + 1;
		} else if (!buf[i]) {
			skin_error_set(err, path, line, (unsigned int)(i - bol) + 1,
				       "NUL byte: expected text");
			free(buf);
			return NULL;
		}
	}
	return buf;
}

void conf_error(struct conf_parser *cp, const char *at, const char *fmt, ...)
{
	char what[512];
	unsigned int col = 0;
	size_t n = cp->raw ? strlen(cp->raw) : 0;
	va_list ap;

	if (cp->failed)
		return;	/* the first error is the one to fix */
	cp->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (at && cp->text && at >= cp->text && at <= cp->text + n) {
		col = (unsigned int)(at - cp->text) + 1;
	} else if (at && *at && cp->raw) {
		const char *eq = strchr(cp->raw, '=');
		const char *found = strstr(eq ? eq : cp->raw, at);

		if (found)
			col = (unsigned int)(found - cp->raw) + 1;
	}
	/* a refusal of the whole line: where its text starts */
	if (!col && cp->line)
		col = (unsigned int)strspn(cp->raw ? cp->raw : "", " \t") + 1;
	skin_error_set(cp->err, cp->file, cp->line, col, "%s", what);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A comment from here: '#' or ';' first or after a blank. */
static char *comment(char *s, const char *line)
{
	for (; *s; s++)
		if ((*s == '#' || *s == ';') && (s == line || blank(s[-1])))
			return s;
	return NULL;
}

static char *trim_end(char *s)
{
	char *e = s + strlen(s);

	while (e > s && blank(e[-1]))
		*--e = '\0';
	return s;
}

static int section_line(struct conf_parser *cp, char *s)
{
	char *close = strchr(s, ']'), *after;

	if (!close) {
		conf_error(cp, s, "missing ']': expected %s",
			   cp->syntax->sections);
		return -1;
	}
	*close = '\0';
	for (after = close + 1; blank(*after); after++)
		;
	if (*after && *after != '#' && *after != ';') {
		conf_error(cp, after, "text after ']': expected %s",
			   cp->syntax->sections);
		return -1;
	}
	cp->prev_key[0] = '\0';
	cp->in_section = true;
	return cp->section(cp, s + 1);
}

static int key_line(struct conf_parser *cp, char *s)
{
	char *eq = strchr(s, '='), *k_end, *v, *c;

	if (!eq) {
		conf_error(cp, s, "expected '[section]', 'key = value' or a comment");
		return -1;
	}
	for (k_end = eq; k_end > s && blank(k_end[-1]); k_end--)
		;
	if (k_end == s) {
		conf_error(cp, s, "'=' without a key");
		return -1;
	}
	*k_end = '\0';
	if (!cp->in_section) {
		conf_error(cp, s, "'%s' before any section: expected %s first",
			   s, cp->syntax->sections);
		return -1;
	}
	for (v = eq + 1; blank(*v); v++)
		;
	c = comment(v, cp->text);
	if (c)
		*c = '\0';
	trim_end(v);
	snprintf(cp->prev_key, sizeof(cp->prev_key), "%s", s);
	return cp->key(cp, s, v);
}

static int one_line(struct conf_parser *cp, char *line)
{
	char *s = line, *c;

	while (blank(*s))
		s++;
	if (!*s || *s == '#' || *s == ';')
		return 0;
	if (cp->syntax->continuation && s > line && cp->prev_key[0]) {
		c = comment(s, line);
		if (c)
			*c = '\0';
		trim_end(s);
		if (*s == '[') {
			conf_error(cp, NULL, "'%s' is indented after a key, so it would continue '%s': expected section headers at the start of a line",
				   s, cp->prev_key);
			return -1;
		}
		return cp->key(cp, cp->prev_key, s);
	}
	if (*s == '[')
		return section_line(cp, s);
	return key_line(cp, s);
}

int conf_parse(struct conf_parser *cp, const char *buf, size_t len)
{
	size_t pos = 0, max = cp->syntax->line_max;
	int rc = 0;

	cp->line = 0;
	cp->failed = false;
	cp->in_section = false;
	cp->prev_key[0] = '\0';
	cp->raw = malloc(max + 1);
	cp->text = malloc(max + 1);
	if (!cp->raw || !cp->text) {
		skin_error_set(cp->err, cp->file, 0, 0, "out of memory");
		cp->failed = true;
		goto out;
	}
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len && !rc) {
		size_t start = pos, n;
		const char *nul;

		cp->line++;
		while (pos < len && buf[pos] != '\n')
			pos++;
		n = pos - start;
		if (pos < len)
			pos++;	/* the newline */
		cp->raw[0] = cp->text[0] = '\0';
		nul = memchr(buf + start, '\0', n);
		if (nul) {
			skin_error_set(cp->err, cp->file, cp->line,
				       (unsigned int)(nul - buf - start) + 1,
				       "NUL byte: expected text");
			cp->failed = true;
			break;
		}
		if (n > max) {
			conf_error(cp, NULL, "line longer than %zu characters", max);
			break;
		}
		memcpy(cp->raw, buf + start, n);
		cp->raw[n] = '\0';
		memcpy(cp->text, cp->raw, n + 1);
		rc = one_line(cp, cp->text);
		if (rc && !cp->failed)
			conf_error(cp, NULL, "out of memory");
	}
out:
	free(cp->raw);
	free(cp->text);
	cp->raw = cp->text = NULL;
	return cp->failed ? -1 : 0;
}
