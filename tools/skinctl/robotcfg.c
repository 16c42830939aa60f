// SPDX-License-Identifier: GPL-2.0
/*
 * robotcfg.c - a robots-configuration robot folder into skind.conf, the
 * ETH gateway's boards and skin-yarp.conf's ports (robotcfg.h)
 *
 * Each device file is read into a flat list of "group/.../param" = value,
 * each with the file and line it came from, following the xi:includes as
 * yarprobotinterface does (href relative to the including file; the
 * included file's root, <params>, stands for its children).  Everything
 * after works on that list, so every message names the line that holds
 * the value, or the line of the element that misses it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "skin/ethrx.h"
#include "robotcfg.h"
#include "xml.h"

#define MTB_VALUES	192	/* 16 triangles x 12 values per MTB board */
#define MAX_PATCH_BOARDS 16	/* CAN addresses 0..15 */
#define MAX_INCLUDE_DEPTH 8
#define XINCLUDE_NS	"http://www.w3.org/2001/XInclude"

struct entry {
	char *path;		/* "patches/skinCanAddrsPatch1" */
	char *value;		/* trimmed text, quotes removed */
	const char *file;
	unsigned int line;
};

struct xdevice {
	char *name, *type;
	const char *file;
	unsigned int line;
	struct entry *e;
	unsigned int n_e;
};

/* A board's values, in skind.conf's [board] keys' order */
enum { BV_PERIOD, BV_SKIN_TYPE, BV_NO_LOAD, BV_SHIFT, BV_CDC_OFFSET, BV_N };

static const struct {
	const char *key;
	bool hex;
} bv_keys[BV_N] = {
	[BV_PERIOD] = { "period_ms", false },
	[BV_SKIN_TYPE] = { "skin_type", false },
	[BV_NO_LOAD] = { "no_load", true },
	[BV_SHIFT] = { "shift", false },
	[BV_CDC_OFFSET] = { "cdc_offset", true },
};

/* An embObjSkin device: one ETH board's skin */
struct skin_dev {
	struct xdevice x;
	char board[SKIN_ETH_NAME_MAX + 1];	/* eb24, as lib/eth names it */
	char ifname[2][IFNAMSIZ];	/* its interfaces: eb24can1 */
	char ip[INET_ADDRSTRLEN];
	char eth_type[32];	/* ems4, mc4plus */
	unsigned int n_patches;
	int port[2];		/* CAN port of patch index 0, 1 */
	unsigned int n_addr[2];
	int addr[2][MAX_PATCH_BOARDS];
	/* the device's vector: board k has values 192 k .. 192 k + 191 */
	unsigned int n_boards;
	int b_port[2 * MAX_PATCH_BOARDS], b_addr[2 * MAX_PATCH_BOARDS];
	unsigned int b_patch[2 * MAX_PATCH_BOARDS];	/* patch index */
	unsigned int period, skin_type, no_load, shift, cdc_offset;
	bool enabled, diagnostic;
	/* board k's own values, [BV_*]: the defaults with the special sets
	 * that cover the whole board */
	unsigned int bv[2 * MAX_PATCH_BOARDS][BV_N];
};

struct part {
	char *name;		/* the wrapper's port name */
	enum skin_part_id skin_part;
	const char *file;	/* the wrapper */
	unsigned int line;
	char *geometry;		/* a positions file, or NULL */
	unsigned int n;
	char bus[2 * MAX_PATCH_BOARDS][24];
	int addr[2 * MAX_PATCH_BOARDS];
};

struct robotcfg {
	char *dir;
	char **files;		/* every file read; entries point here */
	unsigned int n_files;
	struct skin_dev *dev;
	unsigned int n_dev;
	struct part *part;
	unsigned int n_part;
	char **note;
	unsigned int n_note;
	struct skin_error *err;
	/* the gateway's boards: lib/eth names them and their interfaces,
	 * and refuses two at one address or of one name */
	struct skin_eth_rx *rx;
};

static void note(struct robotcfg *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct robotcfg *r, const char *fmt, ...)
{
	char **n = realloc(r->note, (r->n_note + 1) * sizeof(*n));
	va_list ap;

	if (!n)
		return;
	r->note = n;
	va_start(ap, fmt);
	if (vasprintf(&n[r->n_note], fmt, ap) >= 0)
		r->n_note++;
	va_end(ap);
}

/* A file's name inside the robot's folder, for notes and comments */
static const char *rel(const struct robotcfg *r, const char *file)
{
	size_t n = strlen(r->dir);

	if (!strncmp(file, r->dir, n) && file[n] == '/')
		return file + n + 1;
	return file;
}

static const char *keep_file(struct robotcfg *r, const char *path)
{
	char **f = realloc(r->files, (r->n_files + 1) * sizeof(*f));

	if (!f)
		return NULL;
	r->files = f;
	f[r->n_files] = strdup(path);
	return f[r->n_files] ? f[r->n_files++] : NULL;
}

static bool oom(struct robotcfg *r, const char *file)
{
	skin_error_set(r->err, file, 0, 0, "out of memory");
	return false;
}

/* The file read as XML; NULL with the parser's line and column. */
static xmlDoc *read_xml(struct robotcfg *r, const char *path,
			const char *from, unsigned int from_line)
{
	struct skin_error ferr;
	xmlDoc *doc;
	size_t len;
	char *buf;

	buf = skin_file_read(path, SKIN_FILE_MAX, &len, &ferr);
	if (!buf) {
		if (from)
			skin_error_set(r->err, from, from_line, 0,
				       "xi:include: %s: expected a file the robot's folder holds",
				       ferr.text);
		else
			*r->err = ferr;
		return NULL;
	}
	doc = model_xml_read(buf, len, path, r->err);
	free(buf);
	return doc;
}

