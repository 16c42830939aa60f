/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure.h - what the benchmarks measure besides the clocks (those are
 * lib/util/skin_clock.h's, as everywhere), one definition each
 */
#ifndef SKIN_BENCH_MEASURE_H
#define SKIN_BENCH_MEASURE_H

#include <stdint.h>

#include "skin_clock.h"

/* This process's user + system time (getrusage), in us. */
uint64_t bench_cpu_us(void);
/*
 * Busy time of the whole machine, all CPUs (user, nice, system, irq,
 * softirq; not idle, iowait or steal), from /proc/stat, in us; 0 when it
 * cannot be read.  It includes what the kernel does for readers in softirq
 * context, which getrusage() charges to no process.
 */
uint64_t bench_busy_us(void);

#endif
