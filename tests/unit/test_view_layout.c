// SPDX-License-Identifier: GPL-2.0
/*
 * test_view_layout.c - skin-view's /skin/layout (bridges/view/layout.c)
 * and /skin/PART/state (cdr.c's PartState)
 *
 * The layouts are built from the repository's etc/skind.conf and the
 * skin-view.conf the package installs (bridges/view/skin-view.conf, read
 * as if it lay in etc/, as it lies beside skind.conf in /etc/skin), and
 * read back through their JSON with json-c; the PartState is decoded by
 * a reader written here from the .msg text (XCDR1 rules: each primitive
 * aligned to its size from the end of the encapsulation header).
 */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <json-c/json.h>

#include <skin/model.h>
#include <skin/shm.h>

#include "cdr.h"
#include "config.h"
#include "conf.h"
#include "layout.h"

#define ROOT SKIN_SOURCE_ROOT

static struct skin_model *skind_model(const char *path)
{
	struct skin_error err;
	struct skin_config *c = skin_config_load(path, &err);
	struct skin_model *m;

	if (!c)
		fail_msg("%s", err.text);
	m = skin_config_build_model(c, &err);
	if (!m)
		fail_msg("%s", err.text);
	skin_config_free(c);
	return m;
}

/* skin-view.conf's text parsed as the file @as */
static void view_conf(struct view_config *vc, const char *text, const char *as)
{
	struct skin_error err;

	view_config_init(vc);
	if (view_config_parse(vc, text, as, &err))
		fail_msg("%s", err.text);
}

static void shipped_conf(struct view_config *vc)
{
	struct skin_error err;
	size_t len;
	char *text = conf_read_file(ROOT "/bridges/view/skin-view.conf", &len, &err);

	if (!text)
		fail_msg("%s", err.text);
	/* installed in /etc/skin beside skind.conf and icub/, as etc/ has them */
	view_conf(vc, text, ROOT "/etc/skin-view.conf");
	free(text);
}

/* Every part of @m wanted, as skind's shared memory would list them */
static void build(struct view_layout *l, const struct skin_model *m,
		  const struct view_config *vc)
{
	struct view_layout_want *w = calloc(m->n_parts, sizeof(*w));
	unsigned int i;

	assert_non_null(w);
	for (i = 0; i < m->n_parts; i++)
		w[i] = (struct view_layout_want){ m->parts[i].name, m->parts[i].skin_part,
						  m->parts[i].n_taxels, NULL };
	assert_int_equal(view_layout_build(l, m, NULL, vc, w, m->n_parts, 3), 0);
	free(w);
}

static json_object *field(json_object *o, const char *k)
{
	json_object *f = NULL;

	if (!json_object_object_get_ex(o, k, &f))
		fail_msg("no field %s", k);
	return f;
}

/* The message as a client reads it (its size in last_size) */
static size_t last_size;

static json_object *message(const struct view_layout *l)
{
	size_t len;
	int err = 0;
	char *text = view_layout_json(l, 1u << 24, &len, &err);
	json_tokener *tok = json_tokener_new();
	json_object *o;

	assert_non_null(text);
	assert_int_equal(err, 0);
	assert_int_equal(strlen(text), len);
	last_size = len;
	o = json_tokener_parse_ex(tok, text, (int)len);
	assert_non_null(o);
	assert_int_equal(json_tokener_get_parse_end(tok), len);
	json_tokener_free(tok);
	free(text);
	return o;
}

/* The JSON part @jp against skind's model part @pi: sizes, kinds,
 * wiring, and every tactile slot placed (when @all_placed) */
