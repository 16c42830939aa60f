// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - the CPU time the benchmarks read (measure.h)
 */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "measure.h"

uint64_t bench_cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

uint64_t bench_busy_us(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice,
		   &sys, &idle, &iowait, &irq, &softirq);
	fclose(f);
	if (n != 7)
		return 0;
	return (user + nice + sys + irq + softirq) * 1000000ull /
	       (uint64_t)sysconf(_SC_CLK_TCK);
}
