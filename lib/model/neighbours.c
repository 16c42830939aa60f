// SPDX-License-Identifier: GPL-2.0
/*
 * neighbours.c - which taxels are neighbours, in expected O(N)
 *
 * skinManager compares every pair once at start-up (O(N^2), and iCub's
 * 4,224 values make that 9 million distances).  Here taxels are dropped
 * into a hash grid of cubes of side max_dist; a taxel's neighbours can
 * only be in its own cube or one of the 26 around it, so each taxel looks
 * at a bounded number of candidates when the skin is a surface.
 *
 * Neighbours: both tactile (thermal pads and absent slots have no touch
 * to cluster), both with a known position, same part and same link (the
 * positions of different links are in different frames), at most
 * max_dist apart.  skinManager's own comparison is the same "<=" on the
 * Euclidean distance.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

static bool eligible(const struct skin_taxel *t)
{
	return t->kind == SKIN_TAXEL_TACTILE && (t->flags & SKIN_TAXEL_HAS_POS);
}

static bool close_enough(const struct skin_taxel *a,
			 const struct skin_taxel *b, double d2max)
{
	double dx = a->pos[0] - b->pos[0];
	double dy = a->pos[1] - b->pos[1];
	double dz = a->pos[2] - b->pos[2];

	return a->link == b->link && dx * dx + dy * dy + dz * dz <= d2max;
}

/* part of each taxel, for the same-part rule */
/*
 * Append taxel id j to a growing neighbour list: 0, or -1 when out of
 * memory (*list is then unchanged, for the caller to free).
 */
static int nbr_push(unsigned int **list, unsigned int *n, unsigned int *cap,
		    unsigned int j)
{
	if (*n == *cap) {
		unsigned int newcap = *cap ? *cap * 2 : 1024;
		unsigned int *nn = realloc(*list, newcap * sizeof(*nn));

		if (!nn)
			return -1;
		*list = nn;
		*cap = newcap;
	}
	(*list)[(*n)++] = j;
	return 0;
}

static unsigned int *part_of(const struct skin_model *m)
{
	unsigned int *po = malloc(((size_t)m->n_taxels + 1) * sizeof(*po));
	unsigned int i, j;

	if (!po)
		return NULL;
	for (i = 0; i < m->n_parts; i++)
		for (j = 0; j < m->parts[i].n_taxels; j++)
			po[m->parts[i].first_taxel + j] = i;
	return po;
}

int skin_neighbours_brute(const struct skin_model *m, double max_dist_m,
			  unsigned int **start_out, unsigned int **nbr_out,
			  unsigned int *n_out)
{
	unsigned int *start, *nbr = NULL, *po, n = 0, cap = 0, i, j;
	double d2 = max_dist_m * max_dist_m;

	start = calloc((size_t)m->n_taxels + 1, sizeof(*start));
	po = part_of(m);
	if (!start || !po)
		goto oom;
	for (i = 0; i < m->n_taxels; i++) {
		start[i] = n;
		if (!eligible(&m->taxels[i]))
			continue;
		for (j = 0; j < m->n_taxels; j++) {
			if (j == i || !eligible(&m->taxels[j]) || po[i] != po[j] ||
			    !close_enough(&m->taxels[i], &m->taxels[j], d2))
				continue;
			if (nbr_push(&nbr, &n, &cap, j))
				goto oom;
		}
	}
	start[m->n_taxels] = n;
	free(po);
	*start_out = start;
	*nbr_out = nbr;
	*n_out = n;
	return 0;
oom:
	free(start);
	free(nbr);
	free(po);
	return -1;
}

struct cell {
	int64_t x, y, z;
};

/* Cell number along one axis, clamped so that a far-away (hostile)
 * coordinate cannot overflow the conversion; clamped taxels share a cell,
 * which costs time but not correctness (distances are still exact). */
static int64_t axis_cell(double v, double origin, double side)
{
	double q = floor((v - origin) / side);

	if (!(q < 4503599627370496.0))		/* 2^52, and NaN */
		q = 4503599627370496.0;
	return (int64_t)q;
}

static struct cell cell_of(const struct skin_taxel *t, const double *origin,
			   double side)
{
	struct cell c;

	c.x = axis_cell(t->pos[0], origin[0], side);
	c.y = axis_cell(t->pos[1], origin[1], side);
	c.z = axis_cell(t->pos[2], origin[2], side);
	return c;
}