static void check_part(json_object *jp, const struct skin_model *m, unsigned int pi,
		       bool all_placed)
{
	const struct skin_part *sp = &m->parts[pi];
	json_object *x = field(jp, "x"), *y = field(jp, "y");
	json_object *board = field(jp, "board"), *tri = field(jp, "triangle");
	json_object *ch = field(jp, "channel"), *outl = field(jp, "outlines");
	const char *kind = json_object_get_string(field(jp, "kind"));
	unsigned int i, tactile = 0, placed = 0;

	assert_string_equal(json_object_get_string(field(jp, "name")), sp->name);
	assert_int_equal(json_object_get_int(field(jp, "n")), sp->n_taxels);
	assert_int_equal(json_object_array_length(x), sp->n_taxels);
	assert_int_equal(json_object_array_length(y), sp->n_taxels);
	assert_int_equal(strlen(kind), sp->n_taxels);
	assert_true(json_object_get_double(field(jp, "radius")) > 0);
	assert_int_equal(json_object_array_length(field(jp, "patches")), sp->n_patches);
	for (i = 0; i < sp->n_taxels; i++) {
		const struct skin_taxel *t = &m->taxels[sp->first_taxel + i];
		json_object *xi = json_object_array_get_idx(x, i);
		json_object *yi = json_object_array_get_idx(y, i);
		const struct skin_patch *pp = NULL;
		unsigned int k;

		for (k = 0; k < sp->n_patches; k++)
			if (m->patches[sp->first_patch + k].order == i / 192)
				pp = &m->patches[sp->first_patch + k];
		assert_non_null(pp);
		assert_int_equal(kind[i], t->kind == SKIN_TAXEL_TACTILE ? 't' :
					  t->kind == SKIN_TAXEL_THERMAL ? 'h' : '-');
		if (t->kind == SKIN_TAXEL_ABSENT) {
			assert_null(xi);
			assert_int_equal(json_object_get_int(json_object_array_get_idx(board, i)), -1);
			continue;
		}
		/* value[192 * patch + 12 * triangle + channel] (docs/ICUB.md) */
		assert_int_equal(json_object_get_int(json_object_array_get_idx(board, i)),
				 pp->address);
		assert_int_equal(json_object_get_int(json_object_array_get_idx(tri, i)),
				 i % 192 / 12);
		assert_int_equal(json_object_get_int(json_object_array_get_idx(ch, i)), i % 12);
		tactile += t->kind == SKIN_TAXEL_TACTILE;
		if (xi && yi) {
			assert_true(isfinite(json_object_get_double(xi)));
			assert_true(isfinite(json_object_get_double(yi)));
			placed++;
		} else if (all_placed && t->kind == SKIN_TAXEL_TACTILE) {
			fail_msg("part %s: tactile slot %u not placed (%s)", sp->name, i,
				 json_object_get_string(field(jp, "source")));
		}
	}
	assert_true(tactile > 0);
	if (placed) {
		/* a polygon per triangle of placed taxels, each of 3 or more
		 * points, and the slot that names its triangle */
		json_object *os = field(jp, "outline_slots");

		assert_true(json_object_array_length(outl) > 0);
		assert_int_equal(json_object_array_length(os), json_object_array_length(outl));
		for (i = 0; i < json_object_array_length(outl); i++) {
			json_object *poly = json_object_array_get_idx(outl, i);
			int slot = json_object_get_int(json_object_array_get_idx(os, i));

			assert_true(json_object_array_length(poly) >= 3);
			assert_int_equal(slot % 12, 0);
			assert_true(slot >= 0 && (unsigned int)slot < sp->n_taxels);
		}
	}
}

/* The package's skin-view.conf on etc/skind.conf: every part of its 7
 * gets a layout with every tactile slot placed: iCub's skinGui layout,
 * but for the upper arms, whose skinGui files draw another version of
 * the arm (skin-view.conf says why), unrolled from skind.conf's
 * positions */
static void test_shipped_layouts(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind.conf");
	struct view_config vc;
	struct view_layout l;
	json_object *o, *parts;
	unsigned int i;

	(void)state;
	shipped_conf(&vc);
	assert_int_equal(m->n_parts, 7);
	build(&l, m, &vc);
	o = message(&l);
	printf("# etc/skind.conf's layout: %zu bytes of JSON\n", last_size);
	assert_int_equal(json_object_get_int(field(o, "generation")), 3);
	parts = field(o, "parts");
	assert_int_equal(json_object_array_length(parts), m->n_parts);
	for (i = 0; i < m->n_parts; i++) {
		json_object *jp = json_object_array_get_idx(parts, i);
		const char *src = json_object_get_string(field(jp, "source"));
		bool arm = strstr(m->parts[i].name, "upper_arm") != NULL;

		if (strncmp(src, arm ? "flattening: 3D positions unrolled" : "skinGui ",
			    arm ? 33 : 8))
			fail_msg("part %s: source '%s'", m->parts[i].name, src);
		assert_string_equal(json_object_get_string(field(jp, "unit")),
				    arm ? "m" : "skinGui");
		check_part(jp, m, i, true);
	}
	assert_string_equal(json_object_get_string(field(json_object_array_get_idx(parts, 0),
							  "source")),
			    "skinGui left_hand_V2_1.ini");
	json_object_put(o);
	view_layout_free(&l);
	skin_model_free(m);
}

