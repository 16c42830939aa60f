// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_protocol.c - libFuzzer harness for skind's socket commands: the
 * line splitter (client_take_line(), daemon/server.c) and the parser and
 * dispatcher (protocol_command(), daemon/protocol.c), without a socket
 *
 * skind's real skin is built once from a configuration (etc/examples/
 * demo.conf: two parts, three patches, the iCub hand and forearm; with a
 * calibration of 0.1 s), its parts calibrated and pressed by frames
 * through the real pipeline, so that parts, contacts, taxels, get and set
 * answer from a real model.
 *
 * Input: byte 0 flags (bit 0: the client starts in JSON; bit 1: it is an
 * admin; bit 2: lines of at most 63 bytes instead of 4095), byte 1 the
 * size of each read (0: as much as fits, else 1..255), then the bytes the
 * client sends.  They are read as skind reads them, a chunk at a time
 * into the client's line buffer, every complete line run; then EOF.
 *
 * Beyond "no crash, no leak, no UB":
 *  - the lines run are exactly those a reference splitter finds in the
 *    stream, whatever the size of the reads (lines too long skipped, the
 *    last line without a newline run at EOF, nothing after `quit`);
 *  - every non-blank line gets one reply that ends with its one final
 *    line (ok/error), a blank line none, a line too long one error;
 *    nothing is dropped silently (errors counted == error lines);
 *  - every line is valid JSON in JSON, printable ASCII in bottle, and so
 *    are the event lines of the client's subscriptions;
 *  - every `shm` reply carries exactly one descriptor, bracketing it.
 * The skin's parameters and calibration are put back after each input.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <skin/proc.h>

#include "../../daemon/client_io.h"
#include "../../lib/util/skin_clock.h"
#include "../../daemon/fanout.h"
#include "../../lib/log/log.h"
#include "../../daemon/options.h"
#include "../../daemon/pipeline.h"
#include "../../daemon/protocol.h"
#include "../../daemon/server.h"
#include "../../daemon/skin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* the harness's own checks need no coverage: it would only slow them */
#define NOCOV __attribute__((no_sanitize("coverage")))

static struct skind d;
static struct skind_server srv;
static char *params[64], *param_names[64];
static unsigned int n_params;

/* --- a small JSON validator (RFC 8259) ---------------------------------- */

static const char *js_value(const char *p, const char *e, int depth);

NOCOV static const char *js_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

NOCOV static const char *js_string(const char *p, const char *e)
{
	if (p >= e || *p++ != '"')
		return NULL;
	while (p < e && *p != '"') {
		unsigned char ch = (unsigned char)*p++;

		if (ch < 0x20)
			return NULL;
		if (ch == '\\') {
			if (p >= e)
				return NULL;
			ch = (unsigned char)*p++;
			if (ch == 'u') {
				int k;

				for (k = 0; k < 4; k++)
					if (p >= e || !isxdigit((unsigned char)*p++))
						return NULL;
			} else if (!strchr("\"\\/bfnrt", ch) || !ch) {
				return NULL;
			}
		}
	}
	return p < e ? p + 1 : NULL;
}

NOCOV static const char *js_number(const char *p, const char *e)
{
	const char *s;

	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else if (p < e && *p >= '1' && *p <= '9')
		while (p < e && isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (p < e && *p == '.') {
		s = ++p;
		while (p < e && isdigit((unsigned char)*p))
			p++;
		if (p == s)
			return NULL;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		s = p;
		while (p < e && isdigit((unsigned char)*p))
			p++;
		if (p == s)
			return NULL;
	}
	return p;
}

NOCOV static const char *js_value(const char *p, const char *e, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	unsigned int i;

	if (depth > 16 || (p = js_ws(p, e)) >= e)
		return NULL;
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = js_ws(p + 1, e);
		if (p < e && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = js_string(js_ws(p, e), e);
				if (!p || (p = js_ws(p, e)) >= e || *p++ != ':')
					return NULL;
			}
			p = js_value(p, e, depth + 1);
			if (!p || (p = js_ws(p, e)) >= e)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return js_string(p, e);
	for (i = 0; i < 3; i++)
		if ((size_t)(e - p) >= strlen(words[i]) &&
		    !memcmp(p, words[i], strlen(words[i])))
			return p + strlen(words[i]);
	return js_number(p, e);
}

/* One line without its newline, in the client's format. */
NOCOV static void check_line(const char *l, size_t len, enum client_format fmt)
{
	size_t i;

	if (!len)
		abort();
	if (fmt == FORMAT_JSON) {
		if (len < 10 || memcmp(l, "{\"type\":\"", 9) ||
		    js_value(l, l + len, 0) != l + len)
			abort();
		return;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)l[i] < 0x20 || (unsigned char)l[i] >= 0x7f)
			abort();
}