static char *trimmed(const xmlNode *n)
{
	xmlChar *t = xmlNodeGetContent(n);
	char *s, *b, *e, *out;

	if (!t)
		return strdup("");
	s = (char *)t;
	for (b = s; *b == ' ' || *b == '\t' || *b == '\n' || *b == '\r'; b++)
		;
	e = b + strlen(b);
	while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	/* "left_arm-eb24-j4_7": YARP reads a quoted string without quotes */
	if (e - b >= 2 && *b == '"' && e[-1] == '"') {
		b++;
		e--;
	}
	out = strndup(b, (size_t)(e - b));
	xmlFree(t);
	return out;
}

static bool is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static bool add_entry(struct robotcfg *r, struct xdevice *d, const char *prefix,
		      const char *name, const xmlNode *n, const char *file)
{
	struct entry *e = realloc(d->e, (d->n_e + 1) * sizeof(*e));

	if (!e)
		return oom(r, file);
	d->e = e;
	e = &d->e[d->n_e];
	if (asprintf(&e->path, "%s%s", prefix, name) < 0)
		return oom(r, file);
	e->value = trimmed(n);
	if (!e->value) {
		free(e->path);
		return oom(r, file);
	}
	e->file = file;
	e->line = model_xml_line(n);
	d->n_e++;
	return true;
}

static bool walk(struct robotcfg *r, struct xdevice *d, const xmlNode *parent,
		 const char *prefix, const char *file, const char *base,
		 unsigned int depth);

/* "a/b/../../c/./d" as "c/d", in place: the names messages give.  Only
 * names: ".." after a symbolic link would differ, and the robot folders
 * have none. */
static void tidy_path(char *path)
{
	char *out = path, *p = path, *end = path + strlen(path), *seg;
	bool abs = *path == '/';

	if (abs) {
		out++;
		p++;
	}
	/* out never passes p, but a '/' written at out may land on the
	 * terminating NUL: the end is known beforehand */
	while (p < end) {
		size_t n;

		seg = p;
		n = strcspn(p, "/");
		p += n;
		if (p < end)
			p++;
		if (n == 0 || (n == 1 && *seg == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			char *start = abs ? path + 1 : path;
			char *last;

			/* drop the previous name, unless it is ".." or none */
			if (out > start) {
				out[-1] = '\0';
				last = strrchr(start, '/');
				last = last ? last + 1 : start;
				if (strcmp(last, "..")) {
					out = last;
					*out = '\0';
					continue;
				}
				out[-1] = '/';
			} else if (abs) {
				continue;
			}
		}
		memmove(out, seg, n);
		out += n;
		*out++ = '/';
	}
	if (out > path + (abs ? 1 : 0))
		out--;
	if (out == path)
		*out++ = '.';
	*out = '\0';
}

/*
 * Where a file's includes are: yarprobotinterface 3 files (DTD
 * yarprobotinterfaceV3.0) name them relative to themselves
 * (href="../../hardware/electronics/..."), the older ones (V1.0)
 * relative to the robot's folder (href="hardware/electronics/...").
 */
static const char *include_base(const struct robotcfg *r, const xmlDoc *doc,
				const char *file, char *buf, size_t size)
{
	const char *slash;

	if (doc->intSubset && doc->intSubset->SystemID &&
	    strstr((const char *)doc->intSubset->SystemID, "yarprobotinterfaceV1"))
		return r->dir;
	slash = strrchr(file, '/');
	if (!slash)
		return ".";
	snprintf(buf, size, "%.*s", (int)(slash - file), file);
	return buf;
}

/* An xi:include: its file's root element stands for its children */
static bool include(struct robotcfg *r, struct xdevice *d, const xmlNode *n,
		    const char *prefix, const char *file, const char *base,
		    unsigned int depth)
{
	char *href = (char *)xmlGetProp(n, (const xmlChar *)"href");
	char *path = NULL, dir[4096];
	const char *kept;
	xmlDoc *doc;
	bool ok;

	if (!href || !*href) {
		xmlFree(href);
		skin_error_set(r->err, file, model_xml_line(n), 0,
			       "<xi:include> without href: expected the included file's path");
		return false;
	}
	if (depth >= MAX_INCLUDE_DEPTH) {
		skin_error_set(r->err, file, model_xml_line(n), 0,
			       "xi:include %s: includes nested over %d deep: expected no loop",
			       href, MAX_INCLUDE_DEPTH);
		xmlFree(href);
		return false;
	}
	if (asprintf(&path, "%s/%s", base,
		     strncmp(href, "./", 2) ? href : href + 2) < 0) {
		xmlFree(href);
		return oom(r, file);
	}
	xmlFree(href);
	tidy_path(path);
	kept = keep_file(r, path);
	free(path);
	if (!kept)
		return oom(r, file);
	doc = read_xml(r, kept, file, model_xml_line(n));
	if (!doc)
		return false;
	ok = walk(r, d, xmlDocGetRootElement(doc), prefix, kept,
		  include_base(r, doc, kept, dir, sizeof(dir)), depth + 1);
	xmlFreeDoc(doc);
	return ok;
}

static bool walk(struct robotcfg *r, struct xdevice *d, const xmlNode *parent,
		 const char *prefix, const char *file, const char *base,
		 unsigned int depth)
{
	const xmlNode *n;

	for (n = parent ? parent->children : NULL; n; n = n->next) {
		char *name, *sub = NULL;
		bool ok;

		if (n->type != XML_ELEMENT_NODE)
			continue;
		/* the older files use xi: without declaring it: libxml2
		 * keeps the element as "xi:include" */
		if ((!strcmp((const char *)n->name, "include") && n->ns &&
		     n->ns->href && !strcmp((const char *)n->ns->href, XINCLUDE_NS)) ||
		    (!n->ns && !strcmp((const char *)n->name, "xi:include"))) {
			if (!include(r, d, n, prefix, file, base, depth))
				return false;
			continue;
		}
		if (is(n, "action")) {
			if (asprintf(&sub, "%saction/", prefix) < 0)
				return oom(r, file);
			ok = walk(r, d, n, sub, file, base, depth);
			free(sub);
			if (!ok)
				return false;
			continue;
		}
		if (!is(n, "group") && !is(n, "param") && !is(n, "paramlist") &&
		    !is(n, "elem"))
			continue;
		name = (char *)xmlGetProp(n, (const xmlChar *)"name");
		if (!name || !*name) {
			xmlFree(name);
			skin_error_set(r->err, file, model_xml_line(n), 0,
				       "<%s> without a name: expected name=\"...\"",
				       (const char *)n->name);
			return false;
		}
		if (is(n, "param") || is(n, "elem")) {
			ok = add_entry(r, d, prefix, name, n, file);
		} else if (asprintf(&sub, "%s%s/", prefix, name) < 0) {
			ok = oom(r, file);
		} else {
			ok = walk(r, d, n, sub, file, base, depth);
			free(sub);
		}
		xmlFree(name);
		if (!ok)
			return false;
	}
	return true;
}

static const struct entry *find(const struct xdevice *d, const char *path)
{
	unsigned int i;

	/* YARP's find() takes the first */
	for (i = 0; i < d->n_e; i++)
		if (!strcmp(d->e[i].path, path))
			return &d->e[i];
	return NULL;
}

static const struct entry *need(struct robotcfg *r, const struct xdevice *d,
				const char *path, const char *why)
{
	const struct entry *e = find(d, path);

	if (!e)
		skin_error_set(r->err, d->file, d->line, 0,
			       "device \"%s\" has no %s: expected it (%s)",
			       d->name, path, why);
	return e;
}

/* Integers of a value ("14 13 12", "0x2200"), each in lo..hi */
static int ints(struct robotcfg *r, const struct entry *e, long lo, long hi,
		long *out, unsigned int max)
{
	const char *s = e->value;
	unsigned int n = 0;

	for (;;) {
		char *end;
		long v;

		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!*s)
			return (int)n;
		errno = 0;
		v = strtol(s, &end, 0);
		if (end == s || errno || (*end && *end != ' ' && *end != '\t' &&
					  *end != '\n' && *end != '\r') ||
		    v < lo || v > hi) {
			skin_error_set(r->err, e->file, e->line, 0,
				       "%s: \"%.*s\": expected integers %ld..%ld",
				       e->path, (int)strcspn(s, " \t\r\n"), s, lo, hi);
			return -1;
		}
		if (n == max) {
			skin_error_set(r->err, e->file, e->line, 0,
				       "%s: more than %u values", e->path, max);
			return -1;
		}
		out[n++] = v;
		s = end;
	}
}

