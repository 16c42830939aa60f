// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - skind.conf, parsed with libinih, and the model it describes
 *
 * INI sections: [skind] (skinManager's parameters, defaults from
 * skinManAll.ini), [board] (the MTB start-up configuration), [bus NAME]
 * and [part NAME].  docs/MODEL.md is the reference.  libinih does the
 * syntax; this file checks every value and says which line (and column)
 * holds a bad one.  inih's handler gets no line number in Debian's build
 * (INI_HANDLER_LINENO is off), so lines are counted in our own reader.
 */
#define _GNU_SOURCE	/* vasprintf, asprintf */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

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

struct cfg_parse {
	struct skin_config *c;
	struct part_extra *extra;	/* parallel to c->parts */
	const char *name;		/* for messages */
	char *dir;			/* relative geometry paths */
	struct skin_error *err;
	bool failed;
	/* reader */
	const char *buf;
	size_t len, pos;
	unsigned int line;
	char raw[512];			/* the current line, for columns */
	/* section state */
	char section[128];
	unsigned int section_line;
	unsigned int seen;		/* keys seen in [skind]/[board]/[bus] */
	int cur_part, cur_bus;
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
	if (value && *value) {
		const char *eq = strpbrk(p->raw, "=:");
		const char *at = strstr(eq ? eq : p->raw, value);

		if (at)
			col = (unsigned int)(at - p->raw) + 1;
	}
	skin_error_set(p->err, p->name, p->line, col, "%s", what);
	p->failed = true;
}

static bool new_section(struct cfg_parse *p, const char *section);

/* inih reports a section only with its first key; a section without keys
 * ([bus can0] with the default bitrate) must exist all the same, so the
 * reader opens sections itself. */
static void section_line(struct cfg_parse *p)
{
	const char *s = p->raw, *end;
	char name[128];

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '[' || !(end = strchr(s, ']')))
		return;		/* not a section; inih judges the syntax */
	snprintf(name, sizeof(name), "%.*s", (int)(end - s - 1), s + 1);
	new_section(p, name);
}

static char *reader(char *str, int num, void *stream)
{
	struct cfg_parse *p = stream;
	size_t n = 0, start = p->pos;

	if (p->pos >= p->len || p->failed)
		return NULL;
	p->line++;
	while (p->pos < p->len && p->buf[p->pos] != '\n') {
		if (p->buf[p->pos] == '\0') {
			p->raw[0] = '\0';
			cfg_error(p, NULL, "NUL byte: expected text");
			return NULL;
		}
		p->pos++;
	}
	n = p->pos - start;
	if (p->pos < p->len)
		p->pos++;	/* the newline */
	if (n + 2 > (size_t)num || n + 1 > sizeof(p->raw)) {
		p->raw[0] = '\0';
		cfg_error(p, NULL, "line longer than %d characters",
			  (num < (int)sizeof(p->raw) ? num : (int)sizeof(p->raw)) - 2);
		return NULL;
	}
	memcpy(str, p->buf + start, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	memcpy(p->raw, p->buf + start, n);
	p->raw[n] = '\0';
	section_line(p);
	return str;
}

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

static bool parse_real(struct cfg_parse *p, const char *key, const char *v,
		       double min, double max, bool min_open, const char *unit,
		       double *out)
{
	double x;
	char *end;

	errno = 0;
	x = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(x) || strpbrk(v, "xXnNiI") ||
	    x < min || x > max || (min_open && x == min)) {
		cfg_error(p, v, "%s = '%s': expected a number %s %g and <= %g%s%s",
			  key, v, min_open ? ">" : ">=", min, max,
			  unit ? " " : "", unit ? unit : "");
		return false;
	}
	*out = x;
	return true;
}

static bool parse_bool(struct cfg_parse *p, const char *key, const char *v,
		       int *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1")) {
		*out = 1;
		return true;
	}
	if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "0")) {
		*out = 0;
		return true;
	}
	cfg_error(p, v, "%s = '%s': expected true or false", key, v);
	return false;
}

