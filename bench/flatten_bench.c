// SPDX-License-Identifier: GPL-2.0
/*
 * flatten_bench - what placing each part's taxels on a plane costs
 * (skin/flatten.h), for a configuration
 *
 *	flatten_bench [--reps N] [--dump] [CONF]   (default etc/skind-full-body.conf)
 *
 * skind flattens every part at start and on each reload for its evdev
 * devices, on its event loop while the rings wait; skinctl view once per
 * run.  A part whose positions come without telling normals costs the
 * search for the axis they wrap around.  Each part is flattened @reps
 * times (default 5); per part the fastest, and the plane projection of
 * the same positions as the baseline measured beside it:
 *
 *	BENCH flatten PART taxels N how HOW ns T plane_ns P
 *	BENCH flatten total ns T plane_ns P ratio R
 *
 * and a checksum of the coordinates; --dump prints every coordinate
 * exactly (%a) instead, so that a faster search is seen to place the
 * taxels bit for bit where the old one did (diff the two outputs).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/flatten.h>
#include <skin/model.h>

#include "measure.h"

static uint64_t best_of(const struct skin_model *m, unsigned int part,
			enum skin_flatten_mode mode, unsigned int reps,
			struct skin_flattening *keep)
{
	uint64_t best = UINT64_MAX;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		struct skin_flattening f;
		struct skin_error err;
		uint64_t t0 = clock_monotonic_ns(), t;

		if (skin_flatten_part(&f, m, part, mode, &err)) {
			if (keep)
				skin_flatten_free(keep);	/* a run kept */
			return 0;	/* no positions: nothing to place */
		}
		t = clock_monotonic_ns() - t0;
		if (t < best)
			best = t;
		if (keep && r == 0)
			*keep = f;
		else
			skin_flatten_free(&f);
	}
	return best;
}

int main(int argc, char **argv)
{
	const char *conf = SKIN_SOURCE_ROOT "/etc/skind-full-body.conf";
	uint64_t total = 0, total_plane = 0;
	unsigned int reps = 5, i, k;
	bool dump = false;
	struct skin_config *cfg;
	struct skin_model *m;
	struct skin_error err;
	double sum = 0;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < (unsigned int)argc) {
			reps = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--dump")) {
			dump = true;
		} else if (argv[i][0] != '-') {
			conf = argv[i];
		} else {
			fprintf(stderr, "usage: flatten_bench [--reps N] [--dump] [CONF]\n");
			return 2;
		}
	}
	if (!reps)
		reps = 1;
	cfg = skin_config_load(conf, &err);
	m = cfg ? skin_config_build_model(cfg, &err) : NULL;
	if (!m) {
		fprintf(stderr, "flatten_bench: %s\n", err.text);
		skin_config_free(cfg);
		return 1;
	}
	for (i = 0; i < m->n_parts; i++) {
		struct skin_flattening f = { 0 };
		uint64_t t = best_of(m, i, SKIN_FLATTEN_AUTO, reps, &f);
		uint64_t tp = best_of(m, i, SKIN_FLATTEN_TO_PLANE, reps, NULL);
		char how[128];

		if (!t)
			continue;
		for (k = 0; k < f.n; k++) {
			if (dump)
				printf("%s %u %a %a\n", m->parts[i].name, k, f.x[k], f.y[k]);
			else if (!isnan(f.x[k]))
				sum += fabs(f.x[k]) + fabs(f.y[k]);
		}
		if (dump) {
			skin_flatten_free(&f);
			continue;
		}
		printf("BENCH flatten %s taxels %u how \"%s\" ns %llu plane_ns %llu\n",
		       m->parts[i].name, f.n, skin_flatten_describe(&f, how, sizeof(how)),
		       (unsigned long long)t, (unsigned long long)tp);
		skin_flatten_free(&f);
		total += t;
		total_plane += tp;
	}
	if (!dump)
		printf("BENCH flatten total ns %llu plane_ns %llu ratio %.1f checksum %.9g\n",
		       (unsigned long long)total, (unsigned long long)total_plane,
		       total_plane ? (double)total / (double)total_plane : 0.0, sum);
	skin_model_free(m);
	skin_config_free(cfg);
	return 0;
}
