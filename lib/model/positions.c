// SPDX-License-Identifier: GPL-2.0
/*
 * positions.c - iCub taxel position files (icub-main app/skinGui/conf/
 * positions), read and written
 *
 *     name              l_hand
 *     spatial_sampling  taxel
 *     taxel2Repr        ( r0 r1 ... )   -1 absent, -2 thermal pad
 *     [calibration]
 *     x y z nx ny nz                     metres, link frame
 *
 * Validity comes from taxel2Repr; an all-zero row only means that no
 * position is known (the hand's 60 fingertip taxels are real but have
 * zero rows).  Upstream ignores a missing file and inconsistent lengths;
 * here every deviation is an error with its line, except two that real
 * files have, each reported as a note on the model:
 *
 * - more taxel2Repr entries than rows (the upper arms: 960 for 768),
 *   accepted when every entry beyond the rows says absent;
 * - more rows than entries (the upper legs: 960 for 1344 rows, 7
 *   boards).  skinDynLib reads taxel2Repr with b.get(i).asInt32() for
 *   every row, and a YARP Bottle's get() past its end is a null value
 *   whose asInt32() is 0: such rows get representative 0 there, and here
 *   too.  A row with a position is then a tactile taxel (skinDynLib makes
 *   a Taxel of it); an all-zero row is absent (no triangle there: the
 *   legs' skinGui files draw exactly the rows with positions).  When
 *   every such row is all zero they are dropped instead, as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"

struct pos_row {
	double v[6];
	unsigned int line;
};

struct pos_file {
	char name[128];
	bool have_name, have_sampling, have_repr, in_calibration;
	long *repr;
	unsigned int *repr_line, *repr_col;
	unsigned int n_repr;
	struct pos_row *rows;
	unsigned int n_rows, cap_rows;
};

static void pos_file_free(struct pos_file *f)
{
	free(f->repr);
	free(f->repr_line);
	free(f->repr_col);
	free(f->rows);
}

/* taxel2Repr ( ... ): YARP lists may span lines. */
static bool read_repr(struct lex *lx, struct pos_file *f)
{
	unsigned int cap = 0, l, c;
	char tok[64];
	int n;

	n = lex_token(lx, true, tok, sizeof(tok), &l, &c);
	if (n < 0)
		return false;
	if (strcmp(tok, "(")) {
		lex_error(lx, l, c, "expected '(' opening the taxel2Repr list, got '%s'",
			  n ? tok : "end of file");
		return false;
	}
	for (;;) {
		long v;

		n = lex_token(lx, true, tok, sizeof(tok), &l, &c);
		if (n < 0)
			return false;
		if (n == 0) {
			lex_error(lx, l, c, "expected ')' closing the taxel2Repr list, got end of file");
			return false;
		}
		if (!strcmp(tok, ")"))
			break;
		if (!lex_parse_long(lx, tok, l, c,
				    "a taxel2Repr entry (taxel id, -1 absent or -2 thermal pad)",
				    -2, SKIN_MAX_TAXELS - 1, &v))
			return false;
		if (f->n_repr >= SKIN_MAX_TAXELS) {
			lex_error(lx, l, c, "more than %u taxel2Repr entries",
				  SKIN_MAX_TAXELS);
			return false;
		}
		if (f->n_repr == cap) {
			unsigned int nc = cap ? cap * 2 : 256;
			long *r = realloc(f->repr, nc * sizeof(*r));
			unsigned int *rl, *rc;

			if (r)
				f->repr = r;
			rl = realloc(f->repr_line, nc * sizeof(*rl));
			if (rl)
				f->repr_line = rl;
			rc = realloc(f->repr_col, nc * sizeof(*rc));
			if (rc)
				f->repr_col = rc;
			if (!r || !rl || !rc) {
				skin_err_oom(lx->err, lx->file);
				return false;
			}
			cap = nc;
		}
		f->repr[f->n_repr] = v;
		f->repr_line[f->n_repr] = l;
		f->repr_col[f->n_repr] = c;
		f->n_repr++;
	}
	if (!lex_at_eol(lx)) {
		lex_error(lx, lx->line, lx->col,
			  "expected the end of the line after the taxel2Repr list");
		return false;
	}
	return true;
}

