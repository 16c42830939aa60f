// SPDX-License-Identifier: GPL-2.0
/*
 * skin_configfs.c - patches as configfs items: /sys/kernel/config/skin/NAME
 *
 * mkdir creates a patch with the defaults of a real iCub board; its
 * attributes set the interface, class, board address, skin part, triangle
 * mask, board parameters, ring size and whether the patch may send its
 * board anything (listen_only); writing 1 to "enable" brings it to
 * life (skin_live.c), 0 ends it.  The configuration of an enabled patch
 * cannot change (-EBUSY): disable, change, enable.  rmdir ends and removes
 * it.  configfs is the kernel's convention for objects user space creates;
 * docs/UAPI.md says why it beats an ioctl on a control device here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "skin.h"

/**
 * struct skin_patch - a patch as configured
 * @item: the configfs item
 * @lock: serialises configuration and enabling
 * @cfg: the configuration
 * @live: the live patch while enabled, else NULL
 */
struct skin_patch {
	struct config_item item;
	struct mutex lock;		/* see above */
	struct skin_patch_config cfg;
	struct skin_live *live;
};

static struct skin_patch *to_patch(struct config_item *item)
{
	return container_of(item, struct skin_patch, item);
}

/*
 * The numeric attributes: fields of struct skin_patch_config of one or two bytes.
 * A store is -EINVAL when the number does not parse, -ERANGE when it is
 * outside the field's range (@min, 0 unless set, .. @max) and -EBUSY while
 * the patch is enabled.
 */
enum skin_uint_field {
	SKIN_F_cls, SKIN_F_address, SKIN_F_skin_part, SKIN_F_triangles,
	SKIN_F_period_ms, SKIN_F_skin_type, SKIN_F_no_load, SKIN_F_shift,
	SKIN_F_cdc_offset, SKIN_F_listen_only,
};

static const struct skin_uint_desc {
	size_t offset;
	size_t size;
	unsigned int max;
	bool hex;
	unsigned int min;
} skin_uint_fields[] = {
	[SKIN_F_cls] = {
		offsetof(struct skin_patch_config, cls),
		sizeof_field(struct skin_patch_config, cls), 7, false
	},
	[SKIN_F_address] = {
		offsetof(struct skin_patch_config, address),
		sizeof_field(struct skin_patch_config, address), 15, false
	},
	[SKIN_F_skin_part] = {
		offsetof(struct skin_patch_config, skin_part),
		sizeof_field(struct skin_patch_config, skin_part), 255, false
	},
	[SKIN_F_triangles] = {
		offsetof(struct skin_patch_config, triangles),
		sizeof_field(struct skin_patch_config, triangles), 0xffff, true
	},
	[SKIN_F_period_ms] = {
		offsetof(struct skin_patch_config, period_ms),
		sizeof_field(struct skin_patch_config, period_ms), 255, false,
		.min = 1
	},
	[SKIN_F_skin_type] = {
		offsetof(struct skin_patch_config, skin_type),
		sizeof_field(struct skin_patch_config, skin_type), 15, false
	},
	[SKIN_F_no_load] = {
		offsetof(struct skin_patch_config, no_load),
		sizeof_field(struct skin_patch_config, no_load), 255, false
	},
	[SKIN_F_shift] = {
		offsetof(struct skin_patch_config, shift),
		sizeof_field(struct skin_patch_config, shift), 15, false
	},
	[SKIN_F_cdc_offset] = {
		offsetof(struct skin_patch_config, cdc_offset),
		sizeof_field(struct skin_patch_config, cdc_offset), 0xffff, true
	},
	[SKIN_F_listen_only] = {
		offsetof(struct skin_patch_config, listen_only),
		sizeof_field(struct skin_patch_config, listen_only), 1, false
	},
};

static ssize_t skin_uint_show(struct config_item *item, char *page,
			      enum skin_uint_field field)
{
	const struct skin_uint_desc *d = &skin_uint_fields[field];
	const u8 *p = (const u8 *)&to_patch(item)->cfg + d->offset;
	unsigned int val = d->size == 1 ? *p : *(const u16 *)p;

	return d->hex ? sprintf(page, "0x%04x\n", val) :
			sprintf(page, "%u\n", val);
}

static ssize_t skin_uint_store(struct config_item *item, const char *page,
			       size_t len, enum skin_uint_field field)
{
	const struct skin_uint_desc *d = &skin_uint_fields[field];
	struct skin_patch *patch = to_patch(item);
	u8 *p = (u8 *)&patch->cfg + d->offset;
	unsigned int val;
	int err;

	err = kstrtouint(page, 0, &val);
	if (err)
		return err;
	if (val < d->min || val > d->max)
		return -ERANGE;
	mutex_lock(&patch->lock);
	if (patch->live)
		err = -EBUSY;
	else if (d->size == 1)
		*p = val;
	else
		*(u16 *)p = val;
	mutex_unlock(&patch->lock);
	return err ? err : len;
}

#define SKIN_UINT_ATTR(name)						\
static ssize_t skin_##name##_show(struct config_item *item, char *page) \
{									\
	return skin_uint_show(item, page, SKIN_F_##name);		\
}									\
static ssize_t skin_##name##_store(struct config_item *item,		\
				   const char *page, size_t len)	\
{									\
	return skin_uint_store(item, page, len, SKIN_F_##name);		\
}									\
CONFIGFS_ATTR(skin_, name)

SKIN_UINT_ATTR(cls);
SKIN_UINT_ATTR(address);
SKIN_UINT_ATTR(skin_part);
SKIN_UINT_ATTR(triangles);
SKIN_UINT_ATTR(period_ms);
SKIN_UINT_ATTR(skin_type);
SKIN_UINT_ATTR(no_load);
SKIN_UINT_ATTR(shift);
SKIN_UINT_ATTR(cdc_offset);
SKIN_UINT_ATTR(listen_only);

static ssize_t skin_interface_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n", to_patch(item)->cfg.ifname);
}

