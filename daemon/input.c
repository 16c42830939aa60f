// SPDX-License-Identifier: GPL-2.0
/*
 * input.c - the patches' rings: attaching, draining, re-attaching
 *
 * Every entry of the ring directory (/dev/skin, or a directory of ring
 * files) is matched to a configured patch by the identity in its control
 * page (interface and board address), not by its name, so the same code
 * reads the driver's devices and skinsim's ring files.
 *
 *  - A device is drained when it polls readable (an io source at the
 *    real-time priority).  POLLHUP: the patch was disabled or removed;
 *    detach, and attach again when it reappears.  POLLERR: its CAN
 *    interface is gone; epoll would report that on every wait, so the
 *    source sleeps and the next rescan wakes it.
 *  - A ring file always polls readable, so it is drained on a timer at the
 *    board's period (docs/SIMULATOR.md); a file replaced under its name (a
 *    new inode) or removed is detached and the new one attached.
 *
 * Missing patches are looked for when the directory changes (inotify) and
 * once a second; a missing directory is looked for once a second too, but
 * said with a back-off.  A board whose attached ring gets no frame is
 * named silent once (input_check_silent(), from the status timer).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus.h"
#include "skin_clock.h"
#include "input.h"
#include "log.h"
#include "pipeline.h"

#define RESCAN_NS	1000000000ull
#define SILENT_NS	1000000000ull	/* no frame for 1 s: silent */
#define DIR_SAY_FIRST_NS	10000000000ull	/* 10 s */
#define DIR_SAY_MAX_NS		600000000000ull	/* 10 min */

/*
 * At most a ring's worth per wakeup, and at most the patch's budget per
 * window (SKIND_WINDOW_NS): a writer faster than that must not keep us
 * here (the rest of the loop would starve).  Frames over the budget are
 * skipped, newest kept, and counted (pt->skipped; they are lost frames to
 * the part).
 */
static void rt_pause(struct skind *d, uint64_t now);

static void drain(struct skind_patch *pt)
{
	unsigned int n = pt->ring.ctrl->frame_count;
	struct skind *d = pt->part->d;
	uint64_t now = clock_monotonic_ns(), end;
	struct skin_frame f;

	if (now - pt->window_start_ns >= SKIND_WINDOW_NS) {
		pt->window_start_ns = now;
		pt->window_frames = 0;
	}
	if (n > pt->budget - pt->window_frames)
		n = pt->budget - pt->window_frames;
	while (n && skin_ring_map_next(&pt->ring, &f)) {
		pipeline_frame(pt, &f);
		pt->window_frames++;
		n--;
	}
	if (!n) {
		uint64_t head = skin_ring_map_head(&pt->ring);

		if (head >= pt->ring.next) {
			pt->skipped += head + 1 - pt->ring.next;
			pt->ring.lost += head + 1 - pt->ring.next;
			pt->ring.next = head + 1;
		}
	}
	if (pt->ring.lost != pt->lost) {
		pt->part->lost += pt->ring.lost - pt->lost;
		pt->lost = pt->ring.lost;
	}
	/* the whole path's share of the window */
	end = clock_monotonic_ns();
	if (now - d->rt_window_start >= SKIND_WINDOW_NS) {
		d->rt_window_start = now;
		d->rt_busy_ns = 0;
	}
	d->rt_busy_ns += end - now;
	if (d->rt_busy_ns > SKIND_RT_SHARE_NS)
		rt_pause(d, end);
}

static void set_sources(struct skind *d, int on)
{
	struct skind_skin *s = d->skin;
	unsigned int i, k;

	for (i = 0; s && i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++)
			if (s->parts[i].patches[k].attached)
				sd_event_source_set_enabled(s->parts[i].patches[k].source,
							    on);
}

static int on_rt_resume(sd_event_source *s, uint64_t usec, void *data)
{
	struct skind *d = data;

	(void)s;
	(void)usec;
	d->rt_resume = sd_event_source_disable_unref(d->rt_resume);
	d->rt_paused = false;
	d->rt_window_start = clock_monotonic_ns();
	d->rt_busy_ns = 0;
	set_sources(d, SD_EVENT_ON);
	return 0;
}

/*
 * Overloaded: the input stops until the window ends, its rings fill (and
 * are counted lost if lapped), the loop serves everything else meanwhile.
 */
