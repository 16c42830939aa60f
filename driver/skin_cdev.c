// SPDX-License-Identifier: GPL-2.0
/*
 * skin_cdev.c - /dev/skin/NAME: open, read, poll, mmap, ioctl, and sysfs
 *
 * Every open file is a reader of the ring with its own position, starting
 * at the next frame published after open().  read() uses the same lock-free
 * reader as user space (skin_ring_read()), so a slow reader loses frames,
 * flagged SKIN_FRAME_LOST on the next frame it gets, and never holds up the
 * writer.  mmap() maps the ring read-only.  Each file has its own wait
 * queue, so that it can be woken once per N frames (SKIN_IOC_SET_WAKEUP,
 * struct skin_reader below).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "skin.h"

/**
 * struct skin_reader - an open file of /dev/skin/NAME
 * @live: the live patch; the file holds a reference to its device
 * @node: in live->readers, under live->lock
 * @wait: the file's waiters (read(), poll(), epoll)
 * @next: sequence number of the frame read() returns next
 * @lost: frames lost since the last frame returned
 * @mapped: the file was mmap()ed: poll() reports new frames by @poll_head
 * @poll_head: the head when poll() last reported POLLIN to a mapped file
 * @wake_frames: SKIN_IOC_SET_WAKEUP: POLLIN once this many frames are
 *	pending; 1 is unmoderated.  Written under live->lock.
 * @wake_usecs: ... or once the oldest pending one waited this long
 * @due: frames up to this sequence number are due for a wakeup: their
 *	time bound ran out or they completed a batch.  Only grows; written
 *	under live->lock.
 * @timer_armed: @timer runs for the oldest pending frame; under live->lock
 * @timer: the time bound of a moderated file, a soft hrtimer (softirq
 *	context, like the writer, also on PREEMPT_RT)
 *
 * The kernel cannot know how far a reader of the mapping got, so for a
 * mapped file POLLIN means "frames were published since poll() last said
 * POLLIN": a reader that drains the ring up to the head after each POLLIN
 * never misses a wakeup.
 *
 * Wakeup moderation (@wake_frames > 1) keeps that contract and only delays
 * POLLIN: it comes when @wake_frames frames are pending or when frames are
 * @due.  The writer, which runs in softirq under live->lock and must stay
 * O(readers) without ever waiting, decides per published frame: batch
 * full -> mark everything up to the head due, stop the timer, wake;
 * otherwise start the timer if it is not running.  So every frame is
 * covered either by a wakeup that makes it due or by a timer that fires
 * after it was published and makes it due: none is left pending without a
 * wakeup.  The writer reads the reader's position (@next, @poll_head)
 * without a lock; a stale position only overstates what is pending, which
 * errs towards an early wakeup, never a missed one (and since the wakeup
 * marks the head due, poll() agrees with it).
 */
struct skin_reader {
	struct skin_live *live;
	struct list_head node;
	wait_queue_head_t wait;
	u64 next;
	u64 lost;
	bool mapped;
	u64 poll_head;
	u32 wake_frames;
	u32 wake_usecs;
	u64 due;
	bool timer_armed;
	struct hrtimer timer;
};

static u64 skin_head(const struct skin_live *live)
{
	/* pairs with the store-release of the head in skin_ring_commit() */
	return smp_load_acquire(&live->ring.ctrl->head);
}

/* The newest frame poll() counts as delivered to @r. */
static u64 skin_reader_seen(const struct skin_reader *r)
{
	if (READ_ONCE(r->mapped))
		return READ_ONCE(r->poll_head);
	return READ_ONCE(r->next) - 1;
}

/*
 * Whether the frames after @seen up to @head make POLLIN for @r.  Unmoderated
 * (wake_frames 1): any frame.  Moderated: a full batch, frames due, or a
 * stream that ended (patch removed, interface gone) with frames pending.
 */
