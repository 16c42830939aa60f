// SPDX-License-Identifier: GPL-2.0
/*
 * skin_main.c - module entry: the skin class, its device numbers, and the
 * configfs subsystem and netdevice notifier the rest hangs from
 *
 * Files, one per concern:
 *   skin_configfs.c   patches as configfs items, configuration
 *   skin_live.c       enabling a patch and ending it, lifetime
 *   skin_can.c        SocketCAN receive, timer, board commands, notifier
 *   skin_cdev.c       /dev/skin/NAME file operations and sysfs
 *   skin_decode.c, skin_assemble.c, skin_ring.c, skin_config.c:
 *                     the portable core (skin_core.h), also built in
 *                     user space and in the KUnit suites
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "skin.h"

struct class *skin_class;
dev_t skin_devt;

/* /dev/skin/NAME, so that devtmpfs alone gives the devices their names */
static char *skin_devnode(SKIN_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "skin/%s", dev_name(dev));
}

static int __init skin_init(void)
{
	int err;

	err = alloc_chrdev_region(&skin_devt, 0, SKIN_MINORS, "skin");
	if (err)
		return err;
	skin_class = skin_class_create("skin");
	if (IS_ERR(skin_class)) {
		err = PTR_ERR(skin_class);
		goto unregister_region;
	}
	skin_class->devnode = skin_devnode;
	skin_cdev_init();

	err = skin_can_init();
	if (err)
		goto destroy_class;
	err = skin_configfs_init();
	if (err)
		goto exit_can;
	return 0;

exit_can:
	skin_can_exit();
destroy_class:
	class_destroy(skin_class);
unregister_region:
	unregister_chrdev_region(skin_devt, SKIN_MINORS);
	return err;
}

static void __exit skin_exit(void)
{
	/* No patch is left: each configfs item holds a module reference. */
	skin_configfs_exit();
	skin_can_exit();
	class_destroy(skin_class);
	unregister_chrdev_region(skin_devt, SKIN_MINORS);
}

module_init(skin_init);
module_exit(skin_exit);

MODULE_DESCRIPTION("Robot skin boards on SocketCAN: patches as character devices");
MODULE_LICENSE("GPL");
