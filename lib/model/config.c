// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - skind.conf, parsed with lib/conf, and the model it describes
 *
 * INI sections: [skind] (skinManager's parameters, defaults from
 * skinManAll.ini), [board] (the MTB start-up configuration), [board
 * BUS:ADDRESS] (one board's own values over [board]'s), [bus NAME] and
 * [part NAME]; the keys of all but [part] are lib/conf/skind.c's tables.
 * docs/MODEL.md is the reference.  lib/conf's conf_parse() does the
 * syntax (with continuation lines: a patches list may go on over indented
 * lines); this file checks every value and says which line (and column)
 * holds a bad one.
 */
#define _GNU_SOURCE	/* vasprintf, asprintf */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "model-private.h"

struct patch_ref {
	char bus[64];
	int address;
	unsigned int line, col;
};

struct part_extra {
	struct patch_ref *refs;
	unsigned int n_refs;
	unsigned int geometry_line, layout_line, seen;
};

/* A [board BUS:ADDRESS] section: the keys it sets override [board]'s for
 * that one board. */
struct board_section {
	char bus[64];
	int address;
	unsigned int line, col;
	unsigned int seen;		/* keys set: bit i for conf_board_keys[i] */
	struct skin_config_board values;
};

struct cfg_parse {
	struct skin_config *c;
	struct board_section *boards;
	unsigned int n_boards;
	struct part_extra *extra;	/* parallel to c->parts */
	const char *name;		/* for messages */
	char *dir;			/* relative geometry paths */
	struct skin_error *err;
	bool failed;
	struct conf_parser *cp;		/* while parsing */
	unsigned int line;
	const char *raw;		/* the current line, for columns */
	/* section state */
	char section[128];
	unsigned int section_line;
	unsigned int seen;		/* keys seen in [skind]/[board]/[bus] */
	int cur_part, cur_bus, cur_board;
};

static void cfg_error(struct cfg_parse *p, const char *value,
		      const char *fmt, ...) SKIN_PRINTF(3, 4);

/* Error on the current line; the column is where value starts, when the
 * value can be found in the raw line. */
static void cfg_error(struct cfg_parse *p, const char *value,
		      const char *fmt, ...)
{
	char what[512];
	unsigned int col = 0;
	va_list ap;

	if (p->failed)
		return;	/* the first error is the one to fix */
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->failed = true;
	if (p->cp) {
		conf_error(p->cp, value, "%s", what);
		return;
	}
	if (value && *value) {
		const char *eq = strchr(p->raw, '=');
		const char *at = strstr(eq ? eq : p->raw, value);

		if (at)
			col = (unsigned int)(at - p->raw) + 1;
	}
	/* a refusal of the whole line or section: where its text starts */
	if (!col && p->line)
		col = (unsigned int)strspn(p->raw ? p->raw : "", " \t") + 1;
	skin_error_set(p->err, p->name, p->line, col, "%s", what);
}

static bool new_section(struct cfg_parse *p, const char *section);

static bool parse_uint(struct cfg_parse *p, const char *key, const char *v,
		       unsigned long min, unsigned long max, unsigned int *out)
{
	unsigned long x;
	char *end;
	int base = (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) ? 16 : 10;

	errno = 0;
	x = strtoul(v, &end, base);
	if (!*v || *v == '-' || *v == '+' || *end || errno || x < min ||
	    x > max) {
		cfg_error(p, v, "%s = '%s': expected an integer %lu..%lu", key,
			  v, min, max);
		return false;
	}
	*out = (unsigned int)x;
	return true;
}

/* Each key once per section: bit i of seen for key i of the table. */
static bool once(struct cfg_parse *p, unsigned int *seen, unsigned int i,
		 const char *key)
{
	if (*seen & (1u << i)) {
		cfg_error(p, key, "second '%s' in [%s]: expected it once",
			  key, p->section);
		return false;
	}
	*seen |= 1u << i;
	return true;
}

static int find_key(const char *const *keys, const char *name)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (!strcmp(keys[i], name))
			return i;
	return -1;
}

