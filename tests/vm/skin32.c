// SPDX-License-Identifier: GPL-2.0
/*
 * skin32 - a reader of /dev/skin/NAME built for i386 (gcc -m32), for the VM
 * case 92-compat32: every ioctl and the mapped ring, through the same
 * lib/ring reader a 64-bit program links.
 *
 * Usage: skin32 info|stats|wakeup|start DEVICE
 *        skin32 mapread|read N DEVICE
 *
 * It also checks at compile time that the ABI's structures have the layout
 * of x86_64 (the numbers below) when built for i386, whose plain __u64 is
 * only 4-byte aligned inside structures.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/skin.h>
#include <skin/ring.h>

#include "skin_core.h"

#define LAYOUT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field)
#define SIZE(type, size) \
	_Static_assert(sizeof(struct type) == (size), "sizeof " #type)

/* x86_64's layout: what the driver, built for x86_64, reads and writes */
SIZE(skin_frame, 256);
LAYOUT(skin_frame, timestamp_ns, 8);
LAYOUT(skin_frame, refreshed, 16);
LAYOUT(skin_frame, diag, 24);
LAYOUT(skin_frame, values, 56);
LAYOUT(skin_frame, pad, 248);
SIZE(skin_ring_ctrl, 104 + 8 * SKIN_STAT_MAX);
LAYOUT(skin_ring_ctrl, data_size, 24);
LAYOUT(skin_ring_ctrl, head, 32);
LAYOUT(skin_ring_ctrl, name, 40);
LAYOUT(skin_ring_ctrl, ifname, 72);
LAYOUT(skin_ring_ctrl, cls, 88);
LAYOUT(skin_ring_ctrl, triangles, 92);
LAYOUT(skin_ring_ctrl, period_ms, 94);
LAYOUT(skin_ring_ctrl, no_load, 96);
LAYOUT(skin_ring_ctrl, stats, 104);
SIZE(skin_info, 104);
LAYOUT(skin_info, head, 16);
LAYOUT(skin_info, name, 24);
LAYOUT(skin_info, ifname, 56);
LAYOUT(skin_info, cls, 72);
LAYOUT(skin_info, triangles, 76);
LAYOUT(skin_info, period_ms, 78);
LAYOUT(skin_info, no_load, 80);
LAYOUT(skin_info, cdc_offset, 82);
LAYOUT(skin_info, reserved, 84);
SIZE(skin_stats, 8 + 8 * SKIN_STAT_MAX);
LAYOUT(skin_stats, stat, 8);
SIZE(skin_wakeup, 16);
/* so that __atomic_load_n() of head and seq is one 64-bit load on i386 */
_Static_assert(_Alignof(struct skin_ring_ctrl) == 8, "ring control aligned");
_Static_assert(_Alignof(struct skin_frame) == 8, "frame aligned");
_Static_assert(SKIN_IOC_GET_INFO == 0x8068b500, "SKIN_IOC_GET_INFO");
_Static_assert(SKIN_IOC_GET_STATS == 0x8208b501, "SKIN_IOC_GET_STATS");
_Static_assert(SKIN_IOC_SET_WAKEUP == 0x4010b505, "SKIN_IOC_SET_WAKEUP");
_Static_assert(SKIN_IOC_GET_WAKEUP == 0x8010b506, "SKIN_IOC_GET_WAKEUP");

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "skin32: %s: %s: %s\n", what, path, strerror(errno));
	return 1;
}

static void print_frame(const struct skin_frame *f)
{
	unsigned int i;

	printf("%" PRIu64 " 0x%x 0x%04x ", (uint64_t)f->seq, f->flags,
	       f->refreshed);
	for (i = 0; i < 2 * SKIN_CHANNELS; i++)
		printf("%02x", f->values[i]);
	printf("\n");
	fflush(stdout);
}

static int info(int fd, const char *path)
{
	struct skin_info in;

	if (ioctl(fd, SKIN_IOC_GET_INFO, &in) < 0)
		return fail("SKIN_IOC_GET_INFO", path);
	printf("name %s interface %s class %u address %u skin_part %u\n",
	       in.name, in.ifname, in.cls, in.address, in.skin_part);
	printf("triangles 0x%04x period_ms %u no_load %u shift %u cdc_offset 0x%04x\n",
	       in.triangles, in.period_ms, in.no_load, in.shift, in.cdc_offset);
	printf("abi %u frame_size %u frames %u flags 0x%x head %" PRIu64 "\n",
	       in.abi_version, in.frame_size, in.frame_count, in.flags,
	       (uint64_t)in.head);
	return 0;
}

