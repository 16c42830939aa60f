// SPDX-License-Identifier: GPL-2.0
/*
 * protocol.c - the socket's commands and the text of its lines
 *
 * Every line skind writes to a client, in bottle text or JSON, is worded
 * here: command replies, subscription events, and the server's own
 * (dropped, reload, calibrated, an error for a refused descriptor);
 * server.c only queues and sends them.
 *
 * docs/PROTOCOL.md is the specification; this file follows it.  A command
 * is one line of words; its reply is zero or more data lines and one last
 * line, "ok ..." or "error CODE TEXT" ({"type":"ok"|"error",...} in JSON).
 * Data lines of replies and subscription events have the same form, so a
 * client parses them with one function.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <skin/proc.h>

#include "client_io.h"
#include "bus.h"
#include "skin_clock.h"
#include "pipeline.h"
#include "protocol.h"
#include "skin.h"

#define MAX_WORDS	8

struct command {
	const char *name;
	const char *args;
	const char *help;
	bool admin;
	void (*run)(struct client *c, int argc, char **argv);
};

static const struct command commands[];

static bool json(const struct client *c)
{
	return c->format == FORMAT_JSON;
}

static struct skind_skin *skin_of(struct client *c)
{
	return c->srv->d->skin;
}

static const char *state_name(uint32_t state)
{
	if (state & SKIN_SHM_PART_CALIBRATING)
		return "calibrating";
	if (state & SKIN_SHM_PART_CALIBRATED)
		return "running";
	return "uncalibrated";
}

/* --- the lines every reply and event shares ------------------------------ */

/*
 * Every string of a JSON line goes through json_str(): @s escaped into
 * @buf (skin_json_escape(): always NUL-terminated, never a partial
 * escape) and @buf returned, for printf's arguments.  JSON_SIZE(n) is
 * what n bytes of text may need escaped (6 per byte: \u00XX).
 */
#define JSON_SIZE(n)		((n) * 6 + 1)
#define JSON_NAME_SIZE		JSON_SIZE(SKIN_SHM_NAME_LEN)

_Static_assert(PROTOCOL_NOTICE_SIZE >= JSON_SIZE(1024), "a notice line's room");

#define SHM_REFUSED_TEXT	"descriptors in flight at their bound; read the replies, or open the path"

static const char *json_str(char *buf, size_t len, const char *s)
{
	skin_json_escape(buf, len, s);
	return buf;
}

/* Bottle text: one line, no control characters. */
static void text_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* snprintf's length, 0 for an error or a line cut short */
static size_t line_len(int n, size_t len)
{
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}

/* A data line of a reply: @fmt's text and a newline, queued whole or counted. */
static void __attribute__((format(printf, 2, 3)))
reply_line(struct client *c, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;	/* replies built here are short */
	buf[n++] = '\n';
	if (!client_queue(c, buf, (size_t)n))
		c->errors++;
}

/* The final line of a reply that succeeded: "ok [TEXT]". */
static void __attribute__((format(printf, 2, 3)))
reply_ok(struct client *c, const char *fmt, ...)
{
	char msg[1024] = "", esc[JSON_SIZE(1024)];
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	if (c->format == FORMAT_JSON) {
		json_str(esc, sizeof(esc), msg);
		if (msg[0])
			reply_line(c, "{\"type\":\"ok\",\"message\":\"%s\"}", esc);
		else
			reply_line(c, "{\"type\":\"ok\"}");
	} else {
		text_clean(msg);
		reply_line(c, msg[0] ? "ok %s" : "ok", msg);
	}
}

static size_t error_line(char *buf, size_t len, enum client_format fmt,
			 const char *code, const char *msg)
{
	char esc[JSON_SIZE(1024)], ecode[JSON_SIZE(64)], clean[1024];
	int n;

	if (fmt == FORMAT_JSON) {
		n = snprintf(buf, len, "{\"type\":\"error\",\"code\":\"%s\",\"message\":\"%s\"}\n",
			     json_str(ecode, sizeof(ecode), code),
			     json_str(esc, sizeof(esc), msg));
	} else {
		snprintf(clean, sizeof(clean), "%s", msg);
		text_clean(clean);
		n = snprintf(buf, len, "error %s %s\n", code, clean);
	}
	return line_len(n, len);
}

/* The final line of a reply that failed: "error CODE TEXT". */
static void __attribute__((format(printf, 3, 4)))
reply_error(struct client *c, const char *code, const char *fmt, ...)
{
	char msg[1024], line[JSON_SIZE(1024) + JSON_SIZE(64) + 64];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->errors++;
	n = error_line(line, sizeof(line), c->format, code, msg);
	if (!n || !client_queue(c, line, n))
		c->errors++;
}

void protocol_line_too_long(struct client *c, unsigned int max_line)
{
	reply_error(c, "line-too-long",
		    "lines are at most %u bytes; skipped to the next newline",
		    max_line - 1);
}

void protocol_idle_timeout(struct client *c, unsigned int seconds)
{
	reply_error(c, "timeout", "no complete command in %u s; closing", seconds);
}

size_t protocol_shm_refused_line(char *buf, size_t len, enum client_format fmt)
{
	return error_line(buf, len, fmt, "too-many-descriptors", SHM_REFUSED_TEXT);
}

