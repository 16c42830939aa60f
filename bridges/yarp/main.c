// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - skin-yarp, the program (bridge.h, man/skin-yarp.8)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge.h"
#include "log.h"
#include "service.h"

#define DEFAULT_CONFIG "/etc/skin/skin-yarp.conf"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skin-yarp [-c CONFIG] [-s SOCKET] [--check]\n"
		"Serve skind's parts as YARP ports, as skinManager does.\n\n"
		"  -c, --config FILE   skin-yarp.conf (default " DEFAULT_CONFIG
		"; a missing default file means the defaults)\n"
		"  -s, --socket PATH   skind's socket (default $SKIN_SOCKET, else /run/skin/skind.sock)\n"
		"      --check         read the configuration, find the name server, exit\n"
		"  -h, --help          this text, then exit\n"
		"      --version       \"skin-yarp VERSION\", then exit\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *sock = NULL;
	struct yb_config cfg;
	struct yb *b = NULL;
	sd_event *e = NULL;
	bool check = false;
	char why[1024];
	int c, r;

	log_init("skin-yarp", LOG_INFO, 0);
	while ((c = getopt_long(argc, argv, "c:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
			sock = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			puts("skin-yarp " SKIN_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	yb_config_defaults(&cfg);
	if (config || access(DEFAULT_CONFIG, F_OK) == 0) {
		r = yb_config_load(&cfg, config ? config : DEFAULT_CONFIG, why, sizeof(why));
		if (r < 0) {
			log_err("%s", why);
			return 1;
		}
	}
	if (check) {
		struct yn_server s;

		if (cfg.have_name_server) {
			printf("name server %s %u (configured)\n", cfg.ns_host, cfg.ns_port);
			return 0;
		}
		r = yn_find(&s, NULL, why, sizeof(why));
		if (r < 0) {
			log_err("%s", why);
			return 1;
		}
		printf("name server %s %u (namespace %s, %s)\n", s.host, s.port, s.ns, s.file);
		return 0;
	}
	r = service_init(&e);
	if (r < 0) {
		log_err("sd-event: %s", strerror(-r));
		return 1;
	}
	why[0] = '\0';
	r = yb_new(&b, e, &cfg, sock, why, sizeof(why));
	if (r < 0) {
		log_err("%s", why[0] ? why : strerror(-r));
		sd_event_unref(e);
		return 1;
	}
	log_info("registering the ports with the name server at %s:%u",
		 inet_ntoa(b->ns.sin_addr), ntohs(b->ns.sin_port));
	service_ready(NULL);
	r = service_run(e);
	if (r < 0)
		log_err("sd-event: %s", strerror(-r));
	/* the unregistrations get half a second: SIGTERM ends the bridge
	 * within a second whatever the name server does */
	yb_free(b, 500);
	sd_event_unref(e);
	return r != 0 ? 1 : 0;
}
