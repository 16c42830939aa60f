// SPDX-License-Identifier: GPL-2.0
/*
 * configfs.c - the driver's patches, created from skind.conf
 *
 * For every configured board, /sys/kernel/config/skin/NAME with its
 * interface, class, address, skin part, enabled triangles, the board's
 * parameters ([board], with its own [board BUS:ADDRESS] over them) and
 * listen_only (its [bus]'s), then enable = 1 (docs/UAPI.md).  A patch that
 * already exists with the same settings is left alone (skind restarted;
 * the ring keeps its frames); one with other settings is disabled,
 * rewritten and enabled again.  A board another patch already serves
 * (EEXIST on enable) is fine: skind reads rings by their identity, not
 * their name.
 *
 * configfs is root's: under systemd this runs as `skind --create-patches`
 * from ExecStartPre=+ (full privileges), and the daemon itself, running
 * as the skind user, only finds the devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skin_core.h"
#include "configfs.h"
#include "log.h"
#include "options.h"

static int write_attr(const char *dir, const char *attr, const char *value)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	close(fd);
	return n < 0 ? -errno : 0;
}

static int read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return 0;
}

/* Triangles with at least one sensor the model knows of (all when none). */
static unsigned int triangles(const struct skind_skin *s,
			      const struct skind_patch *pt)
{
	const struct skind_part *p = pt->part;
	const struct skin_taxel *t = &s->model->taxels[p->mp->first_taxel];
	unsigned int tri, ch, mask = 0;

	for (tri = 0; tri < SKIN_TRIANGLES; tri++)
		for (ch = 0; ch < SKIN_CHANNELS; ch++) {
			unsigned int i = pt->order * SKIN_BOARD_VALUES +
					 tri * SKIN_CHANNELS + ch;

			if (i < p->n_taxels && t[i].kind != SKIN_TAXEL_ABSENT)
				mask |= 1u << tri;
		}
	return mask ? mask : 0xffff;
}

struct attr {
	const char *name;
	char value[32];
};

static int create_one(const struct skind_options *o, const struct skind_skin *s,
		      const struct skind_patch *pt)
{
	const struct skin_config_board *b = &pt->board;
	struct attr attrs[] = {
		{ "interface", "" }, { "cls", "" }, { "address", "" },
		{ "skin_part", "" }, { "triangles", "" }, { "period_ms", "" },
		{ "skin_type", "" }, { "no_load", "" }, { "shift", "" },
		{ "cdc_offset", "" }, { "listen_only", "" },
	};
	unsigned int i, n = sizeof(attrs) / sizeof(attrs[0]);
	char dir[600], cur[64];
	bool same = true;
	struct stat st;
	int r;

	snprintf(attrs[0].value, sizeof(attrs[0].value), "%s", pt->ifname);
	snprintf(attrs[1].value, sizeof(attrs[1].value), "%u", SKIN_CLASS_DATA);
	snprintf(attrs[2].value, sizeof(attrs[2].value), "%d", pt->address);
	snprintf(attrs[3].value, sizeof(attrs[3].value), "%u", pt->part->mp->skin_part);
	snprintf(attrs[4].value, sizeof(attrs[4].value), "0x%04x", triangles(s, pt));
	snprintf(attrs[5].value, sizeof(attrs[5].value), "%u", b->period_ms);
	snprintf(attrs[6].value, sizeof(attrs[6].value), "%u", b->skin_type);
	snprintf(attrs[7].value, sizeof(attrs[7].value), "%u", b->no_load);
	snprintf(attrs[8].value, sizeof(attrs[8].value), "%u", b->shift);
	snprintf(attrs[9].value, sizeof(attrs[9].value), "0x%04x", b->cdc_offset);
	snprintf(attrs[10].value, sizeof(attrs[10].value), "%d", pt->listen_only);

	snprintf(dir, sizeof(dir), "%s/%s", o->configfs_dir, pt->name);
	if (!stat(dir, &st)) {
		for (i = 0; i < n && same; i++) {
			unsigned long a, c;
			char *end;

			if (read_attr(dir, attrs[i].name, cur, sizeof(cur)) < 0) {
				same = false;
				break;
			}
			a = strtoul(attrs[i].value, &end, 0);
			if (i == 0 || *end)
				same = !strcmp(cur, attrs[i].value);
			else
				same = (c = strtoul(cur, &end, 0), !*end && a == c);
		}
		if (same && !read_attr(dir, "enable", cur, sizeof(cur)) &&
		    !strcmp(cur, "1")) {
			log_info("patch %s: already configured and enabled", pt->name);
			return 0;
		}
		write_attr(dir, "enable", "0");
	} else if (mkdir(dir, 0755) < 0) {
		r = -errno;
		log_err("patch %s: mkdir %s: %s", pt->name, dir, strerror(-r));
		return r;
	}
	for (i = 0; i < n; i++) {
		r = write_attr(dir, attrs[i].name, attrs[i].value);
		/* a driver older than listen_only sends commands: fine unless
		 * the bus is tapped */
		if (r == -ENOENT && !strcmp(attrs[i].name, "listen_only") &&
		    !pt->listen_only)
			continue;
		if (r < 0) {
			log_err("patch %s: %s = %s: %s", pt->name, attrs[i].name,
				attrs[i].value, strerror(-r));
			return r;
		}
	}
	r = write_attr(dir, "enable", "1");
	if (r == -EEXIST) {
		log_info("patch %s: %s:%d is already served by another patch",
			 pt->name, pt->ifname, pt->address);
		rmdir(dir);
		return 0;
	}
	if (r < 0) {
		log_err("patch %s: enable: %s (the kernel log says why)", pt->name,
			strerror(-r));
		return r;
	}
	log_info("patch %s: created for %s:%d, triangles %s%s", pt->name,
		 pt->ifname, pt->address, attrs[4].value,
		 pt->listen_only ? ", listen-only" : "");
	return 0;
}

/**
 * configfs_create_patches() - make the driver serve every configured board
 * @o: options (configfs_dir)
 * @s: the skin
 *
 * Return: 0 when every patch exists and is enabled, 1 when configfs is
 * not there (no driver: ring files, or the module is not loaded), -errno
 * of the first failure otherwise (the others are still tried).
 */
int configfs_create_patches(const struct skind_options *o,
			    const struct skind_skin *s)
{
	unsigned int i, k;
	struct stat st;
	int r, ret = 0;

	if (stat(o->configfs_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		log_info("%s: not there (skin.ko not loaded?); not creating patches",
			 o->configfs_dir);
		return 1;
	}
	if (access(o->configfs_dir, W_OK) < 0) {
		log_info("%s: not writable by skind (%s); the patches are expected to exist (skind --create-patches as root does it)",
			 o->configfs_dir, strerror(errno));
		return 1;
	}
	for (i = 0; i < s->n_parts; i++)
		for (k = 0; k < s->parts[i].n_patches; k++) {
			r = create_one(o, s, &s->parts[i].patches[k]);
			if (r < 0 && !ret)
				ret = r;
		}
	return ret;
}
