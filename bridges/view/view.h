/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view.h - what skin-view publishes of the parts, whatever the source
 *
 * The one publication path of skin-view's part channels: a source
 * (main.c's follower of skind's shared memory; a replay of a recording
 * through lib/proc) says which parts there are (view_set_parts()), how
 * they are drawn (view_set_layout(): the /skin/layout message) and hands
 * each part's samples to view_publish_part(), which encodes them once
 * per channel and gives them to the server (server.h):
 *
 *	/skin/PART/values    tactile_msgs/TactileState, compensated values
 *	/skin/PART/raw       tactile_msgs/TactileState, raw values as floats
 *	/skin/PART/contacts  tactile_msgs/TactileContacts (when there are
 *	                     contacts, and once when they end)
 *	/skin/PART/state     skin_msgs/PartState: raw, values, flags,
 *	                     baselines, thresholds, contacts with their 2D
 *	                     centroid in the layout (cdr.h)
 *	/skin/layout         skin.Layout, JSON (layout.h)
 *
 * A part that view_set_parts() keeps (same name and size) keeps its
 * channels; one that goes loses them; a new one gets new ones.
 *
 * For a second source (replay): view_new() on the server, then
 * view_set_parts() with the model's parts, view_set_layout() with the
 * model, and per output sample of part i a struct view_sample and
 * view_publish_part(v, i, &s).  Nothing here reads skind.
 *
 * Ownership: the view owns its channels (removed by view_free()) and
 * copies what it is given; a struct view_sample only points at the
 * caller's arrays during the call.  Errors: negative errno.  Threads:
 * the loop's thread.
 */
#ifndef VIEW_VIEW_H
#define VIEW_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include <skin/contact.h>
#include <skin/model.h>

#include "config.h"
#include "layout.h"
#include "server.h"

struct view;

/* A part to serve: skind's shared memory descriptor's, or a model's */
struct view_part_desc {
	const char *name;
	enum skin_part_id skin_part;
	unsigned int n_taxels;
};

/*
 * One publication of a part.  Arrays have the part's n_taxels entries;
 * a contact's taxels are contact_taxels[first_taxel .. + n_taxels)
 * (records @contact_stride bytes apart, as the shared memory holds
 * them).  Whatever the counts say, nothing is read past n_taxels
 * entries of contact_taxels, and a contact whose taxels lie outside is
 * sent without them.
 */
struct view_sample {
	uint64_t frame_ns;		/* CLOCK_MONOTONIC of its newest frame */
	uint64_t sample;		/* the part's publication number */
	uint32_t state;			/* SKIN_SHM_PART_* */
	const uint8_t *raw;
	const float *values;		/* compensated */
	const uint8_t *flags;		/* SKIN_SHM_TAXEL_* */
	const double *baselines;	/* NULL: none */
	const double *thresholds;	/* NULL: none yet (without add_threshold) */
	const struct skin_contact_record *contacts;
	size_t contact_stride;
	unsigned int n_contacts;
	const uint32_t *contact_taxels;
	unsigned int n_contact_taxels;
};

int view_new(struct view **v, struct server *srv, const struct view_config *cfg);
void view_free(struct view *v);

/* The parts served from now on, in the source's order (the index
 * view_publish_part() takes).  0 or -ENOMEM. */
int view_set_parts(struct view *v, const struct view_part_desc *d, unsigned int n);

/*
 * The layout of the parts set (layout.h): @model skind's (NULL: @why
 * says why there is none), @flags per part a sample's taxel flags or
 * NULL (the kinds of a part the model lacks), @generation the
 * configuration's.  Built, published on /skin/layout and used for the
 * contacts' cop2d.  0 or -errno (the previous layout is kept).
 */
int view_set_layout(struct view *v, const struct skin_model *model,
		    const char *why, const uint8_t *const *flags,
		    uint64_t generation);

/* The source went away: no part is published until the next
 * view_set_parts(), and every channel stays (the source is expected back) */
void view_detach(struct view *v);

/* skind's add_threshold: added to the thresholds of /skin/PART/state */
void view_set_add_threshold(struct view *v, double add_threshold);

/* Publish one sample of part @part (view_set_parts()' index) on its
 * channels.  0, -ENOENT for no such part, -ENOMEM. */
int view_publish_part(struct view *v, unsigned int part,
		      const struct view_sample *s);

/* The cost of encoding, for the log at exit: samples and ns */
void view_encode_cost(const struct view *v, uint64_t *samples, uint64_t *ns);

#endif /* VIEW_VIEW_H */
