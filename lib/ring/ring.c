// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring.c - map a skin frame ring read-only and read it (skin/ring.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <skin/ring.h>

#include "skin_core.h"

/**
 * skin_ring_check() - whether a control page describes a ring we can read
 * @ctrl: the control page
 * @size: bytes mapped from its start, or 0 to check the page alone
 *
 * Return: NULL when it is valid, else what is wrong.
 */
const char *skin_ring_check(const struct skin_ring_ctrl *ctrl, size_t size)
{
	if (ctrl->magic != SKIN_RING_MAGIC)
		return "not a skin ring (bad magic)";
	if (ctrl->abi_version != SKIN_ABI_VERSION)
		return "skin ring of another ABI version";
	if (ctrl->frame_size != sizeof(struct skin_frame))
		return "frame size differs from this program's";
	if (ctrl->frame_count_log2 < SKIN_RING_MIN_LOG2 ||
	    ctrl->frame_count_log2 > SKIN_RING_MAX_LOG2 ||
	    ctrl->frame_count != 1U << ctrl->frame_count_log2)
		return "frame count is not a power of two in range";
	if (ctrl->data_offset < sizeof(*ctrl))
		return "frames overlap the control page";
	if (ctrl->data_size != (uint64_t)ctrl->frame_count * ctrl->frame_size)
		return "data size does not match the frame count";
	if (size && ctrl->data_offset + ctrl->data_size > size)
		return "ring larger than the file";
	return NULL;
}

/**
 * skin_ring_map_fd() - map an open ring: a device or a ring file
 * @m: the map, filled in
 * @fd: open for reading; owned by @m from here on, even on failure
 *
 * The reader starts at the next frame to be published.
 *
 * Return: 0, or -errno: -EPROTO when the control page is not valid.
 */
int skin_ring_map_fd(struct skin_ring_map *m, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct skin_ring_ctrl *ctrl;
	struct stat st;
	size_t size;
	int err;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	m->base = MAP_FAILED;
	if (fstat(fd, &st) < 0)
		goto fail_errno;
	/* the control page says how much there is */
	ctrl = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (ctrl == MAP_FAILED)
		goto fail_errno;
	if (skin_ring_check(ctrl, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0)) {
		munmap((void *)ctrl, page);
		err = -EPROTO;
		goto fail;
	}
	size = ctrl->data_offset + ctrl->data_size;
	munmap((void *)ctrl, page);

	m->base = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (m->base == MAP_FAILED)
		goto fail_errno;
	m->size = size;
	m->ctrl = m->base;
	/* re-checked: the ring must not have changed between the two maps */
	if (skin_ring_check(m->ctrl, size)) {
		err = -EPROTO;
		goto fail;
	}
	m->slots = (const struct skin_frame *)((const char *)m->base +
					       m->ctrl->data_offset);
	m->next = skin_ring_map_head(m) + 1;
	return 0;

fail_errno:
	err = -errno;
fail:
	skin_ring_map_close(m);
	return err;
}

/**
 * skin_ring_map_open() - open and map a ring by path
 * @m: the map
 * @path: /dev/skin/NAME or a ring file
 *
 * Return: 0 or -errno, as skin_ring_map_fd().
 */
int skin_ring_map_open(struct skin_ring_map *m, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		memset(m, 0, sizeof(*m));
		m->fd = -1;
		return -errno;
	}
	return skin_ring_map_fd(m, fd);
}

void skin_ring_map_close(struct skin_ring_map *m)
{
	if (m->base && m->base != MAP_FAILED)
		munmap(m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	m->base = NULL;
	m->fd = -1;
}

/**
 * skin_ring_map_set_wakeup() - moderate the wakeups of a device's map
 * @m: the map of /dev/skin/NAME
 * @frames: POLLIN on @m->fd once this many frames are pending (1: every
 *	frame, the default); at most half the ring
 * @usecs: ... or once the oldest pending frame waited this long; nonzero
 *	when @frames > 1
 *
 * For a mapped file "pending" is "published since poll() last reported
 * POLLIN", so keep draining the ring to its head after each POLLIN
 * (struct skin_wakeup in <linux/skin.h> has the whole contract).
 *
 * Return: 0, or -errno: -EINVAL for a setting the driver refuses,
 * -ENOTTY when @m is a ring file (nothing wakes its readers).
 */
int skin_ring_map_set_wakeup(struct skin_ring_map *m, uint32_t frames,
			     uint32_t usecs)
{
	struct skin_wakeup w = { .frames = frames, .usecs = usecs };

	return ioctl(m->fd, SKIN_IOC_SET_WAKEUP, &w) < 0 ? -errno : 0;
}

/** skin_ring_map_head() - sequence number of the newest frame, 0 if none */
uint64_t skin_ring_map_head(const struct skin_ring_map *m)
{
	return __atomic_load_n(&m->ctrl->head, __ATOMIC_ACQUIRE);
}

/**
 * skin_ring_map_next() - copy the next frame the reader has not seen
 * @m: the map
 * @out: the frame
 *
 * Return: 1 with *@out filled, 0 when there is no new frame yet.  Frames
 * overwritten before the reader got to them are added to @m->lost.
 */
int skin_ring_map_next(struct skin_ring_map *m, struct skin_frame *out)
{
	return skin_ring_read(m->ctrl, m->slots, &m->next, out, &m->lost) ==
	       SKIN_RING_FRAME;
}
