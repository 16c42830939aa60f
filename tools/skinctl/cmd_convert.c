// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_convert.c - skinctl convert IN OUT: between geometry formats
 *
 * Reads any format; writes positions (one part) or skinware.  The output
 * format comes from --to or OUT's extension (.txt positions, .cache or
 * .skinware skinware).  A Skinware cache gets the neighbour graph at
 * skinManAll.ini's 0.015 m unless the input carries one (--dist M).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin/model.h"
#include "skinctl.h"

static enum skin_format by_extension(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return SKIN_FORMAT_AUTO;
	if (!strcmp(dot, ".txt"))
		return SKIN_FORMAT_POSITIONS;
	if (!strcmp(dot, ".cache") || !strcmp(dot, ".skinware"))
		return SKIN_FORMAT_SKINWARE;
	return SKIN_FORMAT_AUTO;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "dist", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	enum skin_format from = SKIN_FORMAT_AUTO, to = SKIN_FORMAT_AUTO;
	struct skin_error err;
	struct skin_model *m;
	double dist = 0.015;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "f:t:d:", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			from = skin_format_from_name(optarg);
			if (from != SKIN_FORMAT_AUTO)
				continue;
			break;
		case 't':
			to = skin_format_from_name(optarg);
			if (to != SKIN_FORMAT_AUTO)
				continue;
			break;
		case 'd':
			dist = strtod(optarg, &end);
			if (!*end && dist > 0)
				continue;
			break;
		}
		fprintf(stderr, "usage: skinctl convert [--from FMT] [--to positions|skinware] [--dist METRES] IN OUT\n");
		return 2;
	}
	if (optind + 2 != argc) {
		fprintf(stderr, "usage: skinctl convert [--from FMT] [--to FMT] IN OUT\n");
		return 2;
	}
	if (to == SKIN_FORMAT_AUTO)
		to = by_extension(argv[optind + 1]);
	if (to != SKIN_FORMAT_POSITIONS && to != SKIN_FORMAT_SKINWARE) {
		fprintf(stderr, "skinctl convert: %s: say --to positions or --to skinware\n",
			argv[optind + 1]);
		return 2;
	}
	m = skin_model_load(argv[optind], from, &err);
	if (!m) {
		fprintf(stderr, "%s\n", err.text);
		return 1;
	}
	if (to == SKIN_FORMAT_SKINWARE && !m->nbr_start &&
	    skin_model_compute_neighbours(m, dist, &err)) {
		fprintf(stderr, "%s\n", err.text);
		skin_model_free(m);
		return 1;
	}
	if (skin_model_save(m, argv[optind + 1], to, &err)) {
		fprintf(stderr, "%s\n", err.text);
		skin_model_free(m);
		return 1;
	}
	if (to == SKIN_FORMAT_SKINWARE) {
		struct skin_model_stats st;
		unsigned int written = 0, i;

		for (i = 0; i < m->n_taxels; i++)
			written += m->taxels[i].kind == SKIN_TAXEL_TACTILE &&
				   (m->taxels[i].flags & SKIN_TAXEL_HAS_POS);
		skin_model_stats(m, -1, &st);
		fprintf(stderr, "skinctl convert: %u sensors written; %u thermal pads, %u absent slots and %u taxels without a position left out%s\n",
			written, st.thermal, st.absent, st.tactile - written,
			st.with_flat ? "" : "; no flattened positions known (written as 0 0)");
	}
	skin_model_free(m);
	return 0;
}