static bool skin_reader_ready(const struct skin_reader *r, u64 seen, u64 head)
{
	const struct skin_live *live = r->live;

	if (head <= seen)
		return false;
	if (head - seen >= READ_ONCE(r->wake_frames))
		return true;
	return READ_ONCE(r->due) > seen || !READ_ONCE(live->netdev) ||
	       READ_ONCE(live->removed);
}

/* For read(): frames to return, or end of file. */
static bool skin_read_ready(const struct skin_reader *r)
{
	return skin_reader_ready(r, r->next - 1, skin_head(r->live)) ||
	       READ_ONCE(r->live->removed);
}

/* Under live->lock. */
static void skin_reader_stop_timer(struct skin_reader *r)
{
	if (r->timer_armed) {
		/* never waits: a callback already running finds nothing to do */
		hrtimer_try_to_cancel(&r->timer);
		r->timer_armed = false;
	}
}

/* Under live->lock, after frame @head was published. */
static void skin_reader_moderate(struct skin_reader *r, u64 head)
{
	u64 seen = skin_reader_seen(r);

	if (head <= seen)
		return;
	if (head - seen >= r->wake_frames) {
		WRITE_ONCE(r->due, head);
		skin_reader_stop_timer(r);
		wake_up_interruptible_poll(&r->wait, EPOLLIN | EPOLLRDNORM);
	} else if (!r->timer_armed) {
		r->timer_armed = true;
		hrtimer_start(&r->timer,
			      ns_to_ktime((u64)r->wake_usecs * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
	}
}

/**
 * skin_cdev_published() - tell the readers that frames were published
 * @live: the live patch, under live->lock (the writer: softirq)
 *
 * O(readers), never sleeps, never waits for a reader.  An unmoderated file
 * costs what a shared wait queue cost: one wakeup of its waiters.
 */
void skin_cdev_published(struct skin_live *live)
{
	u64 head = live->ring.ctrl->head;	/* the writer's own store */
	struct skin_reader *r;

	lockdep_assert_held(&live->lock);
	list_for_each_entry(r, &live->readers, node) {
		if (r->wake_frames <= 1)
			wake_up_interruptible_poll(&r->wait,
						   EPOLLIN | EPOLLRDNORM);
		else
			skin_reader_moderate(r, head);
	}
}

/**
 * skin_cdev_wake_all() - wake every reader of a patch, never moderated
 * @live: the live patch, live->lock not held
 * @events: why: EPOLLHUP (removed), EPOLLERR (interface gone)
 */
void skin_cdev_wake_all(struct skin_live *live, __poll_t events)
{
	struct skin_reader *r;

	spin_lock_bh(&live->lock);
	list_for_each_entry(r, &live->readers, node)
		wake_up_interruptible_poll(&r->wait, events);
	spin_unlock_bh(&live->lock);
}

/* The time bound of a moderated file ran out: what is pending is due. */
static enum hrtimer_restart skin_reader_timeout(struct hrtimer *t)
{
	struct skin_reader *r = container_of(t, struct skin_reader, timer);
	struct skin_live *live = r->live;
	bool wake;
	u64 head;

	spin_lock(&live->lock);
	r->timer_armed = false;
	head = skin_head(live);
	wake = head > skin_reader_seen(r);
	if (wake)
		WRITE_ONCE(r->due, head);
	spin_unlock(&live->lock);

	if (wake)
		wake_up_interruptible_poll(&r->wait, EPOLLIN | EPOLLRDNORM);
	return HRTIMER_NORESTART;
}

static int skin_open(struct inode *inode, struct file *file)
{
	struct skin_live *live = container_of(inode->i_cdev, struct skin_live,
					      cdev);
	struct skin_reader *r;

	if (READ_ONCE(live->removed))
		return -ENODEV;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	get_device(&live->dev);
	r->live = live;
	init_waitqueue_head(&r->wait);
	r->wake_frames = 1;
	skin_hrtimer_setup(&r->timer, skin_reader_timeout, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_SOFT);
	spin_lock_bh(&live->lock);
	r->next = skin_head(live) + 1;
	list_add_tail(&r->node, &live->readers);
	spin_unlock_bh(&live->lock);
	file->private_data = r;
	return stream_open(inode, file);
}

static int skin_release(struct inode *inode, struct file *file)
{
	struct skin_reader *r = file->private_data;
	struct skin_live *live = r->live;

	spin_lock_bh(&live->lock);
	list_del(&r->node);
	spin_unlock_bh(&live->lock);
	/* Off the list, nothing starts the timer again; wait for a callback. */
	hrtimer_cancel(&r->timer);
	put_device(&live->dev);
	kfree(r);
	return 0;
}

static ssize_t skin_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct skin_reader *r = file->private_data;
	struct skin_live *live = r->live;
	struct skin_frame frame;
	size_t done = 0;
	int err;

	if (count < sizeof(frame))
		return -EINVAL;

	while (count - done >= sizeof(frame)) {
		/* A moderated file blocks until its batch or bound, too. */
		if (!done && !(file->f_flags & O_NONBLOCK)) {
			err = wait_event_interruptible(r->wait,
						       skin_read_ready(r));
			if (err)
				return err;
		}
		if (skin_ring_read(live->ring.ctrl, live->ring.slots, &r->next,
				   &frame, &r->lost) == SKIN_RING_FRAME) {
			if (r->lost) {
				frame.flags |= SKIN_FRAME_LOST;
				r->lost = 0;
			}
			if (copy_to_user(buf + done, &frame, sizeof(frame)))
				return done ? done : -EFAULT;
			done += sizeof(frame);
			continue;
		}
		if (done || READ_ONCE(live->removed))
			break;		/* what there is, or end of file */
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
	}
	return done;
}

static __poll_t skin_poll(struct file *file, poll_table *wait)
{
	struct skin_reader *r = file->private_data;
	struct skin_live *live = r->live;
	__poll_t mask = 0;
	u64 head;

	poll_wait(file, &r->wait, wait);
	head = skin_head(live);
	if (skin_reader_ready(r, skin_reader_seen(r), head)) {
		if (READ_ONCE(r->mapped))
			WRITE_ONCE(r->poll_head, head);
		mask |= EPOLLIN | EPOLLRDNORM;
	}
	if (READ_ONCE(live->removed))
		mask |= EPOLLHUP;
	else if (!READ_ONCE(live->netdev))
		mask |= EPOLLERR;	/* the interface is gone */
	return mask;
}

static int skin_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct skin_reader *r = file->private_data;
	struct skin_live *live = r->live;
	int err;

	if (vma->vm_pgoff)
		return -EINVAL;
	if (vma->vm_end - vma->vm_start > live->ring_size)
		return -EINVAL;
	/* One writer, the kernel: no mapping may ever write. */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	skin_vm_flags_clear(vma, VM_MAYWRITE);
	err = remap_vmalloc_range(vma, live->ring_mem, 0);
	if (err)
		return err;
	if (!READ_ONCE(r->mapped)) {
		WRITE_ONCE(r->poll_head, skin_head(live));
		WRITE_ONCE(r->mapped, true);
	}
	return 0;
}

