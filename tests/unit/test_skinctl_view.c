// SPDX-License-Identifier: GPL-2.0
/*
 * test_skinctl_view.c - the pictures of `skinctl view` and `snapshot`
 *
 * render.c on hand-made layouts (exact text frames, SVG parsed with
 * libxml2), layouts of the shipped geometry files, and the skinctl
 * program on a skinsim log: the contact it draws is where the scenario
 * pressed.  The flattening itself: test_model_flatten.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <skin/model.h>

#include "render.h"
#include "skin_clock.h"

/* Renderer output, in memory. */
struct mem {
	char *p;
	size_t len;
};

/* A text frame (@o given) or the SVG (@o NULL) into @m. */
static int render(struct mem *m, const struct view_layout *l,
		  const struct view_frame *f, const struct view_text_opts *o)
{
	FILE *out;
	int r;

	free(m->p);
	m->p = NULL;
	out = open_memstream(&m->p, &m->len);
	assert_non_null(out);
	r = o ? view_render_text(out, l, f, o) : view_render_svg(out, l, f);
	assert_int_equal(fclose(out), 0);
	return r;
}

/* --- a hand-made layout ------------------------------------------------ */

/*
 * t0 (0,0) and t1 (2,0) tactile, t2 (1,1) tactile, t3 (0,1) a thermal
 * pad, t4 (2,1) absent, t5 tactile without a position.  On an 80 x 6
 * frame (4 map rows): 3 rows per unit, 6 columns per unit, centred:
 * x = 0, 1, 2 at columns 33, 39, 45; y = 1, 0 at rows 0 and 3.
 */
static void three_taxels(struct view_layout *l)
{
	static const double x[6] = { 0, 2, 1, 0, 2, NAN };
	static const double y[6] = { 0, 0, 1, 1, 1, NAN };
	unsigned int i;

	assert_int_equal(view_layout_init(l, 6), 0);
	for (i = 0; i < 6; i++) {
		l->x[i] = x[i];
		l->y[i] = y[i];
	}
	l->kind[3] = SKIN_TAXEL_THERMAL;
	l->kind[4] = SKIN_TAXEL_ABSENT;
	l->how = SKIN_FLATTEN_FLAT;
	l->unit = SKIN_FLAT_SKINGUI;
	view_layout_finish(l);
}

static const char *spaces(unsigned int n)
{
	static char buf[8][256];
	static unsigned int k;
	char *b = buf[k++ % 8];

	memset(b, ' ', n);
	b[n] = '\0';
	return b;
}