static void unknown_key(struct cfg_parse *p, const char *name,
			const char *const *keys)
{
	char list[480] = "";
	size_t off = 0;
	int i;

	for (i = 0; keys[i]; i++)
		off += (size_t)snprintf(list + off, off < sizeof(list) ?
					sizeof(list) - off : 0, "%s%s",
					i ? ", " : "", keys[i]);
	cfg_error(p, name, "unknown key '%s' in [%s]: expected one of %s",
		  name, p->section, list);
}

void skin_config_comp_default(struct skin_config_comp *c)
{
	memset(c, 0, sizeof(*c));
	conf_keys_default(conf_comp_keys, conf_comp_n_keys, c);
}

/* A key of a lib/conf table (skind.c) into base. */
static bool table_key(struct cfg_parse *p, const struct conf_key *t, size_t n,
		      void *base, const char *k, const char *v)
{
	const struct conf_key *key = conf_key_find(t, n, k);
	char why[512];

	if (!key) {
		const char *names[64];
		size_t i;

		for (i = 0; i < n && i < 63; i++)
			names[i] = t[i].name;
		names[i] = NULL;
		unknown_key(p, k, names);
		return false;
	}
	if (!once(p, &p->seen, (unsigned int)(key - t), k))
		return false;
	if (conf_key_set(key, base, v, why, sizeof(why))) {
		cfg_error(p, v, "%s", why);
		return false;
	}
	return true;
}

static const char *const part_keys[] = {
	"skin_part", "layout", "geometry", "geometry_format", "sensor",
	"patches", NULL
};

/* "can0:14 can0:13 ..." in the order of the part's vector; the key may
 * repeat (or continue on indented lines) to extend the list. */
static bool parse_patches(struct cfg_parse *p, struct part_extra *x,
			  const char *v)
{
	const char *s = v;

	while (*s) {
		struct patch_ref r, *nr;
		const char *colon, *end;
		size_t blen;
		unsigned int addr;
		char num[16];

		while (*s == ' ' || *s == '\t' || *s == ',')
			s++;
		if (!*s)
			break;
		end = s + strcspn(s, " \t,");
		colon = memchr(s, ':', (size_t)(end - s));
		blen = colon ? (size_t)(colon - s) : 0;
		if (!colon || !blen || blen >= sizeof(r.bus) ||
		    (size_t)(end - colon - 1) >= sizeof(num) || end == colon + 1) {
			char tok[80];

			snprintf(tok, sizeof(tok), "%.*s", (int)(end - s), s);
			cfg_error(p, tok, "patches: '%s': expected BUS:ADDRESS, e.g. can0:14", tok);
			return false;
		}
		memset(&r, 0, sizeof(r));
		memcpy(r.bus, s, blen);
		memcpy(num, colon + 1, (size_t)(end - colon - 1));
		num[end - colon - 1] = '\0';
		{
			char tok[80];

			snprintf(tok, sizeof(tok), "%.*s", (int)(end - s), s);
			if (!parse_uint(p, "patches: board address", num, 0, 15,
					&addr))
				return false;
			r.address = (int)addr;
			r.line = p->line;
			r.col = 0;
			if (strstr(p->raw, tok))
				r.col = (unsigned int)(strstr(p->raw, tok) - p->raw) + 1;
		}
		if (x->n_refs >= 16 * 64) {
			cfg_error(p, NULL, "patches: more than %u boards in one part",
				  16 * 64);
			return false;
		}
		nr = realloc(x->refs, (x->n_refs + 1) * sizeof(*nr));
		if (!nr) {
			cfg_error(p, NULL, "out of memory");
			return false;
		}
		x->refs = nr;
		x->refs[x->n_refs++] = r;
		s = end;
	}
	return true;
}

