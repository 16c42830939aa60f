// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl status, contacts, calibrate - ask skind over its socket
 *
 * Thin clients of libskinclient (skin/client.h): they print skind's lines
 * as they are (docs/PROTOCOL.md), so scripts can parse skinctl's output
 * the way they would parse the socket's.  The socket is --socket PATH,
 * else $SKIN_SOCKET, else /run/skin/skind.sock.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/client.h>

#include "skinctl.h"

static void print_line(const char *line, void *data)
{
	(void)data;
	puts(line);
}

static struct skin_client *connect_or_say(const char *cmd, const char *path)
{
	struct skin_client *c;
	int err;

	c = skin_client_connect(path, &err);
	if (!c)
		fprintf(stderr, "skinctl %s: cannot reach skind at %s: %s\n", cmd,
			path ? path : getenv("SKIN_SOCKET") ? getenv("SKIN_SOCKET") :
			SKIN_SOCKET_PATH, strerror(-err));
	return c;
}

/* Run one command; its data lines to stdout, an error to stderr. */
static int run(struct skin_client *c, const char *name, const char *cmd)
{
	char why[1024];
	int r = skin_client_command(c, cmd, print_line, NULL, why, sizeof(why));

	if (r == -EPROTO) {
		fprintf(stderr, "skinctl %s: skind: %s\n", name, why);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "skinctl %s: %s\n", name, strerror(-r));
		return 1;
	}
	return 0;
}

struct common {
	const char *socket;
	int json;
};

static int parse_common(int argc, char **argv, const char *name,
			const char *extra, struct option *more, int *opt_out,
			struct common *o)
{
	static struct option base[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option all[16];
	unsigned int n = 0, i;
	int c;

	for (i = 0; i < 3; i++)
		all[n++] = base[i];
	for (i = 0; more && more[i].name && n < 15; i++)
		all[n++] = more[i];
	memset(&all[n], 0, sizeof(all[n]));
	*opt_out = 0;
	while ((c = getopt_long(argc, argv, "s:jh", all, NULL)) != -1) {
		switch (c) {
		case 's':
			o->socket = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			printf("usage: skinctl %s [--socket PATH] [--json] %s\n", name,
			       extra);
			return 1;
		case '?':
			return -1;
		default:
			*opt_out = c;	/* the caller's own option */
			return 2;
		}
	}
	return 0;
}

int cmd_status(int argc, char **argv)
{
	struct common o = { 0 };
	struct skin_client *c;
	int r, opt;

	r = parse_common(argc, argv, "status", "", NULL, &opt, &o);
	if (r)
		return r > 0 ? 0 : 2;
	c = connect_or_say("status", o.socket);
	if (!c)
		return 1;
	r = (o.json && run(c, "status", "format json")) ||
	    run(c, "status", "status") || run(c, "status", "buses") ||
	    run(c, "status", "parts");
	skin_client_close(c);
	return r;
}

int cmd_contacts(int argc, char **argv)
{
	static struct option more[] = {
		{ "watch", no_argument, NULL, 'w' },
		{ "rate", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *part, *rate = NULL;
	struct common o = { 0 };
	struct skin_client *c;
	int watch = 0, r, opt;
	char cmd[256];

	for (;;) {
		r = parse_common(argc, argv, "contacts",
				 "[--watch [--rate HZ]] [PART]", more, &opt, &o);
		if (r != 2)
			break;
		if (opt == 'w')
			watch = 1;
		else if (opt == 'r')
			rate = optarg;
	}
	if (r)
		return r > 0 ? 0 : 2;
	if (optind < argc - 1) {
		fprintf(stderr, "skinctl contacts: one PART at most\n");
		return 2;
	}
	part = optind < argc ? argv[optind] : NULL;
	c = connect_or_say("contacts", o.socket);
	if (!c)
		return 1;
	if (o.json && run(c, "contacts", "format json")) {
		skin_client_close(c);
		return 1;
	}
	if (!watch) {
		snprintf(cmd, sizeof(cmd), "contacts%s%s", part ? " " : "",
			 part ? part : "");
		r = run(c, "contacts", cmd);
		skin_client_close(c);
		return r;
	}
	snprintf(cmd, sizeof(cmd), "subscribe contacts %s%s%s", part ? part : "all",
		 rate ? " " : "", rate ? rate : "");
	r = run(c, "contacts", cmd);
	while (!r) {
		const char *line;
		int n = skin_client_read_line(c, &line, -1);

		if (n < 0) {
			fprintf(stderr, "skinctl contacts: %s\n",
				n == -ECONNRESET ? "skind closed the connection" :
				strerror(-n));
			r = 1;
			break;
		}
		puts(line);
		fflush(stdout);
	}
	skin_client_close(c);
	return r;
}

int cmd_calibrate(int argc, char **argv)
{
	static struct option more[] = {
		{ "wait", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct common o = { 0 };
	struct skin_client *c;
	int wait = 0, r, opt;
	unsigned int waiting = 0;
	char cmd[256];

	for (;;) {
		r = parse_common(argc, argv, "calibrate", "[--wait] [PART]", more,
				 &opt, &o);
		if (r != 2)
			break;
		if (opt == 'W')
			wait = 1;
	}
	if (r)
		return r > 0 ? 0 : 2;
	if (optind < argc - 1) {
		fprintf(stderr, "skinctl calibrate: one PART at most\n");
		return 2;
	}
	c = connect_or_say("calibrate", o.socket);
	if (!c)
		return 1;
	if (wait && optind == argc) {
		/* every part: as many answers as there are parts */
		struct skin_shm_map m;

		if (skin_client_shm(c, &m) == 0) {
			waiting = skin_shm_n_parts(&m);
			skin_shm_close(&m);
		}
	} else if (wait) {
		waiting = 1;
	}
	snprintf(cmd, sizeof(cmd), "calibrate%s%s", optind < argc ? " " : "",
		 optind < argc ? argv[optind] : "");
	r = run(c, "calibrate", cmd);
	while (!r && waiting) {
		const char *line;
		int n = skin_client_read_line(c, &line, -1);

		if (n < 0) {
			fprintf(stderr, "skinctl calibrate: %s\n", strerror(-n));
			r = 1;
			break;
		}
		puts(line);
		if (!strncmp(line, "calibration-failed ", 19) ||
		    strstr(line, "\"type\":\"calibration-failed\"")) {
			r = 1;
			waiting--;
		} else if (!strncmp(line, "calibrated ", 11) ||
			   strstr(line, "\"type\":\"calibrated\"")) {
			waiting--;
		}
	}
	skin_client_close(c);
	return r;
}