/* how many times @needle is in @s */
static unsigned int count(const char *s, const char *needle)
{
	unsigned int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static void text_frame_exact(void **state)
{
	static const double v[6] = { 0, 200, 40, 0, 0, 0 };
	struct view_layout l;
	struct view_frame f = {
		.part = "demo", .source = "test", .sample = 7, .time_s = 1.5,
		.values = v,
	};
	struct view_text_opts o = { .cols = 80, .rows = 6 };
	struct mem b = { 0 };
	char want[1024];

	(void)state;
	three_taxels(&l);
	assert_int_equal(l.n_placed, 5);
	assert_int_equal(l.n_unplaced, 1);
	assert_true(fabs(l.spacing - 1) < 1e-12);
	assert_int_equal(render(&b, &l, &f, &o), 0);
	/* 0 '.', 40 '-' (2 + 40 * 8 / 256), 200 '%', the pad 'o' */
	snprintf(want, sizeof(want),
		 "demo  sample 7  t 1.500 s  contacts 0  max 200\n"
		 "%so%s-\n"
		 "\n"
		 "\n"
		 "%s.%s%%\n"
		 "flat layout (skinGui units), 1 taxel without a position not shown | test\n",
		 spaces(33), spaces(5), spaces(33), spaces(11));
	assert_string_equal(b.p, want);
	free(b.p);
	view_layout_free(&l);
}

/*
 * Contact 12 = {t1, t2} at 200 and 100: its centre is
 * (2 x 200 + 1 x 100, 0 x 200 + 1 x 100) / 300 = (5/3, 1/3): column
 * 33 + 10, row 2; the id right after the X.
 */
static void text_contact_mark(void **state)
{
	static const double v[6] = { 0, 200, 100, 0, 0, 0 };
	static const uint32_t taxels[2] = { 1, 2 };
	struct view_contact c = { .id = 12, .n_taxels = 2, .taxels = taxels };
	struct view_layout l;
	struct view_frame f = {
		.part = "demo", .sample = 8, .time_s = 2, .values = v,
		.n_contacts = 1, .contacts = &c, .state = "calibrating",
	};
	struct view_text_opts o = { .cols = 80, .rows = 6, .hint = "q quits" };
	struct mem b = { 0 };
	char want[1024];
	double xy[2];

	(void)state;
	three_taxels(&l);
	assert_true(view_contact_cop(&l, &f, &c, xy));
	assert_true(fabs(xy[0] - 5.0 / 3) < 1e-12 && fabs(xy[1] - 1.0 / 3) < 1e-12);
	assert_int_equal(render(&b, &l, &f, &o), 0);
	snprintf(want, sizeof(want),
		 "demo  sample 8  t 2.000 s  contacts 1 #12  max 200  [calibrating]\n"
		 "%so%s+\n"
		 "\n"
		 "%sX12\n"
		 "%s.%s%%\n"
		 "flat layout (skinGui units), 1 taxel without a position not shown | q quits\n",
		 spaces(33), spaces(5), spaces(43), spaces(33), spaces(11));
	assert_string_equal(b.p, want);

	/* the live view's line ends: the last line has no newline, so a
	 * frame as tall as the terminal does not scroll it */
	o.eol = "\033[K\n";
	o.last_eol = "\033[K";
	assert_int_equal(render(&b, &l, &f, &o), 0);
	assert_int_equal(count(b.p, "\n"), 5);
	assert_int_equal(count(b.p, "\033[K\n"), 5);
	assert_true(strlen(b.p) > 10 &&
		    !strcmp(b.p + strlen(b.p) - 10, "q quits\033[K"));
	assert_true(!strncmp(b.p, "demo  sample 8", 14));
	o.eol = NULL;
	o.last_eol = NULL;

	/* a frame too small to draw is refused, not cut */
	o.cols = 15;
	assert_int_equal(render(&b, &l, &f, &o), -1);
	free(b.p);
	view_layout_free(&l);
}

/* Colour: the same cells, backgrounds from the ramp; lines end reset. */
/*
 * The mark is where skind's evdev device puts the contact: the same
 * weighting (skin_flatten_centroid(): each taxel weighs its value, at
 * least 1) over the same flattening.  Contact 7 = {t0, t1, t2} at 0, 200
 * and 0.5: t0 and t2 weigh 1 each, t1 200, so its centre is
 * (0 + 400 + 1, 0 + 0 + 1) / 202; weighing them 0 and 0.5, as the view
 * did, drew it elsewhere than evdev reports it.
 */
static void contact_mark_as_evdev(void **state)
{
	static const double v[6] = { 0, 200, 0.5, 0, 0, 0 };
	static const uint32_t taxels[3] = { 0, 1, 2 };
	static const double zero[6];
	struct view_contact c = { .id = 7, .n_taxels = 3, .taxels = taxels };
	struct view_layout l;
	struct view_frame f = { .part = "demo", .values = v, .n_contacts = 1,
				.contacts = &c };
	struct skin_flattening flat;
	double xy[2], want[2];

	(void)state;
	three_taxels(&l);
	flat = (struct skin_flattening){ .n = l.n, .x = l.x, .y = l.y,
					 .how = l.how, .unit = l.unit };
	assert_true(skin_flatten_centroid(&flat, taxels, 3, v, want));
	assert_true(view_contact_cop(&l, &f, &c, xy));
	assert_true(fabs(xy[0] - 401.0 / 202) < 1e-12 && fabs(xy[1] - 1.0 / 202) < 1e-12);
	assert_true(xy[0] == want[0] && xy[1] == want[1]);

	/* all quiet: every taxel weighs 1, the plain mean */
	f.values = zero;
	assert_true(view_contact_cop(&l, &f, &c, xy));
	assert_true(fabs(xy[0] - 1) < 1e-12 && fabs(xy[1] - 1.0 / 3) < 1e-12);
	/* no values: the same */
	f.values = NULL;
	assert_true(view_contact_cop(&l, &f, &c, xy));
	assert_true(fabs(xy[0] - 1) < 1e-12 && fabs(xy[1] - 1.0 / 3) < 1e-12);
	view_layout_free(&l);
}

static void text_colour(void **state)
{
	static const double v[6] = { 0, 255, 0, 0, 0, 0 };
	struct view_layout l;
	struct view_frame f = { .part = "demo", .values = v };
	struct view_text_opts o = { .cols = 80, .rows = 6, .color = VIEW_COLOR_256 };
	struct mem b = { 0 };
	uint8_t rgb[3];
	char want[128];

	(void)state;
	three_taxels(&l);
	assert_int_equal(render(&b, &l, &f, &o), 0);
	view_ramp(255, rgb);
	assert_int_equal(rgb[0], 255);
	assert_int_equal(rgb[1], 255);
	assert_int_equal(rgb[2], 210);
	/* (255, 255, 210): the cube's (5, 5, 4) = 16 + 180 + 30 + 4 */
	assert_non_null(strstr(b.p, "\033[0;48;5;230m \033[0m\n"));
	assert_non_null(strstr(b.p, "\033[0;38;5;240m.\033[0m"));
	assert_non_null(strstr(b.p, "\033[0;38;5;67mo\033[0m"));
	o.color = VIEW_COLOR_TRUE;
	assert_int_equal(render(&b, &l, &f, &o), 0);
	snprintf(want, sizeof(want), "\033[0;48;2;%u;%u;%um \033[0m\n", rgb[0], rgb[1], rgb[2]);
	assert_non_null(strstr(b.p, want));
	free(b.p);
	view_layout_free(&l);
}

/* --- SVG --------------------------------------------------------------- */

static int xpath_count(xmlXPathContextPtr ctx, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	int n;

	assert_non_null(o);
	n = o->nodesetval ? o->nodesetval->nodeNr : 0;
	xmlXPathFreeObject(o);
	return n;
}

static char *xpath_string(xmlXPathContextPtr ctx, const char *expr)
{
	char q[256];
	xmlXPathObjectPtr o;
	char *s;

	snprintf(q, sizeof(q), "string(%s)", expr);
	o = xmlXPathEvalExpression((const xmlChar *)q, ctx);
	assert_non_null(o);
	s = strdup((const char *)o->stringval);
	xmlXPathFreeObject(o);
	return s;
}

static xmlDocPtr svg_parse(const struct mem *b, xmlXPathContextPtr *ctx)
{
	xmlDocPtr doc = xmlReadMemory(b->p, (int)b->len, "snapshot.svg", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR |
				      XML_PARSE_NOWARNING);

	assert_non_null(doc);
	assert_string_equal((const char *)xmlDocGetRootElement(doc)->name, "svg");
	*ctx = xmlXPathNewContext(doc);
	assert_non_null(*ctx);
	xmlXPathRegisterNs(*ctx, (const xmlChar *)"s",
			   (const xmlChar *)"http://www.w3.org/2000/svg");
	return doc;
}

static void svg_document(void **state)
{
	static const double v[6] = { 0, 200, 100, 0, 0, 0 };
	static const uint8_t touched[6] = { 0, 1, 1, 0, 0, 0 };
	static const uint32_t taxels[2] = { 1, 2 };
	struct view_contact c = { .id = 12, .n_taxels = 2, .taxels = taxels };
	struct view_layout l;
	struct view_frame f = {
		.part = "a<b&c", .source = "log \"x\".log", .sample = 8,
		.time_s = 2, .values = v, .touched = touched,
		.n_contacts = 1, .contacts = &c,
	};
	struct mem b = { 0 };
	xmlXPathContextPtr ctx;
	xmlDocPtr doc;
	uint8_t rgb[3];
	char fill[8], *s;

	(void)state;
	three_taxels(&l);
	assert_int_equal(render(&b, &l, &f, NULL), 0);
	doc = svg_parse(&b, &ctx);
	assert_int_equal(xpath_count(ctx, "//s:circle"), 5);	/* placed ones */
	assert_int_equal(xpath_count(ctx, "//s:circle[starts-with(@class,'tactile')]"), 3);
	assert_int_equal(xpath_count(ctx, "//s:circle[@class='tactile touched']"), 2);
	assert_int_equal(xpath_count(ctx, "//s:circle[@class='thermal']"), 1);
	assert_int_equal(xpath_count(ctx, "//s:circle[@class='absent' and @fill='none']"), 1);
	assert_int_equal(xpath_count(ctx, "//s:circle[@id='t5']"), 0);
	/* fills from the ramp */
	view_ramp(200, rgb);
	snprintf(fill, sizeof(fill), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
	s = xpath_string(ctx, "//s:circle[@id='t1']/@fill");
	assert_string_equal(s, fill);
	free(s);
	view_ramp(0, rgb);
	snprintf(fill, sizeof(fill), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
	s = xpath_string(ctx, "//s:circle[@id='t0']/@fill");
	assert_string_equal(s, fill);
	free(s);
	/* radius: 0.45 x the spacing (1 unit = 28 px) */
	s = xpath_string(ctx, "//s:circle[@id='t0']/@r");
	assert_string_equal(s, "12.60");
	free(s);
	/* t1 is 2 units right of t0 */
	{
		char *a = xpath_string(ctx, "//s:circle[@id='t0']/@cx");
		char *c1 = xpath_string(ctx, "//s:circle[@id='t1']/@cx");

		assert_true(fabs(atof(c1) - atof(a) - 56) < 0.02);
		free(a);
		free(c1);
	}
	/* one contact: a cross and its id, at its layout position */
	assert_int_equal(xpath_count(ctx, "//s:g[@class='contact']"), 1);
	assert_int_equal(xpath_count(ctx, "//s:g[@class='contact']/s:path"), 1);
	s = xpath_string(ctx, "//s:g[@class='contact']/s:text");
	assert_string_equal(s, "#12");
	free(s);
	s = xpath_string(ctx, "//s:g[@class='contact']/@data-x");
	assert_true(fabs(atof(s) - 5.0 / 3) < 1e-6);
	free(s);
	/* the caption, with the names escaped */
	s = xpath_string(ctx, "//s:g[@id='caption']/s:text[1]");
	assert_string_equal(s, "a<b&c  sample 8  t 2.000 s  contacts 1 #12  max 200");
	free(s);
	s = xpath_string(ctx, "//s:g[@id='caption']/s:text[3]");
	assert_string_equal(s, "log \"x\".log");
	free(s);
	s = xpath_string(ctx, "/s:svg/s:title");
	assert_string_equal(s, "skin a<b&c");
	free(s);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	free(b.p);
	view_layout_free(&l);
}

/* --- layouts of the shipped files ---------------------------------------- */

static struct skin_model *load(const char *rel)
{
	char path[1024];
	struct skin_error err;
	struct skin_model *m;

	snprintf(path, sizeof(path), "%s/%s", SKIN_SOURCE_ROOT, rel);
	m = skin_model_load(path, SKIN_FORMAT_AUTO, &err);
	if (!m)
		fail_msg("%s", err.text);
	return m;
}

static void layouts_of_files(void **state)
{
	struct skin_model *m;
	struct view_layout l;
	char why[512];

	(void)state;
	/* skinGui: flat, every taxel of the forearm placed */
	m = load("tests/data/icub/skinGui/left_forearm_V2.ini");
	assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_AUTO, why, sizeof(why)), 0);
	assert_int_equal(l.how, SKIN_FLATTEN_FLAT);
	assert_int_equal(l.unit, SKIN_FLAT_SKINGUI);
	assert_int_equal(l.n, 384);
	assert_int_equal(l.n_unplaced, 0);
	assert_true(l.spacing > 0);
	view_layout_free(&l);
	skin_model_free(m);

	/* the upper arm's normals are placeholders, but its positions wrap
	 * most of the way around the arm */
	m = load("tests/data/icub/positions/left_arm.txt");
	assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_AUTO, why, sizeof(why)), 0);
	assert_int_equal(l.how, SKIN_FLATTEN_CYLINDER);
	assert_true(l.radius > 0.035 && l.radius < 0.05);
	view_layout_free(&l);
	skin_model_free(m);

	/* positions: the forearm's normals wrap around its axis: unrolled,
	 * the 240 tactile taxels with a position */
	m = load("tests/data/icub/positions/left_forearm_V2.txt");
	assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_AUTO, why, sizeof(why)), 0);
	assert_int_equal(l.how, SKIN_FLATTEN_CYLINDER);
	assert_int_equal(l.n_placed, 240);
	assert_int_equal(l.n_unplaced, 0);
	/* an iCub forearm is some 7-8 cm across */
	assert_true(l.radius > 0.03 && l.radius < 0.045);
	/* neighbours on the forearm are some 4-6 mm apart */
	assert_true(l.spacing > 0.002 && l.spacing < 0.008);
	view_layout_free(&l);
	/* or projected on a plane when asked */
	assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_TO_PLANE, why, sizeof(why)), 0);
	assert_int_equal(l.how, SKIN_FLATTEN_PLANE);
	assert_int_equal(l.n_placed, 240);
	view_layout_free(&l);
	skin_model_free(m);

	/* the palm is flat: a plane, and no cylinder to unroll */
	m = load("tests/data/icub/positions/left_hand_V2_1.txt");
	assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_AUTO, why, sizeof(why)), 0);
	assert_int_equal(l.how, SKIN_FLATTEN_PLANE);
	assert_int_equal(l.n_placed, 48);
	assert_int_equal(l.n_unplaced, 60);	/* fingertips: no position */
	view_layout_free(&l);
	assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_TO_CYLINDER, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "does not wrap around an axis"));
	skin_model_free(m);

	/* a layout alone has no position: nothing to draw, said why */
	{
		struct skin_error err;

		m = skin_model_builtin("hand_v2_1", &err);
		assert_non_null(m);
		assert_int_equal(view_layout_build(&l, m, 0, SKIN_FLATTEN_AUTO, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "neither flattened nor 3D taxel positions"));
		skin_model_free(m);
	}
}

