// SPDX-License-Identifier: GPL-2.0
/*
 * urdf.c - urdf_tactile sensors (ubi-agni/tactile_toolbox), with libxml2
 *
 *   <robot>
 *     <sensor name=".." [group=".."] [update_rate="Hz"]>
 *       <parent link=".."/>
 *       [<origin xyz="x y z" rpy="r p y"/>]     metres, radians
 *       <tactile channel="..">
 *         <array rows cols [order] size="sx sy" [spacing] [offset]/>
 *         | <taxel idx xyz rpy><geometry>..</geometry></taxel>...
 *
 * Semantics follow the reference parser (urdf_tactile/src/parser.cpp and
 * taxel_info_iterator.cpp; docs/MODEL.md, "urdf_tactile XML"):
 *  - only <sensor> children of <robot> that have a <tactile> child count;
 *  - spacing defaults to size, offset to (0, 0), order to row-major;
 *    "col-major" (the parser) and "column-major" (its README) both mean
 *    column-major; row-major: row = idx / cols, col = idx % cols;
 *    column-major: row = idx % rows, col = idx / rows;
 *  - array taxel in the sensor frame: (row * spacing.x - offset.x,
 *    col * spacing.y - offset.y, 0), normal the sensor's z axis;
 *  - a listed taxel's pose is the sensor origin composed with its own;
 *    normal = its z axis; <geometry> and idx are required;
 *  - several <array> elements: the first counts; <taxel> elements and an
 *    <array> together: the taxels count; a second sensor of the same name
 *    is ignored.  The reference warns in these cases; here each becomes a
 *    note on the model.
 * Deliberate differences, each safer than the reference:
 *  - positions are stored in the parent link's frame (the origin applied
 *    in full); the reference leaves array positions in the sensor frame,
 *    and its compose() adds origin.x to all three coordinates (a typo:
 *    "r.position.y = a.position.x + ab.y");
 *  - a sensor that fails to parse fails the file (the reference logs it
 *    and drops the sensor), and negative integers are rejected (the
 *    reference's boost::lexical_cast<unsigned> wraps them around);
 *  - a missing channel means the sensor's own name (the reference throws;
 *    its own test file has <tactile> without a channel).
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "model-private.h"
#include "xml.h"

struct urdf_ctx {
	const char *file;
	struct skin_error *err;
	struct skin_model *m;
};

static void node_error(struct urdf_ctx *u, xmlNode *n, const char *fmt, ...)
	SKIN_PRINTF(3, 4);

static void node_error(struct urdf_ctx *u, xmlNode *n, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	skin_error_set(u->err, u->file, model_xml_line(n), 0, "<%s>: %s",
		     (const char *)n->name, what);
}

static bool is(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, BAD_CAST name);
}

static xmlNode *child(xmlNode *n, const char *name)
{
	for (n = n->children; n; n = n->next)
		if (is(n, name))
			return n;
	return NULL;
}

/* Exactly count whitespace-separated finite numbers. */
static bool parse_vec(struct urdf_ctx *u, xmlNode *n, const char *attr,
		      const char *value, double *out, unsigned int count)
{
	const char *p = value;
	unsigned int i = 0;
	char buf[400];

	while (*p) {
		char tok[64], *end;
		size_t len;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " \t\n\r");
		if (len >= sizeof(tok) || i == count)
			goto bad;
		memcpy(tok, p, len);
		tok[len] = '\0';
		errno = 0;
		out[i] = strtod(tok, &end);
		if (*end || errno == ERANGE || !isfinite(out[i]) ||
		    strpbrk(tok, "xXnNiI"))
			goto bad;
		i++;
		p += len;
	}
	if (i == count)
		return true;
bad:
	snprintf(buf, sizeof(buf), "attribute %s=\"%.80s\": expected %u numbers",
		 attr, value, count);
	node_error(u, n, "%s", buf);
	return false;
}

/* Attribute value or NULL; the caller frees with xmlFree. */
static char *attr(xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, BAD_CAST name);
}

