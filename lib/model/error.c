// SPDX-License-Identifier: GPL-2.0
/*
 * error.c - filling struct skin_error
 *
 * Every message has the same shape, FILE:LINE:COL: WHAT, so an editor can
 * jump to it and a test can compare it whole.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model-private.h"

void skin_error_set(struct skin_error *err, const char *file,
		    unsigned int line, unsigned int col, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "(input)");
	err->line = line;
	err->column = col;
	va_start(ap, fmt);
	vsnprintf(err->what, sizeof(err->what), fmt, ap);
	va_end(ap);
	if (line && col)
		snprintf(err->text, sizeof(err->text), "%s:%u:%u: %s",
			 err->file, line, col, err->what);
	else if (line)
		snprintf(err->text, sizeof(err->text), "%s:%u: %s",
			 err->file, line, err->what);
	else
		snprintf(err->text, sizeof(err->text), "%s: %s",
			 err->file, err->what);
}

void skin_err_oom(struct skin_error *err, const char *file)
{
	skin_error_set(err, file, 0, 0, "out of memory");
}
