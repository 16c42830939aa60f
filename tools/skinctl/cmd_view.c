// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl view, snapshot - a part's 2D layout as a live heat map
 *
 *	skinctl view PART [SOURCE] [--once] [--rate HZ] [--size WxH]
 *			  [--no-color | --color 256|truecolor] [--layout FILE]
 *	skinctl snapshot PART [SOURCE] --svg FILE [--layout FILE]
 *
 * SOURCE is skind's shared memory (the default: the descriptor its socket
 * passes, --socket PATH or $SKIN_SOCKET; or the object by name, --shm
 * PATH), with the layout from --config (skind's configuration, default
 * /etc/skin/skind.conf); or, offline, --config CONF --log LOG [--sample
 * N]: the candump log processed as `skinctl process` does (lib/replay),
 * showing the part's Nth output sample (default: the last).  Live, the
 * log plays at its own pace from sample N.
 *
 * The pictures are render.c's, the frames the sources' (view_source.h);
 * this file parses the command line and does the rest of the I/O: the
 * terminal (alternate screen, keys, signals) and the SVG file.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <skin/client.h>
#include <skin/model.h>

#include "render.h"
#include "skin_replay.h"
#include "skinctl.h"
#include "view_source.h"

struct view_opts {
	struct view_source_opts src;	/* who, part, config, shm, socket, replay */
	const char *layout;
	const char *svg;
	enum skin_flatten_mode proj;
	uint64_t sample;		/* 0: the last */
	bool snapshot;
	bool once;
	double rate;
	unsigned int cols, rows;	/* 0: the terminal's */
	int color;			/* -1: decide */
};

/* --- the layout -------------------------------------------------------- */

static int layout_make(struct view_layout *l, const struct view_source *s,
		       const struct view_opts *o)
{
	const struct skin_part *sp = &s->m->parts[s->part];
	struct skin_model *lm;
	struct skin_error err;
	char why[512];
	unsigned int i;
	int part = 0;

	if (!o->layout) {
		if (view_layout_build(l, s->m, s->part, o->proj, why,
				      sizeof(why))) {
			fprintf(stderr, "%s: %s\n", s->who, why);
			return -1;
		}
		return 0;
	}
	/* another file's geometry for the drawing (e.g. the skinGui .ini of
	 * a part whose config gives 3D positions): same vector, same kinds */
	lm = skin_model_load(o->layout, SKIN_FORMAT_AUTO, &err);
	if (!lm) {
		fprintf(stderr, "%s: --layout: %s\n", s->who, err.text);
		return -1;
	}
	if (lm->n_parts > 1)
		part = skin_replay_part_find(lm, sp->name);
	if (part < 0 || !lm->n_parts || lm->parts[part].n_taxels != sp->n_taxels) {
		fprintf(stderr, "%s: --layout %s: no part of %u taxels%s%s to draw part %s with\n",
			s->who, o->layout, sp->n_taxels, lm->n_parts > 1 ? " named " : "",
			lm->n_parts > 1 ? sp->name : "", sp->name);
		skin_model_free(lm);
		return -1;
	}
	if (view_layout_build(l, lm, (unsigned int)part, o->proj, why, sizeof(why))) {
		fprintf(stderr, "%s: --layout %s: %s\n", s->who, o->layout, why);
		skin_model_free(lm);
		return -1;
	}
	for (i = 0; i < sp->n_taxels; i++)
		l->kind[i] = (unsigned char)s->m->taxels[sp->first_taxel + i].kind;
	view_layout_finish(l);
	skin_model_free(lm);
	return 0;
}