/* The full body too (legs and feet: skin-view.conf's other six) */
static void test_shipped_full_body(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind-full-body.conf");
	struct view_config vc;
	struct view_layout l;
	json_object *o, *parts;
	unsigned int i;

	(void)state;
	shipped_conf(&vc);
	assert_int_equal(m->n_parts, 13);
	build(&l, m, &vc);
	o = message(&l);
	printf("# the full body's layout: %zu bytes of JSON\n", last_size);
	parts = field(o, "parts");
	for (i = 0; i < m->n_parts; i++) {
		json_object *jp = json_object_array_get_idx(parts, i);

		if (!strstr(m->parts[i].name, "upper_arm"))
			assert_int_equal(strncmp(json_object_get_string(field(jp, "source")),
						 "skinGui ", 8), 0);
		check_part(jp, m, i, true);
	}
	json_object_put(o);
	view_layout_free(&l);
	skin_model_free(m);
}

/* The upper arm's V2 skinGui file, named: used, and the tactile slots it
 * does not draw (triangles 5 and 6 of left_arm.txt) said */
static void test_other_version(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind.conf");
	struct view_config vc;
	struct view_layout l;
	const struct view_layout_part *p;
	unsigned int i;

	(void)state;
	view_conf(&vc, "[layout left_upper_arm]\nfile = icub/skinGui/left_arm_V2.ini\n",
		  ROOT "/etc/v2.conf");
	build(&l, m, &vc);
	p = view_layout_find(&l, "left_upper_arm");
	assert_string_equal(p->source,
			    "skinGui left_arm_V2.ini (20 tactile slots not in it, the first 60)");
	for (i = 60; i < 84; i++)
		assert_true(isnan(p->x[i]));
	assert_true(isfinite(p->x[24]));	/* triangle 2 */
	view_layout_free(&l);
	skin_model_free(m);
}

/* No [layout]: skind.conf's model flattened (3D positions: the forearm
 * unrolled, in metres); the hand's fingertips have no position */
static void test_flattening(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind.conf");
	struct view_config vc;
	struct view_layout l;
	json_object *o, *parts;
	unsigned int i;

	(void)state;
	view_conf(&vc, "[view]\n", "none.conf");
	build(&l, m, &vc);
	o = message(&l);
	parts = field(o, "parts");
	for (i = 0; i < m->n_parts; i++) {
		json_object *jp = json_object_array_get_idx(parts, i);

		assert_int_equal(strncmp(json_object_get_string(field(jp, "source")),
					 "flattening: ", 12), 0);
		assert_string_equal(json_object_get_string(field(jp, "unit")), "m");
		check_part(jp, m, i, false);
	}
	json_object_put(o);
	view_layout_free(&l);
	skin_model_free(m);
}

/* A skinGui file of another size than skind's part: not used, the part
 * is flattened, and the source says where and why */
static void test_wrong_size_falls_back(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind.conf");
	struct view_config vc;
	struct view_layout l;
	const struct view_layout_part *p;

	(void)state;
	view_conf(&vc, "[view]\n\n[layout left_hand]\nfile = icub/skinGui/left_forearm_V2.ini\n"
		  "[layout torso]\nfile = icub/skinGui/no-such.ini\n",
		  ROOT "/etc/wrong.conf");
	build(&l, m, &vc);
	p = view_layout_find(&l, "left_hand");
	assert_non_null(p);
	if (!strstr(p->source, "flattening: ") ||
	    !strstr(p->source, "wrong.conf:4") ||
	    !strstr(p->source, "left_forearm_V2.ini: its part left_forearm has 384 slots, skind's part left_hand 192"))
		fail_msg("source: %s", p->source);
	p = view_layout_find(&l, "torso");
	if (!strstr(p->source, "flattening: ") || !strstr(p->source, "wrong.conf:6") ||
	    !strstr(p->source, "no-such.ini: cannot open"))
		fail_msg("source: %s", p->source);
	assert_true(p->n_placed > 0);
	/* the others: their skinGui file */
	assert_int_equal(strncmp(view_layout_find(&l, "left_forearm")->source, "flattening", 10), 0);
	view_layout_free(&l);
	skin_model_free(m);
}

/* A part skind serves that skind.conf lacks (another configuration) or
 * has at another size: no positions, kinds from the taxel flags */
