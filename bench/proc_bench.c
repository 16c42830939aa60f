// SPDX-License-Identifier: GPL-2.0
/*
 * proc_bench.c - cost of skind's processing per full-body sample
 *
 * The model is etc/skind.conf (the iCub upper body: 7 parts, 18 patches,
 * 3456 slots of which 1828 tactile), and the same body repeated 4 and 16
 * times (more parts on more buses) for the scaling.  A "full-body sample"
 * is one frame fed to every patch (skin_proc_feed) and the contacts of
 * every part rebuilt (skin_proc_cluster): what skind does each period.
 *
 * The frames are pre-generated (64 samples per patch, noise around
 * noLoad) after a calibration on noise alone; the cases press 0, 1 and 10
 * places at once (a triangle and its neighbour, 100 counts deep), each a
 * separate contact.  In the same process, interleaved repetition by
 * repetition:
 *
 *   copy      the frames copied (memcpy of 256 bytes per patch): the least
 *             any code that looks at every sample does
 *   N contacts, 1x / 4x / 16x, default and compat mode
 *
 * Times are ns per full-body sample (min and median over the repetitions),
 * CLOCK_MONOTONIC on one pinned CPU; "per taxel" divides by the tactile
 * taxels; "x 1x" is the median over the 1x median of the same case (time
 * linear in the taxel count gives 4 and 16).
 *
 *   proc_bench [--reps N] [--cpu N] [--config PATH] [--only MODE:SCALE:CONTACTS]
 *              [--isa NAME[,NAME...]]
 *
 * --only runs one case (e.g. default:1:10), for profilers.  --isa runs
 * each case on each form of the per-patch arithmetic named (portable,
 * avx2, avx512, auto: skin_proc_new_opts()), alternated repetition by
 * repetition like the cases, so that their ratio comes from one run;
 * default auto, the best the CPU has.
 *
 * The last line is key=value pairs for scripts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <skin/model.h>
#include <skin/proc.h>

#include "measure.h"

#define SAMPLES		64	/* pre-generated samples per patch */
#define CAL_SAMPLES	250	/* 5 s at 20 ms */
#define DEFAULT_REPS	15

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * The config repeated @copies times: copy c renames its parts NAME_c and
 * its buses canB to can(3c + B), so every board stays unique.
 */
static char *replicate(const char *conf, unsigned int copies)
{
	size_t cap = strlen(conf) * copies * 2 + 4096, off = 0;
	char *out = malloc(cap);
	const char *parts = strstr(conf, "[bus ");
	unsigned int c;

	if (!out || !parts)
		exit(1);
	off += (size_t)snprintf(out, cap, "%.*s", (int)(parts - conf), conf);
	for (c = 0; c < copies; c++) {
		const char *s = parts;

		while (*s) {
			const char *eol = strchr(s, '\n');
			size_t len = eol ? (size_t)(eol - s) : strlen(s);
			char line[512];
			unsigned int b, a;

			snprintf(line, sizeof(line), "%.*s", (int)len, s);
			if (!strncmp(line, "[bus can", 8) && sscanf(line + 8, "%u", &b) == 1) {
				off += (size_t)snprintf(out + off, cap - off, "[bus can%u]\n", 3 * c + b);
			} else if (!strncmp(line, "[part ", 6)) {
				off += (size_t)snprintf(out + off, cap - off, "[part %.*s_%u]\n",
							(int)(strlen(line) - 7), line + 6, c);
			} else if (!strncmp(line, "patches = ", 10)) {
				const char *p = line + 10;

				off += (size_t)snprintf(out + off, cap - off, "patches =");
				while (sscanf(p, "can%u:%u", &b, &a) == 2) {
					off += (size_t)snprintf(out + off, cap - off, " can%u:%u", 3 * c + b, a);
					p = strchr(p, ' ');
					if (!p)
						break;
					p++;
				}
				off += (size_t)snprintf(out + off, cap - off, "\n");
			} else {
				off += (size_t)snprintf(out + off, cap - off, "%s\n", line);
			}
			s += len + (eol ? 1 : 0);
		}
	}
	return out;
}

