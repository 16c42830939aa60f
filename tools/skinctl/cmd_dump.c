// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl dump - print the frames of a skin device or ring file
 *
 * The reference consumer of the UAPI: by default it maps the ring and
 * waits with poll(); --read reads whole frames with read() instead.  One
 * line per frame:
 *
 *	SEQ TIMESTAMP_NS REFRESHED FLAGS DIAG_VALID VALUES
 *
 * REFRESHED and DIAG_VALID as 4 hex digits, FLAGS by name (or "-"), VALUES
 * the 192 raw values as one string of hex pairs.  Frames lost before a
 * frame are announced on a line of their own: "# lost N".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <skin/ring.h>

#include "skin_clock.h"
#include "skinctl.h"

static void print_frame(const struct skin_frame *f)
{
	static const char *const names[] = {
		"partial", "repeat", "timeout", "diag", "lost",
	};
	char values[2 * SKIN_BOARD_VALUES + 1];
	char flags[64] = "";
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(f->flags & (1U << i)))
			continue;
		if (flags[0])
			strcat(flags, ",");
		strcat(flags, names[i]);
	}
	for (i = 0; i < SKIN_BOARD_VALUES; i++)
		sprintf(&values[2 * i], "%02x", f->values[i]);
	printf("%" PRIu64 " %" PRIu64 " %04x %s %04x %s\n", (uint64_t)f->seq,
	       (uint64_t)f->timestamp_ns, f->refreshed, flags[0] ? flags : "-",
	       f->diag_valid, values);
}

static int64_t now_ms(void)
{
	return (int64_t)(clock_monotonic_ns() / 1000000);
}

/*
 * Wait until the device has a frame, for at most timeout_ms (-1: no
 * limit): 1 ready, 0 timed out (said on stderr), -1 gone or failed.  While
 * the patch's interface is gone (POLLERR, which poll() reports at once)
 * look again every 100 ms: it may come back.
 */
static int wait_frame(int fd, int timeout_ms, const char *path)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int timeout, n;

	for (;;) {
		timeout = -1;
		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				goto timed_out;
			timeout = (int)left;
		}
		n = poll(&pfd, 1, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "skinctl dump: %s: poll: %s\n", path,
				strerror(errno));
			return -1;
		}
		if (n == 0)
			goto timed_out;
		if (pfd.revents & POLLIN)
			return 1;
		if (pfd.revents & POLLHUP) {
			fprintf(stderr, "skinctl dump: %s: the patch was removed\n",
				path);
			return -1;
		}
		if (pfd.revents & POLLERR)
			usleep(100000);
	}
timed_out:
	fprintf(stderr, "skinctl dump: %s: no frame for %d ms\n", path,
		timeout_ms);
	return 0;
}

struct dump_opts {
	long count;		/* frames to print, 0 = no limit */
	int timeout_ms;		/* give up after this long without a frame */
	int all;		/* start with the oldest frame in the ring */
};

static int dump_mmap(const char *path, const struct dump_opts *o)
{
	struct skin_ring_map m;
	struct skin_frame f;
	struct stat st;
	uint64_t lost = 0;
	long printed = 0;
	int err, ready, status = 0;

	err = skin_ring_map_open(&m, path);
	if (err < 0) {
		fprintf(stderr, "skinctl dump: %s: %s\n", path,
			err == -EPROTO ? "not a skin ring, or one of another ABI version" :
			strerror(-err));
		return 1;
	}
	if (fstat(m.fd, &st) < 0)
		st.st_mode = 0;
	if (o->all)
		m.next = 1;
	for (;;) {
		while (skin_ring_map_next(&m, &f)) {
			if (m.lost != lost) {
				printf("# lost %" PRIu64 "\n", m.lost - lost);
				lost = m.lost;
			}
			print_frame(&f);
			if (o->count && ++printed >= o->count)
				goto out;
		}
		fflush(stdout);
		if (S_ISCHR(st.st_mode)) {
			ready = wait_frame(m.fd, o->timeout_ms, path);
		} else {
			/* a ring file cannot be polled: look every ms */
			usleep(1000);
			ready = 1;
		}
		if (ready <= 0) {
			status = ready < 0 ? 0 : 1;
			break;
		}
	}
out:
	fflush(stdout);
	skin_ring_map_close(&m);
	return status;
}

static int dump_read(const char *path, const struct dump_opts *o)
{
	struct skin_frame frames[16];
	long printed = 0;
	int fd, ready, status = 0;
	ssize_t n, i;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "skinctl dump: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		n = read(fd, frames, sizeof(frames));
		if (n < 0 && errno == EAGAIN) {
			fflush(stdout);
			ready = wait_frame(fd, o->timeout_ms, path);
			if (ready <= 0) {
				status = ready < 0 ? 0 : 1;
				break;
			}
			continue;
		}
		if (n < 0) {
			fprintf(stderr, "skinctl dump: %s: read: %s\n", path,
				strerror(errno));
			status = 1;
			break;
		}
		if (n == 0)
			break;		/* the patch was removed */
		if (n % sizeof(frames[0])) {
			fprintf(stderr, "skinctl dump: %s: read returned %zd bytes, not whole frames\n",
				path, n);
			status = 1;
			break;
		}
		for (i = 0; i < n / (ssize_t)sizeof(frames[0]); i++) {
			if (frames[i].flags & SKIN_FRAME_LOST)
				printf("# lost\n");
			print_frame(&frames[i]);
			if (o->count && ++printed >= o->count)
				goto out;
		}
	}
out:
	fflush(stdout);
	close(fd);
	return status;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "read", no_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_opts o = { .count = 0, .timeout_ms = -1, .all = 0 };
	int use_read = 0, c;
	char *end;

	while ((c = getopt_long(argc, argv, "rn:t:ah", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			use_read = 1;
			break;
		case 'n':
			o.count = strtol(optarg, &end, 10);
			if (*end || o.count < 1) {
				fprintf(stderr, "skinctl dump: -n wants a positive count, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 't':
			o.timeout_ms = (int)strtol(optarg, &end, 10);
			if (*end || o.timeout_ms < 0) {
				fprintf(stderr, "skinctl dump: --timeout wants milliseconds, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'a':
			o.all = 1;
			break;
		case 'h':
			printf("usage: skinctl dump [--read] [-n COUNT] [--timeout MS] [--all] DEVICE\n");
			return 0;
		default:
			fprintf(stderr, "usage: skinctl dump [--read] [-n COUNT] [--timeout MS] [--all] DEVICE\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: skinctl dump [--read] [-n COUNT] [--timeout MS] [--all] DEVICE\n");
		return 2;
	}
	if (use_read && o.all) {
		fprintf(stderr, "skinctl dump: --all needs the mapping, not --read\n");
		return 2;
	}
	return use_read ? dump_read(argv[optind], &o) :
			  dump_mmap(argv[optind], &o);
}