/* One row of 6 numbers; tok (the first) is already read. */
static bool read_row(struct lex *lx, struct pos_file *f, const char *first,
		     unsigned int l, unsigned int c)
{
	static const char *const what[6] = {
		"x (metres)", "y (metres)", "z (metres)",
		"normal x", "normal y", "normal z"
	};
	struct pos_row row;
	char tok[64];
	unsigned int i, tl, tc;
	int n;

	row.line = l;
	if (!lex_parse_double(lx, first, l, c, what[0], &row.v[0]))
		return false;
	for (i = 1; i < 6; i++) {
		n = lex_token(lx, false, tok, sizeof(tok), &tl, &tc);
		if (n < 0)
			return false;
		if (n == 0) {
			lex_error(lx, tl, tc,
				  "expected 6 numbers per row (x y z in metres, then the normal), got %u",
				  i);
			return false;
		}
		if (!lex_parse_double(lx, tok, tl, tc, what[i], &row.v[i]))
			return false;
	}
	if (!lex_at_eol(lx)) {
		lex_error(lx, lx->line, lx->col,
			  "expected 6 numbers per row (x y z in metres, then the normal), got more");
		return false;
	}
	if (f->n_rows >= SKIN_MAX_TAXELS) {
		lex_error(lx, l, c, "more than %u rows", SKIN_MAX_TAXELS);
		return false;
	}
	if (f->n_rows == f->cap_rows) {
		unsigned int nc = f->cap_rows ? f->cap_rows * 2 : 256;
		struct pos_row *r = realloc(f->rows, nc * sizeof(*r));

		if (!r) {
			skin_err_oom(lx->err, lx->file);
			return false;
		}
		f->rows = r;
		f->cap_rows = nc;
	}
	f->rows[f->n_rows++] = row;
	return true;
}

static bool parse(struct lex *lx, struct pos_file *f)
{
	char tok[160];
	unsigned int l, c;
	int n;

	for (;;) {
		n = lex_token(lx, true, tok, sizeof(tok), &l, &c);
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		if (tok[0] == '#' || !strncmp(tok, "//", 2)) {
			lex_skip_line(lx);
			continue;
		}
		if (tok[0] == '[') {
			if (strcmp(tok, "[calibration]")) {
				lex_error(lx, l, c, "expected the group [calibration], got '%s'",
					  tok);
				return false;
			}
			if (f->in_calibration || f->n_rows) {
				lex_error(lx, l, c, "[calibration] after rows: expected one group of rows");
				return false;
			}
			f->in_calibration = true;
			continue;
		}
		if ((tok[0] >= '0' && tok[0] <= '9') || tok[0] == '-' ||
		    tok[0] == '+' || tok[0] == '.') {
			if (!read_row(lx, f, tok, l, c))
				return false;
			continue;
		}
		if (f->in_calibration) {
			lex_error(lx, l, c, "expected a row of 6 numbers in [calibration], got '%s'",
				  tok);
			return false;
		}
		if (!strcmp(tok, "name")) {
			if (f->have_name) {
				lex_error(lx, l, c, "second 'name': expected one");
				return false;
			}
			n = lex_token(lx, false, f->name, sizeof(f->name), &l, &c);
			if (n <= 0) {
				if (n == 0)
					lex_error(lx, l, c, "expected the skin part's name after 'name'");
				return false;
			}
			f->have_name = true;
		} else if (!strcmp(tok, "spatial_sampling")) {
			n = lex_token(lx, false, tok, sizeof(tok), &l, &c);
			if (n < 0)
				return false;
			if (strcmp(tok, "taxel") && strcmp(tok, "triangle")) {
				lex_error(lx, l, c, "expected spatial_sampling 'taxel' or 'triangle', got '%s'",
					  n ? tok : "nothing");
				return false;
			}
			f->have_sampling = true;
		} else if (!strcmp(tok, "taxel2Repr")) {
			if (f->have_repr) {
				lex_error(lx, l, c, "second taxel2Repr: expected one");
				return false;
			}
			if (!read_repr(lx, f))
				return false;
			f->have_repr = true;
			continue;
		} else {
			lex_error(lx, l, c, "expected name, spatial_sampling, taxel2Repr, [calibration] or a row of 6 numbers, got '%s'",
				  tok);
			return false;
		}
		if (!lex_at_eol(lx)) {
			lex_error(lx, lx->line, lx->col,
				  "expected the end of the line after '%s'", tok);
			return false;
		}
	}
}

