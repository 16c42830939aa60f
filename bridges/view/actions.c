// SPDX-License-Identifier: GPL-2.0
/*
 * actions.c - skind's calibrate, set and get as Foxglove services (actions.h)
 *
 * The calls go to skind in the order they came, on one connection in
 * `format json`; skind answers commands in order, so the calls waiting
 * form a queue and each final line (ok or error) ends its head.  The
 * `param` lines before it are the head's data; the `calibrated` and
 * `calibration-failed` events that come later are logged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <skin/client.h>

#include "actions.h"
#include "log.h"
#include "skin_clock.h"

#define SERVICE_CALIBRATE	1
#define SERVICE_SET		2
#define SERVICE_GET		3
#define MAX_PENDING		64	/* calls waiting for skind */
#define AUTH_FAILURES_MAX	5	/* per address and window ... */
#define AUTH_WINDOW_S		10	/* ... then refused until it ends */
#define AUTH_ADDRESSES		64	/* addresses remembered (oldest reused) */
#define WORD_MAX		64	/* a part, parameter or value */

#define TOKEN_PROP "\"token\":{\"type\":\"string\",\"description\":\"skin-view.conf's token\"}"
#define OK_SCHEMA "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}," \
	"\"message\":{\"type\":\"string\"}}}"

static const struct fox_service services[] = {
	{ SERVICE_CALIBRATE, "/skin/calibrate", "skin.Calibrate",
	  "{\"type\":\"object\",\"properties\":{" TOKEN_PROP ","
	  "\"part\":{\"type\":\"string\",\"description\":\"a part's name, or all\"}},"
	  "\"required\":[\"token\",\"part\"]}", OK_SCHEMA },
	{ SERVICE_SET, "/skin/set", "skin.Set",
	  "{\"type\":\"object\",\"properties\":{" TOKEN_PROP ","
	  "\"param\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}},"
	  "\"required\":[\"token\",\"param\",\"value\"]}",
	  "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"},"
	  "\"param\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}}}" },
	{ SERVICE_GET, "/skin/get", "skin.Get",
	  "{\"type\":\"object\",\"properties\":{\"param\":{\"type\":\"string\","
	  "\"description\":\"one parameter; every one without\"}}}",
	  "{\"type\":\"object\",\"properties\":{\"params\":{\"type\":\"object\","
	  "\"additionalProperties\":{\"type\":\"string\"}}}}" },
};

struct pending {
	struct server_call call;	/* service 0: our own `format json` */
	json_object *params;		/* the param lines so far */
	char what[2 * WORD_MAX + 16];	/* the command, for the log */
};

struct auth_addr {
	char addr[64];
	unsigned int failures;
	uint64_t window_ns;		/* when its window started */
};

struct actions {
	sd_event *e;
	struct server *srv;
	char socket[108];
	char token[128];
	struct skin_client *skind;
	sd_event_source *io;
	struct pending q[MAX_PENDING];
	unsigned int q_head, q_len;
	struct auth_addr auth[AUTH_ADDRESSES];
	struct actions_stats st;
};

const struct fox_service *actions_services(unsigned int *n)
{
	*n = sizeof(services) / sizeof(services[0]);
	return services;
}

void actions_stats(const struct actions *a, struct actions_stats *st)
{
	*st = a->st;
}

bool actions_token_equal(const char *want, const char *got, size_t got_len)
{
	size_t n = strlen(want), i;
	unsigned char d = got_len != n;

	/* every byte of @want is looked at, whatever @got holds */
	for (i = 0; i < n; i++)
		d |= (unsigned char)want[i] ^ (unsigned char)(i < got_len ? got[i] : 0);
	return !d;
}

/* The address's record (the oldest one reused for a new address) */
static struct auth_addr *auth_of(struct actions *a, const char *addr)
{
	struct auth_addr *oldest = &a->auth[0];
	unsigned int i;

	for (i = 0; i < AUTH_ADDRESSES; i++) {
		if (!strcmp(a->auth[i].addr, addr))
			return &a->auth[i];
		if (a->auth[i].window_ns < oldest->window_ns)
			oldest = &a->auth[i];
	}
	memset(oldest, 0, sizeof(*oldest));
	snprintf(oldest->addr, sizeof(oldest->addr), "%s", addr);
	return oldest;
}

/* Over the failures allowed in its window? */
static bool auth_limited(struct actions *a, const char *addr, uint64_t now)
{
	struct auth_addr *r = auth_of(a, addr);

	if (now - r->window_ns >= (uint64_t)AUTH_WINDOW_S * 1000000000ull) {
		r->window_ns = now;
		r->failures = 0;
	}
	return r->failures >= AUTH_FAILURES_MAX;
}

static void auth_failed(struct actions *a, const char *addr)
{
	auth_of(a, addr)->failures++;
}

/* A part, parameter or value: one word of skind's protocol */
static bool is_word(const char *s, size_t n, bool value)
{
	size_t i;

	if (!n || n >= WORD_MAX)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (value ? ch <= ' ' || ch >= 0x7f :
			    !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
			      ch == '.'))
			return false;
	}
	return true;
}

