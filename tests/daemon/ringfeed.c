// SPDX-License-Identifier: GPL-2.0
/*
 * ringfeed - ring files of skin patches, written with the driver's own
 * ring code, under the control of a test script
 *
 *	ringfeed DIR NAME:IFNAME:ADDRESS[:PERIOD_MS[:LOG2]]...
 *
 * Creates DIR/NAME for every patch (a ring file laid out as the mapping
 * of /dev/skin/NAME, made by skin_ring_init() and written with
 * skin_ring_begin()/commit(), the driver's writer) and writes one frame
 * per patch every period: every channel at noLoad (240) with a little
 * deterministic noise, the pressed ones lower.  Commands on stdin, one
 * per line, each answered "ok" on stdout once it applies (after the next
 * frame when it changes the frames):
 *
 *	press NAME DEPTH SLOT...   these slots of patch NAME read 240 - DEPTH
 *	release NAME               no slot of NAME pressed
 *	period MS                  every patch's period
 *	flood N                    N frames per patch back to back, now
 *	full on|off                frames back to back until "full off"
 *	uniform on|off             all 192 values of a frame equal, a counter
 *	                           (readers can tell a torn copy)
 *	pause | resume             stop / restart writing frames
 *	mute NAME | unmute NAME    stop / restart writing NAME's frames (a
 *	                           silent board)
 *	remove NAME                unlink the ring file (the patch vanishes)
 *	restore NAME               create it again (a new inode, seq from 1)
 *	frames                     print "frames NAME N" per patch, then ok
 *	quit
 *
 * Ground truth for the tests: what is pressed, when.  Not a simulator
 * (skinsim is): no CAN, no board behaviour.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "skin_clock.h"
#include "skin_core.h"

#define MAX_PATCHES	32
#define PAGE		4096
#define NO_LOAD		240

struct feed {
	char name[SKIN_NAME_LEN];
	char ifname[SKIN_IFNAME_LEN];
	unsigned int address;
	unsigned int period_ms;
	unsigned int log2;
	char path[600];
	void *mem;
	size_t size;
	struct skin_ring ring;
	unsigned char depth[SKIN_BOARD_VALUES];
	uint64_t frames;
	uint32_t rng;
	bool removed;
	bool muted;
};

static struct feed feeds[MAX_PATCHES];
static unsigned int n_feeds;
static bool uniform, paused, full;
static const char *dir;

static void die(const char *what)
{
	fprintf(stderr, "ringfeed: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void create(struct feed *f)
{
	char tmp[700];
	struct skin_ring_ctrl *c;
	int fd;

	if (f->mem)
		munmap(f->mem, f->size);
	snprintf(f->path, sizeof(f->path), "%s/%s", dir, f->name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, f->name);
	f->size = PAGE + ((size_t)1 << f->log2) * sizeof(struct skin_frame);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)f->size) < 0)
		die(tmp);
	f->mem = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f->mem == MAP_FAILED)
		die("mmap");
	close(fd);
	skin_ring_init(&f->ring, f->mem, PAGE, f->log2);
	c = f->mem;
	snprintf(c->name, sizeof(c->name), "%s", f->name);
	snprintf(c->ifname, sizeof(c->ifname), "%s", f->ifname);
	c->cls = SKIN_CLASS_DATA;
	c->address = (u8)f->address;
	c->triangles = 0xffff;
	c->period_ms = (u16)f->period_ms;
	c->no_load = NO_LOAD;
	if (rename(tmp, f->path) < 0)
		die(f->path);
	f->removed = false;
	f->frames = 0;
}

static void write_frame(struct feed *f)
{
	struct skin_frame *fr;
	unsigned int i;

	if (f->removed || f->muted)
		return;
	fr = skin_ring_begin(&f->ring);
	fr->timestamp_ns = clock_monotonic_ns();
	fr->refreshed = 0xffff;
	fr->flags = 0;
	fr->diag_valid = 0xffff;
	fr->reserved = 0;
	memset(fr->diag, 0, sizeof(fr->diag));
	for (i = 0; i < SKIN_BOARD_VALUES; i++) {
		int v;

		if (uniform) {
			v = (int)(f->frames & 0xff);
		} else {
			f->rng = f->rng * 1103515245u + 12345u;
			v = NO_LOAD + (int)((f->rng >> 16) % 5) - 2 - f->depth[i];
		}
		fr->values[i] = (u8)(v < 0 ? 0 : v > 255 ? 255 : v);
	}
	memset(fr->pad, 0, sizeof(fr->pad));
	skin_ring_commit(&f->ring, fr);
	f->frames++;
}

static struct feed *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_feeds; i++)
		if (!strcmp(feeds[i].name, name))
			return &feeds[i];
	fprintf(stderr, "ringfeed: no patch '%s'\n", name ? name : "");
	return NULL;
}

/* Return: 1 to reply after the next frame, 0 at once, -1 to quit. */
static int command(char *line)
{
	char *argv[256], *save = NULL, *w;
	struct feed *f;
	int argc = 0, i;

	for (w = strtok_r(line, " \t\n", &save); w && argc < 255;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = w;
	if (!argc)
		return 0;
	if (!strcmp(argv[0], "press") && argc >= 4 && (f = find(argv[1]))) {
		int depth = atoi(argv[2]);

		for (i = 3; i < argc; i++) {
			int s = atoi(argv[i]);

			if (s >= 0 && s < SKIN_BOARD_VALUES)
				f->depth[s] = (unsigned char)depth;
		}
		return 1;
	}
	if (!strcmp(argv[0], "release") && argc == 2 && (f = find(argv[1]))) {
		memset(f->depth, 0, sizeof(f->depth));
		return 1;
	}
	if (!strcmp(argv[0], "period") && argc == 2) {
		for (i = 0; i < (int)n_feeds; i++)
			feeds[i].period_ms = (unsigned int)atoi(argv[1]);
		return 0;
	}
	if (!strcmp(argv[0], "flood") && argc == 2) {
		long n = atol(argv[1]), k;

		for (k = 0; k < n; k++)
			for (i = 0; i < (int)n_feeds; i++)
				write_frame(&feeds[i]);
		return 0;
	}
	if (!strcmp(argv[0], "full") && argc == 2) {
		full = !strcmp(argv[1], "on");
		return 0;
	}
	if (!strcmp(argv[0], "uniform") && argc == 2) {
		uniform = !strcmp(argv[1], "on");
		return 1;
	}
	if (!strcmp(argv[0], "pause")) {
		paused = true;
		return 0;
	}
	if (!strcmp(argv[0], "resume")) {
		paused = false;
		return 1;
	}
	if (!strcmp(argv[0], "mute") && argc == 2 && (f = find(argv[1]))) {
		f->muted = true;
		return 0;
	}
	if (!strcmp(argv[0], "unmute") && argc == 2 && (f = find(argv[1]))) {
		f->muted = false;
		return 1;
	}
	if (!strcmp(argv[0], "remove") && argc == 2 && (f = find(argv[1]))) {
		unlink(f->path);
		f->removed = true;
		return 0;
	}
	if (!strcmp(argv[0], "restore") && argc == 2 && (f = find(argv[1]))) {
		create(f);
		return 1;
	}
	if (!strcmp(argv[0], "frames")) {
		for (i = 0; i < (int)n_feeds; i++)
			printf("frames %s %llu\n", feeds[i].name,
			       (unsigned long long)feeds[i].frames);
		return 0;
	}
	if (!strcmp(argv[0], "quit"))
		return -1;
	printf("error %s\n", argv[0]);
	fflush(stdout);
	return -2;
}

int main(int argc, char **argv)
{
	uint64_t next;
	char line[4096];
	size_t len = 0;
	int pending = 0, i;

	if (argc < 3) {
		fprintf(stderr, "usage: ringfeed DIR NAME:IFNAME:ADDRESS[:PERIOD_MS[:LOG2]]...\n");
		return 2;
	}
	dir = argv[1];
	for (i = 2; i < argc && n_feeds < MAX_PATCHES; i++) {
		struct feed *f = &feeds[n_feeds++];
		char *spec = strdup(argv[i]), *save = NULL;
		char *name = strtok_r(spec, ":", &save);
		char *ifname = strtok_r(NULL, ":", &save);
		char *addr = strtok_r(NULL, ":", &save);
		char *period = strtok_r(NULL, ":", &save);
		char *log2 = strtok_r(NULL, ":", &save);

		if (!name || !ifname || !addr) {
			fprintf(stderr, "ringfeed: bad patch '%s'\n", argv[i]);
			return 2;
		}
		snprintf(f->name, sizeof(f->name), "%s", name);
		snprintf(f->ifname, sizeof(f->ifname), "%s", ifname);
		f->address = (unsigned int)atoi(addr);
		f->period_ms = period ? (unsigned int)atoi(period) : 20;
		f->log2 = log2 ? (unsigned int)atoi(log2) : 8;
		f->rng = 12345u + (unsigned int)i;
		free(spec);
		create(f);
	}
	printf("ready\n");
	fflush(stdout);

	next = clock_monotonic_ns();
	for (;;) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		uint64_t now = clock_monotonic_ns();
		int timeout = now >= next || full ? 0 : (int)((next - now) / 1000000) + 1;
		ssize_t n;

		if (poll(&pfd, 1, timeout) > 0) {
			n = read(0, line + len, sizeof(line) - 1 - len);
			if (n <= 0)
				return 0;
			len += (size_t)n;
			for (;;) {
				char *nl = memchr(line, '\n', len);
				int r;

				if (!nl)
					break;
				*nl = 0;
				r = command(line);
				memmove(line, nl + 1, len - (size_t)(nl + 1 - line));
				len -= (size_t)(nl + 1 - line);
				if (r == -1)
					return 0;
				if (r == 1 && !paused) {
					pending++;
				} else if (r >= 0) {
					printf("ok\n");
					fflush(stdout);
				}
			}
		}
		now = clock_monotonic_ns();
		if (full && !paused) {
			int k;

			for (k = 0; k < 64; k++)
				for (i = 0; i < (int)n_feeds; i++)
					write_frame(&feeds[i]);
		}
		if (now >= next) {
			if (!paused)
				for (i = 0; i < (int)n_feeds; i++)
					write_frame(&feeds[i]);
			for (; pending > 0; pending--)
				printf("ok\n");
			fflush(stdout);
			next += (uint64_t)feeds[0].period_ms * 1000000ull;
			if (next < now)
				next = now;
		}
	}
}
