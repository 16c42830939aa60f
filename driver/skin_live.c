// SPDX-License-Identifier: GPL-2.0
/*
 * skin_live.c - bringing an enabled patch to life and ending it
 *
 * Enabling a patch allocates its ring, adds /dev/skin/NAME, binds to the
 * interface if it exists and starts the board.  Ending it undoes that in
 * the order that keeps every path safe: stop the board, unbind, wait for
 * receive callbacks in flight, stop the timer and the delayed start, tell
 * readers (POLLHUP), remove the device node; the memory goes with the last
 * reference to the device (open files, mappings).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/if_arp.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>

#include "skin.h"

static DEFINE_IDA(skin_minors);
/* Serialises enabling and disabling, so conflicts are checked reliably. */
static DEFINE_MUTEX(skin_lives_mutex);

static void skin_live_release(struct device *dev)
{
	struct skin_live *live = container_of(dev, struct skin_live, dev);

	ida_free(&skin_minors, MINOR(dev->devt));
	vfree(live->ring_mem);
	kfree(live);
}

static void skin_live_fill_ctrl(struct skin_live *live)
{
	struct skin_ring_ctrl *ctrl = live->ring.ctrl;

	strscpy(ctrl->name, live->name, sizeof(ctrl->name));
	strscpy(ctrl->ifname, live->cfg.ifname, sizeof(ctrl->ifname));
	ctrl->cls = live->cfg.cls;
	ctrl->address = live->cfg.address;
	ctrl->skin_part = live->cfg.skin_part;
	ctrl->triangles = live->cfg.triangles;
	ctrl->period_ms = live->cfg.period_ms;
	ctrl->no_load = live->cfg.no_load;
}

/* Under skin_lives_mutex. */
static struct skin_live *skin_live_conflict(const struct skin_patch_config *cfg)
{
	struct skin_live *live;

	list_for_each_entry(live, &skin_lives, node)
		if (!strcmp(live->cfg.ifname, cfg->ifname) &&
		    live->cfg.cls == cfg->cls &&
		    live->cfg.address == cfg->address)
			return live;
	return NULL;
}

/**
 * skin_live_create() - enable a patch
 * @name: the patch name, valid (skin_name_check())
 * @cfg: its configuration, valid (skin_patch_config_check())
 *
 * Return: the live patch, or an ERR_PTR: -EEXIST when another live patch
 * has the same interface, class and board address; the error of
 * can_rx_register() when the interface exists and refuses the receive
 * filters (nothing is left of the patch then).
 */
struct skin_live *skin_live_create(const char *name,
				   const struct skin_patch_config *cfg)
{
	size_t frames = sizeof(struct skin_frame) << cfg->ring_log2;
	struct skin_live *live, *other;
	struct net_device *netdev;
	int minor, err;

	live = kzalloc(sizeof(*live), GFP_KERNEL);
	if (!live)
		return ERR_PTR(-ENOMEM);
	live->cfg = *cfg;
	strscpy(live->name, name, sizeof(live->name));
	INIT_LIST_HEAD(&live->node);
	spin_lock_init(&live->lock);
	INIT_LIST_HEAD(&live->readers);
	timer_setup(&live->timer, skin_can_timeout, 0);
	INIT_DELAYED_WORK(&live->start_work, skin_can_start_work);
	live->timeout = msecs_to_jiffies(cfg->period_ms * 3 / 2) + 1;

	live->ring_size = PAGE_SIZE + PAGE_ALIGN(frames);
	live->ring_mem = vmalloc_user(live->ring_size);
	if (!live->ring_mem) {
		kfree(live);
		return ERR_PTR(-ENOMEM);
	}
	skin_ring_init(&live->ring, live->ring_mem, PAGE_SIZE, cfg->ring_log2);
	skin_live_fill_ctrl(live);
	skin_asm_init(&live->assembler, cfg);

	minor = ida_alloc_max(&skin_minors, SKIN_MINORS - 1, GFP_KERNEL);
	if (minor < 0) {
		vfree(live->ring_mem);
		kfree(live);
		return ERR_PTR(minor == -ENOSPC ? -EMFILE : minor);
	}

	/* From here on, put_device() frees everything. */
	device_initialize(&live->dev);
	live->dev.class = skin_class;
	live->dev.devt = MKDEV(MAJOR(skin_devt), minor);
	live->dev.groups = skin_dev_groups;
	live->dev.release = skin_live_release;
	err = dev_set_name(&live->dev, "%s", name);
	if (err)
		goto put;
	cdev_init(&live->cdev, &skin_fops);
	live->cdev.owner = THIS_MODULE;

	mutex_lock(&skin_lives_mutex);
	other = skin_live_conflict(cfg);
	if (other) {
		pr_warn("%s: board %u class %u on %s is patch %s's already\n",
			name, cfg->address, cfg->cls, cfg->ifname, other->name);
		err = -EEXIST;
		goto unlock;
	}
	err = cdev_device_add(&live->cdev, &live->dev);
	if (err)
		goto unlock;

	rtnl_lock();
	netdev = __dev_get_by_name(&init_net, cfg->ifname);
	if (netdev && netdev->type == ARPHRD_CAN)
		err = skin_can_bind(live, netdev);
	else
		dev_info(&live->dev, "waiting for %s\n", cfg->ifname);
	if (!err) {
		list_add(&live->node, &skin_lives);
		/* a refused command is counted (tx_failed), not fatal */
		skin_can_start(live);
	}
	rtnl_unlock();
	mutex_unlock(&skin_lives_mutex);
	if (err) {
		/*
		 * Undone as a disable does it: a reader may have opened the
		 * device meanwhile.  Not on skin_lives: its node is empty.
		 */
		skin_live_destroy(live);
		return ERR_PTR(err);
	}
	return live;

unlock:
	mutex_unlock(&skin_lives_mutex);
put:
	put_device(&live->dev);
	return ERR_PTR(err);
}

/**
 * skin_live_destroy() - disable a patch
 * @live: the live patch; the caller's reference is dropped
 */
void skin_live_destroy(struct skin_live *live)
{
	mutex_lock(&skin_lives_mutex);
	rtnl_lock();
	skin_can_stop(live);
	skin_can_unbind(live);
	list_del(&live->node);
	rtnl_unlock();
	mutex_unlock(&skin_lives_mutex);

	/* skin_can_rx() may still run on another CPU until a grace period. */
	synchronize_net();
	cancel_delayed_work_sync(&live->start_work);
	skin_timer_delete_sync(&live->timer);

	WRITE_ONCE(live->removed, true);
	skin_cdev_wake_all(live, EPOLLHUP);
	cdev_device_del(&live->cdev, &live->dev);
	put_device(&live->dev);
}