static bool req_attr(struct urdf_ctx *u, xmlNode *n, const char *name,
		     char **out)
{
	*out = attr(n, name);
	if (!*out) {
		node_error(u, n, "expected attribute %s", name);
		return false;
	}
	return true;
}

static bool parse_uint(struct urdf_ctx *u, xmlNode *n, const char *name,
		       unsigned long max, unsigned long *out)
{
	char *v, *end;
	bool ok;

	if (!req_attr(u, n, name, &v))
		return false;
	errno = 0;
	*out = strtoul(v, &end, 10);
	ok = v[0] >= '0' && v[0] <= '9' && !*end && errno != ERANGE &&
	     *out <= max;
	if (!ok) {
		char what[200];

		snprintf(what, sizeof(what), "%s=\"%.40s\": expected an integer 0..%lu",
			 name, v, max);
		node_error(u, n, "attribute %s", what);
	}
	xmlFree(v);
	return ok;
}

struct pose {
	double t[3];
	double r[3][3];
};

/* URDF rpy: fixed axes X (roll), Y (pitch), Z (yaw): R = Rz Ry Rx. */
static void rpy_matrix(const double *rpy, double r[3][3])
{
	double cr = cos(rpy[0]), sr = sin(rpy[0]);
	double cp = cos(rpy[1]), sp = sin(rpy[1]);
	double cy = cos(rpy[2]), sy = sin(rpy[2]);

	r[0][0] = cy * cp;
	r[0][1] = cy * sp * sr - sy * cr;
	r[0][2] = cy * sp * cr + sy * sr;
	r[1][0] = sy * cp;
	r[1][1] = sy * sp * sr + cy * cr;
	r[1][2] = sy * sp * cr - cy * sr;
	r[2][0] = -sp;
	r[2][1] = cp * sr;
	r[2][2] = cp * cr;
}

static bool parse_pose(struct urdf_ctx *u, xmlNode *n, struct pose *p)
{
	double rpy[3] = { 0, 0, 0 };
	char *v;
	bool ok = true;

	memset(p->t, 0, sizeof(p->t));
	if ((v = attr(n, "xyz"))) {
		ok = parse_vec(u, n, "xyz", v, p->t, 3);
		xmlFree(v);
	}
	if (ok && (v = attr(n, "rpy"))) {
		ok = parse_vec(u, n, "rpy", v, rpy, 3);
		xmlFree(v);
	}
	rpy_matrix(rpy, p->r);
	return ok;
}

static void apply(const struct pose *p, const double *in, double *out)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		out[i] = p->r[i][0] * in[0] + p->r[i][1] * in[1] +
			 p->r[i][2] * in[2] + p->t[i];
}

static void rotate(const struct pose *p, const double *in, double *out)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		out[i] = p->r[i][0] * in[0] + p->r[i][1] * in[1] +
			 p->r[i][2] * in[2];
}

static bool part_exists(const struct skin_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->n_parts; i++)
		if (!strcmp(m->parts[i].name, name))
			return true;
	return false;
}

static bool parse_array(struct urdf_ctx *u, xmlNode *a, const char *name,
			const struct pose *origin, int link,
			struct skin_part **pp)
{
	static const double z[3] = { 0, 0, 1 };
	unsigned long rows, cols, i;
	double size[2], spacing[2], offset[2] = { 0, 0 };
	bool col_major = false;
	char *v;
	int pi;

