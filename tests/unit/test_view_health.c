// SPDX-License-Identifier: GPL-2.0
/*
 * test_view_health.c - skin-view's /skin/health (bridges/view/health.c,
 * counters.c)
 *
 * The driver's counters from a sysfs-like tree and skin-eth's counters
 * file, each turned into its JSON; then the whole message from a fake
 * skind on a Unix socket answering as docs/PROTOCOL.md says (format
 * json): with the fault list of skind's `faults` ({"type":"fault","part",
 * "taxel","flags":["stuck","noisy"],"since_ns","raw","baseline"}; the
 * flags as one string "stuck,noisy" too), cut short ("error truncated":
 * the lines listed), without it (an older skind answers an error: no
 * fault list, the rest as ever), and hung (the round given up with its
 * connection).  The daemon layer runs it against the real
 * skind (tests/daemon, "skin-view: /skin/health ...").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "counters.h"
#include "health.h"
#include "jsonw.h"

static char tmp[] = "/tmp/test_view_health.XXXXXX";

static json_object *field(json_object *o, const char *k)
{
	json_object *f = NULL;

	if (!json_object_object_get_ex(o, k, &f))
		fail_msg("no field %s in %s", k, json_object_to_json_string(o));
	return f;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* One value alone: [VALUE] */
static json_object *one(void (*fn)(struct jw *, const char *, const char *),
			const char *a, const char *b)
{
	struct jw w;
	json_object *o;
	size_t len;
	char *text;

	jw_init(&w, 1 << 20);
	jw_array(&w);
	fn(&w, a, b);
	jw_array_end(&w);
	text = jw_take(&w, &len);
	assert_non_null(text);
	o = json_tokener_parse(text);
	if (!o)
		fail_msg("not JSON: %s", text);
	free(text);
	return o;
}

static void driver(struct jw *w, const char *root, const char *name)
{
	counters_driver_json(w, root, name);
}

static void eth(struct jw *w, const char *path, const char *unused)
{
	(void)unused;
	counters_eth_json(w, path, (uint64_t)time(NULL) * 1000000000ull + 5000000000ull);
}

static void test_driver(void **state)
{
	char dir[512], path[600];
	json_object *o, *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/sys/left_forearm.1/stats", tmp);
	snprintf(path, sizeof(path), "mkdir -p %s", dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/frames", dir);
	write_file(path, "120\n");
	snprintf(path, sizeof(path), "%s/bus_off", dir);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/odd", dir);
	write_file(path, "a \"b\"\n");
	snprintf(dir, sizeof(dir), "%s/sys", tmp);
	o = one(driver, dir, "left_forearm.1");
	d = json_object_array_get_idx(o, 0);
	/* every file, sorted by name; numbers as numbers */
	assert_string_equal(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN),
			    "{\"bus_off\":0,\"frames\":120,\"odd\":\"a \\\"b\\\"\"}");
	json_object_put(o);
	/* no such patch, and names that are no device's: null */
	for (const char *const *n = (const char *const[]){ "absent", "../sys", "..", "a/b",
							   "", NULL }; *n; n++) {
		o = one(driver, dir, *n);
		assert_null(json_object_array_get_idx(o, 0));
		json_object_put(o);
	}
}

/* docs/ETH.md's example, shortened */
static const char counters[] =
	"capture - packets=50000 udp=50000 socket_drops=0\n"
	"board eb24 addr=10.0.1.24 datagrams=10000 lost=3 bad_rop_code=1\n"
	"board eb10 addr=10.0.1.10 datagrams=9000 lost=0\n"
	"foreign - datagrams=2 published=0\n"
	"interface eb24can1 board=eb24 bound=1 frames=27200 dropped=0 rebinds=0\n"
	"future x new=1\n"
	"board broken BAD=1 =2 noequals k=v\n";

