// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - the bridge's configuration file (config.h)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "config.h"
#include "dds.h"



void ros2_config_free(struct ros2_config *c)
{
	free(c->parts);
	memset(c, 0, sizeof(*c));
}

struct parse {
	struct ros2_config *c;
	int part;			/* [part NAME]: its index; -1 [bridge] */
	bool seen_parts;
};

static int find_part(struct ros2_config *c, const char *name, size_t n,
		     bool add)
{
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

static int section(struct conf_parser *cp, char *s)
{
	struct parse *p = cp->user;
	const char *a, *e;
	int i;

	if (!strcmp(s, "bridge")) {
		p->part = -1;
		return 0;
	}
	if (!strncmp(s, "part ", 5)) {
		for (a = s + 5; *a == ' '; a++)
			;
		if (!*a) {
			conf_error(cp, a, "[part NAME]: the name is missing");
			return -1;
		}
		for (e = a; *e; e++)
			if (!part_char(*e)) {
				conf_error(cp, e, "part names are made of [A-Za-z0-9_] (ROS topic names)");
				return -1;
			}
		if (e - a >= SKIN_SHM_NAME_LEN) {
			conf_error(cp, a, "part name longer than 31 characters");
			return -1;
		}
		i = find_part(p->c, a, (size_t)(e - a), true);
		if (i < 0)
			return i;
		if (p->c->parts[i].line) {
			conf_error(cp, a, "[part %s] again (first at line %u)", a,
				   p->c->parts[i].line);
			return -1;
		}
		p->c->parts[i].line = cp->line;
		p->part = i;
		return 0;
	}
	conf_error(cp, s - 1, "unknown section [%.40s]: expected [bridge] or [part NAME]",
		   s);
	return -1;
}

static int parts_list(struct conf_parser *cp, char *v)
{
	struct parse *p = cp->user;
	char *tok, *save = NULL;
	int i;

	if (p->seen_parts) {
		conf_error(cp, v, "parts given twice");
		return -1;
	}
	p->seen_parts = true;
	p->c->all_parts = false;
	for (tok = strtok_r(v, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		const char *q;

		for (q = tok; *q; q++)
			if (!part_char(*q)) {
				conf_error(cp, tok, "'%s': part names are made of [A-Za-z0-9_] (ROS topic names)", tok);
				return -1;
			}
		if (strlen(tok) >= SKIN_SHM_NAME_LEN) {
			conf_error(cp, tok, "'%s': longer than 31 characters", tok);
			return -1;
		}
		i = find_part(p->c, tok, strlen(tok), true);
		if (i < 0)
			return i;
		p->c->parts[i].publish = true;
	}
	if (!p->c->n_parts) {
		conf_error(cp, v, "parts = names no part: expected part names, or no parts line for all of them");
		return -1;
	}
	return 0;
}

#define R2(f) offsetof(struct ros2_config, f)

static int parse_namespace(const struct conf_key *k, void *base, const char *v)
{
	struct ros2_config *c = base;

	(void)k;
	if (strlen(v) >= sizeof(c->ns) || ros2_dds_check_namespace(v))
		return -1;
	strcpy(c->ns, v);
	return 0;
}

static int parse_socket(const struct conf_key *k, void *base, const char *v)
{
	struct ros2_config *c = base;

	(void)k;
	if (!*v || strlen(v) >= sizeof(c->socket))
		return -1;
	strcpy(c->socket, v);
	return 0;
}

/* [bridge]: lib/conf's table, the one source of each key's default, what
 * it takes and its line in man/skin-ros2-bridge.8 (test_ros2_config
 * checks).  parts, a list whose every name is checked where it stands,
 * is parts_list()'s. */
static const struct conf_key bridge_keys[] = {
	{ .name = "domain_id", .type = CONF_UINT, .offset = R2(domain_id),
	  .min = 0, .max = ROS2_CONFIG_MAX_DOMAIN, .def = 0,
	  .doc = "DDS domain (ROS_DOMAIN_ID), 0..232" },
	{ .name = "namespace", .type = CONF_CUSTOM, .parse = parse_namespace,
	  .def_text = "/skin",
	  .expected = "a ROS namespace such as /skin or /robot1/skin (components of [A-Za-z0-9_], not starting with a digit)",
	  .doc = "ROS namespace of every topic" },
	{ .name = "raw", .type = CONF_BOOL, .offset = R2(raw), .max = 1, .def = 1,
	  .doc = "publish .../raw" },
	{ .name = "socket", .type = CONF_CUSTOM, .parse = parse_socket,
	  .expected = "a path of 1 to 107 characters",
	  .doc = "skind's socket" },
};

const struct conf_key *ros2_config_keys(size_t *n)
{
	*n = sizeof(bridge_keys) / sizeof(bridge_keys[0]);
	return bridge_keys;
}

static int key(struct conf_parser *cp, char *k, char *v)
{
	struct parse *p = cp->user;
	struct ros2_config *c = p->c;
	const struct conf_key *t, *ck;
	char why[512];
	size_t n;

	if (p->part >= 0) {
		if (strcmp(k, "frame_id")) {
			conf_error(cp, k, "unknown key '%s' in [part]: expected frame_id", k);
			return -1;
		}
		if (!*v || strlen(v) >= ROS2_MSG_FRAME_LEN) {
			conf_error(cp, v, "frame_id: expected 1 to 127 characters");
			return -1;
		}
		strcpy(c->parts[p->part].frame_id, v);
		return 0;
	}
	if (!strcmp(k, "parts"))
		return parts_list(cp, v);
	t = ros2_config_keys(&n);
	ck = conf_key_find(t, n, k);
	if (!ck) {
		conf_error(cp, k, "unknown key '%s' in [bridge]: expected domain_id, namespace, parts, raw or socket", k);
		return -1;
	}
	if (conf_key_set(ck, c, v, why, sizeof(why))) {
		conf_error(cp, v, "%s", why);
		return -1;
	}
	return 0;
}

void ros2_config_init(struct ros2_config *c)
{
	size_t n;
	const struct conf_key *t = ros2_config_keys(&n);

	memset(c, 0, sizeof(*c));
	conf_keys_default(t, n, c);
	c->all_parts = true;
}

int ros2_config_parse(struct ros2_config *c, const char *buf,
		      const char *name, struct skin_error *err)
{
	static const struct conf_syntax syntax = {
		.sections = "[bridge] or [part NAME]",
		.line_max = 4094,
	};
	struct parse p = { .c = c, .part = -1 };
	struct conf_parser cp = {
		.syntax = &syntax, .file = name ? name : "(config)", .err = err,
		.user = &p, .section = section, .key = key,
	};

	if (conf_parse(&cp, buf, strlen(buf)))
		return -EINVAL;
	return 0;
}

int ros2_config_load(struct ros2_config *c, const char *path,
		     struct skin_error *err)
{
	size_t len;
	char *buf = conf_read_file(path, &len, err);
	int rc;

	if (!buf)
		return -EINVAL;
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
