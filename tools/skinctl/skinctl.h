/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skinctl.h - the subcommand table's contract
 *
 * A subcommand is one file (cmd_NAME.c) with one entry point; add it to
 * the table in skinctl.c and to meson.build.  It gets argv from its own
 * name on and returns the process's exit status.
 */
#ifndef SKINCTL_H
#define SKINCTL_H

#include <stdbool.h>

struct skinctl_cmd {
	const char *name;
	const char *args;	/* usage after the name */
	const char *help;	/* one line */
	int (*run)(int argc, char **argv);
	/* parses --help itself (a usage of its own); else skinctl.c answers
	 * it with the table's line */
	bool own_help;
};

int cmd_layout(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_process(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_contacts(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);

#endif