static void test_part_not_in_model(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind.conf");
	uint8_t flags[24] = { SKIN_SHM_TAXEL_TACTILE, SKIN_SHM_TAXEL_THERMAL, 0,
			      SKIN_SHM_TAXEL_TACTILE | SKIN_SHM_TAXEL_TOUCHED };
	struct view_layout_want w[2] = {
		{ "pad", SKIN_PART_UNKNOWN, 24, flags },
		{ "left_hand", SKIN_LEFT_HAND, 384, NULL },
	};
	struct view_config vc;
	struct view_layout l;
	json_object *o, *jp;

	(void)state;
	view_conf(&vc, "[view]\nskind_config = /x/skind.conf\n", "a.conf");
	assert_int_equal(view_layout_build(&l, m, NULL, &vc, w, 2, 1), 0);
	assert_string_equal(l.parts[0].source, "none: /x/skind.conf has no part pad");
	assert_string_equal(l.parts[1].source,
			    "none: /x/skind.conf's part left_hand has 192 slots, skind's 384");
	o = message(&l);
	jp = json_object_array_get_idx(field(o, "parts"), 0);
	assert_string_equal(json_object_get_string(field(jp, "kind")), "th-t--------------------");
	assert_true(json_object_is_type(field(jp, "unit"), json_type_null));
	assert_true(json_object_is_type(field(jp, "skin_part"), json_type_null));
	assert_null(json_object_array_get_idx(field(jp, "x"), 0));
	assert_int_equal(json_object_array_length(field(jp, "outlines")), 0);
	json_object_put(o);
	view_layout_free(&l);
	/* no model at all */
	assert_int_equal(view_layout_build(&l, NULL, "skind's configuration: x: cannot open",
					   &vc, w, 1, 1), 0);
	assert_string_equal(l.parts[0].source, "none: skind's configuration: x: cannot open");
	view_layout_free(&l);
	skin_model_free(m);
}

/* [layout] errors name FILE:LINE:COL */
static void test_config_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[layout left_hand]\nfiles = x.ini\n",
		  "v.conf:2:1: unknown key 'files' in [layout left_hand]: expected file" },
		{ "[layout]\n", "v.conf:1:1: unknown section [layout]: expected [view] or [layout PART]" },
		{ "[layout a/b]\nfile = x\n", "v.conf:1:9: [layout PART]: 'a/b' is no part name" },
		{ "[layout all]\nfile = x\n", "v.conf:1:9: [layout PART]: 'all' is no part name" },
		{ "[layout p]\nfile = x\n[layout p]\nfile = y\n", "v.conf:3:9: [layout p] given twice" },
		{ "[layout p]\n", "v.conf: [layout p] has no file" },
		{ "[view]\nskind_config =\n", "v.conf:2" },
	};
	struct view_config vc;
	struct skin_error err;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		view_config_init(&vc);
		assert_int_not_equal(view_config_parse(&vc, bad[i].text, "/etc/v.conf", &err), 0);
		if (!strstr(err.text, bad[i].want))
			fail_msg("%s: got '%s', want '%s'", bad[i].text, err.text, bad[i].want);
	}
	/* relative paths: the file's directory; absolute ones as they are */
	view_conf(&vc, "[layout a]\nfile = g/a.ini\n[layout b]\nfile = /b.ini\n", "/etc/skin/v.conf");
	assert_string_equal(view_config_layout(&vc, "a")->file, "/etc/skin/g/a.ini");
	assert_string_equal(view_config_layout(&vc, "b")->file, "/b.ini");
	assert_string_equal(view_config_layout(&vc, "a")->where, "/etc/skin/v.conf:2");
	assert_null(view_config_layout(&vc, "c"));
	/* defaults */
	view_config_init(&vc);
	assert_string_equal(vc.skind_config, "/etc/skin/skind.conf");
	assert_string_equal(vc.eth_counters, "/run/skin-eth/counters");
}

/* --- PartState ---------------------------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t len, off;	/* off counts from the encapsulation header's end */
};

static void rd_align(struct rd *r, size_t a)
{
	while (r->off % a)
		r->off++;
}

static const uint8_t *rd_take(struct rd *r, size_t n, size_t a)
{
	const uint8_t *q;

	rd_align(r, a);
	assert_true(r->off + n <= r->len);
	q = r->p + r->off;
	r->off += n;
	return q;
}

static uint32_t rd_u32(struct rd *r)
{
	const uint8_t *q = rd_take(r, 4, 4);

	return q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24;
}

