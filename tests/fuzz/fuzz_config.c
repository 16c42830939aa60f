// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_config.c - libFuzzer harness for the skind.conf parser (lib/conf and lib/model/config.c)
 *
 * Parsing only: building the model would open the geometry files the
 * input names, which a fuzzer must not do.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skin_error err;
	struct skin_config *c;
	unsigned int i, j;

	c = skin_config_load_buffer((const char *)data, size,
				    "/nonexistent/fuzz.conf", &err);
	if (!c) {
		if (!strstr(err.text, "fuzz.conf"))
			abort();
		return 0;
	}
	for (i = 0; i < c->n_parts; i++)
		for (j = 0; j < c->parts[i].n_patches; j++)
			if (c->parts[i].patches[j].bus >= c->n_buses ||
			    c->parts[i].patches[j].address > 15)
				abort();
	skin_config_free(c);
	return 0;
}
