// SPDX-License-Identifier: GPL-2.0
/*
 * scenario.c - the scenario file: which skin, which seed, what happens when
 *
 * Line-based, one directive per line, '#' comments (docs/SIMULATOR.md):
 *
 *	config ../skind.conf
 *	seed 42
 *	duration 10s
 *	noise 0.8
 *	at 1s press left_forearm taxel 37 radius 12mm force 90 name a
 *	at 2s move a to 0.01 0.02 0.03 over 1.5s
 *	at 4s release a
 *	at 5s fault drop 0.05 board can0:13 for 2s
 *
 * Everything the file alone can check is checked here, with the line and
 * column; what needs the skin (part names, taxel numbers, boards) is
 * checked by skin_sim_new(), which names the line too.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim-private.h"

#define MAX_TOKENS	32
#define TOKEN_MAX	256

struct tok {
	char s[TOKEN_MAX];
	unsigned int col;
};

struct parser {
	const char *name;
	unsigned int line;
	struct tok t[MAX_TOKENS];
	unsigned int n;		/* tokens on the line */
	unsigned int i;		/* next token */
	struct skin_error *err;
	struct skin_sim_scenario *sc;
	unsigned int cap;
	unsigned int presses;
	unsigned int seen_line[8];	/* of each global directive */
};

static int perr(struct parser *p, unsigned int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, unsigned int col, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	skin_error_set(p->err, p->name, p->line, col, "%s", what);
	return -1;
}

/* Column just after the last token, for "expected X" at the line's end. */
static unsigned int end_col(const struct parser *p)
{
	if (!p->n)
		return 1;
	return p->t[p->n - 1].col + (unsigned int)strlen(p->t[p->n - 1].s);
}

static int tokenize(struct parser *p, const char *line, size_t len)
{
	size_t i = 0;

	p->n = 0;
	p->i = 0;
	while (i < len) {
		size_t start;

		while (i < len && (line[i] == ' ' || line[i] == '\t' ||
				   line[i] == '\r'))
			i++;
		if (i >= len || line[i] == '#')
			break;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' &&
		       line[i] != '\r')
			i++;
		for (size_t k = start; k < i; k++)
			if ((unsigned char)line[k] < 0x20 ||
			    (unsigned char)line[k] == 0x7f)
				return perr(p, (unsigned int)k + 1,
					    "control character 0x%02x",
					    (unsigned char)line[k]);
		if (p->n == MAX_TOKENS)
			return perr(p, (unsigned int)start + 1,
				    "more than %d words on a line", MAX_TOKENS);
		if (i - start >= TOKEN_MAX)
			return perr(p, (unsigned int)start + 1,
				    "word longer than %d characters", TOKEN_MAX - 1);
		memcpy(p->t[p->n].s, line + start, i - start);
		p->t[p->n].s[i - start] = '\0';
		p->t[p->n].col = (unsigned int)start + 1;
		p->n++;
	}
	return 0;
}

/* The next token, or NULL with an error saying what was expected. */
static const struct tok *next(struct parser *p, const char *expected)
{
	if (p->i >= p->n) {
		perr(p, end_col(p), "expected %s at the end of the line",
		     expected);
		return NULL;
	}
	return &p->t[p->i++];
}

/* Whether the next token is the keyword kw; consumes it if so. */
static bool take(struct parser *p, const char *kw)
{
	if (p->i < p->n && strcmp(p->t[p->i].s, kw) == 0) {
		p->i++;
		return true;
	}
	return false;
}

static int expect_kw(struct parser *p, const char *kw)
{
	const struct tok *t;
	char what[64];

	snprintf(what, sizeof(what), "'%s'", kw);
	t = next(p, what);
	if (!t)
		return -1;
	if (strcmp(t->s, kw))
		return perr(p, t->col, "expected '%s', found '%s'", kw, t->s);
	return 0;
}