NOCOV static int final_kind(const char *l, size_t len, enum client_format fmt)
{
	if (fmt == FORMAT_JSON) {
		if (len >= 13 && !memcmp(l, "{\"type\":\"ok\"", 12))
			return 1;
		if (len >= 16 && !memcmp(l, "{\"type\":\"error\"", 15))
			return 2;
		return 0;
	}
	if ((len == 2 && !memcmp(l, "ok", 2)) || (len > 3 && !memcmp(l, "ok ", 3)))
		return 1;
	if (len > 6 && !memcmp(l, "error ", 6))
		return 2;
	return 0;
}

/* --- the skin: built once, calibrated, pressed -------------------------- */

NOCOV static void frame_all(uint8_t raw_base, bool press, unsigned int n)
{
	struct skind_skin *s = d.skin;
	static uint64_t ts = 1000000000;
	unsigned int i, k, t, r;

	for (r = 0; r < n; r++) {
		ts += 50000000;
		for (i = 0; i < s->n_parts; i++)
			for (k = 0; k < s->parts[i].n_patches; k++) {
				struct skin_frame f;

				memset(&f, 0, sizeof(f));
				f.seq = ts;
				f.timestamp_ns = ts;
				f.refreshed = (uint16_t)((1u << SKIN_TRIANGLES) - 1);
				for (t = 0; t < SKIN_BOARD_VALUES; t++) {
					f.values[t] = (uint8_t)(raw_base - (t * 7 + r) % 3);
					/* two blobs on the first patch of each part */
					if (press && k == 0 && (t < 24 || (t >= 96 && t < 108)))
						f.values[t] = 90;
				}
				pipeline_frame(&s->parts[i].patches[k], &f);
			}
	}
}

static bool all_running(void)
{
	unsigned int i;

	for (i = 0; i < d.skin->n_parts; i++)
		if (skin_proc_state(d.skin->proc, i) != SKIN_PROC_RUNNING)
			return false;
	return true;
}

static void settle(void)
{
	char value[256], why[256];
	unsigned int i, pass, changed = 1;

	/* the parameters as they were, those that changed (in passes:
	 * bounds depend on each other); no frame came during the input, so
	 * the parts' state is as it was unless a `calibrate` ran */
	for (pass = 0; changed && pass < 3; pass++)
		for (i = 0, changed = 0; i < n_params; i++)
			if (skin_proc_get(d.skin->proc, param_names[i], value, sizeof(value)) < 0 ||
			    strcmp(value, params[i])) {
				changed++;
				skin_proc_set(d.skin->proc, param_names[i], params[i],
					      why, sizeof(why));
			}
	if (changed) {
		fprintf(stderr, "parameters not back to what get said: %u\n", changed);
		abort();	/* what get says, set takes back */
	}
	if (all_running())
		return;
	pipeline_calibrate(d.skin, -1);
	frame_all(240, false, 2);
	if (!all_running())
		abort();
	frame_all(240, true, 1);
}

/*
 * etc/examples/demo.conf, its geometry found from a copy in @dir, and a
 * calibration of 0.1 s (two samples) so that putting the skin back after
 * a `calibrate` is cheap.
 */
