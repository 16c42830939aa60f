// SPDX-License-Identifier: GPL-2.0
/*
 * skingui.c - iCub skinGui 2D layouts (icub-main app/skinGui/conf/
 * skinGui/NAME.ini), read into flattened taxel positions
 *
 *     cardid 13 12                   boards, one patch each, vector order
 *     robotPart left_forearm
 *     [SENSORS]
 *     type id x y orientation_deg gain mirror [layoutNum]
 *
 * A sensor of 12 channels with id i covers vector slots 12 i .. 12 i + 11
 * (ids >= 16 are on the second card); a palm covers 48 slots.  Taxel
 * offsets inside each sensor are those the GUI draws
 * (icub-main src/tools/iCubSkinGui/plugin/include: Triangle_10pad.h,
 * Fingertip2Left.h, PalmRight.h), rotated by the orientation and mirrored
 * in x when mirror is 1, exactly as the GUI computes them.  Units are the
 * GUI's drawing units (SKIN_FLAT_SKINGUI), not metres.
 *
 * The files are YARP ResourceFinder text, not INI: rows have no '=', so
 * they are read with the shared lexer rather than libinih.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

/* Triangle_10pad.h, before its 1/40 scale. */
static const double tri_dx[12] = {
	257.2, 385.83, 128.62, 0.0, -128.62, -385.83,
	-256.3, -257.2, -128.62, 0.0, 0.0, 128.62
};
static const double tri_dy[12] = {
	0.0, -222.83, -222.83, 0.0, -222.83, -222.83,
	-147.64, 0.0, 222.83, 445.54, 296.55, 222.83
};

/* Fingertip2Left.h, before its 2.7/15.3 scale. */
static const double tip_dx[12] = {
	41, 15, 15, 41, 30, 11, 0, -11, -30, -41, -15, -15
};
static const double tip_dy[12] = {
	10, 10, 35, 35, 64, 58, 82, 58, 64, 35, 35, 10
};

/* PalmRight.h, before its 1.2 scale; 11, 23, 35, 43 are thermal pads. */
static const double palm_dx[48] = {
	47, 42, 37, 32, 37, 42, 27, 27, 32, 27, 32, 51.7,
	47.5, 47, 46.5, 42, 37.5, 37, 43, 42, 27, 32, 38, 43.5,
	16.5, 11.5, 6.5, 1.5, 11.5, 6.5, 14.5, 21.5, 16.5, 21.5, 21.5, 9.5,
	28, 28, 33, 35, 40, 38, 33, 37, 43, 38, 33, 28
};
static const double palm_dy[48] = {
	4.5, 5.5, 6, 6, 1, 0, 6, 1, 1, -3.5, -3.5, 4,
	-18, -13, -8, -5.5, -4.5, -9, -16, -10.5, -9, -9, -14, -20,
	6, 6, 6, 6.5, 1, 1, -3.5, 6, 1, 1, -4, -2,
	-19.5, -24.5, -24.5, -29, -29.5, -24.5, -19.5, -32.5, -26, -19.5,
	-14.5, -14.5
};

enum sensor_type { TRIANGLE, FINGERTIP, PALM };

static const struct {
	const char *name;
	enum sensor_type type;
} types[] = {
	{ "triangle_10pad", TRIANGLE },
	{ "fingertip2L", FINGERTIP },
	{ "fingertip2R", FINGERTIP },
	{ "palmL", PALM },
	{ "palmR", PALM },
};

struct gui_sensor {
	enum sensor_type type;
	long id, mirror;
	double x, y, th;
	unsigned int line;
};

static void place(const struct gui_sensor *s, unsigned int k, double *fx,
		  double *fy)
{
	const double deg = M_PI / 180.0;
	double x, y, cst = cos(deg * s->th), snt = sin(deg * s->th);

	switch (s->type) {
	case TRIANGLE:
		x = tri_dx[k] / 40.0;
		y = tri_dy[k] / 40.0;
		break;
	case FINGERTIP:
		x = tip_dx[k] * (2.7 / 15.3);
		y = tip_dy[k] * (2.7 / 15.3);
		break;
	default:
		x = 1.2 * palm_dx[k];
		y = 1.2 * palm_dy[k];
		break;
	}
	if (s->mirror == 1)
		x = -x;
	*fx = s->x + cst * x - snt * y;
	*fy = s->y + snt * x + cst * y;
}