static void test_eth(void **state)
{
	char path[512];
	json_object *o, *e, *b;

	(void)state;
	snprintf(path, sizeof(path), "%s/counters", tmp);
	write_file(path, counters);
	o = one(eth, path, NULL);
	e = json_object_array_get_idx(o, 0);
	assert_string_equal(json_object_get_string(field(e, "file")), path);
	/* written just now, read 5 s later */
	assert_true(json_object_get_double(field(e, "age_s")) > 3 &&
		    json_object_get_double(field(e, "age_s")) < 8);
	assert_int_equal(json_object_get_int64(field(field(e, "capture"), "packets")), 50000);
	assert_int_equal(json_object_get_int(field(field(e, "foreign"), "datagrams")), 2);
	b = field(e, "boards");
	assert_int_equal(json_object_array_length(b), 3);
	assert_string_equal(json_object_get_string(field(json_object_array_get_idx(b, 0), "addr")),
			    "10.0.1.24");
	assert_int_equal(json_object_get_int(field(json_object_array_get_idx(b, 0), "lost")), 3);
	/* keys that are no key of the file's are left out */
	assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(b, 2),
							   JSON_C_TO_STRING_PLAIN),
			    "{\"name\":\"broken\",\"k\":\"v\"}");
	assert_string_equal(json_object_to_json_string_ext(field(e, "interfaces"),
							   JSON_C_TO_STRING_PLAIN),
			    "[{\"name\":\"eb24can1\",\"board\":\"eb24\",\"bound\":1,\"frames\":27200,\"dropped\":0,\"rebinds\":0}]");
	json_object_put(o);
	/* absent: null; a directory: said, not read */
	snprintf(path, sizeof(path), "%s/none", tmp);
	o = one(eth, path, NULL);
	assert_null(json_object_array_get_idx(o, 0));
	json_object_put(o);
	o = one(eth, tmp, NULL);
	e = json_object_array_get_idx(o, 0);
	assert_non_null(strstr(json_object_get_string(field(e, "error")), "a directory"));
	json_object_put(o);
}

/* --- a fake skind ------------------------------------------------------- */

enum mode { FAULTS, TRUNCATED, NO_FAULTS, HUNG, CLOSES };

struct fake {
	enum mode mode;
	int lfd, cfd;
	sd_event_source *ls, *cs;
	char buf[4096];
	size_t len;
	unsigned int rounds, connections;
};

static void say(struct fake *f, const char *text)
{
	size_t n = strlen(text);

	assert_int_equal(write(f->cfd, text, n), (ssize_t)n);
}

