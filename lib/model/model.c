// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - the model object: building, freeing, names, statistics
 *
 * A model keeps parts, patches, taxels and links in flat arrays that
 * refer to each other by index, so a reader can grow them with realloc
 * and a consumer (skind) can walk them without pointers chasing.
 */
#define _GNU_SOURCE	/* vasprintf, asprintf */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

struct skin_model *model_new(void)
{
	return calloc(1, sizeof(struct skin_model));
}

int model_set_str(char **dst, const char *src)
{
	char *s = NULL;

	if (src) {
		s = strdup(src);
		if (!s)
			return -1;
	}
	free(*dst);
	*dst = s;
	return 0;
}

int model_add_part(struct skin_model *m, const char *name,
		   unsigned int n_taxels)
{
	struct skin_part *parts;
	struct skin_taxel *taxels;
	struct skin_part *p;
	unsigned int i;

	if (m->n_parts >= SKIN_MAX_PARTS ||
	    n_taxels > SKIN_MAX_TAXELS - m->n_taxels)
		return -1;
	parts = realloc(m->parts, (m->n_parts + 1) * sizeof(*parts));
	if (!parts)
		return -1;
	m->parts = parts;
	taxels = realloc(m->taxels,
			 ((size_t)m->n_taxels + n_taxels + 1) * sizeof(*taxels));
	if (!taxels)
		return -1;
	m->taxels = taxels;
	p = &m->parts[m->n_parts];
	memset(p, 0, sizeof(*p));
	p->link_number = -1;
	p->first_taxel = m->n_taxels;
	p->n_taxels = n_taxels;
	p->first_patch = m->n_patches;
	if (model_set_str(&p->name, name))
		return -1;
	for (i = 0; i < n_taxels; i++) {
		struct skin_taxel *t = &m->taxels[m->n_taxels + i];

		memset(t, 0, sizeof(*t));
		t->kind = SKIN_TAXEL_ABSENT;
		t->index = i;
		t->repr = -1;
		t->link = -1;
	}
	m->n_taxels += n_taxels;
	return (int)m->n_parts++;
}

int model_add_patch(struct skin_model *m, unsigned int part,
		    unsigned int order, const char *bus, int address)
{
	struct skin_patch *patches;
	struct skin_patch *pa;

	patches = realloc(m->patches, (m->n_patches + 1) * sizeof(*patches));
	if (!patches)
		return -1;
	m->patches = patches;
	pa = &m->patches[m->n_patches];
	memset(pa, 0, sizeof(*pa));
	pa->part = part;
	pa->order = order;
	pa->address = address;
	if (model_set_str(&pa->bus, bus))
		return -1;
	if (m->parts[part].n_patches == 0)
		m->parts[part].first_patch = m->n_patches;
	m->parts[part].n_patches++;
	return (int)m->n_patches++;
}

int model_link(struct skin_model *m, const char *name, int number)
{
	struct skin_link *links;
	unsigned int i;

	for (i = 0; i < m->n_links; i++)
		if (!strcmp(m->links[i].name, name) &&
		    m->links[i].number == number)
			return (int)i;
	links = realloc(m->links, (m->n_links + 1) * sizeof(*links));
	if (!links)
		return -1;
	m->links = links;
	m->links[m->n_links].name = strdup(name);
	m->links[m->n_links].number = number;
	if (!m->links[m->n_links].name)
		return -1;
	return (int)m->n_links++;
}

int model_note(struct skin_model *m, const char *fmt, ...)
{
	char **notes;
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	notes = realloc(m->notes, (m->n_notes + 1) * sizeof(*notes));
	if (!notes) {
		free(s);
		return -1;
	}
	m->notes = notes;
	m->notes[m->n_notes++] = s;
	return 0;
}

void model_part_set_id(struct skin_part *p, enum skin_part_id id)
{
	p->skin_part = id;
	p->body_part = skin_body_part_of(id);
	p->link_number = skin_link_number_of(id);
}

void model_drop_neighbours(struct skin_model *m)
{
	free(m->nbr_start);
	free(m->nbr);
	m->nbr_start = NULL;
	m->nbr = NULL;
	m->n_nbr = 0;
	m->neighbour_dist_m = 0;
}