static int expect_end(struct parser *p)
{
	if (p->i < p->n)
		return perr(p, p->t[p->i].col, "unexpected '%s'", p->t[p->i].s);
	return 0;
}

/* A number with an optional unit from units[] (scale[] each). */
static int number_unit(struct parser *p, const char *what,
		       const char *const *units, const double *scale,
		       bool unit_required, double min, double max, double *out)
{
	const struct tok *t = next(p, what);
	char *end;
	double v;

	if (!t)
		return -1;
	errno = 0;
	v = strtod(t->s, &end);
	if (end == t->s || errno || !isfinite(v))
		return perr(p, t->col, "expected %s, found '%s'", what, t->s);
	if (*end || unit_required) {
		unsigned int u;

		for (u = 0; units && units[u]; u++)
			if (strcmp(end, units[u]) == 0)
				break;
		if (!units || !units[u])
			return perr(p, t->col, "expected %s, found '%s'", what,
				    t->s);
		v *= scale[u];
	}
	if (v < min || v > max)
		return perr(p, t->col, "%s %s out of range (%g..%g)", what, t->s,
			    min, max);
	*out = v;
	return 0;
}

static int number(struct parser *p, const char *what, double min, double max,
		  double *out)
{
	return number_unit(p, what, NULL, NULL, false, min, max, out);
}

static int integer(struct parser *p, const char *what, long min, long max,
		   long *out)
{
	const struct tok *t = next(p, what);
	char *end;
	long v;

	if (!t)
		return -1;
	errno = 0;
	v = strtol(t->s, &end, 0);
	if (end == t->s || *end || errno)
		return perr(p, t->col, "expected %s, found '%s'", what, t->s);
	if (v < min || v > max)
		return perr(p, t->col, "%s %s out of range (%ld..%ld)", what,
			    t->s, min, max);
	*out = v;
	return 0;
}

static const char *const time_units[] = { "s", "ms", "us", "min", NULL };
static const double time_scale[] = { 1e9, 1e6, 1e3, 60e9 };

/* A time: "1.5s", "200ms", "50us", "2min"; up to a day. */
static int time_ns(struct parser *p, const char *what, uint64_t *out)
{
	double v;

	if (number_unit(p, what, time_units, time_scale, true, 0, 86400e9, &v))
		return -1;
	*out = (uint64_t)llround(v);
	return 0;
}

static const char *const len_units[] = { "m", "cm", "mm", NULL };
static const double len_scale[] = { 1, 1e-2, 1e-3 };

static int length(struct parser *p, const char *what, double min, double max,
		  double *out)
{
	return number_unit(p, what, len_units, len_scale, false, min, max, out);
}

/* BUS:ADDRESS, e.g. can0:14 */
static int board_spec(struct parser *p, char bus[IFNAMSIZ], int *address)
{
	const struct tok *t = next(p, "a board BUS:ADDRESS");
	const char *colon;
	char *end;
	long a;

	if (!t)
		return -1;
	colon = strrchr(t->s, ':');
	if (!colon || colon == t->s)
		return perr(p, t->col, "expected a board BUS:ADDRESS, found '%s'",
			    t->s);
	if ((size_t)(colon - t->s) >= IFNAMSIZ)
		return perr(p, t->col, "interface name longer than %d characters",
			    IFNAMSIZ - 1);
	errno = 0;
	a = strtol(colon + 1, &end, 0);
	if (end == colon + 1 || *end || errno || a < 0 || a > 15)
		return perr(p, t->col + (unsigned int)(colon + 1 - t->s),
			    "board address must be 0..15, found '%s'", colon + 1);
	memcpy(bus, t->s, (size_t)(colon - t->s));
	bus[colon - t->s] = '\0';
	*address = (int)a;
	return 0;
}

static int word(struct parser *p, const char *what, char *out, size_t len)
{
	const struct tok *t = next(p, what);

	if (!t)
		return -1;
	if (strlen(t->s) >= len)
		return perr(p, t->col, "%s longer than %zu characters", what,
			    len - 1);
	strcpy(out, t->s);
	return 0;
}