static bool part_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct skin_config_part *cp = &p->c->parts[p->cur_part];
	struct part_extra *x = &p->extra[p->cur_part];
	int i = find_key(part_keys, k);

	if (i < 0) {
		unknown_key(p, k, part_keys);
		return false;
	}
	if (i != 5 && !once(p, &x->seen, (unsigned int)i, k))
		return false;
	switch (i) {
	case 0:
		cp->skin_part = skin_part_id_from_name(v);
		if (!cp->skin_part) {
			cfg_error(p, v, "skin_part = '%s': expected an iCub skin part (left_hand, left_forearm, left_upper_arm, right_hand, right_forearm, right_upper_arm, front_torso, left_leg_upper, ..., right_foot)",
				  v);
			return false;
		}
		return true;
	case 1: {
		const char *const *l;

		x->layout_line = p->line;
		if (!strcmp(v, "none"))
			return true;
		for (l = skin_builtin_layouts(); *l; l++)
			if (!strcmp(*l, v))
				break;
		if (!*l) {
			cfg_error(p, v, "layout = '%s': expected none, hand_v2_1, forearm_v1, forearm_v2, upper_arm or torso",
				  v);
			return false;
		}
		return !model_set_str(&cp->layout, v) ||
		       (cfg_error(p, NULL, "out of memory"), false);
	}
	case 2: {
		char *path;

		x->geometry_line = p->line;
		if (!*v) {
			cfg_error(p, NULL, "geometry: expected a file name");
			return false;
		}
		if (v[0] == '/' || !p->dir)
			path = strdup(v);
		else if (asprintf(&path, "%s/%s", p->dir, v) < 0)
			path = NULL;
		if (!path) {
			cfg_error(p, NULL, "out of memory");
			return false;
		}
		free(cp->geometry);
		cp->geometry = path;
		return true;
	}
	case 3:
		cp->geometry_format = skin_format_from_name(v);
		if ((cp->geometry_format == SKIN_FORMAT_AUTO && strcmp(v, "auto")) ||
		    cp->geometry_format == SKIN_FORMAT_CONFIG) {
			cfg_error(p, v, "geometry_format = '%s': expected auto, positions, urdf, skinware or skingui",
				  v);
			return false;
		}
		return true;
	case 4:
		return !model_set_str(&cp->sensor, v) ||
		       (cfg_error(p, NULL, "out of memory"), false);
	default:
		return parse_patches(p, x, v);
	}
}

/*
 * A part's name travels everywhere: skind's socket lines (bottle words and
 * JSON strings), the shm's 32-byte name field, and the driver's patch
 * names (the part's name, or PART.N), which are device nodes.  So it is
 * what a patch name may be (the driver's skin_name_check()): 1..31
 * characters of [A-Za-z0-9_.-], not starting with a dot; and not "all",
 * which the socket's `subscribe ... all` means otherwise.
 */
static const char *part_name_check(const char *name)
{
	size_t i;

	if (name[0] == '.')
		return "starts with a dot";
	for (i = 0; name[i]; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
			    name[i]))
			return "has a character outside [A-Za-z0-9_.-]";
	if (i > SKIN_PART_NAME_MAX)
		return "is longer than 31 characters";
	if (!strcmp(name, "all"))
		return "is 'all', which the socket's subscribe means otherwise";
	return NULL;
}

/* [board BUS:ADDRESS]: one board's own values, over [board]'s */
static bool new_board_section(struct cfg_parse *p, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	struct board_section *b;
	unsigned int i, addr;
	size_t blen = colon ? (size_t)(colon - arg) : 0;

	if (!colon || !blen || blen >= 16 || !colon[1]) {
		cfg_error(p, arg, "[board %s]: expected [board BUS:ADDRESS], e.g. [board can0:14]",
			  arg);
		return false;
	}
	if (!parse_uint(p, "[board BUS:ADDRESS]: board address", colon + 1, 0,
			15, &addr))
		return false;
	for (i = 0; i < p->n_boards; i++)
		if (!strncmp(p->boards[i].bus, arg, blen) &&
		    !p->boards[i].bus[blen] && p->boards[i].address == (int)addr) {
			cfg_error(p, NULL, "[board %s] a second time (first on line %u): expected each board once",
				  arg, p->boards[i].line);
			return false;
		}
	b = realloc(p->boards, (p->n_boards + 1) * sizeof(*b));
	if (!b) {
		cfg_error(p, NULL, "out of memory");
		return false;
	}
	p->boards = b;
	b = &p->boards[p->n_boards];
	memset(b, 0, sizeof(*b));
	memcpy(b->bus, arg, blen);
	b->address = (int)addr;
	b->line = p->line;
	b->col = 1;
	if (strstr(p->raw, arg))
		b->col = (unsigned int)(strstr(p->raw, arg) - p->raw) + 1;
	p->cur_board = (int)p->n_boards++;
	return true;
}

