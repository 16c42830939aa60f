// SPDX-License-Identifier: GPL-2.0
/*
 * skin_main.c - module entry: bind to a CAN interface and count skin frames
 *
 * Walking skeleton of the skin driver.  The module follows the interface
 * named by the "ifname" parameter through its whole life (it may appear after
 * the module loads, go away and come back, or be renamed), receives the skin
 * data classes on it from the CAN core and counts every frame by decoder
 * verdict.  The counters are in /sys/kernel/skin/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/can.h>
#include <linux/can/core.h>
#include <linux/can/skb.h>
#include <linux/if_arp.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>

#include "skin_core.h"

static char *ifname = "vcan0";
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "CAN interface to receive skin frames from");

/* The classes received: every board and triangle of each. */
static const canid_t skin_rx_classes[] = {
	SKIN_CLASS_DATA_OLD << 8,
	SKIN_CLASS_DATA << 8,
};

#define SKIN_RX_CLASS_MASK	0x700

static atomic_long_t skin_counters[SKIN_RX_NR];

/* Bound device; written under RTNL only, by the notifier; sysfs peeks. */
static struct net_device *skin_dev;

static void skin_rx(struct sk_buff *skb, void *data)
{
	const struct can_frame *cf = (const struct can_frame *)skb->data;
	enum skin_rx_verdict verdict;
	struct skin_half half;

	verdict = skin_decode(cf, can_is_canfd_skb(skb), &half);
	atomic_long_inc(&skin_counters[verdict]);
}

static int skin_bind(struct net_device *dev)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(skin_rx_classes); i++) {
		err = can_rx_register(dev_net(dev), dev, skin_rx_classes[i],
				      SKIN_RX_CLASS_MASK, skin_rx, NULL,
				      "skin", NULL);
		if (err)
			goto unwind;
	}
	err = can_rx_register(dev_net(dev), dev, 0, CAN_ERR_MASK | CAN_ERR_FLAG,
			      skin_rx, NULL, "skin", NULL);
	if (err)
		goto unwind;

	WRITE_ONCE(skin_dev, dev);
	netdev_info(dev, "skin: bound\n");
	return 0;

unwind:
	while (i--)
		can_rx_unregister(dev_net(dev), dev, skin_rx_classes[i],
				  SKIN_RX_CLASS_MASK, skin_rx, NULL);
	netdev_err(dev, "skin: cannot register receive filters: %d\n", err);
	return err;
}

static void skin_unbind(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(skin_rx_classes); i++)
		can_rx_unregister(dev_net(dev), dev, skin_rx_classes[i],
				  SKIN_RX_CLASS_MASK, skin_rx, NULL);
	can_rx_unregister(dev_net(dev), dev, 0, CAN_ERR_MASK | CAN_ERR_FLAG,
			  skin_rx, NULL);
	WRITE_ONCE(skin_dev, NULL);
	netdev_info(dev, "skin: unbound\n");
}

static bool skin_dev_wanted(const struct net_device *dev)
{
	return dev->type == ARPHRD_CAN && net_eq(dev_net(dev), &init_net) &&
	       !strcmp(dev->name, ifname);
}

static int skin_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	ASSERT_RTNL();

	switch (event) {
	case NETDEV_REGISTER:
		if (!skin_dev && skin_dev_wanted(dev))
			skin_bind(dev);
		break;
	case NETDEV_CHANGENAME:
		if (dev == skin_dev && !skin_dev_wanted(dev))
			skin_unbind(dev);
		else if (!skin_dev && skin_dev_wanted(dev))
			skin_bind(dev);
		break;
	case NETDEV_UNREGISTER:
		if (dev == skin_dev)
			skin_unbind(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block skin_netdev_notifier = {
	.notifier_call = skin_netdev_event,
};

struct skin_counter_attr {
	struct kobj_attribute attr;
	enum skin_rx_verdict verdict;
};

static ssize_t skin_counter_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	const struct skin_counter_attr *ca =
		container_of(attr, struct skin_counter_attr, attr);

	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read(&skin_counters[ca->verdict]));
}

static ssize_t bound_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%d\n", !!READ_ONCE(skin_dev));
}

static struct kobj_attribute skin_bound_attr = __ATTR_RO(bound);

static struct skin_counter_attr skin_counter_attrs[SKIN_RX_NR];
static struct attribute *skin_attrs[SKIN_RX_NR + 2];
static const struct attribute_group skin_attr_group = {
	.attrs = skin_attrs,
};

static struct kobject *skin_kobj;

static int __init skin_init(void)
{
	unsigned int i;
	int err;

	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ) {
		pr_err("ifname must be 1..%d characters\n", IFNAMSIZ - 1);
		return -EINVAL;
	}

	for (i = 0; i < SKIN_RX_NR; i++) {
		struct skin_counter_attr *ca = &skin_counter_attrs[i];

		sysfs_attr_init(&ca->attr.attr);
		ca->attr.attr.name = skin_verdict_name(i);
		ca->attr.attr.mode = 0444;
		ca->attr.show = skin_counter_show;
		ca->verdict = i;
		skin_attrs[i] = &ca->attr.attr;
	}
	skin_attrs[SKIN_RX_NR] = &skin_bound_attr.attr;

	skin_kobj = kobject_create_and_add("skin", kernel_kobj);
	if (!skin_kobj)
		return -ENOMEM;
	err = sysfs_create_group(skin_kobj, &skin_attr_group);
	if (err)
		goto put_kobj;

	/* Replays NETDEV_REGISTER for interfaces that already exist. */
	err = register_netdevice_notifier(&skin_netdev_notifier);
	if (err)
		goto put_kobj;

	pr_info("waiting for skin frames on %s\n", ifname);
	return 0;

put_kobj:
	kobject_put(skin_kobj);
	return err;
}

static void __exit skin_exit(void)
{
	/* Replays NETDEV_UNREGISTER, which unbinds the interface. */
	unregister_netdevice_notifier(&skin_netdev_notifier);
	/* skin_rx() may still run on another CPU until a grace period ends. */
	synchronize_net();
	kobject_put(skin_kobj);
}

module_init(skin_init);
module_exit(skin_exit);

MODULE_DESCRIPTION("Robot skin boards on SocketCAN");
MODULE_LICENSE("GPL");