static bool one_int(struct robotcfg *r, const struct entry *e, long lo,
		    long hi, unsigned int *out)
{
	long v;
	int n = ints(r, e, lo, hi, &v, 1);

	if (n == 0)
		skin_error_set(r->err, e->file, e->line, 0,
			       "%s is empty: expected an integer %ld..%ld",
			       e->path, lo, hi);
	if (n != 1)
		return false;
	*out = (unsigned int)v;
	return true;
}

static bool boolean(struct robotcfg *r, const struct entry *e, bool *out)
{
	if (!strcmp(e->value, "true") || !strcmp(e->value, "1")) {
		*out = true;
		return true;
	}
	if (!strcmp(e->value, "false") || !strcmp(e->value, "0")) {
		*out = false;
		return true;
	}
	skin_error_set(r->err, e->file, e->line, 0,
		       "%s: \"%s\": expected true or false", e->path, e->value);
	return false;
}

/* Read a device file: its <device> element (the root, or a child of a
 * <devices> root as in the older files) and everything it includes. */
static bool read_device(struct robotcfg *r, const char *path,
			struct xdevice *d, bool *is_device)
{
	const char *kept = keep_file(r, path);
	xmlNode *root, *dev = NULL, *c;
	xmlDoc *doc;
	bool ok;

	memset(d, 0, sizeof(*d));
	*is_device = false;
	if (!kept)
		return oom(r, path);
	doc = read_xml(r, kept, NULL, 0);
	if (!doc)
		return false;
	root = xmlDocGetRootElement(doc);
	if (root && is(root, "device"))
		dev = root;
	else if (root && is(root, "devices"))
		for (c = root->children; c && !dev; c = c->next)
			if (is(c, "device"))
				dev = c;
	if (!dev) {
		/* a skinSpec or another included file: not a device */
		xmlFreeDoc(doc);
		return true;
	}
	*is_device = true;
	d->file = kept;
	d->line = model_xml_line(dev);
	d->name = (char *)xmlGetProp(dev, (const xmlChar *)"name");
	d->type = (char *)xmlGetProp(dev, (const xmlChar *)"type");
	if (!d->name || !d->type) {
		skin_error_set(r->err, kept, d->line, 0,
			       "<device> without %s: expected name=\"...\" type=\"...\"",
			       d->name ? "type" : "name");
		xmlFreeDoc(doc);
		return false;
	}
	{
		char dir[4096];

		ok = walk(r, d, dev, "", kept,
			  include_base(r, doc, kept, dir, sizeof(dir)), 0);
	}
	xmlFreeDoc(doc);
	return ok;
}

static void free_xdevice(struct xdevice *d)
{
	unsigned int i;

	for (i = 0; i < d->n_e; i++) {
		free(d->e[i].path);
		free(d->e[i].value);
	}
	free(d->e);
	xmlFree(d->name);
	xmlFree(d->type);
}

/* The XML files of DIR/sub, sorted: the output's order is the names' */
static int list_xml(struct robotcfg *r, const char *sub, char ***out)
{
	struct dirent **ents;
	char *path;
	int n, i, k = 0;

	if (asprintf(&path, "%s/%s", r->dir, sub) < 0) {
		oom(r, r->dir);
		return -1;
	}
	n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		skin_error_set(r->err, path, 0, 0, "cannot read: %s: expected a robots-configuration robot folder (%s)",
			       strerror(errno), sub);
		free(path);
		return -1;
	}
	*out = calloc((size_t)n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (*out && len > 4 && !strcmp(ents[i]->d_name + len - 4, ".xml") &&
		    asprintf(&(*out)[k], "%s/%s", path, ents[i]->d_name) >= 0)
			k++;
		free(ents[i]);
	}
	free(ents);
	free(path);
	if (!*out) {
		oom(r, r->dir);
		return -1;
	}
	return k;
}

