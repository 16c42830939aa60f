// SPDX-License-Identifier: GPL-2.0
/*
 * signal.c - what each channel of each simulated board reads
 *
 * A channel's capacitance change, in raw counts at shift 2, is
 *
 *	delta = offset + gain * drift(t) + noise + pressure(t)
 *
 * offset: the taxel's own baseline, Gaussian around 0 with the scenario's
 * spread (so unloaded taxels read near, not exactly at, noLoad); drift: a
 * slow sinusoid per board (thermal drift, the thing skinManager's
 * compensation tracks), each taxel following it with its own gain near 1,
 * thermal pads with the scenario's thermal gain; noise: Gaussian, drawn
 * per (seed, board, channel, sample); pressure: the sum over the
 * scenario's contacts on the board's part of force x falloff(distance from
 * the contact's centre to the taxel's real position).  The board turns
 * delta into out = noLoad - (delta >> shift), clamped to 0..255.
 *
 * Absent channels (no sensor behind the slot) read noLoad exactly: the
 * firmware subtracts nothing.  An enabled triangle that the model does
 * not have reads noLoad and reports "not connected" in its diagnostics,
 * as a board with an unplugged triangle does.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/can/error.h>

#include "sim-private.h"

/* Salts: one stream of draws per purpose. */
enum {
	SALT_OFFSET = 1,
	SALT_GAIN,
	SALT_PHASE,
	SALT_NOISE,
	SALT_DROP,
	SALT_NOISY,
};

#define DIAG_NOT_CONNECTED	0x0002

/*
 * Raised cosine: the whole force at the centre, half at half the radius,
 * nothing from the radius on.  Compact support makes "the taxels pressed"
 * a well-defined set for the ground truth.
 */
double sim_falloff(double dist, double radius)
{
	if (dist >= radius)
		return 0;
	return 0.5 * (1.0 + cos(M_PI * dist / radius));
}

uint8_t skin_sim_raw(uint8_t no_load, unsigned int shift, double delta)
{
	/* capacitance counts: raw counts at shift 2 are 4 counts each */
	double cap = nearbyint(delta * 4.0);
	double shifted, out;

	if (cap > 1e9)
		cap = 1e9;
	if (cap < -1e9)
		cap = -1e9;
	/* the firmware's arithmetic shift rounds towards minus infinity */
	shifted = floor(cap / (double)(1U << (shift & 15)));
	out = (double)no_load - shifted;
	if (out < 0)
		return 0;
	if (out > 255)
		return 255;
	return (uint8_t)out;
}

static bool name_ok(const char *name)
{
	size_t i;

	if (!name[0] || name[0] == '.' || strlen(name) > 31)
		return false;
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

static void default_params(struct skin_sim_params *p)
{
	p->seed = 1;
	p->noise = 0.8;
	p->spread = 2.0;
	p->drift = 1.5;
	p->drift_period_s = 120;
	p->thermal_gain = 3.0;
}

int skin_sim_find(const struct skin_sim *s, const char *bus,
		  unsigned int address)
{
	unsigned int i;

	for (i = 0; i < s->n_patches; i++)
		if (s->patches[i].info.address == address &&
		    strcmp(s->patches[i].info.bus, bus) == 0)
			return (int)i;
	return -1;
}

static int find_part(const struct skin_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->n_parts; i++)
		if (strcmp(m->parts[i].name, name) == 0)
			return (int)i;
	return -1;
}

static bool bus_exists(const struct skin_sim *s, const char *bus)
{
	unsigned int i;

	for (i = 0; i < s->n_patches; i++)
		if (strcmp(s->patches[i].info.bus, bus) == 0)
			return true;
	return false;
}

