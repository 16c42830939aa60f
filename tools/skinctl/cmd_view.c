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
 * N]: the candump log processed as `skinctl process` does (replay.c),
 * showing the part's Nth output sample (default: the last).  Live, the
 * log plays at its own pace from sample N.
 *
 * The pictures are render.c's; this file does the I/O: the sources, the
 * terminal (alternate screen, keys, signals) and the SVG file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <skin/client.h>
#include <skin/model.h>
#include <skin/proc.h>

#include "render.h"
#include "replay.h"
#include "skinctl.h"

#define DEFAULT_CONFIG	"/etc/skin/skind.conf"

struct view_opts {
	const char *who;
	const char *part;
	const char *config;
	const char *log;
	const char *layout;
	const char *shm;
	const char *socket;
	const char *svg;
	enum skin_flatten_mode proj;
	uint64_t sample;		/* 0: the last */
	struct skinctl_replay_opts replay;
	bool once;
	double rate;
	unsigned int cols, rows;	/* 0: the terminal's */
	int color;			/* -1: decide */
};

struct source {
	const char *who;
	/* the model the layout comes from */
	struct skin_config *cfg;
	struct skin_model *own_model;
	const struct skin_model *m;
	int part;
	unsigned int n;
	/* skind's shm */
	const char *shm_path, *socket;
	struct skin_shm_map map;
	bool mapped;
	int shm_part;
	void *buf;
	size_t buf_size;
	uint64_t last_seq;
	bool live;			/* on the alternate screen: errors wait
					 * in err until it is left */
	bool waiting;			/* skind went away: trying again */
	bool stale;			/* its heartbeat stopped */
	char err[768];
	/* a log */
	struct skinctl_replay *rp;
	uint64_t outputs;		/* output samples of the part so far */
	uint64_t t0_log;		/* live playback: log time at t0_wall */
	double t0_wall;
	bool ended;
	/* the frame, in arrays owned here */
	double *values;
	uint8_t *touched;
	struct view_contact *contacts;
	uint32_t *ctaxels;
	unsigned int max_contacts;
	char source_text[600];
	char state[32];
	struct view_frame frame;
	bool have_frame;
};

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- frame arrays ------------------------------------------------------ */

static int frame_alloc(struct source *s)
{
	unsigned int n = s->n ? s->n : 1;

	s->max_contacts = n;
	s->values = calloc(n, sizeof(*s->values));
	s->touched = calloc(n, sizeof(*s->touched));
	s->contacts = calloc(n, sizeof(*s->contacts));
	s->ctaxels = calloc(n, sizeof(*s->ctaxels));
	if (!s->values || !s->touched || !s->contacts || !s->ctaxels) {
		fprintf(stderr, "%s: out of memory\n", s->who);
		return -1;
	}
	s->frame.part = s->m->parts[s->part].name;
	s->frame.source = s->source_text;
	s->frame.values = s->values;
	s->frame.touched = s->touched;
	s->frame.contacts = s->contacts;
	s->frame.state = s->state;
	return 0;
}

/* --- the log ----------------------------------------------------------- */

static void frame_from_proc(struct source *s, const struct skinctl_sample *smp)
{
	const struct skin_contact *c;
	const double *v = skin_proc_values(s->rp->p, (unsigned int)s->part);
	const uint8_t *t = skin_proc_touched(s->rp->p, (unsigned int)s->part);
	unsigned int n = skin_proc_contacts(s->rp->p, (unsigned int)s->part, &c);
	unsigned int i, k, used = 0;

	memcpy(s->values, v, s->n * sizeof(*v));
	memcpy(s->touched, t, s->n);
	s->frame.n_contacts = 0;
	for (i = 0; i < n; i++) {
		struct view_contact *vc = &s->contacts[s->frame.n_contacts];

		/* contacts are disjoint sets of the part's taxels */
		if (used + c[i].n_taxels > s->n || s->frame.n_contacts >= s->max_contacts)
			break;
		vc->id = c[i].id;
		vc->pressure = c[i].pressure;
		vc->n_taxels = c[i].n_taxels;
		vc->taxels = &s->ctaxels[used];
		for (k = 0; k < c[i].n_taxels; k++)
			s->ctaxels[used++] = c[i].taxels[k];
		s->frame.n_contacts++;
	}
	s->frame.sample = s->outputs;
	s->frame.time_s = smp->ts_ns / 1e9;
	snprintf(s->state, sizeof(s->state), "running");
	s->have_frame = true;
}

