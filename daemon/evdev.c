// SPDX-License-Identifier: GPL-2.0
/*
 * evdev.c - one virtual multitouch device per part (uinput, protocol B)
 *
 * A part's contacts become touches: one slot per contact (at most
 * EVDEV_SLOTS), its tracking id kept while the processing library keeps
 * the contact's id, ABS_MT_POSITION_X/Y the contact's pressure-weighted
 * position in the part's flattening, the picture skinctl view draws
 * (skin/flatten.h: skinGui or Skinware coordinates, else the 3D positions
 * unrolled or projected, in metres), ABS_MT_PRESSURE its mean value
 * (0..255) and ABS_MT_TOUCH_MAJOR its number of taxels.
 * The device is a direct-touch surface (INPUT_PROP_DIRECT), so evtest and
 * libinput (as a touchscreen) see the touches.
 *
 * Written from the fan-out, never from the real-time path: a write to
 * uinput goes through the input core and its handlers.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libevdev/libevdev-uinput.h>
#include <libevdev/libevdev.h>

#include "evdev.h"
#include "log.h"

#define EVDEV_SLOTS	10
#define EVDEV_SCALE_METRE 10000.0	/* units per metre: 0.1 mm */
#define EVDEV_SCALE_GUI	10.0		/* units per skinGui drawing unit */

struct skind_evdev {
	struct libevdev *dev;
	struct libevdev_uinput *ui;
	bool by_index;			/* no geometry: the taxel's index */
	double *weight;			/* n_taxels: the values, as doubles */
	double scale;
	double min[2], max[2];
	struct {
		bool active;
		uint64_t contact;	/* proc contact id */
	} slot[EVDEV_SLOTS];
	bool touching;
	uint64_t cut;			/* contacts beyond the slots */
};

static bool warned_absent;

static void bounds(struct skind_evdev *e, const struct skind_part *p)
{
	const struct skin_flattening *f = &p->flat;
	unsigned int i, n = 0;

	e->scale = f->unit == SKIN_FLAT_SKINGUI ? EVDEV_SCALE_GUI : EVDEV_SCALE_METRE;
	for (i = 0; f->x && i < f->n; i++) {
		if (!isfinite(f->x[i]) || !isfinite(f->y[i]))
			continue;
		if (!n++) {
			e->min[0] = e->max[0] = f->x[i];
			e->min[1] = e->max[1] = f->y[i];
		}
		e->min[0] = fmin(e->min[0], f->x[i]);
		e->min[1] = fmin(e->min[1], f->y[i]);
		e->max[0] = fmax(e->max[0], f->x[i]);
		e->max[1] = fmax(e->max[1], f->y[i]);
	}
	if (!n) {
		/* no geometry at all: the taxel's index along x */
		e->by_index = true;
		e->scale = 1;
		e->min[0] = e->min[1] = 0;
		e->max[0] = p->n_taxels;
		e->max[1] = 1;
	}
}

static int axis(double v, const struct skind_evdev *e, int i)
{
	double u = (v - e->min[i]) * e->scale;

	if (!isfinite(u) || u < 0)
		return 0;
	if (u > (e->max[i] - e->min[i]) * e->scale)
		u = (e->max[i] - e->min[i]) * e->scale;
	return (int)lround(u);
}

int evdev_create(struct skind_part *p)
{
	struct skind_evdev *e;
	struct input_absinfo abs = { 0 };
	char name[80];
	int r, res, xmax, ymax;

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->weight = calloc(p->n_taxels ? p->n_taxels : 1, sizeof(*e->weight));
	if (!e->weight) {
		free(e);
		return -ENOMEM;
	}
	bounds(e, p);
	xmax = (int)lround((e->max[0] - e->min[0]) * e->scale);
	ymax = (int)lround((e->max[1] - e->min[1]) * e->scale);
	if (xmax < 1)
		xmax = 1;
	if (ymax < 1)
		ymax = 1;
	/* units per millimetre when the layout is in metres */
	res = e->scale == EVDEV_SCALE_METRE ? (int)(EVDEV_SCALE_METRE / 1000) : 0;

	e->dev = libevdev_new();
	if (!e->dev) {
		free(e->weight);
		free(e);
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "skin %s", p->name);
	libevdev_set_name(e->dev, name);
	libevdev_set_id_bustype(e->dev, BUS_VIRTUAL);
	libevdev_set_id_vendor(e->dev, 0x1d6b);	/* Linux Foundation: virtual */
	libevdev_set_id_product(e->dev, 0x5300 + (p->mp->skin_part & 0xff));
	libevdev_set_id_version(e->dev, 1);
	libevdev_enable_property(e->dev, INPUT_PROP_DIRECT);
	libevdev_enable_event_code(e->dev, EV_KEY, BTN_TOUCH, NULL);

	abs.resolution = res;
	abs.maximum = xmax;
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_X, &abs);
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_MT_POSITION_X, &abs);
	abs.maximum = ymax;
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_Y, &abs);
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_MT_POSITION_Y, &abs);
	abs.resolution = 0;
	abs.maximum = 255;
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_PRESSURE, &abs);
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_MT_PRESSURE, &abs);
	abs.maximum = (int)p->n_taxels;
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_MT_TOUCH_MAJOR, &abs);
	abs.maximum = EVDEV_SLOTS - 1;
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_MT_SLOT, &abs);
	abs.maximum = 65535;
	libevdev_enable_event_code(e->dev, EV_ABS, ABS_MT_TRACKING_ID, &abs);

	r = libevdev_uinput_create_from_device(e->dev, LIBEVDEV_UINPUT_OPEN_MANAGED,
					       &e->ui);
	if (r < 0) {
		if (!warned_absent)
			log_notice("no evdev devices: /dev/uinput: %s", strerror(-r));
		warned_absent = true;
		libevdev_free(e->dev);
		free(e->weight);
		free(e);
		return r;
	}
	log_field(LOG_INFO, "PART", p->name, "%s: evdev device %s (%s)", p->name,
		  libevdev_uinput_get_devnode(e->ui) ? libevdev_uinput_get_devnode(e->ui) :
		  libevdev_uinput_get_syspath(e->ui), name);
	p->evdev = e;
	return 0;
}

