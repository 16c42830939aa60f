// SPDX-License-Identifier: GPL-2.0
/*
 * proc.c - the processor object: creation (every allocation it will ever
 * make), parts and patches, getters, calibration requests, fault lists
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "conf.h"
#include "proc-private.h"

void proc_err(struct skin_error *err, const char *file, unsigned int line,
	      const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "(processing)");
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->what, sizeof(err->what), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err->text, sizeof(err->text), "%s:%u: %s", err->file,
			 line, err->what);
	else
		snprintf(err->text, sizeof(err->text), "%s: %s", err->file,
			 err->what);
}

static uint64_t seconds_ns(double s)
{
	return s <= 0 ? 0 : (uint64_t)llround(s * 1e9);
}

/* Values the per-sample path uses, computed once per parameter change. */
void proc_derive(struct skin_proc *p)
{
	const struct skin_config_comp *c = &p->prm;
	double n = round(c->calibration_s * 1000.0 / c->period_ms);
	unsigned int i, k;
	float a;

	/*
	 * skinManager's thread counts its calibration in cycles:
	 * CAL_SAMPLES = (int)(CAL_TIME / period in s), and it reads a
	 * sample at every count from 0 to CAL_SAMPLES inclusive
	 * (CompensationThread::run()), one more than CAL_SAMPLES: 251 for
	 * 5 s at 20 ms.  Per feed, period_ms is the feeds' interval and a
	 * calibration takes calibration_s of them.
	 */
	if (p->cycle && c->compat)
		n = trunc(c->calibration_s / (c->period_ms / 1000.0)) + 1;

	p->cal_samples = n < 1 ? 1 : n > PROC_CAL_MAX_SAMPLES ?
			 PROC_CAL_MAX_SAMPLES : (unsigned int)n;
	/*
	 * skinManager keeps smoothFactor in a float and computes
	 * (1 - smoothFactor) in float; 1 becomes 0.99 (setSmoothFactor:
	 * "otherwise with 1 the values don't update").
	 */
	a = (float)c->smooth_factor;
	if (a >= 1.0f)
		a = 0.99f;
	p->a_old = c->smooth_filter ? (double)a : 0.0;
	p->a_new = c->smooth_filter ? (double)(1.0f - a) : 1.0;
	p->add = c->add_threshold;
	p->g_free = c->compensation_gain * PROC_DRIFT_SCALE;
	p->g_touch = c->contact_compensation_gain * PROC_DRIFT_SCALE;
	p->stuck_ns = seconds_ns(c->stuck_s);
	p->sat_ns = seconds_ns(c->saturated_s);
	p->dead_ns = seconds_ns(c->dead_s);
	p->noisy_slice_ns = seconds_ns(c->noisy_s / PROC_NOISE_SLICES);
	p->noisy_step = (unsigned int)floor(c->noisy_counts);
	p->hold_max_ns = seconds_ns(c->hold_max_s);
	p->faults_on = c->fault_detection && !c->compat;
	p->hold_on = c->hold_contacts && !c->compat;
	p->recal_on = c->auto_recalibrate && !c->compat;
	for (i = 0; i <= PROC_MAX_SKIN; i++)
		p->vtab[i] = c->zero_up_raw_data ? i : PROC_MAX_SKIN - i;
	/* the touch levels follow add_threshold */
	for (i = 0; p->parts && i < p->n_parts; i++) {
		struct proc_part *pt = &p->parts[i];

		for (k = 0; k < pt->n; k++)
			pt->level[k] = pt->thr[k] + p->add;
	}
	/* and the dense pass's constants the parameters (skin_proc_new()
	 * makes them after the patches) */
	for (i = 0; p->patches && i < p->n_patches; i++)
		proc_patch_io(p, &p->patches[i]);
}

static void *zalloc(size_t n, size_t size, bool *oom)
{
	void *q = calloc(n ? n : 1, size);

	if (!q)
		*oom = true;
	return q;
}

/*
 * zalloc() aligned to a cache line (64 bytes), for the arrays the dense
 * pass streams through 64-byte vectors: a vector then touches one line,
 * not two.  *raw is what to free.
 */
static void *zalloc_line(size_t n, size_t size, void **raw, bool *oom)
{
	*raw = zalloc(n + 64 / size, size, oom);
	return *raw ? (void *)(((uintptr_t)*raw + 63) & ~(uintptr_t)63) : NULL;
}