static uint64_t rd_u64(struct rd *r)
{
	const uint8_t *q = rd_take(r, 8, 8);
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | q[i];
	return v;
}

static float rd_f32(struct rd *r)
{
	uint32_t v = rd_u32(r);
	float f;

	memcpy(&f, &v, 4);
	return f;
}

static double rd_f64(struct rd *r)
{
	uint64_t v = rd_u64(r);
	double d;

	memcpy(&d, &v, 8);
	return d;
}

#define N 30

static void fill(struct cdr_part_state *s, uint8_t *raw, float *values, uint8_t *flags,
		 double *base, double *thr, struct cdr_part_contact *c, unsigned int n)
{
	static const double cop[3] = { 0.01, -0.02, NAN }, force[3] = { 0, 0, 1.5 },
			    normal[3] = { 0, 1, 0 };
	static const uint32_t tx[3] = { 4, 5, 29 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		raw[i] = (uint8_t)(240 - i);
		values[i] = (float)i * 1.5f;
		flags[i] = (uint8_t)(i % 3 == 0 ? SKIN_SHM_TAXEL_TACTILE : 0x80 | (i & 7));
		base[i] = 10 + i;
		thr[i] = i % 3 == 0 ? 2.5 : 0;
	}
	memset(s, 0, sizeof(*s));
	s->stamp = (struct cdr_stamp){ 1700000000, 123456789 };
	s->sample = 0x0123456789abcdefull;
	s->state = SKIN_SHM_PART_ATTACHED | SKIN_SHM_PART_CALIBRATED;
	s->n = n;
	s->raw = raw;
	s->values = values;
	s->flags = flags;
	s->baselines = base;
	s->thresholds = thr;
	s->add_threshold = 7;
	c[0] = (struct cdr_part_contact){ 0x100000007ull, 41.5f, { 1.25f, NAN }, cop, force,
					  normal, tx, 3 };
	c[1] = (struct cdr_part_contact){ 8, 0, { NAN, NAN }, cop, force, normal, NULL, 0 };
	s->contacts = c;
	s->n_contacts = 2;
}

/* What the encoder wrote, read back field by field as the .msg says */
static void test_part_state_decodes(void **state)
{
	uint8_t raw[N], flags[N];
	float values[N];
	double base[N], thr[N];
	struct cdr_part_contact c[2];
	struct cdr_part_state s;
	struct cdr cdr;
	struct rd r;
	unsigned int i, k;

	(void)state;
	fill(&s, raw, values, flags, base, thr, c, N);
	cdr_init(&cdr, 16);
	cdr_part_state(&cdr, &s);
	assert_int_equal(cdr.err, 0);
	assert_memory_equal(cdr_data(&cdr), ((uint8_t[]){ 0, 1, 0, 0 }), 4);
	r = (struct rd){ cdr_data(&cdr) + 4, cdr.len - 4, 0 };
	assert_int_equal(rd_u32(&r), 1700000000);
	assert_int_equal(rd_u32(&r), 123456789);
	assert_true(rd_u64(&r) == 0x0123456789abcdefull);
	assert_int_equal(rd_u32(&r), s.state);
	assert_int_equal(rd_u32(&r), N);
	assert_memory_equal(rd_take(&r, N, 1), raw, N);
	assert_int_equal(rd_u32(&r), N);
	for (i = 0; i < N; i++)
		assert_true(rd_f32(&r) == values[i]);
	assert_int_equal(rd_u32(&r), N);
	assert_memory_equal(rd_take(&r, N, 1), flags, N);
	assert_int_equal(rd_u32(&r), N);
	for (i = 0; i < N; i++)
		assert_true(rd_f32(&r) == (float)base[i]);
	assert_int_equal(rd_u32(&r), N);
	for (i = 0; i < N; i++)	/* add_threshold on those that are not 0 */
		assert_true(rd_f32(&r) == (i % 3 == 0 ? 9.5f : 0.0f));
	assert_int_equal(rd_u32(&r), 2);
	for (k = 0; k < 2; k++) {
		double v[9];
		unsigned int nt;
		float x, y;

		assert_int_equal(rd_u32(&r), k ? 8 : 7);	/* uint32: the low bits */
		assert_true(rd_f32(&r) == (k ? 0.0f : 41.5f));
		x = rd_f32(&r);
		y = rd_f32(&r);
		assert_true(k ? isnan(x) : x == 1.25f);
		assert_true(isnan(y));
		for (i = 0; i < 9; i++)
			v[i] = rd_f64(&r);
		assert_true(v[0] == 0.01 && v[1] == -0.02 && isnan(v[2]));
		assert_true(v[5] == 1.5 && v[7] == 1);
		nt = rd_u32(&r);
		assert_int_equal(nt, k ? 0 : 3);
		for (i = 0; i < nt; i++)
			assert_int_equal(rd_u32(&r), c[0].taxels[i]);
	}
	assert_int_equal(r.off, r.len);	/* nothing after */
	/* no baselines, no thresholds yet: zeros */
	s.baselines = s.thresholds = NULL;
	s.n_contacts = 0;
	cdr_part_state(&cdr, &s);
	r = (struct rd){ cdr_data(&cdr) + 4, cdr.len - 4, 0 };
	r.off = 8 + 8 + 4;
	rd_u32(&r);
	rd_take(&r, N, 1);
	assert_int_equal(rd_u32(&r), N);
	r.off += 4 * N;
	assert_int_equal(rd_u32(&r), N);
	rd_take(&r, N, 1);
	assert_int_equal(rd_u32(&r), N);
	for (i = 0; i < N; i++)
		assert_true(rd_f32(&r) == 0);
	assert_int_equal(rd_u32(&r), N);
	for (i = 0; i < N; i++)
		assert_true(rd_f32(&r) == 0);
	assert_int_equal(rd_u32(&r), 0);
	assert_int_equal(r.off, r.len);
	cdr_free(&cdr);
}