/*
 * Process the log up to the part's output sample @upto (0: to the end;
 * with @until_ns, up to the first output sample at or after that log
 * time).  1 when the frame changed, 0 when not, -1 on error.
 */
static int log_advance(struct source *s, uint64_t upto, uint64_t until_ns)
{
	struct skinctl_sample smp;
	int n, changed = 0;

	while (!s->ended && (!upto || s->outputs < upto)) {
		n = skinctl_replay_next(s->rp, &smp);
		if (n < 0)
			return -1;
		if (n == 0) {
			s->ended = true;
			changed = 1;	/* the status line says so */
			break;
		}
		if (!smp.output || (int)smp.part != s->part)
			continue;
		s->outputs++;
		frame_from_proc(s, &smp);
		changed = 1;
		if (until_ns && smp.ts_ns >= until_ns)
			break;
	}
	if (s->ended) {
		snprintf(s->state, sizeof(s->state), "end of log");
		if (!s->have_frame) {
			fprintf(stderr, "%s: %s has no output sample of part %s (%" PRIu64
				" samples, %u parts calibrated)\n", s->who, s->rp->log,
				s->frame.part, s->rp->published, s->rp->calibrated);
			return -1;
		}
	}
	return changed;
}

static int log_open(struct source *s, const struct view_opts *o)
{
	s->rp = skinctl_replay_open(&o->replay);
	if (!s->rp)
		return -1;
	s->m = s->rp->m;
	s->part = skinctl_part_find(s->m, o->part);
	if (s->part < 0) {
		fprintf(stderr, "%s: no part '%s' in %s\n", s->who, o->part, o->config);
		return -1;
	}
	s->n = s->m->parts[s->part].n_taxels;
	snprintf(s->source_text, sizeof(s->source_text), "log %s", o->log);
	return 0;
}

/* --- skind's shared memory --------------------------------------------- */

static __attribute__((format(printf, 2, 3)))
void say(struct source *s, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(s->err, sizeof(s->err), "%s: ", s->who);

	va_start(ap, fmt);
	vsnprintf(s->err + n, sizeof(s->err) - (size_t)n, fmt, ap);
	va_end(ap);
	if (!s->live) {
		fprintf(stderr, "%s\n", s->err);
		s->err[0] = '\0';
	}
}

static const char *socket_path(const struct source *s)
{
	if (s->socket)
		return s->socket;
	return getenv("SKIN_SOCKET") ? getenv("SKIN_SOCKET") : SKIN_SOCKET_PATH;
}

/* Map skind's object: 0, -1 for an error, -2 when skind is not there
 * (no socket to connect to, no object under the name). */
static int shm_map(struct source *s)
{
	const struct skin_shm_part_desc *d;
	struct skin_client *c;
	int r, err;

	if (s->shm_path) {
		r = skin_shm_open(&s->map, s->shm_path);
		snprintf(s->source_text, sizeof(s->source_text), "skind %s", s->shm_path);
	} else {
		c = skin_client_connect(s->socket, &err);
		if (!c) {
			say(s, "cannot reach skind at %s: %s (or give --shm PATH, or --log for a recording)",
			    socket_path(s), strerror(-err));
			return err == -ENOENT || err == -ECONNREFUSED ? -2 : -1;
		}
		r = skin_client_shm(c, &s->map);
		skin_client_close(c);
		snprintf(s->source_text, sizeof(s->source_text), "skind shm (socket %s)",
			 socket_path(s));
	}
	if (r < 0) {
		say(s, "skind's shared memory: %s",
		    r == -EPROTO ? "not a skind object of this version" : strerror(-r));
		return r == -ENOENT ? -2 : -1;
	}
	s->mapped = true;
	s->shm_part = skin_shm_find_part(&s->map, s->frame.part);
	if (s->shm_part < 0) {
		say(s, "skind has no part '%s'", s->frame.part);
		return -1;
	}
	d = skin_shm_part(&s->map, (unsigned int)s->shm_part);
	if (d->n_taxels != s->n) {
		say(s, "skind's part %s has %u taxels, %s says %u: give skind's configuration with --config",
		    s->frame.part, d->n_taxels, s->cfg->path, s->n);
		return -1;
	}
	free(s->buf);
	s->buf_size = d->size;
	s->buf = malloc(d->size);
	if (!s->buf) {
		say(s, "out of memory");
		return -1;
	}
	s->last_seq = 0;
	return 0;
}

