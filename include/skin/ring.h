/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/ring.h - read a skin frame ring: /dev/skin/NAME or a ring file
 *
 * A reader maps the ring read-only and follows the memory-ordering
 * contract of <linux/skin.h> (the code is the driver's own reader,
 * skin_ring_read()).  It never blocks the writer; when it falls behind it
 * learns how many frames it lost.  Wait for frames with poll() on
 * skin_ring_map.fd (POLLIN) when it is a device; POLLHUP means the patch
 * is gone, POLLERR that its CAN interface is.  A reader that can wait for
 * a few frames sets skin_ring_map_set_wakeup() (one wakeup per N frames,
 * with a time bound).
 *
 *	struct skin_ring_map m;
 *	struct skin_frame f;
 *	int err = skin_ring_map_open(&m, "/dev/skin/left_hand");
 *
 *	if (err < 0) ...                         (-errno; -EPROTO: not a ring)
 *	while (skin_ring_map_next(&m, &f) > 0)
 *		use(&f);                         (m.lost: frames missed so far)
 *	skin_ring_map_close(&m);
 *
 * Ownership: skin_ring_map_open() opens and owns the fd and the mapping;
 * skin_ring_map_close() releases both.  Not thread-safe per map: use one
 * map per thread (any number of maps may read one ring).
 */
#ifndef SKIN_RING_H
#define SKIN_RING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/skin.h>

#ifdef __cplusplus
extern "C" {
#endif

struct skin_ring_map {
	int fd;
	void *base;
	size_t size;
	const struct skin_ring_ctrl *ctrl;
	const struct skin_frame *slots;
	uint64_t next;	/* sequence number wanted next */
	uint64_t lost;	/* frames lost since open or the last reset */
};

int skin_ring_map_open(struct skin_ring_map *m, const char *path);
int skin_ring_map_fd(struct skin_ring_map *m, int fd);
void skin_ring_map_close(struct skin_ring_map *m);
const char *skin_ring_check(const struct skin_ring_ctrl *ctrl, size_t size);
int skin_ring_map_next(struct skin_ring_map *m, struct skin_frame *out);
uint64_t skin_ring_map_head(const struct skin_ring_map *m);
int skin_ring_map_set_wakeup(struct skin_ring_map *m, uint32_t frames,
			     uint32_t usecs);

#ifdef __cplusplus
}
#endif

#endif
