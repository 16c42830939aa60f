/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin/sim.h - simulated skin boards: signals, scenarios, frames, truth
 *
 * libskinsim is what skinsim (tools/skinsim) is made of, in four concerns:
 *
 *  - the board (board.c): an MTB board's reaction to the host's start-up
 *    commands (SET_BRD_CFG, SET_TRIANG_CFG, SET_TXMODE), docs/ICUB.md
 *    section 1;
 *  - the scenario (scenario.c): a small line-based text file saying which
 *    skin, which seed, what touches it when, and which faults happen
 *    (docs/SIMULATOR.md has the grammar);
 *  - the signal model (signal.c): per channel a baseline near noLoad,
 *    Gaussian noise, a slow thermal drift and the pressure of the
 *    scenario's contacts over the model's real taxel positions, turned
 *    into raw values the way the firmware does (out = noLoad - (delta >>
 *    shift), clamped to 0..255);
 *  - the encoder (frames.c): a board's sample -> its head and tail CAN
 *    frames; and the ground-truth writer (truth.c).
 *
 * Everything is deterministic given the seed: a sample's noise depends on
 * (seed, patch, channel, sample number) only, never on wall time or on
 * the order in which boards are served, so a run under load produces the
 * same values as one at leisure.
 *
 * Ownership: skin_sim_scenario_load*() and skin_sim_new() return objects
 * the caller frees with skin_sim_scenario_free() / skin_sim_free().  A
 * struct skin_sim keeps a reference to neither the scenario nor the model
 * it was built from: it copies what it needs.  Errors: loaders return NULL
 * with *err filled (FILE:LINE:COL: WHAT), as the model library does.
 */
#ifndef SKIN_SIM_H
#define SKIN_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/can.h>
#include <net/if.h>

#include <skin/model.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKIN_SIM_TRIANGLES	16
#define SKIN_SIM_CHANNELS	12
#define SKIN_SIM_VALUES		192
/* Frames of one board period: a head and a tail per triangle. */
#define SKIN_SIM_FRAMES_MAX	(2 * SKIN_SIM_TRIANGLES)
/* Fault frames one sample can carry (struct skin_sim_sample.extra). */
#define SKIN_SIM_EXTRA_MAX	64

/* ---- the board ------------------------------------------------------ */

/**
 * struct skin_sim_board - what the host configured on one MTB board
 * @address: board address, 0..15 (answers commands to 0x200 | address)
 * @skin_type: SET_BRD_CFG skinType
 * @period_ms: SET_BRD_CFG period, 1..255 (0 is taken as 1)
 * @no_load: SET_BRD_CFG noLoad
 * @enabled: triangles enabled by SET_TRIANG_CFG
 * @shift: per triangle, SET_TRIANG_CFG shift
 * @cdc_offset: per triangle, SET_TRIANG_CFG cdcOffset
 * @streaming: SET_TXMODE(on) was the last SET_TXMODE
 * @commands: commands applied
 * @rejected: commands to this board that were malformed (ignored)
 *
 * A board powers up with a real iCub board's values (period 50, noLoad
 * 0xf0, shift 2, cdcOffset 0x2200, every triangle enabled) and silent: it
 * streams only after SET_TXMODE(on).
 */
struct skin_sim_board {
	uint8_t address;
	uint8_t skin_type;
	uint8_t period_ms;
	uint8_t no_load;
	uint16_t enabled;
	uint8_t shift[SKIN_SIM_TRIANGLES];
	uint16_t cdc_offset[SKIN_SIM_TRIANGLES];
	bool streaming;
	unsigned int commands;
	unsigned int rejected;
};

enum skin_sim_cmd {
	SKIN_SIM_CMD_OTHER = 0,		/* not a command to this board */
	SKIN_SIM_CMD_BRD_CFG,		/* SET_BRD_CFG applied */
	SKIN_SIM_CMD_TRIANG_CFG,	/* SET_TRIANG_CFG applied */
	SKIN_SIM_CMD_TX_ON,		/* SET_TXMODE(on) */
	SKIN_SIM_CMD_TX_OFF,		/* SET_TXMODE(off) */
	SKIN_SIM_CMD_BAD,		/* to this board, malformed: ignored */
};

void skin_sim_board_init(struct skin_sim_board *b, unsigned int address);
/* Apply a frame received from the bus; what it was. */
enum skin_sim_cmd skin_sim_board_command(struct skin_sim_board *b,
					 const struct can_frame *cf);
const char *skin_sim_cmd_name(enum skin_sim_cmd c);

/* ---- the encoder ---------------------------------------------------- */

/*
 * The frames of one period of a board, triangle by triangle (head, then
 * tail with its diagnostics word, DLC 8), only for triangles in @send.
 * @values: channel c of triangle t at [12 t + c]; @diag: per triangle.
 * Returns the number of frames written to @frames.
 */
