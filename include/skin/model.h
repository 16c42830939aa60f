/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin/model.h - the skin model: parts, patches, taxels, links, neighbours
 *
 * One library (libskinmodel) describes a robot's skin for skind, skinctl
 * and skinsim.  See docs/MODEL.md for the formats and their units.
 *
 * Ownership (libevdev style):
 *  - every function returning a struct skin_model * or struct skin_config *
 *    hands the caller a new object; free it with skin_model_free() /
 *    skin_config_free().  All strings and arrays inside are owned by that
 *    object and live as long as it does.  The structs are read-only for
 *    callers: change a model only through the functions below.
 *  - on failure a loader returns NULL (or -1) and fills *err, when err is
 *    not NULL, with the file, line, column and what was expected.  A
 *    partial model is never returned.
 *
 * Units: positions and radii in metres, in the frame of the taxel's link;
 * normals are unit-less direction vectors (as given by the source, not
 * re-normalised); flattened positions in the unit named by the part's
 * flat_unit; rates in hertz, periods in milliseconds.
 *
 * Indices: taxel, patch and part indices are 0-based, as skinDynLib's
 * taxel ids are; iCub documents count port positions from 1.
 */
#ifndef SKIN_MODEL_H
#define SKIN_MODEL_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values per MTB board (patch): 16 triangles of 12 channels. */
#define SKIN_TRIANGLES_PER_PATCH 16
#define SKIN_CHANNELS_PER_TRIANGLE 12
#define SKIN_VALUES_PER_PATCH 192

enum skin_taxel_kind {
	SKIN_TAXEL_ABSENT = 0,	/* no sensor behind this vector slot */
	SKIN_TAXEL_TACTILE = 1,	/* a capacitive pressure cell */
	SKIN_TAXEL_THERMAL = 2,	/* a thermal pad: a value, but not touch */
};

/* iCub skinDynLib BodyPart (docs/ICUB.md, section 3). */
enum skin_body_part {
	SKIN_BODY_UNKNOWN = 0,
	SKIN_BODY_TORSO = 1,
	SKIN_BODY_HEAD = 2,
	SKIN_BODY_LEFT_ARM = 3,
	SKIN_BODY_RIGHT_ARM = 4,
	SKIN_BODY_LEFT_LEG = 5,
	SKIN_BODY_RIGHT_LEG = 6,
};

/* iCub skinDynLib SkinPart. */
enum skin_part_id {
	SKIN_PART_UNKNOWN = 0,
	SKIN_LEFT_HAND = 1,
	SKIN_LEFT_FOREARM = 2,
	SKIN_LEFT_UPPER_ARM = 3,
	SKIN_RIGHT_HAND = 4,
	SKIN_RIGHT_FOREARM = 5,
	SKIN_RIGHT_UPPER_ARM = 6,
	SKIN_FRONT_TORSO = 7,
	SKIN_LEFT_LEG_UPPER = 8,
	SKIN_LEFT_LEG_LOWER = 9,
	SKIN_LEFT_FOOT = 10,
	SKIN_RIGHT_LEG_UPPER = 11,
	SKIN_RIGHT_LEG_LOWER = 12,
	SKIN_RIGHT_FOOT = 13,
	SKIN_PART_COUNT
};

/* skin_taxel.flags */
#define SKIN_TAXEL_HAS_POS	0x1u	/* pos and normal are known */
#define SKIN_TAXEL_HAS_FLAT	0x2u	/* flat is known */

struct skin_taxel {
	enum skin_taxel_kind kind;
	unsigned int flags;		/* SKIN_TAXEL_HAS_* */
	unsigned int index;		/* slot in the part's data vector */
	int repr;			/* representative taxel (part-local
					 * index, positions files); -1 none */
	int link;			/* index into skin_model.links; -1 none */
	double pos[3];			/* metres, link frame */
	double normal[3];		/* direction, link frame */
	double flat[2];			/* unit: the part's flat_unit */
	double radius;			/* metres; 0 when unknown */
};

struct skin_link {
	char *name;			/* e.g. "l_hand", a URDF link name */
	int number;			/* iCub link number; -1 when none */
};