/* Check an event against the skin and resolve its part and position. */
static int resolve_event(struct skin_sim *s, struct sc_event *e,
			 const char *file, struct skin_error *err)
{
	const struct skin_model *m = s->model;
	const struct skin_part *part;
	int pi;

	if (e->kind == SC_PRESS || (e->kind == SC_FAULT &&
	    (e->fault == SC_FAULT_STUCK || e->fault == SC_FAULT_SATURATE ||
	     e->fault == SC_FAULT_NOISY))) {
		pi = find_part(m, e->part);
		if (pi < 0) {
			skin_error_set(err, file, e->line, 0,
				    "no part '%s' in the config", e->part);
			return -1;
		}
		e->part_index = (unsigned int)pi;
	}
	if (e->kind == SC_FAULT) {
		switch (e->fault) {
		case SC_FAULT_STUCK:
		case SC_FAULT_SATURATE:
		case SC_FAULT_NOISY:
			part = &m->parts[e->part_index];
			if (e->taxel >= part->n_taxels ||
			    m->taxels[part->first_taxel + e->taxel].kind ==
			    SKIN_TAXEL_ABSENT) {
				skin_error_set(err, file, e->line, 0,
					    "part '%s' has no taxel %u", e->part,
					    e->taxel);
				return -1;
			}
			return 0;
		case SC_FAULT_DROP:
			if (!e->bus[0])
				return 0;
			/* fall through */
		case SC_FAULT_DEAD:
		case SC_FAULT_GARBAGE:
			if (skin_sim_find(s, e->bus, (unsigned int)e->address) < 0) {
				skin_error_set(err, file, e->line, 0,
					    "no board %s:%d in the config",
					    e->bus, e->address);
				return -1;
			}
			return 0;
		case SC_FAULT_ERRORS:
			if (!bus_exists(s, e->bus)) {
				skin_error_set(err, file, e->line, 0,
					    "no bus '%s' in the config", e->bus);
				return -1;
			}
			return 0;
		}
		return 0;
	}
	if ((e->kind == SC_PRESS || e->kind == SC_MOVE) && e->where.taxel) {
		const struct skin_taxel *tx;
		unsigned int k;

		/* a move's part is its contact's: the last press of it */
		if (e->kind == SC_MOVE) {
			for (k = 0; k < s->n_events; k++) {
				const struct sc_event *x = &s->events[k];

				if (x == e)
					break;
				if (x->kind == SC_PRESS &&
				    strcmp(x->name, e->name) == 0)
					e->part_index = x->part_index;
			}
		}
		part = &m->parts[e->part_index];
		if (e->where.index >= part->n_taxels) {
			skin_error_set(err, file, e->line, 0,
				    "part '%s' has %u taxels, no taxel %u",
				    part->name, part->n_taxels, e->where.index);
			return -1;
		}
		tx = &m->taxels[part->first_taxel + e->where.index];
		if (!(tx->flags & SKIN_TAXEL_HAS_POS) ||
		    tx->kind != SKIN_TAXEL_TACTILE) {
			skin_error_set(err, file, e->line, 0,
				    "taxel %u of '%s' is not a tactile taxel with a known position",
				    e->where.index, part->name);
			return -1;
		}
		memcpy(e->where.pos, tx->pos, sizeof(tx->pos));
		e->where.taxel = false;
	}
	return 0;
}

static void build_patch(struct skin_sim *s, unsigned int i)
{
	const struct skin_model *m = s->model;
	const struct skin_patch *mp = &m->patches[i];
	const struct skin_part *part = &m->parts[mp->part];
	struct sim_patch *p = &s->patches[i];
	uint64_t seed = s->params.seed;
	unsigned int c;
	int n;

	p->info.address = (uint8_t)(mp->address & 0xf);
	snprintf(p->info.bus, sizeof(p->info.bus), "%s", mp->bus ? mp->bus : "");
	p->info.part = mp->part;
	p->info.part_name = part->name;
	p->info.skin_part = part->skin_part;
	p->info.order = mp->order;
	/* the daemon's names for the driver's patches (daemon/skin.c) */
	if (part->n_patches == 1)
		n = snprintf(p->info.name, sizeof(p->info.name), "%s", part->name);
	else
		n = snprintf(p->info.name, sizeof(p->info.name), "%s.%u",
			     part->name, mp->order);
	if (n < 0 || (size_t)n >= sizeof(p->info.name) || !name_ok(p->info.name))
		snprintf(p->info.name, sizeof(p->info.name), "%.15s-%d",
			 p->info.bus, mp->address);
	p->drift_phase = 2 * M_PI * sim_uniform(seed, SALT_PHASE, i, 0);

	for (c = 0; c < SKIN_SIM_VALUES; c++) {
		struct sim_channel *ch = &p->ch[c];
		unsigned int local = mp->order * SKIN_SIM_VALUES + c;

		ch->taxel = local;
		if (local < part->n_taxels) {
			const struct skin_taxel *tx =
				&m->taxels[part->first_taxel + local];

			ch->kind = tx->kind;
			ch->has_pos = tx->flags & SKIN_TAXEL_HAS_POS;
			memcpy(ch->pos, tx->pos, sizeof(ch->pos));
		} else {
			ch->kind = SKIN_TAXEL_ABSENT;
		}
		if (ch->kind != SKIN_TAXEL_ABSENT)
			p->info.present |= 1U << (c / SKIN_SIM_CHANNELS);
		ch->offset = s->params.spread *
			     sim_gauss(seed, SALT_OFFSET, i, c);
		ch->drift_gain = 0.8 + 0.4 * sim_uniform(seed, SALT_GAIN, i, c);
	}
}

