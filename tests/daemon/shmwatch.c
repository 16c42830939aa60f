// SPDX-License-Identifier: GPL-2.0
/*
 * shmwatch - a reader of skind's shared memory that follows
 * include/skin/shm.h to the letter, and says what it sees
 *
 *	shmwatch SHM PART SECONDS
 *
 * Maps SHM by name, copies PART under its seqlock every 10 ms, and maps
 * the name again whenever the object says it should (SKIN_SHM_RETIRED);
 * watches the writer's heartbeat (skin_shm_check()).  One line per event,
 * flushed at once:
 *
 *	mapped pid P generation G instance I
 *	retired
 *	stale			(the heartbeat stopped: skind dead or hung)
 *	beating			(it moves again)
 *	gone			(the name cannot be mapped; tried again)
 *
 * and "end reads N" after SECONDS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <skin/client.h>

#include "skin_clock.h"

static double now_s(void)
{
	return (double)clock_monotonic_ns() / 1e9;
}

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	struct skin_shm_map m = { .fd = -1 };
	bool mapped = false, gone = false, stale = false;
	unsigned long reads = 0;
	void *buf = NULL;
	double end;
	int part = -1;

	if (argc != 4) {
		fprintf(stderr, "usage: shmwatch SHM PART SECONDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	end = now_s() + atof(argv[3]);
	while (now_s() < end) {
		int c = mapped ? skin_shm_check(&m) : 0;

		if (c == -ESTALE) {
			printf("retired\n");
			skin_shm_close(&m);
			mapped = false;
		} else if ((c == -ETIMEDOUT) != stale) {
			stale = !stale;
			printf("%s\n", stale ? "stale" : "beating");
		}
		if (!mapped) {
			int r = skin_shm_open(&m, argv[1]);

			if (r < 0) {
				if (!gone)
					printf("gone %s\n", strerror(-r));
				gone = true;
				nap();
				continue;
			}
			gone = false;
			stale = false;
			mapped = true;
			part = skin_shm_find_part(&m, argv[2]);
			if (part < 0) {
				fprintf(stderr, "shmwatch: no part %s\n", argv[2]);
				return 1;
			}
			free(buf);
			buf = malloc(skin_shm_part(&m, (unsigned int)part)->size);
			if (!buf)
				return 1;
			printf("mapped pid %u generation %llu instance %016llx\n",
			       m.hdr->pid, (unsigned long long)m.hdr->generation,
			       (unsigned long long)m.hdr->instance);
		}
		if (!skin_shm_read_part(&m, (unsigned int)part, buf, 1000))
			reads++;
		nap();
	}
	printf("end reads %lu\n", reads);
	free(buf);
	if (mapped)
		skin_shm_close(&m);
	return 0;
}
