// SPDX-License-Identifier: GPL-2.0
/*
 * shmcheck - read a part of skind's shared memory as fast as possible and
 * count torn copies
 *
 *	shmcheck SHM PART SECONDS THREADS [unlocked]
 *
 * Meant to run while ringfeed writes "uniform" frames (all 192 values of a
 * board's frame equal): every 192-value slice of the part's raw vector is
 * then uniform in any consistent copy, and a copy that mixes two
 * publications shows up as a slice with two values.  Each thread also
 * checks that the publication count never goes backwards.  "unlocked"
 * copies the block without the seqlock, to show that the check can see
 * tearing at all.  Prints one line:
 *
 *	reads N torn T busy B backwards K publications P unarmed U
 *
 * (reads and torn count from each thread's first uniform copy on; U is
 * how many copies came before it.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <skin/client.h>

#include "skin_clock.h"

struct reader {
	pthread_t thread;
	const struct skin_shm_map *m;
	unsigned int part;
	double seconds;
	bool unlocked;
	unsigned long reads, torn, busy, backwards, unarmed;
	bool armed;
	uint64_t first, last;
};

static double now_s(void)
{
	return (double)clock_monotonic_ns() / 1e9;
}

static void *run(void *arg)
{
	struct reader *r = arg;
	const struct skin_shm_part_desc *d = skin_shm_part(r->m, r->part);
	double end = now_s() + r->seconds;
	char *buf = malloc(d->size);
	unsigned int k, i;

	while (now_s() < end) {
		const struct skin_shm_part *h;
		const uint8_t *raw;
		bool torn = false;

		if (r->unlocked) {
			memcpy(buf, (const char *)r->m->base + d->offset, d->size);
		} else if (skin_shm_read_part(r->m, r->part, buf, 1000) < 0) {
			r->busy++;
			continue;
		}
		r->reads++;
		h = skin_shm_head(buf);
		raw = skin_shm_raw(r->m, r->part, buf);
		for (k = 0; k < d->n_taxels && !torn; k += 192)
			for (i = k + 1; i < k + 192 && i < d->n_taxels; i++)
				if (raw[i] != raw[k]) {
					torn = true;
					break;
				}
		/*
		 * Publications of frames written before "uniform on" are not
		 * uniform: count from the first uniform copy on (skind
		 * processes a ring's frames in order, so every later
		 * publication comes from a uniform frame).
		 */
		if (!torn && h->samples > 0)
			r->armed = true;
		if (!r->armed) {
			r->reads--;
			r->unarmed++;
			continue;
		}
		if (torn) {
			if (!r->torn && getenv("SHMCHECK_DUMP")) {
				fprintf(stderr, "torn: samples %llu seq %llu raw:",
					(unsigned long long)h->samples, (unsigned long long)h->seq);
				for (i = 0; i < d->n_taxels && i < 192; i++)
					fprintf(stderr, " %u", raw[i]);
				fprintf(stderr, "\n");
			}
			r->torn++;
		}
		if (h->samples < r->last)
			r->backwards++;
		if (!r->first)
			r->first = h->samples;
		r->last = h->samples;
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct reader rd[16];
	struct skin_shm_map m;
	unsigned long reads = 0, torn = 0, busy = 0, back = 0, unarmed = 0;
	unsigned int n, i;
	uint64_t pubs = 0;
	int part, r;

	if (argc < 5) {
		fprintf(stderr, "usage: shmcheck SHM PART SECONDS THREADS [unlocked]\n");
		return 2;
	}
	r = skin_shm_open(&m, argv[1]);
	if (r < 0) {
		fprintf(stderr, "shmcheck: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	part = skin_shm_find_part(&m, argv[2]);
	if (part < 0) {
		fprintf(stderr, "shmcheck: no part %s\n", argv[2]);
		return 1;
	}
	n = (unsigned int)atoi(argv[4]);
	if (n < 1 || n > 16)
		n = 1;
	for (i = 0; i < n; i++) {
		memset(&rd[i], 0, sizeof(rd[i]));
		rd[i].m = &m;
		rd[i].part = (unsigned int)part;
		rd[i].seconds = atof(argv[3]);
		rd[i].unlocked = argc > 5 && !strcmp(argv[5], "unlocked");
		pthread_create(&rd[i].thread, NULL, run, &rd[i]);
	}
	for (i = 0; i < n; i++) {
		pthread_join(rd[i].thread, NULL);
		reads += rd[i].reads;
		torn += rd[i].torn;
		busy += rd[i].busy;
		back += rd[i].backwards;
		unarmed += rd[i].unarmed;
		if (rd[i].last - rd[i].first > pubs)
			pubs = rd[i].last - rd[i].first;
	}
	printf("reads %lu torn %lu busy %lu backwards %lu publications %llu unarmed %lu\n",
	       reads, torn, busy, back, (unsigned long long)pubs, unarmed);
	skin_shm_close(&m);
	return 0;
}
