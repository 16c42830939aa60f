// SPDX-License-Identifier: GPL-2.0
/*
 * skind.c - skind.conf's key tables: [skind] (skinManager's parameters
 * and skind's own, docs/PROCESSING.md), [board] and [bus NAME]; [part
 * NAME]'s keys name files, layouts and boards, which lib/model/config.c
 * checks itself
 *
 * The one source of their ranges and defaults: lib/model's parser, skind's
 * `get`/`set` (lib/proc/params.c) and lib/proc's check of a parameter set
 * (proc.c) all read this table.  The ranges are what lib/proc can
 * process: min_baseline bounds the window [min_baseline, 255 -
 * min_baseline] a baseline may lie in, empty above 127; a taxel is touched
 * when d (at most 255) exceeds threshold + add_threshold, never with 255.
 */
#include <stddef.h>

#include "conf.h"

#define OFF(f) offsetof(struct skin_config_comp, f)

const struct conf_key conf_comp_keys[] = {
	/* skinManager's, defaults from skinManAll.ini */
	{ .name = "period_ms", .type = CONF_UINT, .offset = OFF(period_ms),
	  .min = 1, .max = 10000, .def = 20,
	  .doc = "publishing period (skinManAll.ini's period); in compat mode also the cycle at which every part is processed, as skinManager's thread" },
	{ .name = "min_baseline", .type = CONF_REAL, .offset = OFF(min_baseline),
	  .min = 0, .max = 127, .def = 3,
	  .doc = "warn when a baseline nears 0 or 255: skind keeps baselines in min_baseline..255 - min_baseline, so at most 127" },
	{ .name = "add_threshold", .type = CONF_REAL, .offset = OFF(add_threshold),
	  .min = 0, .max = 254, .def = 7,
	  .doc = "added to the touch threshold: a taxel is touched when its value exceeds threshold + add_threshold, which 255 never does" },
	{ .name = "compensation_gain", .type = CONF_REAL,
	  .offset = OFF(compensation_gain), .min = 0, .max = 1e6, .def = 0.2,
	  .doc = "drift compensation gain while not touched" },
	{ .name = "contact_compensation_gain", .type = CONF_REAL,
	  .offset = OFF(contact_compensation_gain), .min = 0, .max = 1e6,
	  .def = 0.05, .doc = "drift compensation gain while touched" },
	{ .name = "zero_up_raw_data", .type = CONF_BOOL,
	  .offset = OFF(zero_up_raw_data), .max = 1, .def = 0,
	  .doc = "the boards' raw values rise with pressure (a taxel's value is its raw value, not 255 minus it)" },
	{ .name = "smooth_filter", .type = CONF_BOOL, .offset = OFF(smooth_filter),
	  .max = 1, .def = 1, .doc = "exponential smoothing" },
	{ .name = "smooth_factor", .type = CONF_REAL, .offset = OFF(smooth_factor),
	  .min = 0, .max = 1, .def = 0.5, .doc = "the weight of the previous smoothed value" },
	{ .name = "binarization", .type = CONF_BOOL, .offset = OFF(binarization),
	  .max = 1, .def = 1, .doc = "publish 0 or 100" },
	{ .name = "max_neighbor_dist_m", .type = CONF_REAL,
	  .offset = OFF(max_neighbor_dist_m), .min = 0, .max = 1,
	  .min_open = true, .fixed = true, .unit = "metres", .def = 0.015,
	  .doc = "neighbour distance in metres (fixed while skind runs)" },
	{ .name = "calibration_s", .type = CONF_REAL, .offset = OFF(calibration_s),
	  .min = 0, .max = 3600, .min_open = true, .unit = "seconds", .def = 5,
	  .doc = "calibration time in seconds" },
	/* skind's own */
	{ .name = "compat", .type = CONF_BOOL, .offset = OFF(compat), .max = 1,
	  .def = 0, .man_before = "skind's own, each off in compat mode\n.RI ( /usr/share/doc/skin/PROCESSING.md ):", .doc = "skinManager's behaviour exactly, on its clock (each part processed once per period_ms on its boards' newest samples): every key below off" },
	{ .name = "hold_contacts", .type = CONF_BOOL, .offset = OFF(hold_contacts),
	  .max = 1, .def = 1, .doc = "freeze a touched taxel's baseline, so that drift compensation does not compensate a persistent contact away" },
	{ .name = "hold_hysteresis", .type = CONF_REAL,
	  .offset = OFF(hold_hysteresis), .min = 0, .max = 255, .def = 2,
	  .doc = "counts below the touch level that end a hold" },
	{ .name = "hold_max_s", .type = CONF_REAL, .offset = OFF(hold_max_s),
	  .min = 0, .max = 1e7, .unit = "seconds", .def = 3600,
	  .doc = "longest hold in seconds (0: no limit)" },
	{ .name = "auto_recalibrate", .type = CONF_BOOL,
	  .offset = OFF(auto_recalibrate), .max = 1, .def = 1,
	  .doc = "recalibrate a taxel whose baseline nears 0 or 255 while nobody touches it" },
	{ .name = "fault_detection", .type = CONF_BOOL,
	  .offset = OFF(fault_detection), .max = 1, .def = 1,
	  .doc = "exclude stuck, saturated, dead, noisy and diagnosed taxels from contacts" },
	{ .name = "stuck_s", .type = CONF_REAL, .offset = OFF(stuck_s),
	  .min = 0, .max = 1e7, .min_open = true, .unit = "seconds", .def = 60,
	  .doc = "seconds a taxel reads the same raw value before it is faulty" },
	{ .name = "saturated_s", .type = CONF_REAL, .offset = OFF(saturated_s),
	  .min = 0, .max = 1e7, .min_open = true, .unit = "seconds", .def = 30,
	  .doc = "seconds a taxel reads 0 or 255 before it is faulty" },
	{ .name = "dead_s", .type = CONF_REAL, .offset = OFF(dead_s),
	  .min = 0, .max = 1e7, .min_open = true, .unit = "seconds", .def = 1,
	  .doc = "seconds a taxel is not refreshed before it is faulty" },
	{ .name = "noisy_s", .type = CONF_REAL, .offset = OFF(noisy_s),
	  .min = 1, .max = 3600, .unit = "seconds", .def = 10,
	  .doc = "seconds over which a taxel's noise is judged: noisy when its raw value moved more than noisy_counts between most of the fault evaluations (every 100 ms) of the last noisy_s, healthy again when it did at fewer than a quarter of them" },
	{ .name = "noisy_counts", .type = CONF_REAL, .offset = OFF(noisy_counts),
	  .min = 1, .max = 255, .def = 10,
	  .doc = "raw counts a taxel's value may move between two fault evaluations without counting as noise (a healthy taxel's noise is 1 to 3 counts)" },
	{ .name = "calibration_check", .type = CONF_BOOL,
	  .offset = OFF(calibration_check), .max = 1, .def = 1,
	  .doc = "refuse a calibration while the skin is touched or a taxel is broken" },
	{ .name = "calibration_spread", .type = CONF_REAL,
	  .offset = OFF(calibration_spread), .min = 0, .max = 255,
	  .min_open = true, .def = 40,
	  .doc = "counts a taxel may move during calibration" },
	{ .name = "calibration_offset", .type = CONF_REAL,
	  .offset = OFF(calibration_offset), .min = 0, .max = 255,
	  .min_open = true, .def = 60,
	  .doc = "counts a baseline may lie above the part's median baseline" },
	{ .name = "persist_calibration", .type = CONF_BOOL,
	  .offset = OFF(persist_calibration), .max = 1, .def = 1,
	  .doc = "save the calibration in skind's state directory after each calibration and restore it at start" },
};

