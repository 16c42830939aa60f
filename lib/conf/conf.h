/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conf.h - the configuration engine every process's INI file goes through
 *
 * After systemd's conf-parser: a file kind is a table of keys, each with
 * its type, range, default and one line of documentation.  The table is
 * the one source of them: the parser checks values against it, skind's
 * `set` checks run-time changes against it (lib/proc), lib/proc checks a
 * whole parameter set against it, and the man pages' key lines are
 * written from it or checked against it (tests/unit/test_conf.c for
 * skind.conf(5), test_yarp_config.c, tests/ros2/test_ros2_config.c).
 * Tables: lib/conf/skind.c (skind.conf), bridges/yarp/config.c,
 * bridges/ros2/config.c.
 *
 * The rules every file shares (docs/MODEL.md, skind.conf's syntax):
 *   - a line whose first non-blank character is '#' or ';' is a comment;
 *   - booleans are yes/no, true/false, on/off or 1/0;
 *   - every refusal names FILE:LINE:COL (COL where the value starts);
 *   - files are read through skin_file_read(): regular files only, so a
 *     FIFO or a device named as a configuration never blocks a daemon.
 *
 * Private to the project: not installed.
 */
#ifndef SKIN_CONF_H
#define SKIN_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "skin/model.h"

/* The largest configuration file read (bytes). */
#define CONF_FILE_MAX	(1u << 20)

enum conf_type {
	CONF_UINT,	/* unsigned int, decimal or 0x hex */
	CONF_REAL,	/* double, finite decimal */
	CONF_BOOL,	/* int, 0 or 1 */
	CONF_CUSTOM,	/* the key's own parse() */
};

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t offset;		/* of the field in the section's struct */
	double min, max;	/* the range, both ends in */
	bool min_open;		/* ... but min itself out */
	bool fixed;		/* not changed while running (skind's set) */
	const char *unit;	/* in messages and the man page, or NULL */
	double def;		/* the default */
	const char *doc;	/* the man page's line for the key */
	const char *man_before;	/* a paragraph the man page puts before it */
	bool hex;		/* the man page gives the default in hex */
	/* CONF_CUSTOM: 0, or -1 when v is not a value of the key; the
	 * default is def_text parsed (none when NULL); expected says what
	 * the key takes, in messages and the man page */
	int (*parse)(const struct conf_key *k, void *base, const char *v);
	const char *def_text;
	const char *expected;
};

/* yes/no, true/false, on/off, 1/0; false for anything else. */
bool conf_parse_bool(const char *v, bool *out);

/* "expected ..." for a value of key k (its type and range) into buf. */
void conf_key_expected(const struct conf_key *k, char *buf, size_t size);

/* Parse v as key k's value into base + k->offset.  0, or -EINVAL with
 * "KEY = 'V': expected ..." in why. */
int conf_key_set(const struct conf_key *k, void *base, const char *v,
		 char *why, size_t why_len);

/* The key called name in a table of n, or NULL. */
const struct conf_key *conf_key_find(const struct conf_key *t, size_t n,
				     const char *name);
/* Every key of the table at its default. */
void conf_keys_default(const struct conf_key *t, size_t n, void *base);
/* Is every value of base in its key's range?  NULL, or the first key
 * that is not (its message in why). */
const struct conf_key *conf_keys_check(const struct conf_key *t, size_t n,
				       const void *base, char *why,
				       size_t why_len);

/* The man page's lines for the keys of a table (roff, .TP per key: the
 * name, the default, the doc line and the range); malloc'ed, or NULL. */
char *conf_keys_man(const struct conf_key *t, size_t n);

/* A whole configuration file, NUL-terminated, through skin_file_read();
 * a NUL byte inside is refused (FILE:LINE:COL of it).  NULL, err set. */
char *conf_read_file(const char *path, size_t *len, struct skin_error *err);

/*
 * The syntax.  A line is, after leading blanks:
 *   - nothing, or a comment: '#' or ';' first;
 *   - [NAME] or [KIND ARG], only blanks or a comment after the ']';
 *   - KEY = VALUE, both trimmed; '#' or ';' after a blank starts a
 *     comment that ends the value;
 *   - with continuation (skind.conf): an indented line after a key is
 *     more of that key's value (the key callback is called again).
 * A UTF-8 byte order mark at the start is skipped, a CR before the
 * newline is a blank, a NUL byte is refused.
 */
struct conf_syntax {
	const char *sections;	/* "[bridge] or [part NAME]", for messages */
	unsigned int line_max;	/* characters in a line, at most */
	bool continuation;
};

struct conf_parser {
	/* set by the caller */
	const struct conf_syntax *syntax;
	const char *file;		/* for messages */
	struct skin_error *err;
	void *user;
	/* name: the text between the brackets.  0, or -1 with an error
	 * given through conf_error() */
	int (*section)(struct conf_parser *cp, char *name);
	int (*key)(struct conf_parser *cp, char *key, char *value);
	/* the engine's */
	unsigned int line;		/* of the current line, from 1 */
	char *raw;			/* that line as written */
	char *text;			/* a copy the pointers given point into */
	bool in_section, failed;
	char prev_key[64];		/* for continuation lines */
};

/* Parse buf (len bytes; need not be NUL-terminated).  0, or -1 with the
 * first error in cp->err. */
int conf_parse(struct conf_parser *cp, const char *buf, size_t len);

/* The first error only: FILE:LINE:COL, COL where at (a pointer into the
 * line given to a callback, or a string found in the line after its '=')
 * starts; FILE:LINE when at is NULL or not in the line. */
void conf_error(struct conf_parser *cp, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Tables, one per section kind (skind.c: skind.conf's [skind], which
 * lib/proc's get/set and parameter check read too, [board] and [bus]).
 */
extern const struct conf_key conf_comp_keys[];
extern const size_t conf_comp_n_keys;
extern const struct conf_key conf_board_keys[];
extern const size_t conf_board_n_keys;
extern const struct conf_key conf_bus_keys[];
extern const size_t conf_bus_n_keys;

#endif /* SKIN_CONF_H */