unsigned int skin_sim_encode(uint8_t cls, uint8_t address, uint16_t send,
			     const uint8_t values[SKIN_SIM_VALUES],
			     const uint16_t diag[SKIN_SIM_TRIANGLES],
			     struct can_frame frames[SKIN_SIM_FRAMES_MAX]);
/* One half: tail false = head (channels 0..6), true = tail (7..11). */
void skin_sim_encode_half(uint8_t cls, uint8_t address, unsigned int triangle,
			  bool tail, const uint8_t values[SKIN_SIM_VALUES],
			  uint16_t diag, struct can_frame *cf);

/* Diagnostics word: channel c out of range is bit (4 + c). */
#define SKIN_SIM_DIAG_CHANNEL(c)	(1U << (4 + (c)))

/* ---- the scenario --------------------------------------------------- */

struct skin_sim_scenario;

/* Load a scenario file; relative paths in it resolve against its
 * directory. */
struct skin_sim_scenario *skin_sim_scenario_load(const char *path,
						 struct skin_error *err);
/* The same from memory; name for messages and relative paths. */
struct skin_sim_scenario *skin_sim_scenario_load_buffer(const char *buf,
							size_t len,
							const char *name,
							struct skin_error *err);
void skin_sim_scenario_free(struct skin_sim_scenario *s);
/* The skind.conf the scenario names (resolved), or NULL when none. */
const char *skin_sim_scenario_config(const struct skin_sim_scenario *s);
/* Its duration in ns; 0 when it names none (run until stopped). */
uint64_t skin_sim_scenario_duration(const struct skin_sim_scenario *s);
uint64_t skin_sim_scenario_seed(const struct skin_sim_scenario *s);
/* Override the seed (command line). */
void skin_sim_scenario_set_seed(struct skin_sim_scenario *s, uint64_t seed);
/* Number of timed events (press, move, release, fault...). */
unsigned int skin_sim_scenario_events(const struct skin_sim_scenario *s);

/* ---- the simulation ------------------------------------------------- */

/**
 * struct skin_sim_params - the signal model's knobs (scenario keywords)
 * @seed: of every random draw
 * @noise: standard deviation of the per-sample noise, raw counts
 * @spread: standard deviation of the per-taxel baseline offsets
 * @drift: amplitude of the slow thermal drift, raw counts
 * @drift_period_s: its period
 * @thermal_gain: thermal pads follow the drift times this
 *
 * Raw counts are at shift 2, the real robots' value: a board configured
 * with shift s scales every capacitance change by 2^(2 - s), as the
 * firmware's (delta >> shift) does.
 */
struct skin_sim_params {
	uint64_t seed;
	double noise;
	double spread;
	double drift;
	double drift_period_s;
	double thermal_gain;
};

/**
 * struct skin_sim_patch_info - one simulated board, as the config places it
 * @name: device name the driver would give it: PART for a part of one
 *	board, PART.N otherwise (N = order), BUS-ADDRESS when not valid
 * @bus: CAN interface
 * @address: board address
 * @part: index of the part in the model
 * @part_name: the part's name
 * @skin_part: iCub SkinPart
 * @order: place of the board in the part's vector
 * @present: triangles with at least one taxel or pad in the model
 */
struct skin_sim_patch_info {
	char name[32];
	char bus[IFNAMSIZ];
	uint8_t address;
	unsigned int part;
	const char *part_name;
	unsigned int skin_part;
	unsigned int order;
	uint16_t present;
};

/**
 * struct skin_sim_sample - one period of one board, as simulated
 * @patch: which board
 * @k: sample number since the board started streaming, from 1
 * @t_ns: scenario time of the sample
 * @values: what the board measured (disabled triangles: noLoad)
 * @diag: diagnostics word per triangle
 * @send_head: triangles whose head frame is sent (after faults)
 * @send_tail: likewise for tails
 * @pressure: per channel, the contacts' pressure, raw counts at shift 2
 *	(0 for untouched channels, pads and absent channels)
 * @n_extra: fault frames to send after the data: garbage in the board's
 *	id space; error-frame bursts go with the sample of the first board
 *	of their bus in the config (in CAN mode: when that board streams)
 * @extra: those frames
 * @extra_lost: fault frames beyond SKIN_SIM_EXTRA_MAX (several faults at
 *	once), not sent; 0 normally
 */
struct skin_sim_sample {
	unsigned int patch;
	uint64_t k;
	uint64_t t_ns;
	uint8_t values[SKIN_SIM_VALUES];
	uint16_t diag[SKIN_SIM_TRIANGLES];
	uint16_t send_head;
	uint16_t send_tail;
	float pressure[SKIN_SIM_VALUES];
	unsigned int n_extra;
	struct can_frame extra[SKIN_SIM_EXTRA_MAX];
	unsigned int extra_lost;
};

/* A contact as the scenario has it at some time. */
struct skin_sim_contact_state {
	const char *name;
	unsigned int part;
	double centre[3];	/* metres, link frame */
	double radius;		/* metres */
	double force;		/* peak pressure, raw counts at shift 2 */
};

