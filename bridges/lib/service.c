// SPDX-License-Identifier: GPL-2.0
/*
 * service.c - a bridge as a systemd service (service.h)
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <systemd/sd-daemon.h>

#include "service.h"

static bool stopping;

static int on_stop_signal(sd_event_source *s, const struct signalfd_siginfo *si,
			  void *data)
{
	(void)s;
	(void)si;
	(void)data;
	stopping = true;
	return 0;
}

int service_init(sd_event **ep)
{
	sd_event *e = NULL;
	sigset_t ss;
	int r;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		return -errno;
	r = sd_event_default(&e);
	if (r >= 0)
		r = sd_event_add_signal(e, NULL, SIGTERM, on_stop_signal, NULL);
	if (r >= 0)
		r = sd_event_add_signal(e, NULL, SIGINT, on_stop_signal, NULL);
	if (r >= 0)
		r = sd_event_set_watchdog(e, true);
	if (r < 0) {
		sd_event_unref(e);
		return r;
	}
	*ep = e;
	return 0;
}

void service_ready(const char *status)
{
	if (status)
		sd_notifyf(0, "READY=1\nSTATUS=%s", status);
	else
		sd_notify(0, "READY=1");
}

/* The end of a run: STOPPING=1, and what the run returns */
static int run_end(sd_event *e, int r)
{
	sd_notify(0, "STOPPING=1");
	if (stopping)
		return 0;
	if (r >= 0 && sd_event_get_exit_code(e, &r) < 0)
		r = 0;
	return r;
}

int service_run(sd_event *e)
{
	int r = 0;

	/* sd_event_run() rather than sd_event_loop(): after a signal the
	 * loop must still be able to run, for what a bridge says on its way
	 * out (skin-yarp's unregistrations) */
	while (!stopping && r >= 0 && sd_event_get_state(e) != SD_EVENT_FINISHED)
		r = sd_event_run(e, UINT64_MAX);
	return run_end(e, r);
}

int service_run_beside(sd_event *e, int (*wait)(void *data), void *data)
{
	int r = 0;

	while (!stopping && r >= 0 && sd_event_get_state(e) != SD_EVENT_FINISHED) {
		/* sd_event_get_fd(3)'s steps, without waiting: all that is
		 * due runs first (a timer whose descriptor the last
		 * sd_event_wait() read would not wake the poll again) */
		r = sd_event_prepare(e);
		if (r == 0)
			r = sd_event_wait(e, 0);
		if (r > 0) {
			r = sd_event_dispatch(e);
			continue;
		}
		if (r == 0)
			r = wait(data);
	}
	return run_end(e, r);
}

bool service_stopping(void)
{
	return stopping;
}
