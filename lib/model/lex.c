// SPDX-License-Identifier: GPL-2.0
/*
 * lex.c - tokens with line and column for the YARP-style text formats
 *
 * The iCub positions files, skinGui layouts and the Skinware cache are
 * whitespace-separated text with no grammar library behind them (YARP's
 * own reader is C++ and pulls in YARP), so they share this small lexer.
 * It never reads past len: fuzzers pass bytes that are not NUL-terminated.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

void lex_init(struct lex *lx, const char *buf, size_t len, const char *file,
	      struct skin_error *err)
{
	lx->buf = buf;
	lx->len = len;
	lx->pos = 0;
	lx->line = 1;
	lx->col = 1;
	lx->file = file;
	lx->err = err;
}

bool lex_eof(const struct lex *lx)
{
	return lx->pos >= lx->len;
}

static void advance(struct lex *lx)
{
	if (lx->buf[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void lex_blank(struct lex *lx)
{
	while (!lex_eof(lx) && is_blank(lx->buf[lx->pos]))
		advance(lx);
}

void lex_space(struct lex *lx)
{
	while (!lex_eof(lx) &&
	       (is_blank(lx->buf[lx->pos]) || lx->buf[lx->pos] == '\n'))
		advance(lx);
}

bool lex_at_eol(struct lex *lx)
{
	lex_blank(lx);
	return lex_eof(lx) || lx->buf[lx->pos] == '\n';
}

void lex_skip_line(struct lex *lx)
{
	while (!lex_eof(lx) && lx->buf[lx->pos] != '\n')
		advance(lx);
	if (!lex_eof(lx))
		advance(lx);
}

void lex_error(struct lex *lx, unsigned int l, unsigned int c,
	       const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	skin_error_set(lx->err, lx->file, l, c, "%s", what);
}

int lex_token(struct lex *lx, bool nl, char *tok, size_t size,
	      unsigned int *tline, unsigned int *tcol)
{
	size_t n = 0;
	char c;

	if (nl)
		lex_space(lx);
	else
		lex_blank(lx);
	*tline = lx->line;
	*tcol = lx->col;
	if (lex_eof(lx) || lx->buf[lx->pos] == '\n') {
		tok[0] = '\0';
		return 0;
	}
	c = lx->buf[lx->pos];
	if (c == '(' || c == ')') {
		tok[0] = c;
		tok[1] = '\0';
		advance(lx);
		return 1;
	}
	while (!lex_eof(lx)) {
		c = lx->buf[lx->pos];
		if (is_blank(c) || c == '\n' || c == '(' || c == ')')
			break;
		if (c == '\0') {
			lex_error(lx, lx->line, lx->col,
				  "NUL byte in a text file");
			return -1;
		}
		if (n + 1 >= size) {
			lex_error(lx, *tline, *tcol,
				  "token longer than %zu bytes", size - 1);
			return -1;
		}
		tok[n++] = c;
		advance(lx);
	}
	tok[n] = '\0';
	return (int)n;
}

bool lex_parse_double(struct lex *lx, const char *tok, unsigned int l,
		      unsigned int c, const char *what, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(tok, &end);
	/* strtod takes "nan", "inf" and hex floats; geometry wants a finite
	 * decimal number. */
	if (!*tok || *end || errno == ERANGE || !isfinite(v) ||
	    strpbrk(tok, "xXnNiI")) {
		lex_error(lx, l, c, "expected %s (a finite decimal number), got '%s'",
			  what, tok);
		return false;
	}
	*out = v;
	return true;
}

bool lex_parse_long(struct lex *lx, const char *tok, unsigned int l,
		    unsigned int c, const char *what, long min, long max,
		    long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(tok, &end, 10);
	if (!*tok || *end || errno == ERANGE) {
		lex_error(lx, l, c, "expected %s (an integer), got '%s'",
			  what, tok);
		return false;
	}
	if (v < min || v > max) {
		lex_error(lx, l, c, "expected %s in %ld..%ld, got %ld",
			  what, min, max, v);
		return false;
	}
	*out = v;
	return true;
}