static void write_config(const char *top, const char *dir, char *path, size_t size)
{
	char line[1024];
	FILE *in, *out;

	snprintf(path, size, "%s/etc/examples/demo.conf", top);
	in = fopen(path, "r");
	snprintf(path, size, "%s/skind.conf", dir);
	out = fopen(path, "w");
	if (!in || !out)
		abort();
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "calibration_s", 13))
			fprintf(out, "calibration_s = 0.1\n");
		else if (!strncmp(line, "geometry = ../", 14))
			fprintf(out, "geometry = %s/etc/%s", top, line + 14);
		else
			fputs(line, out);
	}
	fclose(in);
	if (fclose(out))
		abort();
}

/* The fan-out's outputs: none (no socket clients, no evdev); the harness
 * reads the event lines from the parts (check_events()) */
static void fanout_nowhere(struct skind *dm, struct skind_part *p, unsigned int told)
{
	(void)dm;
	(void)p;
	(void)told;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char tmpl[] = "/tmp/fuzz_protocol.XXXXXX";
	static char shm[64], conf[4096];
	const char *const *names;
	struct skin_error err;
	char *dir, *src, value[256];
	char *args[] = { "skind", "-c", conf, "--shm", shm, "--state-dir", tmpl,
			 "--no-evdev", NULL };
	unsigned int i, contacts = 0;

	(void)argc;
	(void)argv;
	log_init("skind", LOG_ERR, 0);
	dir = mkdtemp(tmpl);
	src = realpath(__FILE__, NULL);
	if (!dir || !src)
		abort();
	/* tests/fuzz/fuzz_protocol.c -> etc/examples/demo.conf */
	*strrchr(src, '/') = 0;
	*strrchr(src, '/') = 0;
	*strrchr(src, '/') = 0;
	snprintf(shm, sizeof(shm), "%s/skind.shm", dir);
	write_config(src, dir, conf, sizeof(conf));
	free(src);
	if (options_parse(&d.opt, 8, args) < 0)
		abort();
	if (sd_event_new(&d.event) < 0 || pipeline_events_init(&d) < 0 ||
	    fanout_init(&d, fanout_nowhere) < 0)
		abort();
	d.start_ns = clock_monotonic_ns();
	d.skin = skind_skin_build(&d, true, &err);
	if (!d.skin) {
		fprintf(stderr, "fuzz_protocol: %s\n", err.text);
		abort();
	}
	d.generation = d.skin->generation;
	/* nothing left on disk: the shm object lives on in its descriptors */
	unlink(shm);
	unlink(conf);
	rmdir(dir);
	pipeline_start(d.skin);
	for (names = skin_proc_param_names(); *names && n_params < 64; names++) {
		if (skin_proc_get(d.skin->proc, *names, value, sizeof(value)) < 0)
			continue;
		param_names[n_params] = strdup(*names);
		params[n_params++] = strdup(value);
	}
	frame_all(240, false, 2);
	frame_all(240, true, 1);
	for (i = 0; i < d.skin->n_parts; i++)
		contacts += d.skin->parts[i].n_contacts;
	if (!all_running() || !contacts) {
		for (i = 0; i < d.skin->n_parts; i++)
			fprintf(stderr, "fuzz_protocol: %s: state %d (%s), %u contacts\n",
				d.skin->parts[i].name, (int)skin_proc_state(d.skin->proc, i),
				skin_proc_reason(d.skin->proc, i), d.skin->parts[i].n_contacts);
		abort();
	}
	srv.d = &d;
	srv.users = calloc(d.opt.max_clients, sizeof(*srv.users));
	srv.fds_budget = 256;
	srv.user_fds_max = USER_FDS_MAX;
	srv.n_clients = 1;
	if (!srv.users)
		abort();
	d.server = NULL;	/* fan-out: no socket clients */
	return 0;
}

/* --- one client --------------------------------------------------------- */

struct ref {
	const uint8_t *s;
	size_t size, pos, max_line;
	bool eof_done;
};