/* Copy the part's newest publication: 1 new, 0 unchanged, -1 error. */
static int shm_read(struct source *s)
{
	const struct skin_shm_part *h;
	const float *v;
	const uint8_t *fl;
	const uint32_t *ct;
	unsigned int i, k, n, used = 0, p;
	int r;

	r = s->mapped ? skin_shm_check(&s->map) : 0;
	if (r == -ESTALE) {
		/* skind reloaded, stopped, or was replaced after a crash:
		 * the name's new object */
		skin_shm_close(&s->map);
		s->mapped = false;
		s->stale = false;
	} else if (r == -ETIMEDOUT && s->live) {
		/* killed or hung: keep the picture, say it is old, and keep
		 * watching (a new skind retires this object) */
		if (s->stale)
			return 0;
		s->stale = true;
		snprintf(s->state, sizeof(s->state), "skind not responding");
		return 1;
	} else if (s->stale) {
		s->stale = false;
		s->last_seq = UINT64_MAX;	/* beating again: redraw */
	}
	if (!s->mapped) {
		r = shm_map(s);
		if (r == -2 && s->live) {
			/* stopped: keep the last picture, try again */
			if (s->waiting)
				return 0;
			s->waiting = true;
			snprintf(s->state, sizeof(s->state), "waiting for skind");
			return 1;
		}
		if (r)
			return -1;
		s->waiting = false;
		s->err[0] = '\0';	/* what it said while it waited */
	}
	p = (unsigned int)s->shm_part;
	r = skin_shm_read_part(&s->map, p, s->buf, 1000);
	if (r == -EAGAIN)
		return 0;
	if (r < 0) {
		say(s, "reading the shm: %s", strerror(-r));
		return -1;
	}
	h = skin_shm_head(s->buf);
	if (s->have_frame && h->seq == s->last_seq)
		return 0;
	s->last_seq = h->seq;
	v = skin_shm_values(&s->map, p, s->buf);
	fl = skin_shm_flags(&s->map, p, s->buf);
	ct = skin_shm_contact_taxels(&s->map, p, s->buf);
	for (i = 0; i < s->n; i++) {
		s->values[i] = v[i];
		s->touched[i] = fl[i] & SKIN_SHM_TAXEL_TOUCHED;
	}
	n = h->n_contacts;
	if (n > skin_shm_part(&s->map, p)->max_contacts)
		n = skin_shm_part(&s->map, p)->max_contacts;
	s->frame.n_contacts = 0;
	for (i = 0; i < n && i < s->max_contacts; i++) {
		const struct skin_shm_contact *c = skin_shm_contact(&s->map, p, s->buf, i);
		struct view_contact *vc = &s->contacts[s->frame.n_contacts];

		if (!c || c->first_taxel > h->n_contact_taxels ||
		    c->n_taxels > h->n_contact_taxels - c->first_taxel ||
		    h->n_contact_taxels > s->n || used + c->n_taxels > s->n)
			continue;	/* not what skind writes: skip it */
		vc->id = c->id;
		vc->pressure = c->pressure;
		vc->n_taxels = c->n_taxels;
		vc->taxels = &s->ctaxels[used];
		for (k = 0; k < c->n_taxels; k++)
			s->ctaxels[used++] = ct[c->first_taxel + k];
		s->frame.n_contacts++;
	}
	s->frame.sample = h->samples;
	s->frame.time_s = h->frame_ts_ns / 1e9;
	snprintf(s->state, sizeof(s->state), "%s%s",
		 h->state & SKIN_SHM_PART_CALIBRATED ? "running" :
		 h->state & SKIN_SHM_PART_CALIBRATING ? "calibrating" : "uncalibrated",
		 h->state & SKIN_SHM_PART_ATTACHED ? "" : ", detached");
	s->have_frame = true;
	return 1;
}

static int shm_open_source(struct source *s, const struct view_opts *o)
{
	struct skin_error err;
	const char *conf = o->config ? o->config : DEFAULT_CONFIG;

	s->cfg = skin_config_load(conf, &err);
	if (!s->cfg || !(s->own_model = skin_config_build_model(s->cfg, &err))) {
		fprintf(stderr, "%s: %s%s\n", s->who, err.text, o->config ? "" :
			" (the layout comes from skind's configuration: --config FILE)");
		return -1;
	}
	s->m = s->own_model;
	s->part = skinctl_part_find(s->m, o->part);
	if (s->part < 0) {
		fprintf(stderr, "%s: no part '%s' in %s\n", s->who, o->part, conf);
		return -1;
	}
	s->n = s->m->parts[s->part].n_taxels;
	s->shm_path = o->shm;
	s->socket = o->socket;
	return 0;
}