static ssize_t skin_interface_store(struct config_item *item,
				    const char *page, size_t len)
{
	struct skin_patch *patch = to_patch(item);
	char name[SKIN_IFNAME_LEN];
	size_t n = len;
	int err = 0;

	if (n && page[n - 1] == '\n')
		n--;
	if (!n || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, page, n);
	name[n] = '\0';
	if (!dev_valid_name(name))
		return -EINVAL;

	mutex_lock(&patch->lock);
	if (patch->live)
		err = -EBUSY;
	else
		strscpy(patch->cfg.ifname, name, sizeof(patch->cfg.ifname));
	mutex_unlock(&patch->lock);
	return err ? err : len;
}
CONFIGFS_ATTR(skin_, interface);

/* The ring size in frames, a power of two. */
static ssize_t skin_ring_frames_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", 1U << to_patch(item)->cfg.ring_log2);
}

static ssize_t skin_ring_frames_store(struct config_item *item,
				      const char *page, size_t len)
{
	struct skin_patch *patch = to_patch(item);
	unsigned int frames;
	int err;

	err = kstrtouint(page, 0, &frames);
	if (err)
		return err;
	if (!is_power_of_2(frames) ||
	    frames < (1U << SKIN_RING_MIN_LOG2) ||
	    frames > (1U << SKIN_RING_MAX_LOG2))
		return -EINVAL;
	mutex_lock(&patch->lock);
	if (patch->live)
		err = -EBUSY;
	else
		patch->cfg.ring_log2 = ilog2(frames);
	mutex_unlock(&patch->lock);
	return err ? err : len;
}
CONFIGFS_ATTR(skin_, ring_frames);

static ssize_t skin_enable_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", !!READ_ONCE(to_patch(item)->live));
}

static ssize_t skin_enable_store(struct config_item *item, const char *page,
				 size_t len)
{
	struct skin_patch *patch = to_patch(item);
	const char *why;
	struct skin_live *live;
	bool enable;
	int err;

	err = kstrtobool(page, &enable);
	if (err)
		return err;

	mutex_lock(&patch->lock);
	if (enable && !patch->live) {
		why = skin_patch_config_check(&patch->cfg);
		if (why) {
			pr_warn("%s: cannot enable: %s\n",
				config_item_name(item), why);
			err = -EINVAL;
			goto unlock;
		}
		live = skin_live_create(config_item_name(item), &patch->cfg);
		if (IS_ERR(live)) {
			err = PTR_ERR(live);
			goto unlock;
		}
		WRITE_ONCE(patch->live, live);
	} else if (!enable && patch->live) {
		skin_live_destroy(patch->live);
		WRITE_ONCE(patch->live, NULL);
	}
unlock:
	mutex_unlock(&patch->lock);
	return err ? err : len;
}
CONFIGFS_ATTR(skin_, enable);

static struct configfs_attribute *skin_patch_attrs[] = {
	&skin_attr_interface,
	&skin_attr_cls,
	&skin_attr_address,
	&skin_attr_skin_part,
	&skin_attr_triangles,
	&skin_attr_period_ms,
	&skin_attr_skin_type,
	&skin_attr_no_load,
	&skin_attr_shift,
	&skin_attr_cdc_offset,
	&skin_attr_listen_only,
	&skin_attr_ring_frames,
	&skin_attr_enable,
	NULL
};

static void skin_patch_release(struct config_item *item)
{
	kfree(to_patch(item));
}

static struct configfs_item_operations skin_patch_ops = {
	.release = skin_patch_release,
};

static const struct config_item_type skin_patch_type = {
	.ct_item_ops	= &skin_patch_ops,
	.ct_attrs	= skin_patch_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *skin_make_patch(struct config_group *group,
					   const char *name)
{
	const char *why = skin_name_check(name);
	struct skin_patch *patch;

	if (why) {
		pr_warn("cannot create patch \"%s\": %s\n", name, why);
		return ERR_PTR(-EINVAL);
	}
	patch = kzalloc(sizeof(*patch), GFP_KERNEL);
	if (!patch)
		return ERR_PTR(-ENOMEM);
	mutex_init(&patch->lock);
	skin_patch_config_default(&patch->cfg);
	config_item_init_type_name(&patch->item, name, &skin_patch_type);
	return &patch->item;
}

static void skin_drop_patch(struct config_group *group,
			    struct config_item *item)
{
	struct skin_patch *patch = to_patch(item);

	mutex_lock(&patch->lock);
	if (patch->live) {
		skin_live_destroy(patch->live);
		WRITE_ONCE(patch->live, NULL);
	}
	mutex_unlock(&patch->lock);
	config_item_put(item);
}

static struct configfs_group_operations skin_group_ops = {
	.make_item	= skin_make_patch,
	.drop_item	= skin_drop_patch,
};

static const struct config_item_type skin_group_type = {
	.ct_group_ops	= &skin_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem skin_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "skin",
			.ci_type	= &skin_group_type,
		},
	},
};

int skin_configfs_init(void)
{
	config_group_init(&skin_subsys.su_group);
	mutex_init(&skin_subsys.su_mutex);
	return configfs_register_subsystem(&skin_subsys);
}

void skin_configfs_exit(void)
{
	configfs_unregister_subsystem(&skin_subsys);
}