/*
 * The reference splitter, on the whole stream: REF_LINE, the next line to
 * run (its bytes before the newline); REF_TOO_LONG, a line skipped for
 * its length; REF_END.
 */
enum { REF_END, REF_LINE, REF_TOO_LONG };

NOCOV static int ref_next(struct ref *r, const uint8_t **line, size_t *len)
{
	size_t n = r->size - r->pos, lim = n < r->max_line ? n : r->max_line;
	const uint8_t *nl = memchr(r->s + r->pos, '\n', lim);

	if (nl) {
		*line = r->s + r->pos;
		*len = (size_t)(nl - *line);
		r->pos += *len + 1;
		return REF_LINE;
	}
	if (n >= r->max_line) {		/* too long: skip to its newline */
		nl = memchr(r->s + r->pos, '\n', n);
		r->pos = nl ? (size_t)(nl - r->s) + 1 : r->size;
		return REF_TOO_LONG;
	}
	if (!n)
		return REF_END;
	*line = r->s + r->pos;	/* the last, at EOF */
	*len = n;
	r->pos = r->size;
	return REF_LINE;
}

NOCOV static bool blank(const char *l, size_t len)
{
	size_t i, n = strnlen(l, len);

	if (n && l[n - 1] == '\r' && n == len)
		n--;
	for (i = 0; i < n; i++)
		if (l[i] != ' ' && l[i] != '\t')
			return false;
	return true;
}

/* What the client reads: the queue is emptied, its descriptors closed. */
static void drain(struct client *c)
{
	unsigned int i;

	for (i = 0; i < c->n_fds; i++)
		close(c->fds[i].fd);
	c->user->fds -= c->n_fds;
	srv.fds_inflight -= c->n_fds;
	c->n_fds = 0;
	c->q_head = c->q_len = 0;
	c->sent_total = c->q_total;
}

/* The event lines of the client's subscriptions, in format @fmt. */
static void check_events(struct client *c, enum client_format fmt)
{
	unsigned int i;

	for (i = 0; i < c->n_subs; i++) {
		struct subscription *s = &c->subs[i];
		size_t len;
		char *line;

		if (s->part_index < 0 || s->part_index >= (int)d.skin->n_parts)
			abort();
		protocol_event_line(&d.skin->parts[s->part_index], s->kind,
				    fmt, &line, &len);
		if (!line || !len || line[len - 1] != '\n' ||
		    memchr(line, '\n', len - 1))
			abort();
		check_line(line, len - 1, fmt);
	}
}

