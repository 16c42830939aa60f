// SPDX-License-Identifier: GPL-2.0
/*
 * rng.c - counter-based random numbers
 *
 * A draw is a hash of its coordinates (seed, what, where, when), not the
 * next output of a stream: a sample's noise is then the same whatever
 * order the boards are served in and however many samples were skipped,
 * which is what makes the simulator's ground truth reproducible under
 * load.  The mixer is splitmix64's finaliser (Steele, Lea, Flood 2014),
 * which passes BigCrush as a counter-mode generator.
 */
#include <math.h>

#include "sim-private.h"

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t sim_hash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return mix(mix(mix(mix(seed) ^ a) ^ b) ^ c);
}

/* In [0, 1), 53 bits. */
double sim_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return (double)(sim_hash(seed, a, b, c) >> 11) * 0x1.0p-53;
}

/* Standard normal, Box-Muller over two independent draws. */
double sim_gauss(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h1 = sim_hash(seed, a, b, c);
	uint64_t h2 = mix(h1 ^ 0x5bd1e9955bd1e995ULL);
	double u1 = ((double)(h1 >> 11) + 1.0) * 0x1.0p-53;	/* (0, 1] */
	double u2 = (double)(h2 >> 11) * 0x1.0p-53;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
