// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_yarp.c - libFuzzer harness for the YARP bridge's readers of what
 * network peers send: Bottles (binary, both float tag sets) and Bottle
 * text lines (bridges/yarp/wire.h)
 *
 * Beyond "no crash, no leak, no UB": whatever parses as atoms encodes
 * back, as a Bottle and as text, to something that parses to the same
 * atoms; and every string a peer could send that yw_port_name_ok() lets
 * through to the name server is one word of one line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX 16

static void same(const struct yw_atom *a, int n, const struct yw_atom *b, int m)
{
	int i;

	if (n != m)
		abort();
	for (i = 0; i < n; i++) {
		if (a[i].type != b[i].type)
			abort();
		if (a[i].type == YW_ATOM_INT && a[i].i != b[i].i)
			abort();
		if (a[i].type == YW_ATOM_FLOAT && a[i].f != b[i].f &&
		    !(a[i].f != a[i].f && b[i].f != b[i].f))	/* NaN */
			abort();
		if ((a[i].type == YW_ATOM_STRING || a[i].type == YW_ATOM_VOCAB) &&
		    strcmp(a[i].s, b[i].s))
			abort();
	}
}

/* A name that passes goes into "NAME_SERVER query NAME\n": no byte of
 * it may end the line, split the word or open Bottle syntax */
static void name_checked(const char *s)
{
	const char *c;

	if (!yw_port_name_ok(s))
		return;
	if (s[0] != '/' || strlen(s) > 255)
		abort();
	for (c = s; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == '"' ||
		    *c == '(' || *c == ')' || *c == '\\')
			abort();
}

static void round_trip(enum yw_version v, const struct yw_atom *a, int n)
{
	static struct yw_atom back[MAX];
	struct yw_buf b;

	yw_buf_init(&b);
	yw_atoms_bottle(&b, v, a, (unsigned int)n);
	if (!yw_buf_ok(&b))
		abort();
	same(a, n, back, yw_parse_bottle(b.data, b.len, v, back, MAX));
	yw_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct yw_atom a[MAX];
	char *line;
	int n;

	n = yw_parse_bottle(data, size, YW_YARP3, a, MAX);
	if (n >= 0)
		round_trip(YW_YARP3, a, n);
	while (n-- > 0)
		if (a[n].type == YW_ATOM_STRING)
			name_checked(a[n].s);
	n = yw_parse_bottle(data, size, YW_YARP4, a, MAX);
	if (n >= 0)
		round_trip(YW_YARP4, a, n);
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	name_checked(line);
	n = yw_parse_text(line, a, MAX);
	if (n >= 0)
		round_trip(YW_YARP3, a, n);
	free(line);
	return 0;
}
