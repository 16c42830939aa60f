// SPDX-License-Identifier: GPL-2.0
/* fuzz_skinware.c - libFuzzer harness for the skinware reader (and writers) */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_geometry(data, size, SKIN_FORMAT_SKINWARE);
	return 0;
}
