// SPDX-License-Identifier: GPL-2.0
/*
 * test_yarp_config.c - skin-yarp.conf: values, defaults, and an error
 * naming FILE:LINE for each kind of mistake
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"
#include "config.h"

static char path[64];

static int load(struct yb_config *c, const char *text, char *why, size_t len)
{
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_yarp_config.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	yb_config_defaults(c);
	why[0] = '\0';
	fd = yb_config_load(c, path, why, len);
	unlink(path);
	return fd;
}

static void values(void **state)
{
	struct yb_config c;
	char why[512];

	(void)state;
	assert_int_equal(load(&c,
		"# a comment\n"
		"[yarp]\n"
		"version = 4\n"
		"name_server = 10.0.0.1 10000\n"
		"advertise = 10.0.0.5\n"
		"bind = 127.0.0.1\n"
		"robot = icubSim\n"
		"manager = skinMan\n"
		"rpc_admin = true\n"
		"stall_ms = 500\n"
		"recheck_s = 2\n"
		"max_connections = 100\n"
		"max_per_address = 4\n"
		"idle_ms = 2500\n"
		"raw_period_ms = 0\n"
		"; another\n"
		"[part left_upper_arm]\n"
		"port = left_arm\n"
		"[connect]\n"
		"/icubSim/skin/left_arm_comp = /logger fast_tcp\n"
		"/skinMan/skin_events:o = /gui\n"
		"/skinMan/info:o = /guiInfo udp\n", why, sizeof(why)), 0);
	assert_int_equal(c.version, YW_YARP4);
	assert_true(c.have_name_server);
	assert_string_equal(c.ns_host, "10.0.0.1");
	assert_int_equal(c.ns_port, 10000);
	assert_string_equal(c.advertise, "10.0.0.5");
	assert_string_equal(c.robot, "icubSim");
	assert_string_equal(c.manager, "skinMan");
	assert_true(c.rpc_admin);
	assert_int_equal(c.stall_ms, 500);
	assert_int_equal(c.recheck_s, 2);
	assert_int_equal(c.max_conns, 100);
	assert_int_equal(c.max_per_addr, 4);
	assert_int_equal(c.idle_ms, 2500);
	assert_int_equal(c.raw_period_ms, 0);
	assert_string_equal(yb_config_port_name(&c, "left_upper_arm", 3), "left_arm");
	assert_int_equal(c.n_connect, 3);
	assert_string_equal(c.connect[0].to, "/logger");
	assert_int_equal(c.connect[0].carrier, YW_FAST_TCP);
	assert_int_equal(c.connect[1].carrier, YW_TCP);
	assert_int_equal(c.connect[2].carrier, YW_UDP);
}

/* skinManAll.ini's names by SkinPart when no [part] names one */
static void defaults(void **state)
{
	struct yb_config c;

	(void)state;
	yb_config_defaults(&c);
	assert_int_equal(c.version, YW_YARP3);
	assert_false(c.rpc_admin);
	assert_string_equal(c.advertise, "...");
	/* the robots' skin wrappers' period (robots-configuration) */
	assert_int_equal(c.raw_period_ms, 20);
	assert_string_equal(yb_config_port_name(&c, "left_upper_arm", 3), "left_arm");
	assert_string_equal(yb_config_port_name(&c, "torso", 7), "torso");
	assert_string_equal(yb_config_port_name(&c, "right_foot", 13), "right_foot");
	assert_string_equal(yb_config_port_name(&c, "tail", 0), "tail");
}