/* --- skinctl on a skinsim log -------------------------------------------- */

static char dir[] = "/tmp/test_view_XXXXXX";

static const char *tmp(const char *name)
{
	static char buf[8][256];
	static unsigned int k;
	char *b = buf[k++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

struct run {
	char out[1 << 16];
	char err[8192];
	int status;
};

static void run(struct run *r, const char *fmt, ...)
{
	char args[2048], cmd[4096];
	va_list ap;
	FILE *p;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s 2>%s", SKINCTL, args, tmp("err"));
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = '\0';
	r->status = WEXITSTATUS(pclose(p));
	p = fopen(tmp("err"), "r");
	assert_non_null(p);
	n = fread(r->err, 1, sizeof(r->err) - 1, p);
	r->err[n] = '\0';
	fclose(p);
}

static char conf[1024];

/* 8 s of the left arm of sim-vcan.conf (calibration: the first 5 s), a
 * finger on forearm taxel 300 from 6 s on. */
static int setup_log(void **state)
{
	char cmd[2048];
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(conf, sizeof(conf), "%s/etc/examples/sim-vcan.conf", SKIN_SOURCE_ROOT);
	f = fopen(tmp("press.scn"), "w");
	if (!f)
		return -1;
	fprintf(f, "config %s\nseed 5\nduration 8s\n"
		"at 6s press left_forearm taxel 300 radius 12mm force 90 name f\n", conf);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s --log %s --fast --epoch 1000 %s 2>%s",
		 SKINSIM_PATH, tmp("press.log"), tmp("press.scn"), tmp("err"));
	return system(cmd) ? -1 : 0;
}

static int teardown_log(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The layout skinctl draws: the forearm of the config, projected. */
static void forearm_layout(struct view_layout *l)
{
	struct skin_error err;
	struct skin_config *c = skin_config_load(conf, &err);
	struct skin_model *m;
	char why[512];
	int part;

	assert_non_null(c);
	m = skin_config_build_model(c, &err);
	assert_non_null(m);
	part = m->n_parts > 1 && !strcmp(m->parts[1].name, "left_forearm") ? 1 : -1;
	assert_int_equal(part, 1);
	assert_int_equal(view_layout_build(l, m, 1, SKIN_FLATTEN_AUTO, why, sizeof(why)), 0);
	skin_model_free(m);
	skin_config_free(c);
}

static void slurp(struct mem *b, const char *path)
{
	FILE *f = fopen(path, "r");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b->p = realloc(b->p, (size_t)n + 1);
	assert_non_null(b->p);
	assert_int_equal(fread(b->p, 1, (size_t)n, f), (size_t)n);
	b->p[n] = '\0';
	b->len = (size_t)n;
	fclose(f);
}

static unsigned int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned int n = 0;
	int c;

	assert_non_null(f);
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void find_char(const char *text, char ch, int *row, int *col)
{
	const char *p = strchr(text, ch), *line = text;
	int r = 0;

	assert_non_null(p);
	for (const char *q = text; q < p; q++)
		if (*q == '\n') {
			r++;
			line = q + 1;
		}
	*row = r;
	*col = (int)(p - line);
}

static void offline_press(void **state)
{
	static struct run r;
	struct view_layout l;
	xmlXPathContextPtr ctx;
	struct mem b = { 0 };
	xmlDocPtr doc;
	double x, y;
	char *s;

	(void)state;
	forearm_layout(&l);

	/* the end of the log: the finger is down on taxel 300 */
	run(&r, "snapshot left_forearm --config %s --log %s --svg %s", conf,
	    tmp("press.log"), tmp("end.svg"));
	if (r.status)
		fail_msg("exit %d: %s", r.status, r.err);
	assert_non_null(strstr(r.err, "part left_forearm calibrated"));
	slurp(&b, tmp("end.svg"));
	doc = svg_parse(&b, &ctx);
	assert_int_equal(xpath_count(ctx, "//s:circle"), 240);
	assert_int_equal(xpath_count(ctx, "//s:g[@class='contact']"), 1);
	s = xpath_string(ctx, "//s:g[@class='contact']/@data-x");
	x = atof(s);
	free(s);
	s = xpath_string(ctx, "//s:g[@class='contact']/@data-y");
	y = atof(s);
	free(s);
	/* within the finger's 12 mm of taxel 300 (on the layout's plane) */
	assert_true(hypot(x - l.x[300], y - l.y[300]) < 0.012);
	/* the pressed taxel is drawn hot, a far one idle */
	s = xpath_string(ctx, "//s:circle[@id='t300']/@class");
	assert_string_equal(s, "tactile touched");
	free(s);
	s = xpath_string(ctx, "//s:g[@id='caption']/s:text[2]");
	/* forearm_v2's 48 pads have no position in the positions file */
	assert_string_equal(s, "3D positions unrolled from their best-fit cylinder (radius 37 mm), "
			    "48 taxels without a position not shown");
	free(s);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);

	/* the terminal: its X where taxel 300 alone would be drawn */
	run(&r, "view left_forearm --config %s --log %s --once --no-color --size 100x30",
	    conf, tmp("press.log"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "left_forearm  sample 120  t 1007."));
	assert_non_null(strstr(r.out, "contacts 1 #1  max 100  [end of log]"));
	{
		double v[384] = { 0 };
		struct view_frame f = { .part = "left_forearm", .values = v };
		struct view_text_opts o = { .cols = 100, .rows = 30 };
		int xr, xc, tr, tc;

		v[300] = 255;
			assert_int_equal(render(&b, &l, &f, &o), 0);
		find_char(b.p, '@', &tr, &tc);
		find_char(r.out, 'X', &xr, &xc);
		assert_true(abs(xr - tr) <= 1 && abs(xc - tc) <= 3);
	}

	/* sample 10 is before the press (the 5 s calibration ends at 100
	 * samples of each board) */
	run(&r, "view left_forearm --config %s --log %s --once --sample 10 --size 80x10",
	    conf, tmp("press.log"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "left_forearm  sample 10  t 1005."));
	assert_non_null(strstr(r.out, "contacts 0  max 0\n"));
	assert_null(strchr(r.out, 'X'));

	free(b.p);
	view_layout_free(&l);
}

/* Read the pty until @marker appears after @since or @ms pass. */
static bool pty_until(int fd, struct mem *m, size_t cap, size_t since,
		      const char *marker, int ms)
{
	uint64_t t0 = clock_monotonic_ns();

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (m->len > since && strstr(m->p + since, marker))
			return true;
		if (clock_monotonic_ns() - t0 > (uint64_t)ms * 1000000)
			return false;
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = read(fd, m->p + m->len, cap - 1 - m->len);
		if (n <= 0)
			return m->len > since && strstr(m->p + since, marker);
		m->len += (size_t)n;
		m->p[m->len] = '\0';
	}
}

