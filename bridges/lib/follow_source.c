// SPDX-License-Identifier: GPL-2.0
/*
 * follow_source.c - the follower on sd-event (follow_source.h)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include "follow_source.h"
#include "log.h"

struct follow_source {
	sd_event *e;
	struct skin_follow *f;
	sd_event_source *io, *timer;
	int fd;			/* the descriptor @io watches, or -1 */
	skin_follow_fn fn;
	void *data;
};

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data);

static int rearm(struct follow_source *fs)
{
	int fd = skin_follow_fd(fs->f), ms = skin_follow_timeout_ms(fs->f), r;

	if (fd != fs->fd) {
		fs->io = sd_event_source_disable_unref(fs->io);
		fs->fd = -1;
		if (fd >= 0) {
			r = sd_event_add_io(fs->e, &fs->io, fd, EPOLLIN,
					    on_io, fs);
			if (r < 0)
				return r;
			fs->fd = fd;
		}
	}
	if (ms < 0)
		return sd_event_source_set_enabled(fs->timer, SD_EVENT_OFF);
	r = sd_event_source_set_time_relative(fs->timer, (uint64_t)ms * 1000);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(fs->timer, SD_EVENT_ONESHOT);
}

static int dispatch(struct follow_source *fs)
{
	int r = skin_follow_dispatch(fs->f, fs->fn, fs->data);

	if (r >= 0)
		r = rearm(fs);
	if (r < 0) {
		log_err("following skind: %s", strerror(-r));
		return sd_event_exit(fs->e, 1);
	}
	return 0;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	(void)s;
	(void)fd;
	(void)revents;
	return dispatch(data);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *data)
{
	(void)s;
	(void)usec;
	return dispatch(data);
}

int follow_source_new(struct follow_source **fsp, sd_event *e,
		      const struct skin_follow_options *opts,
		      skin_follow_fn fn, void *data)
{
	struct follow_source *fs = calloc(1, sizeof(*fs));
	int r;

	if (!fs)
		return -ENOMEM;
	fs->e = e;
	fs->fd = -1;
	fs->fn = fn;
	fs->data = data;
	r = sd_event_add_time_relative(e, &fs->timer, CLOCK_MONOTONIC, 0, 0,
				       on_timer, fs);
	if (r >= 0)
		r = skin_follow_new(&fs->f, opts);
	if (r >= 0)
		r = rearm(fs);
	if (r < 0) {
		follow_source_free(fs);
		return r;
	}
	*fsp = fs;
	return 0;
}

void follow_source_free(struct follow_source *fs)
{
	if (!fs)
		return;
	sd_event_source_disable_unref(fs->io);
	sd_event_source_disable_unref(fs->timer);
	skin_follow_free(fs->f);
	free(fs);
}

struct skin_follow *follow_source_follower(const struct follow_source *fs)
{
	return fs->f;
}