static void answer(struct fake *f, const char *cmd)
{
	if (!strcmp(cmd, "format json")) {
		say(f, "{\"type\":\"ok\",\"message\":\"format json\"}\n");
	} else if (f->mode == HUNG) {
		return;
	} else if (f->mode == CLOSES && f->rounds == 1 && f->connections == 1 &&
		   !strcmp(cmd, "status")) {
		/* skind goes away in the middle of the second round: the
		 * health reads the end of the connection in its handler */
		f->cs = sd_event_source_disable_unref(f->cs);
		close(f->cfd);
		f->cfd = -1;
	} else if (!strcmp(cmd, "status")) {
		say(f, "{\"type\":\"status\",\"version\":\"0.1.0\",\"protocol\":1,\"pid\":4242,"
		       "\"generation\":4,\"parts\":1,\"patches\":2}\n{\"type\":\"ok\"}\n");
	} else if (!strcmp(cmd, "parts")) {
		say(f, "{\"type\":\"part\",\"name\":\"fake\",\"skin_part\":2,\"body_part\":3,\"link\":4,"
		       "\"taxels\":384,\"patches\":2,\"attached\":1,\"state\":\"running\","
		       "\"samples\":51,\"lost\":2,\"contacts\":0}\n"
		       "{\"type\":\"patch\",\"part\":\"fake\",\"name\":\"fake.0\",\"bus\":\"can1\","
		       "\"address\":13,\"attached\":true,\"frames\":100,\"lost\":1,\"partial\":0,"
		       "\"skipped\":0,\"silent\":false,\"listen_only\":false}\n"
		       "{\"type\":\"patch\",\"part\":\"fake\",\"name\":\"fake.1\",\"bus\":\"can1\","
		       "\"address\":12,\"attached\":false,\"frames\":7,\"lost\":0,\"partial\":0,"
		       "\"skipped\":0,\"silent\":true,\"listen_only\":true}\n"
		       "{\"type\":\"patch\",\"part\":\"nopart\",\"name\":\"x\"}\n"
		       "{\"type\":\"ok\"}\n");
	} else if (!strcmp(cmd, "faults")) {
		if (f->mode == NO_FAULTS)
			say(f, "{\"type\":\"error\",\"code\":\"unknown-command\",\"message\":\"unknown command 'faults'; 'help' lists them\"}\n");
		else
			say(f, "{\"type\":\"fault\",\"part\":\"fake\",\"taxel\":5,\"flags\":\"stuck,noisy\","
			       "\"since_ns\":123456789,\"raw\":240,\"baseline\":12.5}\n"
			       "{\"type\":\"fault\",\"part\":\"fake\",\"taxel\":200,\"flags\":[\"dead\"],"
			       "\"since_ns\":5,\"raw\":0,\"baseline\":0}\n");
		/* skind's reply when the list does not fit its queue for us */
		if (f->mode == TRUNCATED)
			say(f, "{\"type\":\"error\",\"code\":\"truncated\",\"message\":\"3 faulty taxels, 2 listed: the rest does not fit the connection's queue\"}\n");
		else if (f->mode != NO_FAULTS)
			say(f, "{\"type\":\"ok\"}\n");
	} else if (!strcmp(cmd, "get add_threshold")) {
		f->rounds++;
		say(f, "{\"type\":\"param\",\"name\":\"add_threshold\",\"value\":\"7\"}\n{\"type\":\"ok\"}\n");
	} else {
		fail_msg("a command skind was not expected to get: %s", cmd);
	}
}

static int on_conn(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct fake *f = data;
	ssize_t n;
	char *nl;

	(void)s;
	(void)revents;
	n = read(fd, f->buf + f->len, sizeof(f->buf) - 1 - f->len);
	if (n <= 0) {
		f->cs = sd_event_source_disable_unref(f->cs);
		close(f->cfd);
		f->cfd = -1;
		return 0;
	}
	f->len += (size_t)n;
	f->buf[f->len] = 0;
	while (f->cfd >= 0 && (nl = strchr(f->buf, '\n'))) {
		*nl = 0;
		answer(f, f->buf);
		f->len -= (size_t)(nl + 1 - f->buf);
		memmove(f->buf, nl + 1, f->len + 1);
	}
	return 0;
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct fake *f = data;
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	(void)s;
	(void)revents;
	if (c < 0)
		return 0;
	if (f->cfd >= 0) {	/* the old one was given up */
		f->cs = sd_event_source_disable_unref(f->cs);
		close(f->cfd);
	}
	f->cfd = c;
	f->len = 0;
	f->connections++;
	assert_true(sd_event_add_io(sd_event_source_get_event(s), &f->cs, c, EPOLLIN,
				    on_conn, f) >= 0);
	return 0;
}

/* The loop until @done says so, 20 s at most */
static void run(sd_event *e, bool (*done)(struct health *, struct fake *),
		struct health *h, struct fake *f)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!done(h, f)) {
		assert_true(sd_event_run(e, 100000) >= 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20)
			fail_msg("not done in 20 s: %s", health_last(h, &(uint64_t){ 0 }) ?: "nothing");
	}
}

static bool two_rounds(struct health *h, struct fake *f)
{
	uint64_t n;

	return f->rounds >= 2 && health_last(h, &n) && n >= 2;
}

static bool disconnected(struct health *h, struct fake *f)
{
	uint64_t n;
	const char *b = health_last(h, &n);

	(void)f;
	return b && strstr(b, "\"connected\":false") && f->connections >= 1;
}