/* Zeroed pages of their own, for what skin_proc_trim() gives back */
static void *zalloc_pages(size_t bytes, bool *oom)
{
	void *q = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (q == MAP_FAILED) {
		*oom = true;
		return NULL;
	}
	return q;
}

static void part_free(struct proc_part *pt)
{
	unsigned int i;

	free(pt->nb_start); free(pt->nb); free(pt->nb_mask); free(pt->nb_x); free(pt->pend);
	free(pt->mode); free(pt->kind); free(pt->has_pos); free(pt->mem.baseline); free(pt->initial);
	free(pt->thr); free(pt->mem.inv_thr); free(pt->mem.smooth); free(pt->mem.d);
	free(pt->mem.value); free(pt->byte); free(pt->touched);
	free(pt->hold); free(pt->hold_ns);
	free(pt->fault); free(pt->fault_ns); free(pt->noise_n);
	free(pt->mem.raw_ns); free(pt->mem.level); free(pt->special); free(pt->mem.act); free(pt->valid);
	if (pt->hist)
		munmap(pt->hist, pt->hist_bytes);
	free(pt->sum); free(pt->recal_n); free(pt->cal_baseline);
	free(pt->cal_thr); free(pt->owner[0]); free(pt->owner[1]); free(pt->queue);
	free(pt->overlap); free(pt->claim);
	free(pt->best); free(pt->best_n); free(pt->count); free(pt->seen);
	free(pt->geom);
	for (i = 0; i < 2; i++) {
		free(pt->cb[i].c);
		free(pt->cb[i].taxels);
	}
}

/*
 * The part's neighbour graph for the clustering's walk: part-local, only
 * neighbours inside the part (the walk skipped the others).  Most of a
 * taxel's neighbours are in its own patch: those are a 192-bit mask per
 * taxel, which the walk ANDs with the patch's mask of touched taxels not
 * yet labelled (three words instead of a test per edge); the others are
 * a compact list, so that the walk checks no bound per edge.  A taxel
 * without a position has no edges: its mask is the other position-less
 * taxels of its triangle (what the walk groups, contact.c).
 */
static bool part_neighbours(const struct skin_model *m,
			    const struct skin_part *sp, struct proc_part *pt)
{
	const unsigned int base = sp->first_taxel;
	/* 3 per patch, of the part's patches (contact.c scans them all)
	 * and of its slots (a patch past the part's slots has none) */
	const size_t slots = ((size_t)pt->n + SKIN_VALUES_PER_PATCH - 1) /
			     SKIN_VALUES_PER_PATCH;
	const size_t words = 3 * (slots > pt->n_patches ? slots : pt->n_patches);
	unsigned int k, e, n = 0;

	pt->nb_start = calloc((size_t)pt->n + 1, sizeof(*pt->nb_start));
	pt->nb = malloc(((size_t)m->nbr_start[base + pt->n] -
			 m->nbr_start[base] + 1) * sizeof(*pt->nb));
	pt->nb_mask = calloc((size_t)pt->n + 1, sizeof(*pt->nb_mask));
	pt->nb_x = calloc(words + 1, sizeof(*pt->nb_x));
	pt->pend = calloc(words + 1, sizeof(*pt->pend));
	if (!pt->nb_start || !pt->nb || !pt->nb_mask || !pt->nb_x || !pt->pend)
		return false;
	for (k = 0; k < pt->n; k++) {
		const unsigned int patch = k / SKIN_VALUES_PER_PATCH;

		pt->nb_start[k] = n;
		if (!pt->has_pos[k]) {
			/* no edges: the walk groups the position-less
			 * taxels of a triangle (contact.c) */
			unsigned int t0 = k - k % SKIN_CHANNELS_PER_TRIANGLE, q;

			for (q = t0; q < t0 + SKIN_CHANNELS_PER_TRIANGLE &&
			     q < pt->n; q++)
				if (q != k && !pt->has_pos[q]) {
					unsigned int o = q % SKIN_VALUES_PER_PATCH;

					proc_bit_set(&pt->nb_mask[k], o, true);
				}
			continue;
		}
		for (e = m->nbr_start[base + k]; e < m->nbr_start[base + k + 1]; e++) {
			unsigned int q = m->nbr[e] - base;

			if (q >= pt->n)
				continue;
			if (q / SKIN_VALUES_PER_PATCH == patch) {
				unsigned int o = q % SKIN_VALUES_PER_PATCH;

				proc_bit_set(&pt->nb_mask[k], o, true);
			} else {
				pt->nb[n++] = q;
			}
		}
	}
	pt->nb_start[pt->n] = n;
	for (k = 0; k < pt->n; k++)
		if (pt->nb_start[k + 1] != pt->nb_start[k])
			pt->nb_x[k / 64] |= 1ull << (k % 64);
	pt->nb_of = m->nbr_start;
	pt->nb_count = m->n_nbr;
	return true;
}

