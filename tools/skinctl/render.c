// SPDX-License-Identifier: GPL-2.0
/*
 * render.c - a part's 2D layout, and one sample of it as text or SVG
 *
 * The terminal picture keeps the layout's proportions on cells about
 * twice as tall as they are wide: a layout unit spans twice as many
 * columns as rows.  Several taxels landing on one cell show the highest
 * value (a pressed taxel is never hidden by an idle neighbour).  The SVG
 * draws every placed taxel as a circle of 0.45 x the layout's spacing, so
 * neighbours never overlap.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* --- layout ------------------------------------------------------------ */

int view_layout_init(struct view_layout *l, unsigned int n)
{
	unsigned int i;

	memset(l, 0, sizeof(*l));
	l->n = n;
	l->x = malloc((n ? n : 1) * sizeof(*l->x));
	l->y = malloc((n ? n : 1) * sizeof(*l->y));
	l->kind = malloc(n ? n : 1);
	if (!l->x || !l->y || !l->kind) {
		view_layout_free(l);
		return -1;
	}
	for (i = 0; i < n; i++) {
		l->x[i] = l->y[i] = NAN;
		l->kind[i] = SKIN_TAXEL_TACTILE;
	}
	return 0;
}

void view_layout_free(struct view_layout *l)
{
	free(l->x);
	free(l->y);
	free(l->kind);
	l->x = l->y = NULL;
	l->kind = NULL;
}

