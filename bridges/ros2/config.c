// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - the bridge's configuration file (config.h)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dds.h"

#define CONFIG_MAX	(1u << 20)

void ros2_config_init(struct ros2_config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->ns, "/skin");
	c->raw = true;
	c->all_parts = true;
}

void ros2_config_free(struct ros2_config *c)
{
	free(c->parts);
	memset(c, 0, sizeof(*c));
}

struct parse {
	struct ros2_config *c;
	const char *name;
	struct skin_error *err;
	unsigned int line;
	const char *bol;		/* the line's first byte */
	int part;			/* [part NAME]: its index; -1 [bridge] */
	bool section;
	bool seen_parts;
};

static int fail(struct parse *p, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parse *p, const char *at, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	skin_error_set(p->err, p->name, p->line,
		       at ? (unsigned int)(at - p->bol) + 1 : 0, "%s", what);
	return -EINVAL;
}

static int find_part(struct parse *p, const char *name, size_t n, bool add)
{
	struct ros2_config *c = p->c;
	struct ros2_config_part *np;
	unsigned int i;

	for (i = 0; i < c->n_parts; i++)
		if (strlen(c->parts[i].name) == n && !memcmp(c->parts[i].name, name, n))
			return (int)i;
	if (!add)
		return -1;
	np = realloc(c->parts, (c->n_parts + 1) * sizeof(*np));
	if (!np)
		return -ENOMEM;
	c->parts = np;
	memset(&np[c->n_parts], 0, sizeof(*np));
	memcpy(np[c->n_parts].name, name, n);
	return (int)c->n_parts++;
}