static bool part_alloc(struct proc_part *pt)
{
	size_t n = pt->n;
	bool oom = false;
	unsigned int i;

	pt->mode = zalloc(n, 1, &oom);
	pt->kind = zalloc(n, 1, &oom);
	pt->has_pos = zalloc(n, 1, &oom);
	pt->baseline = zalloc_line(n, sizeof(double), &pt->mem.baseline, &oom);
	pt->initial = zalloc(n, sizeof(double), &oom);
	pt->thr = zalloc(n, sizeof(double), &oom);
	pt->inv_thr = zalloc_line(n, sizeof(double), &pt->mem.inv_thr, &oom);
	pt->smooth = zalloc_line(n, sizeof(double), &pt->mem.smooth, &oom);
	pt->d = zalloc_line(n, sizeof(double), &pt->mem.d, &oom);
	pt->value = zalloc_line(n, sizeof(double), &pt->mem.value, &oom);
	pt->byte = zalloc(n, 1, &oom);
	pt->touched = zalloc(n, 1, &oom);
	pt->hold = zalloc(n, 1, &oom);
	pt->hold_ns = zalloc(n, sizeof(uint64_t), &oom);
	pt->fault = zalloc(n, 1, &oom);
	pt->fault_ns = zalloc(n, sizeof(uint64_t), &oom);
	pt->noise_n = zalloc((size_t)pt->n_patches * PROC_NOISE_ROWS *
			     SKIN_VALUES_PER_PATCH, sizeof(uint16_t), &oom);
	pt->raw_ns = zalloc_line(n, sizeof(uint64_t), &pt->mem.raw_ns, &oom);
	pt->level = zalloc_line(n, sizeof(double), &pt->mem.level, &oom);
	pt->special = zalloc(n, 1, &oom);
	pt->act = zalloc_line(n, sizeof(double), &pt->mem.act, &oom);
	pt->hist_bytes = (size_t)n * (PROC_MAX_SKIN + 1) * sizeof(uint16_t);
	pt->hist = zalloc_pages(pt->hist_bytes, &oom);
	pt->valid = zalloc(n, sizeof(uint32_t), &oom);
	pt->sum = zalloc(n, sizeof(uint64_t), &oom);
	pt->recal_n = zalloc(n, sizeof(uint32_t), &oom);
	pt->cal_baseline = zalloc(n, sizeof(double), &oom);
	pt->cal_thr = zalloc(n, sizeof(double), &oom);
	pt->owner[0] = zalloc(n, sizeof(int32_t), &oom);
	pt->owner[1] = zalloc(n, sizeof(int32_t), &oom);
	pt->queue = zalloc(n, sizeof(unsigned int), &oom);
	pt->overlap = zalloc(n + 1, sizeof(unsigned int), &oom);
	pt->claim = zalloc(n + 1, sizeof(int32_t), &oom);
	pt->best = zalloc(n + 1, sizeof(unsigned int), &oom);
	pt->best_n = zalloc(n + 1, sizeof(unsigned int), &oom);
	pt->count = zalloc(n + 1, sizeof(unsigned int), &oom);
	pt->seen = zalloc(n + 2, sizeof(int32_t), &oom);
	pt->geom = zalloc(6 * n + 1, sizeof(double), &oom);
	for (i = 0; i < 2; i++) {
		pt->cb[i].c = zalloc(n + 1, sizeof(struct skin_contact), &oom);
		pt->cb[i].taxels = zalloc(n, sizeof(unsigned int), &oom);
	}
	if (oom)
		return false;
	for (i = 0; i < n; i++) {
		pt->owner[0][i] = -1;
		pt->owner[1][i] = -1;
		pt->thr[i] = PROC_MIN_TOUCH_THR;
		pt->inv_thr[i] = 1.0 / PROC_MIN_TOUCH_THR;
		pt->level[i] = PROC_MIN_TOUCH_THR;
	}
	return true;
}

