// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_scenario.c - libFuzzer harness for skinsim's scenario parser
 *
 * Parsing only (building the simulation would open the config the input
 * names).  A rejection names the file; an accepted scenario has its
 * events in time order and none after its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skin_sim_scenario *sc;
	struct skin_error err;
	unsigned int i;

	sc = skin_sim_scenario_load_buffer((const char *)data, size,
					   "/nonexistent/fuzz.scn", &err);
	if (!sc) {
		if (!strstr(err.text, "fuzz.scn"))
			abort();
		return 0;
	}
	for (i = 0; i < sc->n_events; i++) {
		if (i && sc->events[i].t_ns < sc->events[i - 1].t_ns)
			abort();
		if (sc->duration_ns && sc->events[i].t_ns > sc->duration_ns)
			abort();
	}
	skin_sim_scenario_free(sc);
	return 0;
}