struct bench {
	const char *name;
	unsigned int scale, contacts;
	bool compat;
	enum skin_proc_isa isa;
	struct skin_config *cfg;
	struct skin_model *m;
	struct skin_proc *p;
	struct skin_frame *frames;	/* SAMPLES x n_patches */
	unsigned int n_tactile;
	double *ns;			/* per repetition, ns per sample */
	unsigned int found;		/* contacts seen in the last sample */
	char cal[80];			/* its calibration, restored before
					 * each repetition (compat mode
					 * compensates the presses away) */
};

static char tmpdir[] = "/tmp/proc_bench.XXXXXX";
static unsigned int n_cal;

static void fill_noise(struct skin_frame *f, uint64_t seq)
{
	unsigned int k;

	memset(f, 0, sizeof(*f));
	f->seq = seq;
	f->timestamp_ns = seq * 20000000ull;
	f->refreshed = 0xffff;
	for (k = 0; k < 192; k++)
		f->values[k] = (uint8_t)(240 - rng() % 5);
}

/* Patches with a triangle of tactile taxels: where presses go. */
static bool pressable(const struct skin_model *m, unsigned int patch,
		      unsigned int tri)
{
	const struct skin_patch *mp = &m->patches[patch];
	const struct skin_part *sp = &m->parts[mp->part];
	unsigned int k, base = mp->order * 192 + tri * 12, n = 0;

	for (k = 0; k < 12; k++)
		if (base + k < sp->n_taxels &&
		    m->taxels[sp->first_taxel + base + k].kind == SKIN_TAXEL_TACTILE &&
		    (m->taxels[sp->first_taxel + base + k].flags & SKIN_TAXEL_HAS_POS))
			n++;
	return n >= 10;
}

static void bench_setup(struct bench *b, const char *conf_text,
			const char *conf_path)
{
	char *text = b->scale > 1 ? replicate(conf_text, b->scale) : strdup(conf_text);
	struct skin_error err;
	unsigned int i, s, pi, placed = 0;
	struct skin_frame f;

	b->cfg = skin_config_load_buffer(text, strlen(text), conf_path, &err);
	free(text);
	if (!b->cfg || (b->cfg->comp.compat = b->compat,
			!(b->m = skin_config_build_model(b->cfg, &err))) ||
	    !(b->p = skin_proc_new_opts(b->m, &b->cfg->comp,
					&(struct skin_proc_opts){ .isa = b->isa },
					&err))) {
		fprintf(stderr, "proc_bench: %s\n", err.text);
		exit(1);
	}
	for (pi = 0; pi < b->m->n_parts; pi++) {
		struct skin_model_stats st;

		skin_model_stats(b->m, (int)pi, &st);
		b->n_tactile += st.tactile;
	}
	skin_proc_calibrate(b->p, -1);
	for (s = 1; s <= CAL_SAMPLES; s++)
		for (i = 0; i < b->m->n_patches; i++) {
			fill_noise(&f, s);
			skin_proc_feed(b->p, i, &f);
		}
	for (pi = 0; pi < b->m->n_parts; pi++)
		if (skin_proc_state(b->p, pi) != SKIN_PROC_RUNNING) {
			fprintf(stderr, "proc_bench: part %s did not calibrate: %s\n",
				b->m->parts[pi].name, skin_proc_reason(b->p, pi));
			exit(1);
		}
	snprintf(b->cal, sizeof(b->cal), "%s/cal%u", tmpdir, n_cal++);
	if (skin_proc_save(b->p, b->cal, &err)) {
		fprintf(stderr, "proc_bench: %s\n", err.text);
		exit(1);
	}
	b->frames = calloc((size_t)SAMPLES * b->m->n_patches, sizeof(*b->frames));
	for (s = 0; s < SAMPLES; s++)
		for (i = 0; i < b->m->n_patches; i++)
			fill_noise(&b->frames[s * b->m->n_patches + i], 0);
	/* presses: one triangle (10 taxels) on each of the first patches
	 * that have one with known positions: separate contacts */
	for (i = 0; placed < b->contacts && i < b->m->n_patches; i++) {
		unsigned int t;

		for (t = 0; t < 16 && !pressable(b->m, i, t); t++)
			;
		if (t == 16)
			continue;
		for (s = 0; s < SAMPLES; s++) {
			struct skin_frame *fr = &b->frames[s * b->m->n_patches + i];
			unsigned int k;

			for (k = 12 * t; k < 12 * t + 12; k++)
				fr->values[k] = (uint8_t)(140 - rng() % 5);
		}
		placed++;
	}
	if (placed < b->contacts) {
		fprintf(stderr, "proc_bench: room for %u presses only\n", placed);
		exit(1);
	}
}

