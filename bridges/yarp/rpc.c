// SPDX-License-Identifier: GPL-2.0
/*
 * rpc.c - skinManager's rpc commands on skind's socket
 *
 * /skinManager/rpc takes the commands skinManagerGui sends
 * (docs/YARP.md, "rpc") and maps each onto skind's socket
 * (docs/PROTOCOL.md) over one connection of the bridge's own, without
 * waiting: commands are sent as they come, skind answers in order, and
 * each answer completes the oldest call.  State-changing commands (calib,
 * set) come from network peers that skind cannot see: the bridge passes
 * them on only with rpc_admin = true, and skind then applies its own rule
 * to the bridge's user (admin group).  A command skind has no equivalent
 * for is answered [fail] with the reason.  `get touch thr` and `get info`
 * are the bridge's own: the thresholds as doubles from the shared memory
 * skind publishes them in (skin/shm.h since 1.2), `get info` in
 * skinManager's nested shape.
 *
 * skind may be slower than the peers: the commands go out through a
 * bounded queue on the socket, never a blocking send(), and skind's
 * answers are read as they come, so the loop never waits on skind; with
 * RPC_MAX_PENDING lines unanswered, or the queue half full, a new command
 * is answered [fail] "busy" at once (docs/YARP.md "Hostile peers"), and a
 * skind that takes no command for RPC_STALL_MS is disconnected (its calls
 * failed) and connected again on the next command.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "outq.h"
#include "skin_clock.h"

#define RPC_QUEUE_MAX	(64 * 1024)	/* commands not yet taken by skind */
#define RPC_MAX_PENDING	256		/* lines sent and not answered */
#define RPC_STALL_MS	5000

/* A `get` reply's type */
enum kind {
	K_FLOAT,		/* float64 */
	K_INT,			/* int32 when whole, else float64 */
	K_ONOFF,		/* "on" / "off" from skind's true / false */
};

struct pending {
	struct pending *next;
	struct yp_call *call;
	bool get;		/* the reply is the "param" line's value */
	enum kind kind;		/* and its type in skinManager's reply */
	char value[128];
};

struct yb_rpc {
	struct yb *b;
	struct skin_client *c;
	sd_event_source *io;
	struct pending *head, **tail;
	unsigned int n_pending;
	struct outq out;		/* to skind, bounded */
	uint64_t busy;			/* commands refused as busy */
};

/*
 * skinManager's command (words) -> skind's parameter, and the type of
 * skinManager's `get` reply: skinManagerGui takes `get threshold` only as
 * an int32 (Value::isInt32) and the others as a number or "on"/"off".
 * `neigh dist` is in metres, as skind's max_neighbor_dist_m.
 */
static const struct {
	const char *words;
	const char *param;
	enum kind kind;
} params[] = {
	{ "binarization", "binarization", K_ONOFF },
	{ "smooth filter", "smooth_filter", K_ONOFF },
	{ "smooth factor", "smooth_factor", K_FLOAT },
	{ "threshold", "add_threshold", K_INT },
	{ "gain", "compensation_gain", K_FLOAT },
	{ "contact gain", "contact_compensation_gain", K_FLOAT },
	{ "neigh dist", "max_neighbor_dist_m", K_FLOAT },
};

/*
 * skinManagerGui sends each command as its number in skinManager's
 * SkinManagerCommand (skinDynLib's rpcSkinManager.h), not as words: the
 * whole enum, in its order, so that a number we do not serve is refused
 * by its name.
 */
static const char *const by_number[] = {
	"calib", "get touch thr", "set binarization", "get binarization",
	"set smooth filter", "get smooth filter", "set smooth factor",
	"get smooth factor", "set threshold", "get threshold", "set gain",
	"get gain", "set contact gain", "get contact gain", "is calibrating",
	"get info", "get pose", "set pose", "get position", "set position",
	"get confidence", "get neigh dist", "set neigh dist", "get skin",
	"enable skin", "disable skin", "is skin enabled", "help", "quit",
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
	"set|get neigh dist        # contacts' max neighbour distance, m (fixed while skind runs)",
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
	free(p);
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
	r->n_pending = 0;
	outq_free(&r->out);
	r->io = sd_event_source_disable_unref(r->io);
	skin_client_close(r->c);
	r->c = NULL;
}

/* What skind's socket takes now; EPOLLOUT while some is left */
static void flush_out(struct yb_rpc *r)
{
	if (outq_flush(&r->out, skin_client_fd(r->c)) < 0) {
		disconnect(r, "skind closed the connection");
		return;
	}
	sd_event_source_set_io_events(r->io, EPOLLIN |
				      (outq_pending(&r->out) ? EPOLLOUT : 0));
}

