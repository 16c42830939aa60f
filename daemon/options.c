// SPDX-License-Identifier: GPL-2.0
/*
 * options.c - skind's command line
 *
 * skind.conf describes the skin (it is shared with skinctl and skinsim);
 * the command line describes this process: where its files are, who may
 * change its state, its limits.  Under systemd the unit passes them
 * ($SKIND_OPTS from /etc/default/skind).
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <skin/shm.h>

#include "options.h"

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: skind [OPTIONS]\n"
"\n"
"The skin daemon: reads every configured patch, calibrates and compensates\n"
"it, and serves the result over shared memory, a Unix socket and evdev.\n"
"\n"
"  -c, --config FILE        skind.conf (default /etc/skin/skind.conf)\n"
"  -r, --rings DIR          where the patches' rings are: /dev/skin (default)\n"
"                           or a directory of ring files (skinsim)\n"
"  -s, --socket PATH        the socket, when not socket-activated\n"
"                           (default /run/skin/skind.sock)\n"
"      --shm PATH           the shared memory object (default %s)\n"
"      --state-dir DIR      calibration is kept here (default /var/lib/skind)\n"
"      --configfs DIR       the driver's configfs (default /sys/kernel/config/skin)\n"
"      --admin-group GROUP  members may calibrate and set (default: root only)\n"
"      --max-clients N      (default 64)\n"
"      --max-user-clients N connections of one user (uid) (default a quarter\n"
"                           of --max-clients)\n"
"      --idle-timeout SECONDS  close a client that has not completed a\n"
"                           command this long (default 10)\n"
"      --max-line BYTES     longest command line (default 4096)\n"
"      --queue-bytes BYTES  output queue per client (default 65536)\n"
"      --max-rate HZ        highest subscription rate (default 1000)\n"
"      --cmd-rate N         commands per second per client (default 200)\n"
"      --no-evdev           make no uinput devices\n"
"      --no-create-patches  do not write configfs at start\n"
"      --create-patches     create the driver's patches, then exit (for\n"
"                           ExecStartPre=+ in the unit: needs root)\n"
"      --mlock              lock memory (mlockall) for real-time use\n"
"  -v, --verbose            debug messages\n"
"      --log-prefix         \"<N>\" priority prefixes on stderr\n"
"  -h, --help               this text, then exit\n"
"      --version            \"skind VERSION\", then exit\n"
"\n"
"Exit status: 2 for a bad command line.\n", SKIN_SHM_PATH);
}

static int parse_uint(const char *opt, const char *s, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "skind: %s: '%s' is not a number in %u..%u\n",
			opt, s, min, max);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

enum {
	OPT_SHM = 256, OPT_STATE, OPT_CONFIGFS, OPT_ADMIN, OPT_MAX_CLIENTS,
	OPT_MAX_LINE, OPT_QUEUE, OPT_MAX_RATE, OPT_CMD_RATE, OPT_NO_EVDEV,
	OPT_NO_CREATE, OPT_CREATE, OPT_MLOCK, OPT_LOG_PREFIX, OPT_MAX_USER,
	OPT_IDLE, OPT_VERSION,
};

int options_parse(struct skind_options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "rings", required_argument, NULL, 'r' },
		{ "socket", required_argument, NULL, 's' },
		{ "shm", required_argument, NULL, OPT_SHM },
		{ "state-dir", required_argument, NULL, OPT_STATE },
		{ "configfs", required_argument, NULL, OPT_CONFIGFS },
		{ "admin-group", required_argument, NULL, OPT_ADMIN },
		{ "max-clients", required_argument, NULL, OPT_MAX_CLIENTS },
		{ "max-line", required_argument, NULL, OPT_MAX_LINE },
		{ "queue-bytes", required_argument, NULL, OPT_QUEUE },
		{ "max-rate", required_argument, NULL, OPT_MAX_RATE },
		{ "cmd-rate", required_argument, NULL, OPT_CMD_RATE },
		{ "max-user-clients", required_argument, NULL, OPT_MAX_USER },
		{ "idle-timeout", required_argument, NULL, OPT_IDLE },
		{ "no-evdev", no_argument, NULL, OPT_NO_EVDEV },
		{ "no-create-patches", no_argument, NULL, OPT_NO_CREATE },
		{ "create-patches", no_argument, NULL, OPT_CREATE },
		{ "mlock", no_argument, NULL, OPT_MLOCK },
		{ "verbose", no_argument, NULL, 'v' },
		{ "log-prefix", no_argument, NULL, OPT_LOG_PREFIX },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct skind_options){
		.config_path = "/etc/skin/skind.conf",
		.ring_dir = "/dev/skin",
		.socket_path = "/run/skin/skind.sock",
		.shm_path = SKIN_SHM_PATH,
		.state_dir = "/var/lib/skind",
		.configfs_dir = "/sys/kernel/config/skin",
		.max_clients = 64,
		.max_line = 4096,
		.queue_bytes = 65536,
		.max_rate_hz = 1000,
		.cmd_rate = 200,
		.idle_timeout_s = 10,
		.max_subscriptions = 32,
		.evdev = true,
		.create_patches = true,
		.log_level = LOG_INFO,
	};
	/* the state directory systemd made for us, when it did */
	if (getenv("STATE_DIRECTORY") && *getenv("STATE_DIRECTORY") &&
	    !strchr(getenv("STATE_DIRECTORY"), ':'))
		o->state_dir = getenv("STATE_DIRECTORY");

	while ((c = getopt_long(argc, argv, "c:r:s:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config_path = optarg; break;
		case 'r': o->ring_dir = optarg; break;
		case 's': o->socket_path = optarg; break;
		case OPT_SHM: o->shm_path = optarg; break;
		case OPT_STATE: o->state_dir = optarg; break;
		case OPT_CONFIGFS: o->configfs_dir = optarg; break;
		case OPT_ADMIN: {
			struct group *g = getgrnam(optarg);

			if (!g) {
				fprintf(stderr, "skind: --admin-group: no group '%s'\n",
					optarg);
				return -1;
			}
			o->admin_group = optarg;
			o->admin_gid = g->gr_gid;
			o->admin_gid_valid = true;
			break;
		}
		case OPT_MAX_CLIENTS:
			if (parse_uint("--max-clients", optarg, 1, 65536, &o->max_clients))
				return -1;
			break;
		case OPT_MAX_LINE:
			if (parse_uint("--max-line", optarg, 64, 1 << 20, &o->max_line))
				return -1;
			break;
		case OPT_QUEUE:
			if (parse_uint("--queue-bytes", optarg, 4096, 64 << 20,
				       &o->queue_bytes))
				return -1;
			break;
		case OPT_MAX_RATE:
			if (parse_uint("--max-rate", optarg, 1, 100000, &o->max_rate_hz))
				return -1;
			break;
		case OPT_CMD_RATE:
			if (parse_uint("--cmd-rate", optarg, 1, 1000000, &o->cmd_rate))
				return -1;
			break;
		case OPT_MAX_USER:
			if (parse_uint("--max-user-clients", optarg, 1, 65536,
				       &o->max_user_clients))
				return -1;
			break;
		case OPT_IDLE:
			if (parse_uint("--idle-timeout", optarg, 1, 86400, &o->idle_timeout_s))
				return -1;
			break;
		case OPT_NO_EVDEV: o->evdev = false; break;
		case OPT_NO_CREATE: o->create_patches = false; break;
		case OPT_CREATE: o->setup_only = true; break;
		case OPT_MLOCK: o->mlock = true; break;
		case 'v': o->log_level = LOG_DEBUG; break;
		case OPT_LOG_PREFIX: o->log_prefix = true; break;
		case 'h': usage(stdout); exit(0);
		case OPT_VERSION: puts("skind " SKIN_VERSION); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (!o->max_user_clients)
		o->max_user_clients = o->max_clients / 4 ? o->max_clients / 4 : 1;
	if (optind < argc) {
		fprintf(stderr, "skind: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	return 0;
}
