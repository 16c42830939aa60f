/* SPDX-License-Identifier: GPL-2.0 */
/*
 * measure.h - the clocks the benchmarks read, one definition each
 */
#ifndef SKIN_BENCH_MEASURE_H
#define SKIN_BENCH_MEASURE_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ns */
uint64_t bench_now_ns(void);
/* Sleep until CLOCK_MONOTONIC reaches @t ns (signals do not cut it short). */
void bench_sleep_until(uint64_t t);
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
