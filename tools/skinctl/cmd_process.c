// SPDX-License-Identifier: GPL-2.0
/*
 * skinctl process - skind's processing on a recorded CAN log, flat out
 *
 *	skinctl process [--compat] [--format bottle|json] [--taxels PART]
 *			[--set PARAM=VALUE]... [--calibration FILE]
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
 * board period samples) unless --calibration restores a file; progress,
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

#include <linux/can/error.h>

#include <skin/canlog.h>
#include <skin/model.h>
#include <skin/proc.h>

#include "skin_core.h"
#include "skinctl.h"

struct patch_rx {
	struct skin_patch_config cfg;
	struct skin_asm a;
	const char *bus;
	uint64_t deadline;		/* of the pending sample; 0: none */
	uint64_t timeout_ns;
	uint64_t seq;
	uint64_t last_ts;
};

struct process {
	struct skin_config *cfg;
	struct skin_model *m;
	struct skin_proc *p;
	struct patch_rx *rx;
	enum { OUT_BOTTLE, OUT_JSON, OUT_TAXELS } out;
	int taxels_part;
	char *buf;
	size_t buf_len;
	uint64_t published, timeouts, repeats, ignored, rejected;
	unsigned int calibrated;
};

/* Triangles the driver would be told to expect: those with any taxel. */
static uint16_t patch_triangles(const struct skin_model *m, unsigned int patch)
{
	const struct skin_patch *mp = &m->patches[patch];
	const struct skin_part *sp = &m->parts[mp->part];
	unsigned int k, base = mp->order * SKIN_VALUES_PER_PATCH;
	uint16_t tri = 0;

	for (k = 0; k < SKIN_VALUES_PER_PATCH && base + k < sp->n_taxels; k++)
		if (m->taxels[sp->first_taxel + base + k].kind != SKIN_TAXEL_ABSENT)
			tri |= (uint16_t)(1u << (k / SKIN_CHANNELS_PER_TRIANGLE));
	return tri;
}

