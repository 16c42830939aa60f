// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl process - skind's processing on a recorded CAN log, flat out
 *
 *	skinctl process [--compat [--cycle MS]] [--format bottle|json]
 *			[--taxels PART] [--set PARAM=VALUE]... [--calibration FILE]
 *			[--save-calibration FILE] CONFIG LOG
 *
 * CONFIG is a skind.conf (its parts, patches, geometry and [skind]
 * parameters); LOG a can-utils `candump -l` log ("-" for stdin).  Every
 * frame goes to the patch whose bus (the log's interface name) and board
 * address it carries, through the driver's own assembly core
 * (driver/skin_assemble.c) in the order skin_can_rx() runs it: a repeated
 * half publishes the pending sample first, a complete sample is published
 * at once, and a sample still pending 1.5 board periods after its first
 * half is published as timed out, judged on the log's timestamps (and at
 * the end of the log).  Each published sample is fed to lib/proc and its
 * part's contacts are rebuilt.  Output, one line per published sample of
 * a calibrated part:
 *
 *	bottle:  TIME PART ((id bodyPart link skinPart) (CoP) ...)   (or "()")
 *	json:    {"time":TIME,"part":"PART","contacts":[...]}
 *	--taxels PART: TIME v0 v1 ... vN-1  (the part's compensated values)
 *
 * TIME is the sample's timestamp in seconds (the log's clock).  The parts
 * calibrate on the first calibration_s of the log (N = calibration_s /
 * board period samples) unless --calibration restores a file.  --cycle MS
 * (with --compat) runs the parts on skinManager's clock, as skind does in
 * compat mode: a line per part every MS of the log's time, TIME the
 * cycle's, and a calibration of calibration_s / MS + 1 cycles; progress,
 * refusals and faults go to stderr.  Bad lines are reported with their
 * file, line and column, counted, skipped; the exit status is then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skin_replay.h"
#include "skinctl.h"

enum output { OUT_BOTTLE, OUT_JSON, OUT_TAXELS };

struct process {
	struct skin_replay *r;
	enum output out;
	int taxels_part;
	char *buf;
	size_t buf_len;
};

