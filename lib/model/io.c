// SPDX-License-Identifier: GPL-2.0
/*
 * io.c - geometry files in and out: format detection and dispatch
 *
 * Below config.c and assemble.c: a part's geometry is read here, and a
 * file detected as a skind.conf is refused, never built (load.c, above
 * them, is where a configuration becomes a model).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

char *skin_read_file(const char *path, size_t *len, struct skin_error *err)
{
	return skin_file_read(path, SKIN_FILE_MAX, len, err);
}

const char *skin_format_name(enum skin_format f)
{
	switch (f) {
	case SKIN_FORMAT_POSITIONS:
		return "positions";
	case SKIN_FORMAT_URDF:
		return "urdf";
	case SKIN_FORMAT_SKINWARE:
		return "skinware";
	case SKIN_FORMAT_SKINGUI:
		return "skingui";
	case SKIN_FORMAT_CONFIG:
		return "config";
	default:
		return "auto";
	}
}

enum skin_format skin_format_from_name(const char *name)
{
	enum skin_format f;

	for (f = SKIN_FORMAT_POSITIONS; f <= SKIN_FORMAT_CONFIG; f++)
		if (!strcmp(name, skin_format_name(f)))
			return f;
	return SKIN_FORMAT_AUTO;
}

/* First word of the first line that is not blank or a comment. */
static size_t first_word(const char *buf, size_t len, size_t *start,
			 size_t *line_end)
{
	size_t i = 0, s;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;
	for (;;) {
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' ||
				   buf[i] == '\r' || buf[i] == '\n'))
			i++;
		if (i < len && (buf[i] == '#' || buf[i] == ';' ||
				(buf[i] == '/' && i + 1 < len && buf[i + 1] == '/'))) {
			while (i < len && buf[i] != '\n')
				i++;
			continue;
		}
		break;
	}
	s = i;
	while (i < len && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r' &&
	       buf[i] != '\n' && buf[i] != '=' && buf[i] != '(')
		i++;
	*start = s;
	*line_end = i;
	while (*line_end < len && buf[*line_end] != '\n')
		(*line_end)++;
	return i - s;
}

static bool has(const char *buf, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(buf + i, needle, n))
			return true;
	return false;
}

enum skin_format skin_format_detect(const char *buf, size_t len)
{
	size_t s, e, n = first_word(buf, len, &s, &e);
	const char *w = buf + s;
	size_t i, words = 0;
	bool in_word = false, numeric = true;

	if (!n)
		return SKIN_FORMAT_AUTO;
	if (w[0] == '<')
		return SKIN_FORMAT_URDF;
	if (has(buf, len, "[SENSORS]"))
		return SKIN_FORMAT_SKINGUI;
	if ((n == 4 && !memcmp(w, "name", 4)) ||
	    (n == 16 && !memcmp(w, "spatial_sampling", 16)) ||
	    (n == 10 && !memcmp(w, "taxel2Repr", 10)) ||
	    (n == 13 && !memcmp(w, "[calibration]", 13)))
		return SKIN_FORMAT_POSITIONS;
	if (w[0] == '[' || memchr(w, '=', e - s))
		return SKIN_FORMAT_CONFIG;
	/* Numbers only: a 2-number first line is a Skinware cache header,
	 * 6 numbers a plain positions row. */
	for (i = s; i < e; i++) {
		char c = buf[i];
		bool blank = c == ' ' || c == '\t' || c == '\r';

		if (!blank && !((c >= '0' && c <= '9') || c == '-' || c == '+' ||
				c == '.' || c == 'e' || c == 'E'))
			numeric = false;
		if (!blank && !in_word)
			words++;
		in_word = !blank;
	}
	if (numeric && words == 2)
		return SKIN_FORMAT_SKINWARE;
	if (numeric && words == 6)
		return SKIN_FORMAT_POSITIONS;
	return SKIN_FORMAT_AUTO;
}

struct skin_model *model_geometry_load_buffer(const char *buf, size_t len,
					     enum skin_format fmt,
					     const char *name,
					     struct skin_error *err)
{
	if (fmt == SKIN_FORMAT_AUTO)
		fmt = skin_format_detect(buf, len);
	switch (fmt) {
	case SKIN_FORMAT_POSITIONS:
		return skin_positions_read(buf, len, name, err);
	case SKIN_FORMAT_URDF:
		return skin_urdf_read(buf, len, name, err);
	case SKIN_FORMAT_SKINWARE:
		return skin_skinware_read(buf, len, name, err);
	case SKIN_FORMAT_SKINGUI:
		return skin_skingui_read(buf, len, name, err);
	case SKIN_FORMAT_CONFIG:
		/* Issue 25, defect 1: built as a configuration, a file that
		 * names itself as a part's geometry recursed until the stack
		 * overflowed.  A configuration describes a skin; it is never
		 * the geometry of one of its parts. */
		skin_error_set(err, name, 0, 0,
			       "a skind.conf, not a geometry file: expected an iCub positions file, urdf_tactile XML, a Skinware calibration cache or a skinGui .ini");
		return NULL;
	default:
		skin_error_set(err, name, 1, 1,
			     "unknown format: expected an iCub positions file, urdf_tactile XML, a Skinware calibration cache, a skinGui .ini or a skind.conf");
		return NULL;
	}
}

struct skin_model *model_geometry_load(const char *path, enum skin_format fmt,
				       struct skin_error *err)
{
	struct skin_model *m;
	size_t len;
	char *buf;

	buf = skin_read_file(path, &len, err);
	if (!buf)
		return NULL;
	m = model_geometry_load_buffer(buf, len, fmt, path, err);
	free(buf);
	return m;
}

int skin_model_save(const struct skin_model *m, const char *path,
		    enum skin_format fmt, struct skin_error *err)
{
	char *out = NULL;
	size_t len = 0;
	FILE *fp;
	int rc;

	switch (fmt) {
	case SKIN_FORMAT_POSITIONS:
		if (m->n_parts != 1) {
			skin_error_set(err, path, 0, 0,
				     "a positions file holds one part; the model has %u",
				     m->n_parts);
			return -1;
		}
		rc = skin_positions_write(m, 0, &out, &len, err);
		break;
	case SKIN_FORMAT_SKINWARE:
		rc = skin_skinware_write(m, &out, &len, err);
		break;
	default:
		skin_error_set(err, path, 0, 0,
			     "cannot write format '%s': expected positions or skinware",
			     skin_format_name(fmt));
		return -1;
	}
	if (rc)
		return -1;
	fp = fopen(path, "wb");
	if (!fp) {
		skin_error_set(err, path, 0, 0, "cannot create: %s", strerror(errno));
		free(out);
		return -1;
	}
	rc = fwrite(out, 1, len, fp) != len;
	if (fclose(fp) || rc) {
		skin_error_set(err, path, 0, 0, "write error: %s", strerror(errno));
		free(out);
		return -1;
	}
	free(out);
	return 0;
}
