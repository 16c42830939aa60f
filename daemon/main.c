// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - skind: the event loop, signals, systemd notification
 *
 * SIGTERM / SIGINT: leave the loop, tell the clients nothing more will
 * come (their sockets close after what was queued), mark the shm object
 * retired and remove its name, exit 0.  SIGHUP: reload skind.conf
 * without dropping clients (reload()).  With $NOTIFY_SOCKET, systemd hears
 * READY=1 once everything listens, RELOADING=1 / READY=1 around a reload,
 * STATUS= whenever the summary changes, STOPPING=1, and WATCHDOG=1 from
 * sd-event at half the unit's WatchdogSec= (sd_event_set_watchdog).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "bus.h"
#include "skin_clock.h"
#include "configfs.h"
#include "evdev.h"
#include "fanout.h"
#include "input.h"
#include "log.h"
#include "options.h"
#include "pipeline.h"
#include "server.h"
#include "shm_write.h"
#include "skin.h"
#include "status.h"

#define STATUS_PERIOD_US	1000000ull

/*
 * SIGHUP: the new configuration replaces the old one only when all of it
 * builds.  Clients stay connected; their subscriptions follow their parts
 * by name (server_skin_replaced()).
 */
static int reload(struct skind *d)
{
	struct skind_skin *s, *old;
	struct skin_error err;
	unsigned int i;

	log_notice("reloading %s", d->opt.config_path);
	s = skind_skin_build(d, true, &err);
	if (!s) {
		log_err("reload: %s; keeping the running configuration",
			err.text);
		return -1;
	}
	old = d->skin;
	input_detach_skin(old);
	/* the new object takes the name; the old one says it was replaced */
	d->skin = s;
	d->generation = s->generation;
	shm_retire(old, false);
	pipeline_start(s);
	for (i = 0; i < s->n_parts && d->opt.evdev; i++)
		evdev_create(&s->parts[i]);
	server_skin_replaced(d);
	skind_skin_free(old);
	if (d->opt.create_patches)
		configfs_create_patches(&d->opt, s);
	input_attach_all(d);
	bus_configure(d);
	log_notice("reloaded: %u parts, %u patches", s->n_parts, s->n_patches);
	return 0;
}

/*
 * The fan-out's one consumer (fanout.h): a calibration's end to the client
 * that asked, the part's publication to the subscribers and to evdev.
 */
static void on_published(struct skind *d, struct skind_part *p, unsigned int told)
{
	if (told)
		server_calibration_done(d, p, told);
	server_fanout_part(d, p);
	evdev_update(p);
}

static int on_status(sd_event_source *s, uint64_t usec, void *data)
{
	struct skind *d = data;

	status_update(d);
	input_check_silent(d);
	/* the kernel announces no change of a CAN error state: ask */
	bus_refresh(d);
	/* what the real-time path only counted */
	if (d->rt_overloads != d->rt_overloads_logged) {
		log_warn("input overloaded: paused %llu times in the last second so that clients are served (%llu in all); frames waited in the rings",
			 (unsigned long long)(d->rt_overloads - d->rt_overloads_logged),
			 (unsigned long long)d->rt_overloads);
		d->rt_overloads_logged = d->rt_overloads;
	}
	sd_event_source_set_time(s, usec + STATUS_PERIOD_US);
	return 0;
}

static int on_heartbeat(sd_event_source *s, uint64_t usec, void *data)
{
	struct skind *d = data;

	shm_heartbeat(d->skin);
	sd_event_source_set_time(s, usec + SKIND_HEARTBEAT_MS * 1000ull);
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si,
		     void *data)
{
	struct skind *d = data;

	(void)s;
	if (si->ssi_signo == SIGHUP) {
		sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
			   (unsigned long long)(clock_monotonic_ns() / 1000));
		reload(d);
		status_resend(d);
		sd_notify(0, "READY=1");
		return 0;
	}
	log_notice("%s: stopping", strsignal((int)si->ssi_signo));
	sd_notify(0, "STOPPING=1");
	return sd_event_exit(d->event, 0);
}