static bool skin_device(struct robotcfg *r, struct skin_dev *s)
{
	const struct xdevice *d = &s->x;
	const struct skin_eth_board *b;
	const struct entry *e, *ip;
	struct skin_error eerr;
	char spec[64];
	struct in_addr a;
	unsigned int p, i;
	char path[64];

	e = need(r, d, "ETH_BOARD/ETH_BOARD_PROPERTIES/IpAddress",
		 "the board's *-eln.xml, through an xi:include");
	if (!e)
		return false;
	if (inet_pton(AF_INET, e->value, &a) != 1) {
		skin_error_set(r->err, e->file, e->line, 0,
			       "IpAddress \"%s\": expected an IPv4 address", e->value);
		return false;
	}
	snprintf(s->ip, sizeof(s->ip), "%s", e->value);
	ip = e;
	e = find(d, "ETH_BOARD/ETH_BOARD_PROPERTIES/IpPort");
	if (e && strcmp(e->value, "12345"))
		note(r, "%s:%u: IpPort %s: the gateway reads the boards' port 12345 only",
		     rel(r, e->file), e->line, e->value);
	e = find(d, "ETH_BOARD/ETH_BOARD_PROPERTIES/Type");
	snprintf(s->eth_type, sizeof(s->eth_type), "%s", e ? e->value : "?");

	/* fromConfig(): skinCanAddrsPatch1 then 2; patch N is CAN port N */
	for (p = 1; p <= 2; p++) {
		long v[MAX_PATCH_BOARDS + 1];
		int n;

		snprintf(path, sizeof(path), "patches/skinCanAddrsPatch%u", p);
		e = find(d, path);
		if (!e)
			continue;
		n = ints(r, e, 0, 15, v, MAX_PATCH_BOARDS);
		if (n < 0)
			return false;
		if (n == 0) {
			skin_error_set(r->err, e->file, e->line, 0,
				       "%s is empty: expected the MTB boards' CAN addresses, 0..15",
				       e->path);
			return false;
		}
		s->port[s->n_patches] = (int)p;
		s->n_addr[s->n_patches] = (unsigned int)n;
		for (i = 0; i < (unsigned int)n; i++)
			s->addr[s->n_patches][i] = (int)v[i];
		s->n_patches++;
	}
	if (!s->n_patches) {
		skin_error_set(r->err, d->file, d->line, 0,
			       "device \"%s\" has no patches/skinCanAddrsPatch1 or 2: expected the MTB boards' CAN addresses",
			       d->name);
		return false;
	}
	/* the board as the gateway takes it: lib/eth's own spec, name
	 * (eb and the address's last number) and interface names */
	snprintf(spec, sizeof(spec), "%s:%d%s", s->ip, s->port[0],
		 s->n_patches == 2 ? ",2" : "");
	if (skin_eth_rx_add_board(r->rx, spec, &eerr)) {
		skin_error_set(r->err, ip->file, ip->line, 0,
			       "device \"%s\": %s: expected one skin device per board, their addresses' last numbers distinct",
			       d->name, eerr.text);
		return false;
	}
	b = skin_eth_rx_board(r->rx, skin_eth_rx_n_boards(r->rx) - 1);
	snprintf(s->board, sizeof(s->board), "%s", b->name);
	for (p = 0; p < s->n_patches; p++)
		snprintf(s->ifname[p], sizeof(s->ifname[p]), "%s", b->ifname[p]);

	/* update(): with two patches, patch 2's boards come first; one
	 * patch is the whole vector */
	for (p = s->n_patches; p-- > 0;)
		for (i = 0; i < s->n_addr[p]; i++) {
			s->b_patch[s->n_boards] = p;
			s->b_port[s->n_boards] = s->port[p];
			s->b_addr[s->n_boards++] = s->addr[p][i];
		}
	for (i = 0; i < s->n_boards; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			if (s->b_port[j] == s->b_port[i] && s->b_addr[j] == s->b_addr[i]) {
				skin_error_set(r->err, d->file, d->line, 0,
					       "device \"%s\": board CAN%d:%d listed twice: expected each address once per CAN port",
					       d->name, s->b_port[i], s->b_addr[i]);
				return false;
			}
	}

	/* Without both default groups embObjSkin takes the old analog
	 * sensor frames (class 3), which skind does not read. */
	if (!need(r, d, "defaultCfgBoard/skinType", "the *-skinSpec.xml's defaultCfgBoard group") ||
	    !need(r, d, "defaultCfgTriangle/cdcOffset", "the *-skinSpec.xml's defaultCfgTriangle group"))
		return false;
	/* skinParams.h's defaults for what a group leaves out */
	s->period = 40;
	s->skin_type = 0;
	s->no_load = 0xf0;
	s->enabled = true;
	s->shift = 0;
	s->cdc_offset = 0x2200;
	if ((e = find(d, "defaultCfgBoard/period")) && !one_int(r, e, 1, 255, &s->period))
		return false;
	if (!one_int(r, find(d, "defaultCfgBoard/skinType"), 0, 15, &s->skin_type))
		return false;
	if ((e = find(d, "defaultCfgBoard/noLoad")) && !one_int(r, e, 0, 255, &s->no_load))
		return false;
	if ((e = find(d, "defaultCfgBoard/diagnostic")) && !boolean(r, e, &s->diagnostic))
		return false;
	if ((e = find(d, "defaultCfgTriangle/enabled")) && !boolean(r, e, &s->enabled))
		return false;
	if ((e = find(d, "defaultCfgTriangle/shift")) && !one_int(r, e, 0, 15, &s->shift))
		return false;
	if (!one_int(r, find(d, "defaultCfgTriangle/cdcOffset"), 0, 0xffff, &s->cdc_offset))
		return false;
	return true;
}