static void rt_pause(struct skind *d, uint64_t now)
{
	uint64_t left = SKIND_WINDOW_NS - SKIND_RT_SHARE_NS;

	if (d->rt_paused)
		return;
	/* the rest of the window, and at least the others' share of one */
	if (d->rt_window_start + SKIND_WINDOW_NS > now + left)
		left = d->rt_window_start + SKIND_WINDOW_NS - now;
	/* from the real now: sd-event's cached one is the start of this
	 * iteration, which a long drain has left behind */
	if (sd_event_add_time(d->event, &d->rt_resume, CLOCK_MONOTONIC,
			      (now + left) / 1000 + 1, 1, on_rt_resume, d) < 0)
		return;
	sd_event_source_set_priority(d->rt_resume, SKIND_PRIO_RT);
	d->rt_paused = true;
	d->rt_overloads++;
	set_sources(d, SD_EVENT_OFF);
}

static void detach(struct skind_patch *pt, const char *why)
{
	if (!pt->attached)
		return;
	pt->source = sd_event_source_disable_unref(pt->source);
	skin_ring_map_close(&pt->ring);
	pt->attached = false;
	pt->silent = false;	/* "detached" says more */
	pt->part->attached--;
	log_field(LOG_NOTICE, "PATCH", pt->name, "%s: patch %s (%s:%d) detached: %s",
		  pt->part->name, pt->name, pt->ifname, pt->address, why);
	pipeline_part_attached(pt->part);
}

static int on_device(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct skind_patch *pt = data;

	(void)fd;
	if (revents & EPOLLIN)
		drain(pt);
	if (revents & EPOLLHUP) {
		drain(pt);
		detach(pt, "the patch was disabled or removed");
		return 0;
	}
	if (revents & EPOLLERR)	/* interface gone: rescan wakes us again */
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	return 0;
}

static int on_file_timer(sd_event_source *s, uint64_t usec, void *data)
{
	struct skind_patch *pt = data;

	uint64_t next = usec + pt->period_ns / 1000, now;

	drain(pt);
	/* late (overloaded): skip the ticks we missed rather than catch up */
	now = clock_monotonic_ns() / 1000;
	if (next <= now)
		next = now + pt->period_ns / 1000;
	sd_event_source_set_time(s, next);
	return 0;
}

static struct skind_patch *match(struct skind_skin *s,
				 const struct skin_ring_ctrl *ctrl)
{
	unsigned int i, k;

	for (i = 0; i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			struct skind_patch *pt = &s->parts[i].patches[k];

			if (!pt->attached && pt->address == ctrl->address &&
			    !strncmp(pt->ifname, ctrl->ifname, sizeof(ctrl->ifname)))
				return pt;
		}
	return NULL;
}

static bool known(struct skind_skin *s, const struct stat *st)
{
	unsigned int i, k;

	for (i = 0; i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			struct skind_patch *pt = &s->parts[i].patches[k];

			if (pt->attached && pt->dev == st->st_dev &&
			    pt->ino == st->st_ino)
				return true;
		}
	return false;
}

static void try_attach(struct skind *d, const char *path, const struct stat *st)
{
	struct skind_skin *s = d->skin;
	struct skin_ring_map m;
	struct skind_patch *pt;
	int r;

	r = skin_ring_map_open(&m, path);
	if (r < 0) {
		log_debug("%s: not attached: %s", path,
			  r == -EPROTO ? "not a skin ring" : strerror(-r));
		return;
	}
	pt = match(s, m.ctrl);
	if (!pt) {
		log_debug("%s: %.16s:%u is not a configured patch", path,
			  m.ctrl->ifname, m.ctrl->address);
		skin_ring_map_close(&m);
		return;
	}
	pt->ring = m;
	pt->is_file = S_ISREG(st->st_mode);
	pt->dev = st->st_dev;
	pt->ino = st->st_ino;
	snprintf(pt->path, sizeof(pt->path), "%s", path);
	pt->period_ns = (uint64_t)(m.ctrl->period_ms ? m.ctrl->period_ms : 1) * 1000000ull;
	/* accuracy 1 us: sd-event's default (0) would batch us by 250 ms */
	if (pt->is_file)
		r = sd_event_add_time_relative(d->event, &pt->source, CLOCK_MONOTONIC,
					       pt->period_ns / 1000, 1,
					       on_file_timer, pt);
	else
		r = sd_event_add_io(d->event, &pt->source, m.fd, EPOLLIN,
				    on_device, pt);
	if (r >= 0)
		r = sd_event_source_set_priority(pt->source, SKIND_PRIO_RT);
	/* four times the board's rate, and room for a burst */
	pt->budget = (unsigned int)(4 * SKIND_WINDOW_NS / pt->period_ns) + 16;
	pt->window_start_ns = 0;
	/* a device that never stops being readable must not starve the loop */
	if (r >= 0 && !pt->is_file)
		r = sd_event_source_set_ratelimit(pt->source, SKIND_WINDOW_NS / 1000,
						  pt->budget);
	if (r >= 0 && pt->is_file)
		r = sd_event_source_set_enabled(pt->source, SD_EVENT_ON);
	if (r >= 0 && d->rt_paused)
		r = sd_event_source_set_enabled(pt->source, SD_EVENT_OFF);
	if (r < 0) {
		log_err("%s: cannot watch: %s", path, strerror(-r));
		pt->source = sd_event_source_disable_unref(pt->source);
		skin_ring_map_close(&pt->ring);
		return;
	}
	sd_event_source_set_description(pt->source, pt->name);
	pt->attached = true;
	pt->attaches++;
	pt->heard_frames = pt->frames;
	pt->heard_ns = clock_monotonic_ns();
	pt->lost = pt->ring.lost;
	pt->part->attached++;
	log_field(LOG_INFO, "PATCH", pt->name,
		  "%s: patch %s:%d attached from %s (%s, %u frames, period %u ms)",
		  pt->part->name, pt->ifname, pt->address, path,
		  pt->is_file ? "ring file" : "device", m.ctrl->frame_count,
		  m.ctrl->period_ms);
	pipeline_part_attached(pt->part);
	drain(pt);
}