static bool round_on_second(struct health *h, struct fake *f)
{
	uint64_t n;
	const char *b = health_last(h, &n);

	return f->connections >= 2 && f->rounds >= 2 && b && strstr(b, "\"connected\":true");
}

static bool connected_again(struct health *h, struct fake *f)
{
	(void)h;
	return f->connections >= 2;
}

static json_object *message(struct health *h)
{
	uint64_t n;
	const char *b = health_last(h, &n);
	json_object *o = b ? json_tokener_parse(b) : NULL;

	if (!o)
		fail_msg("not JSON: %s", b ? b : "(none)");
	return o;
}

/* What health_ops was told */
struct heard {
	unsigned int messages;
	double add_threshold;
	char *last;
};

static void on_publish(void *data, const char *json, size_t len, uint64_t real_ns)
{
	struct heard *h = data;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* the message's time is its time_ns, now */
	assert_true(real_ns <= (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	assert_int_equal(strlen(json), len);
	free(h->last);
	h->last = strdup(json);
	h->messages++;
}

static void on_add_threshold(void *data, double v)
{
	((struct heard *)data)->add_threshold = v;
}

static void with_fake(enum mode mode, json_object **out)
{
	static const struct health_ops ops = {
		.publish = on_publish, .add_threshold = on_add_threshold,
	};
	struct heard heard = { 0 };
	json_object *sent, *t;
	struct fake f = { .mode = mode, .cfd = -1 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct view_config cfg;
	struct health *h;
	sd_event *e;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/skind.sock", tmp);
	unlink(sa.sun_path);
	f.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	assert_true(f.lfd >= 0);
	assert_int_equal(bind(f.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(f.lfd, 4), 0);
	assert_true(sd_event_new(&e) >= 0);
	assert_true(sd_event_add_io(e, &f.ls, f.lfd, EPOLLIN, on_listen, &f) >= 0);
	view_config_init(&cfg);
	snprintf(cfg.eth_counters, sizeof(cfg.eth_counters), "%s/none", tmp);
	assert_int_equal(health_new(&h, e, &cfg, sa.sun_path, &ops, &heard), 0);
	run(e, mode == HUNG ? disconnected : mode == CLOSES ? round_on_second : two_rounds, h, &f);
	*out = message(h);
	/* what was published is that, with its time first */
	assert_true(heard.messages >= 1);
	assert_int_equal(strncmp(heard.last, "{\"time_ns\":", 11), 0);
	sent = json_tokener_parse(heard.last);
	assert_non_null(sent);
	assert_true(json_object_object_get_ex(sent, "time_ns", &t));
	json_object_object_del(sent, "time_ns");
	/* and the monotonic clock of the same instant, for the faults' dates */
	assert_true(json_object_object_get_ex(sent, "monotonic_ns", &t));
	assert_true(json_object_get_int64(t) > 0);
	json_object_object_del(sent, "monotonic_ns");
	assert_true(json_object_equal(sent, *out));
	json_object_put(sent);
	if (mode != HUNG)
		assert_true(heard.add_threshold == 7);
	else	/* given up after 5 s without a reply, and tried again */
		run(e, connected_again, h, &f);
	free(heard.last);
	health_free(h);
	sd_event_source_disable_unref(f.cs);
	sd_event_source_disable_unref(f.ls);
	if (f.cfd >= 0)
		close(f.cfd);
	close(f.lfd);
	sd_event_unref(e);
}

static void test_skind_with_faults(void **state)
{
	json_object *o, *s, *p, *t, *fl;

	(void)state;
	with_fake(FAULTS, &o);
	s = field(o, "skind");
	assert_true(json_object_get_boolean(field(s, "connected")));
	assert_true(json_object_get_boolean(field(s, "faults")));
	assert_false(json_object_get_boolean(field(s, "faults_truncated")));
	assert_int_equal(json_object_get_int(field(s, "generation")), 4);
	assert_int_equal(json_object_get_int(field(field(s, "status"), "pid")), 4242);
	assert_false(json_object_object_get_ex(field(s, "status"), "type", NULL));
	assert_true(json_object_is_type(field(o, "eth"), json_type_null));
	assert_int_equal(json_object_array_length(field(o, "parts")), 1);
	p = json_object_array_get_idx(field(o, "parts"), 0);
	assert_string_equal(json_object_get_string(field(p, "name")), "fake");
	assert_string_equal(json_object_get_string(field(p, "state")), "running");
	assert_int_equal(json_object_get_int(field(p, "samples")), 51);
	assert_int_equal(json_object_get_int(field(p, "lost")), 2);
	/* the patch of no part is left out */
	assert_int_equal(json_object_array_length(field(p, "patches")), 2);
	t = json_object_array_get_idx(field(p, "patches"), 1);
	assert_string_equal(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN),
			    "{\"name\":\"fake.1\",\"bus\":\"can1\",\"address\":12,\"attached\":false,"
			    "\"silent\":true,\"listen_only\":true,\"frames\":7,\"lost\":0,"
			    "\"partial\":0,\"skipped\":0,\"driver\":null}");
	fl = field(p, "faults");
	assert_int_equal(json_object_array_length(fl), 2);
	assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(fl, 0),
							   JSON_C_TO_STRING_PLAIN),
			    "{\"taxel\":5,\"flags\":[\"stuck\",\"noisy\"],\"since_ns\":123456789,"
			    "\"raw\":240,\"baseline\":12.5}");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    field(json_object_array_get_idx(fl, 1), "flags"), 0)), "dead");
	assert_int_equal(json_object_get_int(field(p, "faults_more")), 0);
	json_object_put(o);
}

