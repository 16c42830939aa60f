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

#include "conf.h"
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

struct yb_parse {
	struct yb_config *c;
	enum { S_YARP, S_PART, S_CONNECT } sec;
	struct yb_part_name *part;
};

static int yb_section(struct conf_parser *cp, char *s)
{
	struct yb_parse *p = cp->user;
	struct yb_config *c = p->c;
	char *name;

	if (!strcmp(s, "yarp")) {
		p->sec = S_YARP;
		return 0;
	}
	if (!strcmp(s, "connect")) {
		p->sec = S_CONNECT;
		return 0;
	}
	if (!strncmp(s, "part ", 5)) {
		for (name = s + 5; *name == ' '; name++)
			;
		if (c->n_parts == YB_MAX_PARTS) {
			conf_error(cp, name, "more than %d [part] sections",
				   YB_MAX_PARTS);
			return -1;
		}
		if (!name_ok(name, sizeof(p->part->part))) {
			conf_error(cp, name, "bad part name \"%s\"", name);
			return -1;
		}
		p->part = &c->parts[c->n_parts++];
		snprintf(p->part->part, sizeof(p->part->part), "%.31s", name);
		p->sec = S_PART;
		return 0;
	}
	conf_error(cp, s, "unknown section [%s] ([yarp], [part NAME], [connect])",
		   s);
	return -1;
}

static int yb_yarp_key(struct conf_parser *cp, struct yb_config *c,
		       const char *k, const char *v)
{
	unsigned int u;

	if (!strcmp(k, "version")) {
		if (!strcmp(v, "3"))
			c->version = YW_YARP3;
		else if (!strcmp(v, "4"))
			c->version = YW_YARP4;
		else
			goto bad;
	} else if (!strcmp(k, "name_server")) {
		char host[64], extra[8];

		if (sscanf(v, "%63s %u %7s", host, &u, extra) != 2 ||
		    u == 0 || u > 65535)
			goto bad;
		snprintf(c->ns_host, sizeof(c->ns_host), "%s", host);
		c->ns_port = (uint16_t)u;
		c->have_name_server = true;
	} else if (!strcmp(k, "advertise")) {
		struct in_addr a;

		if (strcmp(v, "...") && inet_pton(AF_INET, v, &a) != 1)
			goto bad;
		snprintf(c->advertise, sizeof(c->advertise), "%s", v);
	} else if (!strcmp(k, "bind")) {
		if (inet_pton(AF_INET, v, &c->bind) != 1)
			goto bad;
	} else if (!strcmp(k, "robot") || !strcmp(k, "manager")) {
		char *dst = k[0] == 'r' ? c->robot : c->manager;

		if (!name_ok(v, sizeof(c->robot)) || strchr(v, '/'))
			goto bad;
		snprintf(dst, sizeof(c->robot), "%s", v);
	} else if (!strcmp(k, "rpc_admin")) {
		if (!conf_parse_bool(v, &c->rpc_admin))
			goto bad;
	} else if (!strcmp(k, "stall_ms")) {
		if (uint_value(v, 10, 600000, &c->stall_ms))
			goto bad;
	} else if (!strcmp(k, "recheck_s")) {
		if (uint_value(v, 1, 3600, &c->recheck_s))
			goto bad;
	} else {
		conf_error(cp, k, "unknown key \"%s\" in [yarp]", k);
		return -1;
	}
	return 0;
bad:
	conf_error(cp, v, "%s = \"%s\": expected %s", k, v,
		   !strcmp(k, "version") ? "3 or 4" :
		   !strcmp(k, "name_server") ? "IP PORT" :
		   !strcmp(k, "advertise") ? "an IPv4 address or \"...\"" :
		   !strcmp(k, "bind") ? "an IPv4 address" :
		   !strcmp(k, "rpc_admin") ? "yes or no (true/false, on/off, 1/0)" :
		   !strcmp(k, "stall_ms") ? "10..600000" :
		   !strcmp(k, "recheck_s") ? "1..3600" :
		   "one word without '/'");
	return -1;
}

static int yb_key(struct conf_parser *cp, char *k, char *v)
{
	struct yb_parse *p = cp->user;
	struct yb_config *c = p->c;
	struct yb_connect *cn;
	char to[256], car[16], extra[8];
	int n;

	switch (p->sec) {
	case S_YARP:
		return yb_yarp_key(cp, c, k, v);
	case S_PART:
		if (strcmp(k, "port")) {
			conf_error(cp, k, "unknown key \"%s\" in [part %s] (port)",
				   k, p->part->part);
			return -1;
		}
		if (!name_ok(v, sizeof(p->part->port)) || strchr(v, '/')) {
			conf_error(cp, v, "port = \"%s\": expected one word without '/'", v);
			return -1;
		}
		snprintf(p->part->port, sizeof(p->part->port), "%s", v);
		return 0;
	default:
		break;
	}
	if (c->n_connect == YB_MAX_CONNECT) {
		conf_error(cp, k, "more than %d connections", YB_MAX_CONNECT);
		return -1;
	}
	cn = &c->connect[c->n_connect];
	n = sscanf(v, "%255s %15s %7s", to, car, extra);
	if (k[0] != '/' || !name_ok(k, sizeof(cn->from)) || n < 1 || n > 2 ||
	    to[0] != '/') {
		conf_error(cp, k, "want /OUR_PORT = /READER [tcp|fast_tcp|text]");
		return -1;
	}
	cn->carrier = YW_TCP;
	if (n == 2 && yw_carrier_parse(car, &cn->carrier)) {
		conf_error(cp, car, "carrier \"%s\": tcp, fast_tcp or text", car);
		return -1;
	}
	snprintf(cn->from, sizeof(cn->from), "%s", k);
	snprintf(cn->to, sizeof(cn->to), "%s", to);
	c->n_connect++;
	return 0;
}

int yb_config_load(struct yb_config *c, const char *path, char *why,
		   size_t why_len)
{
	static const struct conf_syntax syntax = {
		.sections = "[yarp], [part NAME] or [connect]",
		.line_max = 1022,
	};
	struct yb_parse p = { .c = c };
	struct conf_parser cp = {
		.syntax = &syntax, .file = path, .user = &p,
		.section = yb_section, .key = yb_key,
	};
	struct skin_error err;
	size_t len;
	char *buf;
	int r;

	cp.err = &err;
	buf = conf_read_file(path, &len, &err);
	if (!buf) {
		snprintf(why, why_len, "%s", err.text);
		return -EINVAL;
	}
	r = conf_parse(&cp, buf, len);
	free(buf);
	if (r) {
		snprintf(why, why_len, "%s", err.text);
		return -EINVAL;
	}
	return 0;
}
