// SPDX-License-Identifier: GPL-2.0
/*
 * run.c - what every mode of skinsim writes to and through (skinsim.h):
 * the stop flag, the bus map, the ground truth, the candump log, the ring
 * files and the boards as the driver would configure them
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "skinsim.h"

volatile sig_atomic_t skinsim_stop;

const char *bus_map(const struct options *o, const char *bus)
{
	unsigned int i;

	for (i = 0; i < o->n_maps; i++)
		if (strcmp(o->map_from[i], bus) == 0)
			return o->map_to[i];
	return bus;
}

int write_truth_sample(struct run *r, const struct skin_sim_board *b,
		       const struct skin_sim_sample *smp)
{
	if (!r->truth)
		return 0;
	/* the contacts of each distinct time once, before its samples */
	if (!r->contacts_written || smp->t_ns > r->last_contacts_t) {
		if (skin_sim_truth_contacts(r->truth, r->sim, smp->t_ns))
			return -1;
		r->last_contacts_t = smp->t_ns;
		r->contacts_written = true;
	}
	return skin_sim_truth_sample(r->truth, r->sim, b, smp);
}

int log_frame(struct run *r, const char *bus, const struct can_frame *cf,
	      uint64_t ts_real)
{
	struct skin_canlog_record rec;

	if (!r->log)
		return 0;
	skin_canlog_record_classic(&rec, ts_real, bus_map(r->o, bus), cf);
	if (skin_canlog_write(r->log, &rec)) {
		fprintf(stderr, "skinsim: %s: %s\n", r->o->log, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A board as the driver configures it, for the modes without a driver:
 * the board's values in the config ([board], [board BUS:ADDRESS]), the triangles the geometry has (a daemon
 * enables those), streaming.
 */
void board_for_offline(const struct run *r, unsigned int i,
		       struct skin_sim_board *b)
{
	const struct skin_sim_patch_info *p = skin_sim_patch(r->sim, i);
	const struct skin_config_board *cb =
		skin_config_board_of(r->config, p->bus, p->address);
	unsigned int t;

	skin_sim_board_init(b, p->address);
	b->period_ms = (uint8_t)(cb->period_ms ? cb->period_ms : 1);
	b->skin_type = (uint8_t)cb->skin_type;
	b->no_load = (uint8_t)cb->no_load;
	for (t = 0; t < SKIN_SIM_TRIANGLES; t++) {
		b->shift[t] = (uint8_t)cb->shift;
		b->cdc_offset[t] = (uint16_t)cb->cdc_offset;
	}
	b->enabled = r->o->all_triangles || !p->present ? 0xffff : p->present;
	b->streaming = true;
}

int open_rings(struct run *r)
{
	unsigned int n = skin_sim_patches(r->sim), i;

	if (mkdir(r->o->ring_dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "skinsim: %s: %s\n", r->o->ring_dir, strerror(errno));
		return -1;
	}
	r->rings = calloc(n, sizeof(*r->rings));
	if (!r->rings)
		return -1;
	for (i = 0; i < n; i++) {
		struct skin_sim_patch_info info = *skin_sim_patch(r->sim, i);
		const char *bus = bus_map(r->o, skin_sim_patch(r->sim, i)->bus);
		struct skin_sim_board b;
		struct skin_error err;
		char path[4096];

		board_for_offline(r, i, &b);
		snprintf(info.bus, sizeof(info.bus), "%s", bus);
		snprintf(path, sizeof(path), "%s/%s", r->o->ring_dir, info.name);
		r->rings[i] = skin_sim_ring_create(path, &info, &b, r->o->cls,
						   r->o->ring_log2, &err);
		if (!r->rings[i]) {
			fprintf(stderr, "skinsim: %s\n", err.text);
			return -1;
		}
		if (r->o->verbose)
			fprintf(stderr, "skinsim: ring %s: %s:%u triangles %04x period %u ms\n",
				path, info.bus, info.address, b.enabled, b.period_ms);
	}
	return 0;
}