static int contact_name(struct parser *p, char out[SC_NAME_MAX])
{
	const struct tok *t;
	size_t k;

	if (word(p, "a contact name", out, SC_NAME_MAX))
		return -1;
	t = &p->t[p->i - 1];
	for (k = 0; out[k]; k++)
		if (!((out[k] >= 'a' && out[k] <= 'z') ||
		      (out[k] >= 'A' && out[k] <= 'Z') ||
		      (out[k] >= '0' && out[k] <= '9') || out[k] == '_' ||
		      out[k] == '-' || out[k] == '.'))
			return perr(p, t->col + (unsigned int)k,
				    "contact names are [A-Za-z0-9_.-]");
	return 0;
}

/* X Y Z (metres, or with a unit) | taxel N */
static int where(struct parser *p, struct sc_where *w)
{
	long n;

	if (take(p, "taxel")) {
		if (integer(p, "a taxel number", 0, 1000000, &n))
			return -1;
		w->taxel = true;
		w->index = (unsigned int)n;
		return 0;
	}
	w->taxel = false;
	return length(p, "an x coordinate", -100, 100, &w->pos[0]) ||
	       length(p, "a y coordinate", -100, 100, &w->pos[1]) ||
	       length(p, "a z coordinate", -100, 100, &w->pos[2]) ? -1 : 0;
}

static struct sc_event *new_event(struct parser *p, uint64_t t_ns)
{
	struct skin_sim_scenario *sc = p->sc;
	struct sc_event *e;

	if (sc->n_events == p->cap) {
		unsigned int cap = p->cap ? 2 * p->cap : 16;
		struct sc_event *ev = realloc(sc->events, cap * sizeof(*ev));

		if (!ev) {
			perr(p, 0, "out of memory");
			return NULL;
		}
		sc->events = ev;
		p->cap = cap;
	}
	e = &sc->events[sc->n_events++];
	memset(e, 0, sizeof(*e));
	e->line = p->line;
	e->t_ns = t_ns;
	e->address = -1;
	e->value = -1;
	return e;
}

static int parse_press(struct parser *p, struct sc_event *e)
{
	e->kind = SC_PRESS;
	e->dur_ns = 100000000;		/* a finger takes ~0.1 s to press */
	if (word(p, "a part name", e->part, sizeof(e->part)) ||
	    where(p, &e->where) ||
	    expect_kw(p, "radius") ||
	    length(p, "a radius", 1e-4, 10, &e->radius) ||
	    expect_kw(p, "force") ||
	    number(p, "a force (raw counts)", 0, 10000, &e->force))
		return -1;
	p->presses++;
	snprintf(e->name, sizeof(e->name), "c%u", p->presses);
	while (p->i < p->n) {
		if (take(p, "name")) {
			if (contact_name(p, e->name))
				return -1;
		} else if (take(p, "ramp")) {
			if (time_ns(p, "a ramp time", &e->dur_ns))
				return -1;
		} else {
			return perr(p, p->t[p->i].col,
				    "expected 'name' or 'ramp', found '%s'",
				    p->t[p->i].s);
		}
	}
	return 0;
}

static int parse_for(struct parser *p, struct sc_event *e)
{
	if (take(p, "for"))
		return time_ns(p, "a duration", &e->dur_ns);
	return 0;
}