static bool placed(const struct view_layout *l, unsigned int i)
{
	return isfinite(l->x[i]) && isfinite(l->y[i]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median distance to the nearest other placed taxel (O(n^2): parts have
 * at most a few hundred taxels).  Coincident taxels do not count. */
static double median_spacing(const struct view_layout *l)
{
	double *nn = malloc((l->n ? l->n : 1) * sizeof(*nn)), s;
	unsigned int i, j, k = 0;

	if (!nn)
		return 0;
	for (i = 0; i < l->n; i++) {
		double best = INFINITY;

		if (!placed(l, i))
			continue;
		for (j = 0; j < l->n; j++) {
			double d;

			if (j == i || !placed(l, j))
				continue;
			d = hypot(l->x[i] - l->x[j], l->y[i] - l->y[j]);
			if (d > 0 && d < best)
				best = d;
		}
		if (isfinite(best))
			nn[k++] = best;
	}
	qsort(nn, k, sizeof(*nn), cmp_double);
	s = k ? nn[k / 2] : 0;
	free(nn);
	return s;
}

void view_layout_finish(struct view_layout *l)
{
	unsigned int i;

	l->n_placed = l->n_unplaced = 0;
	l->min[0] = l->min[1] = INFINITY;
	l->max[0] = l->max[1] = -INFINITY;
	for (i = 0; i < l->n; i++) {
		if (!placed(l, i)) {
			l->n_unplaced += l->kind[i] != SKIN_TAXEL_ABSENT;
			continue;
		}
		l->n_placed++;
		l->min[0] = fmin(l->min[0], l->x[i]);
		l->max[0] = fmax(l->max[0], l->x[i]);
		l->min[1] = fmin(l->min[1], l->y[i]);
		l->max[1] = fmax(l->max[1], l->y[i]);
	}
	if (!l->n_placed)
		l->min[0] = l->min[1] = l->max[0] = l->max[1] = 0;
	l->spacing = median_spacing(l);
	if (!(l->spacing > 0)) {
		/* one taxel, or all on one point: a tenth of the extent */
		double ext = fmax(l->max[0] - l->min[0], l->max[1] - l->min[1]);

		l->spacing = ext > 0 ? ext / 10 : 1;
	}
}

/*
 * The picture's layout is the part's flattening (skin/flatten.h), the one
 * skind's evdev devices use too; the layout adds the kinds and what
 * drawing needs (bounding box, spacing).
 */
int view_layout_build(struct view_layout *l, const struct skin_model *m,
		      unsigned int part, enum skin_flatten_mode mode, char *why,
		      size_t why_len)
{
	const struct skin_part *sp = &m->parts[part];
	struct skin_flattening f;
	struct skin_error err;
	unsigned int i;

	memset(l, 0, sizeof(*l));
	if (skin_flatten_part(&f, m, part, mode, &err)) {
		snprintf(why, why_len, "%s", err.what);
		return -1;
	}
	l->n = f.n;
	l->x = f.x;
	l->y = f.y;
	l->how = f.how;
	l->unit = f.unit;
	l->radius = f.radius;
	l->kind = malloc(f.n ? f.n : 1);
	if (!l->kind) {
		view_layout_free(l);
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	for (i = 0; i < f.n; i++)
		l->kind[i] = (unsigned char)m->taxels[sp->first_taxel + i].kind;
	view_layout_finish(l);
	return 0;
}

/* --- colours ----------------------------------------------------------- */

void view_ramp(double v, uint8_t rgb[3])
{
	static const struct {
		double v;
		uint8_t c[3];
	} stop[] = {
		{ 0, { 40, 40, 56 } },
		{ 32, { 48, 18, 110 } },
		{ 96, { 160, 30, 120 } },
		{ 160, { 230, 80, 40 } },
		{ 224, { 250, 190, 40 } },
		{ 255, { 255, 255, 210 } },
	};
	unsigned int i, k;

	if (!(v > 0))
		v = 0;
	if (v > 255)
		v = 255;
	for (i = 1; i < sizeof(stop) / sizeof(stop[0]) - 1 && v > stop[i].v; i++)
		;
	for (k = 0; k < 3; k++) {
		double a = stop[i - 1].c[k], b = stop[i].c[k];
		double f = (v - stop[i - 1].v) / (stop[i].v - stop[i - 1].v);

		rgb[k] = (uint8_t)lround(a + (b - a) * f);
	}
}

/* The xterm 256-colour cube entry nearest to rgb. */
static unsigned int xterm256(const uint8_t rgb[3])
{
	static const int level[6] = { 0, 95, 135, 175, 215, 255 };
	unsigned int k, idx[3];

	for (k = 0; k < 3; k++) {
		unsigned int j, best = 0;

		for (j = 1; j < 6; j++)
			if (abs(level[j] - rgb[k]) < abs(level[best] - rgb[k]))
				best = j;
		idx[k] = best;
	}
	return 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
}

bool view_contact_cop(const struct view_layout *l, const struct view_frame *f,
		      const struct view_contact *c, double xy[2])
{
	/* the layout is the part's flattening (view_layout_build()) */
	const struct skin_flattening flat = {
		.n = l->n, .x = l->x, .y = l->y,
		.how = l->how, .unit = l->unit, .radius = l->radius,
	};

	return skin_flatten_centroid(&flat, c->taxels, c->n_taxels, f->values, xy);
}

/* --- text -------------------------------------------------------------- */

enum cell_style { C_EMPTY, C_ZERO, C_HEAT, C_THERMAL, C_MARK, C_LABEL };

struct cell {
	char ch;
	unsigned char style;
	bool heat_under;	/* a mark over a heat cell keeps its colour */
	double v;
};

static const char ascii_ramp[] = " .:-=+*#%@";

static char heat_char(double v)
{
	int i;

	if (!(v > 0))
		return '.';
	if (v > 255)
		v = 255;
	i = 2 + (int)(v * 8 / 256);
	return ascii_ramp[i > 9 ? 9 : i];
}

static double frame_max(const struct view_layout *l, const struct view_frame *f)
{
	double mx = 0;
	unsigned int i;

	for (i = 0; f->values && i < l->n; i++)
		if (l->kind[i] == SKIN_TAXEL_TACTILE && f->values[i] > mx)
			mx = f->values[i];
	return mx;
}

/* Append s cut to @width bytes, not inside a UTF-8 sequence. */
static void put_cut(FILE *out, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (n > width) {
		n = width;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	while (n && s[n - 1] == ' ')
		n--;
	fprintf(out, "%.*s", (int)n, s);
}

static void status_text(char *s, size_t len, const struct view_layout *l,
			const struct view_frame *f)
{
	size_t n;
	unsigned int i;

	n = (size_t)snprintf(s, len, "%s  sample %" PRIu64 "  t %.3f s  contacts %u",
			     f->part, f->sample, f->time_s, f->n_contacts);
	for (i = 0; i < f->n_contacts && n < len; i++)
		n += (size_t)snprintf(s + n, len - n, "%s#%" PRIu64, i ? "," : " ",
				      f->contacts[i].id);
	if (n < len)
		n += (size_t)snprintf(s + n, len - n, "  max %.0f", frame_max(l, f));
	if (n < len && f->state && strcmp(f->state, "running"))
		snprintf(s + n, len - n, "  [%s]", f->state);
}

/* Where the positions come from and what is not drawn. */
static size_t layout_caption(char *s, size_t len, const struct view_layout *l)
{
	const struct skin_flattening f = {
		.how = l->how, .unit = l->unit, .radius = l->radius,
	};
	char how[128];
	size_t n = (size_t)snprintf(s, len, "%s",
				    skin_flatten_describe(&f, how, sizeof(how)));

	if (l->n_unplaced && n < len)
		n += (size_t)snprintf(s + n, len - n, ", %u taxel%s without a position not shown",
				      l->n_unplaced, l->n_unplaced == 1 ? "" : "s");
	return n;
}

static void caption_text(char *s, size_t len, const struct view_layout *l,
			 const struct view_frame *f, const char *hint)
{
	size_t n = layout_caption(s, len, l);

	if (f->source && n < len)
		n += (size_t)snprintf(s + n, len - n, " | %s", f->source);
	if (hint && n < len)
		snprintf(s + n, len - n, " | %s", hint);
}

static void sgr(char *s, size_t len, const struct cell *c, enum view_color color)
{
	uint8_t rgb[3];
	char bg[40] = "";

	if (c->style == C_HEAT || c->heat_under) {
		view_ramp(c->v, rgb);
		if (color == VIEW_COLOR_TRUE)
			snprintf(bg, sizeof(bg), ";48;2;%u;%u;%u", rgb[0], rgb[1], rgb[2]);
		else
			snprintf(bg, sizeof(bg), ";48;5;%u", xterm256(rgb));
	}
	switch (c->style) {
	case C_ZERO:
		snprintf(s, len, "\033[0;%sm", color == VIEW_COLOR_TRUE ?
			 "38;2;88;88;88" : "38;5;240");
		break;
	case C_THERMAL:
		snprintf(s, len, "\033[0;%sm", color == VIEW_COLOR_TRUE ?
			 "38;2;95;135;175" : "38;5;67");
		break;
	case C_HEAT:
		snprintf(s, len, "\033[0%sm", bg);
		break;
	case C_MARK:
	case C_LABEL:
		snprintf(s, len, "\033[0;1;97%sm", bg);
		break;
	default:
		s[0] = '\0';
	}
}

static void emit_row(FILE *out, const struct cell *row,
		     unsigned int cols, enum view_color color)
{
	char cur[64] = "", want[64];
	unsigned int c, end = 0;

	for (c = 0; c < cols; c++)
		if (row[c].ch != ' ' ||
		    (color != VIEW_COLOR_NONE && row[c].style == C_HEAT))
			end = c + 1;
	for (c = 0; c < end; c++) {
		if (color != VIEW_COLOR_NONE) {
			sgr(want, sizeof(want), &row[c], color);
			if (strcmp(want, cur)) {
				fputs(want[0] ? want : "\033[0m", out);
				snprintf(cur, sizeof(cur), "%s", want);
			}
		}
		fputc(row[c].ch, out);
	}
	if (cur[0])
		fputs("\033[0m", out);
}

/* Layout positions to cells: the scale and the offsets that centre it. */
struct grid_map {
	double min0, max1, sc, sr;
	long off_c, off_r;
	unsigned int cols, rows;
};

static void grid_map_init(struct grid_map *g, const struct view_layout *l,
			  unsigned int cols, unsigned int rows)
{
	double dx = l->max[0] - l->min[0], dy = l->max[1] - l->min[1];
	double sr = INFINITY;

	if (dy > 0)
		sr = (rows - 1) / dy;
	if (dx > 0)
		sr = fmin(sr, (cols - 1) / (2 * dx));
	if (!isfinite(sr))
		sr = 0;
	g->min0 = l->min[0];
	g->max1 = l->max[1];
	g->sr = sr;
	g->sc = 2 * sr;
	g->off_c = ((long)cols - 1 - lround(dx * g->sc)) / 2;
	g->off_r = ((long)rows - 1 - lround(dy * g->sr)) / 2;
	g->cols = cols;
	g->rows = rows;
}

static void grid_cell(const struct grid_map *g, double x, double y,
		      unsigned int *col, unsigned int *row)
{
	long c = lround((x - g->min0) * g->sc) + g->off_c;
	long r = lround((g->max1 - y) * g->sr) + g->off_r;

	*col = (unsigned int)(c < 0 ? 0 : c >= (long)g->cols ? (long)g->cols - 1 : c);
	*row = (unsigned int)(r < 0 ? 0 : r >= (long)g->rows ? (long)g->rows - 1 : r);
}

static void mark_contacts(struct cell *grid, const struct grid_map *g,
			  const struct view_layout *l, const struct view_frame *f)
{
	unsigned int i, k;

	for (i = 0; i < f->n_contacts; i++) {
		char id[24];
		double xy[2];
		unsigned int col, row, len;
		struct cell *c;
		long start;

		if (!view_contact_cop(l, f, &f->contacts[i], xy))
			continue;
		grid_cell(g, xy[0], xy[1], &col, &row);
		c = &grid[row * g->cols + col];
		c->heat_under = c->style == C_HEAT;
		c->style = C_MARK;
		c->ch = 'X';
		len = (unsigned int)snprintf(id, sizeof(id), "%" PRIu64, f->contacts[i].id);
		if (col + 1 + len <= g->cols)
			start = col + 1;
		else if (col >= len)
			start = (long)(col - len);
		else
			continue;
		for (k = 0; k < len; k++) {
			c = &grid[row * g->cols + (unsigned int)start + k];
			c->ch = id[k];
			c->style = C_LABEL;
			c->heat_under = false;
		}
	}
}

int view_render_text(FILE *out, const struct view_layout *l,
		     const struct view_frame *f, const struct view_text_opts *o)
{
	const char *eol = o->eol ? o->eol : "\n";
	unsigned int cols = o->cols, rows, i, r;
	struct grid_map g;
	struct cell *grid;
	char line[1024];

	if (o->cols < 16 || o->rows < 4)
		return -1;
	rows = o->rows - 2;
	grid = calloc((size_t)cols * rows, sizeof(*grid));
	if (!grid)
		return -1;
	for (i = 0; i < cols * rows; i++)
		grid[i].ch = ' ';
	grid_map_init(&g, l, cols, rows);
	for (i = 0; i < l->n; i++) {
		unsigned int col, row;
		struct cell *c;
		double v;

		if (!placed(l, i) || l->kind[i] == SKIN_TAXEL_ABSENT)
			continue;
		grid_cell(&g, l->x[i], l->y[i], &col, &row);
		c = &grid[row * cols + col];
		if (l->kind[i] == SKIN_TAXEL_THERMAL) {
			if (c->style == C_EMPTY) {
				c->style = C_THERMAL;
				c->ch = 'o';
			}
			continue;
		}
		v = f->values && f->values[i] > 0 ? f->values[i] : 0;
		if (c->style == C_HEAT && c->v >= v)
			continue;
		if (c->style == C_ZERO && v == 0)
			continue;
		c->v = v;
		c->style = v > 0 ? C_HEAT : C_ZERO;
		c->ch = v > 0 && o->color != VIEW_COLOR_NONE ? ' ' : heat_char(v);
	}
	mark_contacts(grid, &g, l, f);

	status_text(line, sizeof(line), l, f);
	put_cut(out, line, cols);
	fputs(eol, out);
	for (r = 0; r < rows; r++) {
		emit_row(out, &grid[r * cols], cols, o->color);
		fputs(eol, out);
	}
	caption_text(line, sizeof(line), l, f, o->hint);
	put_cut(out, line, cols);
	fputs(o->last_eol ? o->last_eol : eol, out);
	free(grid);
	return ferror(out) ? -1 : 0;
}

/* --- SVG --------------------------------------------------------------- */

static void xml_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* control characters are not XML 1.0 */
			if ((unsigned char)*s < 0x20 && *s != '\t')
				fputs("?", out);
			else
				fputc(*s, out);
		}
	}
}

int view_render_svg(FILE *out, const struct view_layout *l,
		    const struct view_frame *f)
{
	const double caption_h = 64;
	double dx = l->max[0] - l->min[0], dy = l->max[1] - l->min[1];
	double s = 28 / l->spacing, r, margin, w, h, ox, oy, big = fmax(dx, dy);
	double min_w;
	char status[1024], how[1024];
	unsigned int i;
	size_t chars;

	status_text(status, sizeof(status), l, f);
	layout_caption(how, sizeof(how), l);
	/* room for the caption: monospace at 13 px is some 7.9 px a glyph */
	chars = strlen(status) > strlen(how) ? strlen(status) : strlen(how);
	if (f->source && strlen(f->source) > chars)
		chars = strlen(f->source);
	min_w = fmax(420, 16 + 7.9 * (double)chars);
	if (big * s > 1600)
		s = 1600 / big;
	r = fmax(0.45 * l->spacing * s, 1.5);
	margin = r + 16;
	w = dx * s + 2 * margin;
	h = dy * s + 2 * margin + caption_h;
	ox = margin;
	oy = margin;
	if (w < min_w) {
		ox += (min_w - w) / 2;
		w = min_w;
	}
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		ceil(w), ceil(h), ceil(w), ceil(h));
	fputs("<title>skin ", out);
	xml_text(out, f->part);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#14141c\"/>\n"
	      "<g id=\"taxels\">\n", out);
	for (i = 0; i < l->n; i++) {
		double cx, cy;

		if (!placed(l, i))
			continue;
		cx = ox + (l->x[i] - l->min[0]) * s;
		cy = oy + (l->max[1] - l->y[i]) * s;
		fprintf(out, "<circle id=\"t%u\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" ",
			i, cx, cy, r);
		if (l->kind[i] == SKIN_TAXEL_TACTILE) {
			double v = f->values && f->values[i] > 0 ? f->values[i] : 0;
			bool touched = f->touched && f->touched[i];
			uint8_t rgb[3];

			view_ramp(v, rgb);
			fprintf(out, "class=\"tactile%s\" fill=\"#%02x%02x%02x\"%s>"
				"<title>taxel %u: %.4g</title></circle>\n",
				touched ? " touched" : "", rgb[0], rgb[1], rgb[2],
				touched ? " stroke=\"#ffffff\"" : "", i, v);
		} else if (l->kind[i] == SKIN_TAXEL_THERMAL) {
			fprintf(out, "class=\"thermal\" fill=\"#24324a\" stroke=\"#5f87af\" "
				"stroke-dasharray=\"2 2\"><title>taxel %u: thermal pad</title>"
				"</circle>\n", i);
		} else {
			fprintf(out, "class=\"absent\" fill=\"none\" stroke=\"#50505a\" "
				"stroke-dasharray=\"1 2\"><title>taxel %u: absent</title>"
				"</circle>\n", i);
		}
	}
	fputs("</g>\n<g id=\"contacts\">\n", out);
	for (i = 0; i < f->n_contacts; i++) {
		const struct view_contact *c = &f->contacts[i];
		double xy[2], cx, cy, k = fmax(r * 1.6, 6);

		if (!view_contact_cop(l, f, c, xy))
			continue;
		cx = ox + (xy[0] - l->min[0]) * s;
		cy = oy + (l->max[1] - xy[1]) * s;
		fprintf(out, "<g class=\"contact\" id=\"c%" PRIu64 "\" data-x=\"%.9g\" "
			"data-y=\"%.9g\" data-taxels=\"%u\" data-pressure=\"%.4g\">"
			"<path d=\"M%.2f %.2fH%.2fM%.2f %.2fV%.2f\" stroke=\"#ffffff\" "
			"stroke-width=\"2\" fill=\"none\"/>"
			"<text x=\"%.2f\" y=\"%.2f\" fill=\"#ffffff\" font-family=\"monospace\" "
			"font-size=\"13\">#%" PRIu64 "</text></g>\n",
			c->id, xy[0], xy[1], c->n_taxels, c->pressure,
			cx - k, cy, cx + k, cx, cy - k, cy + k,
			cx + k + 2, cy - k + 2, c->id);
	}
	fputs("</g>\n<g id=\"caption\" xml:space=\"preserve\" font-family=\"monospace\" "
	      "font-size=\"13\" "
	      "fill=\"#d0d0d8\">\n", out);
	fprintf(out, "<text x=\"8\" y=\"%.0f\">", h - caption_h + 18);
	xml_text(out, status);
	fprintf(out, "</text>\n<text x=\"8\" y=\"%.0f\">", h - caption_h + 36);
	xml_text(out, how);
	fprintf(out, "</text>\n<text x=\"8\" y=\"%.0f\">", h - caption_h + 54);
	xml_text(out, f->source ? f->source : "");
	fputs("</text>\n</g>\n</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
