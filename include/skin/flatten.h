/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin/flatten.h - a part's taxels on a plane
 *
 * Every picture of a part and every 2D coordinate of a touch (skinctl
 * view and snapshot, skind's evdev devices) places the taxels the same
 * way: the part's flattened positions when its geometry has them (a
 * skinGui .ini, a Skinware cache), else its 3D positions unrolled from
 * the cylinder they wrap around (an arm's cover), else projected on their
 * best-fit plane (a palm, a pad).  docs/SKINCTL.md ("Layouts") says how
 * and why.
 *
 * Ownership: skin_flatten_part() allocates the arrays of a struct
 * skin_flattening, skin_flatten_free() frees them.  Errors: -1, and for
 * skin_flatten_part() *err filled (no file: err->what is the sentence).
 * No I/O, no global state.
 */
#ifndef SKIN_FLATTEN_H
#define SKIN_FLATTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skin/model.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a flattening's 2D positions come from. */
enum skin_flatten_how {
	SKIN_FLATTEN_FLAT,	/* the model's flattened positions */
	SKIN_FLATTEN_PLANE,	/* 3D positions on their best-fit plane */
	SKIN_FLATTEN_CYLINDER,	/* 3D positions unrolled from a cylinder */
};

/* Which flattening skin_flatten_part() makes. */
enum skin_flatten_mode {
	SKIN_FLATTEN_AUTO,	/* flat positions if any; else a cylinder
				 * when the positions wrap around an axis;
				 * else the best-fit plane */
	SKIN_FLATTEN_TO_PLANE,	/* the 3D positions on the best-fit plane */
	SKIN_FLATTEN_TO_CYLINDER, /* the 3D positions unrolled */
};

struct skin_flattening {
	unsigned int n;		/* the part's taxels (its vector's slots) */
	double *x, *y;		/* per slot; NaN: no position */
	enum skin_flatten_how how;
	enum skin_flat_unit unit; /* of x, y: SKIN_FLATTEN_FLAT the part's
				   * flat_unit, else SKIN_FLAT_METRE */
	double radius;		/* SKIN_FLATTEN_CYLINDER: metres */
};

/*
 * Part @part of @m flattened (see the top of this file; @mode may force a
 * projection of the 3D positions).  0, or -1 with *err when no taxel has
 * a position of the kind needed, the positions do not wrap around an axis
 * (SKIN_FLATTEN_TO_CYLINDER), or out of memory.
 */
int skin_flatten_part(struct skin_flattening *f, const struct skin_model *m,
		      unsigned int part, enum skin_flatten_mode mode,
		      struct skin_error *err);
void skin_flatten_free(struct skin_flattening *f);

/*
 * Where a flattening's positions come from, for people (skinctl's
 * captions, skind's journal): "flat layout (skinGui units)", "flat layout
 * (m)", "3D positions projected on their best-fit plane" or "3D positions
 * unrolled from their best-fit cylinder (radius 38 mm)".  Returns the
 * sentence: a constant, or @buf (NUL-terminated, cut to @len).
 */
const char *skin_flatten_describe(const struct skin_flattening *f, char *buf,
				  size_t len);

/*
 * The pressure-weighted position of @n taxels (part-local indices) in @f:
 * each weighs its value in @values, at least 1 (binarized or faint
 * touches count; @values NULL: each weighs 1); taxels without a position
 * are left out.  false, and NaN in @xy, when none has one.  skind's evdev
 * coordinates and skinctl view's contact marks are this.
 */
bool skin_flatten_centroid(const struct skin_flattening *f,
			   const uint32_t *taxels, unsigned int n,
			   const double *values, double xy[2]);

/*
 * Project @n points on the plane that fits them best: the two principal
 * axes (eigenvectors of the 3x3 covariance with the largest eigenvalues)
 * through their mean.  Distances within a plane are kept exactly.  When
 * @normals is given (may be NULL), the plane is seen from the side they
 * point to on average (the skin from outside).  Axis signs are fixed so
 * that the result does not depend on the solver.  0, or -1 for n == 0.
 */
int skin_flatten_plane(const double (*p)[3], const double (*normals)[3],
		       unsigned int n, double (*out)[2]);

/*
 * Unroll @n points of a curved sheet: the axis their normals wrap around
 * (they must spread over an arc of some 75 degrees or more, nearly
 * perpendicular to one direction) or, when the normals say nothing, the
 * axis about which the points lie most nearly on a circle covering half a
 * turn or more; the circle that fits their cross-section best (Kasa's
 * least squares), then x = the arc length around the axis from the middle
 * of the occupied arc (the seam in the widest gap), y = the height along
 * the axis from the mean.  Seen from the side the normals point to.  On a
 * cylinder, arc lengths and heights are kept exactly.  0 with the radius
 * in *radius, or -1 when the points are no curved sheet (fewer than 3, no
 * axis, a degenerate circle).
 */
int skin_flatten_cylinder(const double (*p)[3], const double (*normals)[3],
			  unsigned int n, double (*out)[2], double *radius);

#ifdef __cplusplus
}
#endif
#endif /* SKIN_FLATTEN_H */
