// SPDX-License-Identifier: GPL-2.0
/*
 * board.c - an MTB board's answer to the host's start-up commands
 *
 * docs/ICUB.md section 1: SET_BRD_CFG (0x4d, DLC 4), SET_TRIANG_CFG
 * (0x50, DLC 7), SET_TXMODE (0x07, DLC 2), to id 0x200 | board.  A command
 * of the wrong length, an unknown opcode or a triangle range out of order
 * is counted and ignored: a board cannot answer, and a simulator that
 * guessed would hide a host bug.
 */
#include <string.h>

#include <skin/sim.h>

#define CMD_SET_BRD_CFG		0x4d
#define CMD_SET_TRIANG_CFG	0x50
#define CMD_SET_TXMODE		0x07

void skin_sim_board_init(struct skin_sim_board *b, unsigned int address)
{
	unsigned int t;

	memset(b, 0, sizeof(*b));
	b->address = (uint8_t)(address & 0xf);
	b->period_ms = 50;
	b->no_load = 0xf0;
	b->enabled = 0xffff;
	for (t = 0; t < SKIN_SIM_TRIANGLES; t++) {
		b->shift[t] = 2;
		b->cdc_offset[t] = 0x2200;
	}
}

static enum skin_sim_cmd bad(struct skin_sim_board *b)
{
	b->rejected++;
	return SKIN_SIM_CMD_BAD;
}

enum skin_sim_cmd skin_sim_board_command(struct skin_sim_board *b,
					 const struct can_frame *cf)
{
	const uint8_t *d = cf->data;
	unsigned int t;

	if (cf->can_id & (CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_ERR_FLAG))
		return SKIN_SIM_CMD_OTHER;
	if (cf->can_id != (0x200u | b->address))
		return SKIN_SIM_CMD_OTHER;
	if (cf->len < 1 || cf->len > CAN_MAX_DLEN)
		return bad(b);

	switch (d[0]) {
	case CMD_SET_BRD_CFG:
		if (cf->len != 4)
			return bad(b);
		b->skin_type = d[1] & 0x0f;
		b->period_ms = d[2] ? d[2] : 1;
		b->no_load = d[3];
		b->commands++;
		return SKIN_SIM_CMD_BRD_CFG;
	case CMD_SET_TRIANG_CFG:
		if (cf->len != 7 || d[1] > d[2] || d[2] >= SKIN_SIM_TRIANGLES ||
		    d[4] > 1)
			return bad(b);
		for (t = d[1]; t <= d[2]; t++) {
			b->shift[t] = d[3] & 0x0f;
			b->cdc_offset[t] = (uint16_t)(d[5] | d[6] << 8);
			if (d[4])
				b->enabled |= 1U << t;
			else
				b->enabled &= ~(1U << t);
		}
		b->commands++;
		return SKIN_SIM_CMD_TRIANG_CFG;
	case CMD_SET_TXMODE:
		if (cf->len != 2 || d[1] > 1)
			return bad(b);
		b->streaming = d[1] == 0;
		b->commands++;
		return b->streaming ? SKIN_SIM_CMD_TX_ON : SKIN_SIM_CMD_TX_OFF;
	default:
		return bad(b);
	}
}

const char *skin_sim_cmd_name(enum skin_sim_cmd c)
{
	switch (c) {
	case SKIN_SIM_CMD_BRD_CFG:
		return "SET_BRD_CFG";
	case SKIN_SIM_CMD_TRIANG_CFG:
		return "SET_TRIANG_CFG";
	case SKIN_SIM_CMD_TX_ON:
		return "SET_TXMODE(on)";
	case SKIN_SIM_CMD_TX_OFF:
		return "SET_TXMODE(off)";
	case SKIN_SIM_CMD_BAD:
		return "malformed command";
	default:
		return "other";
	}
}