static void skin_fill_info(struct skin_live *live, struct skin_info *info)
{
	const struct skin_patch_config *cfg = &live->cfg;
	struct net_device *netdev;

	memset(info, 0, sizeof(*info));
	info->abi_version = SKIN_ABI_VERSION;
	info->frame_size = sizeof(struct skin_frame);
	info->frame_count = live->ring.ctrl->frame_count;
	info->head = skin_head(live);
	strscpy(info->name, live->name, sizeof(info->name));
	strscpy(info->ifname, cfg->ifname, sizeof(info->ifname));
	info->cls = cfg->cls;
	info->address = cfg->address;
	info->skin_part = cfg->skin_part;
	info->skin_type = cfg->skin_type;
	info->triangles = cfg->triangles;
	info->period_ms = cfg->period_ms;
	info->no_load = cfg->no_load;
	info->shift = cfg->shift;
	info->cdc_offset = cfg->cdc_offset;

	rtnl_lock();
	netdev = live->netdev;
	if (netdev)
		info->flags |= SKIN_INFO_BOUND;
	if (netdev && (netdev->flags & IFF_UP))
		info->flags |= SKIN_INFO_UP;
	if (live->streaming)
		info->flags |= SKIN_INFO_STREAMING;
	rtnl_unlock();
	if (cfg->listen_only)
		info->flags |= SKIN_INFO_LISTEN_ONLY;
	if (READ_ONCE(live->removed))
		info->flags |= SKIN_INFO_REMOVED;
}

