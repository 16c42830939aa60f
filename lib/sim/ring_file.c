// SPDX-License-Identifier: GPL-2.0
/*
 * ring_file.c - ring files: the driver's receive path and ring, into a file
 *
 * For machines without skin.ko: the frames skinsim would send go through
 * the driver's receive sequence, skin_asm_rx() and skin_asm_timeout()
 * (driver/skin_assemble.c, built from the driver's source), with the
 * driver's filters in front and its timer judged on the frames' times, so
 * the samples, flags and counters a reader finds in the file are the ones
 * /dev/skin/NAME would have shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim-private.h"
#include "skin_core.h"

struct skin_sim_ring {
	void *mem;
	size_t size;
	struct skin_ring ring;
	struct skin_asm assembler;
	struct skin_patch_config cfg;
	uint64_t timeout_ns;
	uint64_t deadline;	/* when the driver's timer fires; 0: not armed */
};

struct skin_sim_ring *skin_sim_ring_create(const char *path,
					   const struct skin_sim_patch_info *info,
					   const struct skin_sim_board *b,
					   uint8_t cls, unsigned int log2,
					   struct skin_error *err)
{
	long page = sysconf(_SC_PAGESIZE);
	struct skin_sim_ring *r = calloc(1, sizeof(*r));
	struct skin_ring_ctrl *ctrl;
	const char *why;
	char *tmp = NULL;
	int fd = -1;

	if (!r || !(tmp = malloc(strlen(path) + 8))) {
		skin_error_set(err, path, 0, 0, "out of memory");
		goto fail;
	}
	skin_patch_config_default(&r->cfg);
	snprintf(r->cfg.ifname, sizeof(r->cfg.ifname), "%s", info->bus);
	r->cfg.cls = cls;
	r->cfg.address = info->address;
	r->cfg.skin_part = (u8)info->skin_part;
	r->cfg.triangles = b->enabled;
	r->cfg.period_ms = b->period_ms;
	r->cfg.skin_type = b->skin_type;
	r->cfg.no_load = b->no_load;
	r->cfg.shift = b->shift[0];
	r->cfg.cdc_offset = b->cdc_offset[0];
	r->cfg.ring_log2 = (u8)log2;
	why = skin_patch_config_check(&r->cfg);
	if (why) {
		skin_error_set(err, path, 0, 0, "cannot make a ring: %s", why);
		goto fail;
	}
	/* the driver's timer: 1.5 periods after the first half of a sample */
	r->timeout_ns = (uint64_t)b->period_ms * 1500000;

	r->size = (size_t)page + (sizeof(struct skin_frame) << log2);
	sprintf(tmp, "%s.tmp", path);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)r->size) < 0) {
		skin_error_set(err, tmp, 0, 0, "cannot create: %s", strerror(errno));
		goto fail;
	}
	r->mem = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		skin_error_set(err, tmp, 0, 0, "mmap: %s", strerror(errno));
		goto fail;
	}
	skin_ring_init(&r->ring, r->mem, (u32)page, log2);
	ctrl = r->ring.ctrl;
	snprintf(ctrl->name, sizeof(ctrl->name), "%s", info->name);
	snprintf(ctrl->ifname, sizeof(ctrl->ifname), "%s", info->bus);
	ctrl->cls = cls;
	ctrl->address = info->address;
	ctrl->skin_part = (u8)info->skin_part;
	ctrl->triangles = b->enabled;
	ctrl->period_ms = b->period_ms;
	ctrl->no_load = b->no_load;
	skin_asm_init(&r->assembler, &r->cfg);
	if (rename(tmp, path) < 0) {
		skin_error_set(err, path, 0, 0, "cannot create: %s", strerror(errno));
		unlink(tmp);
		goto fail;
	}
	close(fd);
	free(tmp);
	return r;
fail:
	if (fd >= 0)
		close(fd);
	free(tmp);
	skin_sim_ring_close(r);
	return NULL;
}

void skin_sim_ring_tick(struct skin_sim_ring *r, uint64_t now_ns)
{
	if (r->deadline && now_ns >= r->deadline)
		skin_sim_ring_flush(r);
}

void skin_sim_ring_flush(struct skin_sim_ring *r)
{
	r->deadline = 0;
	skin_asm_timeout(&r->assembler, &r->ring);
}

void skin_sim_ring_rx(struct skin_sim_ring *r, const struct can_frame *cf,
		      uint64_t ts_ns)
{
	canid_t data_id = SKIN_DATA_ID(r->cfg.cls, r->cfg.address, 0);

	/* the driver's two CAN filters (driver/skin_can.c) */
	if (cf->can_id & CAN_ERR_FLAG) {
		if (!(cf->can_id & CAN_ERR_MASK))
			return;
	} else if ((cf->can_id & SKIN_DATA_MASK) != data_id) {
		return;
	}
	skin_sim_ring_tick(r, ts_ns);
	if (skin_asm_rx(&r->assembler, &r->ring, cf, false, ts_ns) &
	    SKIN_ASM_ARM)
		r->deadline = ts_ns + r->timeout_ns;
}

uint64_t skin_sim_ring_head(const struct skin_sim_ring *r)
{
	return r->ring.head;
}

uint64_t skin_sim_ring_stat(const struct skin_sim_ring *r, unsigned int n)
{
	return n < SKIN_STAT_MAX ? r->ring.ctrl->stats[n] : 0;
}

void skin_sim_ring_close(struct skin_sim_ring *r)
{
	if (!r)
		return;
	if (r->mem)
		munmap(r->mem, r->size);
	free(r);
}