static int parse_fault(struct parser *p, struct sc_event *e)
{
	const struct tok *t = next(p, "a fault (drop, dead, stuck, saturate, noisy, garbage, errors)");
	long n;

	if (!t)
		return -1;
	e->kind = SC_FAULT;
	if (strcmp(t->s, "drop") == 0) {
		e->fault = SC_FAULT_DROP;
		if (number(p, "a probability", 0, 1, &e->prob))
			return -1;
		if (take(p, "board") && board_spec(p, e->bus, &e->address))
			return -1;
		return parse_for(p, e) || expect_end(p);
	}
	if (strcmp(t->s, "dead") == 0) {
		e->fault = SC_FAULT_DEAD;
		if (board_spec(p, e->bus, &e->address) ||
		    expect_kw(p, "triangle") ||
		    integer(p, "a triangle number", 0, 15, &n))
			return -1;
		e->triangle = (unsigned int)n;
		return parse_for(p, e) || expect_end(p);
	}
	if (strcmp(t->s, "stuck") == 0 || strcmp(t->s, "saturate") == 0) {
		e->fault = t->s[1] == 't' ? SC_FAULT_STUCK : SC_FAULT_SATURATE;
		if (word(p, "a part name", e->part, sizeof(e->part)) ||
		    integer(p, "a taxel number", 0, 1000000, &n))
			return -1;
		e->taxel = (unsigned int)n;
		if (e->fault == SC_FAULT_STUCK && take(p, "value")) {
			if (integer(p, "a raw value", 0, 255, &n))
				return -1;
			e->value = (int)n;
		}
		return parse_for(p, e) || expect_end(p);
	}
	if (strcmp(t->s, "noisy") == 0) {
		e->fault = SC_FAULT_NOISY;
		e->value = SC_NOISY_AMPLITUDE;
		if (word(p, "a part name", e->part, sizeof(e->part)) ||
		    integer(p, "a taxel number", 0, 1000000, &n))
			return -1;
		e->taxel = (unsigned int)n;
		if (take(p, "amplitude")) {
			if (integer(p, "an amplitude (raw counts)", 1, 255, &n))
				return -1;
			e->value = (int)n;
		}
		return parse_for(p, e) || expect_end(p);
	}
	if (strcmp(t->s, "garbage") == 0) {
		e->fault = SC_FAULT_GARBAGE;
		if (board_spec(p, e->bus, &e->address) ||
		    integer(p, "frames per period", 1, 16, &n))
			return -1;
		e->count = (unsigned int)n;
		return parse_for(p, e) || expect_end(p);
	}
	if (strcmp(t->s, "errors") == 0) {
		e->fault = SC_FAULT_ERRORS;
		if (word(p, "a bus", e->bus, sizeof(e->bus)) ||
		    integer(p, "a number of error frames", 1, 64, &n))
			return -1;
		e->count = (unsigned int)n;
		return expect_end(p);
	}
	return perr(p, t->col,
		    "unknown fault '%s' (drop, dead, stuck, saturate, noisy, garbage, errors)",
		    t->s);
}

static int parse_at(struct parser *p)
{
	const struct tok *t;
	struct sc_event *e;
	uint64_t at;

	if (time_ns(p, "a time such as 1.5s or 200ms", &at))
		return -1;
	t = next(p, "an action (press, move, release, fault)");
	if (!t)
		return -1;
	e = new_event(p, at);
	if (!e)
		return -1;
	if (strcmp(t->s, "press") == 0)
		return parse_press(p, e);
	if (strcmp(t->s, "move") == 0) {
		e->kind = SC_MOVE;
		return contact_name(p, e->name) || expect_kw(p, "to") ||
		       where(p, &e->where) || expect_kw(p, "over") ||
		       time_ns(p, "a time", &e->dur_ns) || expect_end(p) ? -1 : 0;
	}
	if (strcmp(t->s, "release") == 0) {
		e->kind = SC_RELEASE;
		e->dur_ns = 100000000;
		if (contact_name(p, e->name))
			return -1;
		if (take(p, "ramp") && time_ns(p, "a ramp time", &e->dur_ns))
			return -1;
		return expect_end(p);
	}
	if (strcmp(t->s, "fault") == 0)
		return parse_fault(p, e);
	p->sc->n_events--;
	return perr(p, t->col,
		    "unknown action '%s' (press, move, release, fault)", t->s);
}