/* The patch of a special set ("patch" = CAN port, 1 or 2) on device s */
static int patch_of(const struct skin_dev *s, long port)
{
	unsigned int p;

	for (p = 0; p < s->n_patches; p++)
		if (s->port[p] == port)
			return (int)p;
	return -1;
}

static bool has_addr(const struct skin_dev *s, int p, long addr)
{
	unsigned int i;

	for (i = 0; i < s->n_addr[p]; i++)
		if (s->addr[p][i] == addr)
			return true;
	return false;
}

/* The device's board k at CAN port index p, address a; -1 if none */
static int board_index(const struct skin_dev *s, int p, long a)
{
	unsigned int k;

	for (k = 0; k < s->n_boards; k++)
		if ((int)s->b_patch[k] == p && s->b_addr[k] == a)
			return (int)k;
	return -1;
}

/*
 * specialCfgBoards and specialCfgTriangles, checked as embObjSkin checks
 * them.  A board set, and a triangle set over a whole board (0..15,
 * enabled), become the board's own values ([board BUS:ADDRESS]); a
 * triangle set over part of a board stays a note: the driver sets one
 * shift and cdcOffset per board (and on a tapped bus sends neither).
 */
static bool special_sets(struct robotcfg *r, struct skin_dev *s)
{
	static const struct {
		const char *group, *key;
		unsigned int n;
	} kinds[2] = {
		{ "specialCfgBoards", "boardSetCfg", 6 },
		{ "specialCfgTriangles", "triangleSetCfg", 7 },
	};
	unsigned int k, i, n_sets;
	const struct entry *e;
	char path[80];

	for (i = 0; i < s->n_boards; i++) {
		s->bv[i][BV_PERIOD] = s->period;
		s->bv[i][BV_SKIN_TYPE] = s->skin_type;
		s->bv[i][BV_NO_LOAD] = s->no_load;
		s->bv[i][BV_SHIFT] = s->shift;
		s->bv[i][BV_CDC_OFFSET] = s->cdc_offset;
	}
	for (k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/numOfSets", kinds[k].group);
		e = find(&s->x, path);
		if (!e)
			continue;
		if (!one_int(r, e, 0, 1000, &n_sets))
			return false;
		for (i = 1; i <= n_sets; i++) {
			long v[7];
			int p, n;

			snprintf(path, sizeof(path), "%s/%s%u", kinds[k].group,
				 kinds[k].key, i);
			e = need(r, &s->x, path, "numOfSets says so");
			if (!e)
				return false;
			n = ints(r, e, 0, 0xffff, v, 7);
			if (n < 0)
				return false;
			if ((unsigned int)n != kinds[k].n) {
				skin_error_set(r->err, e->file, e->line, 0,
					       "%s: %d values: expected %u (%s)", e->path, n, kinds[k].n,
					       k ? "patch, board, first triangle, last triangle, enabled, shift, cdcOffset"
						 : "patch, first board, last board, period, skinType, noLoad");
				return false;
			}
			p = patch_of(s, v[0]);
			if (p < 0) {
				skin_error_set(r->err, e->file, e->line, 0,
					       "%s: patch %ld: expected a patch of the device (skinCanAddrsPatch%ld)",
					       e->path, v[0], v[0]);
				return false;
			}
			if (k == 0) {
				long a;

				for (a = v[1]; a <= v[2]; a++)
					if (!has_addr(s, p, a)) {
						skin_error_set(r->err, e->file, e->line, 0,
							       "%s: board %ld is not in patch %ld: expected one of skinCanAddrsPatch%ld",
							       e->path, a, v[0], v[0]);
						return false;
					}
				if (v[3] < 1 || v[3] > 255 || v[4] > 15 || v[5] > 255) {
					skin_error_set(r->err, e->file, e->line, 0,
						       "%s: period %ld, skinType %ld, noLoad %ld: expected 1..255, 0..15, 0..255",
						       e->path, v[3], v[4], v[5]);
					return false;
				}
				for (a = v[1]; a <= v[2]; a++) {
					int b = board_index(s, p, a);

					s->bv[b][BV_PERIOD] = (unsigned int)v[3];
					s->bv[b][BV_SKIN_TYPE] = (unsigned int)v[4];
					s->bv[b][BV_NO_LOAD] = (unsigned int)v[5];
				}
			} else {
				if (!has_addr(s, p, v[1]) || v[2] > 15 || v[3] > 15 || v[2] > v[3]) {
					skin_error_set(r->err, e->file, e->line, 0,
						       "%s: board %ld, triangles %ld..%ld: expected a board of patch %ld and triangles 0..15",
						       e->path, v[1], v[2], v[3], v[0]);
					return false;
				}
				if (v[2] == 0 && v[3] == 15 && v[4] && v[5] <= 15) {
					int b = board_index(s, p, v[1]);

					s->bv[b][BV_SHIFT] = (unsigned int)v[5];
					s->bv[b][BV_CDC_OFFSET] = (unsigned int)v[6];
				} else if ((v[4] != 0) != s->enabled || v[5] != (long)s->shift ||
					   v[6] != (long)s->cdc_offset) {
					/* a set of the defaults changes nothing */
					note(r, "%s:%u: board %s:%ld triangles %ld..%ld: enabled %ld, shift %ld, cdc_offset 0x%lx",
					     rel(r, e->file), e->line, s->ifname[p], v[1],
					     v[2], v[3], v[4], v[5], v[6]);
				}
			}
		}
	}
	if (!s->enabled)
		note(r, "%s: %s: defaultCfgTriangle enabled false: triangles are off unless a special set enables them",
		     rel(r, s->x.file), s->x.name);
	if (s->diagnostic)
		note(r, "%s: %s: defaultCfgBoard diagnostic true: skind reads the error code in bytes 6-7 itself",
		     rel(r, s->x.file), s->x.name);
	return true;
}

static struct skin_dev *dev_named(struct robotcfg *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->n_dev; i++)
		if (!strcmp(r->dev[i].x.name, name))
			return &r->dev[i];
	return NULL;
}

