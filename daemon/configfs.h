/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfs.h - the driver's patches, created from skind.conf (configfs.c)
 *
 * Writes /sys/kernel/config/skin (docs/UAPI.md) for every configured
 * board; owns nothing that outlives the call.  Root's work: `skind
 * --create-patches` at start-up, or after a reload when skind runs as
 * root.  Never on the real-time path.
 */
#ifndef SKIND_CONFIGFS_H
#define SKIND_CONFIGFS_H

#include "skind.h"

/* 0; 1 without configfs (no driver); -errno of the first failure */
int configfs_create_patches(const struct skind_options *o,
			    const struct skind_skin *s);

#endif
