// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - skin-view.conf (config.h)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf.h"
#include "config.h"

#ifndef SKIN_VIEW_DATADIR
#define SKIN_VIEW_DATADIR "/usr/share/skin/view"
#endif

#define VC(f) offsetof(struct view_config, f)

/* What the parser carries between lines */
struct parse_state {
	struct view_config *c;
	struct view_config_layout *layout;	/* the [layout PART] we are in */
	const char *name;			/* the file, for FILE:LINE */
};

static int parse_address(const struct conf_key *k, void *base, const char *v)
{
	struct view_config *c = base;
	unsigned char a[16];

	(void)k;
	if (strlen(v) >= sizeof(c->address) ||
	    (inet_pton(AF_INET, v, a) != 1 && inet_pton(AF_INET6, v, a) != 1))
		return -1;
	strcpy(c->address, v);
	return 0;
}

static int parse_text(char *dst, size_t room, const char *v, bool printable)
{
	const char *p;

	if (!*v || strlen(v) >= room)
		return -1;
	for (p = v; printable && *p; p++)
		if (!isgraph((unsigned char)*p))
			return -1;
	strcpy(dst, v);
	return 0;
}

static int parse_token(const struct conf_key *k, void *base, const char *v)
{
	struct view_config *c = base;

	(void)k;
	/* a token shorter than 16 characters is guessed: refused */
	if (strlen(v) < 16)
		return -1;
	return parse_text(c->token, sizeof(c->token), v, true);
}

static int parse_socket(const struct conf_key *k, void *base, const char *v)
{
	struct view_config *c = base;

	(void)k;
	return parse_text(c->socket, sizeof(c->socket), v, false);
}

static int parse_data_dir(const struct conf_key *k, void *base, const char *v)
{
	struct view_config *c = base;

	(void)k;
	if (v[0] != '/')
		return -1;
	return parse_text(c->data_dir, sizeof(c->data_dir), v, false);
}

static int parse_path(char *dst, size_t room, const char *v)
{
	return parse_text(dst, room, v, false);
}

static int parse_skind_config(const struct conf_key *k, void *base, const char *v)
{
	struct view_config *c = base;

	(void)k;
	return parse_path(c->skind_config, sizeof(c->skind_config), v);
}

static int parse_eth_counters(const struct conf_key *k, void *base, const char *v)
{
	struct view_config *c = base;

	(void)k;
	return parse_path(c->eth_counters, sizeof(c->eth_counters), v);
}

/* [view]: lib/conf's table, the one source of each key's default, range
 * and man page line (man/skin-view.8). */