/*
 * A batch of more than half the ring would be overwritten by the frames
 * published while its reader wakes up and drains it; a batch without a time
 * bound would strand the last frames of a stream that stops mid-batch.
 */
static int skin_wakeup_check(const struct skin_live *live,
			     const struct skin_wakeup *w)
{
	if (w->flags || w->reserved)
		return -EINVAL;
	if (!w->frames || w->frames > live->ring.ctrl->frame_count / 2)
		return -EINVAL;
	if (w->frames > 1 && !w->usecs)
		return -EINVAL;
	return 0;
}

static int skin_set_wakeup(struct skin_reader *r, const struct skin_wakeup *w)
{
	struct skin_live *live = r->live;
	int err = skin_wakeup_check(live, w);

	if (err)
		return err;
	spin_lock_bh(&live->lock);
	WRITE_ONCE(r->wake_frames, w->frames);
	WRITE_ONCE(r->wake_usecs, w->usecs);
	/*
	 * What is pending now was counted under the old setting: deliver it
	 * (no timer runs for it any more), the new setting starts after it.
	 */
	skin_reader_stop_timer(r);
	WRITE_ONCE(r->due, skin_head(live));
	spin_unlock_bh(&live->lock);
	wake_up_interruptible_poll(&r->wait, EPOLLIN | EPOLLRDNORM);
	return 0;
}

static long skin_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct skin_reader *r = file->private_data;
	struct skin_live *live = r->live;
	void __user *uarg = (void __user *)arg;
	unsigned int i;

	switch (cmd) {
	case SKIN_IOC_GET_INFO: {
		struct skin_info info;

		skin_fill_info(live, &info);
		return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
	}
	case SKIN_IOC_GET_STATS: {
		struct skin_stats *stats;
		int err = 0;

		stats = kzalloc(sizeof(*stats), GFP_KERNEL);
		if (!stats)
			return -ENOMEM;
		stats->count = SKIN_STAT_NR;
		for (i = 0; i < SKIN_STAT_NR; i++)
			stats->stat[i] = skin_stat_read(live, i);
		if (copy_to_user(uarg, stats, sizeof(*stats)))
			err = -EFAULT;
		kfree(stats);
		return err;
	}
	/* Per file, not the patch's: also for files opened read-only. */
	case SKIN_IOC_SET_WAKEUP: {
		struct skin_wakeup w;

		if (copy_from_user(&w, uarg, sizeof(w)))
			return -EFAULT;
		return skin_set_wakeup(r, &w);
	}
	case SKIN_IOC_GET_WAKEUP: {
		struct skin_wakeup w = {
			.frames = READ_ONCE(r->wake_frames),
			.usecs = READ_ONCE(r->wake_usecs),
		};

		return copy_to_user(uarg, &w, sizeof(w)) ? -EFAULT : 0;
	}
	}

	/* The rest changes the patch: only for files opened for writing. */
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;

	switch (cmd) {
	case SKIN_IOC_RESET_STATS:
		spin_lock_bh(&live->lock);
		for (i = 0; i < SKIN_STAT_NR; i++)
			WRITE_ONCE(skin_stats(live)[i], 0);
		spin_unlock_bh(&live->lock);
		return 0;
	case SKIN_IOC_START:
	case SKIN_IOC_STOP: {
		int err = 0;

		rtnl_lock();
		if (READ_ONCE(live->removed)) {
			rtnl_unlock();
			return -ENODEV;
		}
		if (cmd == SKIN_IOC_START)
			err = skin_can_start(live);	/* 0 if deferred */
		else
			skin_can_stop(live);
		rtnl_unlock();
		return err;
	}
	}
	return -ENOTTY;
}