/* Before the connection is a client: no format yet, bottle text. */
size_t protocol_refused_line(char *buf, size_t len, bool per_user)
{
	int n = snprintf(buf, len, "error too-many-clients %s\n",
			 per_user ? "your user holds its share of the connections; close one" :
			 "the daemon serves its limit of clients; try again later");

	return line_len(n, len);
}

size_t protocol_dropped_line(char *buf, size_t len, enum client_format fmt,
			     uint64_t count, uint64_t total)
{
	int n;

	if (fmt == FORMAT_JSON)
		n = snprintf(buf, len, "{\"type\":\"dropped\",\"count\":%llu,\"total\":%llu}\n",
			     (unsigned long long)count, (unsigned long long)total);
	else
		n = snprintf(buf, len, "dropped %llu total %llu\n",
			     (unsigned long long)count, (unsigned long long)total);
	return line_len(n, len);
}

size_t protocol_reload_line(char *buf, size_t len, enum client_format fmt,
			    uint64_t generation)
{
	int n;

	if (fmt == FORMAT_JSON)
		n = snprintf(buf, len, "{\"type\":\"reload\",\"generation\":%llu}\n",
			     (unsigned long long)generation);
	else
		n = snprintf(buf, len, "reload generation %llu\n",
			     (unsigned long long)generation);
	return line_len(n, len);
}

size_t protocol_calibration_line(char *buf, size_t len, enum client_format fmt,
				 const struct skind_part *p, unsigned int events)
{
	char esc[JSON_SIZE(512)], name[JSON_NAME_SIZE];
	const char *why;
	int n;

	if (events & SKIN_PROC_EV_CALIBRATED) {
		if (fmt == FORMAT_JSON)
			n = snprintf(buf, len, "{\"type\":\"calibrated\",\"part\":\"%s\"}\n",
				     json_str(name, sizeof(name), p->name));
		else
			n = snprintf(buf, len, "calibrated %s\n", p->name);
		return line_len(n, len);
	}
	why = p->cal_reason;
	if (fmt == FORMAT_JSON)
		n = snprintf(buf, len, "{\"type\":\"calibration-failed\",\"part\":\"%s\",\"reason\":\"%s\"}\n",
			     json_str(name, sizeof(name), p->name),
			     json_str(esc, sizeof(esc), why));
	else
		n = snprintf(buf, len, "calibration-failed %s %s\n", p->name, why);
	return line_len(n, len);
}

/* --- event lines (also the data lines of contacts / taxels) ------------- */

static size_t line_cap(const struct skind_part *p, enum sub_kind kind)
{
	/* every taxel in some contact, and room for the numbers of each */
	if (kind == SUB_CONTACTS)
		return 1024 + (size_t)SKIND_MAX_CONTACTS * 768 + (size_t)p->n_taxels * 8;
	if (kind == SUB_SAMPLES)
		return 512;		/* the head: a name and four numbers */
	return 1024 + (size_t)p->n_taxels * 10;
}

/* decimal, without printf: head() runs for every line of every publication */
static char *put_u64(char *s, uint64_t v)
{
	char d[20];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*s++ = d[--n];
	return s;
}

static char *put_word(char *s, const char *w)
{
	size_t n = strlen(w);

	memcpy(s, w, n);
	s[n] = ' ';
	return s + n + 1;
}

static size_t head(char *buf, size_t len, const struct skind_part *p,
		   const char *what, enum client_format fmt)
{
	char name[JSON_NAME_SIZE], *s = buf;
	int n;

	/* bottle: "WHAT PART SAMPLE FRAME_TS_NS PUBLISH_NS " */
	if (fmt != FORMAT_JSON && strlen(what) + strlen(p->name) + 3 * 21 + 3 <= len) {
		s = put_word(s, what);
		s = put_word(s, p->name);
		s = put_u64(s, p->samples);
		*s++ = ' ';
		s = put_u64(s, p->frame_ts_ns);
		*s++ = ' ';
		s = put_u64(s, p->publish_ns);
		*s++ = ' ';
		*s = '\0';
		return (size_t)(s - buf);
	}

	if (fmt == FORMAT_JSON)
		n = snprintf(buf, len, "{\"type\":\"%s\",\"part\":\"%s\",\"sample\":%" PRIu64
			     ",\"frame_ts_ns\":%" PRIu64 ",\"publish_ns\":%" PRIu64
			     ",\"state\":\"%s\",", what,
			     json_str(name, sizeof(name), p->name), p->samples,
			     p->frame_ts_ns, p->publish_ns, state_name(p->state));
	else
		n = snprintf(buf, len, "%s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " ",
			     what, p->name, p->samples, p->frame_ts_ns,
			     p->publish_ns);
	return n < 0 ? 0 : (size_t)n;
}

/*
 * The publication's contacts (the snapshot shm readers and evdev got, cut
 * to SKIND_MAX_CONTACTS once, by the pipeline) as lib/proc's, for its
 * encoders: the processor is not read again at fan-out time.  A contact
 * without a positioned taxel has NaN positions here as in shm and in
 * lib/proc (skin/contact.h): the encoders write "nan" (bottle) and null
 * (JSON), as every other output says NaN.
 */
