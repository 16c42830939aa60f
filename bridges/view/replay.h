/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h - skin-view --replay: a recording served as skind would serve it
 *
 * A candump -l log (or an ETH capture of the boards named, read as
 * skin-eth --replay reads it) runs through skind's processing as `skinctl process`
 * runs it (lib/replay: the driver's assembly core, lib/proc's
 * calibration on the log's start, contacts), and each part's output
 * sample is published on the live channels through view.h's one path
 * (/skin/layout, /skin/PART/values, raw, contacts, state, with the
 * processor's touch and fault flags, baselines and thresholds) at the
 * recording's pace times the speed, stamped with the recording's time.
 * There is no /skin/health: no skind, no driver; a taxel's faults are
 * its flags in /skin/PART/state.  Beside them /skin/replay (json
 * skin.Replay) says where the replay is, a few times a second and on
 * every change, and the service /skin/replay moves it:
 *
 *	{"op": "play"}  {"op": "pause"}  {"op": "seek", "t_s": 12.5}
 *	{"op": "speed", "speed": 2}          (0.1 .. 10)
 *
 * A seek backwards processes the log again from its start (a processor
 * has no way back: its calibration and filters are the log's history)
 * without publishing, as fast as it goes, up to t; forwards, it
 * processes without publishing up to t; both in batches between which
 * the loop serves its clients.  Then every part's newest state
 * is published at once.  At the end of the log the replay pauses; play
 * then starts it over.
 *
 * Ownership: replay_new()'s object, freed by replay_free().  Errors:
 * negative errno, said in the log.  Threads: the loop's.
 */
#ifndef VIEW_REPLAY_H
#define VIEW_REPLAY_H

#include <stddef.h>

#include <systemd/sd-event.h>

#include "fox.h"
#include "server.h"
#include "view.h"

#define REPLAY_SPEED_MIN	0.1
#define REPLAY_SPEED_MAX	10.0

struct view_replay;

/* @view: where the parts are published (view.h; its parts and layout
 * are set here, from @config's model); @config: skind.conf; @log: the
 * candump -l log, or with @n_boards ETH boards (skin-eth's --board specs)
 * their capture; playing from its start */
int replay_new(struct view_replay **r, sd_event *e, struct server *srv,
	       struct view *view, const char *config, const char *log,
	       char **boards, unsigned int n_boards);
void replay_free(struct view_replay *r);

/* The service, for server_set_services(..., replay_call, r) */
const struct fox_service *replay_services(unsigned int *n);
void replay_call(void *r, const struct server_call *c, const char *payload,
		 size_t len);

#endif /* VIEW_REPLAY_H */