/* --- output ------------------------------------------------------------ */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_svg(const char *who, const char *path,
		     const struct view_layout *l, const struct view_frame *f)
{
	FILE *out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int bad;

	if (!out) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	bad = view_render_svg(out, l, f) != 0;
	bad |= (out == stdout ? fflush(out) : fclose(out)) != 0;
	if (bad) {
		fprintf(stderr, "%s: writing %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A text frame, built whole in memory so that it reaches the terminal in
 * one write: 0, or -1 (too small, out of memory). */
static int text_frame(char **text, size_t *len, const struct view_layout *l,
		      const struct view_frame *f, const struct view_text_opts *o)
{
	FILE *mem = open_memstream(text, len);
	int r;

	if (!mem)
		return -1;
	r = view_render_text(mem, l, f, o);
	if (fclose(mem) || r) {
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

static enum view_color pick_color(int forced)
{
	const char *term = getenv("TERM"), *ct = getenv("COLORTERM");

	if (forced >= 0)
		return (enum view_color)forced;
	if (!isatty(STDOUT_FILENO) || !term || !strcmp(term, "dumb") || getenv("NO_COLOR"))
		return VIEW_COLOR_NONE;
	if (ct && (!strcmp(ct, "truecolor") || !strcmp(ct, "24bit")))
		return VIEW_COLOR_TRUE;
	return VIEW_COLOR_256;
}

static void term_size(const struct view_opts *o, unsigned int *cols,
		      unsigned int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (o->cols) {
		*cols = o->cols;
		*rows = o->rows;
	} else if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
	if (*cols > 1000)
		*cols = 1000;
	if (*rows > 1000)
		*rows = 1000;
}

/* --- the live terminal ------------------------------------------------- */

static volatile sig_atomic_t quit_signal, resized;

static void on_quit(int sig)
{
	quit_signal = sig;
}

static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

static int live(struct view_source *s, const struct view_layout *l,
		const struct view_opts *o)
{
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";
	static const char leave[] = "\033[0m\033[?25h\033[?1049l";
	struct view_text_opts to = {
		.eol = "\033[K\n", .last_eol = "\033[K", .hint = "q quits",
	};
	struct sigaction sa, old_int, old_term, old_hup, old_winch;
	struct termios tio, saved;
	bool raw = false, drawn = false;
	int keys_fd = STDIN_FILENO;
	int rc = 0, timeout = (int)lround(1000 / o->rate);

	if (!isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: standard output is not a terminal: use --once, or snapshot --svg\n",
			s->who);
		return 1;
	}
	to.color = pick_color(o->color);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit;	/* no SA_RESTART: poll() returns */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, &old_winch);
	if (isatty(STDIN_FILENO) && !tcgetattr(STDIN_FILENO, &saved)) {
		tio = saved;
		tio.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tio.c_cc[VMIN] = 0;
		tio.c_cc[VTIME] = 0;
		raw = !tcsetattr(STDIN_FILENO, TCSANOW, &tio);
	}
	write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
	s->ops->set_live(s, true);
	while (!quit_signal) {
		struct pollfd pfd = { .fd = keys_fd, .events = POLLIN };
		char *text;
		size_t len;
		int n;

		n = s->ops->update(s);
		if (n < 0) {
			rc = 1;
			break;
		}
		if (n > 0 || resized || !drawn) {
			resized = 0;
			drawn = true;
			term_size(o, &to.cols, &to.rows);
			if (to.cols < 16 || to.rows < 4) {
				static const char small[] = "\033[H\033[2Jterminal too small";

				write_all(STDOUT_FILENO, small, sizeof(small) - 1);
			} else if (!text_frame(&text, &len, l, &s->frame, &to)) {
				write_all(STDOUT_FILENO, "\033[H", 3);
				write_all(STDOUT_FILENO, text, len);
				write_all(STDOUT_FILENO, "\033[J", 3);
				free(text);
			}
		}
		n = poll(&pfd, 1, timeout);
		if (n > 0 && (pfd.revents & POLLIN)) {
			char keys[64];
			ssize_t k = read(STDIN_FILENO, keys, sizeof(keys)), i;

			for (i = 0; i < k; i++)
				if (keys[i] == 'q' || keys[i] == 'Q' || keys[i] == 3)
					quit_signal = SIGINT;
			if (k == 0 && !raw)
				keys_fd = -1;	/* stdin at its end: no more keys */
		} else if (n > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			keys_fd = -1;
		}
	}
	write_all(STDOUT_FILENO, leave, sizeof(leave) - 1);
	s->ops->set_live(s, false);
	if (s->err[0])
		fprintf(stderr, "%s\n", s->err);
	if (raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGWINCH, &old_winch, NULL);
	return rc;
}

/* --- the commands ------------------------------------------------------ */

static void usage(FILE *fp, bool snapshot)
{
	if (snapshot)
		fprintf(fp, "usage: skinctl snapshot PART --svg FILE [--layout FILE]\n"
			    "                        [--projection auto|plane|cylinder] [SOURCE]\n");
	else
		fprintf(fp, "usage: skinctl view PART [--once] [--rate HZ] [--size WxH]\n"
			    "                    [--no-color | --color 256|truecolor|none]\n"
			    "                    [--layout FILE] [--projection auto|plane|cylinder] [SOURCE]\n");
	fprintf(fp,
		"SOURCE: skind's shared memory (the default)\n"
		"          [--config CONF] [--socket PATH | --shm PATH]\n"
		"    or: a candump -l log processed as `skinctl process` does\n"
		"          --config CONF --log LOG [--sample N] [--compat] [--set PARAM=VALUE]...\n"
		"          [--calibration FILE]\n"
		"  --config CONF   skind.conf giving the part's layout (default " VIEW_DEFAULT_CONFIG ")\n"
		"  --socket PATH   skind's socket (default $SKIN_SOCKET, else " SKIN_SOCKET_PATH ")\n"
		"  --shm PATH      skind's shared memory by name (e.g. " SKIN_SHM_PATH ")\n"
		"  --sample N      the part's Nth output sample of the log (default: the last%s)\n"
		"  --layout FILE   draw with this geometry file's positions (e.g. a skinGui .ini)\n"
		"  --projection P  3D positions to 2D: auto unrolls a part that wraps around an\n"
		"                  axis (an arm) and projects the others on their best-fit plane\n",
		snapshot ? "" : ";\n                  live, the log plays at its own pace from there");
	if (snapshot)
		fprintf(fp, "  --svg FILE      write the picture there (\"-\": standard output)\n");
	else
		fprintf(fp,
			"  --once          print one frame and exit (plain ASCII unless --color)\n"
			"  --rate HZ       live refresh rate (default 20); q or Ctrl-C quits\n"
			"  --size WxH      frame size in characters (default: the terminal's)\n"
			"  --no-color      plain ASCII (also without a terminal, TERM=dumb, NO_COLOR)\n"
			"  --color MODE    256 colours, truecolor (default with COLORTERM=truecolor)\n");
	fprintf(fp, "docs/SKINCTL.md has the details.\n");
}

static int parse_size(const char *s, unsigned int *w, unsigned int *h)
{
	char *end;
	unsigned long a, b;

	errno = 0;
	a = strtoul(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		return -1;
	s = end + 1;
	b = strtoul(s, &end, 10);
	if (end == s || *end || errno || a < 16 || b < 4 || a > 1000 || b > 1000)
		return -1;
	*w = (unsigned int)a;
	*h = (unsigned int)b;
	return 0;
}

/*
 * The command line into @o: -1 to go on, else the exit status (after
 * --help, or an error said).  o->src.replay.sets is allocated: the caller
 * frees it.
 */
static int view_parse(struct view_opts *o, int argc, char **argv, bool snapshot)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "log", required_argument, NULL, 'l' },
		{ "sample", required_argument, NULL, 'n' },
		{ "compat", no_argument, NULL, 'C' },
		{ "set", required_argument, NULL, 'S' },
		{ "calibration", required_argument, NULL, 'K' },
		{ "layout", required_argument, NULL, 'L' },
		{ "projection", required_argument, NULL, 'P' },
		{ "shm", required_argument, NULL, 'm' },
		{ "socket", required_argument, NULL, 's' },
		{ "svg", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, '1' },
		{ "rate", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'z' },
		{ "no-color", no_argument, NULL, 'N' },
		{ "color", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct skin_replay_opts *rp = &o->src.replay;
	const char *who = snapshot ? "skinctl snapshot" : "skinctl view";
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->rate = 20;
	o->color = -1;
	o->snapshot = snapshot;
	o->src.who = who;
	rp->who = who;
	rp->sets = calloc((size_t)argc + 1, sizeof(*rp->sets));
	if (!rp->sets)
		return 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->src.config = optarg;
			break;
		case 'l':
			rp->log = optarg;
			break;
		case 'n':
			errno = 0;
			o->sample = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || !o->sample || optarg[0] == '-') {
				fprintf(stderr, "%s: --sample '%s': expected a sample number from 1\n",
					who, optarg);
				return 2;
			}
			break;
		case 'C':
			rp->compat = true;
			break;
		case 'S':
			rp->sets[rp->n_sets++] = optarg;
			break;
		case 'K':
			rp->calibration = optarg;
			break;
		case 'L':
			o->layout = optarg;
			break;
		case 'P':
			if (!strcmp(optarg, "auto")) {
				o->proj = SKIN_FLATTEN_AUTO;
			} else if (!strcmp(optarg, "plane")) {
				o->proj = SKIN_FLATTEN_TO_PLANE;
			} else if (!strcmp(optarg, "cylinder")) {
				o->proj = SKIN_FLATTEN_TO_CYLINDER;
			} else {
				fprintf(stderr, "%s: --projection '%s': expected auto, plane or cylinder\n",
					who, optarg);
				return 2;
			}
			break;
		case 'm':
			o->src.shm = optarg;
			break;
		case 's':
			o->src.socket = optarg;
			break;
		case 'g':
			o->svg = optarg;
			break;
		case '1':
			o->once = true;
			break;
		case 'r':
			errno = 0;
			o->rate = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(o->rate >= 0.1 && o->rate <= 1000)) {
				fprintf(stderr, "%s: --rate '%s': expected hertz from 0.1 to 1000\n",
					who, optarg);
				return 2;
			}
			break;
		case 'z':
			if (parse_size(optarg, &o->cols, &o->rows)) {
				fprintf(stderr, "%s: --size '%s': expected WxH, at least 16x4 and at most 1000x1000\n",
					who, optarg);
				return 2;
			}
			break;
		case 'N':
			o->color = VIEW_COLOR_NONE;
			break;
		case 'k':
			if (!strcmp(optarg, "256")) {
				o->color = VIEW_COLOR_256;
			} else if (!strcmp(optarg, "truecolor") || !strcmp(optarg, "24bit")) {
				o->color = VIEW_COLOR_TRUE;
			} else if (!strcmp(optarg, "none")) {
				o->color = VIEW_COLOR_NONE;
			} else {
				fprintf(stderr, "%s: --color '%s': expected 256, truecolor or none\n",
					who, optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout, snapshot);
			return 0;
		default:
			usage(stderr, snapshot);
			return 2;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "%s: expected one PART\n", who);
		usage(stderr, snapshot);
		return 2;
	}
	o->src.part = argv[optind];
	if (snapshot && !o->svg) {
		fprintf(stderr, "%s: --svg FILE is required\n", who);
		return 2;
	}
	if (!snapshot && o->svg) {
		fprintf(stderr, "%s: --svg belongs to skinctl snapshot\n", who);
		return 2;
	}
	if (rp->log && (o->src.shm || o->src.socket)) {
		fprintf(stderr, "%s: --log reads a recording: --shm and --socket read skind\n",
			who);
		return 2;
	}
	if (!rp->log && (o->sample || rp->compat || rp->n_sets ||
		       rp->calibration)) {
		fprintf(stderr, "%s: --sample, --compat, --set and --calibration go with --log\n",
			who);
		return 2;
	}
	if (rp->log && !o->src.config) {
		fprintf(stderr, "%s: --log needs --config (the skind.conf the log was recorded with)\n",
			who);
		return 2;
	}
	rp->config = o->src.config;
	return -1;
}