static unsigned int published_contacts(const struct skind_part *p,
				       struct skin_contact *out)
{
	unsigned int i, n = p->state & SKIN_SHM_PART_CALIBRATED ? p->n_contacts : 0;

	for (i = 0; i < n; i++) {
		const struct skin_contact_record *s = &p->contacts[i];
		struct skin_contact *c = &out[i];

		memset(c, 0, sizeof(*c));
		c->r = *s;
		c->part = p->index;
		c->body_part = p->mp->body_part;
		c->skin_part = p->mp->skin_part;
		c->link_number = p->mp->link_number;
		c->taxels = &p->contact_taxels[s->first_taxel];
	}
	return n;
}

static size_t contacts_line(char *buf, size_t len, struct skind_part *p,
			    enum client_format fmt)
{
	struct skin_contact c[SKIND_MAX_CONTACTS];
	unsigned int n = published_contacts(p, c);
	size_t o = head(buf, len, p, "contacts", fmt);
	int w;

	if (fmt == FORMAT_JSON) {
		/* {"contacts":[...]} without its opening brace */
		w = skin_contacts_json(buf + o - 1, len - o + 1, p->skin->model,
				       n ? c : NULL, n);
		if (w < 0 || (size_t)w >= len - o + 1)
			return 0;
		buf[o - 1] = ',';	/* its '{' continues our object */
		o += (size_t)w - 1;
	} else {
		w = skin_contacts_bottle(buf + o, len - o, n ? c : NULL, n);
		if (w < 0 || (size_t)w >= len - o)
			return 0;
		o += (size_t)w;
	}
	if (o + 2 > len)
		return 0;
	buf[o++] = '\n';
	buf[o] = 0;
	return o;
}

static size_t taxels_line(char *buf, size_t len, struct skind_part *p,
			  enum client_format fmt)
{
	size_t o = head(buf, len, p, "taxels", fmt);
	unsigned int i;
	bool first;
	int w;

	w = snprintf(buf + o, len - o, fmt == FORMAT_JSON ? "\"values\":[" : "(");
	o += (size_t)w;
	/* not snprintf: its %.4g was most of the hop to a subscriber */
	for (i = 0; i < p->n_taxels && o + 32 < len; i++) {
		if (i)
			buf[o++] = fmt == FORMAT_JSON ? ',' : ' ';
		o += (size_t)skin_value_g4(buf + o, len - o, p->values[i]);
	}
	w = snprintf(buf + o, len - o, fmt == FORMAT_JSON ? "],\"touched\":[" : ") (");
	o += (size_t)w;
	first = true;
	for (i = 0; i < p->n_taxels && o + 32 < len; i++) {
		if (!(p->flags[i] & SKIN_SHM_TAXEL_TOUCHED))
			continue;
		w = snprintf(buf + o, len - o, first ? "%u" : (fmt == FORMAT_JSON ? ",%u" : " %u"), i);
		o += (size_t)w;
		first = false;
	}
	if (o + 32 >= len)
		return 0;
	w = snprintf(buf + o, len - o, fmt == FORMAT_JSON ? "]}\n" : ")\n");
	o += (size_t)w;
	return o;
}

/*
 * The part's touch thresholds as its snapshot holds them (pipeline.c),
 * under the head of its latest publication; empty before its first
 * calibration.  @len: thresholds_cap(p).
 */
static size_t thresholds_cap(const struct skind_part *p)
{
	return 1024 + (size_t)p->n_taxels * 24;	/* "%.9g" and a separator */
}

static size_t thresholds_line(char *buf, size_t len, struct skind_part *p,
			      enum client_format fmt)
{
	size_t o = head(buf, len, p, "thresholds", fmt);
	unsigned int i, n = p->thr_valid ? p->n_taxels : 0;
	int w;

	w = snprintf(buf + o, len - o, fmt == FORMAT_JSON ? "\"thresholds\":[" : "(");
	o += (size_t)w;
	for (i = 0; i < n && o + 32 < len; i++) {
		w = snprintf(buf + o, len - o, i ? " %.9g" : "%.9g", p->thr[i]);
		if (fmt == FORMAT_JSON && i)
			buf[o] = ',';
		o += (size_t)w;
	}
	if (o + 32 >= len)
		return 0;
	w = snprintf(buf + o, len - o, fmt == FORMAT_JSON ? "]}\n" : ")\n");
	return o + (size_t)w;
}

/* The head alone: which publication, when; shm readers copy the rest. */
static size_t sample_line(char *buf, size_t len, struct skind_part *p,
			  enum client_format fmt)
{
	size_t o = head(buf, len, p, "sample", fmt);

	/* head() leaves "," (JSON) or " " (bottle) for what follows */
	if (!o || o + 2 >= len)
		return 0;
	if (fmt == FORMAT_JSON) {
		buf[o - 1] = '}';
		buf[o++] = '\n';
	} else {
		buf[o - 1] = '\n';
	}
	buf[o] = 0;
	return o;
}

_Static_assert(sizeof(((struct skind_line_cache *)0)->cap) / sizeof(size_t) == SUB_KINDS,
	       "a cached line per subscription kind");

/*
 * The line of a part's latest publication, formatted once per publication
 * and format however many subscribers want it.
 */