struct skin_patch {
	unsigned int part;		/* index into skin_model.parts */
	unsigned int order;		/* place in the part's vector: values
					 * [order * 192, order * 192 + 192) */
	char *bus;			/* CAN interface; NULL when unknown */
	int address;			/* board address 0..15; -1 unknown */
};

enum skin_flat_unit {
	SKIN_FLAT_NONE = 0,		/* no flattened positions */
	SKIN_FLAT_METRE,		/* metres (Skinware cache) */
	SKIN_FLAT_SKINGUI,		/* iCub skinGui drawing units */
};

struct skin_part {
	char *name;			/* "left_hand", a URDF sensor name... */
	enum skin_part_id skin_part;
	enum skin_body_part body_part;
	int link_number;		/* iCub link number; -1 when none */
	char *layout;			/* built-in layout name or NULL */
	char *source;			/* geometry file or NULL */
	unsigned int first_taxel;	/* taxels[first_taxel ...] */
	unsigned int n_taxels;		/* = length of the data vector */
	unsigned int first_patch;	/* patches[first_patch ...] */
	unsigned int n_patches;
	enum skin_flat_unit flat_unit;
	/* urdf_tactile only (NULL / 0 otherwise) */
	char *channel;
	char *group;
	double update_rate_hz;
};

struct skin_model {
	unsigned int n_parts, n_patches, n_taxels, n_links;
	struct skin_part *parts;
	struct skin_patch *patches;
	struct skin_taxel *taxels;
	struct skin_link *links;
	/*
	 * Neighbour graph (skin_model_compute_neighbours): the neighbours of
	 * taxel t (model-wide index) are nbr[nbr_start[t] .. nbr_start[t+1]),
	 * ascending.  NULL until computed.
	 */
	double neighbour_dist_m;
	unsigned int *nbr_start;
	unsigned int *nbr;
	unsigned int n_nbr;		/* directed pairs = 2 x undirected */
	/* Findings that do not make the input invalid (e.g. left_arm.txt's
	 * 960 taxel2Repr entries for 768 rows): one line each. */
	unsigned int n_notes;
	char **notes;
};

/* Where and why an input was rejected.  line/column are 1-based; 0 when
 * they do not apply.  text is the whole message: "FILE:LINE:COL: WHAT". */
struct skin_error {
	char file[512];
	unsigned int line;
	unsigned int column;
	char what[512];
	char text[1200];
};

/* Fill *err, when err is not NULL: file (NULL: "(input)"), line and column
 * (0 when they do not apply) and the printf-style message; text becomes
 * "FILE:LINE:COL: WHAT".  The one way every library of the project
 * reports bad input (lib/canlog and lib/sim use it too). */