static bool row_is_zero(const struct pos_row *r)
{
	unsigned int k;

	for (k = 0; k < 6; k++)
		if (r->v[k] != 0.0)
			return false;
	return true;
}

static struct skin_model *build(struct lex *lx, struct pos_file *f)
{
	struct skin_model *m;
	struct skin_part *p;
	enum skin_part_id id;
	unsigned int n, i, npatch, past_pos = 0;
	int pi, link;

	if (!f->have_repr && !f->n_rows) {
		lex_error(lx, lx->line, lx->col,
			  "expected a taxel2Repr list or rows of positions, found neither");
		return NULL;
	}
	n = f->have_repr ? f->n_repr : f->n_rows;
	if (f->have_repr && f->n_rows && f->n_repr != f->n_rows) {
		if (f->n_repr > f->n_rows) {
			for (i = f->n_rows; i < f->n_repr; i++)
				if (f->repr[i] != -1) {
					lex_error(lx, f->repr_line[i], f->repr_col[i],
						  "taxel2Repr entry %u is %ld but there are only %u rows of positions: expected -1 (absent) beyond the last row",
						  i, f->repr[i], f->n_rows);
					return NULL;
				}
		} else {
			for (i = f->n_repr; i < f->n_rows; i++)
				past_pos += !row_is_zero(&f->rows[i]);
		}
		n = past_pos ? f->n_rows :
		    f->n_repr < f->n_rows ? f->n_repr : f->n_rows;
	}
	for (i = 0; f->have_repr && i < n && i < f->n_repr; i++)
		if (f->repr[i] >= (long)n) {
			lex_error(lx, f->repr_line[i], f->repr_col[i],
				  "taxel2Repr entry %u names taxel %ld: expected an id below %u",
				  i, f->repr[i], n);
			return NULL;
		}

	m = model_new();
	if (!m)
		goto oom;
	id = f->have_name ? skin_part_id_from_name(f->name) : SKIN_PART_UNKNOWN;
	pi = model_add_part(m, id ? skin_part_id_name(id)
				  : (f->have_name ? f->name : "part"), n);
	if (pi < 0)
		goto oom;
	p = &m->parts[pi];
	model_part_set_id(p, id);
	if (model_set_str(&p->source, lx->file))
		goto oom;
	link = model_link(m, f->have_name ? f->name : p->name, p->link_number);
	if (link < 0)
		goto oom;
	for (i = 0; i < n; i++) {
		struct skin_taxel *t = &m->taxels[p->first_taxel + i];

		t->link = link;
		if (f->have_repr) {
			/* past the list: skinDynLib's get(i).asInt32(), 0 */
			long r = i < f->n_repr ? f->repr[i] :
				 row_is_zero(&f->rows[i]) ? -1 : 0;

			t->kind = r >= 0 ? SKIN_TAXEL_TACTILE :
				  r == -2 ? SKIN_TAXEL_THERMAL :
				  SKIN_TAXEL_ABSENT;
			t->repr = r >= 0 ? (int)r : -1;
		}
		if (i < f->n_rows && !row_is_zero(&f->rows[i])) {
			memcpy(t->pos, f->rows[i].v, sizeof(t->pos));
			memcpy(t->normal, f->rows[i].v + 3, sizeof(t->normal));
			t->flags |= SKIN_TAXEL_HAS_POS;
			if (!f->have_repr)
				t->kind = SKIN_TAXEL_TACTILE;
		}
	}
	npatch = (n + SKIN_VALUES_PER_PATCH - 1) / SKIN_VALUES_PER_PATCH;
	for (i = 0; i < npatch; i++)
		if (model_add_patch(m, (unsigned int)pi, i, NULL, -1) < 0)
			goto oom;
	if (f->have_repr && f->n_rows && f->n_repr > f->n_rows &&
	    model_note(m, "%s: taxel2Repr has %u entries for %u rows of positions; the %u entries beyond the rows are all -1 (absent) and were dropped",
		       lx->file, f->n_repr, f->n_rows, f->n_repr - f->n_rows))
		goto oom;
	if (f->have_repr && past_pos &&
	    model_note(m, "%s: taxel2Repr has %u entries for %u rows of positions: rows %u..%u get representative 0, as in skinDynLib (taxel2Repr.get(i).asInt32() is 0 past the end of the list); the %u with a position are tactile, the %u all-zero ones absent",
		       lx->file, f->n_repr, f->n_rows, f->n_repr, f->n_rows - 1,
		       past_pos, f->n_rows - f->n_repr - past_pos))
		goto oom;
	if (f->have_repr && f->n_rows && f->n_repr < f->n_rows && !past_pos &&
	    model_note(m, "%s: %u rows of positions for %u taxel2Repr entries; the %u all-zero rows beyond the entries were dropped",
		       lx->file, f->n_rows, f->n_repr, f->n_rows - f->n_repr))
		goto oom;
	if (!f->have_repr &&
	    model_note(m, "%s: no taxel2Repr: taxels with a non-zero row are taken as tactile, the others as absent",
		       lx->file))
		goto oom;
	return m;
oom:
	skin_model_free(m);
	skin_err_oom(lx->err, lx->file);
	return NULL;
}