int model_append(struct skin_model *dst, const struct skin_model *src)
{
	unsigned int i, j;

	for (i = 0; i < src->n_parts; i++) {
		const struct skin_part *sp = &src->parts[i];
		struct skin_part *dp;
		unsigned int base;
		int pi = model_add_part(dst, sp->name, sp->n_taxels);

		if (pi < 0)
			return -1;
		dp = &dst->parts[pi];
		base = dp->first_taxel;
		dp->skin_part = sp->skin_part;
		dp->body_part = sp->body_part;
		dp->link_number = sp->link_number;
		dp->flat_unit = sp->flat_unit;
		dp->update_rate_hz = sp->update_rate_hz;
		if (model_set_str(&dp->layout, sp->layout) ||
		    model_set_str(&dp->source, sp->source) ||
		    model_set_str(&dp->channel, sp->channel) ||
		    model_set_str(&dp->group, sp->group))
			return -1;
		for (j = 0; j < sp->n_taxels; j++) {
			const struct skin_taxel *st =
				&src->taxels[sp->first_taxel + j];
			struct skin_taxel *dt = &dst->taxels[base + j];

			*dt = *st;
			if (st->link >= 0) {
				const struct skin_link *l = &src->links[st->link];

				dt->link = model_link(dst, l->name, l->number);
				if (dt->link < 0)
					return -1;
			}
		}
		for (j = 0; j < sp->n_patches; j++) {
			const struct skin_patch *pa =
				&src->patches[sp->first_patch + j];

			if (model_add_patch(dst, (unsigned int)pi, pa->order,
					    pa->bus, pa->address) < 0)
				return -1;
		}
	}
	for (i = 0; i < src->n_notes; i++)
		if (model_note(dst, "%s", src->notes[i]))
			return -1;
	return 0;
}

void skin_model_free(struct skin_model *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->n_parts; i++) {
		free(m->parts[i].name);
		free(m->parts[i].layout);
		free(m->parts[i].source);
		free(m->parts[i].channel);
		free(m->parts[i].group);
	}
	for (i = 0; i < m->n_patches; i++)
		free(m->patches[i].bus);
	for (i = 0; i < m->n_links; i++)
		free(m->links[i].name);
	for (i = 0; i < m->n_notes; i++)
		free(m->notes[i]);
	free(m->notes);
	free(m->parts);
	free(m->patches);
	free(m->taxels);
	free(m->links);
	model_drop_neighbours(m);
	free(m);
}

void skin_model_stats(const struct skin_model *m, int part,
		      struct skin_model_stats *st)
{
	unsigned int first = 0, n = m->n_taxels, i, k;

	memset(st, 0, sizeof(*st));
	if (part >= 0 && (unsigned int)part < m->n_parts) {
		first = m->parts[part].first_taxel;
		n = m->parts[part].n_taxels;
	}
	for (k = 0; k < 3; k++) {
		st->min[k] = INFINITY;
		st->max[k] = -INFINITY;
	}
	for (i = first; i < first + n; i++) {
		const struct skin_taxel *t = &m->taxels[i];

		if (t->kind == SKIN_TAXEL_TACTILE)
			st->tactile++;
		else if (t->kind == SKIN_TAXEL_THERMAL)
			st->thermal++;
		else
			st->absent++;
		if (t->flags & SKIN_TAXEL_HAS_FLAT)
			st->with_flat++;
		if (!(t->flags & SKIN_TAXEL_HAS_POS))
			continue;
		st->with_pos++;
		for (k = 0; k < 3; k++) {
			st->min[k] = fmin(st->min[k], t->pos[k]);
			st->max[k] = fmax(st->max[k], t->pos[k]);
		}
	}
}

/*
 * The names of each SkinPart, in skinDynLib's order (the one table of
 * them: every program asks lib/model):
 *   name   ours (skind.conf, skind's outputs), skinDynLib's SkinPart_s
 *   port   skinManAll.ini's outputPorts, the YARP ports skinManager and
 *          the CAN skin devices open (left_arm is the upper arm's, torso
 *          the front torso's)
 *   frame  the link frame skinDynLib's positions are in, as iCub's URDF
 *          exports it (idyntree's iCub export: *_dh_frame); NULL where
 *          none is known
 */
static const struct {
	const char *name, *port, *frame;
} part_names[SKIN_PART_COUNT] = {
	[SKIN_PART_UNKNOWN] = { "unknown", NULL, NULL },
	[SKIN_LEFT_HAND] = { "left_hand", "left_hand", "l_hand_dh_frame" },
	[SKIN_LEFT_FOREARM] = { "left_forearm", "left_forearm", "l_forearm_dh_frame" },
	[SKIN_LEFT_UPPER_ARM] = { "left_upper_arm", "left_arm", NULL },
	[SKIN_RIGHT_HAND] = { "right_hand", "right_hand", "r_hand_dh_frame" },
	[SKIN_RIGHT_FOREARM] = { "right_forearm", "right_forearm", "r_forearm_dh_frame" },
	[SKIN_RIGHT_UPPER_ARM] = { "right_upper_arm", "right_arm", NULL },
	[SKIN_FRONT_TORSO] = { "front_torso", "torso", NULL },
	[SKIN_LEFT_LEG_UPPER] = { "left_leg_upper", "left_leg_upper", NULL },
	[SKIN_LEFT_LEG_LOWER] = { "left_leg_lower", "left_leg_lower", NULL },
	[SKIN_LEFT_FOOT] = { "left_foot", "left_foot", NULL },
	[SKIN_RIGHT_LEG_UPPER] = { "right_leg_upper", "right_leg_upper", NULL },
	[SKIN_RIGHT_LEG_LOWER] = { "right_leg_lower", "right_leg_lower", NULL },
	[SKIN_RIGHT_FOOT] = { "right_foot", "right_foot", NULL },
};

