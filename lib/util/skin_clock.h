/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin_clock.h - the clocks every program reads, in nanoseconds, written
 * once (a private header, not installed: lib/client, skinctl, skinsim,
 * the bridges, the benchmarks and the test helpers include it; LGPL as
 * lib/client, whose code in libskin.a uses it)
 *
 * CLOCK_MONOTONIC measures every interval and sets every deadline; it is
 * the clock of the frames' timestamps (the driver's and skind's).
 * CLOCK_REALTIME only dates things for people and peers (a log's epoch,
 * a YARP envelope, a ROS 2 header stamp), through the offset below.
 *
 * Both are the vDSO's, no system call: safe on a real-time path.
 */
#ifndef SKIN_CLOCK_H
#define SKIN_CLOCK_H

#include <errno.h>
#include <signal.h>
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

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns: add it to a monotonic time
 * to date it.  The monotonic clock is read between two realtime reads, so
 * the offset is off by at most their distance, a few tens of nanoseconds.
 */
static inline int64_t clock_mono_to_real_ns(void)
{
	int64_t r1 = (int64_t)clock_realtime_ns();
	int64_t m = (int64_t)clock_monotonic_ns();
	int64_t r2 = (int64_t)clock_realtime_ns();

	return r1 + (r2 - r1) / 2 - m;
}

/*
 * Sleep until CLOCK_MONOTONIC reaches @t_ns.  A signal does not cut the
 * sleep short unless @stop (may be NULL) is set when it returns.
 */
static inline void clock_sleep_until_mono(uint64_t t_ns,
					  const volatile sig_atomic_t *stop)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000ull),
		.tv_nsec = (long)(t_ns % 1000000000ull),
	};

	while (!(stop && *stop) &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#endif