	if (!parse_uint(u, a, "rows", SKIN_MAX_TAXELS, &rows) ||
	    !parse_uint(u, a, "cols", SKIN_MAX_TAXELS, &cols))
		return false;
	if (!rows || !cols || rows * cols > SKIN_MAX_TAXELS) {
		node_error(u, a, "expected rows and cols >= 1 and at most %u taxels",
			   SKIN_MAX_TAXELS);
		return false;
	}
	if (!req_attr(u, a, "size", &v))
		return false;
	if (!parse_vec(u, a, "size", v, size, 2)) {
		xmlFree(v);
		return false;
	}
	xmlFree(v);
	spacing[0] = size[0];
	spacing[1] = size[1];
	if ((v = attr(a, "spacing"))) {
		bool ok = parse_vec(u, a, "spacing", v, spacing, 2);

		xmlFree(v);
		if (!ok)
			return false;
	}
	if ((v = attr(a, "offset"))) {
		bool ok = parse_vec(u, a, "offset", v, offset, 2);

		xmlFree(v);
		if (!ok)
			return false;
	}
	if ((v = attr(a, "order"))) {
		if (!strcmp(v, "col-major") || !strcmp(v, "column-major")) {
			col_major = true;
		} else if (strcmp(v, "row-major")) {
			node_error(u, a, "order=\"%.60s\": expected row-major, col-major or column-major",
				   v);
			xmlFree(v);
			return false;
		}
		xmlFree(v);
	}
	pi = model_add_part(u->m, name, (unsigned int)(rows * cols));
	if (pi < 0)
		return false;
	*pp = &u->m->parts[pi];
	for (i = 0; i < rows * cols; i++) {
		struct skin_taxel *t = &u->m->taxels[(*pp)->first_taxel + i];
		unsigned long row = col_major ? i % rows : i / cols;
		unsigned long col = col_major ? i / rows : i % cols;
		double p[3] = {
			(double)row * spacing[0] - offset[0],
			(double)col * spacing[1] - offset[1],
			0.0
		};

		t->kind = SKIN_TAXEL_TACTILE;
		t->flags = SKIN_TAXEL_HAS_POS;
		t->index = (unsigned int)i;
		t->link = link;
		apply(origin, p, t->pos);
		rotate(origin, z, t->normal);
	}
	return true;
}

static bool parse_taxels(struct urdf_ctx *u, xmlNode *tac, unsigned int count,
			 const char *name, const struct pose *origin, int link,
			 struct skin_part **pp)
{
	static const double z[3] = { 0, 0, 1 };
	unsigned int i = 0;
	xmlNode *n;
	int pi;

	pi = model_add_part(u->m, name, count);
	if (pi < 0)
		return false;
	*pp = &u->m->parts[pi];
	for (n = tac->children; n; n = n->next) {
		struct skin_taxel *t;
		struct pose tp;
		unsigned long idx;
		double local[3], zt[3];

		if (!is(n, "taxel"))
			continue;
		t = &u->m->taxels[(*pp)->first_taxel + i++];
		if (!parse_pose(u, n, &tp))
			return false;
		if (!child(n, "geometry")) {
			node_error(u, n, "expected a <geometry> child");
			return false;
		}
		if (!parse_uint(u, n, "idx", SKIN_MAX_TAXELS - 1, &idx))
			return false;
		t->kind = SKIN_TAXEL_TACTILE;
		t->flags = SKIN_TAXEL_HAS_POS;
		t->index = (unsigned int)idx;
		t->link = link;
		/* sensor origin composed with the taxel's pose */
		memcpy(local, tp.t, sizeof(local));
		apply(origin, local, t->pos);
		rotate(&tp, z, zt);
		rotate(origin, zt, t->normal);
	}
	return true;
}

