// SPDX-License-Identifier: GPL-2.0
/*
 * test_yarp_name.c - finding YARP's name server as YARP 3.12 does
 * (config directory, namespace, file name), and reading its replies
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "name.h"

static char dir[256];
static const char *env_ns;
static const char *env_home, *env_xdg, *env_yarp;

static const char *env(const char *name)
{
	if (!strcmp(name, "YARP_CONFIG_HOME"))
		return env_yarp;
	if (!strcmp(name, "XDG_CONFIG_HOME"))
		return env_xdg;
	if (!strcmp(name, "HOME"))
		return env_home;
	if (!strcmp(name, "YARP_NAMESPACE"))
		return env_ns;
	return NULL;
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_yarp_name.XXXXXX");
	assert_non_null(mkdtemp(dir));
	env_ns = env_home = env_xdg = NULL;
	env_yarp = dir;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void root_namespace(void **state)
{
	struct yn_server s;
	char why[600], want[300];

	(void)state;
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "yarp.conf: no such file"));
	put("yarp.conf", "10.0.0.5 10000 yarp\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), 0);
	assert_string_equal(s.host, "10.0.0.5");
	assert_int_equal(s.port, 10000);
	assert_string_equal(s.ns, "/root");
	snprintf(want, sizeof(want), "%s/yarp.conf", dir);
	assert_string_equal(s.file, want);
	put("yarp.conf", "127.0.0.1 10001\n");	/* the mode is optional */
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), 0);
	assert_int_equal(s.port, 10001);
}

/* $YARP_NAMESPACE, then yarp_namespace.conf; "/my-lab" -> _my_lab.conf */
static void namespaces(void **state)
{
	struct yn_server s;
	char why[600];

	(void)state;
	put("yarp.conf", "127.0.0.1 10000\n");
	put("_my_lab.conf", "127.0.0.1 10002\n");
	put("yarp_namespace.conf", "/my-lab\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), 0);
	assert_string_equal(s.ns, "/my-lab");
	assert_int_equal(s.port, 10002);
	env_ns = "/root";
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), 0);
	assert_int_equal(s.port, 10000);
	env_ns = "/other";
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "_other.conf"));
}

/* Without YARP_CONFIG_HOME: $XDG_CONFIG_HOME/yarp, then ~/.config/yarp */
static void config_dirs(void **state)
{
	struct yn_server s;
	char why[600], sub[300];

	(void)state;
	env_yarp = NULL;
	env_xdg = dir;
	snprintf(sub, sizeof(sub), "%s/yarp", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	put("yarp/yarp.conf", "127.0.0.1 10003\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), 0);
	assert_int_equal(s.port, 10003);
	env_xdg = NULL;
	env_home = dir;
	snprintf(sub, sizeof(sub), "%s/.config", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/.config/yarp", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	put(".config/yarp/yarp.conf", "127.0.0.1 10004\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), 0);
	assert_int_equal(s.port, 10004);
}

static void bad_files(void **state)
{
	struct yn_server s;
	char why[600];

	(void)state;
	put("yarp.conf", "127.0.0.1\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "yarp.conf:1: want \"IP PORT [MODE]\""));
	put("yarp.conf", "127.0.0.1 70000\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "yarp.conf:1: bad port \"70000\""));
	put("yarp.conf", "127.0.0.1 11311 ros\n");
	assert_int_equal(yn_find(&s, env, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "mode \"ros\""));
}

static void on_reply(void *data, int err, const char *reply)
{
	(void)data;
	(void)err;
	(void)reply;
}

static void replies(void **state)
{
	struct yn_reg r;

	(void)state;
	assert_int_equal(yn_parse_reg("registration name /icub/skin/left_hand_comp ip 10.0.0.5 port 10123 type tcp\n*** end of message\n", &r), 0);
	assert_string_equal(r.name, "/icub/skin/left_hand_comp");
	assert_string_equal(r.ip, "10.0.0.5");
	assert_int_equal(r.port, 10123);
	assert_string_equal(r.carrier, "tcp");
	assert_int_equal(yn_parse_reg("registration name /x ip none port 0 type tcp\n", &r), 0);
	assert_int_equal(r.port, 0);
	assert_int_equal(yn_parse_reg("*** end of message\n", &r), -EPROTO);
}

/* A command with a control character never goes out; past 128 waiting
 * requests a new one is refused at once (the name server is never
 * reached: a closed port on loopback) */
static void requests_bounded(void **state)
{
	struct sockaddr_in sa;
	struct yn_client *c;
	sd_event *e;
	unsigned int i;
	int r = 0;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(yn_address("127.0.0.1", 9, &sa), 0);
	assert_int_equal(yn_client_new(&c, e, &sa, 1000), 0);
	assert_int_equal(yn_request(c, "query /x\nNAME_SERVER unregister /v", NULL, NULL),
			 -EINVAL);
	assert_int_equal(yn_request(c, "query /x\rNAME_SERVER", NULL, NULL), -EINVAL);
	assert_int_equal(yn_request(c, "query /x\x7f", NULL, NULL), -EINVAL);
	assert_int_equal(yn_pending(c), 0);
	for (i = 0; i < 200 && r == 0; i++)
		r = yn_request(c, "query /x", on_reply, NULL);
	assert_int_equal(r, -EBUSY);
	assert_int_equal(yn_pending(c), 128);
	yn_client_free(c);
	sd_event_unref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(root_namespace, setup, teardown),
		cmocka_unit_test_setup_teardown(namespaces, setup, teardown),
		cmocka_unit_test_setup_teardown(config_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_files, setup, teardown),
		cmocka_unit_test(replies),
		cmocka_unit_test(requests_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
