// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl stats - identity, state and counters of skin devices
 *
 * For each device (default: every /dev/skin/ entry) the SKIN_IOC_GET_INFO
 * and SKIN_IOC_GET_STATS answers, one "key value" per line after a
 * "DEVICE:" header, counters by the names sysfs uses.
 */
#define _GNU_SOURCE	/* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/skin.h>

#include "skin_core.h"
#include "skinctl.h"

#define SKIN_DEV_DIR	"/dev/skin"

static int stats_one(const char *path)
{
	struct skin_stats stats;
	struct skin_info info;
	unsigned int i, n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "skinctl stats: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (ioctl(fd, SKIN_IOC_GET_INFO, &info) < 0 ||
	    ioctl(fd, SKIN_IOC_GET_STATS, &stats) < 0) {
		fprintf(stderr, "skinctl stats: %s: %s\n", path,
			errno == ENOTTY ? "not a skin device" : strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);

	printf("%s:\n", path);
	printf("  name %s\n  interface %s\n  class %u\n  address %u\n",
	       info.name, info.ifname, info.cls, info.address);
	printf("  skin_part %u\n  triangles 0x%04x\n  period_ms %u\n",
	       info.skin_part, info.triangles, info.period_ms);
	printf("  state %s%s%s%s%s\n",
	       info.flags & SKIN_INFO_BOUND ? "bound" : "unbound",
	       info.flags & SKIN_INFO_UP ? ",up" : "",
	       info.flags & SKIN_INFO_STREAMING ? ",streaming" : "",
	       info.flags & SKIN_INFO_REMOVED ? ",removed" : "",
	       info.flags & SKIN_INFO_LISTEN_ONLY ? ",listen-only" : "");
	printf("  ring %u frames, head %" PRIu64 "\n", info.frame_count,
	       (uint64_t)info.head);
	/* a newer driver may count more than this program knows by name */
	n = stats.count < SKIN_STAT_MAX ? stats.count : SKIN_STAT_MAX;
	for (i = 0; i < n; i++) {
		const char *name = skin_stat_name(i);

		if (name)
			printf("  %s %" PRIu64 "\n", name, (uint64_t)stats.stat[i]);
		else
			printf("  stat%u %" PRIu64 "\n", i, (uint64_t)stats.stat[i]);
	}
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmd_stats(int argc, char **argv)
{
	char *paths[256];
	struct dirent *de;
	int status = 0, i, n = 0;
	DIR *dir;

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			status |= stats_one(argv[i]);
		return status;
	}
	dir = opendir(SKIN_DEV_DIR);
	if (!dir) {
		if (errno == ENOENT) {
			printf("no skin devices (%s does not exist)\n", SKIN_DEV_DIR);
			return 0;
		}
		fprintf(stderr, "skinctl stats: %s: %s\n", SKIN_DEV_DIR,
			strerror(errno));
		return 1;
	}
	while ((de = readdir(dir)) && n < 256) {
		if (de->d_name[0] == '.')
			continue;
		/* udev's link directories (by-part/, by-board/) live here too */
		if (de->d_type != DT_CHR && de->d_type != DT_UNKNOWN)
			continue;
		if (asprintf(&paths[n], "%s/%s", SKIN_DEV_DIR, de->d_name) < 0) {
			closedir(dir);
			return 1;
		}
		n++;
	}
	closedir(dir);
	qsort(paths, n, sizeof(paths[0]), cmp_names);
	for (i = 0; i < n; i++) {
		status |= stats_one(paths[i]);
		free(paths[i]);
	}
	if (!n)
		printf("no skin devices\n");
	return status;
}
