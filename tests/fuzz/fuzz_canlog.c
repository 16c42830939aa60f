// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_canlog.c - libFuzzer harness for the candump -l log reader
 *
 * Beyond "no crash, no leak, no UB": a bad line names the log; every
 * frame read formats back to a line that reads back to the same frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/canlog.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct skin_canlog_record *r)
{
	struct skin_canlog_record back;
	struct skin_error err;
	char line[SKIN_CANLOG_LINE_MAX];
	int n = skin_canlog_format(line, sizeof(line), r);

	if (n < 0)
		abort();	/* what was read can be written */
	if (skin_canlog_parse_line(line, (size_t)n, "fuzz.log", r->line, &back,
				   &err) != 1)
		abort();
	if (back.ts_ns != r->ts_ns || strcmp(back.ifname, r->ifname) ||
	    back.is_fd != r->is_fd || back.len8_dlc != r->len8_dlc ||
	    back.frame.can_id != r->frame.can_id ||
	    back.frame.len != r->frame.len ||
	    back.frame.flags != r->frame.flags ||
	    (!(r->frame.can_id & CAN_RTR_FLAG) &&
	     memcmp(back.frame.data, r->frame.data, r->frame.len)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skin_canlog_record r;
	struct skin_canlog *l;
	struct skin_error err;
	FILE *f;
	int n, guard = 0;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	l = skin_canlog_open_stream(f, "fuzz.log", &err);
	if (!l)
		abort();
	while ((n = skin_canlog_next(l, &r, &err)) != 0 && guard++ < 100000) {
		if (n < 0) {
			if (!strstr(err.text, "fuzz.log"))
				abort();
			continue;
		}
		round_trip(&r);
	}
	skin_canlog_close(l);
	fclose(f);
	return 0;
}
