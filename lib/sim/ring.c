// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - ring files: the driver's receive path and ring, into a file
 *
 * For machines without skin.ko: the frames skinsim would send go through
 * the same code the driver runs on them (driver/skin_assemble.c,
 * skin_decode.c, skin_ring.c, built from the driver's source), in the
 * same order as skin_can_rx() and skin_can_timeout() in driver/skin_can.c,
 * so the samples, flags and counters a reader finds in the file are the
 * ones /dev/skin/NAME would have shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/can/error.h>

#include "sim-private.h"
#include "skin_core.h"

struct skin_sim_ring {
	void *mem;
	size_t size;
	struct skin_ring ring;
	struct skin_asm assembler;
	struct skin_patch_config cfg;
	uint64_t timeout_ns;
	uint64_t deadline;	/* of the pending sample; 0: none */
};

static void stat_inc(struct skin_sim_ring *r, unsigned int n)
{
	/* plain stores, as the driver's counters in the control page */
	r->ring.ctrl->stats[n]++;
}

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
		sim_err_set(err, path, 0, 0, "out of memory");
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
		sim_err_set(err, path, 0, 0, "cannot make a ring: %s", why);
		goto fail;
	}
	/* the driver's timer: 1.5 periods after the first half of a sample */
	r->timeout_ns = (uint64_t)b->period_ms * 1500000;

	r->size = (size_t)page + (sizeof(struct skin_frame) << log2);
	sprintf(tmp, "%s.tmp", path);
	fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)r->size) < 0) {
		sim_err_set(err, tmp, 0, 0, "cannot create: %s", strerror(errno));
		goto fail;
	}
	r->mem = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		sim_err_set(err, tmp, 0, 0, "mmap: %s", strerror(errno));
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
		sim_err_set(err, path, 0, 0, "cannot create: %s", strerror(errno));
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

static void publish(struct skin_sim_ring *r, u16 flags)
{
	struct skin_frame *slot = skin_ring_begin(&r->ring);

	flags = skin_asm_fill(&r->assembler, slot, flags);
	skin_ring_commit(&r->ring, slot);
	stat_inc(r, SKIN_STAT_FRAMES);
	if (flags & SKIN_FRAME_PARTIAL)
		stat_inc(r, SKIN_STAT_PARTIAL);
}

void skin_sim_ring_tick(struct skin_sim_ring *r, uint64_t now_ns)
{
	if (r->deadline && now_ns >= r->deadline) {
		r->deadline = 0;
		if (skin_asm_pending(&r->assembler)) {
			publish(r, SKIN_FRAME_TIMEOUT);
			stat_inc(r, SKIN_STAT_TIMEOUTS);
		}
	}
}

void skin_sim_ring_flush(struct skin_sim_ring *r)
{
	r->deadline = 0;
	if (skin_asm_pending(&r->assembler)) {
		publish(r, SKIN_FRAME_TIMEOUT);
		stat_inc(r, SKIN_STAT_TIMEOUTS);
	}
}

void skin_sim_ring_rx(struct skin_sim_ring *r, const struct can_frame *cf,
		      uint64_t ts_ns)
{
	struct skin_asm *a = &r->assembler;
	canid_t data_id = SKIN_DATA_ID(r->cfg.cls, r->cfg.address, 0);
	enum skin_rx_verdict verdict;
	struct skin_half h;

	/* the driver's two CAN filters (driver/skin_can.c) */
	if (cf->can_id & CAN_ERR_FLAG) {
		if (!(cf->can_id & CAN_ERR_MASK))
			return;
	} else if ((cf->can_id & SKIN_DATA_MASK) != data_id) {
		return;
	}
	skin_sim_ring_tick(r, ts_ns);

	verdict = skin_asm_check(a, cf, false, &h);
	stat_inc(r, verdict);
	if (verdict == SKIN_RX_ERR_FRAME) {
		stat_inc(r, cf->can_id & CAN_ERR_BUSOFF ? SKIN_STAT_BUS_OFF :
			 SKIN_STAT_BUS_ERROR);
	} else if (skin_verdict_accepted(verdict)) {
		if (h.diag)
			stat_inc(r, SKIN_STAT_DIAG);
		if (skin_asm_is_repeat(a, &h)) {
			publish(r, SKIN_FRAME_REPEAT);
			stat_inc(r, SKIN_STAT_REPEATS);
		}
		if (!skin_asm_pending(a))
			r->deadline = ts_ns + r->timeout_ns;
		skin_asm_apply(a, &h, ts_ns);
		if (skin_asm_complete(a)) {
			publish(r, 0);
			r->deadline = 0;
		}
	}
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
