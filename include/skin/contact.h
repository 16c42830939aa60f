/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/contact.h - a contact as skind publishes it: the one record every
 * output carries
 *
 * A contact is a connected group of touched neighbouring taxels of one
 * part.  skind lays this record out in its shared memory (skin/shm.h,
 * contacts[] of a part's block); skind's processor computes it (its
 * contact embeds this record, beside the processor's own fields: the
 * part, a pointer to its taxels), and skind copies it into shared memory
 * as it is; the socket's bottle and JSON lines, the YARP ports and the
 * ROS 2 topics are written from it.  This header includes nothing of the
 * shared memory's or the processor's, so either side can take it alone.
 *
 * No position: a contact none of whose taxels has a position (the hand's
 * fingertips: all-zero rows of their positions file) has @cop, @geo and
 * @normal NaN, and @force and @moment 0.  Not 0: 0 is the link's origin,
 * a place a contact can be, so a 0 would claim a position the skin does
 * not know.  Not a flag: a reader that forgets a flag plots the contact
 * at the origin; a NaN it forgets spreads into what it computes, where it
 * shows.  The processor computes the NaN (`skinctl process` says it too),
 * and every output passes it on as it is: shm as the double NaN, the
 * socket and YARP's text as `nan` (bottle) or `null` (JSON), YARP's
 * binary bottles and ROS 2 messages as NaN.
 */
#ifndef SKIN_CONTACT_H
#define SKIN_CONTACT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct skin_contact_record - one contact: connected touched taxels
 * @id: contact id, unique over skind's life (iCub skinContact id); kept
 *	while the contact persists
 * @cop: centre of pressure, metres, link frame (NaN: no position, above)
 * @force: -0.05 x taxels x pressure x normal (skinManager's estimate; 0
 *	without a position)
 * @moment: cop x force, the force's moment about the link's origin in
 *	the link frame (0 in compat mode, as skinManager's; 0 without a
 *	position)
 * @geo: geometric centre, metres, link frame (NaN: no position)
 * @normal: pressure-weighted normal, of length 1 (in compat mode not
 *	re-normalised, as skinManager's; NaN: no position)
 * @pressure: mean published value of its taxels
 * @flat: pressure-weighted position in the part's flattened layout (its
 *	flat unit; NaN when unknown)
 * @first_taxel: its taxels are the part's contact_taxels[first_taxel ...]
 *	(skin/shm.h)
 * @n_taxels: how many
 * @reserved: 0
 *
 * Its bytes are skin/shm.h's 1.0 contact (168 bytes, natural alignment):
 * fields are only ever appended, readers stride by the header's
 * contact_size.
 */
struct skin_contact_record {
	uint64_t id;
	double cop[3];
	double force[3];
	double moment[3];
	double geo[3];
	double normal[3];
	double pressure;
	double flat[2];
	uint32_t first_taxel;
	uint32_t n_taxels;
	uint32_t reserved[2];
};

#ifdef __cplusplus
}
#endif
#endif /* SKIN_CONTACT_H */