struct skin_sim;

/*
 * A simulation of every board of a config (skind.conf: parts, patches,
 * geometry) driven by a scenario (NULL: noise only, default knobs).
 * The config's model must give the part of every press its positions.
 */
struct skin_sim *skin_sim_new(const struct skin_config *cfg,
			      const struct skin_sim_scenario *sc,
			      struct skin_error *err);
void skin_sim_free(struct skin_sim *s);

unsigned int skin_sim_patches(const struct skin_sim *s);
const struct skin_sim_patch_info *skin_sim_patch(const struct skin_sim *s,
						 unsigned int i);
/* Index of the board on bus with that address, or -1. */
int skin_sim_find(const struct skin_sim *s, const char *bus,
		  unsigned int address);
const struct skin_sim_params *skin_sim_params(const struct skin_sim *s);
/* The data class of the fault frames the simulation makes (garbage): 4
 * (the default) or 3, as the boards' own frames (skin_sim_encode()). */
void skin_sim_set_class(struct skin_sim *s, uint8_t cls);
const struct skin_model *skin_sim_model(const struct skin_sim *s);

/*
 * Simulate sample k (from 1) of board i at scenario time t_ns, with the
 * board's configuration b (enabled triangles, noLoad, shift).  Pure: the
 * same arguments give the same sample.
 */
void skin_sim_sample(const struct skin_sim *s, unsigned int i,
		     const struct skin_sim_board *b, uint64_t k,
		     uint64_t t_ns, struct skin_sim_sample *out);

/* The scenario's contacts at time t_ns: up to max of them, the number
 * active returned. */
unsigned int skin_sim_contacts(const struct skin_sim *s, uint64_t t_ns,
			       struct skin_sim_contact_state *out,
			       unsigned int max);

/* The firmware's raw value: noLoad - (delta >> shift), clamped to 0..255,
 * for a capacitance change delta in raw counts at shift 2 (see struct
 * skin_sim_params). */
uint8_t skin_sim_raw(uint8_t no_load, unsigned int shift, double delta);

/* ---- ground truth --------------------------------------------------- */

/*
 * Write what was simulated, one sample per call (docs/SIMULATOR.md):
 *
 *	frame PATCH K T_NS ENABLED SENT_HEAD SENT_TAIL DIAG_ANY VALUES
 *	taxel PATCH K TAXEL PRESSURE RAW
 *	contact T_NS NAME PART X Y Z RADIUS FORCE
 *
 * The header says the format; skin_sim_truth_contacts() writes the
 * contact lines of a time once.  0, or -1 with errno.
 */
int skin_sim_truth_header(FILE *f, const struct skin_sim *s);
int skin_sim_truth_sample(FILE *f, const struct skin_sim *s,
			  const struct skin_sim_board *b,
			  const struct skin_sim_sample *smp);
int skin_sim_truth_contacts(FILE *f, const struct skin_sim *s, uint64_t t_ns);

/* ---- ring files ----------------------------------------------------- */

/*
 * A ring file: a regular file laid out exactly as the mapping of
 * /dev/skin/NAME (control page, then 2^log2 frames; <linux/skin.h>),
 * written through a shared mapping by the driver's own core: its receive
 * path (filter, decoder verdicts and counters, assembly, publication of
 * complete, repeated and timed-out samples) and its ring writer.  lib/ring
 * reads it unchanged.  The file appears complete (created under a
 * temporary name, then renamed), so a reader never sees half a control
 * page.  A regular file always polls readable: readers wake on a timer at
 * the patch period (docs/SIMULATOR.md).
 */
struct skin_sim_ring;

struct skin_sim_ring *skin_sim_ring_create(const char *path,
					   const struct skin_sim_patch_info *info,
					   const struct skin_sim_board *b,
					   uint8_t cls, unsigned int log2,
					   struct skin_error *err);
/* A frame on the patch's bus at ts_ns, as the driver receives it (frames
 * its filters would not pass are ignored). */
void skin_sim_ring_rx(struct skin_sim_ring *r, const struct can_frame *cf,
		      uint64_t ts_ns);
/* Time passes: the driver's 1.5-period timer fires when it is due. */
void skin_sim_ring_tick(struct skin_sim_ring *r, uint64_t now_ns);
/* Publish what is pending now (the board stopped), as the timer would. */
void skin_sim_ring_flush(struct skin_sim_ring *r);
uint64_t skin_sim_ring_head(const struct skin_sim_ring *r);
/* Counter n (enum skin_stat of <linux/skin.h>). */
uint64_t skin_sim_ring_stat(const struct skin_sim_ring *r, unsigned int n);
/* Unmap and close; the file stays. */
void skin_sim_ring_close(struct skin_sim_ring *r);

#ifdef __cplusplus
}
#endif

#endif /* SKIN_SIM_H */
