// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - skin-yarp.conf (config.h)
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* skinManAll.ini's outputPorts, by SkinPart (skinDynLib/common.h) */
static const char *const icub_names[] = {
	NULL, "left_hand", "left_forearm", "left_arm", "right_hand",
	"right_forearm", "right_arm", "torso", "left_leg_upper",
	"left_leg_lower", "left_foot", "right_leg_upper", "right_leg_lower",
	"right_foot",
};

void yb_config_defaults(struct yb_config *c)
{
	memset(c, 0, sizeof(*c));
	c->version = YW_YARP3;
	snprintf(c->advertise, sizeof(c->advertise), "...");
	c->bind.s_addr = htonl(INADDR_ANY);
	snprintf(c->robot, sizeof(c->robot), "icub");
	snprintf(c->manager, sizeof(c->manager), "skinManager");
	c->stall_ms = 3000;
	c->recheck_s = 5;
	c->max_conns = 256;
	c->max_per_addr = 32;
	c->idle_ms = 10000;
}

const char *yb_config_port_name(const struct yb_config *c, const char *part,
				unsigned int skin_part)
{
	unsigned int i;

	for (i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].part, part))
			return c->parts[i].port;
	if (skin_part > 0 && skin_part < sizeof(icub_names) / sizeof(icub_names[0]))
		return icub_names[skin_part];
	return part;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A YARP name word: printable, no spaces */
static bool name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return false;
	return true;
}

static int uint_value(const char *v, unsigned long lo, unsigned long hi,
		      unsigned int *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi || v[0] == '-')
		return -EINVAL;
	*out = (unsigned int)x;
	return 0;
}

#define FAIL(...) do { \
	snprintf(why, why_len, __VA_ARGS__); \
	r = -EINVAL; \
	goto out; \
} while (0)

