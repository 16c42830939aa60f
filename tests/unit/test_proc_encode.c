// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_encode.c - the skinContactList bottle text and the JSON
 *
 * The bottle text is checked character for character on hand-built
 * contacts, and structurally on live ones by a parser of YARP's text
 * syntax that types every atom as skinDynLib's reader expects (a list of
 * 4 ints, five lists of 3 doubles, a list of ints, a double).  The JSON is
 * read back with json-c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>

#include <json-c/json.h>

#include "test_proc_util.h"

static const unsigned int taxels_a[] = { 3, 5, 12 };

static struct skin_contact contact_a(void)
{
	struct skin_contact c;

	memset(&c, 0, sizeof(c));
	c.r.id = 7;
	c.body_part = SKIN_BODY_LEFT_ARM;
	c.skin_part = SKIN_LEFT_HAND;
	c.link_number = 6;
	c.r.cop[0] = 0.01; c.r.cop[1] = -0.02;
	c.r.force[2] = -1.5;
	c.r.geo[0] = 0.01; c.r.geo[1] = -0.02;
	c.r.normal[2] = 1;
	c.r.pressure = 30;
	c.r.n_taxels = 3;
	c.taxels = taxels_a;
	return c;
}

static void bottle_exact(void **state)
{
	struct skin_contact c[2];
	char buf[512];
	int n;

	(void)state;
	c[0] = contact_a();
	c[1] = contact_a();
	c[1].r.id = 8;
	c[1].r.moment[0] = -1e-5;
	c[1].r.pressure = 2.5;
	c[1].r.force[0] = -0.0;		/* no "-0.0" */
	n = skin_contacts_bottle(buf, sizeof(buf), c, 1);
	assert_string_equal(buf, "(((7 3 6 1) (0.01 -0.02 0.0) (0.0 0.0 -1.5) (0.0 0.0 0.0) (0.01 -0.02 0.0) (0.0 0.0 1.0) (3 5 12) 30.0))");
	assert_int_equal(n, (int)strlen(buf));
	skin_contacts_bottle(buf, sizeof(buf), c, 2);
	assert_string_equal(buf, "(((7 3 6 1) (0.01 -0.02 0.0) (0.0 0.0 -1.5) (0.0 0.0 0.0) (0.01 -0.02 0.0) (0.0 0.0 1.0) (3 5 12) 30.0) "
				 "((8 3 6 1) (0.01 -0.02 0.0) (0.0 0.0 -1.5) (-1e-05 0.0 0.0) (0.01 -0.02 0.0) (0.0 0.0 1.0) (3 5 12) 2.5))");
	assert_int_equal(skin_contacts_bottle(buf, sizeof(buf), c, 0), 2);
	assert_string_equal(buf, "()");
}

/* snprintf semantics: the length it needs, cut text NUL-terminated. */
static void bottle_truncated(void **state)
{
	struct skin_contact c = contact_a();
	char small[10], full[512];
	int need;

	(void)state;
	need = skin_contacts_bottle(full, sizeof(full), &c, 1);
	memset(small, 'x', sizeof(small));
	assert_int_equal(skin_contacts_bottle(small, sizeof(small), &c, 1), need);
	assert_string_equal(small, "(((7 3 6 ");
	assert_int_equal(skin_contacts_bottle(NULL, 0, &c, 1), need);
	assert_int_equal(skin_contacts_json(NULL, 0, NULL, &c, 1),
			 skin_contacts_json(full, sizeof(full), NULL, &c, 1));
}

/* ---- a YARP bottle text reader: lists, ints, doubles ---- */
enum atom { A_INT, A_DOUBLE, A_LIST };

struct node {
	enum atom type;
	double value;
	unsigned int n;
	struct node *kids;
};