/* Every parameter in the range skind.conf's parser allows: one table,
 * lib/conf/skind.c, for the file, skind's set and this check. */
static const char *check_params(const struct skin_config_comp *c,
				char *why, size_t why_len)
{
	return conf_keys_check(conf_comp_keys, conf_comp_n_keys, c, why,
			       why_len) ? why : NULL;
}

struct skin_proc *skin_proc_new(const struct skin_model *m,
				const struct skin_config_comp *comp,
				struct skin_error *err)
{
	return skin_proc_new_opts(m, comp, NULL, err);
}

enum skin_proc_isa skin_proc_isa(const struct skin_proc *p)
{
	return p->isa;
}

struct skin_proc *skin_proc_new_opts(const struct skin_model *m,
				     const struct skin_config_comp *comp,
				     const struct skin_proc_opts *opts,
				     struct skin_error *err)
{
	const enum skin_proc_isa want = opts ? opts->isa : SKIN_PROC_ISA_AUTO;
	enum skin_proc_isa isa;
	struct skin_config_comp def;
	struct skin_proc *p;
	const char *bad;
	char why[160];
	unsigned int i, k;
	bool oom = false;

	if (!comp) {
		skin_config_comp_default(&def);
		comp = &def;
	}
	if ((bad = check_params(comp, why, sizeof(why)))) {
		proc_err(err, NULL, 0, "%s", bad);
		return NULL;
	}
	if (!skin_proc_isa_name(want)) {
		proc_err(err, NULL, 0, "unknown instruction set %d", (int)want);
		return NULL;
	}
	if (proc_isa_resolve(want, &isa)) {
		proc_err(err, NULL, 0, "this CPU cannot run the %s form of the processing",
			 skin_proc_isa_name(want));
		return NULL;
	}
	if (!m || !m->n_parts) {
		proc_err(err, NULL, 0, "the model has no parts");
		return NULL;
	}
	for (i = 0; i < m->n_parts; i++) {
		const struct skin_part *sp = &m->parts[i];

		if (!sp->n_patches ||
		    sp->n_taxels > sp->n_patches * SKIN_VALUES_PER_PATCH) {
			proc_err(err, NULL, 0,
				 "part %s: %u taxels on %u patch(es): the processor needs a model built from skind.conf",
				 sp->name, sp->n_taxels, sp->n_patches);
			return NULL;
		}
		for (k = 0; k < sp->n_taxels; k++)
			if (m->taxels[sp->first_taxel + k].index != k) {
				proc_err(err, NULL, 0,
					 "part %s: taxel %u has data index %u: the processor needs a model built from skind.conf (one taxel per slot)",
					 sp->name, k,
					 m->taxels[sp->first_taxel + k].index);
				return NULL;
			}
	}
	for (i = 0; i < m->n_patches; i++)
		if (m->patches[i].part >= m->n_parts) {
			proc_err(err, NULL, 0, "patch %u belongs to no part", i);
			return NULL;
		}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto oom;
	p->m = m;
	p->prm = *comp;
	p->isa = isa;
	p->cycle = opts && opts->cycle;
	proc_derive(p);
	p->next_id = 1;
	p->n_parts = m->n_parts;
	p->n_patches = m->n_patches;
	p->parts = calloc(m->n_parts, sizeof(*p->parts));
	p->patches = calloc(m->n_patches ? m->n_patches : 1, sizeof(*p->patches));
	if (!p->parts || !p->patches)
		goto oom_free;
	for (i = 0; i < m->n_parts; i++) {
		const struct skin_part *sp = &m->parts[i];
		struct proc_part *pt = &p->parts[i];

		pt->index = i;
		pt->n = sp->n_taxels;
		pt->first_patch = sp->first_patch;
		pt->n_patches = sp->n_patches;
		if (!part_alloc(pt))
			goto oom_free;
		for (k = 0; k < pt->n; k++) {
			pt->kind[k] = (uint8_t)m->taxels[sp->first_taxel + k].kind;
			pt->has_pos[k] = !!(m->taxels[sp->first_taxel + k].flags &
					    SKIN_TAXEL_HAS_POS);
			memcpy(pt->geom + 6 * (size_t)k,
			       m->taxels[sp->first_taxel + k].pos,
			       3 * sizeof(double));
			memcpy(pt->geom + 6 * (size_t)k + 3,
			       m->taxels[sp->first_taxel + k].normal,
			       3 * sizeof(double));
			if (pt->kind[k] == SKIN_TAXEL_TACTILE)
				pt->n_tactile++;
		}
		if (m->nbr_start && !part_neighbours(m, sp, pt))
			goto oom_free;
	}
	for (i = 0; i < m->n_parts; i++)
		p->parts[i].patch0 = &p->patches[m->parts[i].first_patch];
	for (i = 0; i < m->n_patches; i++) {
		const struct skin_patch *mp = &m->patches[i];
		struct proc_patch *pp = &p->patches[i];

		if (mp->part >= m->n_parts || mp->order >= m->parts[mp->part].n_patches ||
		    m->parts[mp->part].first_patch + mp->order != i) {
			proc_err(err, NULL, 0,
				 "patch %u is not in its part's order: the processor needs a model built from skind.conf",
				 i);
			skin_proc_free(p);
			return NULL;
		}
		struct proc_part *pt = &p->parts[mp->part];
		unsigned int first = mp->order * SKIN_VALUES_PER_PATCH;

		pp->part = mp->part;
		pp->first = first;
		pp->hold_lo = UINT64_MAX;	/* no hold yet */
		pp->n_slots = first >= pt->n ? 0 :
			      pt->n - first < SKIN_VALUES_PER_PATCH ?
			      pt->n - first : SKIN_VALUES_PER_PATCH;
		pp->tactile = zalloc(SKIN_VALUES_PER_PATCH, sizeof(uint16_t), &oom);
		pp->touched = zalloc(SKIN_VALUES_PER_PATCH, sizeof(unsigned int),
				     &oom);
		if (oom)
			goto oom_free;
		for (k = 0; k < pp->n_slots; k++)
			if (pt->kind[first + k] == SKIN_TAXEL_TACTILE) {
				pp->tactile[pp->n_tactile++] = (uint16_t)k;
				proc_bit_set(&pp->tact, k, true);
				pp->tri_tactile |= (uint16_t)(1u << (k / SKIN_CHANNELS_PER_TRIANGLE));
			}
		/* whole groups of 4 slots: a triangle (12 slots) is 3 */
		for (k = 0; k < (pp->n_slots + 3) / 4; k++)
			if (pp->tri_tactile & (1u << (4 * k / SKIN_CHANNELS_PER_TRIANGLE))) {
				pp->groups |= 1ull << k;
				pp->slots.w[k / 16] |= 0xfull << (4 * (k % 16));
			}
		pp->ops = proc_isa_ops_for(p->isa, pp->n_slots);
		proc_patch_io(p, pp);
	}
	return p;
oom_free:
	skin_proc_free(p);
oom:
	proc_err(err, NULL, 0, "out of memory");
	return NULL;
}

