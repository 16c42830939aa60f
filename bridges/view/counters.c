// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - the driver's and skin-eth's counters as JSON (counters.h)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <skin/model.h>

#include "counters.h"

#define MAX_STATS	64		/* files of a patch's stats/ */
#define MAX_ETH		512		/* lines of the counters file */
#define ETH_FILE_MAX	(64u << 10)

/* A name that can be a file's in sysfs, and nothing else: a patch's
 * (the driver's device, daemon/skin.c) or a counter's */
static bool plain_name(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > 63 || s[0] == '.')
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

/* A value: a number when it is all digits, else a string */
static void value_json(struct jw *w, const char *v)
{
	const char *p = v;

	while (isdigit((unsigned char)*p))
		p++;
	if (*v && !*p && p - v < 20)
		jw_uint(w, strtoull(v, NULL, 10));
	else
		jw_str(w, v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void counters_driver_json(struct jw *w, const char *root, const char *name)
{
	char dir[512], path[640], buf[64], *names[MAX_STATS];
	unsigned int n = 0, i;
	struct dirent *de;
	DIR *d;

	if (!plain_name(name) ||
	    (size_t)snprintf(dir, sizeof(dir), "%s/%s/stats", root, name) >= sizeof(dir) ||
	    !(d = opendir(dir))) {
		jw_null(w);
		return;
	}
	while ((de = readdir(d)) && n < MAX_STATS)
		if (plain_name(de->d_name) && (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	jw_object(w);
	for (i = 0; i < n; i++) {
		ssize_t len = -1;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			len = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (len >= 0) {
			buf[len] = 0;
			while (len && isspace((unsigned char)buf[len - 1]))
				buf[--len] = 0;
			jw_key(w, names[i]);
			value_json(w, buf);
		}
		free(names[i]);
	}
	jw_object_end(w);
}

/* "k=v" pairs of a counters line into the open object */
static void eth_pairs(struct jw *w, char *save)
{
	char *tok;

	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');
		const char *k;

		if (!eq)
			continue;
		*eq = 0;
		for (k = tok; *k && (islower((unsigned char)*k) || isdigit((unsigned char)*k) ||
				     *k == '_'); k++)
			;
		if (*k || !*tok)
			continue;	/* a key the file never has */
		jw_key(w, tok);
		value_json(w, eq + 1);
	}
}

/* One kind of line of the counters file: "capture"/"foreign" as one
 * object, "board"/"interface" as an array of objects with their name */
static void eth_kind(struct jw *w, const char *text, const char *kind, bool many)
{
	char *copy = strdup(text), *line, *save_line = NULL;
	unsigned int n = 0;
	bool open = false;

	if (!copy) {
		w->err = -ENOMEM;
		return;
	}
	if (many)
		jw_array(w);
	for (line = strtok_r(copy, "\n", &save_line); line && n < MAX_ETH;
	     line = strtok_r(NULL, "\n", &save_line), n++) {
		char *save = NULL, *k = strtok_r(line, " \t", &save), *name;

		if (!k || strcmp(k, kind))
			continue;
		name = strtok_r(NULL, " \t", &save);
		if (!name)
			continue;
		if (!many && open)
			continue;	/* one such line: the first */
		jw_object(w);
		if (many) {
			jw_key(w, "name");
			jw_str(w, name);
		}
		eth_pairs(w, save);
		jw_object_end(w);
		open = true;
	}
	if (many)
		jw_array_end(w);
	else if (!open)
		jw_null(w);
	free(copy);
}

void counters_eth_json(struct jw *w, const char *path, uint64_t now_real_ns)
{
	struct skin_error err;
	struct stat st;
	size_t len;
	char *text;

	if (!path[0] || (stat(path, &st) && errno == ENOENT)) {
		jw_null(w);
		return;
	}
	jw_object(w);
	jw_key(w, "file");
	jw_str(w, path);
	text = skin_file_read(path, ETH_FILE_MAX, &len, &err);
	if (!text) {
		jw_key(w, "error");
		jw_str(w, err.text);
		jw_object_end(w);
		return;
	}
	jw_key(w, "age_s");
	jw_num(w, ((double)now_real_ns - ((double)st.st_mtim.tv_sec * 1e9 +
					   (double)st.st_mtim.tv_nsec)) / 1e9, 4);
	jw_key(w, "capture");
	eth_kind(w, text, "capture", false);
	jw_key(w, "boards");
	eth_kind(w, text, "board", true);
	jw_key(w, "foreign");
	eth_kind(w, text, "foreign", false);
	jw_key(w, "interfaces");
	eth_kind(w, text, "interface", true);
	jw_object_end(w);
	free(text);
}