static const char *skip_spaces(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static const char *parse_node(const char *s, struct node *out);

static const char *parse_list(const char *s, struct node *out)
{
	out->type = A_LIST;
	out->n = 0;
	out->kids = NULL;
	s = skip_spaces(s + 1);
	while (*s && *s != ')') {
		out->kids = realloc(out->kids, (out->n + 1) * sizeof(*out->kids));
		s = parse_node(s, &out->kids[out->n++]);
		if (!s)
			return NULL;
		s = skip_spaces(s);
	}
	return *s == ')' ? s + 1 : NULL;
}

/* YARP: an atom with '.', 'e' or "inf"/"nan" is a float64, digits an int */
static const char *parse_node(const char *s, struct node *out)
{
	const char *e = s;
	char *end;

	if (*s == '(')
		return parse_list(s, out);
	while (*e && *e != ' ' && *e != ')' && *e != '(')
		e++;
	if (e == s)
		return NULL;
	out->kids = NULL;
	out->n = 0;
	out->value = strtod(s, &end);
	if (end != e)
		return NULL;
	out->type = memchr(s, '.', (size_t)(e - s)) || memchr(s, 'e', (size_t)(e - s)) ||
		    memchr(s, 'n', (size_t)(e - s)) ? A_DOUBLE : A_INT;	/* inf, nan */
	return e;
}

static void node_free(struct node *n)
{
	unsigned int i;

	for (i = 0; i < n->n; i++)
		node_free(&n->kids[i]);
	free(n->kids);
}

static void expect_typed_list(const struct node *n, enum atom type,
			      unsigned int count)
{
	unsigned int i;

	assert_int_equal(n->type, A_LIST);
	if (count)
		assert_int_equal(n->n, count);
	for (i = 0; i < n->n; i++)
		assert_int_equal(n->kids[i].type, type);
}

/* Equal to 9 significant digits, or both NaN (no position) */
static bool same(double got, double want)
{
	if (isnan(want))
		return isnan(got);
	return fabs(got - want) <= 1e-8 * (1 + fabs(want));
}

/* The bottle of contacts c[0..n) reads back as n skinContacts with the
 * same numbers (9 significant digits). */
static void check_bottle(const char *text, const struct skin_contact *c,
			 unsigned int n)
{
	struct node root;
	const char *end = parse_node(text, &root);
	unsigned int i, j;

	assert_non_null(end);
	assert_int_equal(*end, '\0');
	assert_int_equal(root.type, A_LIST);
	assert_int_equal(root.n, n);
	for (i = 0; i < n; i++) {
		const struct node *k = &root.kids[i];
		const double *vec[5] = { c[i].r.cop, c[i].r.force, c[i].r.moment,
					 c[i].r.geo, c[i].r.normal };

		assert_int_equal(k->type, A_LIST);
		assert_int_equal(k->n, 8);
		expect_typed_list(&k->kids[0], A_INT, 4);
		assert_true(k->kids[0].kids[0].value == (double)c[i].r.id);
		assert_true(k->kids[0].kids[1].value == c[i].body_part);
		assert_true(k->kids[0].kids[2].value == c[i].link_number);
		assert_true(k->kids[0].kids[3].value == c[i].skin_part);
		for (j = 0; j < 5; j++) {
			unsigned int d;

			expect_typed_list(&k->kids[1 + j], A_DOUBLE, 3);
			for (d = 0; d < 3; d++)
				assert_true(same(k->kids[1 + j].kids[d].value, vec[j][d]));
		}
		expect_typed_list(&k->kids[6], A_INT, c[i].r.n_taxels);
		for (j = 0; j < c[i].r.n_taxels; j++)
			assert_true(k->kids[6].kids[j].value == c[i].taxels[j]);
		assert_int_equal(k->kids[7].type, A_DOUBLE);
		assert_true(fabs(k->kids[7].value - c[i].r.pressure) <= 1e-6);
	}
	node_free(&root);
}

static void check_json(const char *text, const struct skin_model *m,
		       const struct skin_contact *c, unsigned int n)
{
	struct json_object *root = json_tokener_parse(text), *arr;
	static const char *const keys[5] = { "cop", "force", "moment", "geo", "normal" };
	unsigned int i, j, d;

	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "contacts", &arr));
	assert_int_equal(json_object_array_length(arr), n);
	for (i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i), *v;
		const double *vec[5] = { c[i].r.cop, c[i].r.force, c[i].r.moment,
					 c[i].r.geo, c[i].r.normal };

		assert_true(json_object_object_get_ex(o, "id", &v));
		assert_int_equal(json_object_get_int64(v), (int64_t)c[i].r.id);
		assert_true(json_object_object_get_ex(o, "part", &v));
		if (m)
			assert_string_equal(json_object_get_string(v), m->parts[c[i].part].name);
		assert_true(json_object_object_get_ex(o, "skin_part", &v));
		assert_int_equal(json_object_get_int(v), c[i].skin_part);
		assert_true(json_object_object_get_ex(o, "body_part", &v));
		assert_int_equal(json_object_get_int(v), c[i].body_part);
		assert_true(json_object_object_get_ex(o, "link", &v));
		assert_int_equal(json_object_get_int(v), c[i].link_number);
		for (j = 0; j < 5; j++) {
			assert_true(json_object_object_get_ex(o, keys[j], &v));
			assert_int_equal(json_object_array_length(v), 3);
			for (d = 0; d < 3; d++) {
				struct json_object *x = json_object_array_get_idx(v, d);

				/* JSON has no NaN: null (no position, skin/contact.h) */
				if (isnan(vec[j][d]))
					assert_null(x);
				else
					assert_true(same(json_object_get_double(x), vec[j][d]));
			}
		}
		assert_true(json_object_object_get_ex(o, "pressure", &v));
		assert_true(fabs(json_object_get_double(v) - c[i].r.pressure) <= 1e-6);
		assert_true(json_object_object_get_ex(o, "taxels", &v));
		assert_int_equal(json_object_array_length(v), c[i].r.n_taxels);
		for (j = 0; j < c[i].r.n_taxels; j++)
			assert_int_equal(json_object_get_int(json_object_array_get_idx(v, j)),
					 c[i].taxels[j]);
	}
	json_object_put(root);
}