static const struct conf_key view_keys[] = {
	{ .name = "address", .type = CONF_CUSTOM, .parse = parse_address,
	  .def_text = "127.0.0.1",
	  .expected = "an IPv4 or IPv6 address (0.0.0.0 or :: for every interface)",
	  .doc = "the address the server listens on: this host only unless set" },
	/* Foxglove's own default for a WebSocket connection
	 * (ws://localhost:8765): its dialog opens on this server as it is */
	{ .name = "port", .type = CONF_UINT, .offset = VC(port),
	  .min = 1, .max = 65535, .def = 8765,
	  .doc = "TCP port of the page and the WebSocket (Foxglove's default)" },
	{ .name = "max_clients", .type = CONF_UINT, .offset = VC(max_clients),
	  .min = 1, .max = 4096, .def = 64,
	  .doc = "WebSocket clients served at once; more are refused" },
	{ .name = "max_per_address", .type = CONF_UINT, .offset = VC(max_per_address),
	  .min = 1, .max = 4096, .def = 16,
	  .doc = "WebSocket clients from one address; more are refused" },
	{ .name = "max_connections", .type = CONF_UINT, .offset = VC(max_connections),
	  .min = 16, .max = 65536, .def = 1024,
	  .doc = "TCP connections held of any kind; past it, new ones wait in the listen queue" },
	{ .name = "max_connections_per_address", .type = CONF_UINT,
	  .offset = VC(max_connections_per_address),
	  .min = 1, .max = 65536, .def = 64,
	  .doc = "TCP connections held from one address; more are hung up at once" },
	{ .name = "queue_bytes", .type = CONF_UINT, .offset = VC(queue_bytes),
	  .min = 4096, .max = 1 << 26, .unit = "bytes", .def = 262144,
	  .doc = "a client's replies not sent yet; a client past it is closed (samples are not queued: the newest replaces an unsent one)" },
	{ .name = "idle_timeout_s", .type = CONF_UINT, .offset = VC(idle_timeout_s),
	  .min = 1, .max = 86400, .unit = "s", .def = 30,
	  .doc = "a connection that subscribes to nothing and says nothing, or takes nothing sent to it, for this long is closed" },
	{ .name = "max_frame", .type = CONF_UINT, .offset = VC(max_frame),
	  .min = 256, .max = 1 << 24, .unit = "bytes", .def = 65536,
	  .doc = "a client's message, at most; a longer one closes the connection (1009)" },
	{ .name = "token", .type = CONF_CUSTOM, .parse = parse_token,
	  .expected = "16 to 127 printable characters, no blanks",
	  .doc = "what the actions (the services /skin/calibrate and /skin/set) need in their requests; none: no services, the server is read-only; a file holding one that other users may read is refused (chmod o-rw, group skin-admin)" },
	{ .name = "socket", .type = CONF_CUSTOM, .parse = parse_socket,
	  .expected = "a path of 1 to 107 characters",
	  .doc = "skind's socket" },
	/* (its default is the build's: view_config_init()) */
	{ .name = "data_dir", .type = CONF_CUSTOM, .parse = parse_data_dir,
	  .expected = "an absolute path of at most 255 characters",
	  .doc = "the page's files (none: the installed ones, PREFIX/share/skin/view); nothing outside it is served" },
	{ .name = "skind_config", .type = CONF_CUSTOM, .parse = parse_skind_config,
	  .def_text = "/etc/skin/skind.conf",
	  .expected = "a path of at most 255 characters",
	  .doc = "skind's configuration, read again at each of skind's reloads: the parts' slots, boards and triangles, and their flattening where no [layout PART] names a file" },
	/* what skin-eth.service's --counters writes */
	{ .name = "eth_counters", .type = CONF_CUSTOM, .parse = parse_eth_counters,
	  .def_text = "/run/skin-eth/counters",
	  .expected = "a path of at most 255 characters",
	  .doc = "skin-eth's counters file, shown in /skin/health (absent: no ETH input)" },
};

const struct conf_key *view_config_keys(size_t *n)
{
	*n = sizeof(view_keys) / sizeof(view_keys[0]);
	return view_keys;
}

void view_config_init(struct view_config *c)
{
	size_t n;
	const struct conf_key *t = view_config_keys(&n);

	memset(c, 0, sizeof(*c));
	conf_keys_default(t, n, c);
	snprintf(c->data_dir, sizeof(c->data_dir), "%s", SKIN_VIEW_DATADIR);
}

const struct view_config_layout *view_config_layout(const struct view_config *c,
						    const char *part)
{
	unsigned int i;

	for (i = 0; i < c->n_layouts; i++)
		if (!strcmp(c->layouts[i].part, part))
			return &c->layouts[i];
	return NULL;
}

/* A part's name as skind.conf takes it (docs/MODEL.md) */
static bool part_name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > SKIN_PART_NAME_MAX || s[0] == '.' || !strcmp(s, "all"))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

static int section(struct conf_parser *cp, char *s)
{
	struct parse_state *ps = cp->user;
	struct view_config *c = ps->c;
	struct view_config_layout *l;
	const char *part;

	ps->layout = NULL;
	if (!strcmp(s, "view"))
		return 0;
	if (strncmp(s, "layout ", 7)) {
		conf_error(cp, s - 1, "unknown section [%.40s]: expected [view] or [layout PART]", s);
		return -1;
	}
	part = s + 7;
	while (*part == ' ' || *part == '\t')
		part++;
	if (!part_name_ok(part)) {
		conf_error(cp, part, "[layout PART]: '%.40s' is no part name (1 to %d of A-Z a-z 0-9 _ . -)",
			   part, SKIN_PART_NAME_MAX);
		return -1;
	}
	if (view_config_layout(c, part)) {
		conf_error(cp, part, "[layout %s] given twice", part);
		return -1;
	}
	if (c->n_layouts == VIEW_CONFIG_MAX_LAYOUTS) {
		conf_error(cp, s - 1, "more than %d [layout PART] sections", VIEW_CONFIG_MAX_LAYOUTS);
		return -1;
	}
	l = &c->layouts[c->n_layouts++];
	memset(l, 0, sizeof(*l));
	snprintf(l->part, sizeof(l->part), "%s", part);
	ps->layout = l;
	return 0;
}

