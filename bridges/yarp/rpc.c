// SPDX-License-Identifier: GPL-2.0
/*
 * rpc.c - skinManager's rpc commands on skind's socket
 *
 * /skinManager/rpc:i takes the commands skinManagerGui sends
 * (../shared/BRIDGES.md section 1) and maps each onto skind's socket
 * (docs/PROTOCOL.md) over one connection of the bridge's own, without
 * waiting: commands are sent as they come, skind answers in order, and
 * each answer completes the oldest call.  State-changing commands (calib,
 * set) come from network peers that skind cannot see: the bridge passes
 * them on only with rpc_admin = true, and skind then applies its own rule
 * to the bridge's user (admin group).  A command skind has no equivalent
 * for is answered [fail] with the reason.  `get touch thr` takes one
 * `thresholds PART` per part, answered as one call once the last is in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"

/* `get touch thr`: every part's thresholds, in the bridge's part order */
struct thr_reply {
	double *v;
	size_t n, cap;
	char why[200];		/* the first failure; "" none */
};

struct pending {
	struct pending *next;
	struct yp_call *call;	/* NULL: a part of `get touch thr` but its last */
	bool get;		/* the reply is the "param" line's value */
	bool boolean;		/* and that value is on/off */
	char value[128];
	struct thr_reply *thr;	/* shared by the parts' commands; the last frees */
	const char *part;	/* the part this one asked for */
};

struct yb_rpc {
	struct yb *b;
	struct skin_client *c;
	sd_event_source *io;
	struct pending *head, **tail;
};

/* skinManager's command (words) -> skind's parameter */
static const struct {
	const char *words;
	const char *param;
	bool boolean;
} params[] = {
	{ "binarization", "binarization", true },
	{ "smooth filter", "smooth_filter", true },
	{ "smooth factor", "smooth_factor", false },
	{ "threshold", "add_threshold", false },
	{ "gain", "compensation_gain", false },
	{ "contact gain", "contact_compensation_gain", false },
};

/*
 * skinManagerGui sends each command as its number in skinManager's
 * SkinManagerCommand (skinManager.h), not as words: these are the first
 * sixteen, the same in every version of that enum.
 */
static const char *const by_number[] = {
	"calib", "get touch thr", "set binarization", "get binarization",
	"set smooth filter", "get smooth filter", "set smooth factor",
	"get smooth factor", "set threshold", "get threshold", "set gain",
	"get gain", "set contact gain", "get contact gain", "is calibrating",
	"get info",
};

static const char *const help[] = {
	"calib                     # calibrate every part (rpc_admin)",
	"get touch thr             # every taxel's touch threshold, part after part",
	"set|get binarization on|off",
	"set|get smooth filter on|off",
	"set|get smooth factor [0,1]",
	"set|get threshold 0..254  # added to every touch threshold",
	"set|get gain              # compensation gain",
	"set|get contact gain      # compensation gain under contact",
	"is calibrating",
	"get info",
	"help",
};

static void reply_fail(struct yp_call *call, const char *why)
{
	struct yw_atom a[2];

	memset(a, 0, sizeof(a));
	a[0].type = YW_ATOM_VOCAB;
	snprintf(a[0].s, sizeof(a[0].s), "fail");
	a[1].type = YW_ATOM_STRING;
	snprintf(a[1].s, sizeof(a[1].s), "%s", why);
	yp_call_reply(call, a, 2);
}

static void reply_ok(struct yp_call *call)
{
	struct yw_atom a = { .type = YW_ATOM_VOCAB, .s = "ok" };

	yp_call_reply(call, &a, 1);
}

static void pending_free(struct pending *p)
{
	if (p->thr && p->call) {
		free(p->thr->v);
		free(p->thr);
	}
	free(p);
}

/* skinManager's reply: one float64 per taxel, nothing else */
static void reply_thresholds(struct yp_call *call, const struct thr_reply *t)
{
	struct yw_atom *a;
	size_t i;

	if (t->why[0]) {
		reply_fail(call, t->why);
		return;
	}
	a = calloc(t->n ? t->n : 1, sizeof(*a));
	if (!a) {
		reply_fail(call, "out of memory");
		return;
	}
	for (i = 0; i < t->n; i++) {
		a[i].type = YW_ATOM_FLOAT;
		a[i].f = t->v[i];
	}
	yp_call_reply(call, a, (unsigned int)t->n);
	free(a);
}

