/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim-private.h - what the files of libskinsim share
 */
#ifndef SKIN_SIM_PRIVATE_H
#define SKIN_SIM_PRIVATE_H

#include <skin/sim.h>

#define SC_NAME_MAX	32
#define SC_PART_MAX	64

enum sc_kind {
	SC_PRESS,
	SC_MOVE,
	SC_RELEASE,
	SC_FAULT,
};

enum sc_fault {
	SC_FAULT_DROP,		/* frames lost with a probability */
	SC_FAULT_DEAD,		/* a triangle sends nothing */
	SC_FAULT_STUCK,		/* a taxel reads a fixed value */
	SC_FAULT_SATURATE,	/* a taxel reads 0 and reports out of range */
	SC_FAULT_GARBAGE,	/* malformed frames in the board's id space */
	SC_FAULT_ERRORS,	/* a burst of CAN error frames on a bus */
	SC_FAULT_NOISY,		/* a taxel's reading jumps at every sample */
};

#define SC_NOISY_AMPLITUDE	40	/* noisy: default amplitude, raw counts */

/* Where a contact is: a point, or a taxel's position (resolved later). */
struct sc_where {
	bool taxel;
	unsigned int index;	/* part-local taxel index */
	double pos[3];
};

struct sc_event {
	unsigned int line;
	uint64_t t_ns;
	enum sc_kind kind;
	char name[SC_NAME_MAX];		/* contact */
	char part[SC_PART_MAX];		/* press, stuck, saturate, noisy */
	struct sc_where where;		/* press, move */
	double radius, force;		/* press */
	uint64_t dur_ns;		/* ramp, move time, fault duration */
	/* faults */
	enum sc_fault fault;
	char bus[IFNAMSIZ];		/* "" = every bus */
	int address;			/* -1 = every board of the bus */
	unsigned int triangle;
	unsigned int taxel;
	int value;			/* stuck: -1 = its baseline;
					 * noisy: the amplitude */
	double prob;
	unsigned int count;
	/* resolved by skin_sim_new() */
	unsigned int part_index;
};

struct skin_sim_scenario {
	char *name;
	char *config;			/* resolved path or NULL */
	uint64_t duration_ns;
	struct skin_sim_params params;
	unsigned int n_events;
	struct sc_event *events;	/* sorted by time, stable */
};

/* Per channel of a simulated board, fixed at creation. */
struct sim_channel {
	enum skin_taxel_kind kind;
	bool has_pos;
	double pos[3];
	double offset;		/* baseline offset, raw counts */
	double drift_gain;
	unsigned int taxel;	/* part-local index */
};

struct sim_patch {
	struct skin_sim_patch_info info;
	double drift_phase;
	struct sim_channel ch[SKIN_SIM_VALUES];
};

struct skin_sim {
	struct skin_sim_params params;
	uint8_t cls;			/* of the garbage frames */
	struct skin_model *model;
	unsigned int n_patches;
	struct sim_patch *patches;
	unsigned int n_events;
	struct sc_event *events;	/* copy, resolved */
	unsigned int n_contacts;	/* distinct contact names */
	char (*contact_names)[SC_NAME_MAX];
};

/* rng.c: counter-based, so a draw depends on its coordinates only */
uint64_t sim_hash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
double sim_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
double sim_gauss(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);

/* signal.c: a contact's pressure at a distance from its centre */
double sim_falloff(double dist, double radius);

#endif