static uint64_t seq_next = CAL_SAMPLES + 1;

/* @n full-body samples, timed; returns ns per sample.  Its own function
 * so that callgrind can count it alone (--toggle-collect=timed_run). */
static __attribute__((noinline)) double timed_run(struct bench *b, unsigned int n)
{
	const unsigned int np = b->m->n_patches, nparts = b->m->n_parts;
	uint64_t t0, t1;
	unsigned int s, i, found = 0;

	t0 = clock_monotonic_ns();
	for (s = 0; s < n; s++) {
		struct skin_frame *fr = &b->frames[(s % SAMPLES) * np];
		uint64_t ts = seq_next++ * 20000000ull;

		for (i = 0; i < np; i++) {
			fr[i].seq = seq_next;
			fr[i].timestamp_ns = ts;
			skin_proc_feed(b->p, i, &fr[i]);
		}
		found = 0;
		for (i = 0; i < nparts; i++)
			found += (unsigned int)skin_proc_cluster(b->p, i);
	}
	t1 = clock_monotonic_ns();
	b->found = found;
	return (double)(t1 - t0) / n;
}

/* The calibration restored (compat mode compensates the presses away over
 * a repetition), then the timed run. */
static double bench_run(struct bench *b, unsigned int n)
{
	struct skin_error err;

	if (skin_proc_restore(b->p, b->cal, &err)) {
		fprintf(stderr, "proc_bench: %s\n", err.text);
		exit(1);
	}
	return timed_run(b, n);
}

static double copy_run(struct bench *b, unsigned int n)
{
	static struct skin_frame sink[64];
	const unsigned int np = b->m->n_patches;
	uint64_t t0, t1;
	unsigned int s, i;

	t0 = clock_monotonic_ns();
	for (s = 0; s < n; s++) {
		struct skin_frame *fr = &b->frames[(s % SAMPLES) * np];

		for (i = 0; i < np; i++)
			memcpy(&sink[i % 64], &fr[i], sizeof(fr[i]));
		__asm__ volatile("" : : "r"(sink) : "memory");
	}
	t1 = clock_monotonic_ns();
	return (double)(t1 - t0) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned int n)
{
	double *t = malloc(n * sizeof(*t)), m;

	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	m = t[n / 2];
	free(t);
	return m;
}

