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
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <skin/client.h>

#include "skin_clock.h"
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

/* --- calibrate ----------------------------------------------------------- */

/*
 * Progress on a terminal.  skind says how long a calibration takes (its
 * "ok calibrating PART S s") and when each part is done; how far one is
 * comes from its shared memory: lib/proc collects round(calibration_s x
 * 1000 / period_ms) samples of each board of the part (skind's period_ms
 * is the boards' period, `get period_ms`), and the part's sample counter
 * moves once per board sample, calibrating or not.  The slowest board
 * decides; the counter says the sum, so this is an estimate, exact when
 * the boards stream alike.
 */
struct cal_part {
	unsigned int index;		/* in the shm */
	uint64_t start;			/* its samples when asked */
	bool done;
};

struct cal_progress {
	struct skin_shm_map m;
	bool mapped;
	void *buf;			/* a part's block */
	struct cal_part *parts;
	unsigned int n_parts, n_done;
	unsigned int needed;		/* samples per board; 0: unknown */
	const char *name;		/* the part, or NULL: every part */
	bool shown;			/* a progress line is on the terminal */
};

static void param_line(const char *line, void *data)
{
	double *v = data;
	char name[64];

	if (sscanf(line, "param %63s %lf", name, v) != 2)
		*v = 0;
}

static double get_param(struct skin_client *c, const char *name)
{
	char cmd[64], why[256];
	double v = 0;

	snprintf(cmd, sizeof(cmd), "get %s", name);
	if (skin_client_command(c, cmd, param_line, &v, why, sizeof(why)))
		return 0;
	return v;
}

static bool part_head(struct cal_progress *p, unsigned int i,
		      struct skin_shm_part *head)
{
	if (skin_shm_read_part(&p->m, i, p->buf, 1000))
		return false;
	*head = *skin_shm_head(p->buf);
	return true;
}

/* Before the command: what to follow, where its counters start. */
static void progress_init(struct cal_progress *p, struct skin_client *c,
			  const char *part)
{
	double cal_s = get_param(c, "calibration_s");
	double period = get_param(c, "period_ms");
	struct skin_shm_part head;
	size_t size = 0;
	unsigned int i, n;

	memset(p, 0, sizeof(*p));
	p->name = part;
	if (cal_s > 0 && period > 0)
		p->needed = (unsigned int)lround(cal_s * 1000 / period);
	if (skin_client_shm(c, &p->m))
		return;
	p->mapped = true;
	n = skin_shm_n_parts(&p->m);
	for (i = 0; i < n; i++)
		if (skin_shm_part(&p->m, i)->size > size)
			size = skin_shm_part(&p->m, i)->size;
	p->buf = malloc(size ? size : 1);
	p->parts = calloc(n ? n : 1, sizeof(*p->parts));
	if (!p->buf || !p->parts)
		return;
	for (i = 0; i < n; i++) {
		if (part && strcmp(skin_shm_part(&p->m, i)->name, part))
			continue;
		if (!part_head(p, i, &head))
			continue;
		p->parts[p->n_parts].index = i;
		p->parts[p->n_parts].start = head.samples;
		p->n_parts++;
	}
}

/* The line, in place: "calibrating left_hand: 37 of 50 samples ...". */
static void progress_show(struct cal_progress *p, double elapsed)
{
	unsigned int i, least = UINT_MAX, attached = 0, boards = 0;
	struct winsize ws;
	char line[256];
	int n;

	for (i = 0; i < p->n_parts; i++) {
		const struct skin_shm_part_desc *d;
		struct skin_shm_part head;
		uint64_t got;

		if (p->parts[i].done || !part_head(p, p->parts[i].index, &head))
			continue;
		d = skin_shm_part(&p->m, p->parts[i].index);
		got = (head.samples - p->parts[i].start) / (d->n_patches ? d->n_patches : 1);
		if (p->needed && got > p->needed)
			got = p->needed;
		if (got < least)
			least = (unsigned int)got;
		attached += head.patches_attached;
		boards += d->n_patches;
	}
	if (p->name)
		n = snprintf(line, sizeof(line), "calibrating %s:", p->name);
	else if (p->n_parts)
		n = snprintf(line, sizeof(line), "calibrating %u parts, %u done:",
			     p->n_parts, p->n_done);
	else
		n = snprintf(line, sizeof(line), "calibrating every part:");
	if (least != UINT_MAX && p->needed)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      " %u of %u samples", least, p->needed);
	n += snprintf(line + n, sizeof(line) - (size_t)n, ", %.1f s", elapsed);
	if (attached < boards)
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      ", %u of %u boards attached", attached, boards);
	snprintf(line + n, sizeof(line) - (size_t)n, " (do not touch the skin)");
	/* one row: a wrapped line would not be redrawn in place by \r */
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 1 &&
	    strlen(line) >= ws.ws_col)
		line[ws.ws_col - 1] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	p->shown = true;
}