/*
 * Live on a terminal, from a log: the alternate screen, the log played at
 * its pace from sample 100 to its end (20 samples of 2 boards at 50 ms:
 * half a second), q quits and gives the terminal back.
 */
static void live_playback(void **state)
{
	const size_t cap = 1 << 20;
	struct mem m = { .p = malloc(cap) };
	char cmd[2400];
	int fd, st;
	pid_t pid;

	(void)state;
	assert_non_null(m.p);
	m.p[0] = '\0';
	snprintf(cmd, sizeof(cmd), "exec %s view left_forearm --config %s --log %s --sample 100 "
		 "--rate 50 --size 90x30 2>/dev/null", SKINCTL, conf, tmp("press.log"));
	pid = forkpty(&fd, NULL, NULL, NULL);
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	assert_true(pty_until(fd, &m, cap, 0, "left_forearm  sample 100 ", 10000));
	assert_memory_equal(m.p, "\033[?1049h\033[?25l", 14);
	/* played on, to the end of the log, in colour */
	assert_true(pty_until(fd, &m, cap, 0, "sample 120 ", 10000));
	assert_true(pty_until(fd, &m, cap, 0, "[end of log]", 10000));
	assert_non_null(strstr(m.p, "\033[0;48;5;"));
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);	/* still up */
	assert_int_equal(write(fd, "q", 1), 1);
	assert_true(pty_until(fd, &m, cap, 0, "\033[?25h\033[?1049l", 10000));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(fd);
	free(m.p);
}