static void print_time(uint64_t ns)
{
	printf("%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}

static int encode(struct process *pr, unsigned int part)
{
	int n;

	for (;;) {
		n = pr->out == OUT_JSON ?
		    skin_proc_json(pr->p, (int)part, pr->buf, pr->buf_len) :
		    skin_proc_bottle(pr->p, (int)part, pr->buf, pr->buf_len);
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

static void report_events(struct process *pr, unsigned int part, int ev)
{
	const char *name = pr->m->parts[part].name;

	if (ev & SKIN_PROC_EV_CALIBRATED) {
		fprintf(stderr, "skinctl process: part %s calibrated\n", name);
		pr->calibrated++;
	}
	if (ev & SKIN_PROC_EV_CAL_FAILED)
		fprintf(stderr, "skinctl process: calibration refused: %s\n",
			skin_proc_reason(pr->p, part));
	if (ev & SKIN_PROC_EV_FAULTS) {
		struct skin_taxel_fault f[8];
		int n = skin_proc_fault_list(pr->p, (int)part, f, 8), i;

		fprintf(stderr, "skinctl process: part %s: %d faulty taxel(s)", name, n);
		for (i = 0; i < n && i < 8; i++) {
			char names[80];

			skin_fault_names(f[i].flags, names, sizeof(names));
			fprintf(stderr, "%s %u (%s)", i ? "," : ":", f[i].taxel, names);
		}
		fprintf(stderr, "%s\n", n > 8 ? ", ..." : "");
	}
}

/* A sample of patch i is published: feed it, cluster, print. */
static int publish(struct process *pr, unsigned int i, u16 flags)
{
	struct patch_rx *r = &pr->rx[i];
	const unsigned int part = pr->m->patches[i].part;
	struct skin_frame f;
	int ev, n;

	memset(&f, 0, sizeof(f));
	skin_asm_fill(&r->a, &f, flags);
	f.seq = ++r->seq;
	pr->published++;
	ev = skin_proc_feed(pr->p, i, &f);
	if (ev < 0)
		return ev;
	if (ev)
		report_events(pr, part, ev);
	/* the last calibration sample is no output sample */
	if (skin_proc_state(pr->p, part) != SKIN_PROC_RUNNING ||
	    (ev & SKIN_PROC_EV_CALIBRATED))
		return 0;
	if (skin_proc_cluster(pr->p, part) < 0)
		return -EINVAL;
	if (pr->out == OUT_TAXELS) {
		const double *v;
		unsigned int k;

		if ((int)part != pr->taxels_part)
			return 0;
		v = skin_proc_values(pr->p, part);
		print_time(f.timestamp_ns);
		for (k = 0; k < pr->m->parts[part].n_taxels; k++)
			printf(" %.6g", v[k]);
		putchar('\n');
		return 0;
	}
	n = encode(pr, part);
	if (n < 0)
		return n;
	if (pr->out == OUT_JSON) {
		printf("{\"time\":");
		print_time(f.timestamp_ns);
		/* pr->buf is {"contacts":[...]}: splice the fields in */
		printf(",\"part\":\"%s\",%s\n", pr->m->parts[part].name, pr->buf + 1);
	} else {
		print_time(f.timestamp_ns);
		printf(" %s %s\n", pr->m->parts[part].name, pr->buf);
	}
	return 0;
}

/* The driver's 1.5-period timers that expire before @now, in order. */
static int expire(struct process *pr, uint64_t now)
{
	for (;;) {
		unsigned int i, best = UINT32_MAX;
		int rc;

		for (i = 0; i < pr->m->n_patches; i++)
			if (pr->rx[i].deadline && pr->rx[i].deadline <= now &&
			    (best == UINT32_MAX ||
			     pr->rx[i].deadline < pr->rx[best].deadline))
				best = i;
		if (best == UINT32_MAX)
			return 0;
		pr->rx[best].deadline = 0;
		if (!skin_asm_pending(&pr->rx[best].a))
			continue;
		pr->timeouts++;
		rc = publish(pr, best, SKIN_FRAME_TIMEOUT);
		if (rc < 0)
			return rc;
	}
}

/* skin_can_rx() for patch i, at the log's time. */
static int rx(struct process *pr, unsigned int i, const struct can_frame *cf,
	      uint64_t ts)
{
	struct patch_rx *r = &pr->rx[i];
	enum skin_rx_verdict verdict;
	struct skin_half h;
	int rc;

	verdict = skin_asm_check(&r->a, cf, false, &h);
	if (!skin_verdict_accepted(verdict))
		return 0;
	if (skin_asm_is_repeat(&r->a, &h)) {
		pr->repeats++;
		rc = publish(pr, i, SKIN_FRAME_REPEAT);
		if (rc < 0)
			return rc;
	}
	if (!skin_asm_pending(&r->a))
		r->deadline = ts + r->timeout_ns;
	skin_asm_apply(&r->a, &h, ts);
	if (skin_asm_complete(&r->a)) {
		r->deadline = 0;
		return publish(pr, i, 0);
	}
	return 0;
}

static int dispatch(struct process *pr, const struct skin_canlog_record *rec,
		    struct skin_error *err, const char *log)
{
	const struct can_frame *cf = (const struct can_frame *)&rec->frame;
	unsigned int i, hits = 0;
	int rc;

	rc = expire(pr, rec->ts_ns);
	if (rc < 0)
		return rc;
	for (i = 0; i < pr->m->n_patches; i++) {
		struct patch_rx *r = &pr->rx[i];

		if (strcmp(r->bus, rec->ifname))
			continue;
		if (rec->ts_ns < r->last_ts) {
			snprintf(err->text, sizeof(err->text),
				 "%s:%u: timestamp goes back in time on %s: expected the log's order",
				 log, rec->line, rec->ifname);
			return 1;
		}
		r->last_ts = rec->ts_ns;
		/* the driver's filters: its board's data frames and error
		 * frames (which only count) */
		if (cf->can_id & CAN_ERR_FLAG) {
			hits++;
			continue;
		}
		if (rec->is_fd || (cf->can_id & CAN_EFF_FLAG))
			continue;
		if ((cf->can_id & SKIN_DATA_MASK) !=
		    (canid_t)SKIN_DATA_ID(r->cfg.cls, r->cfg.address, 0))
			continue;
		hits++;
		rc = rx(pr, i, cf, rec->ts_ns);
		if (rc < 0)
			return rc;
	}
	if (!hits)
		pr->ignored++;
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: skinctl process [--compat] [--format bottle|json] [--taxels PART]\n"
		    "                       [--set PARAM=VALUE]... [--calibration FILE]\n"
		    "                       [--save-calibration FILE] CONFIG LOG\n");
}

int cmd_process(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "compat", no_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "taxels", required_argument, NULL, 't' },
		{ "set", required_argument, NULL, 's' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "save-calibration", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *taxels = NULL, *cal = NULL, *save = NULL, *log;
	struct process pr;
	struct skin_error err;
	struct skin_canlog *l = NULL;
	struct skin_canlog_record rec;
	bool compat = false;
	char **sets;
	unsigned int n_sets = 0, i;
	int opt, rc = 1, n;

	memset(&pr, 0, sizeof(pr));
	pr.taxels_part = -1;
	sets = calloc((size_t)argc + 1, sizeof(*sets));
	if (!sets)
		return 1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			compat = true;
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
			sets[n_sets++] = optarg;
			break;
		case 'C':
			cal = optarg;
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
	log = argv[optind + 1];
	pr.cfg = skin_config_load(argv[optind], &err);
	if (!pr.cfg || !(pr.m = skin_config_build_model(pr.cfg, &err))) {
		fprintf(stderr, "skinctl process: %s\n", err.text);
		goto out;
	}
	if (compat)
		pr.cfg->comp.compat = 1;
	/* samples of a patch come every board period: the calibration
	 * counts them in that unit */
	pr.cfg->comp.period_ms = pr.cfg->board.period_ms;
	pr.p = skin_proc_new(pr.m, &pr.cfg->comp, &err);
	if (!pr.p) {
		fprintf(stderr, "skinctl process: %s\n", err.text);
		goto out;
	}
	for (i = 0; i < n_sets; i++) {
		char name[64], why[256];
		const char *eq = strchr(sets[i], '=');

		if (!eq || eq == sets[i] || (size_t)(eq - sets[i]) >= sizeof(name)) {
			fprintf(stderr, "skinctl process: --set '%s': expected PARAM=VALUE\n",
				sets[i]);
			goto out;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - sets[i]), sets[i]);
		if (skin_proc_set(pr.p, name, eq + 1, why, sizeof(why))) {
			fprintf(stderr, "skinctl process: --set: %s\n", why);
			goto out;
		}
	}
	if (taxels) {
		for (i = 0; i < pr.m->n_parts; i++)
			if (!strcmp(pr.m->parts[i].name, taxels))
				pr.taxels_part = (int)i;
		if (pr.taxels_part < 0) {
			fprintf(stderr, "skinctl process: --taxels %s: no such part in %s\n",
				taxels, argv[optind]);
			goto out;
		}
		pr.out = OUT_TAXELS;
	}
	pr.rx = calloc(pr.m->n_patches ? pr.m->n_patches : 1, sizeof(*pr.rx));
	pr.buf_len = 1 << 16;
	pr.buf = malloc(pr.buf_len);
	if (!pr.rx || !pr.buf)
		goto out;
	for (i = 0; i < pr.m->n_patches; i++) {
		struct patch_rx *r = &pr.rx[i];
		const char *why;

		skin_patch_config_default(&r->cfg);
		snprintf(r->cfg.ifname, sizeof(r->cfg.ifname), "%s", pr.m->patches[i].bus);
		r->cfg.cls = SKIN_CLASS_DATA;
		r->cfg.address = (u8)pr.m->patches[i].address;
		r->cfg.skin_part = (u8)pr.m->parts[pr.m->patches[i].part].skin_part;
		r->cfg.triangles = patch_triangles(pr.m, i);
		r->cfg.period_ms = (u16)pr.cfg->board.period_ms;
		r->cfg.no_load = (u8)pr.cfg->board.no_load;
		why = skin_patch_config_check(&r->cfg);
		if (why) {
			fprintf(stderr, "skinctl process: patch %s:%d: %s\n",
				pr.m->patches[i].bus, pr.m->patches[i].address, why);
			goto out;
		}
		skin_asm_init(&r->a, &r->cfg);
		r->bus = pr.m->patches[i].bus;
		r->timeout_ns = (uint64_t)r->cfg.period_ms * 1500000u;
	}
	if (cal) {
		if (skin_proc_restore(pr.p, cal, &err)) {
			fprintf(stderr, "skinctl process: %s\n", err.text);
			goto out;
		}
	} else {
		skin_proc_calibrate(pr.p, -1);
	}
	l = skin_canlog_open(log, &err);
	if (!l) {
		fprintf(stderr, "skinctl process: %s\n", err.text);
		goto out;
	}
	while ((n = skin_canlog_next(l, &rec, &err)) != 0) {
		if (n < 0) {
			fprintf(stderr, "skinctl process: %s\n", err.text);
			pr.rejected++;
			if (!err.line)
				break;	/* cannot read on */
			continue;
		}
		n = dispatch(&pr, &rec, &err, log);
		if (n < 0) {
			fprintf(stderr, "skinctl process: %s\n", strerror(-n));
			goto out;
		}
		if (n > 0) {
			fprintf(stderr, "skinctl process: %s\n", err.text);
			pr.rejected++;
		}
	}
	/* the end of the log: the timers of what is pending expire */
	if (expire(&pr, UINT64_MAX) < 0)
		goto out;
	if (save && skin_proc_save(pr.p, save, &err)) {
		fprintf(stderr, "skinctl process: %s\n", err.text);
		goto out;
	}
	fprintf(stderr, "skinctl process: %" PRIu64 " samples (%" PRIu64 " timed out, %" PRIu64
		" on a repeated half), %" PRIu64 " frames for no patch, %" PRIu64 " bad lines\n",
		pr.published, pr.timeouts, pr.repeats, pr.ignored, pr.rejected);
	rc = pr.rejected ? 1 : 0;
out:
	if (fflush(stdout))
		rc = 1;
	skin_canlog_close(l);
	skin_proc_free(pr.p);
	skin_model_free(pr.m);
	skin_config_free(pr.cfg);
	free(pr.rx);
	free(pr.buf);
	free(sets);
	return rc;
}
