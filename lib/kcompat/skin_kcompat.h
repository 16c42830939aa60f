/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * skin_kcompat.h - what the driver's portable core takes from the kernel,
 * for building that core in user space (unit tests, benchmarks, simulator):
 * fixed-width types, NULL, memcpy/memset, and the kernel's memory-ordering
 * primitives mapped onto the C11 memory model.  Only what driver/skin_core.h
 * needs: add here, never there.
 */
#ifndef SKIN_KCOMPAT_H
#define SKIN_KCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define BIT(n)			(1UL << (n))

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)

#endif