const struct file_operations skin_fops = {
	.owner		= THIS_MODULE,
	.open		= skin_open,
	.release	= skin_release,
	.read		= skin_read,
	.poll		= skin_poll,
	.mmap		= skin_mmap,
	.unlocked_ioctl	= skin_ioctl,
	/* the same layouts for 32-bit tasks (<linux/skin.h>, docs/UAPI.md) */
	.compat_ioctl	= compat_ptr_ioctl,
	/*
	 * No .llseek: stream_open() cleared FMODE_LSEEK, so lseek() fails
	 * with ESPIPE on every kernel (no_llseek is gone in 6.12).
	 */
};

/* sysfs: /sys/class/skin/NAME/ */

static struct skin_live *to_live(struct device *dev)
{
	return container_of(dev, struct skin_live, dev);
}

static ssize_t interface_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_live(dev)->cfg.ifname);
}
static DEVICE_ATTR_RO(interface);

static ssize_t can_class_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_live(dev)->cfg.cls);
}
static DEVICE_ATTR_RO(can_class);

static ssize_t address_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", to_live(dev)->cfg.address);
}
static DEVICE_ATTR_RO(address);

static ssize_t skin_part_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_live(dev)->cfg.skin_part);
}
static DEVICE_ATTR_RO(skin_part);

static ssize_t triangles_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", to_live(dev)->cfg.triangles);
}
static DEVICE_ATTR_RO(triangles);

static ssize_t period_ms_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_live(dev)->cfg.period_ms);
}
static DEVICE_ATTR_RO(period_ms);

static ssize_t bound_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", !!READ_ONCE(to_live(dev)->netdev));
}
static DEVICE_ATTR_RO(bound);

static ssize_t listen_only_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_live(dev)->cfg.listen_only);
}
static DEVICE_ATTR_RO(listen_only);

static struct attribute *skin_dev_attrs[] = {
	&dev_attr_interface.attr,
	&dev_attr_can_class.attr,
	&dev_attr_address.attr,
	&dev_attr_skin_part.attr,
	&dev_attr_triangles.attr,
	&dev_attr_period_ms.attr,
	&dev_attr_bound.attr,
	&dev_attr_listen_only.attr,
	NULL
};

static const struct attribute_group skin_dev_group = {
	.attrs = skin_dev_attrs,
};

/* stats/: one file per counter, named by skin_stat_name() */
struct skin_stat_attr {
	struct device_attribute attr;
	unsigned int stat;
};

static ssize_t skin_stat_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	const struct skin_stat_attr *sa =
		container_of(attr, struct skin_stat_attr, attr);

	return sysfs_emit(buf, "%llu\n", skin_stat_read(to_live(dev), sa->stat));
}

static struct skin_stat_attr skin_stat_attrs[SKIN_STAT_NR];
static struct attribute *skin_stat_attr_list[SKIN_STAT_NR + 1];

static const struct attribute_group skin_stats_group = {
	.name = "stats",
	.attrs = skin_stat_attr_list,
};

const struct attribute_group *skin_dev_groups[] = {
	&skin_dev_group,
	&skin_stats_group,
	NULL
};

void skin_cdev_init(void)
{
	unsigned int i;

	for (i = 0; i < SKIN_STAT_NR; i++) {
		struct skin_stat_attr *sa = &skin_stat_attrs[i];

		sysfs_attr_init(&sa->attr.attr);
		sa->attr.attr.name = skin_stat_name(i);
		sa->attr.attr.mode = 0444;
		sa->attr.show = skin_stat_show;
		sa->stat = i;
		skin_stat_attr_list[i] = &sa->attr.attr;
	}
}