static void errors(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "version = 3\n", ":1:1: 'version' before any section: expected [yarp], [part NAME] or [connect] first" },
		{ "[yarp]\nversion = 5\n", ":2:11: version = '5': expected 3 or 4" },
		{ "[yarp]\nname_server = 1.2.3.4\n", ":2:15: name_server = '1.2.3.4': expected IP PORT" },
		{ "[yarp]\nadvertise = host\n", ":2:13: advertise = 'host': expected an IPv4 address" },
		{ "[yarp]\nrobot = a/b\n", ":2:9: robot = 'a/b': expected one word without '/'" },
		{ "[yarp]\nrpc_admin = maybe\n", ":2:13: rpc_admin = 'maybe': expected yes or no (true/false, on/off, 1/0)" },
		{ "[yarp]\nstall_ms = 0\n", ":2:12: stall_ms = '0': expected an integer 10..600000" },
		{ "[yarp]\nmax_connections = 2\n", ":2:19: max_connections = '2': expected an integer 4..65536" },
		{ "[yarp]\nmax_per_address = 0\n", ":2:19: max_per_address = '0': expected an integer 1..65536" },
		{ "[yarp]\nidle_ms = 50\n", ":2:11: idle_ms = '50': expected an integer 100..600000" },
		{ "[yarp]\nraw_period_ms = 1001\n", ":2:17: raw_period_ms = '1001': expected an integer 0..1000" },
		{ "[yarp]\n\nraw_period_ms = -20\n", ":3:17: raw_period_ms = '-20': expected an integer 0..1000" },
		{ "[yarp]\nraw_period_ms = 20ms\n", ":2:17: raw_period_ms = '20ms': expected an integer 0..1000" },
		{ "[yarp]\ncolour = red\n", ":2:1: unknown key \"colour\" in [yarp]" },
		{ "[yarp]\n\n[bogus]\n", ":3:2: unknown section [bogus]" },
		{ "[part x]\nname = y\n", ":2:1: unknown key \"name\" in [part x]" },
		{ "[connect]\n/a = b\n", ":2:1: want /OUR_PORT = /READER" },
		{ "[connect]\n/a = /b mcast\n", ":2:9: carrier \"mcast\"" },
		{ "[yarp]\nversion\n", ":2:1: expected '[section]', 'key = value' or a comment" },
		{ "[yarp]\nversion = 3\n[yarp] x\n", ":3:8: text after ']'" },
	};
	struct yb_config c;
	char why[512];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(&c, bad[i].text, why, sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].why) || strncmp(why, path, strlen(path)))
			print_error("case %u: \"%s\"\n", i, why);
		assert_non_null(strstr(why, bad[i].why));
		assert_memory_equal(why, path, strlen(path));
	}
}

/* man/skin-yarp.8's [yarp] keys are the table's, line for line
 * (test_yarp_config --man prints them). */
static void man_page_is_the_table(void **state)
{
	const struct conf_key *t;
	char *page = NULL, *from, *to, *want;
	size_t n = 0, nk;
	FILE *f;

	(void)state;
	f = fopen(SKIN_SOURCE_ROOT "/man/skin-yarp.8", "r");
	assert_non_null(f);
	assert_true(getdelim(&page, &n, '\0', f) > 0);
	fclose(f);
	from = strstr(page, ".SS [yarp]\n");
	assert_non_null(from);
	from += strlen(".SS [yarp]\n");
	to = strstr(from, ".SS [part ");
	assert_non_null(to);
	t = yb_config_keys(&nk);
	want = conf_keys_man(t, nk);
	assert_non_null(want);
	if ((size_t)(to - from) != strlen(want) || memcmp(from, want, strlen(want)))
		fail_msg("man/skin-yarp.8's [yarp] differs from bridges/yarp/config.c's table:\n%s", want);
	free(want);
	free(page);
}

/* The file the packages install loads, and says what the defaults say */
static void shipped(void **state)
{
	struct yb_config c, d;
	char why[512];

	(void)state;
	yb_config_defaults(&c);
	yb_config_defaults(&d);
	if (yb_config_load(&c, SKIN_SOURCE_ROOT "/etc/yarp/skin-yarp.conf", why,
			   sizeof(why)))
		print_error("%s\n", why);
	assert_memory_equal(&c, &d, sizeof(c));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shipped),
		cmocka_unit_test(values),
		cmocka_unit_test(defaults),
		cmocka_unit_test(errors),
		cmocka_unit_test(man_page_is_the_table),
	};

	if (argc > 1 && !strcmp(argv[1], "--man")) {
		size_t n;
		const struct conf_key *t = yb_config_keys(&n);
		char *man = conf_keys_man(t, n);

		fputs(man ? man : "", stdout);
		free(man);
		return man ? 0 : 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