void protocol_event_line(struct skind_part *p, enum sub_kind kind,
			 enum client_format fmt, char **line, size_t *len)
{
	struct skind_line_cache *lc = &p->cache;
	unsigned int k = kind, f = fmt;

	*line = NULL;
	*len = 0;
	if (lc->sample != p->samples) {
		lc->sample = p->samples;
		memset(lc->len, 0, sizeof(lc->len));
	}
	if (!lc->line[k][f]) {
		lc->cap[k] = line_cap(p, kind);
		lc->line[k][f] = malloc(lc->cap[k]);
		if (!lc->line[k][f])
			return;
	}
	if (!lc->len[k][f]) {
		if (kind == SUB_CONTACTS)
			lc->len[k][f] = contacts_line(lc->line[k][f], lc->cap[k], p, fmt);
		else if (kind == SUB_TAXELS)
			lc->len[k][f] = taxels_line(lc->line[k][f], lc->cap[k], p, fmt);
		else
			lc->len[k][f] = sample_line(lc->line[k][f], lc->cap[k], p, fmt);
	}
	if (lc->len[k][f]) {
		*line = lc->line[k][f];
		*len = lc->len[k][f];
	}
}

/* --- commands ------------------------------------------------------------ */

static struct skind_part *part_arg(struct client *c, const char *name)
{
	struct skind_part *p = skind_skin_part(skin_of(c), name);

	if (!p)
		reply_error(c, "no-such-part", "no part '%.64s'; 'parts' lists them", name);
	return p;
}

static void cmd_help(struct client *c, int argc, char **argv)
{
	char name[JSON_SIZE(16)], args[JSON_SIZE(64)], help[JSON_SIZE(128)];
	const struct command *cmd;

	(void)argc;
	(void)argv;
	for (cmd = commands; cmd->name; cmd++) {
		if (json(c))
			reply_line(c, "{\"type\":\"help\",\"command\":\"%s\",\"args\":\"%s\",\"help\":\"%s\",\"admin\":%s}",
				   json_str(name, sizeof(name), cmd->name),
				   json_str(args, sizeof(args), cmd->args),
				   json_str(help, sizeof(help), cmd->help),
				   cmd->admin ? "true" : "false");
		else
			reply_line(c, "help %s%s%s -- %s%s", cmd->name,
				   cmd->args[0] ? " " : "", cmd->args, cmd->help,
				   cmd->admin ? " (admin)" : "");
	}
	reply_ok(c, NULL);
}

/* A bus the patches use, as rtnetlink said last (bus.h). */
static void bus_line(struct client *c, const struct skind_bus *b)
{
	char name[JSON_NAME_SIZE];

	if (json(c))
		reply_line(c, "{\"type\":\"bus\",\"name\":\"%s\",\"link\":\"%s\",\"bitrate\":%u,"
			   "\"configured\":%u,\"state\":\"%s\"}",
			   json_str(name, sizeof(name), b->name), bus_link_name(b->link),
			   b->bitrate, b->configured, bus_state_name(b));
	else
		reply_line(c, "bus %s link %s bitrate %u configured %u state %s",
			   b->name, bus_link_name(b->link), b->bitrate, b->configured,
			   bus_state_name(b));
}

static void cmd_status(struct client *c, int argc, char **argv)
{
	struct skind *d = c->srv->d;
	struct skind_skin *s = d->skin;
	unsigned int i, attached = 0, calibrated = 0, buses_ok = 0;
	char version[JSON_SIZE(sizeof(SKIND_VERSION))], buf[32];
	double up = (double)(clock_monotonic_ns() - d->start_ns) / 1e9;

	(void)argc;
	(void)argv;
	for (i = 0; i < s->n_parts; i++) {
		attached += s->parts[i].attached;
		calibrated += !!(s->parts[i].state & SKIN_SHM_PART_CALIBRATED);
	}
	for (i = 0; i < d->n_buses; i++)
		buses_ok += d->buses[i].link != BUS_LINK_UNKNOWN &&
			    !bus_trouble(&d->buses[i], buf, sizeof(buf));
	if (json(c))
		reply_line(c, "{\"type\":\"status\",\"version\":\"%s\",\"protocol\":%d,\"pid\":%d,"
			   "\"generation\":%" PRIu64 ",\"uptime_s\":%.3f,\"parts\":%u,"
			   "\"calibrated\":%u,\"patches\":%u,\"attached\":%u,\"clients\":%u,"
			   "\"max_clients\":%u,\"refused\":%" PRIu64 ",\"drops\":%" PRIu64
			   ",\"overloads\":%" PRIu64 ",\"shm_refused\":%" PRIu64
			   ",\"max_user_clients\":%u,\"refused_user\":%" PRIu64
			   ",\"timeouts\":%" PRIu64 ",\"admin\":%s,\"buses\":%u,\"buses_ok\":%u}",
			   json_str(version, sizeof(version), SKIND_VERSION),
			   SKIND_PROTOCOL_VERSION, (int)getpid(),
			   d->generation, up, s->n_parts, calibrated, s->n_patches,
			   attached, c->srv->n_clients, d->opt.max_clients,
			   c->srv->refused, c->srv->total_drops, d->rt_overloads,
			   c->srv->fds_refused, d->opt.max_user_clients,
			   c->srv->refused_user, c->srv->timeouts,
			   c->admin ? "true" : "false", d->n_buses, buses_ok);
	else
		reply_line(c, "status version %s protocol %d pid %d generation %" PRIu64
			   " uptime_s %.3f parts %u calibrated %u patches %u attached %u"
			   " clients %u max_clients %u refused %" PRIu64 " drops %" PRIu64
			   " overloads %" PRIu64 " shm_refused %" PRIu64
			   " max_user_clients %u refused_user %" PRIu64 " timeouts %" PRIu64
			   " admin %d buses %u buses_ok %u",
			   SKIND_VERSION, SKIND_PROTOCOL_VERSION, (int)getpid(),
			   d->generation, up, s->n_parts, calibrated, s->n_patches,
			   attached, c->srv->n_clients, d->opt.max_clients,
			   c->srv->refused, c->srv->total_drops, d->rt_overloads,
			   c->srv->fds_refused, d->opt.max_user_clients,
			   c->srv->refused_user, c->srv->timeouts, c->admin,
			   d->n_buses, buses_ok);
	reply_ok(c, NULL);
}

