/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render.h - the pictures of `skinctl view` and `skinctl snapshot`
 *
 * A part's 2D layout (struct view_layout: one point per taxel, the part's
 * flattening of skin/flatten.h) and one sample of the part (struct
 * view_frame: values, touch flags, contacts) make a picture: a character grid for terminals
 * (view_render_text) or a standalone SVG (view_render_svg), both coloured
 * by the same ramp (view_ramp).  No I/O here: the renderers write to the
 * stream they are given (a terminal frame is best built in an
 * open_memstream() and written at once), so tests compare their output
 * byte for byte.
 *
 * Ownership: view_layout_* own the layout's arrays (view_layout_free());
 * a frame only points at the caller's arrays.  Errors: -1 (out of
 * memory, a write error of the stream; a size or model that cannot be
 * drawn, with why) as said per function.
 */
#ifndef SKINCTL_RENDER_H
#define SKINCTL_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <skin/flatten.h>
#include <skin/model.h>

struct view_layout {
	unsigned int n;		/* the part's taxels (its vector's slots) */
	double *x, *y;		/* per slot; NaN: not placed (no position) */
	unsigned char *kind;	/* per slot: enum skin_taxel_kind */
	enum skin_flatten_how how;
	enum skin_flat_unit unit; /* of x, y (struct skin_flattening) */
	double radius;		/* SKIN_FLATTEN_CYLINDER: metres */
	/* view_layout_finish() fills these: */
	unsigned int n_placed;	/* taxels with a position, absent ones too */
	unsigned int n_unplaced; /* tactile and thermal taxels without one */
	double min[2], max[2];	/* bounding box of the placed taxels */
	double spacing;		/* median distance to the nearest neighbour */
};

/* n slots, none placed, every one tactile.  0 or -1 (memory). */
int view_layout_init(struct view_layout *l, unsigned int n);
/* Bounding box, counts and spacing, once x, y and kind are set. */
void view_layout_finish(struct view_layout *l);
void view_layout_free(struct view_layout *l);

/*
 * The layout of part @part of @m: its flattening (skin_flatten_part():
 * with SKIN_FLATTEN_AUTO the flattened positions, else the 3D positions
 * unrolled from a cylinder or projected on their best-fit plane), its
 * kinds, bounding box and spacing.  -1 with @why as skin_flatten_part()
 * says it, or out of memory.
 */
int view_layout_build(struct view_layout *l, const struct skin_model *m,
		      unsigned int part, enum skin_flatten_mode mode,
		      char *why, size_t why_len);

struct view_contact {
	uint64_t id;
	unsigned int n_taxels;
	const uint32_t *taxels;	/* part-local indices */
	double pressure;
};

struct view_frame {
	const char *part;
	const char *source;	/* "log FILE", "skind /run/skin/skind.shm" */
	const char *state;	/* "running"...; NULL: not said */
	uint64_t sample;	/* the part's sample number */
	double time_s;		/* the sample's time (the source's clock) */
	const double *values;	/* layout.n values, 0..255 */
	const uint8_t *touched;	/* layout.n flags or NULL */
	unsigned int n_contacts;
	const struct view_contact *contacts;
};

/* The heat ramp, 0..255 (clamped) to sRGB; shared by both renderers. */
void view_ramp(double v, uint8_t rgb[3]);

/*
 * Where a contact is drawn: where skind's evdev device reports it,
 * skin_flatten_centroid() over the layout (each placed taxel weighs its
 * value, at least 1).  false when none of its taxels is placed.
 */
bool view_contact_cop(const struct view_layout *l, const struct view_frame *f,
		      const struct view_contact *c, double xy[2]);

enum view_color {
	VIEW_COLOR_NONE,	/* plain ASCII: " .:-=+*#%@" */
	VIEW_COLOR_256,		/* ANSI 256-colour backgrounds */
	VIEW_COLOR_TRUE,	/* ANSI 24-bit backgrounds */
};

struct view_text_opts {
	unsigned int cols, rows;	/* the whole frame; >= 16 x 4 */
	enum view_color color;
	const char *eol;		/* NULL: "\n" */
	/* after the last line (the caption), NULL: eol.  A live view ends
	 * it without a newline: on the screen's last row one would scroll
	 * the frame up a line, and its status line off the top */
	const char *last_eol;
	const char *hint;		/* appended to the caption, or NULL */
};

/*
 * A frame as text: a status line (part, sample, time, contacts, max
 * value), rows - 2 lines of map, a caption (where the layout comes from,
 * unplaced taxels, the source).  Map cells: ' ' no taxel, '.' a taxel at
 * 0, ":-=+*#%@" rising values (or a coloured background), 'o' a thermal
 * pad, 'X' a contact's centre followed by its id.  Lines carry no
 * trailing blanks.  Writes to @out; -1 for a size below 16 x 4 (nothing
 * written) or a write error.
 */
int view_render_text(FILE *out, const struct view_layout *l,
		     const struct view_frame *f,
		     const struct view_text_opts *o);

/*
 * A frame as a standalone SVG document: one <circle> per placed taxel
 * (class tactile, thermal or absent; id "tN"), tactile ones filled by the
 * ramp, a <g class="contact"> per drawn contact (a cross at its centre,
 * data-x/data-y its layout position, and its id), a caption.  Writes to
 * @out; 0, or -1 for a write error.
 */
int view_render_svg(FILE *out, const struct view_layout *l,
		    const struct view_frame *f);

#endif
