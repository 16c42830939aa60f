// SPDX-License-Identifier: GPL-2.0
/*
 * skin_compat_test.c - KUnit suite for skin_compat.h: each wrapper does on
 * the kernel it runs on what the driver relies on.  Run on the trees of
 * two kernels (tests/kunit/run), which take different sides of most
 * wrappers' version tests.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "skin_compat.h"

/* as skin_main.c's, on the device type the class gives */
static char *compat_devnode(SKIN_DEVNODE_CONST struct device *dev,
			    umode_t *mode)
{
	*mode = 0640;
	return kasprintf(GFP_KERNEL, "skin/%s", dev_name(dev));
}

static void skin_compat_class(struct kunit *test)
{
	struct class *cls = skin_class_create("skin_compat_test");
	struct device *dev;
	umode_t mode = 0;
	char *node;

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(cls));
	KUNIT_EXPECT_STREQ(test, cls->name, "skin_compat_test");
	cls->devnode = compat_devnode;
	dev = device_create(cls, NULL, MKDEV(0, 0), NULL, "left_hand");
	if (IS_ERR(dev)) {
		class_destroy(cls);
		KUNIT_FAIL(test, "device_create: %ld", PTR_ERR(dev));
		return;
	}
	node = cls->devnode(dev, &mode);
	KUNIT_EXPECT_STREQ(test, node, "skin/left_hand");
	KUNIT_EXPECT_EQ(test, mode, 0640);
	kfree(node);
	device_unregister(dev);
	class_destroy(cls);
}

/*
 * A vma as ->mmap() is given one, minus the mm: UML has no per-VMA locks,
 * so vm_flags_clear() takes none (the VM layer maps the device for real).
 */
static void skin_compat_vm_flags_clear(struct kunit *test)
{
	struct vm_area_struct *vma = kunit_kzalloc(test, sizeof(*vma),
						   GFP_KERNEL);
	const vm_flags_t flags = VM_READ | VM_SHARED | VM_MAYREAD |
				 VM_MAYWRITE | VM_MAYSHARE;

	KUNIT_ASSERT_NOT_NULL(test, vma);
#if SKIN_KERNEL_SINCE(6, 3)
	vm_flags_init(vma, flags);
#else
	vma->vm_flags = flags;
#endif
	skin_vm_flags_clear(vma, VM_MAYWRITE);
	KUNIT_EXPECT_EQ(test, vma->vm_flags, flags & ~VM_MAYWRITE);
	skin_vm_flags_clear(vma, VM_MAYWRITE);
	KUNIT_EXPECT_EQ(test, vma->vm_flags, flags & ~VM_MAYWRITE);
}

struct compat_hrtimer {
	struct hrtimer timer;
	struct completion fired;
};

static enum hrtimer_restart compat_hrtimer_fn(struct hrtimer *t)
{
	struct compat_hrtimer *c = container_of(t, struct compat_hrtimer,
						timer);

	complete(&c->fired);
	return HRTIMER_NORESTART;
}

static void skin_compat_hrtimer_setup(struct kunit *test)
{
	struct compat_hrtimer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->fired);
	skin_hrtimer_setup(&c->timer, compat_hrtimer_fn, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_SOFT);
	KUNIT_EXPECT_EQ(test, c->timer.base->clockid, CLOCK_MONOTONIC);
	KUNIT_EXPECT_TRUE(test, c->timer.is_soft);
	hrtimer_start(&c->timer, ms_to_ktime(1), HRTIMER_MODE_REL_SOFT);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&c->fired, 10 * HZ),
			0UL);
	hrtimer_cancel(&c->timer);
}

struct compat_timer {
	struct timer_list timer;
	struct completion fired;
};

static void compat_timer_fn(struct timer_list *t)
{
	struct compat_timer *c = container_of(t, struct compat_timer, timer);

	complete(&c->fired);
}

static void skin_compat_timer_delete_sync(struct kunit *test)
{
	struct compat_timer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->fired);
	timer_setup(&c->timer, compat_timer_fn, 0);

	/* pending: deleted before it fires, and it never does */
	mod_timer(&c->timer, jiffies + 60 * HZ);
	KUNIT_EXPECT_EQ(test, skin_timer_delete_sync(&c->timer), 1);
	KUNIT_EXPECT_FALSE(test, timer_pending(&c->timer));
	KUNIT_EXPECT_FALSE(test, completion_done(&c->fired));
	KUNIT_EXPECT_EQ(test, skin_timer_delete_sync(&c->timer), 0);

	/* fired: nothing left to delete */
	mod_timer(&c->timer, jiffies + 1);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&c->fired, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, skin_timer_delete_sync(&c->timer), 0);
}

static void skin_compat_can_skb(struct kunit *test)
{
	const struct can_frame cf = {
		.can_id = 0x4e0, .len = 2, .data = { 0x4c, 0x01 },
	};
	struct sk_buff *skb = skin_can_skb_alloc(7, &cf);
	struct can_skb_priv priv;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, CAN_MTU);
	KUNIT_EXPECT_EQ(test, memcmp(skb->data, &cf, CAN_MTU), 0);
	KUNIT_EXPECT_GE(test, skb_headroom(skb), sizeof(struct can_skb_priv));
	/* what the fields of this kernel's can_skb_priv are, zeroed */
	memset(&priv, 0, sizeof(priv));
	priv.ifindex = 7;
	KUNIT_EXPECT_EQ(test, memcmp(can_skb_prv(skb), &priv, sizeof(priv)), 0);
	kfree_skb(skb);
}

static struct kunit_case skin_compat_cases[] = {
	KUNIT_CASE(skin_compat_class),
	KUNIT_CASE(skin_compat_vm_flags_clear),
	KUNIT_CASE(skin_compat_hrtimer_setup),
	KUNIT_CASE(skin_compat_timer_delete_sync),
	KUNIT_CASE(skin_compat_can_skb),
	{}
};

static struct kunit_suite skin_compat_suite = {
	.name = "skin_compat",
	.test_cases = skin_compat_cases,
};

kunit_test_suite(skin_compat_suite);
