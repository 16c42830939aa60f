/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin.h - kernel-side objects of the skin driver
 *
 * A *patch* is what user space creates in configfs (/sys/kernel/config/
 * skin/NAME): a name and a configuration.  Enabling it brings a *live*
 * patch to life: the ring, the character device /dev/skin/NAME, the CAN
 * receive filters and the board's start-up.  Disabling or removing the
 * patch ends the live patch: readers see POLLHUP, and its memory goes away
 * with the last open file or mapping (the live patch is refcounted by its
 * struct device).
 */
#ifndef _SKIN_H
#define _SKIN_H

#include <linux/cdev.h>
#include <linux/configfs.h>
#include <linux/device.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "skin_compat.h"
#include "skin_core.h"

/**
 * struct skin_live - an enabled patch
 * @dev: the device of /dev/skin/NAME; its refcount is the live patch's
 * @cdev: the character device
 * @cfg: the configuration it was enabled with; immutable
 * @name: the patch name
 * @node: in skin_lives, under RTNL
 * @netdev: the bound interface, under RTNL; NULL while it does not exist
 * @streaming: the board was told to stream (and not told to stop), under
 *	RTNL
 * @removed: disabled or removed; readers get POLLHUP
 * @lock: serialises the receive path, the timers (the patch's and its
 *	readers'), statistics resets and the list of readers
 * @assembler: the staging frame
 * @ring: the writer's side of the ring
 * @ring_mem: ring memory (vmalloc_user), control page first
 * @ring_size: its size in bytes, page aligned
 * @timer: publishes a partial frame after 1.5 periods without completion
 * @timeout: 1.5 periods, in jiffies
 * @readers: the open files (struct skin_reader), under @lock; each has
 *	its own wait queue, so that a file can moderate its wakeups
 * @start_work: sends SET_TXMODE(on) once the board had time to settle
 */
struct skin_live {
	struct device dev;
	struct cdev cdev;
	struct skin_patch_config cfg;
	char name[SKIN_NAME_LEN];

	struct list_head node;
	struct net_device *netdev;
	bool streaming;
	bool removed;

	spinlock_t lock;		/* see above */
	struct skin_asm assembler;
	struct skin_ring ring;
	void *ring_mem;
	size_t ring_size;
	struct timer_list timer;
	unsigned long timeout;
	struct list_head readers;
	struct delayed_work start_work;
};

static inline u64 *skin_stats(struct skin_live *live)
{
	return live->ring.ctrl->stats;
}

/* Under live->lock (see skin_ring_stat_inc()). */
static inline void skin_stat_inc(struct skin_live *live, unsigned int stat)
{
	skin_ring_stat_inc(&live->ring, stat);
}

static inline u64 skin_stat_read(struct skin_live *live, unsigned int stat)
{
	return READ_ONCE(skin_stats(live)[stat]);
}

#define SKIN_MINORS	256

/* skin_main.c */
extern struct class *skin_class;
extern dev_t skin_devt;

/* skin_live.c */
struct skin_live *skin_live_create(const char *name,
				   const struct skin_patch_config *cfg);
void skin_live_destroy(struct skin_live *live);

/* skin_can.c */
int skin_can_bind(struct skin_live *live, struct net_device *netdev);
void skin_can_unbind(struct skin_live *live);
int skin_can_start(struct skin_live *live);
void skin_can_stop(struct skin_live *live);
void skin_can_timeout(struct timer_list *t);
void skin_can_start_work(struct work_struct *work);
int skin_can_init(void);
void skin_can_exit(void);
extern struct list_head skin_lives;

/* skin_cdev.c */
extern const struct file_operations skin_fops;
extern const struct attribute_group *skin_dev_groups[];
void skin_cdev_init(void);
void skin_cdev_published(struct skin_live *live);
void skin_cdev_wake_all(struct skin_live *live, __poll_t events);

/* skin_configfs.c */
int skin_configfs_init(void);
void skin_configfs_exit(void);

#endif /* _SKIN_H */
