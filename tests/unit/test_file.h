/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_file.h - a file a program under test wrote, whole, as a string
 *
 * For the tests that run a program and compare what it wrote (skinsim's
 * logs and truth, skin-eth's candump lines): the file's bytes and a NUL,
 * never cut short; the case fails if the file cannot be read.  Include
 * after <cmocka.h>.
 */
#ifndef TEST_FILE_H
#define TEST_FILE_H

#include <stdio.h>
#include <stdlib.h>

static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

#endif