/* The parsed command: 0, or the exit status of an error said. */
static int view_run(const struct view_opts *o)
{
	const char *who = o->src.who;
	struct view_layout l = { 0 };
	struct view_source *s;
	int rc = 1;

	s = o->src.replay.log ? view_log_open(&o->src) : view_shm_open(&o->src);
	if (!s)
		return 1;
	if (layout_make(&l, s, o))
		goto out;
	/* the first frame: the sample asked for (a log), or the newest */
	if (s->ops->first(s, o->sample, o->once || o->snapshot))
		goto out;
	if (o->snapshot) {
		if (write_svg(who, o->svg, &l, &s->frame))
			goto out;
		rc = 0;
	} else if (o->once) {
		struct view_text_opts to = {
			.color = o->color < 0 ? VIEW_COLOR_NONE : (enum view_color)o->color,
		};
		char *text;
		size_t len;

		term_size(o, &to.cols, &to.rows);
		if (text_frame(&text, &len, &l, &s->frame, &to)) {
			fprintf(stderr, "%s: a frame needs at least 16x4 characters\n", who);
			goto out;
		}
		rc = write_all(STDOUT_FILENO, text, len) ? 1 : 0;
		free(text);
	} else {
		rc = live(s, &l, o);
	}
	if (rc == 0 && s->ops->rejected(s))
		rc = 1;		/* bad lines were said and skipped */
out:
	view_layout_free(&l);
	s->ops->close(s);
	return rc;
}

static int run_view(int argc, char **argv, bool snapshot)
{
	struct view_opts o;
	int rc = view_parse(&o, argc, argv, snapshot);

	if (rc < 0)
		rc = view_run(&o);
	free(o.src.replay.sets);
	return rc;
}

int cmd_view(int argc, char **argv)
{
	return run_view(argc, argv, false);
}

int cmd_snapshot(int argc, char **argv)
{
	return run_view(argc, argv, true);
}
