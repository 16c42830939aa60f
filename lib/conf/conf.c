// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c - values of configuration keys, checked against their table
 * (conf.h)
 */
#define _GNU_SOURCE	/* open_memstream */
#include <errno.h>
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
	char *field = (char *)base + k->offset, *end, expected[96];
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
	char expected[96];
	size_t i;

	for (i = 0; i < n; i++) {
		const char *field = (const char *)base + t[i].offset;
		double x;

		switch (t[i].type) {
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
	char *out = NULL, expected[96];
	size_t i, len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		if (t[i].man_before)
			fprintf(f, ".PP\n%s\n", t[i].man_before);
		fprintf(f, ".TP\n.BR %s \" (", t[i].name);
		if (t[i].type == CONF_BOOL)
			fprintf(f, "%s", t[i].def ? "true" : "false");
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