static uint64_t cell_hash(int64_t x, int64_t y, int64_t z, unsigned int part)
{
	uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull;

	h ^= (uint64_t)y * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
	h ^= (uint64_t)z * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
	h ^= (uint64_t)part * 0x27D4EB2F165667C5ull;
	return h ^ (h >> 29);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

int skin_model_compute_neighbours(struct skin_model *m, double max_dist_m,
				  struct skin_error *err)
{
	unsigned int *po = NULL, *head = NULL, *next = NULL, *start = NULL;
	unsigned int *nbr = NULL, n = 0, cap = 0, i, size = 1;
	struct cell *cells = NULL;
	double origin[3] = { INFINITY, INFINITY, INFINITY };
	double d2 = max_dist_m * max_dist_m;
	const unsigned int none = UINT32_MAX;

	if (!(max_dist_m > 0.0) || !isfinite(max_dist_m)) {
		skin_error_set(err, "(neighbours)", 0, 0,
			     "expected a maximum neighbour distance > 0 metres, got %g",
			     max_dist_m);
		return -1;
	}
	while (size < 2 * m->n_taxels)
		size <<= 1;
	po = part_of(m);
	head = malloc(size * sizeof(*head));
	next = malloc(((size_t)m->n_taxels + 1) * sizeof(*next));
	cells = malloc(((size_t)m->n_taxels + 1) * sizeof(*cells));
	start = calloc((size_t)m->n_taxels + 1, sizeof(*start));
	if (!po || !head || !next || !cells || !start)
		goto oom;
	for (i = 0; i < size; i++)
		head[i] = none;
	/* The grid's origin at the minimum corner keeps cell numbers small
	 * whatever the frame's offset. */
	for (i = 0; i < m->n_taxels; i++)
		if (eligible(&m->taxels[i])) {
			origin[0] = fmin(origin[0], m->taxels[i].pos[0]);
			origin[1] = fmin(origin[1], m->taxels[i].pos[1]);
			origin[2] = fmin(origin[2], m->taxels[i].pos[2]);
		}
	for (i = 0; i < m->n_taxels; i++) {
		uint64_t h;

		next[i] = none;
		if (!eligible(&m->taxels[i]))
			continue;
		cells[i] = cell_of(&m->taxels[i], origin, max_dist_m);
		h = cell_hash(cells[i].x, cells[i].y, cells[i].z, po[i]);
		next[i] = head[h & (size - 1)];
		head[h & (size - 1)] = i;
	}
	for (i = 0; i < m->n_taxels; i++) {
		int dx, dy, dz;
		unsigned int first = n;

		start[i] = n;
		if (!eligible(&m->taxels[i]))
			continue;
		for (dx = -1; dx <= 1; dx++)
			for (dy = -1; dy <= 1; dy++)
				for (dz = -1; dz <= 1; dz++) {
					struct cell c = {
						cells[i].x + dx, cells[i].y + dy,
						cells[i].z + dz
					};
					uint64_t h = cell_hash(c.x, c.y, c.z, po[i]);
					unsigned int j;

					for (j = head[h & (size - 1)]; j != none;
					     j = next[j]) {
						/* A bucket can hold other cells. */
						if (j == i || po[j] != po[i] ||
						    cells[j].x != c.x ||
						    cells[j].y != c.y ||
						    cells[j].z != c.z ||
						    !close_enough(&m->taxels[i],
								  &m->taxels[j], d2))
							continue;
						if (nbr_push(&nbr, &n, &cap, j))
							goto oom;
					}
				}
		if (n - first > 1)
			qsort(nbr + first, n - first, sizeof(*nbr), cmp_uint);
	}
	start[m->n_taxels] = n;
	if (!nbr && !(nbr = malloc(sizeof(*nbr))))	/* never NULL once computed */
		goto oom;
	free(po);
	free(head);
	free(next);
	free(cells);
	model_drop_neighbours(m);
	m->nbr_start = start;
	m->nbr = nbr;
	m->n_nbr = n;
	m->neighbour_dist_m = max_dist_m;
	return 0;
oom:
	free(po);
	free(head);
	free(next);
	free(cells);
	free(start);
	free(nbr);
	skin_err_oom(err, "(neighbours)");
	return -1;
}
