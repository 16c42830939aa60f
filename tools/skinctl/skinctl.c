// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl.c - the skin stack's command-line tool: the subcommand table
 */
#include <stdio.h>
#include <string.h>

#include "skinctl.h"

static const struct skinctl_cmd cmds[] = {
	{ "layout", "[-f FORMAT] FILE",
	  "validate a config or geometry file and summarise it", cmd_layout, false },
	{ "convert", "[--from FMT] [--to FMT] [--dist M] IN OUT",
	  "convert between geometry formats (e.g. positions to skinware)",
	  cmd_convert, false },
	{ "import", "robots-configuration DIR [--output-dir OUT] [--geometry-dir GDIR|--no-geometry]",
	  "skind.conf and the ETH gateway's boards from a robot's folder",
	  cmd_import, true },
	{ "dump", "[--read] [-n N] [--timeout MS] [--all] DEVICE",
	  "print the frames of /dev/skin/NAME or a ring file as they come",
	  cmd_dump, true },
	{ "stats", "[DEVICE...]",
	  "identity, state and counters of skin devices (default: all)",
	  cmd_stats, false },
	{ "start", "DEVICE", "configure the patch's board and make it stream",
	  cmd_start, false },
	{ "stop", "DEVICE", "tell the patch's board to stop streaming",
	  cmd_stop, false },
	{ "reset", "DEVICE", "reset the patch's counters", cmd_reset, false },
	{ "process", "[--compat [--cycle MS]] [--format bottle|json] [--taxels PART] CONFIG LOG",
	  "run skind's processing on a candump -l log, print contacts or values",
	  cmd_process, true },
	{ "status", "[--socket PATH] [--json]",
	  "skind's state: its parts, patches and clients", cmd_status, true },
	{ "contacts", "[--watch [--rate HZ]] [--json] [PART]",
	  "the contacts skind sees, once or as they change", cmd_contacts, true },
	{ "calibrate", "[--wait] [PART]",
	  "make skind calibrate a part (or every part)", cmd_calibrate, true },
	{ "view", "PART [--once] [--log LOG]",
	  "a part's layout as a live heat map in the terminal", cmd_view, true },
	{ "snapshot", "PART --svg FILE [--log LOG]",
	  "the same picture as an SVG file", cmd_snapshot, true },
};

static void usage(FILE *fp)
{
	unsigned int i;

	fprintf(fp, "usage: skinctl COMMAND [ARGS]\n"
		    "       skinctl help COMMAND | COMMAND --help\n"
		    "       skinctl --help | --version\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(fp, "  %-9s %-32s %s\n", cmds[i].name, cmds[i].args,
			cmds[i].help);
	fprintf(fp, "\nExit status: 0 done; 1 a failure (said on stderr); 2 usage.\n");
}

static const struct skinctl_cmd *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* The command's own --help, or its line of the table. */
static int help(const struct skinctl_cmd *c)
{
	char *argv[] = { (char *)c->name, (char *)"--help", NULL };

	if (c->own_help)
		return c->run(2, argv);
	printf("usage: skinctl %s %s\n%s\n", c->name, c->args, c->help);
	return 0;
}

/* -h or --help among the options (up to "--"): the command's help */
static bool asks_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const struct skinctl_cmd *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("skinctl " SKIN_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help")) {
		c = argc == 3 ? find(argv[2]) : NULL;
		if (!c) {
			if (argc == 3)
				fprintf(stderr, "skinctl help: no command '%s'\n", argv[2]);
			else
				fprintf(stderr, "skinctl help: one COMMAND\n");
			usage(stderr);
			return 2;
		}
		return help(c);
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "skinctl: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	if (!c->own_help && asks_help(argc - 1, argv + 1))
		return help(c);
	return c->run(argc - 1, argv + 1);
}