/* Detach what went away or was replaced; wake devices put to sleep. */
static void check_attached(struct skind_skin *s)
{
	unsigned int i, k;
	struct stat st;

	for (i = 0; i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			struct skind_patch *pt = &s->parts[i].patches[k];

			if (!pt->attached)
				continue;
			if (stat(pt->path, &st) < 0 || st.st_ino != pt->ino ||
			    st.st_dev != pt->dev) {
				detach(pt, "its ring was removed or replaced");
				continue;
			}
			if (!pt->is_file && !s->d->rt_paused) {
				int on = 0;

				sd_event_source_get_enabled(pt->source, &on);
				if (!on)
					sd_event_source_set_enabled(pt->source, SD_EVENT_ON);
			} else if (skin_ring_map_head(&pt->ring) + 1 < pt->ring.next) {
				/* the writer started over in the same file */
				pt->ring.next = skin_ring_map_head(&pt->ring) + 1;
			}
		}
}

void input_attach_all(struct skind *d)
{
	struct skind_skin *s = d->skin;
	struct dirent *de;
	unsigned int attached = 0, i;
	DIR *dir;

	if (!s)
		return;
	check_attached(s);
	for (i = 0; i < s->n_parts; i++)
		attached += s->parts[i].attached;
	if (attached == s->n_patches)
		return;
	dir = opendir(d->opt.ring_dir);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		char path[512];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", d->opt.ring_dir, de->d_name);
		if (stat(path, &st) < 0 || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		if (known(s, &st))
			continue;
		try_attach(d, path, &st);
	}
	closedir(dir);
	if (d->status_changed)
		d->status_changed(d);
}

/*
 * A board is silent when its attached ring got no frame for a second (or
 * four of its periods, if longer): its bus is down or at another bitrate,
 * the board is unpowered or unplugged.  Said once, by board, address and
 * bus, and again when it is heard again.
 */
void input_check_silent(struct skind *d)
{
	struct skind_skin *s = d->skin;
	uint64_t now = clock_monotonic_ns();
	unsigned int i, k;

	for (i = 0; s && i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			struct skind_patch *pt = &s->parts[i].patches[k];
			uint64_t quiet = 4 * pt->period_ns;
			unsigned int id;
			const struct skind_bus *b;
			char why[64] = "", buf[32];
			const char *t;

			if (!pt->attached)
				continue;
			id = (unsigned int)pt->ring.ctrl->cls << 8 |
			     (unsigned int)pt->address << 4;
			if (pt->frames != pt->heard_frames) {
				if (pt->silent)
					log_field(LOG_NOTICE, "PATCH", pt->name,
						  "board %d (0x%03x) on %s is heard again after %.1f s: %s gets its frames",
						  pt->address, id, pt->ifname,
						  (double)(now - pt->heard_ns) / 1e9,
						  s->parts[i].name);
				pt->heard_frames = pt->frames;
				pt->heard_ns = now;
				pt->silent = false;
				continue;
			}
			if (quiet < SILENT_NS)
				quiet = SILENT_NS;
			if (pt->silent || now - pt->heard_ns < quiet)
				continue;
			pt->silent = true;
			b = bus_find(d, pt->ifname);
			t = b ? bus_trouble(b, buf, sizeof(buf)) : NULL;
			if (t)
				snprintf(why, sizeof(why), " (bus %s: %s)", pt->ifname, t);
			log_field(LOG_WARNING, "PATCH", pt->name,
				  "board %d (0x%03x) on %s is silent: %s has had no frame from it for %.1f s%s",
				  pt->address, id, pt->ifname, s->parts[i].name,
				  (double)(now - pt->heard_ns) / 1e9, why);
		}
}