static bool taken(const struct robotcfg *r, const char *bus, int addr)
{
	unsigned int i, j;

	for (i = 0; i < r->n_part; i++)
		for (j = 0; j < r->part[i].n; j++)
			if (!strcmp(r->part[i].bus[j], bus) && r->part[i].addr[j] == addr)
				return true;
	return false;
}

/* A skinWrapper: its ports, as parts */
static bool wrapper(struct robotcfg *r, struct xdevice *w)
{
	const struct entry *net = NULL, *tot, *e;
	unsigned int i, n_nets = 0, total, sum = 0;
	struct skin_dev *s;

	for (i = 0; i < w->n_e; i++)
		if (!strncmp(w->e[i].path, "action/networks/", 16)) {
			n_nets++;
			if (!net)
				net = &w->e[i];
		}
	if (n_nets != 1) {
		skin_error_set(r->err, w->file, net ? net->line : w->line, 0,
			       "wrapper \"%s\" attaches %u devices: expected one (action networks)",
			       w->name, n_nets);
		return false;
	}
	s = dev_named(r, net->value);
	if (!s) {
		skin_error_set(r->err, net->file, net->line, 0,
			       "network \"%s\": expected the name of an embObjSkin device in hardware/skin",
			       net->value);
		return false;
	}
	tot = need(r, w, "total_taxels", "the device's vector length");
	if (!tot || !one_int(r, tot, 1, 1 << 20, &total))
		return false;
	for (i = 0; i < w->n_e; i++) {
		long v[4];
		unsigned int b, first, count, len;
		struct part *p;
		int n;

		e = &w->e[i];
		if (strncmp(e->path, "ports/", 6))
			continue;
		n = ints(r, e, 0, 1 << 20, v, 4);
		if (n < 0)
			return false;
		if (n != 4 || v[1] < v[0] || v[3] < v[2] || v[1] - v[0] != v[3] - v[2]) {
			skin_error_set(r->err, e->file, e->line, 0,
				       "port %s: \"%s\": expected wBase wTop base top, wTop - wBase = top - base",
				       e->path + 6, e->value);
			return false;
		}
		len = (unsigned int)(v[3] - v[2] + 1);
		sum += len;
		if ((unsigned long)v[1] >= (unsigned long)s->n_boards * MTB_VALUES) {
			skin_error_set(r->err, e->file, e->line, 0,
				       "port %s: values %ld..%ld: expected within the %u values of device \"%s\" (%u boards)",
				       e->path + 6, v[0], v[1], s->n_boards * MTB_VALUES,
				       s->x.name, s->n_boards);
			return false;
		}
		if (v[0] % MTB_VALUES || len % MTB_VALUES) {
			/* skind.conf's parts are whole boards */
			note(r, "%s:%u: port %s: values %ld..%ld are not whole boards of %u: no part made (skind.conf places whole boards)",
			     rel(r, e->file), e->line, e->path + 6, v[0], v[1], MTB_VALUES);
			continue;
		}
		first = (unsigned int)v[0] / MTB_VALUES;
		count = len / MTB_VALUES;
		p = realloc(r->part, (r->n_part + 1) * sizeof(*p));
		if (!p)
			return oom(r, e->file);
		r->part = p;
		p = &r->part[r->n_part];
		memset(p, 0, sizeof(*p));
		p->name = strdup(e->path + 6);
		if (!p->name)
			return oom(r, e->file);
		p->skin_part = skin_part_id_from_name(p->name);
		p->file = e->file;
		p->line = e->line;
		for (b = first; b < first + count; b++) {
			const char *bus = s->ifname[s->b_patch[b]];

			if (taken(r, bus, s->b_addr[b])) {
				note(r, "%s:%u: port %s: board %s:%d is another port's too: no part made (skind.conf gives a board one part)",
				     rel(r, e->file), e->line, p->name, bus, s->b_addr[b]);
				free(p->name);
				p = NULL;
				break;
			}
			snprintf(p->bus[p->n], sizeof(p->bus[0]), "%s", bus);
			p->addr[p->n++] = s->b_addr[b];
		}
		if (p)
			r->n_part++;
	}
	if (sum != total) {
		/* AnalogWrapper refuses it: the robot's own wrapper does not open */
		skin_error_set(r->err, tot->file, tot->line, 0,
			       "total_taxels %u: the ports map %u values: expected the sum of the ports",
			       total, sum);
		return false;
	}
	if (total != s->n_boards * MTB_VALUES)
		note(r, "%s:%u: total_taxels %u, device \"%s\" has %u boards (%u values)",
		     rel(r, tot->file), tot->line, total, s->x.name, s->n_boards,
		     s->n_boards * MTB_VALUES);
	return true;
}

static bool read_skin(struct robotcfg *r)
{
	char **files = NULL;
	int n, i;
	bool ok = true;

	n = list_xml(r, "hardware/skin", &files);
	if (n < 0)
		return false;
	for (i = 0; i < n && ok; i++) {
		struct skin_dev *s;
		struct xdevice x;
		bool is_device;

		ok = read_device(r, files[i], &x, &is_device);
		if (!ok || !is_device) {
			free_xdevice(&x);
			continue;
		}
		if (strcmp(x.type, "embObjSkin")) {
			skin_error_set(r->err, x.file, x.line, 0,
				       "device \"%s\" of type \"%s\": expected embObjSkin (a skin on an ETH board)",
				       x.name, x.type);
			free_xdevice(&x);
			ok = false;
			break;
		}
		s = realloc(r->dev, (r->n_dev + 1) * sizeof(*s));
		if (!s) {
			free_xdevice(&x);
			ok = oom(r, files[i]);
			break;
		}
		r->dev = s;
		s = &r->dev[r->n_dev++];
		memset(s, 0, sizeof(*s));
		s->x = x;
		if (dev_named(r, x.name) != s) {
			skin_error_set(r->err, x.file, x.line, 0,
				       "a second device named \"%s\": expected each name once", x.name);
			ok = false;
		}
		ok = ok && skin_device(r, s) && special_sets(r, s);
	}
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	if (ok && !r->n_dev) {
		skin_error_set(r->err, r->dir, 0, 0,
			       "hardware/skin holds no device: expected *-skin.xml files of type embObjSkin");
		ok = false;
	}
	return ok;
}