int yb_config_load(struct yb_config *c, const char *path, char *why,
		   size_t why_len)
{
	enum { S_NONE, S_YARP, S_PART, S_CONNECT } sec = S_NONE;
	FILE *f = fopen(path, "re");
	char buf[1024];
	unsigned int line = 0, u;
	struct yb_part_name *part = NULL;
	int r = 0;

	if (!f) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(buf, sizeof(buf), f)) {
		char *s, *k, *v, *eq;

		line++;
		if (!strchr(buf, '\n') && !feof(f))
			FAIL("%s:%u: line too long", path, line);
		s = trim(buf);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']'), name[64];

			if (!e || e[1])
				FAIL("%s:%u: a section is \"[NAME]\"", path, line);
			*e = '\0';
			s = trim(s + 1);
			if (!strcmp(s, "yarp")) {
				sec = S_YARP;
			} else if (!strcmp(s, "connect")) {
				sec = S_CONNECT;
			} else if (sscanf(s, "part %63s", name) == 1 &&
				   !strchr(s + 5 + strlen(name), ' ')) {
				if (c->n_parts == YB_MAX_PARTS)
					FAIL("%s:%u: more than %d [part] sections", path, line,
					     YB_MAX_PARTS);
				if (!name_ok(name, sizeof(part->part)))
					FAIL("%s:%u: bad part name \"%s\"", path, line, name);
				part = &c->parts[c->n_parts++];
				snprintf(part->part, sizeof(part->part), "%.31s", name);
				sec = S_PART;
			} else {
				FAIL("%s:%u: unknown section [%s] ([yarp], [part NAME], [connect])",
				     path, line, s);
			}
			continue;
		}
		eq = strchr(s, '=');
		if (!eq)
			FAIL("%s:%u: want KEY = VALUE", path, line);
		*eq = '\0';
		k = trim(s);
		v = trim(eq + 1);
		switch (sec) {
		case S_NONE:
			FAIL("%s:%u: \"%s\" before any section", path, line, k);
		case S_YARP:
			if (!strcmp(k, "version")) {
				if (!strcmp(v, "3"))
					c->version = YW_YARP3;
				else if (!strcmp(v, "4"))
					c->version = YW_YARP4;
				else
					FAIL("%s:%u: version is 3 or 4, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "name_server")) {
				char host[64], extra[8];

				if (sscanf(v, "%63s %u %7s", host, &u, extra) != 2 ||
				    u == 0 || u > 65535)
					FAIL("%s:%u: name_server = IP PORT, not \"%s\"", path, line, v);
				snprintf(c->ns_host, sizeof(c->ns_host), "%s", host);
				c->ns_port = (uint16_t)u;
				c->have_name_server = true;
			} else if (!strcmp(k, "advertise")) {
				struct in_addr a;

				if (strcmp(v, "...") && inet_pton(AF_INET, v, &a) != 1)
					FAIL("%s:%u: advertise is an IPv4 address or \"...\", not \"%s\"",
					     path, line, v);
				snprintf(c->advertise, sizeof(c->advertise), "%s", v);
			} else if (!strcmp(k, "bind")) {
				if (inet_pton(AF_INET, v, &c->bind) != 1)
					FAIL("%s:%u: bind is an IPv4 address, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "robot") || !strcmp(k, "manager")) {
				char *dst = k[0] == 'r' ? c->robot : c->manager;

				if (!name_ok(v, sizeof(c->robot)) || strchr(v, '/'))
					FAIL("%s:%u: %s is one word without '/', not \"%s\"",
					     path, line, k, v);
				snprintf(dst, sizeof(c->robot), "%s", v);
			} else if (!strcmp(k, "rpc_admin")) {
				if (!strcmp(v, "true"))
					c->rpc_admin = true;
				else if (!strcmp(v, "false"))
					c->rpc_admin = false;
				else
					FAIL("%s:%u: rpc_admin is true or false, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "stall_ms")) {
				if (uint_value(v, 10, 600000, &c->stall_ms))
					FAIL("%s:%u: stall_ms is 10..600000, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "recheck_s")) {
				if (uint_value(v, 1, 3600, &c->recheck_s))
					FAIL("%s:%u: recheck_s is 1..3600, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "max_connections")) {
				if (uint_value(v, 4, 65536, &c->max_conns))
					FAIL("%s:%u: max_connections is 4..65536, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "max_per_address")) {
				if (uint_value(v, 1, 65536, &c->max_per_addr))
					FAIL("%s:%u: max_per_address is 1..65536, not \"%s\"", path, line, v);
			} else if (!strcmp(k, "idle_ms")) {
				if (uint_value(v, 100, 600000, &c->idle_ms))
					FAIL("%s:%u: idle_ms is 100..600000, not \"%s\"", path, line, v);
			} else {
				FAIL("%s:%u: unknown key \"%s\" in [yarp]", path, line, k);
			}
			break;
		case S_PART:
			if (strcmp(k, "port"))
				FAIL("%s:%u: unknown key \"%s\" in [part %s] (port)", path, line, k,
				     part->part);
			if (!name_ok(v, sizeof(part->port)) || strchr(v, '/'))
				FAIL("%s:%u: port is one word without '/', not \"%s\"", path, line, v);
			snprintf(part->port, sizeof(part->port), "%s", v);
			break;
		case S_CONNECT: {
			struct yb_connect *cn;
			char to[256], car[16], extra[8];
			int n;

			if (c->n_connect == YB_MAX_CONNECT)
				FAIL("%s:%u: more than %d connections", path, line, YB_MAX_CONNECT);
			cn = &c->connect[c->n_connect];
			n = sscanf(v, "%255s %15s %7s", to, car, extra);
			if (k[0] != '/' || !name_ok(k, sizeof(cn->from)) || n < 1 || n > 2 ||
			    to[0] != '/')
				FAIL("%s:%u: want /OUR_PORT = /READER [tcp|fast_tcp|text]", path, line);
			cn->carrier = YW_TCP;
			if (n == 2 && yw_carrier_parse(car, &cn->carrier))
				FAIL("%s:%u: carrier \"%s\": tcp, fast_tcp or text", path, line, car);
			snprintf(cn->from, sizeof(cn->from), "%s", k);
			snprintf(cn->to, sizeof(cn->to), "%s", to);
			c->n_connect++;
			break;
		}
		}
	}
	if (ferror(f)) {
		snprintf(why, why_len, "%s: read error", path);
		r = -EIO;
	}
out:
	fclose(f);
	return r;
}