void input_detach_skin(struct skind_skin *s)
{
	unsigned int i, k;

	if (!s || !s->parts)
		return;
	for (i = 0; i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			struct skind_patch *pt = &s->parts[i].patches[k];

			if (pt->attached) {
				pt->source = sd_event_source_disable_unref(pt->source);
				skin_ring_map_close(&pt->ring);
				pt->attached = false;
				s->parts[i].attached--;
			}
		}
}

static int on_inotify(sd_event_source *s, const struct inotify_event *ev,
		      void *data)
{
	struct skind *d = data;

	(void)s;
	if (ev->mask & IN_IGNORED) {
		/* the directory went away (module unloaded): poll for it */
		d->inotify = sd_event_source_disable_unref(d->inotify);
		return 0;
	}
	input_attach_all(d);
	return 0;
}

/*
 * The ring directory is missing (the module is not loaded, skinsim has not
 * started): said once, then again after 10 s, 20 s, 40 s ... and every
 * 10 minutes at most, while the rescan keeps looking every second, so it
 * is found at once and the journal is not filled meanwhile.
 */
static void dir_missing(struct skind *d, int err)
{
	uint64_t now = clock_monotonic_ns();

	if (!d->ring_dir_missing_ns) {
		d->ring_dir_missing_ns = now;
		d->ring_dir_gap_ns = DIR_SAY_FIRST_NS;
		d->ring_dir_say_ns = now + d->ring_dir_gap_ns;
		log_warn("%s: %s: the skin module is not loaded (modprobe skin), or the ring files are not written yet; looking for it every second",
			 d->opt.ring_dir, strerror(err));
		return;
	}
	if (now < d->ring_dir_say_ns)
		return;
	log_warn("%s: still missing after %llu s (the skin module is not loaded?)",
		 d->opt.ring_dir,
		 (unsigned long long)((now - d->ring_dir_missing_ns) / 1000000000ull));
	d->ring_dir_gap_ns *= 2;
	if (d->ring_dir_gap_ns > DIR_SAY_MAX_NS)
		d->ring_dir_gap_ns = DIR_SAY_MAX_NS;
	d->ring_dir_say_ns = now + d->ring_dir_gap_ns;
}

/* Watch the ring directory; 0, or its error (said, as dir_missing() says). */
static int watch_dir(struct skind *d)
{
	int r;

	r = sd_event_add_inotify(d->event, &d->inotify, d->opt.ring_dir,
				 IN_CREATE | IN_ATTRIB | IN_MOVED_TO | IN_CLOSE_WRITE |
				 IN_ONLYDIR, on_inotify, d);
	if (r < 0) {
		d->inotify = NULL;
		dir_missing(d, -r);
		return r;
	}
	sd_event_source_set_priority(d->inotify, SKIND_PRIO_HOUSEKEEPING);
	if (d->ring_dir_missing_ns) {
		log_notice("%s: found after %llu s", d->opt.ring_dir,
			   (unsigned long long)((clock_monotonic_ns() -
						 d->ring_dir_missing_ns) / 1000000000ull));
		d->ring_dir_missing_ns = 0;
	}
	return 0;
}

static int on_rescan(sd_event_source *s, uint64_t usec, void *data)
{
	struct skind *d = data;

	/* the directory may exist now (module loaded, skinsim started) */
	if (!d->inotify)
		watch_dir(d);
	input_attach_all(d);
	sd_event_source_set_time(s, usec + RESCAN_NS / 1000);
	sd_event_source_set_enabled(s, SD_EVENT_ON);
	return 0;
}

int input_start(struct skind *d)
{
	int r;

	watch_dir(d);
	r = sd_event_add_time_relative(d->event, &d->rescan, CLOCK_MONOTONIC,
				       RESCAN_NS / 1000, 0, on_rescan, d);
	if (r < 0)
		return r;
	sd_event_source_set_priority(d->rescan, SKIND_PRIO_HOUSEKEEPING);
	input_attach_all(d);
	return 0;
}

void input_stop(struct skind *d)
{
	d->rt_resume = sd_event_source_disable_unref(d->rt_resume);
	d->rt_paused = false;
	d->inotify = sd_event_source_disable_unref(d->inotify);
	d->rescan = sd_event_source_disable_unref(d->rescan);
}
