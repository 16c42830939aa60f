/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin_kcompat.h - the kernel types (and NULL) the driver's portable core
 * uses, for building that core in user space (unit tests, benchmarks,
 * simulator).  Only what driver/skin_core.h needs: add here, never there.
 */
#ifndef SKIN_KCOMPAT_H
#define SKIN_KCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#endif
