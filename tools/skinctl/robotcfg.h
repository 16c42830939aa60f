/* SPDX-License-Identifier: GPL-2.0 */
/*
 * robotcfg.h - a robots-configuration robot folder, read for skind and the
 * ETH gateway (skinctl import, docs/ETH.md "Importing a robot's
 * configuration")
 *
 * Reads hardware/skin/ *.xml (devices of type embObjSkin, with the
 * xi:includes they name: the board's hardware/electronics/ *-eln.xml and
 * the *-skinSpec.xml) and wrappers/skin/ *.xml (skinWrapper devices: which
 * range of a skin device's vector each /ROBOT/skin/<port> carries).  The
 * facts of embObjSkin (icub-main) it follows: a board's patches are its
 * CAN ports in skinCanAddrsPatch1/2; the device's vector is 192 values
 * per MTB board, the boards of patch 2 first and then those of patch 1
 * when the board has both (update(): "mtbId += size of patch 2"), each
 * patch's boards in the order the file lists them; a wrapper's port
 * "NAME wBase wTop base top" carries the device's values wBase .. wTop
 * (AnalogWrapper: offset wBase, length top - base + 1).
 */
#ifndef SKINCTL_ROBOTCFG_H
#define SKINCTL_ROBOTCFG_H

#include <stdio.h>

#include "skin/model.h"

struct robotcfg;

/* Read robot folder DIR.  NULL with *err (FILE:LINE: what was expected)
 * on a missing include, a file that is not XML, a device of another
 * type, a missing or bad value, a wrapper naming no skin device. */
struct robotcfg *robotcfg_read(const char *dir, struct skin_error *err);
void robotcfg_free(struct robotcfg *r);
/* Each part's geometry from a folder of geometry files (icub-main's
 * skinGui positions): the one of the part's SkinPart and length.
 * -1 with *err when dir cannot be read. */
int robotcfg_find_geometry(struct robotcfg *r, const char *dir,
			   struct skin_error *err);

/* skind.conf: [board], one [bus] per board CAN port, one [part] per
 * wrapper port; what skind.conf cannot express as comments. */
void robotcfg_write_skind(const struct robotcfg *r, FILE *f);
/* The gateway's boards: one "NAME=IPV4:PORTS" a line (skin-eth --board). */
void robotcfg_write_boards(const struct robotcfg *r, FILE *f);
/* skin-yarp.conf: each part's raw port, named as the robot's wrapper. */
void robotcfg_write_yarp(const struct robotcfg *r, FILE *f);

/* What the files hold that the output cannot carry, one line each
 * (also in skind.conf as comments). */
unsigned int robotcfg_n_notes(const struct robotcfg *r);
const char *robotcfg_note(const struct robotcfg *r, unsigned int i);

#endif
