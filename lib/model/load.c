// SPDX-License-Identifier: GPL-2.0
/*
 * load.c - skin_model_load(): any file skind and skinctl take, geometry
 * or a whole skind.conf
 *
 * The top of libskinmodel: a configuration is parsed (config.c) and built
 * (assemble.c), which reads its parts' geometry through io.c; a geometry
 * file never comes back here, so a configuration cannot load itself.
 */
#include <stdlib.h>

#include "model-private.h"

struct skin_model *skin_model_load_buffer(const char *buf, size_t len,
					  enum skin_format fmt,
					  const char *name,
					  struct skin_error *err)
{
	struct skin_config *c;
	struct skin_model *m;

	if (!name)
		name = "(input)";
	if (fmt == SKIN_FORMAT_AUTO)
		fmt = skin_format_detect(buf, len);
	if (fmt != SKIN_FORMAT_CONFIG)
		return model_geometry_load_buffer(buf, len, fmt, name, err);
	c = skin_config_load_buffer(buf, len, name, err);
	if (!c)
		return NULL;
	m = skin_config_build_model(c, err);
	skin_config_free(c);
	return m;
}

struct skin_model *skin_model_load(const char *path, enum skin_format fmt,
				   struct skin_error *err)
{
	struct skin_model *m;
	size_t len;
	char *buf;

	buf = skin_read_file(path, &len, err);
	if (!buf)
		return NULL;
	m = skin_model_load_buffer(buf, len, fmt, path, err);
	free(buf);
	return m;
}
