/* SPDX-License-Identifier: GPL-2.0 */
/*
 * service.h - a bridge as a systemd service: its event loop, its stop
 * signals, its readiness and its watchdog
 *
 * Every process on skind's outputs (skin-yarp, skin-ros2-bridge) runs one
 * sd-event loop the same way: SIGTERM and SIGINT end it, READY=1 when it
 * serves, WATCHDOG=1 from the loop itself at half the unit's WatchdogSec=
 * (sd_event_set_watchdog(3): a loop that stops turning is restarted by
 * systemd), STOPPING=1 on the way out.  Outside systemd the notifications
 * go nowhere and cost nothing.
 *
 * Ownership: service_init() hands out the loop (sd_event_default()); the
 * caller unrefs it.  Errors: negative errno.  Threads: the loop's thread.
 */
#ifndef SKIN_BRIDGE_SERVICE_H
#define SKIN_BRIDGE_SERVICE_H

#include <stdbool.h>

#include <systemd/sd-event.h>

/* The loop, with SIGTERM and SIGINT blocked and watched, SIGPIPE ignored,
 * the watchdog on. */
int service_init(sd_event **e);

/* READY=1, and STATUS= set to @status (NULL: none). */
void service_ready(const char *status);

/* Run @e until a stop signal, or until something calls sd_event_exit():
 * 0 after a signal, else the exit code given to sd_event_exit(), or the
 * loop's -errno.  STOPPING=1 is sent before it returns. */
int service_run(sd_event *e);

/* service_run() when another library owns the waiting (libwebsockets:
 * its poll() watches its sockets and sd_event_get_fd(@e), which the
 * caller gave it): every source of @e that is due runs, then @wait(@data)
 * waits for the next thing to do and does what is its own; again until
 * a stop.  @wait returns 0, or -errno to end the loop. */
int service_run_beside(sd_event *e, int (*wait)(void *data), void *data);

/* Whether a stop signal came (a bridge's clean-up may run the loop again
 * for a bounded time after service_run(), with sd_event_run()). */
bool service_stopping(void);

#endif /* SKIN_BRIDGE_SERVICE_H */
