/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skind.h - the daemon's shared objects: the daemon, the skin, its parts
 * and patches
 *
 * One sd-event loop runs everything (docs/DAEMON.md).  Two kinds of work:
 *
 *  - the real-time path, at SKIND_PRIO_RT: a patch's ring has frames ->
 *    input.c drains it -> pipeline.c processes the part, writes its
 *    snapshot and publishes it (shm_write.c).  No allocation, no blocking I/O,
 *    no logging; it only counts, and marks the part for fan-out.  The
 *    functions it may call are marked [RT] in their module's header.
 *  - everything else, at lower priorities: the pipeline's events and the
 *    fan-out to socket subscribers and evdev (SKIND_PRIO_FANOUT, deferred
 *    sources the real-time path enables), clients (SKIND_PRIO_CLIENT),
 *    housekeeping (re-attaching patches, status, the heartbeat).  Sockets
 *    are non-blocking and every handler does bounded work, so a ring that
 *    becomes readable waits at most one bounded handler.
 *
 * One module per file, one header per module, one name prefix per
 * module; the data goes one way:
 *
 *   input.h -> pipeline.h -> shm.h (and the part's snapshot) -> fanout.h
 *     -> (main.c) -> server.h / protocol.h (the socket), evdev.h
 *
 * with skin.h (build, free), options.h, configfs.h, status.h, bus.h
 * (the CAN buses, rtnetlink), clock.h, log.h and cleanup.h beside it.
 * The calls go one way too, no file calling one that calls it
 * (docs/DAEMON.md has the order): what a module must tell one above it
 * goes through a function main.c, the top, registers (fanout_to,
 * status_changed below).  The only calls against the data's direction
 * are commands about the processing (protocol.c's calibrate, get and
 * set, through pipeline.h).
 *
 * Ownership: struct skind owns the options and one struct skind_skin
 * (the parts, their patches, the processing, the shm object, the evdev
 * devices), which main.c's reload replaces as a whole; the server and
 * its clients (server.h) outlive reloads.  A part's snapshot (raw,
 * values, flags, contacts, contact_taxels, thr, state and the sample's
 * counters and times) is written by pipeline.c only (lost: input.c), and
 * is what every output formats from.
 */
#ifndef SKIND_H
#define SKIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include <skin/flatten.h>
#include <skin/model.h>
#include <skin/ring.h>
#include <skin/shm.h>

#include "options.h"

#define SKIND_VERSION		SKIN_VERSION	/* meson.build's, -D */
#define SKIND_PROTOCOL_VERSION	1
#define SKIND_HEARTBEAT_MS	500	/* skin_shm_header.heartbeat_ms */

#define SKIND_PRIO_RT		SD_EVENT_PRIORITY_IMPORTANT	/* -100 */
#define SKIND_PRIO_FANOUT	(-50)
#define SKIND_PRIO_CLIENT	SD_EVENT_PRIORITY_NORMAL	/* 0 */
#define SKIND_PRIO_HOUSEKEEPING	SD_EVENT_PRIORITY_IDLE		/* 100 */

/*
 * Overload guard: a patch may deliver up to four times its board rate
 * (plus a burst) per window; what comes faster (a flood, a broken board, a
 * simulator flat out) is skipped and counted, so that the real-time path
 * cannot starve the daemon's other work.
 */
#define SKIND_WINDOW_NS		100000000ull	/* 100 ms */
/* ... and the real-time path may take at most this much of a window: the
 * rest is the clients' and housekeeping's, whatever the input does. */
#define SKIND_RT_SHARE_NS	60000000ull	/* 60 ms */

/* Contacts published per part at most (shm, evdev slots). */
#define SKIND_MAX_CONTACTS	64

struct skind;
struct skind_bus;
struct skind_part;
struct skind_evdev;
struct skind_server;

/* One board: a ring to read. */
struct skind_patch {
	struct skind_part *part;
	unsigned int order;		/* place in the part's vector */
	char name[SKIN_NAME_LEN];	/* configfs / device name we create */
	char ifname[SKIN_IFNAME_LEN];
	int address;
	/* the board's own values (skind.conf's [board] and [board BUS:ADDRESS]) */
	struct skin_config_board board;
	bool listen_only;		/* on a tapped bus ([bus] listen_only) */
	unsigned int model_patch;	/* index for skin_proc_feed() */

	/* while attached */
	bool attached;
	bool is_file;			/* a ring file: drained on a timer */
	char path[512];
	dev_t dev;
	ino_t ino;
	struct skin_ring_map ring;
	sd_event_source *source;	/* io (device) or timer (ring file) */
	uint64_t period_ns;		/* ring files: the board period */
	/* overload guard: frames processed in the current window */
	uint64_t window_start_ns;
	unsigned int window_frames;
	unsigned int budget;		/* frames per SKIND_WINDOW_NS */

	/* counters (the real-time path writes, housekeeping reads) */
	uint64_t frames;
	uint64_t lost;			/* frames the ring lapped us by */
	uint64_t partial;
	uint64_t skipped;		/* frames over budget, not processed */
	uint64_t attaches;
	uint64_t last_ts_ns;

	/* silence (input.c, housekeeping): frames and time when it was last
	 * heard; silent once said so */
	uint64_t heard_frames;
	uint64_t heard_ns;
	bool silent;
};

/* The event lines of a part's latest publication, per kind and format:
 * protocol.c's (protocol_event_line()). */
struct skind_line_cache {
	uint64_t sample;		/* publication the lines are of */
	size_t len[3][2];		/* [kind][format] (server.h) */
	char *line[3][2];		/* preallocated, cap bytes each */
	size_t cap[3];			/* [kind] */
};

