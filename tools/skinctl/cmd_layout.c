// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_layout.c - skinctl layout FILE: validate and summarise
 *
 * Any format the model library reads (skind.conf included).  Exit 0 only
 * when the file is valid; the error names file, line and column.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "skin/model.h"
#include "skinctl.h"

static void bbox(const struct skin_model_stats *st)
{
	if (!st->with_pos) {
		printf("  -");
		return;
	}
	printf("  [%.4f %.4f] x [%.4f %.4f] x [%.4f %.4f] m", st->min[0],
	       st->max[0], st->min[1], st->max[1], st->min[2], st->max[2]);
}

int cmd_layout(int argc, char **argv)
{
	enum skin_format fmt = SKIN_FORMAT_AUTO;
	struct skin_model_stats st;
	struct skin_error err;
	struct skin_model *m;
	unsigned int i, j;
	double dist = 0.015;
	int opt;

	while ((opt = getopt(argc, argv, "f:")) != -1) {
		if (opt == 'f' &&
		    (fmt = skin_format_from_name(optarg)) != SKIN_FORMAT_AUTO)
			continue;
		fprintf(stderr, "usage: skinctl layout [-f positions|urdf|skinware|skingui|config] FILE\n");
		return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: skinctl layout [-f FORMAT] FILE\n");
		return 2;
	}
	m = skin_model_load(argv[optind], fmt, &err);
	if (!m) {
		fprintf(stderr, "%s\n", err.text);
		return 1;
	}
	/* a config computes its own neighbours; geometry files use
	 * skinManAll.ini's distance unless they carry a graph */
	if (!m->nbr_start && skin_model_compute_neighbours(m, dist, &err)) {
		fprintf(stderr, "%s\n", err.text);
		skin_model_free(m);
		return 1;
	}
	skin_model_stats(m, -1, &st);
	printf("%s: valid\n", argv[optind]);
	printf("parts %u, patches %u, slots %u: tactile %u, thermal %u, absent %u\n",
	       m->n_parts, m->n_patches, m->n_taxels, st.tactile, st.thermal,
	       st.absent);
	printf("positions %u, flattened %u, neighbours %u pairs",
	       st.with_pos, st.with_flat, m->n_nbr / 2);
	if (m->neighbour_dist_m > 0)
		printf(" (at most %g m)", m->neighbour_dist_m);
	else
		printf(" (from the file)");
	printf("\nbounding box");
	bbox(&st);
	printf("\n");
	for (i = 0; i < m->n_parts; i++) {
		const struct skin_part *p = &m->parts[i];

		skin_model_stats(m, (int)i, &st);
		printf("part %-16s %-16s slots %4u: tactile %4u thermal %3u absent %4u, positions %4u;",
		       p->name, skin_part_id_name(p->skin_part), p->n_taxels,
		       st.tactile, st.thermal, st.absent, st.with_pos);
		for (j = 0; j < p->n_patches; j++) {
			const struct skin_patch *pa = &m->patches[p->first_patch + j];

			if (pa->address >= 0)
				printf(" %s:%d", pa->bus ? pa->bus : "?", pa->address);
			else
				printf(" %s:?", pa->bus ? pa->bus : "?");
		}
		printf("\n");
	}
	for (i = 0; i < m->n_notes; i++)
		printf("note: %s\n", m->notes[i]);
	skin_model_free(m);
	return 0;
}