static void cmd_buses(struct client *c, int argc, char **argv)
{
	struct skind *d = c->srv->d;
	unsigned int i;

	(void)argc;
	(void)argv;
	for (i = 0; i < d->n_buses; i++)
		bus_line(c, &d->buses[i]);
	reply_ok(c, NULL);
}

static void part_lines(struct client *c, struct skind_part *p)
{
	const struct skin_part *mp = p->mp;
	char name[JSON_NAME_SIZE], pname[JSON_NAME_SIZE], bus[JSON_NAME_SIZE];
	unsigned int k;

	if (json(c))
		reply_line(c, "{\"type\":\"part\",\"name\":\"%s\",\"skin_part\":%u,\"body_part\":%u,"
			   "\"link\":%d,\"taxels\":%u,\"patches\":%u,\"attached\":%u,"
			   "\"state\":\"%s\",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
			   ",\"contacts\":%u}",
			   json_str(name, sizeof(name), p->name), mp->skin_part, mp->body_part, mp->link_number,
			   p->n_taxels, p->n_patches, p->attached,
			   state_name(p->state), p->samples, p->lost, p->n_contacts);
	else
		reply_line(c, "part %s skin_part %u body_part %u link %d taxels %u patches %u"
			   " attached %u state %s samples %" PRIu64 " lost %" PRIu64
			   " contacts %u",
			   p->name, mp->skin_part, mp->body_part, mp->link_number,
			   p->n_taxels, p->n_patches, p->attached,
			   state_name(p->state), p->samples, p->lost, p->n_contacts);
	for (k = 0; k < p->n_patches; k++) {
		struct skind_patch *pt = &p->patches[k];

		if (json(c))
			reply_line(c, "{\"type\":\"patch\",\"part\":\"%s\",\"name\":\"%s\",\"bus\":\"%s\","
				   "\"address\":%d,\"attached\":%s,\"frames\":%" PRIu64
				   ",\"lost\":%" PRIu64 ",\"partial\":%" PRIu64
				   ",\"skipped\":%" PRIu64 ",\"silent\":%s,\"listen_only\":%s}",
				   json_str(name, sizeof(name), p->name),
				   json_str(pname, sizeof(pname), pt->name),
				   json_str(bus, sizeof(bus), pt->ifname), pt->address,
				   pt->attached ? "true" : "false", pt->frames,
				   pt->lost, pt->partial, pt->skipped,
				   pt->silent ? "true" : "false",
				   pt->listen_only ? "true" : "false");
		else
			reply_line(c, "patch %s %s bus %s address %d %s frames %" PRIu64
				   " lost %" PRIu64 " partial %" PRIu64 " skipped %" PRIu64
				   " silent %d listen_only %d",
				   p->name, pt->name, pt->ifname, pt->address,
				   pt->attached ? "attached" : "detached", pt->frames,
				   pt->lost, pt->partial, pt->skipped, pt->silent,
				   pt->listen_only);
	}
}

static void cmd_parts(struct client *c, int argc, char **argv)
{
	struct skind_skin *s = skin_of(c);
	unsigned int i;

	if (argc > 1) {
		struct skind_part *p = part_arg(c, argv[1]);

		if (!p)
			return;
		part_lines(c, p);
	} else {
		for (i = 0; i < s->n_parts; i++)
			part_lines(c, &s->parts[i]);
	}
	reply_ok(c, NULL);
}

/*
 * contacts [PART] / taxels PART: the latest publication, as events carry
 * it.  False when it could not be queued: the reply has then ended with
 * its error line, and no "ok" may follow.
 */
static bool snapshot(struct client *c, struct skind_part *p, enum sub_kind kind)
{
	size_t len;
	char *line;

	protocol_event_line(p, kind, c->format, &line, &len);
	if (!line || !client_queue(c, line, len)) {
		reply_error(c, "internal", "the reply did not fit");
		return false;
	}
	return true;
}