static void bad_input(void **state)
{
	static struct run r;

	(void)state;
	run(&r, "view nosuch --config %s --log %s --once", conf, tmp("press.log"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "skinctl view: no part 'nosuch' in "));
	run(&r, "view left_forearm --config %s --log %s --once --sample 100000", conf,
	    tmp("press.log"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "--sample 100000: the log has 120 output samples of part left_forearm"));
	run(&r, "view left_forearm --log %s --once", tmp("press.log"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--log needs --config"));
	run(&r, "view left_forearm --config %s --log %s --once --size 10x2", conf,
	    tmp("press.log"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--size '10x2': expected WxH"));
	run(&r, "snapshot left_forearm --config %s --log %s", conf, tmp("press.log"));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--svg FILE is required"));
	run(&r, "view left_forearm --config %s --log /nonexistent.log --once", conf);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "/nonexistent.log"));
	/* no daemon at this socket */
	run(&r, "view left_forearm --config %s --socket %s --once", conf, tmp("none.sock"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cannot reach skind at "));
	/* a bad line is said, skipped, and the exit status says so */
	{
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "(cat %s; echo garbage) > %s", tmp("press.log"),
			 tmp("bad.log"));
		assert_int_equal(system(cmd), 0);
	}
	run(&r, "view left_forearm --config %s --log %s --once", conf, tmp("bad.log"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.out, "contacts 1 #1"));
	{
		char where[64];

		snprintf(where, sizeof(where), "bad.log:%u:1: ", count_lines(tmp("press.log")) + 1);
		if (!strstr(r.err, where))
			fail_msg("want %s in: %s", where, r.err);
	}
	run(&r, "view --help");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "--log LOG [--sample N]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_frame_exact),
		cmocka_unit_test(text_contact_mark),
		cmocka_unit_test(contact_mark_as_evdev),
		cmocka_unit_test(text_colour),
		cmocka_unit_test(svg_document),
		cmocka_unit_test(layouts_of_files),
		cmocka_unit_test(offline_press),
		cmocka_unit_test(live_playback),
		cmocka_unit_test(bad_input),
	};

	return cmocka_run_group_tests(tests, setup_log, teardown_log);
}