static bool new_section(struct cfg_parse *p, const char *section)
{
	const char *arg = strchr(section, ' ');
	size_t kind = arg ? (size_t)(arg - section) : strlen(section);

	snprintf(p->section, sizeof(p->section), "%s", section);
	p->section_line = p->line;
	if (p->failed)
		return false;
	p->seen = 0;
	p->cur_part = -1;
	p->cur_bus = -1;
	p->cur_board = -1;
	if (arg)
		while (*arg == ' ')
			arg++;
	if (!arg && (!strcmp(section, "skind") || !strcmp(section, "board")))
		return true;
	if (arg && *arg && !strchr(arg, ' ') && kind == 5 &&
	    !strncmp(section, "board", 5))
		return new_board_section(p, arg);
	if (arg && *arg && !strchr(arg, ' ') && kind == 3 &&
	    !strncmp(section, "bus", 3)) {
		struct skin_config_bus *b;
		unsigned int i;

		for (i = 0; i < p->c->n_buses; i++)
			if (!strcmp(p->c->buses[i].name, arg)) {
				cfg_error(p, NULL, "[bus %s] a second time: expected each bus once",
					  arg);
				return false;
			}
		if (strlen(arg) >= 16) {
			cfg_error(p, arg, "[bus %s]: a CAN interface name has at most 15 characters",
				  arg);
			return false;
		}
		b = realloc(p->c->buses, (p->c->n_buses + 1) * sizeof(*b));
		if (!b)
			goto oom;
		p->c->buses = b;
		b[p->c->n_buses].name = strdup(arg);
		conf_keys_default(conf_bus_keys, conf_bus_n_keys,
				  &b[p->c->n_buses]);
		if (!b[p->c->n_buses].name)
			goto oom;
		p->cur_bus = (int)p->c->n_buses++;
		return true;
	}
	if (arg && *arg && !strchr(arg, ' ') && kind == 4 &&
	    !strncmp(section, "part", 4)) {
		const char *why = part_name_check(arg);
		struct skin_config_part *cp;
		struct part_extra *x;
		unsigned int i;

		if (why) {
			cfg_error(p, arg, "[part %.64s]: the name %s: expected 1..%u characters of [A-Za-z0-9_.-], not starting with a dot",
				  arg, why, SKIN_PART_NAME_MAX);
			return false;
		}
		for (i = 0; i < p->c->n_parts; i++)
			if (!strcmp(p->c->parts[i].name, arg)) {
				cfg_error(p, NULL, "[part %s] a second time (first on line %u): expected each part once",
					  arg, p->c->parts[i].line);
				return false;
			}
		if (p->c->n_parts >= SKIN_MAX_PARTS) {
			cfg_error(p, NULL, "more than %u parts", SKIN_MAX_PARTS);
			return false;
		}
		cp = realloc(p->c->parts, (p->c->n_parts + 1) * sizeof(*cp));
		if (!cp)
			goto oom;
		p->c->parts = cp;
		x = realloc(p->extra, (p->c->n_parts + 1) * sizeof(*x));
		if (!x)
			goto oom;
		p->extra = x;
		memset(&cp[p->c->n_parts], 0, sizeof(*cp));
		memset(&x[p->c->n_parts], 0, sizeof(*x));
		cp[p->c->n_parts].line = p->line;
		cp[p->c->n_parts].name = strdup(arg);
		if (!cp[p->c->n_parts].name)
			goto oom;
		p->cur_part = (int)p->c->n_parts++;
		return true;
	}
	cfg_error(p, NULL, "unknown section [%s]: expected [skind], [board], [bus NAME] or [part NAME]",
		  section);
	return false;
oom:
	cfg_error(p, NULL, "out of memory");
	return false;
}

static int section_cb(struct conf_parser *cp, char *name)
{
	struct cfg_parse *p = cp->user;

	p->line = cp->line;
	p->raw = cp->raw;
	return new_section(p, name) ? 0 : -1;
}

