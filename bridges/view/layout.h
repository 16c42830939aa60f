/* SPDX-License-Identifier: GPL-2.0 */
/*
 * layout.h - how each of skind's parts is drawn: the /skin/layout channel
 *
 * Per part skind serves: a 2D position per slot of its vector (the
 * slot index is the taxel id as iCub numbers it, 0-based), in the
 * drawing units of where it comes from, and what the slot is (tactile,
 * thermal, none) and where it is wired (board address, triangle 0..15,
 * channel 0..11: slot = 192 * patch + 12 * triangle + channel), an
 * outline per triangle (or pad) and a taxel's drawing radius.
 *
 * Where positions come from, per part: skin-view.conf's [layout PART]
 * file (a skinGui .ini, or any geometry file with one part of that
 * size: its flattened positions drawn on the part's slots, as `skinctl
 * view --layout` does), else skind.conf's model flattened
 * (skin_flatten_part(), SKIN_FLATTEN_AUTO: the skinGui or Skinware flat
 * positions when the model has them, else the 3D positions unrolled or
 * projected).  A [layout] file that cannot be read, or whose part has
 * another size than skind's, is not used: the part falls back to the
 * flattening, and the reason (FILE:LINE of the [layout] key, then what
 * was wrong) is logged and said in the part's "source".  A part that
 * skind.conf does not have (skind runs another configuration than the
 * one read) has no positions and its slots' kinds from the shared
 * memory's taxel flags.  Kinds, boards and triangles always come from
 * skind's model, never from a layout file.
 *
 * Outlines: where the files give none (none do: skinGui draws its
 * sensors from built-in shapes), each triangle's is the convex hull of
 * its placed taxels, each grown to a circle of the drawing radius (an
 * octagon), so that a triangle of one taxel is a small disc.  Radius:
 * half the median distance from a tactile taxel to its nearest placed
 * neighbour.
 *
 * Ownership: view_layout_build() fills the caller's struct view_layout;
 * view_layout_free() releases it.  Errors: negative errno; a part that
 * cannot be placed is no error (its x and y are NaN, its source says why).
 * No I/O but the files named (skind.conf and the [layout] files) and the
 * log.  Threads: any, one layout at a time.
 */
#ifndef VIEW_LAYOUT_H
#define VIEW_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skin/flatten.h>
#include <skin/model.h>
#include <skin/shm.h>

#include "config.h"

/* Kinds per slot in the JSON */
#define VIEW_KIND_TACTILE	't'
#define VIEW_KIND_THERMAL	'h'
#define VIEW_KIND_NONE		'-'

struct view_layout_patch {
	char name[SKIN_SHM_NAME_LEN + 8];	/* skind's patch (driver) name */
	char bus[32];				/* "" unknown */
	int address;				/* -1 unknown */
};

struct view_layout_part {
	char name[SKIN_SHM_NAME_LEN];
	enum skin_part_id skin_part;
	unsigned int n;			/* slots */
	char source[640];
	enum skin_flat_unit unit;	/* of x, y (NONE: nothing placed) */
	double *x, *y;			/* per slot; NaN: not placed */
	char *kind;			/* per slot: VIEW_KIND_* */
	int *board, *triangle, *channel;	/* per slot; -1 none */
	double radius;			/* drawing radius, layout units */
	unsigned int n_placed;		/* slots with a position */
	struct view_layout_patch *patches;
	unsigned int n_patches;
	/* outline i: points[start[i] .. start[i + 1]), of the triangle whose
	 * first slot is slot[i] */
	double (*points)[2];
	unsigned int *start, *slot;
	unsigned int n_outlines;
};

struct view_layout {
	uint64_t generation;		/* skind's, the message says it */
	struct view_layout_part *parts;
	unsigned int n_parts;
};

/* What the layout is asked for: skind's parts, as its shared memory has
 * them (name, size; @flags the taxel flags of a sample, for a part the
 * model lacks, or NULL) */
struct view_layout_want {
	const char *name;
	enum skin_part_id skin_part;
	unsigned int n;
	const uint8_t *flags;
};

/*
 * The layout of @n_want parts: skind.conf's model (@model, NULL when it
 * could not be read: @model_why says why) with @cfg's [layout] files.
 * 0 or -ENOMEM.
 */
int view_layout_build(struct view_layout *l, const struct skin_model *model,
		      const char *model_why, const struct view_config *cfg,
		      const struct view_layout_want *want, unsigned int n_want,
		      uint64_t generation);
void view_layout_free(struct view_layout *l);

/* The part of that name, or NULL */
const struct view_layout_part *view_layout_find(const struct view_layout *l,
						const char *name);

/* The /skin/layout message (docs/VIEW.md): malloc'ed JSON of *len bytes;
 * NULL for out of memory or over @max bytes (-errno in *err) */
char *view_layout_json(const struct view_layout *l, size_t max, size_t *len,
		       int *err);

/*
 * The centroid of @n taxels of part @p in its layout, weighed by
 * @values (as skin_flatten_centroid(): each at least 1; NULL: 1 each;
 * taxels out of range or unplaced left out): false and NaN when none is
 * placed.
 */
bool view_layout_centroid(const struct view_layout_part *p,
			  const uint32_t *taxels, unsigned int n,
			  const double *values, double xy[2]);

#endif /* VIEW_LAYOUT_H */
