/* SPDX-License-Identifier: GPL-2.0 */
/*
 * options.h - skind's command line (options.c)
 *
 * Owns struct skind_options: what the process is told at start, read by
 * every module and never written after options_parse().  skind.conf (the
 * skin) is skin.h's.  Start-up only; nothing here runs on the real-time
 * path.
 */
#ifndef SKIND_OPTIONS_H
#define SKIND_OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>

/* Command line; docs/DAEMON.md lists them. */
struct skind_options {
	const char *config_path;	/* /etc/skin/skind.conf */
	const char *ring_dir;		/* /dev/skin, or a dir of ring files */
	const char *socket_path;	/* /run/skin/skind.sock */
	const char *shm_path;		/* /run/skin/skind.shm */
	const char *state_dir;		/* /var/lib/skind */
	const char *configfs_dir;	/* /sys/kernel/config/skin */
	const char *admin_group;	/* may calibrate and set; NULL: root only */
	gid_t admin_gid;
	bool admin_gid_valid;
	unsigned int max_clients;	/* 64 */
	unsigned int max_line;		/* 4096 bytes */
	unsigned int queue_bytes;	/* per client, 65536 */
	unsigned int max_rate_hz;	/* subscription rate cap, 1000 */
	unsigned int cmd_rate;		/* commands per second per client, 200 */
	unsigned int max_user_clients;	/* per uid; 0: max_clients / 4 */
	unsigned int idle_timeout_s;	/* for a command to complete, 10 */
	unsigned int max_subscriptions;	/* per client, 32 */
	bool evdev;			/* make uinput devices */
	bool create_patches;		/* write configfs at start */
	bool setup_only;		/* --create-patches: do that, then exit */
	bool mlock;			/* mlockall() */
	int log_level;			/* LOG_INFO */
	bool log_prefix;		/* "<N>" on stderr */
};

/* 0, or -1 with the reason on stderr; --help prints the usage and exits. */
int options_parse(struct skind_options *o, int argc, char **argv);

#endif