static int key_cb(struct conf_parser *cp, char *name, char *value)
{
	struct cfg_parse *p = cp->user;
	bool ok;

	p->line = cp->line;
	p->raw = cp->raw;
	/* [skind]'s table is also skind's get/set's (lib/proc) */
	if (!strcmp(p->section, "skind")) {
		ok = table_key(p, conf_comp_keys, conf_comp_n_keys,
			       &p->c->comp, name, value);
	} else if (!strcmp(p->section, "board")) {
		ok = table_key(p, conf_board_keys, conf_board_n_keys,
			       &p->c->board, name, value);
	} else if (p->cur_board >= 0) {
		struct board_section *b = &p->boards[p->cur_board];

		ok = table_key(p, conf_board_keys, conf_board_n_keys,
			       &b->values, name, value);
		b->seen = p->seen;
	} else if (p->cur_bus >= 0) {
		ok = table_key(p, conf_bus_keys, conf_bus_n_keys,
			       &p->c->buses[p->cur_bus], name, value);
	} else {
		ok = part_key(p, name, value);
	}
	return ok ? 0 : -1;
}

/* Each [board BUS:ADDRESS] names a patch of some part: its keys replace
 * [board]'s in that patch's values. */
static bool apply_board_sections(struct cfg_parse *p)
{
	struct skin_config *c = p->c;
	unsigned int i, j, k, key;

	for (i = 0; i < p->n_boards; i++) {
		const struct board_section *b = &p->boards[i];
		struct skin_config_patch *pt = NULL;

		for (j = 0; j < c->n_parts && !pt; j++)
			for (k = 0; k < c->parts[j].n_patches; k++)
				if (c->parts[j].patches[k].address == b->address &&
				    !strcmp(c->buses[c->parts[j].patches[k].bus].name,
					    b->bus)) {
					pt = &c->parts[j].patches[k];
					break;
				}
		if (!pt) {
			skin_error_set(p->err, p->name, b->line, b->col,
				       "[board %s:%d]: board %s:%d is no patch of any part: expected a board a patches list names",
				       b->bus, b->address, b->bus, b->address);
			return false;
		}
		for (key = 0; key < conf_board_n_keys; key++)
			if (b->seen & (1u << key)) {
				size_t off = conf_board_keys[key].offset;

				*(unsigned int *)((char *)&pt->board + off) =
					*(const unsigned int *)((const char *)&b->values + off);
			}
	}
	return true;
}

static bool check(struct cfg_parse *p)
{
	struct skin_config *c = p->c;
	unsigned int i, j, k, l;

	/* an empty file (or one of comments, [skind] or [bus]) describes no
	 * skin: said here, with the file's name, rather than by whatever
	 * would later find nothing to work on */
	if (!c->n_parts) {
		skin_error_set(p->err, p->name, 0, 0,
			       "no [part NAME] section: expected at least one part");
		return false;
	}
	for (i = 0; i < c->n_parts; i++) {
		struct skin_config_part *cp = &c->parts[i];
		struct part_extra *x = &p->extra[i];

		p->line = cp->line;
		p->raw = "";
		if (!cp->layout && !cp->geometry) {
			cfg_error(p, NULL, "[part %s]: expected a layout, a geometry file or both",
				  cp->name);
			return false;
		}
		if (!x->n_refs) {
			cfg_error(p, NULL, "[part %s]: expected patches = BUS:ADDRESS ... (one per board, in vector order)",
				  cp->name);
			return false;
		}
		if (!cp->skin_part)
			cp->skin_part = skin_part_id_from_name(cp->name);
		cp->patches = calloc(x->n_refs, sizeof(*cp->patches));
		if (!cp->patches) {
			cfg_error(p, NULL, "out of memory");
			return false;
		}
		cp->n_patches = x->n_refs;
		for (j = 0; j < x->n_refs; j++) {
			for (k = 0; k < c->n_buses; k++)
				if (!strcmp(c->buses[k].name, x->refs[j].bus))
					break;
			if (k == c->n_buses) {
				skin_error_set(p->err, p->name, x->refs[j].line,
					     x->refs[j].col,
					     "patches: bus '%s' is not declared: expected a [bus %s] section",
					     x->refs[j].bus, x->refs[j].bus);
				return false;
			}
			cp->patches[j].bus = k;
			cp->patches[j].address = x->refs[j].address;
			cp->patches[j].board = c->board;
		}
		if (cp->layout) {
			unsigned int n;
			enum skin_taxel_kind *kinds;

			if (skin_builtin_part_kinds(cp->layout, &n, &kinds)) {
				cfg_error(p, NULL, "out of memory");
				return false;
			}
			free(kinds);
			if (n / SKIN_VALUES_PER_PATCH != x->n_refs) {
				skin_error_set(p->err, p->name, x->refs[0].line,
					     x->refs[0].col,
					     "[part %s]: layout %s has %u patch(es), patches lists %u",
					     cp->name, cp->layout,
					     n / SKIN_VALUES_PER_PATCH, x->n_refs);
				return false;
			}
		}
	}
	/* One board address per bus, across all parts. */
	for (i = 0; i < c->n_parts; i++)
		for (j = 0; j < c->parts[i].n_patches; j++)
			for (k = i; k < c->n_parts; k++)
				for (l = (k == i ? j + 1 : 0); l < c->parts[k].n_patches; l++) {
					struct patch_ref *a = &p->extra[i].refs[j];
					struct patch_ref *b = &p->extra[k].refs[l];

					if (c->parts[i].patches[j].bus == c->parts[k].patches[l].bus &&
					    a->address == b->address) {
						skin_error_set(p->err, p->name, b->line, b->col,
							     "board %s:%d is already a patch of [part %s] (line %u): expected each board once",
							     b->bus, b->address, c->parts[i].name,
							     a->line);
						return false;
					}
				}
	return apply_board_sections(p);
}

