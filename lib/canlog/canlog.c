// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * canlog.c - can-utils' `candump -l` log format (skin/canlog.h)
 *
 * The grammar is can-utils' (lib.c: parse_canframe, sprint_canframe), made
 * strict where can-utils is lax: can-utils reads an 11-bit id of 0xfff, a
 * data byte written as one digit at the end of a line, any number of
 * fractional digits in the timestamp and any junk line as a comment.  A
 * recording that went through a bad disk or a bad copy must be noticed,
 * so each of those is an error with its line and column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <skin/canlog.h>

struct skin_canlog {
	FILE *f;
	bool owns_f;
	bool failed;		/* read error reported: the log is over */
	char *name;
	char *buf;		/* getline() buffer */
	size_t cap;
	unsigned int line;
};

/* ---- parsing one line ---------------------------------------------- */

struct cursor {
	const char *s;
	size_t len;
	size_t pos;
	const char *name;
	unsigned int line;
	struct skin_error *err;
};

static int cur_peek(const struct cursor *c)
{
	return c->pos < c->len ? (unsigned char)c->s[c->pos] : -1;
}

static int fail(struct cursor *c, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct cursor *c, size_t pos, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	skin_error_set(c->err, c->name, c->line, (unsigned int)pos + 1, "%s", what);
	return -1;
}