/* A "thresholds PART ... (T0 T1 ...)" line (docs/PROTOCOL.md) */
static void take_thresholds(struct pending *p, const char *line)
{
	struct thr_reply *t = p->thr;
	const char *s = strchr(line, '(');
	char *end;
	double v;

	if (t->why[0])
		return;
	if (!s) {
		snprintf(t->why, sizeof(t->why), "skind sent no thresholds for %s", p->part);
		return;
	}
	for (s++; *s == ' '; s++)
		;
	if (*s == ')') {
		snprintf(t->why, sizeof(t->why), "part %s is not calibrated yet", p->part);
		return;
	}
	while (*s && *s != ')') {
		v = strtod(s, &end);
		if (end == s) {
			snprintf(t->why, sizeof(t->why), "skind's thresholds of %s do not parse", p->part);
			return;
		}
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 256;
			double *nv = realloc(t->v, cap * sizeof(*nv));

			if (!nv) {
				snprintf(t->why, sizeof(t->why), "out of memory");
				return;
			}
			t->v = nv;
			t->cap = cap;
		}
		t->v[t->n++] = v;
		for (s = end; *s == ' '; s++)
			;
	}
}

static void disconnect(struct yb_rpc *r, const char *why)
{
	struct pending *p;

	while ((p = r->head)) {
		r->head = p->next;
		if (p->call)
			reply_fail(p->call, why);
		pending_free(p);
	}
	r->tail = &r->head;
	r->io = sd_event_source_disable_unref(r->io);
	skin_client_close(r->c);
	r->c = NULL;
}

static void complete(struct yb_rpc *r, const char *line)
{
	struct pending *p = r->head;
	struct yw_atom a;
	char *end;

	if (!p)
		return;		/* nothing asked: an event, ignored */
	r->head = p->next;
	if (!r->head)
		r->tail = &r->head;
	if (p->thr) {
		if (!strncmp(line, "error", 5) && !p->thr->why[0])
			snprintf(p->thr->why, sizeof(p->thr->why), "%s", line);
		if (p->call)
			reply_thresholds(p->call, p->thr);
	} else if (!strncmp(line, "error", 5)) {
		reply_fail(p->call, line);
	} else if (!p->get) {
		reply_ok(p->call);
	} else if (!p->value[0]) {
		reply_fail(p->call, "skind sent no value");
	} else {
		memset(&a, 0, sizeof(a));
		if (p->boolean) {
			a.type = YW_ATOM_STRING;
			snprintf(a.s, sizeof(a.s), "%s",
				 !strcmp(p->value, "true") ? "on" : "off");
		} else {
			a.f = strtod(p->value, &end);
			a.type = YW_ATOM_FLOAT;
			if (*end) {
				a.type = YW_ATOM_STRING;
				snprintf(a.s, sizeof(a.s), "%s", p->value);
			}
		}
		yp_call_reply(p->call, &a, 1);
	}
	pending_free(p);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct yb_rpc *r = data;
	const char *line;
	int n;

	(void)s;
	(void)fd;
	(void)revents;
	while ((n = skin_client_read_line(r->c, &line, 0)) > 0) {
		if (!strncmp(line, "param ", 6) && r->head) {
			const char *v = strchr(line + 6, ' ');

			snprintf(r->head->value, sizeof(r->head->value), "%s", v ? v + 1 : "");
		} else if (!strncmp(line, "thresholds ", 11) && r->head && r->head->thr) {
			take_thresholds(r->head, line);
		} else if (!strncmp(line, "ok", 2) || !strncmp(line, "error", 5)) {
			complete(r, line);
		}
	}
	if (n < 0)
		disconnect(r, "skind closed the connection");
	return 0;
}

/* Connected to skind, or @call answered [fail]: false */
static bool connected(struct yb_rpc *r, struct yp_call *call)
{
	int err = 0;

	if (r->c)
		return true;
	r->c = skin_client_connect(r->b->socket, &err);
	if (!r->c || sd_event_add_io(r->b->e, &r->io, skin_client_fd(r->c),
				     EPOLLIN, on_io, r) < 0) {
		char why[128];

		snprintf(why, sizeof(why), "skind is not running (%s)",
			 strerror(err ? -err : EIO));
		if (r->c)
			disconnect(r, why);
		reply_fail(call, why);
		return false;
	}
	return true;
}