/* The contacts' cop2d: the layout's centroid, as skin_flatten_centroid() */
static void test_centroid(void **state)
{
	struct skin_model *m = skind_model(ROOT "/etc/skind.conf");
	struct view_config vc;
	struct view_layout l;
	const struct view_layout_part *p;
	uint32_t tx[3] = { 0, 1, 100000 };
	double xy[2], w[192] = { 0 };

	(void)state;
	shipped_conf(&vc);
	build(&l, m, &vc);
	p = view_layout_find(&l, "left_hand");
	assert_true(view_layout_centroid(p, tx, 2, NULL, xy));
	assert_true(fabs(xy[0] - (p->x[0] + p->x[1]) / 2) < 1e-9);
	w[1] = 3;	/* weights: at least 1 */
	assert_true(view_layout_centroid(p, tx, 3, w, xy));
	assert_true(fabs(xy[1] - (p->y[0] + 3 * p->y[1]) / 4) < 1e-9);
	tx[0] = 70;	/* an absent slot: no position */
	assert_false(view_layout_centroid(p, tx, 1, NULL, xy));
	assert_true(isnan(xy[0]) && isnan(xy[1]));
	view_layout_free(&l);
	skin_model_free(m);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cost of a PartState of a 768-slot part against a TactileState of
 * the same part (the existing channel), same run: printed, not judged */
static void test_part_state_cost(void **state)
{
	enum { SLOTS = 768, ROUNDS = 2000 };
	static uint8_t raw[SLOTS], flags[SLOTS];
	static float values[SLOTS];
	static double base[SLOTS], thr[SLOTS];
	struct cdr_part_contact c[2];
	struct cdr_part_state s;
	struct cdr cdr;
	uint64_t t0, t_state, t_values;
	unsigned int i;

	(void)state;
	fill(&s, raw, values, flags, base, thr, c, SLOTS);
	cdr_init(&cdr, 0);
	t0 = now_ns();
	for (i = 0; i < ROUNDS; i++)
		cdr_part_state(&cdr, &s);
	t_state = now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < ROUNDS; i++)
		cdr_tactile_state(&cdr, &s.stamp, "frame", "part", values, SLOTS);
	t_values = now_ns() - t0;
	assert_int_equal(cdr.err, 0);
	printf("# PartState of %u slots: %.2f us, %.2f times a TactileState's (%.2f us)\n",
	       SLOTS, t_state / 1e3 / ROUNDS, (double)t_state / (double)t_values,
	       t_values / 1e3 / ROUNDS);
	cdr_free(&cdr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_layouts),
		cmocka_unit_test(test_shipped_full_body),
		cmocka_unit_test(test_other_version),
		cmocka_unit_test(test_flattening),
		cmocka_unit_test(test_wrong_size_falls_back),
		cmocka_unit_test(test_part_not_in_model),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_part_state_decodes),
		cmocka_unit_test(test_centroid),
		cmocka_unit_test(test_part_state_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
