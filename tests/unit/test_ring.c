// SPDX-License-Identifier: GPL-2.0
/*
 * test_ring.c - the driver's ring (driver/skin_ring.c) between threads
 *
 * A writer thread publishes frames as fast as it can into a small ring
 * while reader threads copy them out with the lock-free reader: no reader
 * may ever return a torn frame (values from two different frames), frames
 * come in order, and every frame is either read or counted as lost.  This
 * runs on real SMP under ASan/UBSan; the KUnit suite covers the
 * single-threaded cases exactly.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "skin_core.h"

#define RING_LOG2	4
#define FRAMES		200000
#define READERS		2

#define STRIDE		1000	/* frames the writer may run ahead unchecked */

struct reader_result;

struct shared {
	struct skin_ring ring;
	void *mem;
	int done;
	struct reader_result *readers;
};

struct reader_result {
	struct shared *sh;
	uint64_t got, lost, torn, disorder;
	uint64_t last;		/* last frame read, for the writer to see */
};

/*
 * Every STRIDE frames the writer waits until each reader has read a frame
 * of the last stride, so that the race is run many times even when the
 * scheduler starves a reader, while the ring (16 frames) is still lapped
 * again and again between two checks.
 */
static void writer_wait_readers(struct shared *sh, uint64_t n)
{
	unsigned int i;

	for (i = 0; i < READERS; i++)
		while (__atomic_load_n(&sh->readers[i].last, __ATOMIC_ACQUIRE) +
		       STRIDE < n)
			sched_yield();
}

static void *writer(void *arg)
{
	struct shared *sh = arg;
	volatile unsigned int spin;
	uint64_t n;

	for (n = 1; n <= FRAMES; n++) {
		/*
		 * About a reader's pace: readers get many frames and still
		 * race the writer for the slot they copy.
		 */
		for (spin = 0; spin < 300; spin++)
			;
		if (n % STRIDE == 0)
			writer_wait_readers(sh, n);
		struct skin_frame *slot = skin_ring_begin(&sh->ring);

		/* every byte of the frame says which frame it is */
		memset(slot->values, (int)(n & 0xff), sizeof(slot->values));
		slot->timestamp_ns = n;
		slot->refreshed = (uint16_t)n;
		skin_ring_commit(&sh->ring, slot);
	}
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader(void *arg)
{
	struct reader_result *r = arg;
	struct skin_frame f;
	uint64_t next = 1, last = 0;
	unsigned int i;

	for (;;) {
		if (skin_ring_read(r->sh->ring.ctrl, r->sh->ring.slots, &next,
				   &f, &r->lost) == SKIN_RING_EMPTY) {
			if (__atomic_load_n(&r->sh->done, __ATOMIC_ACQUIRE) &&
			    next > FRAMES)
				break;
			continue;
		}
		r->got++;
		if (f.seq <= last)
			r->disorder++;
		last = f.seq;
		__atomic_store_n(&r->last, last, __ATOMIC_RELEASE);
		if (f.timestamp_ns != f.seq || f.refreshed != (uint16_t)f.seq)
			r->torn++;
		for (i = 0; i < SKIN_BOARD_VALUES; i++)
			if (f.values[i] != (f.seq & 0xff)) {
				r->torn++;
				break;
			}
	}
	return NULL;
}

static void test_threads_never_tear(void **state)
{
	struct reader_result res[READERS];
	pthread_t w, rd[READERS];
	struct shared sh;
	uint64_t head;
	long page = 4096;
	unsigned int i;

	(void)state;
	memset(&sh, 0, sizeof(sh));
	sh.readers = res;
	sh.mem = calloc(1, page + (sizeof(struct skin_frame) << RING_LOG2));
	assert_non_null(sh.mem);
	skin_ring_init(&sh.ring, sh.mem, page, RING_LOG2);

	for (i = 0; i < READERS; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].sh = &sh;
		assert_int_equal(pthread_create(&rd[i], NULL, reader, &res[i]), 0);
	}
	assert_int_equal(pthread_create(&w, NULL, writer, &sh), 0);
	pthread_join(w, NULL);
	for (i = 0; i < READERS; i++)
		pthread_join(rd[i], NULL);
	head = sh.ring.ctrl->head;
	free(sh.mem);

	assert_int_equal(head, FRAMES);
	for (i = 0; i < READERS; i++) {
		print_message("# reader %u: %llu read, %llu lost\n", i,
			      (unsigned long long)res[i].got,
			      (unsigned long long)res[i].lost);
		assert_int_equal(res[i].torn, 0);
		assert_int_equal(res[i].disorder, 0);
		assert_int_equal(res[i].got + res[i].lost, FRAMES);
		/* the race was run: at least a frame per stride was read */
		assert_true(res[i].got >= FRAMES / STRIDE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_never_tear),
	};

	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
