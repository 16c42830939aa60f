/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin.h - the skin a configuration describes, built and replaced whole
 * (skin.c)
 *
 * Owns the lifetime of struct skind_skin and everything in it (skind.h):
 * skind_skin_build() allocates every part's arrays, its flattening, the
 * processing (pipeline.h) and the shm object (shm.h), so that nothing is
 * allocated again until the next build; skind_skin_free() frees one that
 * nothing reads any more.  main.c's reload swaps a new skin in only when
 * all of it built; it, not this module, detaches the old one's readers
 * (input.c, the server), so that this module calls only those below it
 * (pipeline.h, shm.h, evdev.h).  Start-up and SIGHUP only: nothing here
 * runs on the real-time path.
 */
#ifndef SKIND_SKIN_H
#define SKIND_SKIN_H

#include <stdbool.h>

#include "skind.h"

/* runtime false: the configuration and the patches only (skind
 * --create-patches); no processing, no shm. */
struct skind_skin *skind_skin_build(struct skind *d, bool runtime,
				    struct skin_error *err);
void skind_skin_free(struct skind_skin *s);
/* The part named @name, or NULL; @s may be NULL. */
struct skind_part *skind_skin_part(struct skind_skin *s, const char *name);

#endif