static void source_close(struct source *s)
{
	if (s->mapped)
		skin_shm_close(&s->map);
	skinctl_replay_close(s->rp);
	skin_model_free(s->own_model);
	skin_config_free(s->cfg);
	free(s->buf);
	free(s->values);
	free(s->touched);
	free(s->contacts);
	free(s->ctaxels);
}

static int source_open(struct source *s, const struct view_opts *o)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->who = o->who;
	r = o->log ? log_open(s, o) : shm_open_source(s, o);
	if (r || frame_alloc(s))
		return -1;
	if (o->log)
		return 0;
	return shm_map(s);
}

/* --- the layout -------------------------------------------------------- */

static int layout_make(struct view_layout *l, const struct source *s,
		       const struct view_opts *o)
{
	const struct skin_part *sp = &s->m->parts[s->part];
	struct skin_model *lm;
	struct skin_error err;
	char why[512];
	unsigned int i;
	int part = 0;

	if (!o->layout) {
		if (view_layout_build(l, s->m, (unsigned int)s->part, o->proj, why,
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
		part = skinctl_part_find(lm, sp->name);
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

static int live(struct source *s, const struct view_layout *l,
		const struct view_opts *o)
{
	static const char enter[] = "\033[?1049h\033[?25l\033[H\033[2J";
	static const char leave[] = "\033[0m\033[?25h\033[?1049l";
	struct view_text_opts to = { .eol = "\033[K\n", .hint = "q quits" };
	struct sigaction sa, old_int, old_term, old_hup, old_winch;
	struct termios tio, saved;
	bool raw = false, drawn = false;
	int keys_fd = STDIN_FILENO;
	FILE *msgs = NULL;
	char *msg_text = NULL;
	size_t msg_len = 0;
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
	if (s->rp) {
		/* the log's messages wait until the screen is ours again */
		msgs = open_memstream(&msg_text, &msg_len);
		if (msgs)
			s->rp->msg = msgs;
	}
	write_all(STDOUT_FILENO, enter, sizeof(enter) - 1);
	s->live = true;
	if (o->log)
		s->t0_wall = wall_s();
	while (!quit_signal) {
		struct pollfd pfd = { .fd = keys_fd, .events = POLLIN };
		char *text;
		size_t len;
		int n;

		if (o->log) {
			uint64_t until = s->t0_log +
				(uint64_t)((wall_s() - s->t0_wall) * 1e9);

			/* the sample asked for first, then the log's pace */
			n = drawn ? log_advance(s, 0, until) : 0;
		} else {
			n = shm_read(s);
		}
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
	s->live = false;
	if (msgs) {
		s->rp->msg = stderr;
		if (!fclose(msgs))
			fputs(msg_text, stderr);
		free(msg_text);
	}
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
		"  --config CONF   skind.conf giving the part's layout (default " DEFAULT_CONFIG ")\n"
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

static int run_view(int argc, char **argv, bool snapshot)
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
	struct view_opts o = { .rate = 20, .color = -1 };
	struct view_layout l = { 0 };
	struct source s;
	char *end;
	int opt, rc = 2, r;

	o.who = snapshot ? "skinctl snapshot" : "skinctl view";
	o.replay.who = o.who;
	o.replay.sets = calloc((size_t)argc + 1, sizeof(*o.replay.sets));
	if (!o.replay.sets)
		return 1;
	memset(&s, 0, sizeof(s));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o.config = optarg;
			break;
		case 'l':
			o.log = optarg;
			break;
		case 'n':
			errno = 0;
			o.sample = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || !o.sample || optarg[0] == '-') {
				fprintf(stderr, "%s: --sample '%s': expected a sample number from 1\n",
					o.who, optarg);
				goto out;
			}
			break;
		case 'C':
			o.replay.compat = true;
			break;
		case 'S':
			o.replay.sets[o.replay.n_sets++] = optarg;
			break;
		case 'K':
			o.replay.calibration = optarg;
			break;
		case 'L':
			o.layout = optarg;
			break;
		case 'P':
			if (!strcmp(optarg, "auto")) {
				o.proj = SKIN_FLATTEN_AUTO;
			} else if (!strcmp(optarg, "plane")) {
				o.proj = SKIN_FLATTEN_TO_PLANE;
			} else if (!strcmp(optarg, "cylinder")) {
				o.proj = SKIN_FLATTEN_TO_CYLINDER;
			} else {
				fprintf(stderr, "%s: --projection '%s': expected auto, plane or cylinder\n",
					o.who, optarg);
				goto out;
			}
			break;
		case 'm':
			o.shm = optarg;
			break;
		case 's':
			o.socket = optarg;
			break;
		case 'g':
			o.svg = optarg;
			break;
		case '1':
			o.once = true;
			break;
		case 'r':
			errno = 0;
			o.rate = strtod(optarg, &end);
			if (end == optarg || *end || errno || !(o.rate >= 0.1 && o.rate <= 1000)) {
				fprintf(stderr, "%s: --rate '%s': expected hertz from 0.1 to 1000\n",
					o.who, optarg);
				goto out;
			}
			break;
		case 'z':
			if (parse_size(optarg, &o.cols, &o.rows)) {
				fprintf(stderr, "%s: --size '%s': expected WxH, at least 16x4 and at most 1000x1000\n",
					o.who, optarg);
				goto out;
			}
			break;
		case 'N':
			o.color = VIEW_COLOR_NONE;
			break;
		case 'k':
			if (!strcmp(optarg, "256")) {
				o.color = VIEW_COLOR_256;
			} else if (!strcmp(optarg, "truecolor") || !strcmp(optarg, "24bit")) {
				o.color = VIEW_COLOR_TRUE;
			} else if (!strcmp(optarg, "none")) {
				o.color = VIEW_COLOR_NONE;
			} else {
				fprintf(stderr, "%s: --color '%s': expected 256, truecolor or none\n",
					o.who, optarg);
				goto out;
			}
			break;
		case 'h':
			usage(stdout, snapshot);
			rc = 0;
			goto out;
		default:
			usage(stderr, snapshot);
			goto out;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "%s: expected one PART\n", o.who);
		usage(stderr, snapshot);
		goto out;
	}
	o.part = argv[optind];
	if (snapshot && !o.svg) {
		fprintf(stderr, "%s: --svg FILE is required\n", o.who);
		goto out;
	}
	if (!snapshot && o.svg) {
		fprintf(stderr, "%s: --svg belongs to skinctl snapshot\n", o.who);
		goto out;
	}
	if (o.log && (o.shm || o.socket)) {
		fprintf(stderr, "%s: --log reads a recording: --shm and --socket read skind\n",
			o.who);
		goto out;
	}
	if (!o.log && (o.sample || o.replay.compat || o.replay.n_sets ||
		       o.replay.calibration)) {
		fprintf(stderr, "%s: --sample, --compat, --set and --calibration go with --log\n",
			o.who);
		goto out;
	}
	if (o.log && !o.config) {
		fprintf(stderr, "%s: --log needs --config (the skind.conf the log was recorded with)\n",
			o.who);
		goto out;
	}
	o.replay.config = o.config;
	o.replay.log = o.log;
	rc = 1;
	if (source_open(&s, &o) || layout_make(&l, &s, &o))
		goto out;
	/* the first frame: the sample asked for (a log), or the newest */
	r = o.log ? log_advance(&s, o.once || snapshot ? o.sample : o.sample ? o.sample : 1, 0) :
	    shm_read(&s);
	if (r < 0)
		goto out;
	if (o.log && o.sample && s.outputs < o.sample) {
		fprintf(stderr, "%s: --sample %" PRIu64 ": the log has %" PRIu64
			" output samples of part %s\n", o.who, o.sample, s.outputs, o.part);
		goto out;
	}
	if (o.log)
		s.t0_log = (uint64_t)llround(s.frame.time_s * 1e9);
	if (snapshot) {
		if (write_svg(o.who, o.svg, &l, &s.frame))
			goto out;
		rc = 0;
	} else if (o.once) {
		struct view_text_opts to = {
			.color = o.color < 0 ? VIEW_COLOR_NONE : (enum view_color)o.color,
		};
		char *text;
		size_t len;

		term_size(&o, &to.cols, &to.rows);
		if (text_frame(&text, &len, &l, &s.frame, &to)) {
			fprintf(stderr, "%s: a frame needs at least 16x4 characters\n", o.who);
			goto out;
		}
		rc = write_all(STDOUT_FILENO, text, len) ? 1 : 0;
		free(text);
	} else {
		rc = live(&s, &l, &o);
	}
	if (o.log && rc == 0 && s.rp->rejected)
		rc = 1;		/* bad lines were said and skipped */
out:
	view_layout_free(&l);
	source_close(&s);
	free(o.replay.sets);
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