enum { G_CONFIG, G_SEED, G_DURATION, G_NOISE, G_SPREAD, G_DRIFT, G_THERMAL };

static int once(struct parser *p, unsigned int g, const struct tok *t)
{
	if (p->seen_line[g])
		return perr(p, t->col, "'%s' given twice (first on line %u)",
			    t->s, p->seen_line[g]);
	p->seen_line[g] = p->line;
	return 0;
}

static char *resolve(const char *name, const char *path)
{
	const char *slash = strrchr(name, '/');
	size_t dir = slash ? (size_t)(slash - name) + 1 : 0;
	char *out;

	if (path[0] == '/' || !dir)
		return strdup(path);
	out = malloc(dir + strlen(path) + 1);
	if (!out)
		return NULL;
	memcpy(out, name, dir);
	strcpy(out + dir, path);
	return out;
}

static int parse_line(struct parser *p)
{
	struct skin_sim_scenario *sc = p->sc;
	const struct tok *t;
	double v;

	if (!p->n)
		return 0;
	t = next(p, "a directive");
	if (strcmp(t->s, "at") == 0)
		return parse_at(p);
	if (strcmp(t->s, "config") == 0) {
		const struct tok *path;

		if (once(p, G_CONFIG, t) || !(path = next(p, "a config file")))
			return -1;
		sc->config = resolve(p->name, path->s);
		if (!sc->config)
			return perr(p, 0, "out of memory");
		return expect_end(p);
	}
	if (strcmp(t->s, "seed") == 0) {
		const struct tok *s;
		char *end;
		unsigned long long u;

		if (once(p, G_SEED, t) || !(s = next(p, "a seed")))
			return -1;
		errno = 0;
		u = strtoull(s->s, &end, 0);
		if (end == s->s || *end || errno || s->s[0] == '-')
			return perr(p, s->col, "expected a seed (an unsigned integer), found '%s'",
				    s->s);
		sc->params.seed = u;
		return expect_end(p);
	}
	if (strcmp(t->s, "duration") == 0)
		return once(p, G_DURATION, t) ||
		       time_ns(p, "a time such as 10s", &sc->duration_ns) ||
		       expect_end(p) ? -1 : 0;
	if (strcmp(t->s, "noise") == 0)
		return once(p, G_NOISE, t) ||
		       number(p, "a noise deviation (raw counts)", 0, 100,
			      &sc->params.noise) || expect_end(p) ? -1 : 0;
	if (strcmp(t->s, "spread") == 0)
		return once(p, G_SPREAD, t) ||
		       number(p, "a baseline spread (raw counts)", 0, 100,
			      &sc->params.spread) || expect_end(p) ? -1 : 0;
	if (strcmp(t->s, "drift") == 0) {
		uint64_t period;

		if (once(p, G_DRIFT, t) ||
		    number(p, "a drift amplitude (raw counts)", 0, 100, &v) ||
		    time_ns(p, "a drift period such as 120s", &period))
			return -1;
		if (period == 0)
			return perr(p, p->t[p->i - 1].col, "drift period must not be 0");
		sc->params.drift = v;
		sc->params.drift_period_s = (double)period / 1e9;
		return expect_end(p);
	}
	if (strcmp(t->s, "thermal") == 0) {
		if (once(p, G_THERMAL, t) ||
		    number(p, "a thermal pad gain", 0, 100, &v))
			return -1;
		sc->params.thermal_gain = v;
		return expect_end(p);
	}
	return perr(p, t->col,
		    "unknown directive '%s' (config, seed, duration, noise, spread, drift, thermal, at)",
		    t->s);
}

static int cmp_event(const void *a, const void *b)
{
	const struct sc_event *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;	/* stable */
}

