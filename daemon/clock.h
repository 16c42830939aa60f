/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - the daemon's clocks, in nanoseconds
 *
 * CLOCK_MONOTONIC measures every interval and sets every deadline: the
 * publication times, the overload guard's windows, the rate limits and
 * the timers that must fire at a given time (sd-event's cached "now" is
 * the start of the loop's iteration, which a long handler leaves behind).
 * CLOCK_REALTIME only dates the shm object (skin_shm_header.created_ns).
 *
 * [RT]: both are the vDSO's, no system call.
 */
#ifndef SKIND_CLOCK_H
#define SKIND_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t clock_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

#endif