static bool thermal(enum sensor_type t, unsigned int k)
{
	if (t == TRIANGLE)
		return k == 6 || k == 10;
	if (t == PALM)
		return k == 11 || k == 23 || k == 35 || k == 43;
	return false;
}

struct skin_model *skin_skingui_read(const char *buf, size_t len,
				     const char *name, struct skin_error *err)
{
	struct gui_sensor *sensors = NULL, s;
	unsigned int n_sensors = 0, cap = 0, n_cards = 0, n_patches, i, k, l, c;
	unsigned int *owner = NULL;
	long cards[16];
	char part[128] = "", tok[128];
	bool in_sensors = false;
	struct skin_model *m = NULL;
	struct lex lx;
	int n, pi;

	lex_init(&lx, buf, len, name, err);
	for (;;) {
		n = lex_token(&lx, true, tok, sizeof(tok), &l, &c);
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		if (tok[0] == '#' || !strncmp(tok, "//", 2)) {
			lex_skip_line(&lx);
			continue;
		}
		if (tok[0] == '[') {
			if (strcmp(tok, "[SENSORS]") || in_sensors) {
				lex_error(&lx, l, c, "expected one [SENSORS] group, got '%s'",
					  tok);
				goto fail;
			}
			in_sensors = true;
		} else if (!in_sensors) {
			if (!strcmp(tok, "cardid")) {
				unsigned int cl, cc;

				while ((n = lex_token(&lx, false, tok, sizeof(tok),
						      &cl, &cc)) > 0) {
					if (n_cards == 16) {
						lex_error(&lx, cl, cc, "more than 16 card ids");
						goto fail;
					}
					if (!lex_parse_long(&lx, tok, cl, cc,
							    "a card (board) address", 0,
							    15, &cards[n_cards]))
						goto fail;
					n_cards++;
				}
				if (n < 0)
					goto fail;
				if (!n_cards) {
					lex_error(&lx, l, c, "expected at least one card address after cardid");
					goto fail;
				}
				continue;
			} else if (!strcmp(tok, "robotPart")) {
				n = lex_token(&lx, false, part, sizeof(part), &l, &c);
				if (n <= 0) {
					if (!n)
						lex_error(&lx, l, c, "expected a part name after robotPart");
					goto fail;
				}
			} else if (!strcmp(tok, "CanDeviceName") ||
				   !strcmp(tok, "CanDeviceNum") ||
				   !strcmp(tok, "width") || !strcmp(tok, "height") ||
				   !strcmp(tok, "xpos") || !strcmp(tok, "ypos") ||
				   !strcmp(tok, "period")) {
				/* display and CAN settings of the GUI itself */
				lex_skip_line(&lx);
				continue;
			} else {
				lex_error(&lx, l, c, "expected cardid, robotPart, CanDeviceName, CanDeviceNum, width, height, xpos, ypos, period or [SENSORS], got '%s'",
					  tok);
				goto fail;
			}
			if (!lex_at_eol(&lx)) {
				lex_error(&lx, lx.line, lx.col, "expected the end of the line");
				goto fail;
			}
		} else {
			static const char *const what[4] = {
				"x (skinGui units)", "y (skinGui units)",
				"orientation (degrees)", "gain"
			};
			double v[4];
			long layout;

			for (k = 0; k < sizeof(types) / sizeof(types[0]); k++)
				if (!strcmp(tok, types[k].name))
					break;
			if (k == sizeof(types) / sizeof(types[0])) {
				lex_error(&lx, l, c, "expected a sensor type (triangle_10pad, fingertip2L, fingertip2R, palmL, palmR), got '%s'",
					  tok);
				goto fail;
			}
			memset(&s, 0, sizeof(s));
			s.type = types[k].type;
			s.line = l;
			n = lex_token(&lx, false, tok, sizeof(tok), &l, &c);
			if (n <= 0) {
				if (!n)
					lex_error(&lx, l, c, "expected the sensor id");
				goto fail;
			}
			if (!lex_parse_long(&lx, tok, l, c, "the sensor id", 0,
					    16 * 16 - 1, &s.id))
				goto fail;
			for (k = 0; k < 5; k++) {
				n = lex_token(&lx, false, tok, sizeof(tok), &l, &c);
				if (n <= 0) {
					if (!n)
						lex_error(&lx, l, c,
							  "expected %s: a sensor row is 'type id x y orientation gain mirror [layout]'",
							  k < 4 ? what[k] : "mirror (0 or 1)");
					goto fail;
				}
				if (k < 4 ? !lex_parse_double(&lx, tok, l, c, what[k], &v[k])
					  : !lex_parse_long(&lx, tok, l, c, "mirror", 0, 1,
							    &s.mirror))
					goto fail;
			}
			s.x = v[0];
			s.y = v[1];
			s.th = v[2];
			n = lex_token(&lx, false, tok, sizeof(tok), &l, &c);
			if (n < 0)
				goto fail;
			if (n > 0 && !lex_parse_long(&lx, tok, l, c, "the layout number",
						     0, 1000, &layout))
				goto fail;
			if (!lex_at_eol(&lx)) {
				lex_error(&lx, lx.line, lx.col,
					  "expected the end of the sensor row");
				goto fail;
			}
			if (n_sensors == cap) {
				struct gui_sensor *ns;

				cap = cap ? cap * 2 : 64;
				ns = realloc(sensors, cap * sizeof(*ns));
				if (!ns)
					goto oom;
				sensors = ns;
			}
			sensors[n_sensors++] = s;
		}
	}
	if (!n_cards) {
		lex_error(&lx, 0, 0, "expected a cardid line naming the boards");
		goto fail;
	}
	if (!in_sensors) {
		lex_error(&lx, 0, 0, "expected a [SENSORS] group");
		goto fail;
	}
	/* In YARP mode skinGui indexes the port vector with the ids and
	 * uses cardid only on CAN: torso.ini names one card for ids up to
	 * 63.  The vector is as long as the sensors need; a shortfall of
	 * card ids is a note, and the extra patches have no address. */
	n_patches = n_cards;
	for (i = 0; i < n_sensors; i++) {
		unsigned int end = (unsigned int)sensors[i].id * 12 +
				   (sensors[i].type == PALM ? 48 : 12);

		if (end > n_patches * SKIN_VALUES_PER_PATCH)
			n_patches = (end + SKIN_VALUES_PER_PATCH - 1) /
				    SKIN_VALUES_PER_PATCH;
	}
	m = model_new();
	if (!m)
		goto oom;
	if (n_patches > n_cards &&
	    model_note(m, "%s: cardid names %u card(s) but the sensors fill %u patches of 192 values; the other patches have no board address",
		       name, n_cards, n_patches))
		goto oom;
	{
		enum skin_part_id id = skin_part_id_from_name(part);

		pi = model_add_part(m, id ? skin_part_id_name(id) :
				    (part[0] ? part : "part"),
				    n_patches * SKIN_VALUES_PER_PATCH);
		if (pi < 0)
			goto oom;
		model_part_set_id(&m->parts[pi], id);
	}
	m->parts[pi].flat_unit = SKIN_FLAT_SKINGUI;
	if (model_set_str(&m->parts[pi].source, name))
		goto oom;
	for (i = 0; i < n_patches; i++)
		if (model_add_patch(m, (unsigned int)pi, i, NULL,
				    i < n_cards ? (int)cards[i] : -1) < 0)
			goto oom;
	owner = calloc(n_patches * SKIN_VALUES_PER_PATCH, sizeof(*owner));
	if (!owner)
		goto oom;
	for (i = 0; i < n_sensors; i++) {
		const struct gui_sensor *gs = &sensors[i];
		unsigned int nt = gs->type == PALM ? 48 : 12;
		unsigned int first = (unsigned int)gs->id * 12;

		for (k = 0; k < nt; k++) {
			struct skin_taxel *t = &m->taxels[first + k];

			if (owner[first + k]) {
				lex_error(&lx, gs->line, 1,
					  "sensor %ld covers slot %u, already covered by the sensor of line %u",
					  gs->id, first + k, owner[first + k]);
				goto fail;
			}
			owner[first + k] = gs->line;
			t->kind = thermal(gs->type, k) ? SKIN_TAXEL_THERMAL
						       : SKIN_TAXEL_TACTILE;
			place(gs, k, &t->flat[0], &t->flat[1]);
			t->flags |= SKIN_TAXEL_HAS_FLAT;
		}
	}
	free(owner);
	free(sensors);
	return m;
oom:
	skin_err_oom(err, name);
fail:
	free(owner);
	free(sensors);
	skin_model_free(m);
	return NULL;
}