static int setup_signals(struct skind *d)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	sigset_t mask;
	unsigned int i;
	int r;

	sigemptyset(&mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&mask, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		r = sd_event_add_signal(d->event, NULL, sigs[i], on_signal, d);
		if (r < 0)
			return r;
	}
	/* a client that vanishes mid-send must not kill us */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int setup_only(struct skind *d)
{
	struct skin_error err;
	struct skind_skin *s = skind_skin_build(d, false, &err);
	int r;

	if (!s) {
		log_err("%s", err.text);
		return 1;
	}
	r = configfs_create_patches(&d->opt, s);
	skind_skin_free(s);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct skind d = { .bus_fd = -1 };
	struct skin_error err;
	int r, ret = 1;

	if (options_parse(&d.opt, argc, argv) < 0)
		return 2;
	log_init("skind", d.opt.log_level, d.opt.log_prefix);
	if (d.opt.setup_only)
		return setup_only(&d);

	if (d.opt.mlock && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		log_warn("mlockall: %s; running without locked memory (LimitMEMLOCK=, CAP_IPC_LOCK)",
			 strerror(errno));
	r = sd_event_default(&d.event);
	if (r < 0) {
		log_err("sd_event_default: %s", strerror(-r));
		return 1;
	}
	r = setup_signals(&d);
	if (r < 0) {
		log_err("signals: %s", strerror(-r));
		goto out;
	}
	sd_event_set_watchdog(d.event, true);
	d.start_ns = clock_monotonic_ns();
	d.status_changed = status_update;
	/* skin_shm_header.instance: (instance, generation) never repeats */
	while (!d.instance)
		if (getrandom(&d.instance, sizeof(d.instance), GRND_NONBLOCK) != sizeof(d.instance))
			d.instance = clock_monotonic_ns() ^ ((uint64_t)getpid() << 32);

	d.skin = skind_skin_build(&d, true, &err);
	if (!d.skin) {
		log_err("%s", err.text);
		goto out;
	}
	d.generation = d.skin->generation;
	if (d.opt.create_patches)
		configfs_create_patches(&d.opt, d.skin);
	pipeline_start(d.skin);
	if (d.opt.evdev) {
		unsigned int i;

		for (i = 0; i < d.skin->n_parts; i++)
			if (evdev_create(&d.skin->parts[i]) == -ENOENT)
				break;	/* no /dev/uinput: said once */
	}
	r = pipeline_events_init(&d);
	if (r >= 0)
		r = fanout_init(&d, on_published);
	if (r >= 0)
		r = server_start(&d);
	if (r < 0) {
		log_err("cannot serve: %s", strerror(-r));
		goto out;
	}
	r = input_start(&d);
	if (r < 0) {
		log_err("input: %s", strerror(-r));
		goto out;
	}
	r = bus_start(&d);
	if (r < 0) {
		log_err("buses: %s", strerror(-r));
		goto out;
	}
	r = sd_event_add_time_relative(d.event, &d.status_timer, CLOCK_MONOTONIC,
				       STATUS_PERIOD_US, 0, on_status, d.skin ? &d : NULL);
	if (r >= 0) {
		sd_event_source_set_priority(d.status_timer, SKIND_PRIO_HOUSEKEEPING);
		sd_event_source_set_enabled(d.status_timer, SD_EVENT_ON);
	}
	r = sd_event_add_time_relative(d.event, &d.heartbeat, CLOCK_MONOTONIC,
				       SKIND_HEARTBEAT_MS * 1000ull, 1000, on_heartbeat, &d);
	if (r >= 0) {
		sd_event_source_set_priority(d.heartbeat, SKIND_PRIO_HOUSEKEEPING);
		sd_event_source_set_enabled(d.heartbeat, SD_EVENT_ON);
	} else {
		log_warn("heartbeat timer: %s; shm readers will take skind for hung",
			 strerror(-r));
	}
	status_update(&d);
	log_notice("ready: %u parts, %u patches, config %s, rings in %s",
		   d.skin->n_parts, d.skin->n_patches, d.opt.config_path,
		   d.opt.ring_dir);
	sd_notify(0, "READY=1");

	r = sd_event_loop(d.event);
	ret = r < 0 ? 1 : 0;
	if (r < 0)
		log_err("event loop: %s", strerror(-r));
out:
	input_stop(&d);
	bus_stop(&d);
	/* retired before the sockets close: a client that sees its socket
	 * close then finds the object retired, and takes it for a stop, not
	 * a crash (skin/follow.h's -ESTALE, not -ECONNRESET) */
	if (d.skin)
		shm_retire(d.skin, true);
	server_stop(&d);
	d.status_timer = sd_event_source_disable_unref(d.status_timer);
	d.heartbeat = sd_event_source_disable_unref(d.heartbeat);
	d.fanout = sd_event_source_disable_unref(d.fanout);
	d.events = sd_event_source_disable_unref(d.events);
	if (d.skin) {
		input_detach_skin(d.skin);
		skind_skin_free(d.skin);
	}
	sd_event_unref(d.event);
	return ret;
}
