/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin_compat.h - one source for the kernels robot PCs run, 5.15 to 6.18
 *
 * Every kernel interface the driver uses that changed inside that range
 * is called through a wrapper here, under the driver's own name.  No
 * kernel name is ever defined under a version test: stable trees backport
 * new interfaces (timer_delete_sync() is in 6.1.84), and a version test
 * would then clash with them.  A wrapper calls the old interface below
 * the release that brought the new one, which surely has the old one, and
 * the new interface from that release on.  Each names the commit that
 * made it necessary; docs/KERNELS.md lists every interface the driver
 * uses, changed or not, and skin_compat_test.c tests each wrapper.
 *
 * (lib/kcompat/ is another thing: the kernel primitives the portable core
 * needs when it is built in user space.)
 */
#ifndef _SKIN_COMPAT_H
#define _SKIN_COMPAT_H

#include <linux/can.h>
#include <linux/can/skb.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/version.h>

/*
 * The one version test, in the one file that may test versions (which is
 * why scripts/checkpatch lets this file use LINUX_VERSION_CODE).
 */
#define SKIN_KERNEL_SINCE(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/*
 * 6.4, 1aaba11da9aa ("driver core: class: remove module * from
 * class_create()").
 */
static inline struct class *skin_class_create(const char *name)
{
#if SKIN_KERNEL_SINCE(6, 4)
	return class_create(name);
#else
	return class_create(THIS_MODULE, name);
#endif
}

/*
 * 6.2, ff62b8e6588f ("driver core: make struct class.devnode() take a
 * const *"): the qualifier of the device a class's devnode() is given.
 */
#if SKIN_KERNEL_SINCE(6, 2)
#define SKIN_DEVNODE_CONST const
#else
#define SKIN_DEVNODE_CONST
#endif

/*
 * 6.3, bc292ab00f6c ("mm: introduce vma->vm_flags wrapper functions") and
 * 1c71222e5f23 ("mm: replace vma->vm_flags direct modifications with
 * modifier calls"): vm_flags is read-only.  Called from ->mmap(), with the
 * mmap lock held for writing, as vm_flags_clear() wants.
 */
static inline void skin_vm_flags_clear(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
#if SKIN_KERNEL_SINCE(6, 3)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * 6.13, 908a1d775422 ("hrtimers: Introduce hrtimer_setup() to replace
 * hrtimer_init()"); hrtimer_init() and a writable ->function are gone in
 * 6.15.
 */
static inline void
skin_hrtimer_setup(struct hrtimer *timer,
		   enum hrtimer_restart (*function)(struct hrtimer *),
		   clockid_t clock_id, enum hrtimer_mode mode)
{
#if SKIN_KERNEL_SINCE(6, 13)
	hrtimer_setup(timer, function, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
#endif
}

/*
 * 6.2, 9b13df3fb64e ("timers: Rename del_timer_sync() to
 * timer_delete_sync()"); del_timer_sync() is gone in 6.15.  Returns
 * whether the timer was pending.
 */
static inline int skin_timer_delete_sync(struct timer_list *timer)
{
#if SKIN_KERNEL_SINCE(6, 2)
	return timer_delete_sync(timer);
#else
	return del_timer_sync(timer);
#endif
}

/*
 * A classic CAN frame in an skb for can_send(), as net/can/raw.c builds
 * one: struct can_skb_priv in the headroom, zeroed but for the interface.
 * Its fields are not named beyond ifindex: d4fb6514ff8e ("can: use skb
 * hash instead of private variable in headroom") removes skbcnt, and it
 * went to stable trees (5.15.y among them) where no version test can see
 * it.  The CAN skb extensions that replace the headroom came after 6.18
 * (docs/KERNELS.md); this is the one place to follow them.
 */
static inline struct sk_buff *skin_can_skb_alloc(int ifindex,
						 const struct can_frame *cf)
{
	struct sk_buff *skb;

	skb = alloc_skb(sizeof(struct can_skb_priv) + CAN_MTU, GFP_KERNEL);
	if (!skb)
		return NULL;
	can_skb_reserve(skb);
	memset(can_skb_prv(skb), 0, sizeof(struct can_skb_priv));
	can_skb_prv(skb)->ifindex = ifindex;
	skb_put_data(skb, cf, CAN_MTU);
	return skb;
}

#endif /* _SKIN_COMPAT_H */
