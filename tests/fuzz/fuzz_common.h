/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz_common.h - what every geometry harness checks
 *
 * Beyond "no crash, no leak, no UB": a model that loads must have a
 * consistent shape, must take a neighbour graph, and what the library
 * writes from it must load again (the writers and readers agree).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "skin/model.h"
#include "model-private.h"

static void check_model(const struct skin_model *m)
{
	unsigned int i, sum = 0;

	for (i = 0; i < m->n_parts; i++) {
		if (m->parts[i].first_taxel != sum)
			abort();
		sum += m->parts[i].n_taxels;
	}
	if (sum != m->n_taxels)
		abort();
	for (i = 0; i < m->n_taxels; i++)
		if (m->taxels[i].link >= (int)m->n_links)
			abort();
}

static inline void fuzz_geometry(const uint8_t *data, size_t size,
				 enum skin_format fmt)
{
	struct skin_error err;
	struct skin_model *m, *back;
	char *out;
	size_t len;

	m = skin_model_load_buffer((const char *)data, size, fmt, "fuzz", &err);
	if (!m) {
		if (!err.text[0] || !strstr(err.text, "fuzz"))
			abort();	/* every failure names its input */
		return;
	}
	check_model(m);
	if (skin_model_compute_neighbours(m, 0.015, &err))
		abort();
	if (!skin_skinware_write(m, &out, &len, &err)) {
		back = skin_model_load_buffer(out, len, SKIN_FORMAT_SKINWARE,
					      "written", &err);
		if (!back)
			abort();
		skin_model_free(back);
		free(out);
	}
	if (m->n_parts == 1 && !skin_positions_write(m, 0, &out, &len, &err)) {
		back = skin_model_load_buffer(out, len, SKIN_FORMAT_POSITIONS,
					      "written", &err);
		/* a model of only absent slots writes rows the reader
		 * rightly cannot tell apart; everything else must load */
		if (!back && m->n_taxels)
			abort();
		skin_model_free(back);
		free(out);
	}
	skin_model_free(m);
}

#endif