static void odd_numbers(void **state)
{
	struct skin_contact c = contact_a();
	char buf[1024];

	(void)state;
	c.r.cop[0] = 1e-20;
	c.r.cop[1] = 123456789;
	c.r.cop[2] = -7;
	c.r.force[0] = 1e300;
	c.r.pressure = 255;
	c.r.id = 18446744073709551615ull;
	skin_contacts_bottle(buf, sizeof(buf), &c, 1);
	assert_non_null(strstr(buf, "(1e-20 123456789.0 -7.0)"));
	assert_non_null(strstr(buf, "((18446744073709551615 3 6 1)"));
	/* the reader keeps ids as doubles: compare below 2^53 */
	c.r.id = 1ull << 40;
	skin_contacts_bottle(buf, sizeof(buf), &c, 1);
	check_bottle(buf, &c, 1);
	skin_contacts_json(buf, sizeof(buf), NULL, &c, 1);
	check_json(buf, NULL, &c, 1);
}

/* Whatever bytes a string holds, it is valid JSON escaped, and reads back
 * as itself where it was UTF-8 (issue 16, item 5). */
static void json_escape(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "left_hand", "left_hand" },
		{ "a\"b\\c", "a\\\"b\\\\c" },
		{ "\x01\n\x1f\x7f", "\\u0001\\u000a\\u001f\\u007f" },
		{ "h\xc3\xa4nd \xe2\x82\xac \xf0\x9f\x96\x90", "h\xc3\xa4nd \xe2\x82\xac \xf0\x9f\x96\x90" },
		/* stray, overlong, surrogate, past U+10FFFF, cut short */
		{ "\xff\x80", "\\ufffd\\ufffd" },
		{ "\xc0\xaf", "\\ufffd\\ufffd" },
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd" },
		{ "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "x\xe2\x82", "x\\ufffd\\ufffd" },
	};
	char buf[64], doc[160];
	unsigned int i, b;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct json_object *o;

		assert_int_equal(skin_json_escape(buf, sizeof(buf), t[i].in), strlen(t[i].out));
		assert_string_equal(buf, t[i].out);
		assert_int_equal(skin_json_escape(NULL, 0, t[i].in), strlen(t[i].out));
		snprintf(doc, sizeof(doc), "[\"%s\"]", buf);
		o = json_tokener_parse(doc);
		assert_non_null(o);
		json_object_put(o);
	}
	/* truncated: whole escapes only, always terminated */
	assert_int_equal(skin_json_escape(buf, 3, "a\"b"), 4);
	assert_string_equal(buf, "a");
	assert_int_equal(skin_json_escape(buf, 2, "\xc3\xa4"), 2);
	assert_string_equal(buf, "");
	/* every byte after 'a' */
	for (b = 1; b < 256; b++) {
		struct json_object *o;
		char in[3] = { 'a', (char)b, 0 };

		skin_json_escape(buf, sizeof(buf), in);
		snprintf(doc, sizeof(doc), "[\"%s\"]", buf);
		o = json_tokener_parse(doc);
		assert_non_null(o);
		json_object_put(o);
	}
}