static bool read_wrappers(struct robotcfg *r)
{
	char **files = NULL;
	int n, i;
	bool ok = true;

	n = list_xml(r, "wrappers/skin", &files);
	if (n < 0)
		return false;
	for (i = 0; i < n && ok; i++) {
		struct xdevice x;
		bool is_device;

		ok = read_device(r, files[i], &x, &is_device);
		if (ok && is_device) {
			if (strcmp(x.type, "skinWrapper")) {
				skin_error_set(r->err, x.file, x.line, 0,
					       "device \"%s\" of type \"%s\": expected skinWrapper",
					       x.name, x.type);
				ok = false;
			} else {
				ok = wrapper(r, &x);
			}
		}
		free_xdevice(&x);
	}
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return ok;
}

struct robotcfg *robotcfg_read(const char *dir, struct skin_error *err)
{
	struct robotcfg *r = calloc(1, sizeof(*r));
	struct skin_error local;
	unsigned int i, k;

	if (!err)
		err = &local;
	if (!r || !(r->dir = strdup(dir)) || !(r->rx = skin_eth_rx_new())) {
		if (r)
			free(r->dir);
		free(r);
		skin_error_set(err, dir, 0, 0, "out of memory");
		return NULL;
	}
	for (i = strlen(r->dir); i > 1 && r->dir[i - 1] == '/'; i--)
		r->dir[i - 1] = '\0';
	r->err = err;
	if (!read_skin(r) || !read_wrappers(r)) {
		robotcfg_free(r);
		return NULL;
	}
	/* boards no port carries: the robot publishes them nowhere */
	for (i = 0; i < r->n_dev; i++) {
		const struct skin_dev *s = &r->dev[i];

		for (k = 0; k < s->n_boards; k++) {
			const char *bus = s->ifname[s->b_patch[k]];

			if (!taken(r, bus, s->b_addr[k]))
				note(r, "%s: board %s:%d is in no wrapper's port: no part has it",
				     rel(r, s->x.file), bus, s->b_addr[k]);
		}
	}
	r->err = NULL;
	return r;
}

void robotcfg_free(struct robotcfg *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; i < r->n_dev; i++)
		free_xdevice(&r->dev[i].x);
	free(r->dev);
	for (i = 0; i < r->n_part; i++) {
		free(r->part[i].name);
		free(r->part[i].geometry);
	}
	free(r->part);
	for (i = 0; i < r->n_note; i++)
		free(r->note[i]);
	free(r->note);
	for (i = 0; i < r->n_files; i++)
		free(r->files[i]);
	free(r->files);
	skin_eth_rx_free(r->rx);
	free(r->dir);
	free(r);
}

unsigned int robotcfg_n_notes(const struct robotcfg *r)
{
	return r->n_note;
}

const char *robotcfg_note(const struct robotcfg *r, unsigned int i)
{
	return i < r->n_note ? r->note[i] : NULL;
}

/* [board]'s value of key k: the one most boards have (the first of a tie) */
static unsigned int board_common(const struct robotcfg *r, unsigned int k)
{
	unsigned int i, j, b, c, n, best = 0, best_n = 0;

	for (i = 0; i < r->n_dev; i++)
		for (b = 0; b < r->dev[i].n_boards; b++) {
			unsigned int v = r->dev[i].bv[b][k];

			n = 0;
			for (j = 0; j < r->n_dev; j++)
				for (c = 0; c < r->dev[j].n_boards; c++)
					n += r->dev[j].bv[c][k] == v;
			if (n > best_n) {
				best = v;
				best_n = n;
			}
		}
	return best;
}

static void write_key(FILE *f, unsigned int k, unsigned int v)
{
	fprintf(f, bv_keys[k].hex ? "%s = 0x%x\n" : "%s = %u\n", bv_keys[k].key, v);
}

/* [board BUS:ADDRESS] for each board of a part whose values are not
 * [board]'s: the keys that differ */
static void write_own_boards(const struct robotcfg *r, FILE *f,
			     const unsigned int common[BV_N])
{
	unsigned int i, b, k;

	for (i = 0; i < r->n_dev; i++) {
		const struct skin_dev *s = &r->dev[i];

		for (b = 0; b < s->n_boards; b++) {
			bool own = false;

			for (k = 0; k < BV_N; k++)
				own |= s->bv[b][k] != common[k];
			/* (a board of no part has no patch to take them) */
			if (!own || !taken(r, s->ifname[s->b_patch[b]], s->b_addr[b]))
				continue;
			fprintf(f, "\n# %s's board %d (%s)\n[board %s:%d]\n",
				s->x.name, s->b_addr[b], rel(r, s->x.file),
				s->ifname[s->b_patch[b]], s->b_addr[b]);
			for (k = 0; k < BV_N; k++)
				if (s->bv[b][k] != common[k])
					write_key(f, k, s->bv[b][k]);
		}
	}
}