void skin_proc_free(struct skin_proc *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; p->parts && i < p->n_parts; i++)
		part_free(&p->parts[i]);
	for (i = 0; p->patches && i < p->n_patches; i++) {
		free(p->patches[i].tactile);
		free(p->patches[i].touched);
	}
	free(p->parts);
	free(p->patches);
	free(p);
}

const struct skin_model *skin_proc_model(const struct skin_proc *p)
{
	return p->m;
}

const struct skin_config_comp *skin_proc_params(const struct skin_proc *p)
{
	return &p->prm;
}

int skin_proc_patch_find(const struct skin_proc *p, const char *bus,
			 int address)
{
	unsigned int i;

	for (i = 0; i < p->m->n_patches; i++) {
		const struct skin_patch *mp = &p->m->patches[i];

		if (mp->address == address && mp->bus && bus &&
		    !strcmp(mp->bus, bus))
			return (int)i;
	}
	return -1;
}

int skin_proc_feed(struct skin_proc *p, unsigned int patch,
		   const struct skin_frame *f)
{
	if (patch >= p->n_patches || !f)
		return -EINVAL;
	return proc_feed(p, &p->patches[patch], f);
}

int skin_proc_cycle(struct skin_proc *p, unsigned int part, uint64_t ts_ns)
{
	if (part >= p->n_parts)
		return -EINVAL;
	if (!proc_cycled(p))
		return 0;
	return proc_cycle(p, &p->parts[part], ts_ns);
}

int skin_proc_calibrate(struct skin_proc *p, int part)
{
	unsigned int i;

	if (part >= (int)p->n_parts || part < -1)
		return -EINVAL;
	for (i = 0; i < p->n_parts; i++)
		if (part < 0 || (unsigned int)part == i)
			proc_cal_start(p, &p->parts[i]);
	return 0;
}