struct skin_sim *skin_sim_new(const struct skin_config *cfg,
			      const struct skin_sim_scenario *sc,
			      struct skin_error *err)
{
	const char *file = sc ? sc->name : "(scenario)";
	struct skin_sim *s = calloc(1, sizeof(*s));
	unsigned int i, j;

	if (!s)
		goto oom;
	s->cls = 4;
	if (sc)
		s->params = sc->params;
	else
		default_params(&s->params);
	s->model = skin_config_build_model(cfg, err);
	if (!s->model)
		goto fail;
	if (!s->model->n_patches) {
		skin_error_set(err, cfg->path, 0, 0, "the config has no patches");
		goto fail;
	}
	s->n_patches = s->model->n_patches;
	s->patches = calloc(s->n_patches, sizeof(*s->patches));
	if (!s->patches)
		goto oom;
	for (i = 0; i < s->n_patches; i++)
		build_patch(s, i);

	if (sc && sc->n_events) {
		s->events = malloc(sc->n_events * sizeof(*s->events));
		s->contact_names = calloc(sc->n_events, sizeof(*s->contact_names));
		if (!s->events || !s->contact_names)
			goto oom;
		memcpy(s->events, sc->events, sc->n_events * sizeof(*s->events));
		s->n_events = sc->n_events;
		for (i = 0; i < s->n_events; i++) {
			struct sc_event *e = &s->events[i];

			if (resolve_event(s, e, file, err))
				goto fail;
			if (e->kind != SC_PRESS)
				continue;
			for (j = 0; j < s->n_contacts; j++)
				if (!strcmp(s->contact_names[j], e->name))
					break;
			if (j == s->n_contacts)
				strcpy(s->contact_names[s->n_contacts++], e->name);
		}
	}
	return s;
oom:
	skin_error_set(err, file, 0, 0, "out of memory");
fail:
	skin_sim_free(s);
	return NULL;
}

void skin_sim_free(struct skin_sim *s)
{
	if (!s)
		return;
	skin_model_free(s->model);
	free(s->patches);
	free(s->events);
	free(s->contact_names);
	free(s);
}

unsigned int skin_sim_patches(const struct skin_sim *s)
{
	return s->n_patches;
}

const struct skin_sim_patch_info *skin_sim_patch(const struct skin_sim *s,
						 unsigned int i)
{
	return i < s->n_patches ? &s->patches[i].info : NULL;
}

const struct skin_sim_params *skin_sim_params(const struct skin_sim *s)
{
	return &s->params;
}

void skin_sim_set_class(struct skin_sim *s, uint8_t cls)
{
	s->cls = cls;
}

const struct skin_model *skin_sim_model(const struct skin_sim *s)
{
	return s->model;
}

/* ---- contacts ------------------------------------------------------ */

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

struct contact_track {
	bool active, moving, releasing;
	unsigned int part;
	double pos[3], from[3], to[3];
	double radius, force;
	uint64_t t_press, ramp, t_move, move_dur, t_release, release_ramp;
};

static void track_pos(const struct contact_track *c, uint64_t t, double out[3])
{
	double a;
	int k;

	if (!c->moving) {
		memcpy(out, c->pos, sizeof(c->pos));
		return;
	}
	a = c->move_dur ? clamp01((double)(t - c->t_move) / (double)c->move_dur)
			: 1.0;
	for (k = 0; k < 3; k++)
		out[k] = c->from[k] + a * (c->to[k] - c->from[k]);
}

