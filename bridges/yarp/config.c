// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - skin-yarp.conf (config.h)
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/model.h>

#include "conf.h"
#include "config.h"

const char *yb_config_port_name(const struct yb_config *c, const char *part,
				unsigned int skin_part)
{
	const char *port = skin_part_id_port((enum skin_part_id)skin_part);
	unsigned int i;

	for (i = 0; i < c->n_parts; i++)
		if (!strcmp(c->parts[i].part, part))
			return c->parts[i].port;
	return port ? port : part;
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

#define YB(f) offsetof(struct yb_config, f)

static int parse_version(const struct conf_key *k, void *base, const char *v)
{
	enum yw_version *out = (void *)((char *)base + k->offset);

	if (!strcmp(v, "3"))
		*out = YW_YARP3;
	else if (!strcmp(v, "4"))
		*out = YW_YARP4;
	else
		return -1;
	return 0;
}

static int parse_name_server(const struct conf_key *k, void *base,
			     const char *v)
{
	struct yb_config *c = base;
	char host[64], extra[8];
	unsigned int u;

	(void)k;
	if (sscanf(v, "%63s %u %7s", host, &u, extra) != 2 || u == 0 ||
	    u > 65535)
		return -1;
	snprintf(c->ns_host, sizeof(c->ns_host), "%s", host);
	c->ns_port = (uint16_t)u;
	c->have_name_server = true;
	return 0;
}

static int parse_advertise(const struct conf_key *k, void *base,
			   const char *v)
{
	struct in_addr a;

	if (strcmp(v, "...") && inet_pton(AF_INET, v, &a) != 1)
		return -1;
	snprintf((char *)base + k->offset, sizeof(((struct yb_config *)0)->advertise),
		 "%s", v);
	return 0;
}

static int parse_bind(const struct conf_key *k, void *base, const char *v)
{
	return inet_pton(AF_INET, v, (char *)base + k->offset) == 1 ? 0 : -1;
}

/* robot, manager: a word of the port names */
static int parse_word(const struct conf_key *k, void *base, const char *v)
{
	size_t size = sizeof(((struct yb_config *)0)->robot);

	if (!name_ok(v, size) || strchr(v, '/'))
		return -1;
	snprintf((char *)base + k->offset, size, "%s", v);
	return 0;
}

/* [yarp]: lib/conf's table, the one source of each key's default, range
 * and man page line (man/skin-yarp.8; test_yarp_config compares) */
static const struct conf_key yb_yarp_keys[] = {
	{ .name = "version", .type = CONF_CUSTOM, .offset = YB(version),
	  .parse = parse_version, .def_text = "3", .expected = "3 or 4",
	  .doc = "the YARP major version of the readers (3: YARP 3.0 to 3.12)" },
	{ .name = "name_server", .type = CONF_CUSTOM, .parse = parse_name_server,
	  .expected = "IP PORT",
	  .doc = "the YARP name server (default: the one\n.I yarp.conf\nnames, as YARP finds it)" },
	{ .name = "advertise", .type = CONF_CUSTOM, .offset = YB(advertise),
	  .parse = parse_advertise, .def_text = "...",
	  .expected = "an IPv4 address or \"...\"",
	  .doc = "the IPv4 address registered for the ports;\n.B ...\nis the address the name server sees the bridge connect from" },
	{ .name = "bind", .type = CONF_CUSTOM, .offset = YB(bind),
	  .parse = parse_bind, .def_text = "0.0.0.0",
	  .expected = "an IPv4 address",
	  .doc = "the IPv4 address the ports listen on" },
	{ .name = "robot", .type = CONF_CUSTOM, .offset = YB(robot),
	  .parse = parse_word, .def_text = "icub",
	  .expected = "one word without '/'",
	  .doc = "the robot's name in the ports\n.BI / ROBOT /skin/ PART\nand\n.BI / ROBOT /skin/ PART _comp" },
	{ .name = "manager", .type = CONF_CUSTOM, .offset = YB(manager),
	  .parse = parse_word, .def_text = "skinManager",
	  .expected = "one word without '/'",
	  .doc = "the manager's name in\n.BI / MANAGER /skin_events:o ,\n.BI / MANAGER /info:o ,\n"
		 ".BI / MANAGER /monitor:o\nand\n.BI / MANAGER /rpc" },
	{ .name = "rpc_admin", .type = CONF_BOOL, .offset = YB(rpc_admin),
	  .max = 1, .def = 0,
	  .doc = "yes lets YARP clients change skind's state through rpc\n.RB ( calib ,\n.BR set );\nno keeps the rpc port read-only" },
	{ .name = "stall_ms", .type = CONF_UINT, .offset = YB(stall_ms),
	  .min = 10, .max = 600000, .def = 3000,
	  .doc = "milliseconds after which a reader that takes nothing is dropped" },
	{ .name = "recheck_s", .type = CONF_UINT, .offset = YB(recheck_s),
	  .min = 1, .max = 3600, .def = 5,
	  .doc = "seconds between checks of the registrations with the name server" },
	{ .name = "max_connections", .type = CONF_UINT, .offset = YB(max_conns),
	  .min = 4, .max = 65536, .def = 256,
	  .doc = "connections the bridge holds in all, to its ports and its own to\nreaders; past it the one silent longest gives its place to a new one.\nKeep it well below the descriptor limit\n.RB ( LimitNOFILE=4096\nin the unit)" },
	{ .name = "max_per_address", .type = CONF_UINT, .offset = YB(max_per_addr),
	  .min = 1, .max = 65536, .def = 32,
	  .doc = "connections to the ports from one IP address; more are closed at once" },
	{ .name = "idle_ms", .type = CONF_UINT, .offset = YB(idle_ms),
	  .min = 100, .max = 600000, .def = 10000,
	  .doc = "milliseconds a peer may stop in the middle of a message before its\nconnection is closed; a connection that has not sent its header after\n2 s is closed too, one idle between messages is kept" },
	{ .name = "raw_period_ms", .type = CONF_UINT, .offset = YB(raw_period_ms),
	  .min = 0, .max = 1000, .def = 20,
	  .doc = "milliseconds between the messages of each raw port\n.BI / ROBOT /skin/ PART\n(the part's newest vector, as the robot's analogServer wrapper\nwrites it every period, 20 ms in robots-configuration; a part with\nno new sample since gets its last vector again, under the same\nenvelope); 0 writes one at each of skind's publications of the part\n(the least latency)" },
};

const struct conf_key *yb_config_keys(size_t *n)
{
	*n = sizeof(yb_yarp_keys) / sizeof(yb_yarp_keys[0]);
	return yb_yarp_keys;
}

void yb_config_defaults(struct yb_config *c)
{
	size_t n;
	const struct conf_key *t = yb_config_keys(&n);

	memset(c, 0, sizeof(*c));
	conf_keys_default(t, n, c);
}

static int yb_yarp_key(struct conf_parser *cp, struct yb_config *c,
		       const char *k, const char *v)
{
	size_t n;
	const struct conf_key *t = yb_config_keys(&n), *key;
	char why[512];

	key = conf_key_find(t, n, k);
	if (!key) {
		conf_error(cp, k, "unknown key \"%s\" in [yarp]", k);
		return -1;
	}
	if (conf_key_set(key, c, v, why, sizeof(why))) {
		conf_error(cp, v, "%s", why);
		return -1;
	}
	return 0;
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
		conf_error(cp, car, "carrier \"%s\": tcp, fast_tcp, text or udp", car);
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