void skin_proc_trim(struct skin_proc *p, int part)
{
	unsigned int i, k;

	for (i = 0; i < p->n_parts; i++) {
		struct proc_part *pt = &p->parts[i];

		if ((part >= 0 && (unsigned int)part != i) || !pt->hist ||
		    pt->state == SKIN_PROC_CALIBRATING)
			continue;
		for (k = 0; k < pt->n && pt->mode[k] != MODE_RECAL; k++)
			;
		if (k < pt->n)
			continue;	/* a taxel's own recalibration counts */
		/* zero pages again, faulted in by the next calibration's
		 * clear; locked memory (skind --mlock) refuses, and stays */
		(void)madvise(pt->hist, pt->hist_bytes, MADV_DONTNEED);
	}
}

enum skin_proc_state skin_proc_state(const struct skin_proc *p,
				     unsigned int part)
{
	return part < p->n_parts ? p->parts[part].state : SKIN_PROC_UNCALIBRATED;
}

const char *skin_proc_reason(const struct skin_proc *p, unsigned int part)
{
	return part < p->n_parts ? p->parts[part].reason : "";
}

void skin_proc_calibration_progress(const struct skin_proc *p,
				    unsigned int part, unsigned int *done,
				    unsigned int *needed)
{
	const struct proc_part *pt;
	unsigned int i, least = p->cal_samples;

	*needed = p->cal_samples;
	*done = 0;
	if (part >= p->n_parts)
		return;
	pt = &p->parts[part];
	if (pt->state != SKIN_PROC_CALIBRATING) {
		*done = pt->calibrated ? p->cal_samples : 0;
		return;
	}
	for (i = 0; i < pt->n_patches; i++) {
		const struct proc_patch *pp = &p->patches[pt->first_patch + i];

		if (pp->cal_done < least)
			least = pp->cal_done;
	}
	*done = least;
}

#define PART_GETTER(name, type, field)					\
	const type *skin_proc_##name(const struct skin_proc *p,		\
				     unsigned int part)			\
	{								\
		return part < p->n_parts ? p->parts[part].field : NULL;	\
	}

PART_GETTER(values, double, value)
PART_GETTER(bytes, uint8_t, byte)
PART_GETTER(touched, uint8_t, touched)
PART_GETTER(faults, uint8_t, fault)
PART_GETTER(baselines, double, baseline)
PART_GETTER(thresholds, double, thr)
PART_GETTER(initial_baselines, double, initial)

int skin_proc_cluster(struct skin_proc *p, unsigned int part)
{
	if (part >= p->n_parts)
		return -EINVAL;
	return proc_cluster(p, &p->parts[part]);
}

unsigned int skin_proc_contacts(const struct skin_proc *p, unsigned int part,
				const struct skin_contact **out)
{
	const struct proc_contact_buf *cb;

	if (part >= p->n_parts) {
		*out = NULL;
		return 0;
	}
	cb = &p->parts[part].cb[p->parts[part].cur];
	*out = cb->c;
	return cb->n;
}

int skin_proc_fault_list(const struct skin_proc *p, int part,
			 struct skin_taxel_fault *out, unsigned int max)
{
	unsigned int i, k, n = 0;

	if (part >= (int)p->n_parts || part < -1)
		return -EINVAL;
	for (i = 0; i < p->n_parts; i++) {
		const struct proc_part *pt = &p->parts[i];

		if (part >= 0 && (unsigned int)part != i)
			continue;
		for (k = 0; k < pt->n; k++) {
			if (!pt->fault[k])
				continue;
			if (n < max && out) {
				out[n].part = i;
				out[n].taxel = k;
				out[n].flags = pt->fault[k];
				out[n].since_ns = pt->fault_ns[k];
			}
			n++;
		}
	}
	return (int)n;
}

int skin_fault_names(unsigned int flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"stuck", "saturated", "dead", "diagnostics", "calibration",
		"noisy",
	};
	size_t off = 0;
	unsigned int i;
	int w;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & (1u << i)))
			continue;
		w = snprintf(buf + (off < len ? off : len),
			     off < len ? len - off : 0, "%s%s",
			     off ? "," : "", names[i]);
		off += (size_t)w;
	}
	return (int)off;
}
