// SPDX-License-Identifier: GPL-2.0
/* fuzz_positions.c - libFuzzer harness for the positions reader (and writers) */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_geometry(data, size, SKIN_FORMAT_POSITIONS);
	return 0;
}