static void cmd_contacts(struct client *c, int argc, char **argv)
{
	struct skind_skin *s = skin_of(c);
	unsigned int i;

	if (argc > 1) {
		struct skind_part *p = part_arg(c, argv[1]);

		if (!p || !snapshot(c, p, SUB_CONTACTS))
			return;
	} else {
		for (i = 0; i < s->n_parts; i++)
			if (!snapshot(c, &s->parts[i], SUB_CONTACTS))
				return;
	}
	reply_ok(c, NULL);
}

static void cmd_taxels(struct client *c, int argc, char **argv)
{
	struct skind_part *p;

	if (argc != 2) {
		reply_error(c, "usage", "taxels PART");
		return;
	}
	p = part_arg(c, argv[1]);
	if (p && snapshot(c, p, SUB_TAXELS))
		reply_ok(c, NULL);
}

static void cmd_thresholds(struct client *c, int argc, char **argv)
{
	struct skind_part *p;
	size_t len, cap;
	char *line;

	if (argc != 2) {
		reply_error(c, "usage", "thresholds PART");
		return;
	}
	p = part_arg(c, argv[1]);
	if (!p)
		return;
	cap = thresholds_cap(p);
	line = malloc(cap);
	len = line ? thresholds_line(line, cap, p, c->format) : 0;
	if (!len || !client_queue(c, line, len))
		reply_error(c, "internal", "the reply did not fit");
	else
		reply_ok(c, NULL);
	free(line);
}

/*
 * faults [PART]: a `fault` line per faulty taxel, as lib/proc holds them
 * now (the processor is read here, outside the real-time path; its fault
 * flags change only in a feed, which runs on this thread too), with the
 * raw value of the part's newest publication and the current baseline.
 * A reply bigger than the connection's queue ends in `error truncated`
 * after the lines that fit.
 */
#define FAULT_LINE_MAX	(JSON_NAME_SIZE + 256)
#define FAULT_FINAL_ROOM	512	/* the final line, `error truncated`
					 * with two counts: under 256 bytes */

static size_t fault_line(char *buf, size_t len, const struct skind_part *p,
			 const struct skin_taxel_fault *f, enum client_format fmt)
{
	char names[128], name[JSON_NAME_SIZE], baseline[32], *s, *w;
	size_t o;
	int n;

	skin_fault_names(f->flags, names, sizeof(names));
	snprintf(baseline, sizeof(baseline), "%.4g", p->proc_baselines[f->taxel]);
	if (fmt != FORMAT_JSON) {
		n = snprintf(buf, len, "fault %s %u %s %" PRIu64 " raw %u baseline %s\n",
			     p->name, f->taxel, names, f->since_ns,
			     p->raw[f->taxel], baseline);
		return line_len(n, len);
	}
	n = snprintf(buf, len, "{\"type\":\"fault\",\"part\":\"%s\",\"taxel\":%u,\"flags\":[",
		     json_str(name, sizeof(name), p->name), f->taxel);
	o = line_len(n, len);
	/* the names as a list: "stuck","noisy" (words of [a-z] alone) */
	for (s = names; o && *s; s = w + (*w == ',')) {
		w = s + strcspn(s, ",");
		n = snprintf(buf + o, len - o, "%s\"%.*s\"", s == names ? "" : ",",
			     (int)(w - s), s);
		o = line_len(n, len - o) ? o + (size_t)n : 0;
	}
	if (!o)
		return 0;
	n = snprintf(buf + o, len - o, "],\"since_ns\":%" PRIu64 ",\"raw\":%u,\"baseline\":%s}\n",
		     f->since_ns, p->raw[f->taxel], baseline);
	return line_len(n, len - o) ? o + (size_t)n : 0;
}

/* The part's fault lines; false when the reply has ended (an error). */
static bool fault_lines(struct client *c, struct skind_part *p,
			unsigned int *listed, unsigned int *total)
{
	struct skind_skin *s = skin_of(c);
	struct skin_taxel_fault *f;
	char line[FAULT_LINE_MAX];
	int n, i;

	n = pipeline_fault_list(s, p->index, NULL, 0);
	if (n <= 0)
		return true;
	f = calloc((size_t)n, sizeof(*f));
	if (!f) {
		reply_error(c, "internal", "out of memory");
		return false;
	}
	n = pipeline_fault_list(s, p->index, f, (unsigned int)n);
	for (i = 0; i < n; i++) {
		size_t len = fault_line(line, sizeof(line), p, &f[i], c->format);

		/* the lines that fit, in order, with room for the final
		 * line after the last: once one does not, none follows */
		if (*listed == (*total)++ && len &&
		    len + FAULT_FINAL_ROOM <= client_queue_room(c) &&
		    client_queue(c, line, len))
			*listed += 1;
	}
	free(f);
	return true;
}

static void cmd_faults(struct client *c, int argc, char **argv)
{
	struct skind_skin *s = skin_of(c);
	struct skind_part *p = NULL;
	unsigned int i, listed = 0, total = 0;

	if (argc > 2) {
		reply_error(c, "usage", "faults [PART]");
		return;
	}
	if (argc == 2 && !(p = part_arg(c, argv[1])))
		return;
	for (i = 0; i < s->n_parts; i++)
		if ((!p || p == &s->parts[i]) &&
		    !fault_lines(c, &s->parts[i], &listed, &total))
			return;
	if (listed < total)
		reply_error(c, "truncated",
			    "%u faulty taxels, %u listed: the rest does not fit the connection's queue; ask per part, or read the flags in the shared memory",
			    total, listed);
	else
		reply_ok(c, NULL);
}

