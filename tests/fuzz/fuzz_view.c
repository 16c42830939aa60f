// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_view.c - libFuzzer harness for skin-view's readers of what a
 * WebSocket client sends (bridges/view/fox.h): a text message as a
 * Foxglove request, a binary one as a Service Call Request.  The first
 * byte of the input chooses which; the rest is the message.
 *
 * Beyond "no crash, no leak, no UB": a request parses or is refused with
 * a reason; a parsed subscribe or unsubscribe has at most the entries
 * allowed, and each subscribe entry its two numbers; a parsed call's
 * encoding and payload lie inside the message, and they add up to it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SUBS 8

static void request(const char *text, size_t len)
{
	struct fox_request r;
	char why[256] = "";
	int rc = fox_parse_request(text, len, MAX_SUBS, &r, why, sizeof(why));

	if (rc == 0) {
		if (r.op != FOX_REQ_SUBSCRIBE && r.op != FOX_REQ_UNSUBSCRIBE &&
		    r.op != FOX_REQ_OTHER)
			abort();
		if (r.op != FOX_REQ_OTHER && (r.n_subs > MAX_SUBS || !r.subs))
			abort();
		if (r.op == FOX_REQ_OTHER && r.n_subs)
			abort();
		fox_request_free(&r);
		return;
	}
	if (rc != -EPROTO && rc != -EBADMSG && rc != -E2BIG && rc != -ENOMEM)
		abort();
	/* refused: nothing kept, and a reason to tell the client */
	if (r.subs || r.n_subs || (rc != -ENOMEM && !why[0]))
		abort();
}

static void call(const uint8_t *p, size_t len)
{
	struct fox_call c;

	if (fox_parse_service_call(p, len, &c))
		return;
	if (len < 13 || p[0] != FOX_OP_SERVICE_CALL_REQUEST)
		abort();
	if ((const uint8_t *)c.encoding != p + 13 ||
	    (const uint8_t *)c.payload != p + 13 + c.encoding_len ||
	    13 + c.encoding_len + c.payload_len != len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (!size)
		return 0;
	/* an exact copy, so that ASan sees a read one past the message */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	if (data[0] & 1)
		call(copy, size - 1);
	else
		request((const char *)copy, size - 1);
	free(copy);
	return 0;
}
