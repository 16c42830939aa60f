// SPDX-License-Identifier: GPL-2.0
/*
 * skin_config.c - a patch's configuration: defaults, checks, board commands
 *
 * Portable: see skin_core.h.
 */
#include "skin_core.h"

/**
 * skin_patch_config_default() - the configuration of a new patch
 * @cfg: filled in
 *
 * The board values of a real iCub (docs/ICUB.md, section 1): period 50 ms,
 * skinType 0, noLoad 0xf0, shift 2, cdcOffset 0x2200, every triangle on,
 * class 4, not listen-only.  No interface: user space must name one.
 */
void skin_patch_config_default(struct skin_patch_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cls = SKIN_CLASS_DATA;
	cfg->triangles = 0xffff;
	cfg->period_ms = 50;
	cfg->no_load = 0xf0;
	cfg->shift = 2;
	cfg->cdc_offset = 0x2200;
	cfg->ring_log2 = SKIN_RING_DEFAULT_LOG2;
}

/**
 * skin_patch_config_check() - whether a configuration can be enabled
 * @cfg: the configuration
 *
 * Return: NULL when it is valid, else what is wrong, for the kernel log.
 */
const char *skin_patch_config_check(const struct skin_patch_config *cfg)
{
	unsigned int i;

	if (!cfg->ifname[0])
		return "no interface";
	for (i = 0; i < SKIN_IFNAME_LEN && cfg->ifname[i]; i++)
		;
	if (i == SKIN_IFNAME_LEN)
		return "interface name not terminated";
	if (cfg->cls != SKIN_CLASS_DATA && cfg->cls != SKIN_CLASS_DATA_OLD)
		return "class must be 3 or 4";
	if (cfg->address > 15)
		return "board address must be 0..15";
	if (!cfg->triangles)
		return "no triangle enabled";
	if (cfg->period_ms < 1 || cfg->period_ms > 255)
		return "period must be 1..255 ms";
	if (cfg->skin_type > 15)
		return "skin type must be 0..15";
	if (cfg->shift > 15)
		return "shift must be 0..15";
	if (cfg->ring_log2 < SKIN_RING_MIN_LOG2 ||
	    cfg->ring_log2 > SKIN_RING_MAX_LOG2)
		return "ring size must be a power of two, 2..65536 frames";
	if (cfg->listen_only > 1)
		return "listen_only must be 0 or 1";
	return NULL;
}

/**
 * skin_name_check() - whether a patch name can name a device node
 * @name: the name, NUL-terminated
 *
 * The name becomes /dev/skin/NAME and a sysfs directory: 1..31 characters
 * of [A-Za-z0-9_.-], not starting with a dot, and not one of the
 * directories udev's rules make in /dev/skin for their links.
 *
 * Return: NULL when it is valid, else what is wrong.
 */
const char *skin_name_check(const char *name)
{
	unsigned int i;

	if (!name[0])
		return "empty name";
	if (name[0] == '.')
		return "name starts with a dot";
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (i == SKIN_NAME_LEN - 1)
			return "name longer than 31 characters";
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return "name has a character outside [A-Za-z0-9_.-]";
	}
	if (!strcmp(name, "by-part") || !strcmp(name, "by-board"))
		return "name of a link directory in /dev/skin (udev)";
	return NULL;
}

static void skin_cmd(struct can_frame *cf, u8 board, u8 len)
{
	memset(cf, 0, sizeof(*cf));
	cf->can_id = SKIN_CMD_ID(board);
	cf->len = len;
}

/**
 * skin_board_commands() - the frames that start or stop a board
 * @cfg: a valid configuration
 * @start: true for start-up, false for SET_TXMODE(off) alone
 * @cmds: filled with the frames, in the order to send them
 *
 * Start-up is SET_BRD_CFG, then SET_TRIANG_CFG for each run of triangles
 * that are all enabled or all disabled (so the board's whole state is
 * set, whatever it was), then SET_TXMODE(on), to be sent after the boards
 * had SKIN_BOARD_SETTLE_MS to recalibrate.
 *
 * Return: the number of frames; on start-up the last one is SET_TXMODE.
 */
unsigned int skin_board_commands(const struct skin_patch_config *cfg, bool start,
				 struct can_frame cmds[SKIN_CMD_MAX])
{
	unsigned int n = 0, first, t;

	if (start) {
		skin_cmd(&cmds[n], cfg->address, 4);
		cmds[n].data[0] = SKIN_CMD_SET_BRD_CFG;
		cmds[n].data[1] = cfg->skin_type & 0x0f;
		cmds[n].data[2] = cfg->period_ms;
		cmds[n].data[3] = cfg->no_load;
		n++;

		for (first = 0; first < SKIN_TRIANGLES; first = t) {
			bool on = cfg->triangles & (1U << first);

			for (t = first + 1; t < SKIN_TRIANGLES; t++)
				if (!!(cfg->triangles & (1U << t)) != on)
					break;
			skin_cmd(&cmds[n], cfg->address, 7);
			cmds[n].data[0] = SKIN_CMD_SET_TRIANG_CFG;
			cmds[n].data[1] = first;
			cmds[n].data[2] = t - 1;
			cmds[n].data[3] = cfg->shift;
			cmds[n].data[4] = on ? 1 : 0;
			cmds[n].data[5] = cfg->cdc_offset & 0xff;
			cmds[n].data[6] = cfg->cdc_offset >> 8;
			n++;
		}
	}
	skin_cmd(&cmds[n], cfg->address, 2);
	cmds[n].data[0] = SKIN_CMD_SET_TXMODE;
	cmds[n].data[1] = start ? SKIN_TXMODE_ON : SKIN_TXMODE_OFF;
	return n + 1;
}