void robotcfg_write_skind(const struct robotcfg *r, FILE *f)
{
	unsigned int i, j, k, p, common[BV_N];

	bool geometry = false;

	for (i = 0; i < r->n_part; i++)
		geometry |= r->part[i].geometry != NULL;
	fprintf(f, "# skind.conf - imported by `skinctl import robots-configuration` from\n"
		   "# %.150s\n"
		   "# (docs/ETH.md, \"Importing a robot's configuration\").  Buses are the\n"
		   "# ETH gateway's interfaces, NAMEcanPORT (skin-eth.boards).\n%s\n",
		   r->dir, geometry ?
		   "# Geometry: the file of --geometry-dir of the part's SkinPart and length.\n" :
		   "# No geometry: robots-configuration has none (--geometry-dir DIR, or\n"
		   "# geometry = per part, docs/MODEL.md); skind refuses a part without.\n");
	fprintf(f, "[skind]\n\n[board]\n"
		   "# the values of most boards (defaultCfgBoard, defaultCfgTriangle);\n"
		   "# the others' in [board BUS:ADDRESS] below.  On a tapped ETH bus\n"
		   "# yarprobotinterface configures the boards: skind reads noLoad and\n"
		   "# the period from here, and sends nothing.\n");
	for (k = 0; k < BV_N; k++) {
		common[k] = board_common(r, k);
		write_key(f, k, common[k]);
	}
	if (r->n_note) {
		fprintf(f, "# What skind.conf cannot express (part of a board's triangles, or\n"
			   "# not a whole board), from the robot's files:\n");
		for (i = 0; i < r->n_note; i++)
			fprintf(f, "#   %s\n", r->note[i]);
	}
	for (i = 0; i < r->n_dev; i++) {
		const struct skin_dev *s = &r->dev[i];

		for (p = 0; p < s->n_patches; p++)
			fprintf(f, "\n# %s: %s %s, CAN%d\n[bus %s]\nlisten_only = yes\n",
				s->x.name, s->eth_type, s->ip, s->port[p],
				s->ifname[p]);
	}
	write_own_boards(r, f, common);
	for (i = 0; i < r->n_part; i++) {
		const struct part *pt = &r->part[i];

		fprintf(f, "\n# %s:%u\n[part %s]\n", rel(r, pt->file), pt->line, pt->name);
		if (pt->skin_part != SKIN_PART_UNKNOWN)
			fprintf(f, "skin_part = %s\n", skin_part_id_name(pt->skin_part));
		fprintf(f, "layout = none\n");
		if (pt->geometry)
			fprintf(f, "geometry = %s\n", pt->geometry);
		else
			fprintf(f, "# geometry: none found (skinctl import --geometry-dir DIR)\n");
		fprintf(f, "patches =");
		for (j = 0; j < pt->n; j++)
			fprintf(f, "%s%s:%d", j && j % 6 == 0 ? "\n\t" : " ",
				pt->bus[j], pt->addr[j]);
		fprintf(f, "\n");
	}
}

void robotcfg_write_boards(const struct robotcfg *r, FILE *f)
{
	unsigned int i, p;

	fprintf(f, "# skin-eth.boards - the ETH boards with skin, one a line:\n"
		   "# NAME=IPV4:PORT[,PORT], the CAN ports of patch index 0 and 1\n"
		   "# (skin-eth --board; docs/ETH.md), imported from\n# %.150s\n", r->dir);
	for (i = 0; i < r->n_dev; i++) {
		const struct entry *pc = find(&r->dev[i].x, "PC104/PC104IpAddress");

		if (pc) {
			fprintf(f, "# the head PC they send to (%s): %s\n",
				rel(r, pc->file), pc->value);
			break;
		}
	}
	for (i = 0; i < r->n_dev; i++) {
		const struct skin_dev *s = &r->dev[i];

		fprintf(f, "# %s (%s)\n%s=%s:", s->x.name, s->eth_type, s->board, s->ip);
		for (p = 0; p < s->n_patches; p++)
			fprintf(f, "%s%d", p ? "," : "", s->port[p]);
		fprintf(f, "\n");
	}
}

void robotcfg_write_yarp(const struct robotcfg *r, FILE *f)
{
	unsigned int i;

	fprintf(f, "# skin-yarp.conf - each part's raw port named as the robot's\n"
		   "# skinWrapper names it (wrappers/skin), imported from\n# %.150s\n\n[yarp]\n"
		   "# robot = icub    the robot's portprefix, if not icub (not imported)\n",
		   r->dir);
	for (i = 0; i < r->n_part; i++)
		fprintf(f, "\n[part %s]\nport = %s\n", r->part[i].name, r->part[i].name);
}

/*
 * A part's geometry: the one file of dir whose part is of the same
 * SkinPart and has the port's length (e.g. left_hand_V2_1.txt, 192
 * values, for a left_hand port of one board).  Two such files (two
 * versions of a forearm) are a choice the robot's files do not make:
 * none is taken, and a note says which.
 */
int robotcfg_find_geometry(struct robotcfg *r, const char *dir,
			   struct skin_error *err)
{
	struct dirent **ents;
	char *abs = realpath(dir, NULL);
	int n, i;
	unsigned int k;

	if (!abs || (n = scandir(abs, &ents, NULL, alphasort)) < 0) {
		skin_error_set(err, dir, 0, 0, "cannot read: %s: expected a folder of geometry files",
			       strerror(errno));
		free(abs);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct skin_model *m = NULL;
		char *path = NULL;

		if (ents[i]->d_name[0] != '.' &&
		    asprintf(&path, "%s/%s", abs, ents[i]->d_name) >= 0)
			m = skin_model_load(path, SKIN_FORMAT_AUTO, NULL);
		for (k = 0; m && k < r->n_part; k++) {
			struct part *pt = &r->part[k];
			unsigned int j;

			for (j = 0; j < m->n_parts; j++)
				if (m->parts[j].skin_part == pt->skin_part &&
				    pt->skin_part != SKIN_PART_UNKNOWN &&
				    m->parts[j].n_taxels == pt->n * MTB_VALUES)
					break;
			if (j == m->n_parts)
				continue;
			if (pt->geometry) {
				note(r, "part %s: %s and %s fit (SkinPart, %u values): no geometry taken",
				     pt->name, pt->geometry, path, pt->n * MTB_VALUES);
				free(pt->geometry);
				pt->geometry = strdup("");
			} else {
				pt->geometry = strdup(path);
			}
		}
		skin_model_free(m);
		free(path);
		free(ents[i]);
	}
	free(ents);
	free(abs);
	for (k = 0; k < r->n_part; k++) {
		struct part *pt = &r->part[k];

		if (pt->geometry && !*pt->geometry) {
			free(pt->geometry);
			pt->geometry = NULL;
		} else if (!pt->geometry) {
			note(r, "part %s: no file of %s is its SkinPart with %u values",
			     pt->name, dir, pt->n * MTB_VALUES);
		}
	}
	return 0;
}
