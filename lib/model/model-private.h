/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model-private.h - what the files of libskinmodel share and callers don't
 */
#ifndef SKIN_MODEL_PRIVATE_H
#define SKIN_MODEL_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "skin/model.h"

#define SKIN_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* error.c (skin_error_set() is public: skin/model.h) */
/* Report out-of-memory (no line). */
void skin_err_oom(struct skin_error *err, const char *file);

/* model.c: building a model.  The add functions return -1 on OOM. */
struct skin_model *model_new(void);
/* Append a part of n_taxels absent taxels; returns its index or -1. */
int model_add_part(struct skin_model *m, const char *name,
		   unsigned int n_taxels);
int model_add_patch(struct skin_model *m, unsigned int part,
		    unsigned int order, const char *bus, int address);
/* Index of the link with this name (added when new), or -1 on OOM. */
int model_link(struct skin_model *m, const char *name, int number);
int model_note(struct skin_model *m, const char *fmt, ...) SKIN_PRINTF(2, 3);
int model_set_str(char **dst, const char *src);
/* Sets the iCub identity of a part from its SkinPart. */
void model_part_set_id(struct skin_part *p, enum skin_part_id id);
void model_drop_neighbours(struct skin_model *m);
/* Appends all of src to dst (parts, patches, taxels, links, notes);
 * neighbours are not copied.  -1 on OOM. */
int model_append(struct skin_model *dst, const struct skin_model *src);

/* io.c */
/* Read a whole file; NUL-terminated; *len excludes the NUL. */
char *skin_read_file(const char *path, size_t *len, struct skin_error *err);
/* A part's geometry: every format but a skind.conf, which is refused
 * (skin_model_load() in load.c is the one that builds configurations). */
struct skin_model *model_geometry_load_buffer(const char *buf, size_t len,
					     enum skin_format fmt,
					     const char *name,
					     struct skin_error *err);
struct skin_model *model_geometry_load(const char *path, enum skin_format fmt,
				       struct skin_error *err);

/* text.c: numbers and text for the writers */
/* Shortest %g form that reads back as the same double. */
void skin_fmt_double(char *buf, size_t size, double v);

/* lex.c: a line/column aware tokenizer over a buffer that need not be
 * NUL-terminated (fuzzers hand in raw bytes). */
struct lex {
	const char *buf;
	size_t len, pos;
	unsigned int line, col;
	const char *file;
	struct skin_error *err;
};
void lex_init(struct lex *lx, const char *buf, size_t len, const char *file,
	      struct skin_error *err);
bool lex_eof(const struct lex *lx);
/* Skip blanks (space, tab, CR) but not newlines. */
void lex_blank(struct lex *lx);
/* Skip blanks and newlines. */
void lex_space(struct lex *lx);
/* At the end of a line (after blanks)? */
bool lex_at_eol(struct lex *lx);
/* Skip to just past the next newline. */
void lex_skip_line(struct lex *lx);
/* Next token: a run of non-blank bytes, or one of "()" alone.  Does not
 * cross newlines unless nl is true.  Copies it NUL-terminated into tok;
 * returns its length, 0 at end of line/input; -1 (error set) when it does
 * not fit. tline/tcol get its position. */
int lex_token(struct lex *lx, bool nl, char *tok, size_t size,
	      unsigned int *tline, unsigned int *tcol);
/* Parse numbers out of a token; false (error set, naming what) when the
 * token is not one. */
bool lex_parse_double(struct lex *lx, const char *tok, unsigned int l,
		      unsigned int c, const char *what, double *out);
bool lex_parse_long(struct lex *lx, const char *tok, unsigned int l,
		    unsigned int c, const char *what, long min, long max,
		    long *out);
/* Error at the current position / at a token. */
void lex_error(struct lex *lx, unsigned int l, unsigned int c,
	       const char *fmt, ...) SKIN_PRINTF(4, 5);

/* Per-format readers and writers (positions.c, urdf.c, skinware.c,
 * skingui.c).  Readers build a whole model or return NULL. */
struct skin_model *skin_positions_read(const char *buf, size_t len,
				       const char *name,
				       struct skin_error *err);
int skin_positions_write(const struct skin_model *m, unsigned int part,
			 char **out, size_t *outlen, struct skin_error *err);
struct skin_model *skin_urdf_read(const char *buf, size_t len,
				  const char *name, struct skin_error *err);
struct skin_model *skin_skinware_read(const char *buf, size_t len,
				      const char *name,
				      struct skin_error *err);
int skin_skinware_write(const struct skin_model *m, char **out,
			size_t *outlen, struct skin_error *err);
struct skin_model *skin_skingui_read(const char *buf, size_t len,
				     const char *name, struct skin_error *err);

/* neighbours.c: the O(N^2) reference the grid is tested against. */
int skin_neighbours_brute(const struct skin_model *m, double max_dist_m,
			  unsigned int **start, unsigned int **nbr,
			  unsigned int *n);

/* builtin.c: kinds of a built-in layout into part p of m. */
int skin_builtin_part_kinds(const char *layout, unsigned int *n_taxels,
			    enum skin_taxel_kind **kinds);

/* text.c: a growing text buffer for the writers. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};
void sbuf_printf(struct sbuf *b, const char *fmt, ...) SKIN_PRINTF(2, 3);
void sbuf_double(struct sbuf *b, double v);



/* Limits that keep a hostile file from asking for gigabytes: far above any
 * robot (iCub's whole skin is 4,224 values). */
#define SKIN_MAX_TAXELS (1u << 20)
#define SKIN_MAX_PARTS 4096u
#endif