/* The request's string @key: its text and length, or NULL */
static const char *get_str(json_object *o, const char *key, size_t *n)
{
	json_object *f;

	if (!json_object_object_get_ex(o, key, &f) || !json_object_is_type(f, json_type_string))
		return NULL;
	*n = (size_t)json_object_get_string_len(f);
	return json_object_get_string(f);
}

static void fail(struct actions *a, const struct server_call *c, const char *msg)
{
	a->st.failed++;
	server_call_fail(a->srv, c, msg);
}

static void disconnect(struct actions *a, const char *why)
{
	unsigned int i;

	if (!a->skind)
		return;
	if (strcmp(why, "exit"))
		log_warn("actions: skind's connection ended (%s)", why);
	sd_event_source_disable_unref(a->io);
	a->io = NULL;
	skin_client_close(a->skind);
	a->skind = NULL;
	for (i = 0; i < a->q_len; i++) {
		struct pending *p = &a->q[(a->q_head + i) % MAX_PENDING];

		if (p->call.service)
			fail(a, &p->call, "skind went away before it answered");
		json_object_put(p->params);
	}
	a->q_len = 0;
}

/* The head's final line: its answer */
static void finish(struct actions *a, json_object *line, const char *type)
{
	struct pending *p = &a->q[a->q_head];
	char msg[300];

	a->q_head = (a->q_head + 1) % MAX_PENDING;
	a->q_len--;
	if (!p->call.service) {
		if (strcmp(type, "ok"))
			log_warn("actions: skind refused json: %s",
				 json_object_to_json_string(line));
	} else if (!strcmp(type, "ok")) {
		json_object *r = json_object_new_object(), *m;

		log_info("actions: %s from %s: done", p->what, p->call.addr);
		if (p->call.service == SERVICE_GET) {
			json_object_object_add(r, "params", p->params ? json_object_get(p->params) :
					       json_object_new_object());
		} else {
			json_object_object_add(r, "ok", json_object_new_boolean(true));
			if (json_object_object_get_ex(line, "message", &m))
				json_object_object_add(r, "message", json_object_get(m));
			if (p->call.service == SERVICE_SET && p->params) {
				json_object_object_foreach(p->params, k, v) {
					json_object_object_add(r, "param", json_object_new_string(k));
					json_object_object_add(r, "value", json_object_get(v));
				}
			}
		}
		server_call_done(a->srv, &p->call,
				 json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
		json_object_put(r);
	} else {
		json_object *code = NULL, *text = NULL;

		json_object_object_get_ex(line, "code", &code);
		json_object_object_get_ex(line, "message", &text);
		snprintf(msg, sizeof(msg), "skind: %s: %s",
			 code ? json_object_get_string(code) : "error",
			 text ? json_object_get_string(text) : "");
		log_warn("actions: %s from %s: %s", p->what, p->call.addr, msg);
		fail(a, &p->call, msg);
	}
	json_object_put(p->params);
	p->params = NULL;
}

static void on_line(struct actions *a, const char *text)
{
	json_object *o = json_tokener_parse(text), *t, *f, *v;
	const char *type;

	if (!o || !json_object_object_get_ex(o, "type", &t)) {
		log_warn("actions: skind said what is not a JSON line: %.80s", text);
		json_object_put(o);
		return;
	}
	type = json_object_get_string(t);
	if (!strcmp(type, "calibrated") || !strcmp(type, "calibration-failed")) {
		json_object_object_get_ex(o, "part", &f);
		json_object_object_get_ex(o, "reason", &v);
		log_info("actions: skind: %s %s%s%s", type, f ? json_object_get_string(f) : "?",
			 v ? ": " : "", v ? json_object_get_string(v) : "");
	} else if (!a->q_len) {
		/* nothing asked: an event this connection did not subscribe to */
	} else if (!strcmp(type, "ok") || !strcmp(type, "error")) {
		finish(a, o, type);
	} else if (!strcmp(type, "param") && json_object_object_get_ex(o, "name", &f) &&
		   json_object_object_get_ex(o, "value", &v)) {
		struct pending *p = &a->q[a->q_head];

		if (!p->params)
			p->params = json_object_new_object();
		json_object_object_add(p->params, json_object_get_string(f),
				       json_object_new_string(json_object_get_string(v)));
	}
	json_object_put(o);
}

static int on_io(sd_event_source *es, int fd, uint32_t revents, void *data)
{
	struct actions *a = data;
	const char *line;
	int rc;

	(void)es;
	(void)fd;
	(void)revents;
	while ((rc = skin_client_read_line(a->skind, &line, 0)) == 1)
		on_line(a, line);
	if (rc < 0)
		disconnect(a, strerror(-rc));
	return 0;
}

/* A command queued and sent; false when it could not be */
static bool send_cmd(struct actions *a, const struct server_call *c,
		     const char *cmd)
{
	struct pending *p;
	int rc;

	if (a->q_len == MAX_PENDING)
		return false;
	rc = skin_client_send(a->skind, cmd);
	if (rc) {
		disconnect(a, strerror(-rc));
		return false;
	}
	p = &a->q[(a->q_head + a->q_len++) % MAX_PENDING];
	memset(p, 0, sizeof(*p));
	if (c)
		p->call = *c;
	snprintf(p->what, sizeof(p->what), "%.*s", (int)strcspn(cmd, "\n"), cmd);
	return true;
}

static int connect_skind(struct actions *a)
{
	int err = 0, r;

	a->skind = skin_client_connect_nonblock(a->socket[0] ? a->socket : NULL, &err);
	if (!a->skind)
		return err;
	r = sd_event_add_io(a->e, &a->io, skin_client_fd(a->skind), EPOLLIN, on_io, a);
	if (r < 0) {
		skin_client_close(a->skind);
		a->skind = NULL;
		return r;
	}
	if (!send_cmd(a, NULL, "format json\n")) {
		disconnect(a, "format");
		return -EIO;
	}
	return 0;
}

static void forward(struct actions *a, const struct server_call *c,
		    const char *cmd)
{
	int rc = 0;

	if (!a->skind)
		rc = connect_skind(a);
	if (rc) {
		char msg[160];

		snprintf(msg, sizeof(msg), "skind's socket: %s", strerror(-rc));
		fail(a, c, msg);
		return;
	}
	if (!send_cmd(a, c, cmd)) {
		fail(a, c, a->q_len == MAX_PENDING ? "too many calls waiting for skind" :
		     "skind's socket: not sent");
		return;
	}
	a->st.forwarded++;
}

void actions_call(void *data, const struct server_call *c, const char *payload,
		  size_t len)
{
	struct actions *a = data;
	json_tokener *tok = json_tokener_new_ex(8);
	json_object *o = NULL;
	const char *tk, *p1 = NULL, *p2 = NULL;
	size_t tk_len = 0, n1 = 0, n2 = 0;
	char cmd[2 * WORD_MAX + 16];

	a->st.calls++;
	if (tok)
		o = json_tokener_parse_ex(tok, payload, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(o, json_type_object)) {
		a->st.bad++;
		server_call_fail(a->srv, c, "the request is not one JSON object");
		goto out;
	}
	if (c->service != SERVICE_GET) {
		uint64_t now = clock_monotonic_ns();

		if (auth_limited(a, c->addr, now)) {
			a->st.limited++;
			server_call_fail(a->srv, c, "not authorised: too many failures, try again later");
			goto out;
		}
		tk = get_str(o, "token", &tk_len);
		if (!tk || !actions_token_equal(a->token, tk, tk_len)) {
			a->st.refused++;
			auth_failed(a, c->addr);
			log_warn("actions: %s from %s: not authorised (%s token; %llu refused so far)",
				 services[c->service - 1].name, c->addr, tk ? "a wrong" : "no",
				 (unsigned long long)a->st.refused);
			server_call_fail(a->srv, c, "not authorised");
			goto out;
		}
	}
	switch (c->service) {
	case SERVICE_CALIBRATE:
		p1 = get_str(o, "part", &n1);
		if (!p1 || !is_word(p1, n1, false)) {
			a->st.bad++;
			server_call_fail(a->srv, c, "part: a part's name, or all");
			goto out;
		}
		snprintf(cmd, sizeof(cmd), "calibrate %s\n", p1);
		break;
	case SERVICE_SET:
		p1 = get_str(o, "param", &n1);
		p2 = get_str(o, "value", &n2);
		if (!p1 || !is_word(p1, n1, false) || !p2 || !is_word(p2, n2, true)) {
			a->st.bad++;
			server_call_fail(a->srv, c, "param and value: a parameter's name and one word");
			goto out;
		}
		snprintf(cmd, sizeof(cmd), "set %s %s\n", p1, p2);
		break;
	default:
		p1 = get_str(o, "param", &n1);
		if (json_object_object_get_ex(o, "param", NULL) &&
		    (!p1 || !is_word(p1, n1, false))) {
			a->st.bad++;
			server_call_fail(a->srv, c, "param: a parameter's name");
			goto out;
		}
		snprintf(cmd, sizeof(cmd), p1 ? "get %s\n" : "get\n", p1);
		break;
	}
	forward(a, c, cmd);
out:
	json_object_put(o);
	json_tokener_free(tok);
}

int actions_new(struct actions **ap, sd_event *e, struct server *srv,
		const char *socket, const char *token)
{
	struct actions *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->e = e;
	a->srv = srv;
	snprintf(a->socket, sizeof(a->socket), "%s", socket ? socket : "");
	snprintf(a->token, sizeof(a->token), "%s", token);
	*ap = a;
	return 0;
}

void actions_free(struct actions *a)
{
	if (!a)
		return;
	log_info("actions: %llu calls, %llu sent to skind, %llu failed there; %llu not authorised, %llu refused over the failure limit, %llu malformed",
		 (unsigned long long)a->st.calls, (unsigned long long)a->st.forwarded,
		 (unsigned long long)a->st.failed, (unsigned long long)a->st.refused,
		 (unsigned long long)a->st.limited, (unsigned long long)a->st.bad);
	disconnect(a, "exit");
	free(a);
}
