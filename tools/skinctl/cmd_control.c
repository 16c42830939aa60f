// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl start|stop|reset DEVICE - control a patch's board and counters
 *
 * start: SKIN_IOC_START, the board's configuration and SET_TXMODE(on)
 *        (sent when the interface is up, or as soon as it comes up);
 *        fails with the error of a command the CAN core refused
 * stop:  SKIN_IOC_STOP, SET_TXMODE(off)
 * reset: SKIN_IOC_RESET_STATS, every counter to 0
 * The device is opened for writing: the driver allows these only then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/skin.h>

#include "skinctl.h"

static int control(int argc, char **argv, unsigned long request)
{
	int fd, status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: skinctl %s DEVICE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "skinctl %s: %s: %s\n", argv[0], argv[1],
			strerror(errno));
		return 1;
	}
	if (ioctl(fd, request) < 0) {
		fprintf(stderr, "skinctl %s: %s: %s\n", argv[0], argv[1],
			errno == ENOTTY ? "not a skin device" :
			errno == ENODEV ? "the patch was disabled or removed" :
			strerror(errno));
		status = 1;
	}
	close(fd);
	return status;
}

int cmd_start(int argc, char **argv)
{
	return control(argc, argv, SKIN_IOC_START);
}

int cmd_stop(int argc, char **argv)
{
	return control(argc, argv, SKIN_IOC_STOP);
}

int cmd_reset(int argc, char **argv)
{
	return control(argc, argv, SKIN_IOC_RESET_STATS);
}