static double minimum(const double *v, unsigned int n)
{
	double m = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

int main(int argc, char **argv)
{
	static const unsigned int scales[] = { 1, 4, 16 }, contacts[] = { 0, 1, 10 };
	const char *conf_path = SKIN_SOURCE_ROOT "/etc/skind.conf";
	unsigned int reps = DEFAULT_REPS, i, r, nb = 0, mode;
	const char *only = NULL;	/* "default:1:10": one case (profiling) */
	enum skin_proc_isa isas[8] = { SKIN_PROC_ISA_AUTO };
	unsigned int n_isa = 1, ia;
	int cpu = -1;
	struct bench b[2 * 3 * 3 * 8];
	double *copy_ns;
	char *conf;
	cpu_set_t set;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < (unsigned int)argc)
			reps = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < (unsigned int)argc)
			cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--config") && i + 1 < (unsigned int)argc)
			conf_path = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < (unsigned int)argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--isa") && i + 1 < (unsigned int)argc) {
			char *list = argv[++i], *tok, *save = NULL;

			for (n_isa = 0, tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				int isa = skin_proc_isa_parse(tok);

				if (isa < 0 || n_isa == 8) {
					fprintf(stderr, "proc_bench: --isa: '%s': not one of portable, avx2, avx512, auto (at most 8)\n",
						tok);
					return 2;
				}
				if (!skin_proc_isa_supported((enum skin_proc_isa)isa)) {
					fprintf(stderr, "proc_bench: this CPU cannot run %s\n", tok);
					return 2;
				}
				isas[n_isa++] = (enum skin_proc_isa)isa;
			}
			if (!n_isa) {
				fprintf(stderr, "proc_bench: --isa: no form named\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: proc_bench [--reps N] [--cpu N] [--config PATH] [--only MODE:SCALE:CONTACTS] [--isa NAME[,NAME...]]\n");
			return 2;
		}
	}
	if (reps < 3)
		reps = 3;
	if (cpu < 0)
		cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "proc_bench: cannot pin to cpu %d: %s\n", cpu, strerror(errno));
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "proc_bench: %s: %s\n", tmpdir, strerror(errno));
		return 1;
	}
	conf = read_all(conf_path);
	if (!conf) {
		fprintf(stderr, "proc_bench: %s: %s\n", conf_path, strerror(errno));
		return 1;
	}
	memset(b, 0, sizeof(b));
	for (mode = 0; mode < 2; mode++)
		for (i = 0; i < 3; i++)
			for (r = 0; r < 3; r++) {
				struct bench *x;
				char id[32];

				snprintf(id, sizeof(id), "%s:%u:%u", mode ? "compat" : "default",
					 scales[i], contacts[r]);
				if (only && strcmp(only, id))
					continue;
				for (ia = 0; ia < n_isa; ia++) {
					x = &b[nb++];
					x->scale = scales[i];
					x->contacts = contacts[r];
					x->compat = mode;
					x->isa = isas[ia];
					bench_setup(x, conf, conf_path);
					x->ns = calloc(reps, sizeof(double));
				}
			}
	copy_ns = calloc(reps, sizeof(double));
	printf("proc_bench: %s: %u parts, %u patches, %u tactile taxels at 1x; %u repetitions, cpu %d (pinned)\n",
	       conf_path, b[0].m->n_parts, b[0].m->n_patches, b[0].n_tactile, reps, cpu);
	for (r = 0; r <= reps; r++) {	/* repetition 0 warms up */
		copy_ns[r ? r - 1 : 0] = copy_run(&b[0], 2000);
		for (i = 0; i < nb; i++) {
			double t = bench_run(&b[i], 2000 / b[i].scale);

			if (r)
				b[i].ns[r - 1] = t;
		}
	}
	for (i = 0; i < nb; i++)
		if (b[i].found != b[i].contacts * b[i].scale / b[i].scale) {
			fprintf(stderr, "proc_bench: %s %ux %u contacts: found %u\n",
				b[i].compat ? "compat" : "default", b[i].scale,
				b[i].contacts, b[i].found);
			return 1;
		}
	printf("\n%-7s %-5s %-8s %-8s %8s %10s %10s %12s %8s %8s %8s\n", "mode", "scale",
	       "contacts", "isa", "found", "min ns", "median ns", "ns/taxel", "x copy",
	       "x 1x", "x first");
	{
		double cm = median(copy_ns, reps);

		printf("%-7s %-5s %-8s %-8s %8s %10.0f %10.0f %12s %8s %8s %8s\n", "copy", "1x",
		       "-", "-", "-", minimum(copy_ns, reps), cm, "-", "1.0", "-", "-");
		for (i = 0; i < nb; i++) {
			/* b[] is mode, scale, contacts, form, the last fastest */
			const unsigned int c = i / n_isa, f = i % n_isa;
			double med = median(b[i].ns, reps);
			double base = only ? med :
				median(b[(c - (c % 9) + (c % 3)) * n_isa + f].ns, reps);

			printf("%-7s %-5u %-8u %-8s %8u %10.0f %10.0f %12.2f %8.1f %8.2f %8.2f\n",
			       b[i].compat ? "compat" : "default", b[i].scale, b[i].contacts,
			       skin_proc_isa_name(skin_proc_isa(b[i].p)),
			       b[i].found, minimum(b[i].ns, reps), med,
			       med / b[i].n_tactile, med / cm, med / base,
			       med / median(b[i - f].ns, reps));
		}
		printf("\ncopy_ns_median=%.0f", cm);
		for (i = 0; i < nb; i++) {
			printf(" %s_%ux_%uc", b[i].compat ? "compat" : "default",
			       b[i].scale, b[i].contacts);
			if (n_isa > 1)
				printf("_%s", skin_proc_isa_name(skin_proc_isa(b[i].p)));
			printf("_ns_median=%.0f", median(b[i].ns, reps));
		}
		printf("\n");
	}
	for (i = 0; i < nb; i++) {
		skin_proc_free(b[i].p);
		skin_model_free(b[i].m);
		skin_config_free(b[i].cfg);
		free(b[i].frames);
		free(b[i].ns);
		unlink(b[i].cal);
	}
	rmdir(tmpdir);
	free(copy_ns);
	free(conf);
	return 0;
}