/* skind's part names: [A-Za-z0-9_.-]; ROS's: no '.', '-' (dds.c checks) */
static bool part_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static int section(struct parse *p, const char *s, const char *e)
{
	const char *a, *close = memchr(s, ']', (size_t)(e - s));
	char tmp[64];
	int i;

	if (!close)
		return fail(p, s, "missing ']': expected [bridge] or [part NAME]");
	for (a = close + 1; a < e; a++)
		if (!isspace((unsigned char)*a))
			return fail(p, a, "text after ']'");
	p->section = true;
	if (close - s == 7 && !memcmp(s, "[bridge", 7)) {
		p->part = -1;
		return 0;
	}
	if (close - s >= 6 && !memcmp(s, "[part ", 6)) {
		for (a = s + 6; a < close && *a == ' '; a++)
			;
		if (a == close)
			return fail(p, a, "[part NAME]: the name is missing");
		for (e = a; e < close; e++)
			if (!part_char(*e))
				return fail(p, e, "part names are made of [A-Za-z0-9_] (ROS topic names)");
		if (close - a >= SKIN_SHM_NAME_LEN)
			return fail(p, a, "part name longer than 31 characters");
		i = find_part(p, a, (size_t)(close - a), true);
		if (i < 0)
			return i;
		if (p->c->parts[i].line) {
			snprintf(tmp, sizeof(tmp), "%.*s", (int)(close - a), a);
			return fail(p, a, "[part %s] again (first at line %u)", tmp, p->c->parts[i].line);
		}
		p->c->parts[i].line = p->line;
		p->part = i;
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%.*s", (int)(close - s + 1 > 40 ? 40 : close - s + 1), s);
	return fail(p, s, "unknown section %s: expected [bridge] or [part NAME]", tmp);
}

static int boolean(struct parse *p, const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return fail(p, v, "'%s': expected yes or no", v);
	return 0;
}

static int parts_list(struct parse *p, char *v)
{
	char *tok, *save = NULL;
	int i;

	if (p->seen_parts)
		return fail(p, v, "parts given twice");
	p->seen_parts = true;
	p->c->all_parts = false;
	for (tok = strtok_r(v, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		const char *q;

		for (q = tok; *q; q++)
			if (!part_char(*q))
				return fail(p, tok, "'%s': part names are made of [A-Za-z0-9_] (ROS topic names)", tok);
		if (strlen(tok) >= SKIN_SHM_NAME_LEN)
			return fail(p, tok, "'%s': longer than 31 characters", tok);
		i = find_part(p, tok, strlen(tok), true);
		if (i < 0)
			return i;
		p->c->parts[i].publish = true;
	}
	if (!p->c->n_parts)
		return fail(p, v, "parts = names no part: expected part names, or no parts line for all of them");
	return 0;
}

static int key(struct parse *p, const char *k, char *v)
{
	struct ros2_config *c = p->c;
	char *end;
	unsigned long n;

	if (p->part >= 0) {
		if (strcmp(k, "frame_id"))
			return fail(p, k, "unknown key '%s' in [part]: expected frame_id", k);
		if (!*v || strlen(v) >= ROS2_MSG_FRAME_LEN)
			return fail(p, v, "frame_id: expected 1 to 127 characters");
		strcpy(c->parts[p->part].frame_id, v);
		return 0;
	}
	if (!strcmp(k, "domain_id")) {
		errno = 0;
		n = strtoul(v, &end, 10);
		if (!isdigit((unsigned char)*v) || *end || errno || n > ROS2_CONFIG_MAX_DOMAIN)
			return fail(p, v, "domain_id '%s': expected 0 to 232", v);
		c->domain_id = (uint32_t)n;
	} else if (!strcmp(k, "namespace")) {
		if (strlen(v) >= sizeof(c->ns) || ros2_dds_check_namespace(v))
			return fail(p, v, "namespace '%s': expected a ROS namespace such as /skin or /robot1/skin (components of [A-Za-z0-9_], not starting with a digit)", v);
		strcpy(c->ns, v);
	} else if (!strcmp(k, "socket")) {
		if (!*v || strlen(v) >= sizeof(c->socket))
			return fail(p, v, "socket: expected a path of 1 to 107 characters");
		strcpy(c->socket, v);
	} else if (!strcmp(k, "raw")) {
		return boolean(p, v, &c->raw);
	} else if (!strcmp(k, "parts")) {
		return parts_list(p, v);
	} else {
		return fail(p, k, "unknown key '%s' in [bridge]: expected domain_id, namespace, parts, raw or socket", k);
	}
	return 0;
}

static int line(struct parse *p, char *s, char *e)
{
	char *eq, *k_end, *v;

	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (s == e || *s == '#' || *s == ';')
		return 0;
	*e = '\0';
	if (*s == '[')
		return section(p, s, e);
	eq = strchr(s, '=');
	if (!eq)
		return fail(p, s, "expected '[section]', 'key = value' or a comment");
	if (!p->section)
		return fail(p, s, "a key before any section: expected [bridge] or [part NAME] first");
	for (k_end = eq; k_end > s && isspace((unsigned char)k_end[-1]); k_end--)
		;
	if (k_end == s)
		return fail(p, s, "'=' without a key");
	*k_end = '\0';
	for (v = eq + 1; *v && isspace((unsigned char)*v); v++)
		;
	/* a comment after the value */
	{
		char *h = strpbrk(v, "#;");

		if (h) {
			*h = '\0';
			while (h > v && isspace((unsigned char)h[-1]))
				*--h = '\0';
		}
	}
	return key(p, s, v);
}

int ros2_config_parse(struct ros2_config *c, const char *buf,
		      const char *name, struct skin_error *err)
{
	struct parse p = { .c = c, .name = name ? name : "(config)", .err = err,
			   .part = -1 };
	char *copy = strdup(buf), *s, *nl;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (s = copy; *s && !rc; s = nl + 1) {
		bool last;

		p.line++;
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		last = !*nl;		/* line() writes a NUL where it ends */
		p.bol = s;
		rc = line(&p, s, nl);
		if (last)
			break;
	}
	free(copy);
	if (rc == -ENOMEM)
		skin_error_set(err, p.name, p.line, 0, "out of memory");
	return rc;
}

int ros2_config_load(struct ros2_config *c, const char *path,
		     struct skin_error *err)
{
	size_t len;
	char *buf = skin_file_read(path, CONFIG_MAX, &len, err);
	int rc;

	if (!buf)
		return -EINVAL;
	if (strlen(buf) != len) {
		skin_error_set(err, path, 0, 0, "a NUL byte: not a text file");
		free(buf);
		return -EINVAL;
	}
	rc = ros2_config_parse(c, buf, path, err);
	free(buf);
	return rc;
}

bool ros2_config_publishes(const struct ros2_config *c, const char *name)
{
	unsigned int i;

	if (c->all_parts)
		return true;
	for (i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].name, name))
			return c->parts[i].publish;
	return false;
}

const char *ros2_config_frame(const struct ros2_config *c, const char *name,
			      uint32_t skin_part)
{
	const char *frame = skin_part_id_frame((enum skin_part_id)skin_part);
	unsigned int i;

	for (i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].name, name) && c->parts[i].frame_id[0])
			return c->parts[i].frame_id;
	return frame ? frame : name;
}