/* As skinctl stats prints them, so the case can compare the two. */
static int stats(int fd, const char *path)
{
	struct skin_stats st;
	unsigned int i;

	memset(&st, 0xa5, sizeof(st));
	if (ioctl(fd, SKIN_IOC_GET_STATS, &st) < 0)
		return fail("SKIN_IOC_GET_STATS", path);
	if (st.count > SKIN_STAT_MAX) {
		fprintf(stderr, "skin32: count %u\n", st.count);
		return 1;
	}
	for (i = 0; i < st.count; i++) {
		const char *name = skin_stat_name(i);

		if (name)
			printf("  %s %" PRIu64 "\n", name, (uint64_t)st.stat[i]);
		else
			printf("  stat%u %" PRIu64 "\n", i, (uint64_t)st.stat[i]);
	}
	return 0;
}

static int wakeup(int fd, const char *path)
{
	struct skin_wakeup w = { .frames = 4, .usecs = 20000 }, r;

	if (ioctl(fd, SKIN_IOC_SET_WAKEUP, &w) < 0)
		return fail("SKIN_IOC_SET_WAKEUP", path);
	memset(&r, 0xa5, sizeof(r));
	if (ioctl(fd, SKIN_IOC_GET_WAKEUP, &r) < 0)
		return fail("SKIN_IOC_GET_WAKEUP", path);
	printf("wakeup %u %u %u %u\n", r.frames, r.usecs, r.flags, r.reserved);
	w.frames = 0;
	if (ioctl(fd, SKIN_IOC_SET_WAKEUP, &w) == 0 || errno != EINVAL) {
		fprintf(stderr, "skin32: frames 0 not refused with EINVAL\n");
		return 1;
	}
	return 0;
}

/* Through the mapping, with lib/ring's reader: 64-bit atomic loads. */
static int mapread(unsigned long n, const char *path)
{
	struct skin_ring_map m;
	struct skin_frame f;
	struct pollfd p;
	int err = skin_ring_map_open(&m, path);

	if (err < 0) {
		errno = -err;
		return fail("map", path);
	}
	p.fd = m.fd;
	p.events = POLLIN;
	while (n) {
		if (skin_ring_map_next(&m, &f)) {
			print_frame(&f);
			n--;
			continue;
		}
		if (poll(&p, 1, 10000) <= 0 || (p.revents & (POLLHUP | POLLERR))) {
			fprintf(stderr, "skin32: no frame within 10 s\n");
			skin_ring_map_close(&m);
			return 1;
		}
	}
	printf("lost %" PRIu64 "\n", (uint64_t)m.lost);
	skin_ring_map_close(&m);
	return 0;
}

static int readn(int fd, unsigned long n, const char *path)
{
	struct skin_frame f;
	ssize_t r;

	while (n--) {
		r = read(fd, &f, sizeof(f));
		if (r != sizeof(f))
			return fail("read", path);
		print_frame(&f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	unsigned long n = 0;
	const char *path;
	int fd, status;

	if (argc == 4 && (!strcmp(cmd, "mapread") || !strcmp(cmd, "read"))) {
		n = strtoul(argv[2], NULL, 0);
		path = argv[3];
	} else if (argc == 3) {
		path = argv[2];
	} else {
		fprintf(stderr, "usage: skin32 info|stats|wakeup|start DEVICE\n"
			"       skin32 mapread|read N DEVICE\n");
		return 2;
	}
	if (!strcmp(cmd, "mapread"))
		return mapread(n, path);

	fd = open(path, !strcmp(cmd, "start") ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return fail("open", path);
	if (!strcmp(cmd, "info"))
		status = info(fd, path);
	else if (!strcmp(cmd, "stats"))
		status = stats(fd, path);
	else if (!strcmp(cmd, "wakeup"))
		status = wakeup(fd, path);
	else if (!strcmp(cmd, "read"))
		status = readn(fd, n, path);
	else if (!strcmp(cmd, "start"))
		status = ioctl(fd, SKIN_IOC_START) < 0 ?
			 fail("SKIN_IOC_START", path) : 0;
	else
		status = 2;
	close(fd);
	return status;
}