/* Each key once per section: bit i of seen for key i of the table. */
static bool once(struct cfg_parse *p, unsigned int *seen, unsigned int i,
		 const char *key)
{
	if (*seen & (1u << i)) {
		cfg_error(p, NULL, "second '%s' in [%s]: expected it once",
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
	cfg_error(p, NULL, "unknown key '%s' in [%s]: expected one of %s",
		  name, p->section, list);
}

static const char *const skind_keys[] = {
	"period_ms", "min_baseline", "add_threshold", "compensation_gain",
	"contact_compensation_gain", "zero_up_raw_data", "smooth_filter",
	"smooth_factor", "binarization", "max_neighbor_dist_m",
	"calibration_s",
	/* skind's own (docs/PROCESSING.md) */
	"compat", "hold_contacts", "hold_hysteresis", "hold_max_s",
	"auto_recalibrate", "fault_detection", "stuck_s", "saturated_s",
	"dead_s", "calibration_check", "calibration_spread",
	"calibration_offset", "persist_calibration", NULL
};

void skin_config_comp_default(struct skin_config_comp *c)
{
	memset(c, 0, sizeof(*c));
	/* skinManAll.ini's values, where iCub users know them */
	c->period_ms = 20;
	c->min_baseline = 3;
	c->add_threshold = 7;
	c->compensation_gain = 0.2;
	c->contact_compensation_gain = 0.05;
	c->zero_up_raw_data = 0;
	c->smooth_filter = 1;
	c->smooth_factor = 0.5;
	c->binarization = 1;
	c->max_neighbor_dist_m = 0.015;
	c->calibration_s = 5;
	/* skind's improvements (docs/PROCESSING.md) */
	c->compat = 0;
	c->hold_contacts = 1;
	c->hold_hysteresis = 2;
	c->hold_max_s = 3600;
	c->auto_recalibrate = 1;
	c->fault_detection = 1;
	c->stuck_s = 60;
	c->saturated_s = 30;
	c->dead_s = 1;
	c->calibration_check = 1;
	c->calibration_spread = 40;
	c->calibration_offset = 60;
	c->persist_calibration = 1;
}

static bool skind_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct skin_config_comp *c = &p->c->comp;
	int i = find_key(skind_keys, k);

	if (i < 0) {
		unknown_key(p, k, skind_keys);
		return false;
	}
	if (!once(p, &p->seen, (unsigned int)i, k))
		return false;
	switch (i) {
	case 0: return parse_uint(p, k, v, 1, 10000, &c->period_ms);
	case 1: return parse_real(p, k, v, 0, 255, false, NULL, &c->min_baseline);
	case 2: return parse_real(p, k, v, 0, 255, false, NULL, &c->add_threshold);
	case 3: return parse_real(p, k, v, 0, 1e6, false, NULL,
				  &c->compensation_gain);
	case 4: return parse_real(p, k, v, 0, 1e6, false, NULL,
				  &c->contact_compensation_gain);
	case 5: return parse_bool(p, k, v, &c->zero_up_raw_data);
	case 6: return parse_bool(p, k, v, &c->smooth_filter);
	case 7: return parse_real(p, k, v, 0, 1, false, NULL, &c->smooth_factor);
	case 8: return parse_bool(p, k, v, &c->binarization);
	case 9: return parse_real(p, k, v, 0, 1, true, "metres",
				  &c->max_neighbor_dist_m);
	case 10: return parse_real(p, k, v, 0, 3600, true, "seconds",
				   &c->calibration_s);
	case 11: return parse_bool(p, k, v, &c->compat);
	case 12: return parse_bool(p, k, v, &c->hold_contacts);
	case 13: return parse_real(p, k, v, 0, 255, false, NULL,
				   &c->hold_hysteresis);
	case 14: return parse_real(p, k, v, 0, 1e7, false, "seconds",
				   &c->hold_max_s);
	case 15: return parse_bool(p, k, v, &c->auto_recalibrate);
	case 16: return parse_bool(p, k, v, &c->fault_detection);
	case 17: return parse_real(p, k, v, 0, 1e7, true, "seconds",
				   &c->stuck_s);
	case 18: return parse_real(p, k, v, 0, 1e7, true, "seconds",
				   &c->saturated_s);
	case 19: return parse_real(p, k, v, 0, 1e7, true, "seconds",
				   &c->dead_s);
	case 20: return parse_bool(p, k, v, &c->calibration_check);
	case 21: return parse_real(p, k, v, 0, 255, true, NULL,
				   &c->calibration_spread);
	case 22: return parse_real(p, k, v, 0, 255, true, NULL,
				   &c->calibration_offset);
	default: return parse_bool(p, k, v, &c->persist_calibration);
	}
}

static const char *const board_keys[] = {
	"period_ms", "skin_type", "no_load", "shift", "cdc_offset", NULL
};

static bool board_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct skin_config_board *b = &p->c->board;
	int i = find_key(board_keys, k);

	if (i < 0) {
		unknown_key(p, k, board_keys);
		return false;
	}
	if (!once(p, &p->seen, (unsigned int)i, k))
		return false;
	switch (i) {
	/* byte-wide fields of SET_BRD_CFG / SET_TRIANG_CFG */
	case 0: return parse_uint(p, k, v, 1, 255, &b->period_ms);
	case 1: return parse_uint(p, k, v, 0, 15, &b->skin_type);
	case 2: return parse_uint(p, k, v, 0, 255, &b->no_load);
	case 3: return parse_uint(p, k, v, 0, 15, &b->shift);
	default: return parse_uint(p, k, v, 0, 0xffff, &b->cdc_offset);
	}
}