static int parse_rate(struct client *c, const char *s, unsigned int *rate)
{
	unsigned int max = c->srv->d->opt.max_rate_hz;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max) {
		reply_error(c, "bad-value", "RATE is a whole number of hertz, 1..%u", max);
		return -1;
	}
	*rate = (unsigned int)v;
	return 0;
}

/* contacts|taxels|samples: 0 with *kind, or -1 */
static int sub_kind_arg(const char *word, enum sub_kind *kind)
{
	static const char *const names[SUB_KINDS] = {
		[SUB_CONTACTS] = "contacts",
		[SUB_TAXELS] = "taxels",
		[SUB_SAMPLES] = "samples",
	};
	unsigned int k;

	for (k = 0; k < SUB_KINDS; k++)
		if (!strcmp(word, names[k])) {
			*kind = (enum sub_kind)k;
			return 0;
		}
	return -1;
}

static void cmd_subscribe(struct client *c, int argc, char **argv)
{
	struct skind_skin *s = skin_of(c);
	unsigned int rate = 0, i, n = 0;
	enum sub_kind kind;
	int r = 0;

	if (argc < 3 || argc > 4 || sub_kind_arg(argv[1], &kind) < 0) {
		reply_error(c, "usage", "subscribe contacts|taxels|samples PART|all [RATE]");
		return;
	}
	if (argc == 4 && parse_rate(c, argv[3], &rate) < 0)
		return;
	if (!strcmp(argv[2], "all")) {
		for (i = 0; i < s->n_parts && r >= 0; i++, n++)
			r = client_subscribe(c, kind, s->parts[i].name, rate);
	} else {
		if (!part_arg(c, argv[2]))
			return;
		r = client_subscribe(c, kind, argv[2], rate);
		n = 1;
	}
	if (r == -ENOSPC) {
		reply_error(c, "too-many-subscriptions", "at most %u per client",
			    c->srv->d->opt.max_subscriptions);
		return;
	}
	if (rate)
		reply_ok(c, "subscribed %s %s %u", argv[1], argv[2], rate);
	else
		reply_ok(c, "subscribed %s %s every", argv[1], argv[2]);
}

static void cmd_unsubscribe(struct client *c, int argc, char **argv)
{
	enum sub_kind k;
	int kind = -1;
	unsigned int n;

	if (argc > 3 || (argc > 1 && strcmp(argv[1], "all") &&
			 sub_kind_arg(argv[1], &k) < 0)) {
		reply_error(c, "usage", "unsubscribe [contacts|taxels|samples|all [PART]]");
		return;
	}
	if (argc > 1 && strcmp(argv[1], "all"))
		kind = (int)k;
	n = client_unsubscribe(c, kind, argc > 2 ? argv[2] : NULL);
	reply_ok(c, "unsubscribed %u", n);
}

static void cmd_calibrate(struct client *c, int argc, char **argv)
{
	struct skind_skin *s = skin_of(c);
	struct skind_part *p = NULL;
	unsigned int i;
	int r;

	if (argc > 2) {
		reply_error(c, "usage", "calibrate [PART]");
		return;
	}
	if (argc == 2 && !(p = part_arg(c, argv[1])))
		return;
	r = pipeline_calibrate(s, p ? (int)p->index : -1);
	if (r < 0) {
		reply_error(c, "internal", "calibration not started: %s", strerror(-r));
		return;
	}
	for (i = 0; i < s->n_parts; i++)
		if (!p || p == &s->parts[i])
			client_wait_calibration(c, &s->parts[i]);
	reply_ok(c, "calibrating %s %.3g s", p ? p->name : "all",
		 pipeline_calibration_s(s));
}

static void param_line(struct client *c, const char *name)
{
	char value[256], jname[JSON_SIZE(64)], jvalue[JSON_SIZE(256)];
	int r = pipeline_get(skin_of(c), name, value, sizeof(value));

	if (r < 0)
		return;
	if (json(c))
		reply_line(c, "{\"type\":\"param\",\"name\":\"%s\",\"value\":\"%s\"}",
			   json_str(jname, sizeof(jname), name),
			   json_str(jvalue, sizeof(jvalue), value));
	else
		reply_line(c, "param %s %s", name, value);
}

static void cmd_get(struct client *c, int argc, char **argv)
{
	const char *const *names = pipeline_param_names();
	char value[256];
	int r;

	if (argc > 2) {
		reply_error(c, "usage", "get [PARAM]");
		return;
	}
	if (argc == 1) {
		for (; *names; names++)
			param_line(c, *names);
		reply_ok(c, NULL);
		return;
	}
	r = pipeline_get(skin_of(c), argv[1], value, sizeof(value));
	if (r < 0) {
		reply_error(c, "unknown-param", "no parameter '%.64s'; 'get' lists them",
			    argv[1]);
		return;
	}
	param_line(c, argv[1]);
	reply_ok(c, NULL);
}