/* [layout PART] file = PATH, relative to the configuration's directory */
static int layout_key(struct conf_parser *cp, struct parse_state *ps,
		      char *k, char *v)
{
	struct view_config_layout *l = ps->layout;
	const char *slash = strrchr(ps->name, '/');
	int n;

	if (strcmp(k, "file")) {
		conf_error(cp, k, "unknown key '%s' in [layout %s]: expected file", k, l->part);
		return -1;
	}
	if (!*v) {
		conf_error(cp, v, "file: expected a path");
		return -1;
	}
	if (v[0] == '/' || !slash)
		n = snprintf(l->file, sizeof(l->file), "%s", v);
	else
		n = snprintf(l->file, sizeof(l->file), "%.*s/%s",
			     (int)(slash - ps->name), ps->name, v);
	if (n < 0 || (size_t)n >= sizeof(l->file)) {
		conf_error(cp, v, "file: a path of at most %zu characters", sizeof(l->file) - 1);
		return -1;
	}
	snprintf(l->where, sizeof(l->where), "%s:%u", cp->file, cp->line);
	return 0;
}

static int key(struct conf_parser *cp, char *k, char *v)
{
	struct parse_state *ps = cp->user;
	struct view_config *c = ps->c;
	const struct conf_key *t, *ck;
	char why[512];
	size_t n;

	if (ps->layout)
		return layout_key(cp, ps, k, v);
	t = view_config_keys(&n);
	ck = conf_key_find(t, n, k);
	if (!ck) {
		conf_error(cp, k, "unknown key '%s' in [view]", k);
		return -1;
	}
	if (conf_key_set(ck, c, v, why, sizeof(why))) {
		conf_error(cp, v, "%s", why);
		return -1;
	}
	return 0;
}

int view_config_parse(struct view_config *c, const char *buf,
		      const char *name, struct skin_error *err)
{
	static const struct conf_syntax syntax = {
		.sections = "[view] or [layout PART]",
		.line_max = 4094,
	};
	struct parse_state ps = { .c = c, .name = name ? name : "(config)" };
	struct conf_parser cp = {
		.syntax = &syntax, .file = name ? name : "(config)", .err = err,
		.user = &ps, .section = section, .key = key,
	};
	unsigned int i;

	if (conf_parse(&cp, buf, strlen(buf)))
		return -EINVAL;
	for (i = 0; i < c->n_layouts; i++)
		if (!c->layouts[i].file[0]) {
			skin_error_set(err, name ? name : "(config)", 0, 0,
				       "[layout %s] has no file", c->layouts[i].part);
			return -EINVAL;
		}
	if (c->max_connections_per_address > c->max_connections) {
		skin_error_set(err, name ? name : "(config)", 0, 0,
			       "max_connections_per_address (%u) above max_connections (%u)",
			       c->max_connections_per_address, c->max_connections);
		return -EINVAL;
	}
	if (c->max_per_address > c->max_clients) {
		skin_error_set(err, name ? name : "(config)", 0, 0,
			       "max_per_address (%u) above max_clients (%u)",
			       c->max_per_address, c->max_clients);
		return -EINVAL;
	}
	return 0;
}

int view_config_load(struct view_config *c, const char *path,
		     struct skin_error *err)
{
	size_t len;
	char *buf = conf_read_file(path, &len, err);
	struct stat st;
	int rc;

	if (!buf)
		return -EINVAL;
	rc = view_config_parse(c, buf, path, err);
	free(buf);
	if (rc || !c->token[0])
		return rc;
	/* a secret every user can read is no secret: refused, as sshd
	 * refuses a private key others can read, rather than guarding the
	 * actions with it */
	if (stat(path, &st) == 0 && (st.st_mode & (S_IROTH | S_IWOTH))) {
		skin_error_set(err, path, 0, 0,
			       "holds a token, and every user may read it: chmod o-rw %s (and group skin-admin: chgrp skin-admin)",
			       path);
		return -EACCES;
	}
	return 0;
}