unsigned int skin_sim_contacts(const struct skin_sim *s, uint64_t t_ns,
			       struct skin_sim_contact_state *out,
			       unsigned int max)
{
	unsigned int n = 0, j, i;

	for (j = 0; j < s->n_contacts && n < max; j++) {
		const char *name = s->contact_names[j];
		struct contact_track c = { 0 };
		double f;

		for (i = 0; i < s->n_events && s->events[i].t_ns <= t_ns; i++) {
			const struct sc_event *e = &s->events[i];

			if (e->kind == SC_FAULT || strcmp(e->name, name))
				continue;
			switch (e->kind) {
			case SC_PRESS:
				memset(&c, 0, sizeof(c));
				c.active = true;
				c.part = e->part_index;
				memcpy(c.pos, e->where.pos, sizeof(c.pos));
				c.radius = e->radius;
				c.force = e->force;
				c.t_press = e->t_ns;
				c.ramp = e->dur_ns;
				break;
			case SC_MOVE:
				track_pos(&c, e->t_ns, c.from);
				memcpy(c.pos, c.from, sizeof(c.pos));
				memcpy(c.to, e->where.pos, sizeof(c.to));
				c.moving = true;
				c.t_move = e->t_ns;
				c.move_dur = e->dur_ns;
				break;
			case SC_RELEASE:
				c.releasing = true;
				c.t_release = e->t_ns;
				c.release_ramp = e->dur_ns;
				break;
			default:
				break;
			}
		}
		if (!c.active)
			continue;
		f = c.force * (c.ramp ? clamp01((double)(t_ns - c.t_press) /
						(double)c.ramp) : 1.0);
		if (c.releasing)
			f *= c.release_ramp ?
			     1.0 - clamp01((double)(t_ns - c.t_release) /
					   (double)c.release_ramp) : 0.0;
		if (f <= 0)
			continue;
		out[n].name = name;
		out[n].part = c.part;
		track_pos(&c, t_ns, out[n].centre);
		out[n].radius = c.radius;
		out[n].force = f;
		n++;
	}
	return n;
}

/* ---- samples ------------------------------------------------------- */

static bool fault_active(const struct sc_event *e, uint64_t t)
{
	return e->kind == SC_FAULT && e->t_ns <= t &&
	       (e->dur_ns == 0 || t < e->t_ns + e->dur_ns);
}

static bool fault_on_board(const struct sc_event *e,
			   const struct skin_sim_patch_info *info)
{
	if (!e->bus[0])
		return true;
	return strcmp(e->bus, info->bus) == 0 &&
	       (e->address < 0 || e->address == info->address);
}

static double dist3(const double a[3], const double b[3])
{
	double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];

	return sqrt(dx * dx + dy * dy + dz * dz);
}

/* A malformed frame in a board's id space, kind by kind. */
static void garbage_frame(uint8_t cls, uint8_t address, uint64_t j,
			  struct can_frame *cf)
{
	unsigned int tri = (unsigned int)(j % SKIN_SIM_TRIANGLES);

	memset(cf, 0, sizeof(*cf));
	cf->can_id = (canid_t)((cls & 0x7) << 8 | address << 4 | tri);
	cf->len = 8;
	memset(cf->data, 0xa5, sizeof(cf->data));
	switch (j % 5) {
	case 0:		/* a head cut short */
		cf->data[0] = 0x40;
		cf->len = 3;
		break;
	case 1:		/* unknown byte 0 */
		cf->data[0] = 0x77;
		break;
	case 2:		/* remote request */
		cf->can_id |= CAN_RTR_FLAG;
		cf->len = 0;
		break;
	case 3:		/* 29-bit id with the same low bits */
		cf->can_id |= CAN_EFF_FLAG;
		cf->data[0] = 0x40;
		break;
	default:	/* a tail of 7 bytes */
		cf->data[0] = 0xc0;
		cf->len = 7;
		break;
	}
}