/* A fault list cut short by skind ("error truncated"): what it listed */
static void test_skind_truncated(void **state)
{
	json_object *o, *s, *p;

	(void)state;
	with_fake(TRUNCATED, &o);
	s = field(o, "skind");
	assert_true(json_object_get_boolean(field(s, "faults")));
	assert_true(json_object_get_boolean(field(s, "faults_truncated")));
	p = json_object_array_get_idx(field(o, "parts"), 0);
	assert_int_equal(json_object_array_length(field(p, "faults")), 2);
	json_object_put(o);
}

/* skind gone in the middle of a round (a restart): said, connected again,
 * and the next rounds as ever */
static void test_skind_closes(void **state)
{
	json_object *o;

	(void)state;
	with_fake(CLOSES, &o);
	assert_true(json_object_get_boolean(field(field(o, "skind"), "connected")));
	assert_int_equal(json_object_array_length(field(o, "parts")), 1);
	json_object_put(o);
}

/* An older skind: `faults` is an unknown command; the rest as ever */
static void test_skind_without_faults(void **state)
{
	json_object *o, *p;

	(void)state;
	with_fake(NO_FAULTS, &o);
	assert_true(json_object_get_boolean(field(field(o, "skind"), "connected")));
	assert_false(json_object_get_boolean(field(field(o, "skind"), "faults")));
	p = json_object_array_get_idx(field(o, "parts"), 0);
	assert_int_equal(json_object_array_length(field(p, "faults")), 0);
	assert_int_equal(json_object_array_length(field(p, "patches")), 2);
	json_object_put(o);
}

/* A skind that answers nothing: the round is given up, skin-view says
 * skind is not there, and the loop never waited on it */
static void test_skind_hung(void **state)
{
	json_object *o;

	(void)state;
	with_fake(HUNG, &o);
	assert_false(json_object_get_boolean(field(field(o, "skind"), "connected")));
	assert_true(json_object_is_type(field(field(o, "skind"), "status"), json_type_null));
	assert_int_equal(json_object_array_length(field(o, "parts")), 0);
	json_object_put(o);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver),
		cmocka_unit_test(test_eth),
		cmocka_unit_test(test_skind_with_faults),
		cmocka_unit_test(test_skind_truncated),
		cmocka_unit_test(test_skind_without_faults),
		cmocka_unit_test(test_skind_hung),
		cmocka_unit_test(test_skind_closes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