static void complete(struct yb_rpc *r, const char *line)
{
	struct pending *p = r->head;
	struct yw_atom a;
	char *end;

	if (!p)
		return;		/* nothing asked: an event, ignored */
	r->n_pending--;
	r->head = p->next;
	if (!r->head)
		r->tail = &r->head;
	if (!strncmp(line, "error", 5)) {
		reply_fail(p->call, line);
	} else if (!p->get) {
		reply_ok(p->call);
	} else if (!p->value[0]) {
		reply_fail(p->call, "skind sent no value");
	} else {
		memset(&a, 0, sizeof(a));
		if (p->kind == K_ONOFF) {
			a.type = YW_ATOM_STRING;
			snprintf(a.s, sizeof(a.s), "%s",
				 !strcmp(p->value, "true") ? "on" : "off");
		} else {
			a.f = strtod(p->value, &end);
			a.type = YW_ATOM_FLOAT;
			if (*end) {
				a.type = YW_ATOM_STRING;
				snprintf(a.s, sizeof(a.s), "%s", p->value);
			} else if (p->kind == K_INT && a.f >= INT32_MIN &&
				   a.f <= INT32_MAX && a.f == (double)(int32_t)a.f) {
				a.type = YW_ATOM_INT;
				a.i = (int32_t)a.f;
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
	if (revents & EPOLLOUT) {
		flush_out(r);
		if (!r->c)
			return 0;
	}
	if (!(revents & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		return 0;
	while ((n = skin_client_read_line(r->c, &line, 0)) > 0) {
		if (!strncmp(line, "param ", 6) && r->head) {
			const char *v = strchr(line + 6, ' ');

			snprintf(r->head->value, sizeof(r->head->value), "%s", v ? v + 1 : "");
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

	if (r->c && outq_stalled(&r->out, clock_monotonic_ns() / 1000, RPC_STALL_MS))
		disconnect(r, "skind takes no commands");
	if (r->c && (r->n_pending >= RPC_MAX_PENDING ||
		     outq_pending(&r->out) > RPC_QUEUE_MAX / 2)) {
		r->busy++;
		reply_fail(call, "busy: skind is slow to answer; try again");
		return false;
	}
	if (r->c)
		return true;
	outq_init(&r->out, RPC_QUEUE_MAX);
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
	size_t n = strlen(cmd);

	*r->tail = p;
	r->tail = &p->next;
	r->n_pending++;
	/* room was checked (connected()): a command is far below the queue */
	if (outq_put(&r->out, cmd, n) < 0 || outq_put(&r->out, "\n", 1) < 0) {
		disconnect(r, "out of memory");
		return;
	}
	flush_out(r);
}

/* Send @cmd to skind; the answer completes @call later. */
static void forward(struct yb_rpc *r, struct yp_call *call, const char *cmd,
		    bool get, enum kind kind)
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
	p->kind = kind;
	send_pending(r, p, cmd);
}

/*
 * skinManager's `get touch thr`: the touch thresholds of every taxel, one
 * float64 each, its ports one after the other (the bridge's parts, in the
 * order of their vectors), from each part's newest copy of skind's shared
 * memory: the doubles skind holds, with no text between.
 */
static void touch_thresholds(struct yb *b, struct yp_call *call)
{
	struct yw_atom *a;
	unsigned int i, k, n = 0;
	char why[128];

	if (!b->map || !b->n_parts) {
		reply_fail(call, "skind publishes no parts yet");
		return;
	}
	for (i = 0; i < b->n_parts; i++) {
		const struct yb_part *p = &b->parts[i];

		if (p->index < 0) {
			snprintf(why, sizeof(why), "skind has no part %s", p->name);
			reply_fail(call, why);
			return;
		}
		if (!yb_block(b, p) ||
		    !skin_shm_thresholds(b->map, (unsigned int)p->index, yb_block(b, p))) {
			snprintf(why, sizeof(why), "part %s is not calibrated yet%s", p->name,
				 skin_shm_part(b->map, (unsigned int)p->index)->thresholds_off ?
				 "" : " (or skind too old to publish its thresholds)");
			reply_fail(call, why);
			return;
		}
		n += skin_shm_part(b->map, (unsigned int)p->index)->n_taxels;
	}
	a = calloc(n ? n : 1, sizeof(*a));
	if (!a) {
		reply_fail(call, "out of memory");
		return;
	}
	for (i = 0, n = 0; i < b->n_parts; i++) {
		unsigned int index = (unsigned int)b->parts[i].index;
		const double *t = skin_shm_thresholds(b->map, index, yb_block(b, &b->parts[i]));

		for (k = 0; k < skin_shm_part(b->map, index)->n_taxels; k++, n++) {
			a[n].type = YW_ATOM_FLOAT;
			a[n].f = t[k];
		}
	}
	yp_call_reply(call, a, n);
	free(a);
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

uint64_t yb_rpc_busy(const struct yb_rpc *r)
{
	return r->busy;
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
		    yb_block(b, &b->parts[i]) &&
		    skin_shm_head(yb_block(b, &b->parts[i]))->state & SKIN_SHM_PART_CALIBRATING)
			return true;
	return false;
}

/* (LABEL VALUE) at @a[k]: the next free index */
static unsigned int label_list(struct yw_atom *a, unsigned int k,
			       const char *label, const char *value)
{
	a[k].type = YW_ATOM_LIST;
	a[k++].i = 2;
	a[k].type = YW_ATOM_STRING;
	snprintf(a[k++].s, sizeof(a[0].s), "%s", label);
	a[k].type = YW_ATOM_STRING;
	snprintf(a[k++].s, sizeof(a[0].s), "%s", value);
	return k;
}

/*
 * skinManager's `get info` (CompensationThread::getInfo), the shape
 * skinManagerGui insists on: ("Name: " MANAGER) ("Robot Name: " ROBOT)
 * (PORT N PORT N ...), each part's input port (our raw port) and its
 * vector's length; a part skind does not publish now is marked " (NOT
 * WORKING)" with length 0, as skinManager marks a failed compensator.
 * Before any part is known, skinManager's one string, which the GUI takes
 * as "not yet" and retries.
 */
static void get_info(struct yb *b, struct yp_call *call)
{
	struct yw_atom *a = calloc(7 + 2 * (size_t)b->n_parts, sizeof(*a));
	unsigned int i, k = 0;

	if (!a) {
		reply_fail(call, "out of memory");
		return;
	}
	if (!b->n_parts) {
		a[k].type = YW_ATOM_STRING;
		snprintf(a[k++].s, sizeof(a[0].s), "Module initialization has not been completed yet.");
		goto out;
	}
	k = label_list(a, k, "Name: ", b->cfg.manager);
	k = label_list(a, k, "Robot Name: ", b->cfg.robot);
	a[k].type = YW_ATOM_LIST;
	a[k++].i = 2 * (int64_t)b->n_parts;
	for (i = 0; i < b->n_parts; i++) {
		const struct yb_part *p = &b->parts[i];
		const struct yp_port *port = p->raw ? p->raw : p->comp;
		bool on = b->map && p->index >= 0;

		a[k].type = YW_ATOM_STRING;
		snprintf(a[k++].s, sizeof(a[0].s), "%s%s", port ? yp_port_name(port) : p->name,
			 on ? "" : " (NOT WORKING)");
		a[k].type = YW_ATOM_INT;
		a[k++].i = on ? skin_shm_part(b->map, (unsigned int)p->index)->n_taxels : 0;
	}
out:
	yp_call_reply(call, a, k);
	free(a);
}

/*
 * YARP's AnalogServerHandler (AnalogWrapper.cpp, the analogServer device
 * the robot's skin runs under): [iana] [cal] (calibrateSensor, with or
 * without values) and [iana] [calc] CH [VALUE] (calibrateChannel) are
 * answered with the device's int (IAnalogSensor: AS_OK 0, AS_ERROR 1),
 * anything else with [fail].  analogsensorclient sends [iana] [cal] when
 * skinManager starts a calibration (Compensator::calibrationInit(), on
 * any robot but icubSim) and ignores the answer.  The bridge answers
 * AS_OK and does nothing: the boards' own calibration is not skind's to
 * start, and skind's calibration is skinManager's `calib` on /MANAGER/rpc.
 */
void yb_analog_rpc(void *data, struct yp_call *call,
		   const struct yw_atom *a, unsigned int n)
{
	struct yw_atom r = { .type = YW_ATOM_INT, .i = 0 };

	(void)data;
	if (n >= 2 && a[0].type == YW_ATOM_VOCAB && !strcmp(a[0].s, "iana") &&
	    a[1].type == YW_ATOM_VOCAB &&
	    (!strcmp(a[1].s, "cal") || (!strcmp(a[1].s, "calc") &&
					(n == 3 || n == 4)))) {
		yp_call_reply(call, &r, 1);
		return;
	}
	r = (struct yw_atom){ .type = YW_ATOM_VOCAB, .s = "fail" };
	yp_call_reply(call, &r, 1);
}

void yb_rpc_handle(void *data, struct yp_call *call,
		   const struct yw_atom *a, unsigned int n)
{
	struct yb *b = data;
	struct yb_rpc *r = b->rpc;
	char words[200], cmd[256];
	unsigned int i;

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
		forward(r, call, "calibrate", false, K_FLOAT);
		return;
	}
	if (!strcmp(words, "is calibrating")) {
		struct yw_atom y = { .type = YW_ATOM_STRING };

		snprintf(y.s, sizeof(y.s), "%s", calibrating(b) ? "yes" : "no");
		yp_call_reply(call, &y, 1);
		return;
	}
	if (!strcmp(words, "get info")) {
		get_info(b, call);
		return;
	}
	if (!strcmp(words, "get touch thr")) {
		touch_thresholds(b, call);
		return;
	}
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		size_t w = strlen(params[i].words);

		if (!strncmp(words, "get ", 4) && !strcmp(words + 4, params[i].words)) {
			snprintf(cmd, sizeof(cmd), "get %s", params[i].param);
			forward(r, call, cmd, true, params[i].kind);
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
			if (params[i].kind == K_ONOFF) {
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
			forward(r, call, cmd, false, K_FLOAT);
			return;
		}
	}
	snprintf(cmd, sizeof(cmd), "unknown or unsupported command \"%.100s\"; try help", words);
	reply_fail(call, cmd);
}