/* One part of the skin: a data vector fed by its patches. */
struct skind_part {
	struct skind *d;
	struct skind_skin *skin;
	unsigned int index;
	const struct skin_part *mp;	/* in skin->model */
	char name[SKIN_SHM_NAME_LEN];
	unsigned int n_taxels;
	unsigned int n_patches;
	struct skind_patch *patches;
	unsigned int attached;

	/* the taxels on a plane, as skinctl view draws them (skin/flatten.h):
	 * the contacts' flat positions, the evdev axes; x NULL: no geometry */
	struct skin_flattening flat;

	/* the snapshot: the part's latest publication, allocated at build
	 * time, written by pipeline.c only (lost: input.c), and what every
	 * output formats from (shm_write.c, protocol.c, evdev.c) */
	uint8_t *raw;			/* n_taxels */
	float *values;			/* n_taxels: compensated */
	uint8_t *flags;			/* n_taxels: SKIN_SHM_TAXEL_* */
	struct skin_contact_record *contacts; /* SKIND_MAX_CONTACTS */
	uint32_t *contact_taxels;	/* n_taxels */
	/* lib/proc's touch thresholds (counts of v, without add_threshold;
	 * 0 for a slot that is no tactile taxel) as of the last calibration
	 * or taxel recalibration; thr_valid once the part was calibrated */
	double *thr;			/* n_taxels */
	/* lib/proc's baselines at the end of that calibration (its
	 * initial baselines, counts of v; 0 where thr is), copied with thr */
	double *cal_baselines;		/* n_taxels */
	bool thr_valid;
	bool thr_dirty;			/* thr, cal_baselines changed since shm
					 * last had them */
	/* lib/proc's current baselines (skin_proc_baselines(), n_taxels,
	 * the part's slot order): shm copies them at every publication */
	const double *proc_baselines;
	unsigned int n_contacts;
	unsigned int n_contact_taxels;
	uint64_t contacts_cut;		/* contacts beyond SKIND_MAX_CONTACTS */
	uint32_t state;			/* SKIN_SHM_PART_* */
	uint64_t samples;
	uint64_t frame_ts_ns;
	uint64_t publish_ns;
	uint64_t lost;

	/* shm block (writer's view: shm_write.c) */
	struct skin_shm_part *shm;
	float *shm_values;
	uint8_t *shm_raw;
	uint8_t *shm_flags;
	struct skin_contact_record *shm_contacts;
	uint32_t *shm_contact_taxels;
	double *shm_thresholds;
	double *shm_baselines;
	double *shm_cal_baselines;

	/* for the housekeeping side: what the real-time path saw */
	unsigned int events;		/* SKIN_PROC_EV_* for on_events() */
	unsigned int told;		/* handled: for the fan-out to tell (fanout.c's) */
	char cal_reason[256];		/* the last calibration refused: why */
	uint64_t calibrate_client;	/* client that asked, 0 none (client_io.c's) */

	/* fan-out (fanout.c's) */
	bool dirty;			/* published since the last fan-out */
	struct skind_line_cache cache;
	struct skind_evdev *evdev;
};

/* Everything a configuration describes; a reload builds a new one. */
struct skind_skin {
	struct skind *d;
	uint64_t generation;
	struct skin_config *config;
	struct skin_model *model;
	unsigned int n_parts;
	struct skind_part *parts;
	unsigned int n_patches;		/* over all parts */
	struct skin_proc *proc;		/* every part's processing */
	sd_event_source *cycle;		/* compat mode: skinManager's thread
					 * period, every part processed and
					 * published (pipeline.c); else off */

	/* shm */
	int shm_fd;			/* read-write, ours */
	int shm_ro_fd;			/* read-only, handed to clients */
	void *shm_base;
	size_t shm_size;
	char shm_tmp[600];		/* the name it gets before the rename */
	bool shm_tmp_named;		/* shm_tmp exists (shm_write.c) */
};

struct skind {
	sd_event *event;
	struct skind_options opt;
	struct skind_skin *skin;
	struct skind_server *server;
	uint64_t generation;
	uint64_t instance;		/* random: skin_shm_header.instance */
	uint64_t start_ns;
	/* main.c's, for status.c: called by the modules below it (input.c:
	 * patches attached, bus.c: a bus changed) when the summary may have
	 * changed, so that they need not know who shows it; NULL: nobody */
	void (*status_changed)(struct skind *d);

	sd_event_source *events;	/* deferred: the pipeline's events */
	sd_event_source *fanout;	/* deferred: subscribers and evdev */
	/* main.c's, called by fanout.c for each part published (fanout.h) */
	void (*fanout_to)(struct skind *d, struct skind_part *p, unsigned int told);
	/* overload guard of the real-time path (input.c) */
	uint64_t rt_window_start;
	uint64_t rt_busy_ns;
	uint64_t rt_overloads;		/* windows the input was paused */
	uint64_t rt_overloads_logged;
	bool rt_paused;
	sd_event_source *rt_resume;
	sd_event_source *rescan;	/* timer: attach missing patches */
	sd_event_source *inotify;	/* the ring directory */
	/* the ring directory missing (input.c): since when, and when the
	 * journal hears it again (a back-off, not every rescan) */
	uint64_t ring_dir_missing_ns;
	uint64_t ring_dir_say_ns;
	uint64_t ring_dir_gap_ns;
	/* the CAN buses the patches use (bus.c) */
	struct skind_bus *buses;
	unsigned int n_buses;
	int bus_fd;			/* rtnetlink, -1 none */
	uint32_t bus_seq;		/* first sequence number of our requests */
	sd_event_source *bus_source;
	sd_event_source *status_timer;
	sd_event_source *heartbeat;	/* timer: shm_heartbeat() */
	char last_status[256];		/* status.c's */
};

#endif