/* One step of the splitter, and what it must have done. */
NOCOV static bool step(struct client *c, struct ref *r)
{
	uint64_t q0 = c->q_total, cmds = c->commands, errs = c->errors;
	size_t start, n, i, o;
	unsigned int fds, finals = 0, shms = 0;
	char *line = NULL, *nl, *out;
	const uint8_t *want;
	size_t line_len = 0, want_len;
	bool took, was_discarding = c->discarding;
	int kind = 0;

	if (c->q_cap - c->q_len < c->q_cap / 2)
		drain(c);	/* skind waits for the client to read */
	fds = c->n_fds;
	start = (c->q_head + c->q_len) % c->q_cap;
	/* the line it will run, if any, as the buffer holds it */
	nl = memchr(c->in, '\n', c->in_len);
	if (!c->discarding && (nl || (c->read_closed && c->in_len &&
				      c->in_len < r->max_line))) {
		line_len = nl ? (size_t)(nl - c->in) : c->in_len;
		line = malloc(line_len + 1);
		if (!line)
			abort();
		memcpy(line, c->in, line_len);
		line[line_len] = 0;
	}
	c->tokens = 1e9;
	took = client_take_line(c);
	n = (size_t)(c->q_total - q0);
	out = malloc(n + 1);
	if (!out)
		abort();
	for (i = 0; i < n; i++)
		out[i] = c->q[(start + i) % c->q_cap];
	out[n] = 0;
	if (c->commands != cmds) {
		/* a line ran: the reference's next one */
		if (c->commands != cmds + 1 || !line ||
		    ref_next(r, &want, &want_len) != REF_LINE ||
		    want_len != line_len || memcmp(want, line, line_len))
			abort();
		if (blank(line, line_len) != !n)
			abort();	/* a reply exactly when there is a command */
	} else if (n) {
		/* a line too long */
		if (was_discarding || memmem(out, n, "line-too-long", 13) == NULL)
			abort();
		if (ref_next(r, &want, &want_len) != REF_TOO_LONG)
			abort();
	} else if (took && !c->discarding && !was_discarding) {
		abort();	/* took something, said nothing, ran nothing */
	}
	/* the reply: lines, the last of them its one final line */
	for (o = 0; o < n;) {
		char *e = memchr(out + o, '\n', n - o);

		if (!e)
			abort();
		check_line(out + o, (size_t)(e - out - o), c->format);
		kind = final_kind(out + o, (size_t)(e - out - o), c->format);
		finals += !!kind;
		if (kind && (size_t)(e - out) + 1 != n)
			abort();	/* a final line before the end */
		shms += c->format == FORMAT_JSON ?
			!strncmp(out + o, "{\"type\":\"shm\"", 13) :
			!strncmp(out + o, "shm ", 4);
		o = (size_t)(e - out) + 1;
	}
	if (n && finals != 1)
		abort();
	if (c->errors - errs != (kind == 2 ? 1u : 0u))
		abort();	/* nothing dropped without a word */
	/* one descriptor per shm reply, with its first byte */
	if (c->n_fds - fds != shms)
		abort();
	for (i = fds; i < c->n_fds; i++)
		if (c->fds[i].at != q0 || c->fds[i].end != c->q_total ||
		    c->fds[i].fd < 0)
			abort();
	free(out);
	free(line);
	return took;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct client *c;
	struct peer_user *u = &srv.users[0];
	struct ref r;
	size_t pos = 0, chunk, want_len;
	const uint8_t *want;

	if (size < 2)
		return 0;
	d.opt.max_line = data[0] & 4 ? 64 : 4096;
	chunk = data[1] ? data[1] : d.opt.max_line;
	c = calloc(1, sizeof(*c));
	if (!c)
		abort();
	c->in = malloc(d.opt.max_line + 1);
	c->q = malloc(d.opt.queue_bytes);
	c->subs = calloc(d.opt.max_subscriptions, sizeof(*c->subs));
	if (!c->in || !c->q || !c->subs)
		abort();
	c->srv = &srv;
	c->fd = -1;
	c->q_cap = d.opt.queue_bytes;
	c->id = ++srv.next_id;
	c->format = data[0] & 1 ? FORMAT_JSON : FORMAT_BOTTLE;
	c->admin = data[0] & 2;
	c->user = u;
	u->clients = 1;
	r.s = data + 2;
	r.size = size - 2;
	r.pos = 0;
	r.max_line = d.opt.max_line;
	data += 2;
	size -= 2;
	/* reads of @chunk bytes, as the socket gives them */
	while (!c->closing) {
		size_t room = d.opt.max_line - c->in_len, n = size - pos;

		if (n > chunk)
			n = chunk;
		if (n > room)
			n = room;
		if (!n && pos == size)
			c->read_closed = true;	/* EOF */
		memcpy(c->in + c->in_len, data + pos, n);
		c->in_len += n;
		pos += n;
		while (!c->closing && step(c, &r))
			;
		if (c->read_closed)
			break;
	}
	/* nothing run that the stream did not hold, nothing left out */
	if (!c->closing && ref_next(&r, &want, &want_len) != REF_END)
		abort();
	check_events(c, FORMAT_BOTTLE);
	check_events(c, FORMAT_JSON);
	drain(c);
	u->clients = 0;
	free(c->in);
	free(c->q);
	free(c->subs);
	free(c);
	settle();
	return 0;
}