/* Contacts pressed before they are moved or released, not twice at once. */
static int check_timeline(struct parser *p)
{
	struct skin_sim_scenario *sc = p->sc;
	unsigned int i, j;

	for (i = 0; i < sc->n_events; i++) {
		const struct sc_event *e = &sc->events[i];
		const struct sc_event *last = NULL;

		if (sc->duration_ns && e->t_ns > sc->duration_ns) {
			skin_error_set(p->err, p->name, e->line, 0,
				    "event at %.3fs is after the end (duration %.3fs)",
				    (double)e->t_ns / 1e9,
				    (double)sc->duration_ns / 1e9);
			return -1;
		}
		if (e->kind == SC_FAULT)
			continue;
		for (j = 0; j < i; j++)
			if (sc->events[j].kind != SC_FAULT &&
			    strcmp(sc->events[j].name, e->name) == 0)
				last = &sc->events[j];
		if (e->kind == SC_PRESS && last && last->kind != SC_RELEASE) {
			skin_error_set(p->err, p->name, e->line, 0,
				    "contact '%s' is already pressed (line %u)",
				    e->name, last->line);
			return -1;
		}
		if (e->kind != SC_PRESS && (!last || last->kind == SC_RELEASE)) {
			skin_error_set(p->err, p->name, e->line, 0,
				    "contact '%s' is not pressed at %.3fs",
				    e->name, (double)e->t_ns / 1e9);
			return -1;
		}
	}
	return 0;
}

struct skin_sim_scenario *skin_sim_scenario_load_buffer(const char *buf,
							size_t len,
							const char *name,
							struct skin_error *err)
{
	struct skin_sim_scenario *sc = calloc(1, sizeof(*sc));
	struct parser p = { .name = name ? name : "(scenario)", .err = err };
	size_t pos = 0;

	if (!sc || !(sc->name = strdup(p.name))) {
		free(sc);
		skin_error_set(err, name, 0, 0, "out of memory");
		return NULL;
	}
	p.sc = sc;
	sc->params.seed = 1;
	sc->params.noise = 0.8;
	sc->params.spread = 2.0;
	sc->params.drift = 1.5;
	sc->params.drift_period_s = 120;
	sc->params.thermal_gain = 3.0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;

		p.line++;
		if (tokenize(&p, buf + pos, end - pos) || parse_line(&p))
			goto fail;
		pos = end + 1;
	}
	if (sc->n_events)
		qsort(sc->events, sc->n_events, sizeof(*sc->events), cmp_event);
	if (check_timeline(&p))
		goto fail;
	return sc;
fail:
	skin_sim_scenario_free(sc);
	return NULL;
}

struct skin_sim_scenario *skin_sim_scenario_load(const char *path,
						 struct skin_error *err)
{
	struct skin_sim_scenario *sc;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	FILE *f = skin_file_fopen(path, 0, err);

	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (len == cap) {
			char *b;

			cap = cap ? 2 * cap : 4096;
			if (cap > (64u << 20)) {
				skin_error_set(err, path, 0, 0, "larger than 64 MiB");
				goto fail;
			}
			b = realloc(buf, cap);
			if (!b) {
				skin_error_set(err, path, 0, 0, "out of memory");
				goto fail;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f)) {
				skin_error_set(err, path, 0, 0, "read error");
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	sc = skin_sim_scenario_load_buffer(buf, len, path, err);
	free(buf);
	return sc;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

void skin_sim_scenario_free(struct skin_sim_scenario *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->config);
	free(s->events);
	free(s);
}

const char *skin_sim_scenario_config(const struct skin_sim_scenario *s)
{
	return s->config;
}

uint64_t skin_sim_scenario_duration(const struct skin_sim_scenario *s)
{
	return s->duration_ns;
}

uint64_t skin_sim_scenario_seed(const struct skin_sim_scenario *s)
{
	return s->params.seed;
}

void skin_sim_scenario_set_seed(struct skin_sim_scenario *s, uint64_t seed)
{
	s->params.seed = seed;
}

unsigned int skin_sim_scenario_events(const struct skin_sim_scenario *s)
{
	return s->n_events;
}