const struct skin_config_board *skin_config_board_of(const struct skin_config *c,
						     const char *bus, int address)
{
	unsigned int i, j;

	for (i = 0; i < c->n_parts; i++)
		for (j = 0; j < c->parts[i].n_patches; j++) {
			const struct skin_config_patch *pt = &c->parts[i].patches[j];

			if (pt->address == address && bus &&
			    !strcmp(c->buses[pt->bus].name, bus))
				return &pt->board;
		}
	return &c->board;
}

void skin_config_free(struct skin_config *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->n_buses; i++)
		free(c->buses[i].name);
	for (i = 0; i < c->n_parts; i++) {
		free(c->parts[i].name);
		free(c->parts[i].layout);
		free(c->parts[i].geometry);
		free(c->parts[i].sensor);
		free(c->parts[i].patches);
	}
	free(c->buses);
	free(c->parts);
	free(c->path);
	free(c);
}

struct skin_config *skin_config_load_buffer(const char *buf, size_t len,
					    const char *name,
					    struct skin_error *err)
{
	struct cfg_parse p;
	struct skin_config *c;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	if (!name)
		name = "(config)";
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(name))) {
		free(c);
		skin_err_oom(err, name);
		return NULL;
	}
	skin_config_comp_default(&c->comp);
	conf_keys_default(conf_board_keys, conf_board_n_keys, &c->board);

	p.c = c;
	p.name = name;
	p.err = err;
	p.raw = "";
	p.cur_part = p.cur_bus = p.cur_board = -1;
	{
		char *copy = strdup(name);

		if (!copy) {
			skin_config_free(c);
			skin_err_oom(err, name);
			return NULL;
		}
		p.dir = strdup(dirname(copy));
		free(copy);
	}
	{
		static const struct conf_syntax syntax = {
			.sections = "[skind], [board], [bus NAME] or [part NAME]",
			.line_max = 198,
			.continuation = true,
		};
		struct conf_parser cp = {
			.syntax = &syntax, .file = name, .err = err, .user = &p,
			.section = section_cb, .key = key_cb,
		};

		p.cp = &cp;
		if (conf_parse(&cp, buf, len))
			p.failed = true;
		p.cp = NULL;
		p.raw = "";
	}
	if (!p.failed && !check(&p))
		p.failed = true;
	for (i = 0; i < c->n_parts; i++)
		free(p.extra[i].refs);
	free(p.extra);
	free(p.boards);
	free(p.dir);
	if (p.failed) {
		skin_config_free(c);
		return NULL;
	}
	return c;
}

struct skin_config *skin_config_load(const char *path, struct skin_error *err)
{
	struct skin_config *c;
	size_t len;
	char *buf;

	buf = conf_read_file(path, &len, err);
	if (!buf)
		return NULL;
	c = skin_config_load_buffer(buf, len, path, err);
	free(buf);
	return c;
}