/* Queue @p and send @cmd; skind's answer completes it later. */
static void send_pending(struct yb_rpc *r, struct pending *p, const char *cmd)
{
	*r->tail = p;
	r->tail = &p->next;
	if (skin_client_send(r->c, cmd) < 0)
		disconnect(r, "skind closed the connection");
}

/* Send @cmd to skind; the answer completes @call later. */
static void forward(struct yb_rpc *r, struct yp_call *call, const char *cmd,
		    bool get, bool boolean)
{
	struct pending *p;

	if (!connected(r, call))
		return;
	p = calloc(1, sizeof(*p));
	if (!p) {
		reply_fail(call, "out of memory");
		return;
	}
	p->call = call;
	p->get = get;
	p->boolean = boolean;
	send_pending(r, p, cmd);
}

/*
 * skinManager's `get touch thr`: the touch thresholds of every taxel, one
 * float64 each, its ports one after the other (the bridge's parts, in the
 * order of their vectors); skind's `thresholds PART` per part, the call
 * answered with the last.  Pendings are allocated first so that a failure
 * to send leaves none of them half queued.
 */
static void touch_thresholds(struct yb_rpc *r, struct yp_call *call)
{
	struct pending *p[sizeof(r->b->parts) / sizeof(r->b->parts[0])];
	struct thr_reply *t;
	unsigned int i, n = r->b->n_parts;
	char cmd[64];

	if (!n) {
		reply_fail(call, "skind publishes no parts yet");
		return;
	}
	if (!connected(r, call))
		return;
	t = calloc(1, sizeof(*t));
	for (i = 0; t && i < n; i++) {
		p[i] = calloc(1, sizeof(*p[i]));
		if (!p[i])
			break;
		p[i]->thr = t;
		p[i]->part = r->b->parts[i].name;
	}
	if (!t || i < n) {
		while (t && i--)
			free(p[i]);
		free(t);
		reply_fail(call, "out of memory");
		return;
	}
	p[n - 1]->call = call;
	for (i = 0; i < n && r->c; i++) {
		snprintf(cmd, sizeof(cmd), "thresholds %s", r->b->parts[i].name);
		send_pending(r, p[i], cmd);
	}
	/* skind gone mid-way: the queued ones were failed (the last answered
	 * the call if it was among them); the rest were never queued */
	for (; i < n; i++) {
		if (p[i]->call)
			reply_fail(call, "skind closed the connection");
		pending_free(p[i]);
	}
}

int yb_rpc_new(struct yb_rpc **rp, struct yb *b)
{
	struct yb_rpc *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->b = b;
	r->tail = &r->head;
	*rp = r;
	return 0;
}

void yb_rpc_free(struct yb_rpc *r)
{
	if (!r)
		return;
	disconnect(r, "the bridge is stopping");
	free(r);
}

/* The words of @a from @from on, joined by spaces */
static void join(char *buf, size_t len, const struct yw_atom *a,
		 unsigned int from, unsigned int to)
{
	size_t o = 0;

	buf[0] = '\0';
	for (; from < to && o < len; from++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "",
				      a[from].type == YW_ATOM_STRING ||
				      a[from].type == YW_ATOM_VOCAB ? a[from].s : "?");
}

static bool calibrating(const struct yb *b)
{
	unsigned int i;

	for (i = 0; i < b->n_parts; i++)
		if (b->map && b->parts[i].index >= 0 &&
		    skin_shm_head(b->parts[i].copy)->state & SKIN_SHM_PART_CALIBRATING)
			return true;
	return false;
}