/* Other spellings users know besides the names and ports above: the
 * positions files' "name". */
static const struct {
	const char *alias;
	enum skin_part_id id;
} part_aliases[] = {
	{ "l_hand", SKIN_LEFT_HAND },
	{ "r_hand", SKIN_RIGHT_HAND },
	{ "l_forearm", SKIN_LEFT_FOREARM },
	{ "r_forearm", SKIN_RIGHT_FOREARM },
	{ "l_upper_arm", SKIN_LEFT_UPPER_ARM },
	{ "r_upper_arm", SKIN_RIGHT_UPPER_ARM },
	{ "chest", SKIN_FRONT_TORSO },
	{ "l_upper_leg", SKIN_LEFT_LEG_UPPER },
	{ "l_lower_leg", SKIN_LEFT_LEG_LOWER },
	{ "l_foot", SKIN_LEFT_FOOT },
	{ "r_upper_leg", SKIN_RIGHT_LEG_UPPER },
	{ "r_lower_leg", SKIN_RIGHT_LEG_LOWER },
	{ "r_foot", SKIN_RIGHT_FOOT },
};

const char *skin_part_id_name(enum skin_part_id p)
{
	if ((unsigned int)p >= SKIN_PART_COUNT)
		return "unknown";
	return part_names[p].name;
}

const char *skin_part_id_port(enum skin_part_id p)
{
	if ((unsigned int)p >= SKIN_PART_COUNT)
		return NULL;
	return part_names[p].port;
}

const char *skin_part_id_frame(enum skin_part_id p)
{
	if ((unsigned int)p >= SKIN_PART_COUNT)
		return NULL;
	return part_names[p].frame;
}

enum skin_part_id skin_part_id_from_name(const char *name)
{
	unsigned int i;

	for (i = 1; i < SKIN_PART_COUNT; i++)
		if (!strcmp(name, part_names[i].name))
			return (enum skin_part_id)i;
	for (i = 1; i < SKIN_PART_COUNT; i++)
		if (!strcmp(name, part_names[i].port))
			return (enum skin_part_id)i;
	for (i = 0; i < sizeof(part_aliases) / sizeof(part_aliases[0]); i++)
		if (!strcmp(name, part_aliases[i].alias))
			return part_aliases[i].id;
	return SKIN_PART_UNKNOWN;
}

const char *skin_body_part_name(enum skin_body_part b)
{
	static const char *const names[] = {
		"unknown", "torso", "head", "left_arm", "right_arm",
		"left_leg", "right_leg",
	};

	if ((unsigned int)b >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[b];
}

enum skin_body_part skin_body_part_of(enum skin_part_id p)
{
	switch (p) {
	case SKIN_LEFT_HAND:
	case SKIN_LEFT_FOREARM:
	case SKIN_LEFT_UPPER_ARM:
		return SKIN_BODY_LEFT_ARM;
	case SKIN_RIGHT_HAND:
	case SKIN_RIGHT_FOREARM:
	case SKIN_RIGHT_UPPER_ARM:
		return SKIN_BODY_RIGHT_ARM;
	case SKIN_FRONT_TORSO:
		return SKIN_BODY_TORSO;
	case SKIN_LEFT_LEG_UPPER:
	case SKIN_LEFT_LEG_LOWER:
	case SKIN_LEFT_FOOT:
		return SKIN_BODY_LEFT_LEG;
	case SKIN_RIGHT_LEG_UPPER:
	case SKIN_RIGHT_LEG_LOWER:
	case SKIN_RIGHT_FOOT:
		return SKIN_BODY_RIGHT_LEG;
	default:
		return SKIN_BODY_UNKNOWN;
	}
}

/* skinDynLib link numbers: hand 6, forearm 4, upper arm 2, torso 2
 * (docs/ICUB.md, section 3).  The legs' are not documented upstream. */
int skin_link_number_of(enum skin_part_id p)
{
	switch (p) {
	case SKIN_LEFT_HAND:
	case SKIN_RIGHT_HAND:
		return 6;
	case SKIN_LEFT_FOREARM:
	case SKIN_RIGHT_FOREARM:
		return 4;
	case SKIN_LEFT_UPPER_ARM:
	case SKIN_RIGHT_UPPER_ARM:
	case SKIN_FRONT_TORSO:
		return 2;
	default:
		return -1;
	}
}

const char *skin_taxel_kind_name(enum skin_taxel_kind k)
{
	switch (k) {
	case SKIN_TAXEL_TACTILE:
		return "tactile";
	case SKIN_TAXEL_THERMAL:
		return "thermal";
	default:
		return "absent";
	}
}