static void cmd_set(struct client *c, int argc, char **argv)
{
	char why[256] = "";
	int r;

	if (argc != 3) {
		reply_error(c, "usage", "set PARAM VALUE");
		return;
	}
	r = pipeline_set(skin_of(c), argv[1], argv[2], why, sizeof(why));
	if (r == -ENOENT)
		reply_error(c, "unknown-param", "no parameter '%.64s'; 'get' lists them",
			    argv[1]);
	else if (r == -EROFS)
		reply_error(c, "read-only", "%s cannot change while skind runs", argv[1]);
	else if (r < 0)
		reply_error(c, "bad-value", "%s", why[0] ? why : strerror(-r));
	else {
		param_line(c, argv[1]);
		reply_ok(c, NULL);
	}
}

static void cmd_format(struct client *c, int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "bottle") && strcmp(argv[1], "json"))) {
		reply_error(c, "usage", "format bottle|json");
		return;
	}
	c->format = !strcmp(argv[1], "json") ? FORMAT_JSON : FORMAT_BOTTLE;
	reply_ok(c, "format %s", argv[1]);
}

static void cmd_shm(struct client *c, int argc, char **argv)
{
	struct skind *d = c->srv->d;
	struct skind_skin *s = d->skin;
	uint64_t at = c->q_total;
	int fd;

	(void)argv;
	if (argc != 1) {
		reply_error(c, "usage", "shm");
		return;
	}
	if (client_fd_room(c) < 0) {
		reply_error(c, "too-many-descriptors", SHM_REFUSED_TEXT);
		return;
	}
	fd = fcntl(s->shm_ro_fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		reply_error(c, "internal", "cannot pass the descriptor: %s", strerror(errno));
		return;
	}
	if (json(c)) {
		size_t n = skin_json_escape(NULL, 0, d->opt.shm_path) + 1;
		char *path = malloc(n);

		if (!path) {
			close(fd);
			reply_error(c, "internal", "out of memory");
			return;
		}
		reply_line(c, "{\"type\":\"shm\",\"path\":\"%s\",\"size\":%zu,\"generation\":%" PRIu64
			   ",\"version\":\"%d.%d\"}", json_str(path, n, d->opt.shm_path),
			   s->shm_size, s->generation, SKIN_SHM_VERSION_MAJOR,
			   SKIN_SHM_VERSION_MINOR);
		free(path);
	} else
		reply_line(c, "shm %s size %zu generation %" PRIu64 " version %d.%d",
			   d->opt.shm_path, s->shm_size, s->generation,
			   SKIN_SHM_VERSION_MAJOR, SKIN_SHM_VERSION_MINOR);
	reply_ok(c, NULL);
	client_pass_fd(c, fd, at);	/* with the first byte of this reply */
}

static void cmd_quit(struct client *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	reply_ok(c, "bye");
	client_close_after_reply(c);
}

static const struct command commands[] = {
	{ "help", "", "this list", false, cmd_help },
	{ "status", "", "the daemon: version, parts, patches, clients", false, cmd_status },
	{ "buses", "", "each CAN bus the patches use: link, bitrate, error state", false, cmd_buses },
	{ "parts", "[PART]", "each part and its patches: state and counters", false, cmd_parts },
	{ "contacts", "[PART]", "the latest contacts of a part (or every part)", false, cmd_contacts },
	{ "taxels", "PART", "the latest compensated values and touched taxels of a part", false, cmd_taxels },
	{ "thresholds", "PART", "the touch thresholds of a part's taxels, from its calibration", false, cmd_thresholds },
	{ "faults", "[PART]", "the faulty taxels of a part (or every part): what is wrong, since when", false, cmd_faults },
	{ "subscribe", "contacts|taxels|samples PART|all [RATE]", "receive every publication (or RATE per second at most)", false, cmd_subscribe },
	{ "unsubscribe", "[contacts|taxels|samples|all [PART]]", "stop receiving", false, cmd_unsubscribe },
	{ "calibrate", "[PART]", "calibrate a part (or every part); do not touch it meanwhile", true, cmd_calibrate },
	{ "get", "[PARAM]", "a processing parameter (or all of them)", false, cmd_get },
	{ "set", "PARAM VALUE", "change a processing parameter until skind restarts", true, cmd_set },
	{ "format", "bottle|json", "the form of this connection's lines", false, cmd_format },
	{ "shm", "", "the shared memory object: its path, and a read-only descriptor (SCM_RIGHTS)", false, cmd_shm },
	{ "quit", "", "close the connection", false, cmd_quit },
	{ NULL, NULL, NULL, false, NULL },
};

void protocol_command(struct client *c, char *line)
{
	char *argv[MAX_WORDS + 1], *save = NULL, *w;
	const struct command *cmd;
	int argc = 0;

	for (w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (argc == MAX_WORDS) {
			reply_error(c, "usage", "too many words (at most %d)", MAX_WORDS);
			return;
		}
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	if (!argc)
		return;			/* an empty line is no command */
	for (cmd = commands; cmd->name; cmd++)
		if (!strcmp(cmd->name, argv[0]))
			break;
	if (!cmd->name) {
		reply_error(c, "unknown-command", "'%.64s'; 'help' lists the commands",
			    argv[0]);
		return;
	}
	if (cmd->admin && !c->admin) {
		reply_error(c, "permission-denied",
			    "%s needs root or the admin group", cmd->name);
		return;
	}
	cmd->run(c, argc, argv);
}