void yb_rpc_handle(void *data, struct yp_call *call,
		   const struct yw_atom *a, unsigned int n)
{
	struct yb *b = data;
	struct yb_rpc *r = b->rpc;
	char words[200], cmd[256];
	unsigned int i, k;

	if (n && a[0].type == YW_ATOM_INT && a[0].i >= 0 &&
	    a[0].i < (int64_t)(sizeof(by_number) / sizeof(by_number[0]))) {
		char rest[150];

		join(rest, sizeof(rest), a, 1, n);
		snprintf(words, sizeof(words), "%s%s%s", by_number[a[0].i],
			 rest[0] ? " " : "", rest);
	} else if (!n || (a[0].type != YW_ATOM_STRING && a[0].type != YW_ATOM_VOCAB)) {
		reply_fail(call, "unknown command; try help");
		return;
	} else {
		join(words, sizeof(words), a, 0, n);
	}
	if (!strcmp(words, "help")) {
		struct yw_atom h[sizeof(help) / sizeof(help[0])];

		memset(h, 0, sizeof(h));
		for (i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
			h[i].type = YW_ATOM_STRING;
			snprintf(h[i].s, sizeof(h[i].s), "%s", help[i]);
		}
		yp_call_reply(call, h, i);
		return;
	}
	if (!strcmp(words, "calib")) {
		if (!b->cfg.rpc_admin) {
			reply_fail(call, "permission denied: calib from YARP needs rpc_admin = true in skin-yarp.conf");
			return;
		}
		forward(r, call, "calibrate", false, false);
		return;
	}
	if (!strcmp(words, "is calibrating")) {
		struct yw_atom y = { .type = YW_ATOM_STRING };

		snprintf(y.s, sizeof(y.s), "%s", calibrating(b) ? "yes" : "no");
		yp_call_reply(call, &y, 1);
		return;
	}
	if (!strcmp(words, "get info")) {
		struct yw_atom info[16];

		memset(info, 0, sizeof(info));
		k = 0;
		info[k].type = YW_ATOM_STRING;
		snprintf(info[k++].s, sizeof(info[0].s), "skin-yarp: skind's parts on YARP");
		for (i = 0; i < b->n_parts && k < 16; i++) {
			info[k].type = YW_ATOM_STRING;
			snprintf(info[k++].s, sizeof(info[0].s), "%s %s %s", b->parts[i].name,
				 b->parts[i].raw ? yp_port_name(b->parts[i].raw) : "-",
				 b->parts[i].index >= 0 ? "attached" : "detached");
		}
		yp_call_reply(call, info, k);
		return;
	}
	if (!strcmp(words, "get touch thr")) {
		touch_thresholds(r, call);
		return;
	}
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		size_t w = strlen(params[i].words);

		if (!strncmp(words, "get ", 4) && !strcmp(words + 4, params[i].words)) {
			snprintf(cmd, sizeof(cmd), "get %s", params[i].param);
			forward(r, call, cmd, true, params[i].boolean);
			return;
		}
		if (!strncmp(words, "set ", 4) && !strncmp(words + 4, params[i].words, w) &&
		    words[4 + w] == ' ') {
			const struct yw_atom *v = &a[n - 1];
			char val[64];

			if (!b->cfg.rpc_admin) {
				reply_fail(call, "permission denied: set from YARP needs rpc_admin = true in skin-yarp.conf");
				return;
			}
			if (params[i].boolean) {
				bool on = (v->type == YW_ATOM_INT && v->i) ||
					  (v->type != YW_ATOM_INT && v->type != YW_ATOM_FLOAT &&
					   (!strcmp(v->s, "on") || !strcmp(v->s, "true")));
				bool off = (v->type == YW_ATOM_INT && !v->i) ||
					   (v->type != YW_ATOM_INT && v->type != YW_ATOM_FLOAT &&
					    (!strcmp(v->s, "off") || !strcmp(v->s, "false")));

				if (!on && !off) {
					reply_fail(call, "want on or off");
					return;
				}
				snprintf(val, sizeof(val), "%s", on ? "true" : "false");
			} else if (v->type == YW_ATOM_INT) {
				snprintf(val, sizeof(val), "%lld", (long long)v->i);
			} else if (v->type == YW_ATOM_FLOAT) {
				snprintf(val, sizeof(val), "%.17g", v->f);
			} else {
				reply_fail(call, "want a number");
				return;
			}
			snprintf(cmd, sizeof(cmd), "set %s %s", params[i].param, val);
			forward(r, call, cmd, false, false);
			return;
		}
	}
	snprintf(cmd, sizeof(cmd), "unknown or unsupported command \"%.100s\"; try help", words);
	reply_fail(call, cmd);
}
