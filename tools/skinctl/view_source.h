/* SPDX-License-Identifier: GPL-2.0 */
/*
 * view_source.h - where `skinctl view` and `snapshot` get their frames
 *
 * Two sources behind one interface: skind's shared memory (view_shm.c:
 * the newest publication of the part, following a skind that stops,
 * hangs or restarts) and a candump log processed as `skinctl process`
 * does (view_log.c: the part's Nth output sample, then, live, the log at
 * its own pace).  The caller draws source->frame with render.c.
 *
 *	struct view_source *s = view_shm_open(&o);	(or view_log_open)
 *	r = s->ops->first(s, sample, still);
 *	while (live) r = s->ops->update(s);
 *	s->ops->close(s);
 *
 * Ownership: a source owns its model, its frame's arrays and itself
 * (close frees all).  Errors: said on stderr with the program's name, or,
 * while the terminal is the source's (live), kept in err until it is not.
 */
#ifndef SKINCTL_VIEW_SOURCE_H
#define SKINCTL_VIEW_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include <skin/model.h>

#include "render.h"
#include "skin_replay.h"

/* skind's configuration, where the shm source's layout comes from */
#define VIEW_DEFAULT_CONFIG	"/etc/skin/skind.conf"

struct view_source;

/* What the command line says of the source. */
struct view_source_opts {
	const char *who;		/* "skinctl view": message prefix */
	const char *part;
	const char *config;		/* NULL: skind's default (shm) */
	const char *shm;		/* skind's object by name, or NULL */
	const char *socket;		/* skind's socket, or NULL */
	struct skin_replay_opts replay; /* view_log_open() */
};

struct view_source_ops {
	/*
	 * The first frame: a log's output sample @sample (0: its last when
	 * @still, its first otherwise), skind's newest publication.  0, or
	 * -1 said.
	 */
	int (*first)(struct view_source *s, uint64_t sample, bool still);
	/* Live: the frame brought up to date; 1 changed, 0 not, -1 said. */
	int (*update)(struct view_source *s);
	/* The terminal becomes the source's (true) or the shell's again:
	 * messages wait in between. */
	void (*set_live)(struct view_source *s, bool live);
	/* The input had bad parts, said and skipped (the exit status). */
	bool (*rejected)(const struct view_source *s);
	void (*close)(struct view_source *s);
};

struct view_source {
	const struct view_source_ops *ops;
	const char *who;
	const struct skin_model *m;	/* the layout's model */
	unsigned int part;		/* in m */
	unsigned int n;			/* the part's taxels */
	bool live;			/* errors wait in err */
	char err[768];
	/* the frame, in arrays owned here */
	double *values;
	uint8_t *touched;
	struct view_contact *contacts;
	uint32_t *ctaxels;
	unsigned int max_contacts;
	char source_text[600];
	char state[32];
	struct view_frame frame;
	bool have_frame;
};

/* NULL after saying why.  @o must outlive the source. */
struct view_source *view_shm_open(const struct view_source_opts *o);
struct view_source *view_log_open(const struct view_source_opts *o);

/* For the sources: the frame's arrays for s->n taxels (0, or -1 said)
 * and their release; an error, said now or (live) kept in s->err. */
int view_source_frame_alloc(struct view_source *s);
void view_source_frame_free(struct view_source *s);
void view_source_say(struct view_source *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
