// SPDX-License-Identifier: GPL-2.0
/*
 * builtin.c - the iCub port layouts every iCub user knows
 *
 * From the iCub "reading tactile data" page (docs/MODEL.md, "Built-in
 * layouts"):
 * which slots of a port's vector hold a taxel, a thermal pad or nothing.
 * Ranges below are written 1-based, exactly as that page writes them, so
 * they can be checked against it by eye; the code turns them 0-based.
 */
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

struct range {
	unsigned int first, last;	/* 1-based, inclusive */
};

struct layout {
	const char *name;
	unsigned int patches;
	/* hand only: explicit tactile ranges and thermal slots; NULL for the
	 * triangle skin, where every present triangle has pads at channels
	 * 6 and 10 (0-based) */
	const struct range *tactile;
	const unsigned int *thermal;	/* 1-based, 0-terminated */
	const struct range *empty;	/* 1-based, {0,0}-terminated */
};

/* Hand V2.1: 1-60 fingertips (index, middle, ring, little, thumb, 12
 * each), 61-96 zero, 97-144 palm with pads at 108, 120, 132, 140,
 * 145-192 zero. */
static const struct range hand_tactile[] = {
	{ 1, 60 }, { 97, 144 }, { 0, 0 }
};
static const unsigned int hand_thermal[] = { 108, 120, 132, 140, 0 };

/* Forearm: 1-192 the full bottom patch; the top patch has 7 (V1) or 8
 * (V2) triangles. */
static const struct range forearm_v1_empty[] = {
	{ 193, 204 }, { 217, 252 }, { 265, 288 }, { 325, 336 }, { 361, 384 },
	{ 0, 0 }
};
static const struct range forearm_v2_empty[] = {
	{ 217, 228 }, { 241, 264 }, { 277, 288 }, { 313, 336 }, { 361, 384 },
	{ 0, 0 }
};
static const struct range no_empty[] = { { 0, 0 } };

static const struct layout layouts[] = {
	{ "hand_v2_1", 1, hand_tactile, hand_thermal, NULL },
	{ "forearm_v1", 2, NULL, NULL, forearm_v1_empty },
	{ "forearm_v2", 2, NULL, NULL, forearm_v2_empty },
	{ "upper_arm", 4, NULL, NULL, no_empty },
	{ "torso", 4, NULL, NULL, no_empty },
};

#define N_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

const char *const *skin_builtin_layouts(void)
{
	static const char *const names[N_LAYOUTS + 1] = {
		"hand_v2_1", "forearm_v1", "forearm_v2", "upper_arm", "torso",
		NULL
	};

	return names;
}

static const struct layout *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_LAYOUTS; i++)
		if (!strcmp(layouts[i].name, name))
			return &layouts[i];
	return NULL;
}

int skin_builtin_part_kinds(const char *name, unsigned int *n_taxels,
			    enum skin_taxel_kind **kinds)
{
	const struct layout *l = find(name);
	enum skin_taxel_kind *k;
	unsigned int n, i;
	const struct range *r;

	if (!l)
		return -1;
	n = l->patches * SKIN_VALUES_PER_PATCH;
	k = calloc(n, sizeof(*k));
	if (!k)
		return -2;
	if (l->tactile) {
		for (r = l->tactile; r->first; r++)
			for (i = r->first; i <= r->last; i++)
				k[i - 1] = SKIN_TAXEL_TACTILE;
		for (i = 0; l->thermal[i]; i++)
			k[l->thermal[i] - 1] = SKIN_TAXEL_THERMAL;
	} else {
		/* Triangle skin: 10 taxels, pads at the 7th and 11th. */
		for (i = 0; i < n; i++) {
			unsigned int ch = i % SKIN_CHANNELS_PER_TRIANGLE;

			k[i] = (ch == 6 || ch == 10) ? SKIN_TAXEL_THERMAL
						     : SKIN_TAXEL_TACTILE;
		}
		for (r = l->empty; r->first; r++)
			for (i = r->first; i <= r->last; i++)
				k[i - 1] = SKIN_TAXEL_ABSENT;
	}
	*n_taxels = n;
	*kinds = k;
	return 0;
}

struct skin_model *skin_model_builtin(const char *name,
				      struct skin_error *err)
{
	enum skin_taxel_kind *kinds;
	struct skin_model *m;
	unsigned int n, i;
	int rc, pi;

	rc = skin_builtin_part_kinds(name, &n, &kinds);
	if (rc == -1) {
		skin_error_set(err, "(built-in layouts)", 0, 0,
			     "unknown layout '%s': expected one of hand_v2_1, forearm_v1, forearm_v2, upper_arm, torso",
			     name);
		return NULL;
	}
	if (rc < 0 || !(m = model_new())) {
		if (rc == 0)
			free(kinds);
		skin_err_oom(err, "(built-in layouts)");
		return NULL;
	}
	pi = model_add_part(m, name, n);
	if (pi < 0 || model_set_str(&m->parts[pi].layout, name))
		goto oom;
	for (i = 0; i < n; i++)
		m->taxels[m->parts[pi].first_taxel + i].kind = kinds[i];
	for (i = 0; i < n / SKIN_VALUES_PER_PATCH; i++)
		if (model_add_patch(m, (unsigned int)pi, i, NULL, -1) < 0)
			goto oom;
	free(kinds);
	return m;
oom:
	free(kinds);
	skin_model_free(m);
	skin_err_oom(err, "(built-in layouts)");
	return NULL;
}