const size_t conf_comp_n_keys = sizeof(conf_comp_keys) / sizeof(conf_comp_keys[0]);

#define BOARD(f) offsetof(struct skin_config_board, f)

/* the robots' board values (docs/ICUB.md, section 1); byte-wide fields of
 * SET_BRD_CFG / SET_TRIANG_CFG */
const struct conf_key conf_board_keys[] = {
	{ .name = "period_ms", .type = CONF_UINT, .offset = BOARD(period_ms),
	  .min = 1, .max = 255, .def = 50, .doc = "SET_BRD_CFG period" },
	{ .name = "skin_type", .type = CONF_UINT, .offset = BOARD(skin_type),
	  .min = 0, .max = 15, .def = 0,
	  .doc = "0 new skin, 1 palm and fingertips, 8 V2" },
	{ .name = "no_load", .type = CONF_UINT, .offset = BOARD(no_load),
	  .min = 0, .max = 255, .def = 0xf0, .hex = true,
	  .doc = "SET_BRD_CFG no-load value" },
	{ .name = "shift", .type = CONF_UINT, .offset = BOARD(shift),
	  .min = 0, .max = 15, .def = 2, .doc = "SET_TRIANG_CFG shift" },
	{ .name = "cdc_offset", .type = CONF_UINT, .offset = BOARD(cdc_offset),
	  .min = 0, .max = 0xffff, .def = 0x2200, .hex = true,
	  .doc = "SET_TRIANG_CFG CDC offset" },
};

const size_t conf_board_n_keys = sizeof(conf_board_keys) / sizeof(conf_board_keys[0]);

const struct conf_key conf_bus_keys[] = {
	{ .name = "bitrate", .type = CONF_UINT,
	  .offset = offsetof(struct skin_config_bus, bitrate),
	  .min = 10000, .max = 1000000, .def = 1000000,
	  .doc = "bit/s, classic CAN.\n"
		 "skind does not set it: the interface is brought up by the system, e.g. by\n"
		 "systemd-networkd with a\n"
		 ".B [CAN] BitRate=\n"
		 "of the same value (the files in\n"
		 ".IR /usr/share/skin/network ,\n"
		 "not enabled).\n"
		 "skind compares it with the interface's bitrate and says when they differ" },
	{ .name = "listen_only", .type = CONF_BOOL,
	  .offset = offsetof(struct skin_config_bus, listen_only),
	  .max = 1, .def = 0,
	  .doc = "a tapped bus (an ETH robot's, through skin-eth): another program configures the boards,\n"
		 "so every patch on this bus is listen-only (the driver's\n"
		 ".B listen_only\n"
		 "attribute): it sends the boards nothing, and still detects silence and repeats" },
};

const size_t conf_bus_n_keys = sizeof(conf_bus_keys) / sizeof(conf_bus_keys[0]);