static const char *const bus_keys[] = { "bitrate", NULL };

static bool bus_key(struct cfg_parse *p, const char *k, const char *v)
{
	int i = find_key(bus_keys, k);

	if (i < 0) {
		unknown_key(p, k, bus_keys);
		return false;
	}
	if (!once(p, &p->seen, (unsigned int)i, k))
		return false;
	/* classic CAN: up to 1 Mbit/s */
	return parse_uint(p, k, v, 10000, 1000000,
			  &p->c->buses[p->cur_bus].bitrate);
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
	if (arg)
		while (*arg == ' ')
			arg++;
	if (!arg && (!strcmp(section, "skind") || !strcmp(section, "board")))
		return true;
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
		b[p->c->n_buses].bitrate = 1000000;
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

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct cfg_parse *p = user;

	if (p->failed)
		return 0;
	if (!*section || !p->section_line) {
		cfg_error(p, NULL, "'%s' before any section: expected [skind], [board], [bus NAME] or [part NAME] first",
			  name);
		return 0;
	}
	/* inih takes an indented line after a key as that key's
	 * continuation, even one that looks like [section] */
	if (strcmp(section, p->section)) {
		cfg_error(p, NULL, "'[%s]' is indented after a key, so it would continue '%s': expected section headers at the start of a line",
			  p->section, name);
		return 0;
	}
	if (!strcmp(section, "skind"))
		return skind_key(p, name, value);
	if (!strcmp(section, "board"))
		return board_key(p, name, value);
	if (p->cur_bus >= 0)
		return bus_key(p, name, value);
	return part_key(p, name, value);
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
		p->raw[0] = '\0';
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
				skin_error_set(p->err, p->name, x->refs[0].line, 0,
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
	return true;
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
	int rc;

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
	/* the robots' board values (docs/ICUB.md, section 1) */
	c->board.period_ms = 50;
	c->board.skin_type = 0;
	c->board.no_load = 0xf0;
	c->board.shift = 2;
	c->board.cdc_offset = 0x2200;

	p.c = c;
	p.name = name;
	p.err = err;
	p.buf = buf;
	p.len = len;
	p.cur_part = p.cur_bus = -1;
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
	rc = ini_parse_stream(reader, &p, handler, &p);
	if (!p.failed && rc > 0) {
		/* inih found a line that is no section, key or comment; the
		 * reader has moved on, so rebuild that line's text */
		p.line = (unsigned int)rc;
		p.raw[0] = '\0';
		cfg_error(&p, NULL, "expected '[section]', 'key = value' or a comment");
	} else if (!p.failed && rc < 0) {
		cfg_error(&p, NULL, "out of memory");
	}
	if (!p.failed && !check(&p))
		p.failed = true;
	for (i = 0; i < c->n_parts; i++)
		free(p.extra[i].refs);
	free(p.extra);
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

	buf = skin_read_file(path, &len, err);
	if (!buf)
		return NULL;
	c = skin_config_load_buffer(buf, len, path, err);
	free(buf);
	return c;
}