/* Live contacts of the upper body: both encoders read back. */
static void live_contacts(void **state)
{
	static char buf[1 << 17];
	struct fixture fx;
	struct skin_frame f;
	unsigned int s, i, pi, checked = 0;

	(void)state;
	fixture_icub(&fx, NULL);
	skin_proc_calibrate(fx.p, -1);
	for (s = 1; s <= 400; s++) {
		for (i = 0; i < fx.m->n_patches; i++) {
			frame_init(&f, s, s * 20 * MS, (uint8_t)(236 + (s + i) % 5));
			if (s > 260)
				memset(f.values + 12 * (i % 5), 150, 20 + 12 * (s % 3));
			skin_proc_feed(fx.p, i, &f);
		}
		if (s <= 260)
			continue;
		for (pi = 0; pi < fx.m->n_parts; pi++) {
			const struct skin_contact *c;
			unsigned int n;

			skin_proc_cluster(fx.p, pi);
			n = skin_proc_contacts(fx.p, pi, &c);
			assert_true(skin_proc_bottle(fx.p, (int)pi, buf, sizeof(buf)) < (int)sizeof(buf));
			check_bottle(buf, c, n);
			assert_true(skin_proc_json(fx.p, (int)pi, buf, sizeof(buf)) < (int)sizeof(buf));
			check_json(buf, fx.m, c, n);
			checked += n;
		}
	}
	assert_true(checked > 500);
	assert_int_equal(skin_proc_bottle(fx.p, 99, buf, sizeof(buf)), -EINVAL);
	fixture_done(&fx);
}

/* skin_value_g4(v) against snprintf("%.4g", v), byte for byte. */
static void g4_is_printf(float v)
{
	char want[64], got[64];
	int wn = snprintf(want, sizeof(want), "%.4g", (double)v);
	int gn = skin_value_g4(got, sizeof(got), v);

	if (wn != gn || strcmp(want, got))
		fail_msg("%a: printf \"%s\" (%d), skin_value_g4 \"%s\" (%d)",
			 (double)v, want, wn, got, gn);
}

static void value_g4(void **state)
{
	static const float edge[] = {
		0.0f, -0.0f, 1e-4f, 9.9994e-5f, 9.9995e-5f, 1e-5f, 0.5f, 1.0625f,
		1234.5f, 1235.5f, 9999.4f, 9999.5f, 9999.6f, 10000.0f, 99995.0f,
		9.9995f, 0.99995f, 255.0f, -255.0f, 1e30f, -1e-30f, 3.4e38f,
		1.17549435e-38f, 1.4e-45f,
	};
	char small[4];
	uint32_t bits = 12345;
	unsigned int i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		g4_is_printf(edge[i]);
	g4_is_printf(INFINITY);
	g4_is_printf(-INFINITY);
	g4_is_printf(NAN);
	/* every multiple of 1/4096 over the values' range: the ties included */
	for (k = -2 * 4096; k <= 260 * 4096; k++)
		g4_is_printf((float)k / 4096.0f);
	/* every exponent: random bit patterns */
	for (i = 0; i < 1000000; i++) {
		float v;

		bits = bits * 1103515245u + 12345u;
		bits ^= bits >> 7;
		memcpy(&v, &bits, sizeof(v));
		g4_is_printf(v);
	}
	/* snprintf's truncation */
	assert_int_equal(skin_value_g4(small, sizeof(small), 123.25f), 5);	/* "123.2": half to even */
	assert_string_equal(small, "123");
	assert_int_equal(skin_value_g4(NULL, 0, 0.001234f), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bottle_exact),
		cmocka_unit_test(bottle_truncated),
		cmocka_unit_test(odd_numbers),
		cmocka_unit_test(json_escape),
		cmocka_unit_test(live_contacts),
		cmocka_unit_test(value_g4),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
