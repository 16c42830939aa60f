// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl.c - the skin stack's command-line tool: the subcommand table
 */
#include <stdio.h>
#include <string.h>

#include "skinctl.h"

static const struct skinctl_cmd cmds[] = {
	{ "layout", "FILE", "validate a config or geometry file and summarise it",
	  cmd_layout },
	{ "convert", "[--from FMT] [--to FMT] IN OUT",
	  "convert between geometry formats (e.g. positions to skinware)",
	  cmd_convert },
	{ "dump", "[--read] [-n N] [--timeout MS] [--all] DEVICE",
	  "print the frames of /dev/skin/NAME or a ring file as they come",
	  cmd_dump },
	{ "stats", "[DEVICE...]",
	  "identity, state and counters of skin devices (default: all)",
	  cmd_stats },
	{ "start", "DEVICE", "configure the patch's board and make it stream",
	  cmd_start },
	{ "stop", "DEVICE", "tell the patch's board to stop streaming",
	  cmd_stop },
	{ "reset", "DEVICE", "reset the patch's counters", cmd_reset },
	{ "process", "[--compat] [--format bottle|json] [--taxels PART] CONFIG LOG",
	  "run skind's processing on a candump -l log, print contacts or values",
	  cmd_process },
	{ "status", "[--socket PATH] [--json]",
	  "skind's state: its parts, patches and clients", cmd_status },
	{ "contacts", "[--watch [--rate HZ]] [--json] [PART]",
	  "the contacts skind sees, once or as they change", cmd_contacts },
	{ "calibrate", "[--wait] [PART]",
	  "make skind calibrate a part (or every part)", cmd_calibrate },
	{ "view", "PART [--once] [--log LOG]",
	  "a part's layout as a live heat map in the terminal", cmd_view },
	{ "snapshot", "PART --svg FILE [--log LOG]",
	  "the same picture as an SVG file", cmd_snapshot },
};

static void usage(FILE *fp)
{
	unsigned int i;

	fprintf(fp, "usage: skinctl COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(fp, "  %-8s %-32s %s\n", cmds[i].name, cmds[i].args,
			cmds[i].help);
}

int main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "skinctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
