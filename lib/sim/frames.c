// SPDX-License-Identifier: GPL-2.0
/*
 * frames.c - a board's sample as the CAN frames it sends
 *
 * Per triangle a head (byte 0 0x40, channels 0..6, DLC 8) and a tail
 * (byte 0 0xc0, channels 7..11, the diagnostics word big-endian in bytes
 * 6..7, DLC 8), id = class << 8 | board << 4 | triangle.  The inverse of
 * the driver's skin_decode(); the unit test checks it through that.
 */
#include <string.h>

#include <skin/sim.h>

void skin_sim_encode_half(uint8_t cls, uint8_t address, unsigned int triangle,
			  bool tail, const uint8_t values[SKIN_SIM_VALUES],
			  uint16_t diag, struct can_frame *cf)
{
	const uint8_t *v = &values[SKIN_SIM_CHANNELS * (triangle & 0xf)];

	memset(cf, 0, sizeof(*cf));
	cf->can_id = (canid_t)((cls & 0x7) << 8 | (address & 0xf) << 4 |
			       (triangle & 0xf));
	cf->len = 8;
	if (!tail) {
		cf->data[0] = 0x40;
		memcpy(&cf->data[1], v, 7);
	} else {
		cf->data[0] = 0xc0;
		memcpy(&cf->data[1], v + 7, 5);
		cf->data[6] = (uint8_t)(diag >> 8);
		cf->data[7] = (uint8_t)diag;
	}
}

unsigned int skin_sim_encode(uint8_t cls, uint8_t address, uint16_t send,
			     const uint8_t values[SKIN_SIM_VALUES],
			     const uint16_t diag[SKIN_SIM_TRIANGLES],
			     struct can_frame frames[SKIN_SIM_FRAMES_MAX])
{
	unsigned int t, n = 0;

	for (t = 0; t < SKIN_SIM_TRIANGLES; t++) {
		if (!(send & (1U << t)))
			continue;
		skin_sim_encode_half(cls, address, t, false, values, diag[t],
				     &frames[n++]);
		skin_sim_encode_half(cls, address, t, true, values, diag[t],
				     &frames[n++]);
	}
	return n;
}