/*
 * A contact's position in the part's flattening: the pipeline's, in the
 * published contact, for the part's own flattened layout; else the same
 * weighting (skin_flatten_centroid()) over the published values.
 */
static void contact_position(struct skind_evdev *e, const struct skind_part *p,
			     const struct skin_contact_record *c, double xy[2])
{
	const uint32_t *taxels = &p->contact_taxels[c->first_taxel];
	unsigned int k;

	if (p->flat.how == SKIN_FLATTEN_FLAT) {
		xy[0] = c->flat[0];
		xy[1] = c->flat[1];
		return;
	}
	for (k = 0; k < c->n_taxels; k++)
		if (taxels[k] < p->n_taxels)
			e->weight[taxels[k]] = p->values[taxels[k]];
	skin_flatten_centroid(&p->flat, taxels, c->n_taxels, e->weight, xy);
}

static void emit(struct skind_evdev *e, unsigned int type, unsigned int code,
		 int value)
{
	libevdev_uinput_write_event(e->ui, type, code, value);
}

void evdev_update(struct skind_part *p)
{
	struct skind_evdev *e = p->evdev;
	unsigned int i, s, n;
	bool touching = false;
	int x0 = 0, y0 = 0, p0 = 0;

	if (!e)
		return;
	n = p->n_contacts;
	/* lift the fingers whose contact ended */
	for (s = 0; s < EVDEV_SLOTS; s++) {
		bool found = false;

		if (!e->slot[s].active)
			continue;
		for (i = 0; i < n && !found; i++)
			found = p->contacts[i].id == e->slot[s].contact;
		if (!found) {
			emit(e, EV_ABS, ABS_MT_SLOT, (int)s);
			emit(e, EV_ABS, ABS_MT_TRACKING_ID, -1);
			e->slot[s].active = false;
		}
	}
	for (i = 0; i < n; i++) {
		const struct skin_contact_record *c = &p->contacts[i];
		int free_slot = -1, x, y, pr;

		for (s = 0; s < EVDEV_SLOTS; s++) {
			if (e->slot[s].active && e->slot[s].contact == c->id)
				break;
			if (!e->slot[s].active && free_slot < 0)
				free_slot = (int)s;
		}
		if (s == EVDEV_SLOTS) {
			if (free_slot < 0) {
				e->cut++;
				continue;
			}
			s = (unsigned int)free_slot;
			e->slot[s].active = true;
			e->slot[s].contact = c->id;
			emit(e, EV_ABS, ABS_MT_SLOT, (int)s);
			emit(e, EV_ABS, ABS_MT_TRACKING_ID, (int)(c->id & 0xffff));
		} else {
			emit(e, EV_ABS, ABS_MT_SLOT, (int)s);
		}
		if (e->by_index) {
			x = axis(p->contact_taxels[c->first_taxel], e, 0);
			y = 0;
		} else {
			double xy[2];

			contact_position(e, p, c, xy);
			x = axis(xy[0], e, 0);
			y = axis(xy[1], e, 1);
		}
		pr = (int)lround(fmin(fmax(c->pressure, 0), 255));
		emit(e, EV_ABS, ABS_MT_POSITION_X, x);
		emit(e, EV_ABS, ABS_MT_POSITION_Y, y);
		emit(e, EV_ABS, ABS_MT_PRESSURE, pr);
		emit(e, EV_ABS, ABS_MT_TOUCH_MAJOR, (int)c->n_taxels);
		if (!touching) {
			x0 = x;
			y0 = y;
			p0 = pr;
		}
		touching = true;
	}
	if (touching != e->touching)
		emit(e, EV_KEY, BTN_TOUCH, touching);
	e->touching = touching;
	if (touching) {
		emit(e, EV_ABS, ABS_X, x0);
		emit(e, EV_ABS, ABS_Y, y0);
	}
	emit(e, EV_ABS, ABS_PRESSURE, touching ? p0 : 0);
	emit(e, EV_SYN, SYN_REPORT, 0);
}

void evdev_free(struct skind_part *p)
{
	struct skind_evdev *e = p->evdev;

	if (!e)
		return;
	libevdev_uinput_destroy(e->ui);
	libevdev_free(e->dev);
	free(e->weight);
	free(e);
	p->evdev = NULL;
}
