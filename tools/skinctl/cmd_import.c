// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_import.c - skinctl import robots-configuration DIR [--output-dir OUT]
 *
 * Writes OUT/skind.conf, OUT/skin-eth.boards and OUT/skin-yarp.conf from
 * a robots-configuration robot folder (robotcfg.h), then checks that the
 * skind.conf it wrote loads as skind would load it.  What the output
 * cannot express is said on stderr, one line each, and in skind.conf.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robotcfg.h"
#include "skinctl.h"

/* the iCub geometry the package installs (scripts/install), taken when
 * no --geometry-dir is given: robots-configuration has none, and skind
 * refuses a part without */
#define INSTALLED_GEOMETRY "/etc/skin/icub/positions"

static void usage(FILE *f)
{
	fprintf(f, "usage: skinctl import robots-configuration DIR [--output-dir OUT] [--geometry-dir GDIR|--no-geometry]\n"
		   "Write OUT/skind.conf, OUT/skin-eth.boards, OUT/skin-yarp.conf (OUT: .)\n"
		   "from a robots-configuration robot folder (hardware/skin, wrappers/skin);\n"
		   "each part's geometry is the file of GDIR of its SkinPart and length\n"
		   "(GDIR: " INSTALLED_GEOMETRY " when it exists; --no-geometry: none).\n");
}

static int write_one(const char *dir, const char *name, const struct robotcfg *r,
		     void (*writer)(const struct robotcfg *, FILE *))
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	writer(r, f);
	if (fclose(f)) {
		perror(path);
		return -1;
	}
	printf("%s\n", path);
	return 0;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output-dir", required_argument, NULL, 'o' },
		{ "geometry-dir", required_argument, NULL, 'g' },
		{ "no-geometry", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = ".", *geometry = NULL;
	bool no_geometry = false;
	struct skin_config *c;
	struct skin_error err;
	struct robotcfg *r;
	char path[4096];
	unsigned int i;
	int opt;

	while ((opt = getopt_long(argc, argv, "o:g:Gh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			continue;
		case 'g':
			geometry = optarg;
			continue;
		case 'G':
			no_geometry = true;
			continue;
		case 'h':
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	if (optind + 2 != argc || strcmp(argv[optind], "robots-configuration")) {
		usage(stderr);
		return 2;
	}
	r = robotcfg_read(argv[optind + 1], &err);
	if (!r) {
		fprintf(stderr, "%s\n", err.text);
		return 1;
	}
	if (geometry && no_geometry) {
		fprintf(stderr, "skinctl import: --geometry-dir or --no-geometry, not both\n");
		return 2;
	}
	if (!geometry && !no_geometry && access(INSTALLED_GEOMETRY, R_OK | X_OK) == 0) {
		geometry = INSTALLED_GEOMETRY;
		fprintf(stderr, "note: geometry from %s (--geometry-dir DIR for another)\n",
			geometry);
	}
	if (geometry && robotcfg_find_geometry(r, geometry, &err)) {
		fprintf(stderr, "%s\n", err.text);
		robotcfg_free(r);
		return 1;
	}
	for (i = 0; i < robotcfg_n_notes(r); i++)
		fprintf(stderr, "note: %s\n", robotcfg_note(r, i));
	if (write_one(out, "skind.conf", r, robotcfg_write_skind) ||
	    write_one(out, "skin-eth.boards", r, robotcfg_write_boards) ||
	    write_one(out, "skin-yarp.conf", r, robotcfg_write_yarp)) {
		robotcfg_free(r);
		return 1;
	}
	robotcfg_free(r);
	/* what skind would say of it, before a robot finds out */
	snprintf(path, sizeof(path), "%s/skind.conf", out);
	c = skin_config_load(path, &err);
	if (!c) {
		fprintf(stderr, "skinctl import: the configuration written does not load: %s\n",
			err.text);
		return 1;
	}
	skin_config_free(c);
	return 0;
}