static bool parse_sensor(struct urdf_ctx *u, xmlNode *s, xmlNode *tac)
{
	char *name = NULL, *group = NULL, *rate = NULL, *link = NULL;
	char *channel = NULL;
	struct skin_part *p = NULL;
	xmlNode *parent, *o, *a = NULL, *n;
	unsigned int n_taxels = 0, n_arrays = 0;
	struct pose origin;
	bool ok = false;
	double hz = 0;
	int li;

	if (!req_attr(u, s, "name", &name))
		goto out;
	if (part_exists(u->m, name)) {
		if (model_note(u->m, "%s:%u: a second sensor '%s' is ignored, as the reference parser does",
			       u->file, model_xml_line(s), name))
			goto oom;
		ok = true;
		goto out;
	}
	parent = child(s, "parent");
	if (!parent) {
		node_error(u, s, "sensor '%s': expected a <parent link=\"...\"/> child",
			   name);
		goto out;
	}
	if (!req_attr(u, parent, "link", &link))
		goto out;
	memset(&origin, 0, sizeof(origin));
	rpy_matrix(origin.t, origin.r);	/* identity */
	o = child(s, "origin");
	if (o && !parse_pose(u, o, &origin))
		goto out;
	if ((rate = attr(s, "update_rate"))) {
		char *end;

		errno = 0;
		hz = strtod(rate, &end);
		if (!*rate || *end || errno || !isfinite(hz) || hz < 0 ||
		    strpbrk(rate, "xXnNiI")) {
			node_error(u, s, "update_rate=\"%.60s\": expected a rate >= 0 in hertz",
				   rate);
			goto out;
		}
	}
	group = attr(s, "group");
	channel = attr(tac, "channel");
	for (n = tac->children; n; n = n->next) {
		if (is(n, "taxel"))
			n_taxels++;
		if (is(n, "array") && !n_arrays++)
			a = n;
	}
	if (n_arrays > 1 &&
	    model_note(u->m, "%s:%u: sensor '%s' has %u <array> elements; only the first counts",
		       u->file, model_xml_line(tac), name, n_arrays))
		goto oom;
	if (n_arrays && n_taxels &&
	    model_note(u->m, "%s:%u: sensor '%s' has both <taxel> and <array> elements; the taxels count",
		       u->file, model_xml_line(tac), name))
		goto oom;
	li = model_link(u->m, link, -1);
	if (li < 0)
		goto oom;
	if (n_taxels) {
		if (!parse_taxels(u, tac, n_taxels, name, &origin, li, &p))
			goto fail_oom;
	} else if (a) {
		if (!parse_array(u, a, name, &origin, li, &p))
			goto fail_oom;
	} else {
		node_error(u, tac, "sensor '%s': expected an <array> or <taxel> elements",
			   name);
		goto out;
	}
	p->update_rate_hz = hz;
	if (model_set_str(&p->channel, channel ? channel : name) ||
	    model_set_str(&p->group, group ? group : "") ||
	    model_set_str(&p->source, u->file))
		goto oom;
	ok = true;
	goto out;
fail_oom:
	/* parse_* set the error unless they ran out of memory */
	if (u->err && u->err->what[0])
		goto out;
oom:
	skin_err_oom(u->err, u->file);
out:
	xmlFree(name);
	xmlFree(group);
	xmlFree(rate);
	xmlFree(link);
	xmlFree(channel);
	return ok;
}

struct skin_model *skin_urdf_read(const char *buf, size_t len,
				  const char *name, struct skin_error *err)
{
	struct urdf_ctx u = { name, err, NULL };
	struct skin_error local;
	xmlDocPtr doc;
	xmlNode *root, *s;

	if (!err)
		u.err = err = &local;
	err->what[0] = '\0';
	doc = model_xml_read(buf, len, name, err);
	if (!doc)
		return NULL;
	root = xmlDocGetRootElement(doc);
	if (!root || !is(root, "robot")) {
		skin_error_set(err, name, root ? model_xml_line(root) : 0, 0,
			     "expected the root element <robot>, got <%s>",
			     root ? (const char *)root->name : "nothing");
		xmlFreeDoc(doc);
		return NULL;
	}
	u.m = model_new();
	if (!u.m) {
		skin_err_oom(err, name);
		xmlFreeDoc(doc);
		return NULL;
	}
	for (s = root->children; s; s = s->next) {
		xmlNode *tac;

		if (!is(s, "sensor") || !(tac = child(s, "tactile")))
			continue;
		if (!parse_sensor(&u, s, tac)) {
			skin_model_free(u.m);
			xmlFreeDoc(doc);
			return NULL;
		}
	}
	if (!u.m->n_parts) {
		/* the line before the document that holds it is freed */
		skin_error_set(err, name, model_xml_line(root), 0,
			     "<robot> has no <sensor> with a <tactile> element: expected at least one");
		skin_model_free(u.m);
		xmlFreeDoc(doc);
		return NULL;
	}
	xmlFreeDoc(doc);
	return u.m;
}