static void print_time(uint64_t ns)
{
	printf("%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

static int encode(struct process *pr, unsigned int part)
{
	int n;

	for (;;) {
		n = pr->out == OUT_JSON ?
		    skin_proc_json(pr->r->p, (int)part, pr->buf, pr->buf_len) :
		    skin_proc_bottle(pr->r->p, (int)part, pr->buf, pr->buf_len);
		if (n < 0)
			return n;
		if ((size_t)n < pr->buf_len)
			return n;
		free(pr->buf);
		pr->buf_len = (size_t)n + 1024;
		pr->buf = malloc(pr->buf_len);
		if (!pr->buf) {
			pr->buf_len = 0;
			return -ENOMEM;
		}
	}
}

/* An output sample of a part: its line. */
static int print_sample(struct process *pr, const struct skin_replay_sample *s)
{
	const struct skin_model *m = pr->r->m;
	int n;

	if (pr->out == OUT_TAXELS) {
		const double *v;
		unsigned int k;

		if ((int)s->part != pr->taxels_part)
			return 0;
		v = skin_proc_values(pr->r->p, s->part);
		print_time(s->ts_ns);
		for (k = 0; k < m->parts[s->part].n_taxels; k++)
			printf(" %.6g", v[k]);
		putchar('\n');
		return 0;
	}
	n = encode(pr, s->part);
	if (n < 0)
		return n;
	if (pr->out == OUT_JSON) {
		const char *name = m->parts[s->part].name;
		char esc[6 * 128 + 1];

		if (skin_json_escape(esc, sizeof(esc), name) >= sizeof(esc))
			return -ENAMETOOLONG;
		printf("{\"time\":");
		print_time(s->ts_ns);
		/* pr->buf is {"contacts":[...]}: splice the fields in */
		printf(",\"part\":\"%s\",%s\n", esc, pr->buf + 1);
	} else {
		print_time(s->ts_ns);
		printf(" %s %s\n", m->parts[s->part].name, pr->buf);
	}
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: skinctl process [--compat [--cycle MS]] [--format bottle|json]\n"
		    "                       [--taxels PART] [--set PARAM=VALUE]... [--calibration FILE]\n"
		    "                       [--save-calibration FILE] CONFIG LOG\n");
}

int cmd_process(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "compat", no_argument, NULL, 'c' },
		{ "cycle", required_argument, NULL, 'y' },
		{ "format", required_argument, NULL, 'f' },
		{ "taxels", required_argument, NULL, 't' },
		{ "set", required_argument, NULL, 's' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "save-calibration", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct skin_replay_opts o = { .who = "skinctl process" };
	const char *taxels = NULL, *save = NULL;
	struct skin_replay_sample s;
	struct skin_error err;
	struct process pr;
	int opt, rc = 1, n;
	unsigned long ms;
	char *end;

	memset(&pr, 0, sizeof(pr));
	pr.taxels_part = -1;
	o.sets = calloc((size_t)argc + 1, sizeof(*o.sets));
	if (!o.sets)
		return 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o.compat = true;
			break;
		case 'y':
			errno = 0;
			ms = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-' || !ms || ms > 10000) {
				fprintf(stderr, "skinctl process: --cycle '%s': expected a period in ms, 1 to 10000\n",
					optarg);
				rc = 2;
				goto out;
			}
			o.cycle_ms = (unsigned int)ms;
			break;
		case 'f':
			if (!strcmp(optarg, "bottle")) {
				pr.out = OUT_BOTTLE;
			} else if (!strcmp(optarg, "json")) {
				pr.out = OUT_JSON;
			} else {
				fprintf(stderr, "skinctl process: --format '%s': expected bottle or json\n",
					optarg);
				goto out;
			}
			break;
		case 't':
			taxels = optarg;
			break;
		case 's':
			o.sets[o.n_sets++] = optarg;
			break;
		case 'C':
			o.calibration = optarg;
			break;
		case 'S':
			save = optarg;
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto out;
		default:
			usage(stderr);
			rc = 2;
			goto out;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		rc = 2;
		goto out;
	}
	if (o.cycle_ms && !o.compat) {
		fprintf(stderr, "skinctl process: --cycle is skinManager's clock: it goes with --compat\n");
		rc = 2;
		goto out;
	}
	o.config = argv[optind];
	o.log = argv[optind + 1];
	pr.r = skin_replay_open(&o);
	if (!pr.r)
		goto out;
	if (taxels) {
		pr.taxels_part = skin_replay_part_find(pr.r->m, taxels);
		if (pr.taxels_part < 0) {
			fprintf(stderr, "skinctl process: --taxels %s: no such part in %s\n",
				taxels, o.config);
			goto out;
		}
		pr.out = OUT_TAXELS;
	}
	pr.buf_len = 1 << 16;
	pr.buf = malloc(pr.buf_len);
	if (!pr.buf)
		goto out;
	while ((n = skin_replay_next(pr.r, &s)) > 0) {
		if (!s.output)
			continue;
		n = print_sample(&pr, &s);
		if (n < 0) {
			fprintf(stderr, "skinctl process: %s\n", strerror(-n));
			goto out;
		}
	}
	if (n < 0)
		goto out;
	if (save && skin_proc_save(pr.r->p, save, &err)) {
		fprintf(stderr, "skinctl process: %s\n", err.text);
		goto out;
	}
	skin_replay_summary(pr.r);
	rc = pr.r->rejected ? 1 : 0;
out:
	if (fflush(stdout))
		rc = 1;
	skin_replay_close(pr.r);
	free(pr.buf);
	free(o.sets);
	return rc;
}
