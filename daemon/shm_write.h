/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shm_write.h - the shared memory object, the writer's side (shm_write.c)
 *
 * The reader's contract is include/skin/shm.h.  Owns the object of a skin
 * (struct skind_skin's shm_* fields: its file, its mapping, the
 * read-only descriptor the socket hands out) and each part's block in it
 * (struct skind_part's shm* pointers).  shm_publish_part() [RT] copies
 * the part's snapshot (raw, values, flags, contacts, contact_taxels and
 * the counters) into its block under the part's seqlock; the others run
 * at start-up, reload, stop and from the heartbeat timer.
 */
#ifndef SKIND_SHM_H
#define SKIND_SHM_H

#include <stdbool.h>

#include "skind.h"

int shm_create(struct skind *d, struct skind_skin *s, struct skin_error *err);
/* [RT] the part's snapshot into its block */
void shm_publish_part(struct skind_part *p);
void shm_heartbeat(struct skind_skin *s);
void shm_retire(struct skind_skin *s, bool unlink_name);

#endif
