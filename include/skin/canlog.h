/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/canlog.h - can-utils' log format (`candump -l`), read and written
 *
 * One CAN frame per line, as candump -l writes them and canplayer plays
 * them:
 *
 *	(1700000000.123456) can0 4E5#40F0F0F0F0F0F0F0     classic, 11-bit id
 *	(1700000000.123456) can0 12345678#0011            29-bit id (8 digits)
 *	(1700000000.123456) can0 123#R                    remote request
 *	(1700000000.123456) can0 123#R5                   ... with DLC 5
 *	(1700000000.123456) can0 20000080#0000000000000000 error frame
 *	(1700000000.123456) can0 123##1001122             CAN FD, flags 1
 *	(1700000000.123456) can0 123#0011223344556677_C   classic, raw DLC 12
 *
 * The timestamp has exactly six fractional digits (microseconds), as
 * candump writes it; '.' separators between data bytes are accepted; a
 * trailing direction token ("R" or "T", candump -x) is accepted and
 * ignored.  Blank lines and lines starting with '#' are comments.  Every
 * other line that is not a frame is an error naming the file, the line
 * and the column (canplayer skips lines not starting with '(' silently;
 * we do not, so a damaged capture is noticed).
 *
 *	struct skin_error err;
 *	struct skin_canlog_record r;
 *	struct skin_canlog *l = skin_canlog_open("capture.log", &err);
 *	int n;
 *
 *	if (!l) die(err.text);
 *	while ((n = skin_canlog_next(l, &r, &err)) != 0) {
 *		if (n < 0) { warn(err.text); continue; }   (bad line: go on
 *		use(&r);                                     or stop, as wanted)
 *	}
 *	skin_canlog_close(l);
 *
 * Ownership: skin_canlog_open() returns a reader the caller frees with
 * skin_canlog_close(), which closes its file (not stdin).  A record is
 * plain data owned by the caller.  Not thread-safe per reader.
 */
#ifndef SKIN_CANLOG_H
#define SKIN_CANLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/can.h>
#include <net/if.h>

#include <skin/model.h>		/* struct skin_error */

#ifdef __cplusplus
extern "C" {
#endif

/* Longest line the reader accepts (a CAN FD frame of 64 bytes with a
 * long interface name needs about 180 characters). */
#define SKIN_CANLOG_LINE_MAX	512

/**
 * struct skin_canlog_record - one frame of a log
 * @ts_ns: the line's (sec.usec) in nanoseconds (a multiple of 1000)
 * @ifname: the interface named on the line
 * @is_fd: a CAN FD frame (the line had "##")
 * @len8_dlc: classic frames of 8 bytes only: the raw DLC 9..15 given
 *	after '_', else 0 (struct can_frame.len8_dlc)
 * @frame: id with CAN_EFF_FLAG / CAN_RTR_FLAG / CAN_ERR_FLAG as the
 *	kernel has them; classic frames have len <= 8 and flags 0, CAN FD
 *	frames a valid CAN FD length and the line's flags (CANFD_BRS...)
 * @line: 1-based line it came from (0 for records built in memory)
 */
struct skin_canlog_record {
	uint64_t ts_ns;
	char ifname[IFNAMSIZ];
	bool is_fd;
	uint8_t len8_dlc;
	struct canfd_frame frame;
	unsigned int line;
};

struct skin_canlog;

/* Open a log for reading; "-" is stdin.  NULL with *err set (the path
 * and strerror) when it cannot be opened. */
struct skin_canlog *skin_canlog_open(const char *path, struct skin_error *err);
/* Read from an open stream; name is used in messages.  The stream stays
 * the caller's (not closed by skin_canlog_close()). */
struct skin_canlog *skin_canlog_open_stream(FILE *f, const char *name,
					    struct skin_error *err);
/*
 * The next frame: 1 and *r filled; 0 at the end of the log; -1 when a
 * line is not a frame (*err says FILE:LINE:COL and what; the reader has
 * consumed that line, so calling again continues with the next one) or
 * the file cannot be read (*err says so with line 0; further calls
 * return 0).
 */
int skin_canlog_next(struct skin_canlog *l, struct skin_canlog_record *r,
		     struct skin_error *err);
/* Lines read so far (the number of the last line returned or rejected). */
unsigned int skin_canlog_line(const struct skin_canlog *l);
void skin_canlog_close(struct skin_canlog *l);

/*
 * Parse one line (without or with its '\n'), in memory.  1: a frame,
 * *r filled (r->line = lineno); 0: a comment or blank line; -1: not a
 * frame, *err filled with name:lineno:col.
 */
int skin_canlog_parse_line(const char *line, size_t len, const char *name,
			   unsigned int lineno, struct skin_canlog_record *r,
			   struct skin_error *err);

/*
 * Format a record as one log line, with its '\n', NUL-terminated, the way
 * candump -l writes it (upper-case hex, 3-digit standard and 8-digit
 * extended and error ids), so canplayer and skin_canlog_parse_line() read
 * it back to the same record (ts_ns truncated to microseconds).  Returns
 * the length without the NUL, or -1 when buf is too small (len >=
 * SKIN_CANLOG_LINE_MAX always suffices) or the record cannot be written
 * (empty or too long ifname, a length out of range, an 11-bit id above
 * 0x7ff).
 */
int skin_canlog_format(char *buf, size_t len,
		       const struct skin_canlog_record *r);
/* skin_canlog_format() to a stream: 0, or -1 (errno set; EINVAL for a
 * record that cannot be written). */
int skin_canlog_write(FILE *f, const struct skin_canlog_record *r);

/* Fill a record from a classic frame (flags 0, is_fd false). */
void skin_canlog_record_classic(struct skin_canlog_record *r, uint64_t ts_ns,
				const char *ifname, const struct can_frame *cf);

#ifdef __cplusplus
}
#endif

#endif /* SKIN_CANLOG_H */
