// SPDX-License-Identifier: GPL-2.0
/*
 * skin_cdev.c - /dev/skin/NAME: open, read, poll, mmap, ioctl, and sysfs
 *
 * Every open file is a reader of the ring with its own position, starting
 * at the next frame published after open().  read() uses the same lock-free
 * reader as user space (skin_ring_read()), so a slow reader loses frames,
 * flagged SKIN_FRAME_LOST on the next frame it gets, and never holds up the
 * writer.  mmap() maps the ring read-only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "skin.h"

/**
 * struct skin_reader - an open file of /dev/skin/NAME
 * @live: the live patch; the file holds a reference to its device
 * @next: sequence number of the frame read() returns next
 * @lost: frames lost since the last frame returned
 * @mapped: the file was mmap()ed: poll() reports new frames by @poll_head
 * @poll_head: the head when poll() last reported POLLIN to a mapped file
 *
 * The kernel cannot know how far a reader of the mapping got, so for a
 * mapped file POLLIN means "frames were published since poll() last said
 * POLLIN": a reader that drains the ring up to the head after each POLLIN
 * never misses a wakeup.
 */
struct skin_reader {
	struct skin_live *live;
	u64 next;
	u64 lost;
	bool mapped;
	u64 poll_head;
};

static u64 skin_head(const struct skin_live *live)
{
	/* pairs with the store-release of the head in skin_ring_commit() */
	return smp_load_acquire(&live->ring.ctrl->head);
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
	r->next = skin_head(live) + 1;
	file->private_data = r;
	return stream_open(inode, file);
}

static int skin_release(struct inode *inode, struct file *file)
{
	struct skin_reader *r = file->private_data;

	put_device(&r->live->dev);
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
		err = wait_event_interruptible(live->wait,
					       skin_head(live) >= r->next ||
					       READ_ONCE(live->removed));
		if (err)
			return err;
	}
	return done;
}

static __poll_t skin_poll(struct file *file, poll_table *wait)
{
	struct skin_reader *r = file->private_data;
	struct skin_live *live = r->live;
	__poll_t mask = 0;
	u64 head;

	poll_wait(file, &live->wait, wait);
	head = skin_head(live);
	if (READ_ONCE(r->mapped)) {
		if (head > READ_ONCE(r->poll_head)) {
			WRITE_ONCE(r->poll_head, head);
			mask |= EPOLLIN | EPOLLRDNORM;
		}
	} else if (head >= r->next) {
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
	vma->vm_flags &= ~VM_MAYWRITE;
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
	if (READ_ONCE(live->removed))
		info->flags |= SKIN_INFO_REMOVED;
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
	case SKIN_IOC_STOP:
		rtnl_lock();
		if (READ_ONCE(live->removed)) {
			rtnl_unlock();
			return -ENODEV;
		}
		if (cmd == SKIN_IOC_START)
			skin_can_start(live);
		else
			skin_can_stop(live);
		rtnl_unlock();
		return 0;
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
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
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

static struct attribute *skin_dev_attrs[] = {
	&dev_attr_interface.attr,
	&dev_attr_can_class.attr,
	&dev_attr_address.attr,
	&dev_attr_skin_part.attr,
	&dev_attr_triangles.attr,
	&dev_attr_period_ms.attr,
	&dev_attr_bound.attr,
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