static void progress_clear(struct cal_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = false;
}

/* "calibrated NAME", "calibration-failed NAME WHY" or their JSON */
static void progress_done(struct cal_progress *p, const char *line)
{
	const char *name = strstr(line, "\"part\":\"");
	size_t len;
	unsigned int i;

	if (name) {
		name += 8;
		len = strcspn(name, "\"");
	} else {
		name = strchr(line, ' ');
		if (!name)
			return;
		name++;
		len = strcspn(name, " ");
	}
	for (i = 0; i < p->n_parts; i++) {
		const char *pn = skin_shm_part(&p->m, p->parts[i].index)->name;

		if (!p->parts[i].done && strlen(pn) == len && !strncmp(pn, name, len)) {
			p->parts[i].done = true;
			p->n_done++;
			return;
		}
	}
}

static void progress_free(struct cal_progress *p)
{
	free(p->buf);
	free(p->parts);
	if (p->mapped)
		skin_shm_close(&p->m);
}

static double now_s(void)
{
	return (double)clock_monotonic_ns() / 1e9;
}

int cmd_calibrate(int argc, char **argv)
{
	static struct option more[] = {
		{ "wait", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct common o = { 0 };
	struct cal_progress prog;
	struct skin_client *c;
	int wait = 0, r, opt;
	unsigned int waiting = 0;
	bool tty = isatty(STDERR_FILENO);
	const char *part;
	char cmd[256], why[256];
	double t0;

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
	part = optind < argc ? argv[optind] : NULL;
	c = connect_or_say("calibrate", o.socket);
	if (!c)
		return 1;
	memset(&prog, 0, sizeof(prog));
	if (wait && !part) {
		/* every part: as many answers as there are parts */
		struct skin_shm_map m;

		if (skin_client_shm(c, &m) == 0) {
			waiting = skin_shm_n_parts(&m);
			skin_shm_close(&m);
		}
	} else if (wait) {
		waiting = 1;
	}
	if (wait && tty)
		progress_init(&prog, c, part);
	snprintf(cmd, sizeof(cmd), "calibrate%s%s", part ? " " : "",
		 part ? part : "");
	r = skin_client_command(c, cmd, print_line, NULL, why, sizeof(why));
	if (r == -EPROTO) {
		fprintf(stderr, "skinctl calibrate: skind: %s\n", why);
		r = 1;
	} else if (r < 0) {
		fprintf(stderr, "skinctl calibrate: %s\n", strerror(-r));
		r = 1;
	} else if (!wait && tty) {
		/* skind's "calibrating PART S s": the person at the terminal
		 * is not to touch the skin meanwhile */
		fprintf(stderr, "skinctl calibrate: skind: %s (do not touch the skin; --wait follows it)\n",
			why);
	}
	t0 = now_s();
	while (!r && waiting) {
		const char *line;
		int n;

		if (wait && tty)
			progress_show(&prog, now_s() - t0);
		n = skin_client_read_line(c, &line, tty ? 100 : -1);
		if (n == 0)
			continue;
		progress_clear(&prog);
		if (n < 0) {
			fprintf(stderr, "skinctl calibrate: %s\n", strerror(-n));
			r = 1;
			break;
		}
		puts(line);
		fflush(stdout);
		if (!strncmp(line, "calibration-failed ", 19) ||
		    strstr(line, "\"type\":\"calibration-failed\"")) {
			r = 1;
			waiting--;
			progress_done(&prog, line);
		} else if (!strncmp(line, "calibrated ", 11) ||
			   strstr(line, "\"type\":\"calibrated\"")) {
			waiting--;
			progress_done(&prog, line);
		}
	}
	progress_clear(&prog);
	progress_free(&prog);
	skin_client_close(c);
	return r;
}