void skin_sim_sample(const struct skin_sim *s, unsigned int i,
		     const struct skin_sim_board *b, uint64_t k,
		     uint64_t t_ns, struct skin_sim_sample *out)
{
	const struct sim_patch *p = &s->patches[i];
	const struct skin_sim_params *pr = &s->params;
	struct skin_sim_contact_state cs[64];
	unsigned int nc, c, e, tri;
	double drift;
	uint64_t period_ns = (uint64_t)(b->period_ms ? b->period_ms : 1) * 1000000;

	memset(out, 0, sizeof(*out));
	out->patch = i;
	out->k = k;
	out->t_ns = t_ns;
	nc = skin_sim_contacts(s, t_ns, cs, 64);
	drift = pr->drift * sin(2 * M_PI * ((double)t_ns / 1e9) /
				pr->drift_period_s + p->drift_phase);

	for (c = 0; c < SKIN_SIM_VALUES; c++) {
		const struct sim_channel *ch = &p->ch[c];
		unsigned int t = c / SKIN_SIM_CHANNELS;
		double delta, press = 0;
		unsigned int n;

		if (!(b->enabled & (1U << t)) || !(p->info.present & (1U << t)) ||
		    ch->kind == SKIN_TAXEL_ABSENT) {
			out->values[c] = b->no_load;
			continue;
		}
		delta = ch->offset + pr->noise * sim_gauss(pr->seed, SALT_NOISE,
							   (uint64_t)i << 8 | c, k);
		if (ch->kind == SKIN_TAXEL_THERMAL) {
			delta += pr->thermal_gain * drift;
		} else {
			delta += ch->drift_gain * drift;
			for (n = 0; n < nc && ch->has_pos; n++)
				if (cs[n].part == p->info.part)
					press += cs[n].force *
						 sim_falloff(dist3(ch->pos, cs[n].centre),
							     cs[n].radius);
			out->pressure[c] = (float)press;
			delta += press;
		}
		out->values[c] = skin_sim_raw(b->no_load, b->shift[t], delta);
	}
	for (tri = 0; tri < SKIN_SIM_TRIANGLES; tri++)
		if ((b->enabled & ~p->info.present) & (1U << tri))
			out->diag[tri] = DIAG_NOT_CONNECTED;

	out->send_head = b->enabled;
	out->send_tail = b->enabled;
	for (e = 0; e < s->n_events && s->events[e].t_ns <= t_ns; e++) {
		const struct sc_event *ev = &s->events[e];
		unsigned int local, h;

		if (ev->kind != SC_FAULT)
			continue;
		if (ev->fault == SC_FAULT_ERRORS) {
			/* once, in the sample whose period holds it, from the
			 * bus's first board */
			if (ev->t_ns + period_ns <= t_ns ||
			    strcmp(ev->bus, p->info.bus))
				continue;
			for (h = 0; h < i; h++)
				if (!strcmp(s->patches[h].info.bus, ev->bus))
					break;
			if (h < i)
				continue;
			for (h = 0; h < ev->count; h++) {
				struct can_frame *cf;

				if (out->n_extra == SKIN_SIM_EXTRA_MAX) {
					out->extra_lost++;
					continue;
				}
				cf = &out->extra[out->n_extra++];

				memset(cf, 0, sizeof(*cf));
				cf->can_id = CAN_ERR_FLAG | CAN_ERR_PROT | CAN_ERR_BUSERROR;
				cf->len = CAN_MAX_DLEN;
			}
			continue;
		}
		if (!fault_active(ev, t_ns))
			continue;
		switch (ev->fault) {
		case SC_FAULT_STUCK:
		case SC_FAULT_SATURATE:
		case SC_FAULT_NOISY:
			if (ev->part_index != p->info.part ||
			    ev->taxel / SKIN_SIM_VALUES != p->info.order)
				break;
			local = ev->taxel % SKIN_SIM_VALUES;
			tri = local / SKIN_SIM_CHANNELS;
			if (!(b->enabled & (1U << tri)))
				break;
			if (ev->fault == SC_FAULT_NOISY) {
				/* a loose contact: the reading jumps by up to
				 * the amplitude either way, a new draw per
				 * sample, clamped as the board clamps */
				double jump = ev->value * (2 * sim_uniform(pr->seed, SALT_NOISY,
									    (uint64_t)i << 8 | local, k) - 1);
				double v = nearbyint(out->values[local] + jump);

				out->values[local] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
			} else if (ev->fault == SC_FAULT_SATURATE) {
				out->values[local] = 0;
				out->diag[tri] |= SKIN_SIM_DIAG_CHANNEL(local % SKIN_SIM_CHANNELS);
			} else {
				out->values[local] = ev->value >= 0 ? (uint8_t)ev->value :
					skin_sim_raw(b->no_load, b->shift[tri],
						     p->ch[local].offset);
			}
			break;
		case SC_FAULT_DEAD:
			if (fault_on_board(ev, &p->info)) {
				out->send_head &= ~(1U << ev->triangle);
				out->send_tail &= ~(1U << ev->triangle);
			}
			break;
		case SC_FAULT_DROP:
			if (!fault_on_board(ev, &p->info))
				break;
			for (tri = 0; tri < SKIN_SIM_TRIANGLES; tri++) {
				uint16_t bit = 1U << tri;

				if (sim_uniform(pr->seed, SALT_DROP, (uint64_t)i << 8 | tri * 2, k) < ev->prob)
					out->send_head &= ~bit;
				if (sim_uniform(pr->seed, SALT_DROP, (uint64_t)i << 8 | (tri * 2 + 1), k) < ev->prob)
					out->send_tail &= ~bit;
			}
			break;
		case SC_FAULT_GARBAGE:
			if (!fault_on_board(ev, &p->info))
				break;
			for (h = 0; h < ev->count; h++) {
				if (out->n_extra == SKIN_SIM_EXTRA_MAX) {
					out->extra_lost++;
					continue;
				}
				garbage_frame(s->cls, p->info.address, k * ev->count + h,
					      &out->extra[out->n_extra++]);
			}
			break;
		default:
			break;
		}
	}
}