void skin_error_set(struct skin_error *err, const char *file,
		    unsigned int line, unsigned int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * The files a user names (configurations, geometry, calibration files,
 * scenarios, logs), opened for reading the one way that never blocks on
 * what is not a file: anything but a regular file is refused before
 * anything is read, with "PATH: is a FIFO, not a regular file" (or a
 * directory, a character device, a socket ...).  The path is stat()ed,
 * opened with O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC and the
 * descriptor fstat()ed again; O_NONBLOCK is then cleared.  A missing file
 * is "PATH: cannot open: No such file or directory".  On failure: -1 or
 * NULL with *err filled.
 *
 * SKIN_FILE_STREAM: a FIFO is fine too (a log read as a stream, like
 * stdin); it is opened blocking, so it waits for its writer.
 */
#define SKIN_FILE_STREAM	0x1u
/* Geometry, configurations, calibrations and scenarios are small. */
#define SKIN_FILE_MAX		(64u << 20)

int skin_file_open(const char *path, unsigned int flags,
		   struct skin_error *err);
FILE *skin_file_fopen(const char *path, unsigned int flags,
		      struct skin_error *err);
/* The whole of a regular file of at most max bytes, NUL-terminated;
 * *len excludes the NUL.  The caller frees it. */
char *skin_file_read(const char *path, size_t max, size_t *len,
		     struct skin_error *err);
/* "a regular file", "a FIFO", "a directory", ... for a st_mode. */
const char *skin_file_type(unsigned int mode);

enum skin_format {
	SKIN_FORMAT_AUTO = 0,		/* guess from the content */
	SKIN_FORMAT_POSITIONS,		/* iCub positions file (.txt) */
	SKIN_FORMAT_URDF,		/* urdf_tactile XML */
	SKIN_FORMAT_SKINWARE,		/* Skinware calibration cache */
	SKIN_FORMAT_SKINGUI,		/* iCub skinGui .ini 2D layout */
	SKIN_FORMAT_CONFIG,		/* skind.conf */
};

const char *skin_format_name(enum skin_format f);
/* "positions", "urdf", ... -> format; SKIN_FORMAT_AUTO when unknown. */
enum skin_format skin_format_from_name(const char *name);
/* The format of a buffer, from its content; AUTO when none fits. */
enum skin_format skin_format_detect(const char *buf, size_t len);

/* Load a geometry file (or a config file, whose model is then built).
 * fmt SKIN_FORMAT_AUTO detects the format from the content. */
struct skin_model *skin_model_load(const char *path, enum skin_format fmt,
				   struct skin_error *err);
/* The same from memory; name is used in messages (and, for a config, its
 * directory resolves relative geometry paths). fmt must not be CONFIG. */
struct skin_model *skin_model_load_buffer(const char *buf, size_t len,
					  enum skin_format fmt,
					  const char *name,
					  struct skin_error *err);
/* Write a model: SKIN_FORMAT_POSITIONS (one part) or SKIN_FORMAT_SKINWARE.
 * Returns 0, or -1 with *err filled. */
int skin_model_save(const struct skin_model *m, const char *path,
		    enum skin_format fmt, struct skin_error *err);
void skin_model_free(struct skin_model *m);

/* Built-in iCub layouts (docs/MODEL.md, "Built-in layouts"), by name: "hand_v2_1",
 * "forearm_v1", "forearm_v2", "upper_arm", "torso".  Kinds only: no
 * positions.  NULL with *err set for an unknown name. */
struct skin_model *skin_model_builtin(const char *layout,
				      struct skin_error *err);
/* NULL-terminated list of the built-in layout names. */
const char *const *skin_builtin_layouts(void);

/* Neighbours: tactile taxels with a known position, of the same part and
 * link, at most max_dist_m apart.  Spatial grid, expected O(N).
 * Replaces a previous graph. 0 or -1 (out of memory, bad distance). */
int skin_model_compute_neighbours(struct skin_model *m, double max_dist_m,
				  struct skin_error *err);

/* Counts over a model (or one part when part >= 0). */
struct skin_model_stats {
	unsigned int tactile, thermal, absent;
	unsigned int with_pos, with_flat;
	double min[3], max[3];		/* bounding box of known positions */
};
void skin_model_stats(const struct skin_model *m, int part,
		      struct skin_model_stats *st);

const char *skin_part_id_name(enum skin_part_id p);	/* "left_hand" */
/* skinManAll.ini's YARP port name ("left_arm" for the left upper arm);
 * NULL for SKIN_PART_UNKNOWN or out of range */
const char *skin_part_id_port(enum skin_part_id p);
/* the URDF link frame its positions are in ("l_hand_dh_frame"); NULL
 * where none is known */
const char *skin_part_id_frame(enum skin_part_id p);
/* a name, a port name or a positions file's name ("l_hand") */
enum skin_part_id skin_part_id_from_name(const char *name);
const char *skin_body_part_name(enum skin_body_part b);	/* "left_arm" */
enum skin_body_part skin_body_part_of(enum skin_part_id p);
int skin_link_number_of(enum skin_part_id p);		/* -1 unknown */
const char *skin_taxel_kind_name(enum skin_taxel_kind k);

/*
 * skind.conf (docs/MODEL.md): buses, parts, patches, layouts, geometry
 * sources and the compensation parameters, with skinManAll.ini's
 * defaults.
 */
struct skin_config_bus {
	char *name;			/* CAN interface, e.g. "can0" */
	unsigned int bitrate;		/* bit/s */
	int listen_only;		/* a tapped bus: its patches send the
					 * boards nothing (docs/ETH.md) */
};

struct skin_config_board {
	unsigned int period_ms;		/* SET_BRD_CFG period */
	unsigned int skin_type;		/* 0 new skin, 1 palm/fingertips... */
	unsigned int no_load;		/* 0..255, 0xf0 */
	unsigned int shift;		/* SET_TRIANG_CFG shift */
	unsigned int cdc_offset;	/* 0x2200 */
};

struct skin_config_patch {
	unsigned int bus;		/* index into skin_config.buses */
	int address;			/* 0..15 */
	/* the board's own values: [board] with its [board BUS:ADDRESS] */
	struct skin_config_board board;
};

/* A part's name in skind.conf: 1..31 of [A-Za-z0-9_.-], no leading dot,
 * not "all" (docs/MODEL.md) */
#define SKIN_PART_NAME_MAX	31

struct skin_config_part {
	char *name;			/* section name: [part NAME] */
	unsigned int line;		/* where the section starts */
	enum skin_part_id skin_part;
	char *layout;			/* built-in layout or NULL */
	char *geometry;			/* path as resolved or NULL */
	enum skin_format geometry_format;
	char *sensor;			/* urdf: which <sensor>; NULL = all */
	unsigned int n_patches;
	struct skin_config_patch *patches;
};

struct skin_config_comp {
	unsigned int period_ms;		/* 20 (skinManAll.ini) */
	double min_baseline;		/* 3 */
	double add_threshold;		/* 7 */
	double compensation_gain;	/* 0.2 */
	double contact_compensation_gain; /* 0.05 */
	int zero_up_raw_data;		/* false */
	int smooth_filter;		/* true */
	double smooth_factor;		/* 0.5 */
	int binarization;		/* true */
	double max_neighbor_dist_m;	/* 0.015 */
	double calibration_s;		/* 5 */
	/*
	 * skind's own (docs/PROCESSING.md).  compat = true reproduces
	 * skinManager exactly and turns every improvement below off.
	 */
	int compat;			/* false */
	int hold_contacts;		/* true: freeze a touched taxel's
					 * baseline (icub-main #55) */
	double hold_hysteresis;		/* 2: counts below the touch level
					 * that end a hold */
	double hold_max_s;		/* 3600: longest hold, seconds */
	int auto_recalibrate;		/* true: recalibrate a taxel whose
					 * baseline nears 0 or 255 */
	int fault_detection;		/* true: exclude faulty taxels */
	double stuck_s;			/* 60: raw unchanged this long */
	double saturated_s;		/* 30: raw at 0 or 255 this long */
	double dead_s;			/* 1: triangle silent this long */
	double noisy_s;			/* 10: the window a taxel's noise is
					 * judged over, seconds */
	double noisy_counts;		/* 10: raw counts a noisy taxel moves
					 * between most fault evaluations */
	int calibration_check;		/* true: refuse a calibration while
					 * the skin is touched */
	double calibration_spread;	/* 40: counts of v a taxel may move
					 * during calibration */
	double calibration_offset;	/* 60: counts a baseline may lie above
					 * the part's median baseline */
	int persist_calibration;	/* true: skind saves the calibration
					 * in its state directory and
					 * restores it at start */
};

/* skinManAll.ini's values and skind's defaults, as an empty [skind]. */
void skin_config_comp_default(struct skin_config_comp *comp);

struct skin_config {
	char *path;
	struct skin_config_comp comp;
	struct skin_config_board board;
	unsigned int n_buses, n_parts;
	struct skin_config_bus *buses;
	struct skin_config_part *parts;
};

/* Parse a config file, or a buffer (name for messages; relative geometry
 * paths resolve against dirname(name)).  Checks references (buses,
 * layouts, duplicate boards) but does not open geometry files. */
struct skin_config *skin_config_load(const char *path, struct skin_error *err);
struct skin_config *skin_config_load_buffer(const char *buf, size_t len,
					    const char *name,
					    struct skin_error *err);
void skin_config_free(struct skin_config *c);
/* The values of board BUS:ADDRESS ([board] with its [board BUS:ADDRESS]);
 * [board]'s for a board of no part. */
const struct skin_config_board *skin_config_board_of(const struct skin_config *c,
						     const char *bus, int address);
/* The model the config describes: layouts merged with geometry files,
 * patches placed, neighbours computed with max_neighbor_dist_m. */
struct skin_model *skin_config_build_model(const struct skin_config *c,
					   struct skin_error *err);

#ifdef __cplusplus
}
#endif
#endif /* SKIN_MODEL_H */