/* What a character is, for messages: "'x'", "end of line", "byte 0x01". */
static const char *describe(const struct cursor *c, char *buf, size_t len)
{
	int ch = cur_peek(c);

	if (ch < 0)
		snprintf(buf, len, "end of line");
	else if (ch > 0x20 && ch < 0x7f)
		snprintf(buf, len, "'%c'", ch);
	else if (ch == ' ' || ch == '\t')
		snprintf(buf, len, "a blank");
	else
		snprintf(buf, len, "byte 0x%02x", (unsigned int)ch);
	return buf;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static bool is_blank(int ch)
{
	return ch == ' ' || ch == '\t';
}

static void skip_blanks(struct cursor *c)
{
	while (is_blank(cur_peek(c)))
		c->pos++;
}

/* "(SEC.USEC)" with exactly six fractional digits. */
static int parse_timestamp(struct cursor *c, uint64_t *ts_ns)
{
	uint64_t sec = 0, usec = 0;
	size_t start;
	char d[32];
	int i;

	c->pos++;			/* '(' */
	start = c->pos;
	while (cur_peek(c) >= '0' && cur_peek(c) <= '9') {
		unsigned int v = (unsigned int)(cur_peek(c) - '0');

		if (sec > (UINT64_MAX / 1000000000ULL - v) / 10)
			return fail(c, start, "timestamp seconds out of range");
		sec = sec * 10 + v;
		c->pos++;
	}
	if (c->pos == start)
		return fail(c, c->pos, "expected the timestamp's seconds, found %s",
			    describe(c, d, sizeof(d)));
	if (cur_peek(c) != '.')
		return fail(c, c->pos, "expected '.' in the timestamp, found %s",
			    describe(c, d, sizeof(d)));
	c->pos++;
	for (i = 0; i < 6; i++) {
		int ch = cur_peek(c);

		if (ch < '0' || ch > '9')
			return fail(c, c->pos,
				    "timestamp needs 6 fractional digits (microseconds), found %s",
				    describe(c, d, sizeof(d)));
		usec = usec * 10 + (uint64_t)(ch - '0');
		c->pos++;
	}
	if (cur_peek(c) >= '0' && cur_peek(c) <= '9')
		return fail(c, c->pos,
			    "timestamp has more than 6 fractional digits");
	if (cur_peek(c) != ')')
		return fail(c, c->pos, "expected ')' after the timestamp, found %s",
			    describe(c, d, sizeof(d)));
	c->pos++;
	*ts_ns = sec * 1000000000ULL + usec * 1000ULL;
	return 0;
}

static int expect_blanks(struct cursor *c, const char *before)
{
	char d[32];

	if (!is_blank(cur_peek(c)))
		return fail(c, c->pos, "expected a blank before %s, found %s",
			    before, describe(c, d, sizeof(d)));
	skip_blanks(c);
	return 0;
}

static int parse_ifname(struct cursor *c, char ifname[IFNAMSIZ])
{
	size_t start = c->pos, n;
	char d[32];
	int ch;

	while ((ch = cur_peek(c)) > 0x20 && ch < 0x7f)
		c->pos++;
	n = c->pos - start;
	if (n == 0)
		return fail(c, c->pos, "expected an interface name, found %s",
			    describe(c, d, sizeof(d)));
	if (n >= IFNAMSIZ)
		return fail(c, start, "interface name longer than %d characters",
			    IFNAMSIZ - 1);
	memcpy(ifname, c->s + start, n);
	ifname[n] = '\0';
	return 0;
}

static bool fd_len_valid(unsigned int n)
{
	return n <= 8 || n == 12 || n == 16 || n == 20 || n == 24 ||
	       n == 32 || n == 48 || n == 64;
}

/* The frame token: ID#DATA, ID#R[DLC], ID##FLAGSDATA. */
static int parse_frame(struct cursor *c, struct skin_canlog_record *r)
{
	struct canfd_frame *f = &r->frame;
	size_t start = c->pos, ndig;
	unsigned int max, n = 0;
	uint32_t id = 0;
	char d[32];
	int v;

	while ((v = hexval(cur_peek(c))) >= 0 && c->pos - start < 9) {
		id = (id << 4) | (uint32_t)v;
		c->pos++;
	}
	ndig = c->pos - start;
	if (ndig == 0)
		return fail(c, c->pos, "expected a CAN id, found %s",
			    describe(c, d, sizeof(d)));
	if (cur_peek(c) != '#') {
		if (ndig > 8 || hexval(cur_peek(c)) >= 0)
			return fail(c, start,
				    "CAN id must have 3 (standard) or 8 (extended) hex digits");
		return fail(c, c->pos, "expected '#' after the CAN id, found %s",
			    describe(c, d, sizeof(d)));
	}
	if (ndig == 3) {
		if (id > CAN_SFF_MASK)
			return fail(c, start, "standard id 0x%03X above 0x7FF", id);
		f->can_id = id;
	} else if (ndig == 8) {
		if (id & CAN_ERR_FLAG) {
			if (id & (CAN_EFF_FLAG | CAN_RTR_FLAG))
				return fail(c, start,
					    "error frame id 0x%08X has the EFF or RTR bit set", id);
			f->can_id = id;
		} else if (id > CAN_EFF_MASK) {
			return fail(c, start, "extended id 0x%08X above 0x1FFFFFFF", id);
		} else {
			f->can_id = id | CAN_EFF_FLAG;
		}
	} else {
		return fail(c, start,
			    "CAN id must have 3 (standard) or 8 (extended) hex digits");
	}
	c->pos++;			/* '#' */

	if (cur_peek(c) == 'R' || cur_peek(c) == 'r') {
		if (f->can_id & CAN_ERR_FLAG)
			return fail(c, c->pos, "an error frame cannot be a remote request");
		f->can_id |= CAN_RTR_FLAG;
		c->pos++;
		v = cur_peek(c);
		if (v >= '0' && v <= '9') {
			if (v > '8')
				return fail(c, c->pos, "remote request DLC %c above 8", v);
			f->len = (uint8_t)(v - '0');
			c->pos++;
		}
		return 0;
	}

	max = CAN_MAX_DLEN;
	if (cur_peek(c) == '#') {
		if (f->can_id & CAN_ERR_FLAG)
			return fail(c, c->pos, "an error frame cannot be CAN FD");
		c->pos++;
		v = hexval(cur_peek(c));
		if (v < 0)
			return fail(c, c->pos,
				    "expected the CAN FD flags (one hex digit), found %s",
				    describe(c, d, sizeof(d)));
		f->flags = (uint8_t)v;
		r->is_fd = true;
		max = CANFD_MAX_DLEN;
		c->pos++;
	}

	for (;;) {
		int hi, lo;

		if (cur_peek(c) == '.' && n > 0)
			c->pos++;
		hi = hexval(cur_peek(c));
		if (hi < 0)
			break;
		if (n == max)
			return fail(c, c->pos, "more than %u data bytes", max);
		lo = c->pos + 1 < c->len ? hexval((unsigned char)c->s[c->pos + 1]) : -1;
		if (lo < 0)
			return fail(c, c->pos, "data byte needs two hex digits");
		f->data[n++] = (uint8_t)(hi << 4 | lo);
		c->pos += 2;
	}
	if (r->is_fd && !fd_len_valid(n))
		return fail(c, start, "CAN FD length %u is not one a DLC can encode", n);
	f->len = (uint8_t)n;

	if (cur_peek(c) == '_' && !r->is_fd && n == CAN_MAX_DLEN) {
		c->pos++;
		v = hexval(cur_peek(c));
		if (v < 9)
			return fail(c, c->pos,
				    "expected a raw DLC 9..F after '_', found %s",
				    describe(c, d, sizeof(d)));
		r->len8_dlc = (uint8_t)v;
		c->pos++;
	}
	return 0;
}

int skin_canlog_parse_line(const char *line, size_t len, const char *name,
			   unsigned int lineno, struct skin_canlog_record *r,
			   struct skin_error *err)
{
	struct cursor c = {
		.s = line, .len = len, .name = name, .line = lineno, .err = err,
	};
	char d[32];
	int ch;

	while (c.len && (line[c.len - 1] == '\n' || line[c.len - 1] == '\r'))
		c.len--;
	memset(r, 0, sizeof(*r));
	r->line = lineno;

	skip_blanks(&c);
	if (cur_peek(&c) < 0 || cur_peek(&c) == '#')
		return 0;			/* blank or comment */
	if (c.pos != 0)
		return fail(&c, c.pos,
			    "a frame line must start with '(' in column 1");
	if (cur_peek(&c) != '(')
		return fail(&c, c.pos,
			    "expected '(' and a timestamp, found %s (comments start with '#')",
			    describe(&c, d, sizeof(d)));
	if (parse_timestamp(&c, &r->ts_ns) < 0 ||
	    expect_blanks(&c, "the interface name") < 0 ||
	    parse_ifname(&c, r->ifname) < 0 ||
	    expect_blanks(&c, "the frame") < 0 ||
	    parse_frame(&c, r) < 0)
		return -1;

	ch = cur_peek(&c);
	if (ch >= 0 && !is_blank(ch))
		return fail(&c, c.pos, "unexpected %s in the frame",
			    describe(&c, d, sizeof(d)));
	skip_blanks(&c);
	/* candump -x: a direction after the frame */
	ch = cur_peek(&c);
	if ((ch == 'R' || ch == 'T') &&
	    (c.pos + 1 == c.len || is_blank((unsigned char)line[c.pos + 1]))) {
		c.pos++;
		skip_blanks(&c);
	}
	if (cur_peek(&c) >= 0)
		return fail(&c, c.pos, "unexpected %s after the frame",
			    describe(&c, d, sizeof(d)));
	return 1;
}

/* ---- reading a file ------------------------------------------------ */

struct skin_canlog *skin_canlog_open_stream(FILE *f, const char *name,
					    struct skin_error *err)
{
	struct skin_canlog *l = calloc(1, sizeof(*l));

	if (!l || !(l->name = strdup(name ? name : "(stream)"))) {
		free(l);
		skin_error_set(err, name, 0, 0, "out of memory");
		return NULL;
	}
	l->f = f;
	return l;
}

struct skin_canlog *skin_canlog_open(const char *path, struct skin_error *err)
{
	struct skin_canlog *l;
	bool is_stdin = strcmp(path, "-") == 0;
	/* a log may come through a FIFO (or `<(candump -L can0)`): a
	 * stream, as stdin is; devices, directories and sockets are refused */
	FILE *f = is_stdin ? stdin : skin_file_fopen(path, SKIN_FILE_STREAM, err);

	if (!f)
		return NULL;
	l = skin_canlog_open_stream(f, is_stdin ? "(stdin)" : path, err);
	if (!l) {
		if (!is_stdin)
			fclose(f);
		return NULL;
	}
	l->owns_f = !is_stdin;
	return l;
}

int skin_canlog_next(struct skin_canlog *l, struct skin_canlog_record *r,
		     struct skin_error *err)
{
	for (;;) {
		ssize_t n;
		int ret;

		if (l->failed)
			return 0;
		errno = 0;
		n = getline(&l->buf, &l->cap, l->f);
		if (n < 0) {
			if (ferror(l->f)) {
				l->failed = true;
				skin_error_set(err, l->name, 0, 0, "read error after line %u: %s",
					l->line, strerror(errno ? errno : EIO));
				return -1;
			}
			return 0;
		}
		l->line++;
		if (n > SKIN_CANLOG_LINE_MAX) {
			skin_error_set(err, l->name, l->line, 0,
				"line longer than %d characters", SKIN_CANLOG_LINE_MAX);
			return -1;
		}
		ret = skin_canlog_parse_line(l->buf, (size_t)n, l->name, l->line,
					     r, err);
		if (ret != 0)
			return ret;
	}
}

unsigned int skin_canlog_line(const struct skin_canlog *l)
{
	return l->line;
}

void skin_canlog_close(struct skin_canlog *l)
{
	if (!l)
		return;
	if (l->owns_f)
		fclose(l->f);
	free(l->buf);
	free(l->name);
	free(l);
}

/* ---- writing ------------------------------------------------------- */

static const char hexdig[] = "0123456789ABCDEF";

int skin_canlog_format(char *buf, size_t len,
		       const struct skin_canlog_record *r)
{
	const struct canfd_frame *f = &r->frame;
	char tmp[SKIN_CANLOG_LINE_MAX];
	size_t iflen = strnlen(r->ifname, IFNAMSIZ);
	canid_t id = f->can_id;
	unsigned int i;
	int n;

	if (iflen == 0 || iflen >= IFNAMSIZ)
		return -1;
	for (i = 0; i < iflen; i++)
		if ((unsigned char)r->ifname[i] <= 0x20 ||
		    (unsigned char)r->ifname[i] >= 0x7f)
			return -1;
	if (r->is_fd ? f->len > CANFD_MAX_DLEN || !fd_len_valid(f->len) ||
		       (id & (CAN_RTR_FLAG | CAN_ERR_FLAG)) || f->flags > 0xf
		     : f->len > CAN_MAX_DLEN)
		return -1;

	n = snprintf(tmp, sizeof(tmp), "(%010llu.%06llu) %s ",
		     (unsigned long long)(r->ts_ns / 1000000000ULL),
		     (unsigned long long)(r->ts_ns % 1000000000ULL / 1000ULL),
		     r->ifname);
	if (id & CAN_ERR_FLAG)
		n += snprintf(tmp + n, sizeof(tmp) - n, "%08X#",
			      id & (CAN_ERR_MASK | CAN_ERR_FLAG));
	else if (id & CAN_EFF_FLAG)
		n += snprintf(tmp + n, sizeof(tmp) - n, "%08X#", id & CAN_EFF_MASK);
	else if ((id & CAN_EFF_MASK) > CAN_SFF_MASK)
		return -1;
	else
		n += snprintf(tmp + n, sizeof(tmp) - n, "%03X#", id & CAN_SFF_MASK);

	if (!r->is_fd && (id & CAN_RTR_FLAG) && !(id & CAN_ERR_FLAG)) {
		tmp[n++] = 'R';
		if (f->len)
			tmp[n++] = (char)('0' + f->len);
	} else {
		if (r->is_fd) {
			tmp[n++] = '#';
			tmp[n++] = hexdig[f->flags & 0xf];
		}
		for (i = 0; i < f->len; i++) {
			tmp[n++] = hexdig[f->data[i] >> 4];
			tmp[n++] = hexdig[f->data[i] & 0xf];
		}
		if (!r->is_fd && f->len == CAN_MAX_DLEN &&
		    r->len8_dlc > CAN_MAX_DLEN && r->len8_dlc <= 15) {
			tmp[n++] = '_';
			tmp[n++] = hexdig[r->len8_dlc];
		}
	}
	tmp[n++] = '\n';
	tmp[n] = '\0';
	if ((size_t)n >= len)
		return -1;
	memcpy(buf, tmp, (size_t)n + 1);
	return n;
}

int skin_canlog_write(FILE *f, const struct skin_canlog_record *r)
{
	char line[SKIN_CANLOG_LINE_MAX];
	int n = skin_canlog_format(line, sizeof(line), r);

	if (n < 0) {
		errno = EINVAL;
		return -1;
	}
	if (fwrite(line, 1, (size_t)n, f) != (size_t)n)
		return -1;
	return 0;
}

void skin_canlog_record_classic(struct skin_canlog_record *r, uint64_t ts_ns,
				const char *ifname, const struct can_frame *cf)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = ts_ns;
	snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
	r->frame.can_id = cf->can_id;
	r->frame.len = cf->len > CAN_MAX_DLEN ? CAN_MAX_DLEN : cf->len;
	memcpy(r->frame.data, cf->data, r->frame.len);
	if (cf->len == CAN_MAX_DLEN && cf->len8_dlc > CAN_MAX_DLEN &&
	    cf->len8_dlc <= 15)
		r->len8_dlc = cf->len8_dlc;
}