struct skin_model *skin_positions_read(const char *buf, size_t len,
				       const char *name,
				       struct skin_error *err)
{
	struct pos_file f;
	struct skin_model *m = NULL;
	struct lex lx;

	memset(&f, 0, sizeof(f));
	lex_init(&lx, buf, len, name, err);
	if (parse(&lx, &f))
		m = build(&lx, &f);
	pos_file_free(&f);
	return m;
}

int skin_positions_write(const struct skin_model *m, unsigned int part,
			 char **out, size_t *outlen, struct skin_error *err)
{
	const struct skin_part *p;
	struct sbuf b = { 0 };
	const char *name;
	unsigned int i, k;
	bool bad;

	if (part >= m->n_parts) {
		skin_error_set(err, "(positions writer)", 0, 0,
			     "no part %u in the model", part);
		return -1;
	}
	p = &m->parts[part];
	name = p->name;
	if (p->n_taxels && m->taxels[p->first_taxel].link >= 0)
		name = m->links[m->taxels[p->first_taxel].link].name;
	/* the name must read back as one token of at most 127 bytes that is
	 * no comment (found by fuzz_urdf: <parent link=""/> gave an empty
	 * name) */
	bad = !name[0] || strlen(name) > 127 || name[0] == '#' ||
	      name[0] == '[' || !strncmp(name, "//", 2);
	for (i = 0; name[i]; i++)
		bad |= strchr(" \t\n\r\v\f()", name[i]) != NULL;
	if (bad) {
		skin_error_set(err, "(positions writer)", 0, 0,
			     "part name '%.200s' is empty, too long, or has blanks, parentheses or comment marks, which a positions file cannot hold",
			     name);
		return -1;
	}
	sbuf_printf(&b, "name\t%s\nspatial_sampling\ttaxel\ntaxel2Repr\t(", name);
	for (i = 0; i < p->n_taxels; i++) {
		const struct skin_taxel *t = &m->taxels[p->first_taxel + i];
		long r = t->kind == SKIN_TAXEL_THERMAL ? -2 :
			 t->kind == SKIN_TAXEL_ABSENT ? -1 :
			 t->repr >= 0 ? t->repr : (long)i;

		sbuf_printf(&b, " %ld", r);
	}
	sbuf_printf(&b, " )\n[calibration]\n");
	for (i = 0; i < p->n_taxels; i++) {
		const struct skin_taxel *t = &m->taxels[p->first_taxel + i];

		for (k = 0; k < 6; k++) {
			double v = 0.0;

			if (t->flags & SKIN_TAXEL_HAS_POS)
				v = k < 3 ? t->pos[k] : t->normal[k - 3];
			if (k)
				sbuf_printf(&b, " ");
			sbuf_double(&b, v);
		}
		sbuf_printf(&b, "\n");
	}
	if (b.oom) {
		free(b.s);
		skin_err_oom(err, "(positions writer)");
		return -1;
	}
	*out = b.s;
	*outlen = b.len;
	return 0;
}
