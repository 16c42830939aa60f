// SPDX-License-Identifier: GPL-2.0
/*
 * calfile.c - the calibration file (improvement d): baselines and touch
 * thresholds of every calibrated part, so that skind restarted while the
 * robot is being touched needs no fresh calibration
 *
 *	# comment
 *	skind-calibration 1
 *	part NAME SLOTS KINDS		KINDS: one character per slot,
 *					t tactile, p thermal pad, - absent
 *	SLOT BASELINE THRESHOLD		one line per calibrated tactile slot
 *	...
 *	end
 *
 * Numbers are printed with 17 significant digits, so a restore gives the
 * saved doubles bit for bit.  A tactile slot without a line restores as
 * not calibrated (SKIN_FAULT_CALIBRATION).
 */
#define _GNU_SOURCE	/* getline */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc-private.h"

#define CAL_MAGIC	"skind-calibration"
#define CAL_VERSION	1

static char kind_char(uint8_t kind)
{
	return kind == SKIN_TAXEL_TACTILE ? 't' :
	       kind == SKIN_TAXEL_THERMAL ? 'p' : '-';
}

int skin_proc_save(const struct skin_proc *p, const char *path,
		   struct skin_error *err)
{
	char tmp[4096];
	unsigned int i, k;
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		proc_err(err, path, 0, "path too long");
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		proc_err(err, tmp, 0, "cannot write: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "# skind's calibration: baselines and touch thresholds in counts of\n"
		   "# v = 255 - raw (docs/PROCESSING.md); written by skin_proc_save()\n"
		   "%s %d\n", CAL_MAGIC, CAL_VERSION);
	for (i = 0; i < p->n_parts; i++) {
		const struct proc_part *pt = &p->parts[i];

		if (!pt->calibrated)
			continue;
		fprintf(f, "part %s %u ", p->m->parts[i].name, pt->n);
		for (k = 0; k < pt->n; k++)
			fputc(kind_char(pt->kind[k]), f);
		fputc('\n', f);
		for (k = 0; k < pt->n; k++)
			if (pt->kind[k] == SKIN_TAXEL_TACTILE &&
			    !(pt->fault[k] & SKIN_FAULT_CALIBRATION))
				fprintf(f, "%u %.17g %.17g\n", k, pt->baseline[k],
					pt->thr[k]);
	}
	fprintf(f, "end\n");
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		proc_err(err, tmp, 0, "cannot write: %s", strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if (fclose(f)) {
		proc_err(err, tmp, 0, "cannot write: %s", strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		proc_err(err, path, 0, "cannot replace: %s", strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static bool parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return *s && !*end && !errno && isfinite(*out);
}

int skin_proc_restore(struct skin_proc *p, const char *path,
		      struct skin_error *err)
{
	char *line = NULL, *tok[4], *save;
	size_t cap = 0;
	unsigned int lineno = 0, i, n_tok;
	struct proc_part *cur = NULL;
	bool *named = NULL, *seen_slot = NULL, header = false, ended = false;
	ssize_t len;
	int rc = -1;
	FILE *f;

	f = skin_file_fopen(path, 0, err);
	if (!f)
		return -1;
	named = calloc(p->n_parts, sizeof(*named));
	if (!named) {
		proc_err(err, path, 0, "out of memory");
		goto out;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (ended) {
			proc_err(err, path, lineno, "text after 'end'");
			goto out;
		}
		n_tok = 0;
		for (char *t = strtok_r(line, " \t", &save); t;
		     t = strtok_r(NULL, " \t", &save)) {
			if (n_tok == 4) {
				proc_err(err, path, lineno, "too many fields");
				goto out;
			}
			tok[n_tok++] = t;
		}
		if (!n_tok)
			continue;
		if (!header) {
			if (n_tok != 2 || strcmp(tok[0], CAL_MAGIC) ||
			    strcmp(tok[1], "1")) {
				proc_err(err, path, lineno,
					 "expected '%s %d': not a calibration file of this version",
					 CAL_MAGIC, CAL_VERSION);
				goto out;
			}
			header = true;
			continue;
		}
		if (!strcmp(tok[0], "end") && n_tok == 1) {
			ended = true;
			continue;
		}
		if (!strcmp(tok[0], "part")) {
			unsigned long n;
			char *end;

			if (n_tok != 4) {
				proc_err(err, path, lineno,
					 "expected 'part NAME SLOTS KINDS'");
				goto out;
			}
			for (i = 0; i < p->n_parts; i++)
				if (!strcmp(p->m->parts[i].name, tok[1]))
					break;
			if (i == p->n_parts) {
				proc_err(err, path, lineno,
					 "part '%s' is not in the model: the calibration belongs to another skind.conf",
					 tok[1]);
				goto out;
			}
			if (named[i]) {
				proc_err(err, path, lineno, "part '%s' twice",
					 tok[1]);
				goto out;
			}
			cur = &p->parts[i];
			n = strtoul(tok[2], &end, 10);
			if (*end || n != cur->n || strlen(tok[3]) != cur->n) {
				proc_err(err, path, lineno,
					 "part '%s' has %u slots in the model, the file gives %s: another skind.conf",
					 tok[1], cur->n, tok[2]);
				goto out;
			}
			for (i = 0; i < cur->n; i++)
				if (tok[3][i] != kind_char(cur->kind[i])) {
					proc_err(err, path, lineno,
						 "part '%s': slot %u is '%c' in the file but '%c' in the model: another geometry",
						 tok[1], i, tok[3][i],
						 kind_char(cur->kind[i]));
					goto out;
				}
			named[cur->index] = true;
			free(seen_slot);
			seen_slot = calloc(cur->n ? cur->n : 1, sizeof(*seen_slot));
			if (!seen_slot) {
				proc_err(err, path, lineno, "out of memory");
				goto out;
			}
			for (i = 0; i < cur->n; i++)
				cur->cal_baseline[i] = -1;
			continue;
		}
		{
			unsigned long slot;
			double b, t;
			char *end;

			if (!cur || n_tok != 3) {
				proc_err(err, path, lineno,
					 cur ? "expected 'SLOT BASELINE THRESHOLD'"
					     : "expected 'part NAME SLOTS KINDS' first");
				goto out;
			}
			errno = 0;
			slot = strtoul(tok[0], &end, 10);
			if (*end || errno || tok[0][0] == '-' || slot >= cur->n) {
				proc_err(err, path, lineno,
					 "slot '%s': expected 0..%u", tok[0],
					 cur->n - 1);
				goto out;
			}
			if (cur->kind[slot] != SKIN_TAXEL_TACTILE ||
			    seen_slot[slot]) {
				proc_err(err, path, lineno,
					 seen_slot[slot] ? "slot %lu twice" :
					 "slot %lu is not tactile", slot);
				goto out;
			}
			if (!parse_double(tok[1], &b) || b < -PROC_MAX_SKIN ||
			    b > 2 * PROC_MAX_SKIN) {
				proc_err(err, path, lineno,
					 "baseline '%s': expected a number -255..510",
					 tok[1]);
				goto out;
			}
			if (!parse_double(tok[2], &t) || t < PROC_MIN_TOUCH_THR ||
			    t > PROC_MAX_SKIN * 2) {
				proc_err(err, path, lineno,
					 "threshold '%s': expected a number 1..510",
					 tok[2]);
				goto out;
			}
			seen_slot[slot] = true;
			cur->cal_baseline[slot] = b;
			cur->cal_thr[slot] = t;
		}
	}
	if (ferror(f)) {
		proc_err(err, path, lineno, "cannot read: %s", strerror(errno));
		goto out;
	}
	if (!header || !ended) {
		proc_err(err, path, lineno,
			 header ? "no 'end' line: the file is truncated"
				: "empty: expected '" CAL_MAGIC " 1'");
		goto out;
	}
	for (i = 0; i < p->n_parts; i++)
		if (named[i])
			proc_set_running(p, &p->parts[i]);
	rc = 0;
out:
	/* a failed restore leaves the staging arrays dirty, which nothing
	 * reads before a calibration rewrites them */
	free(seen_slot);
	free(named);
	free(line);
	fclose(f);
	return rc;
}
