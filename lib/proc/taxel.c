// SPDX-License-Identifier: GPL-2.0
/*
 * taxel.c - the per-taxel pipeline: calibration, compensation, smoothing,
 * touch, drift, and skind's improvements (hold, self-recalibration,
 * faults).  Everything here runs in the sample path: no allocation, no
 * lock, no system call (docs/PROCESSING.md has the formulas).
 *
 * Compat mode follows skinManager's Compensator (icub-main
 * src/modules/skinManager/src/compensator.cpp), per sample:
 * readRawAndWriteCompensatedData() then updateBaseline():
 *
 *	d = min(255, (255 - raw) - baseline)
 *	touch = d > thr + addThreshold			(unsmoothed)
 *	d' = (1 - a) d + a d'_prev			(smoothFilter)
 *	touchFilt = d' > thr + addThreshold		(contacts use this)
 *	out = max(0, binarization ? (touchFilt ? 100 : 0) : d')
 *	baseline += 0.02 gain d / thr	gain: contact gain when touch
 *
 * and calibrationFinish(): baseline = float(sum) / N, thr = the first
 * value j whose cumulative count exceeds 0.95 N, minus the baseline, at
 * least 1; the smoothing state starts at the baselines.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proc-private.h"

#define HIST(pt, k)	(&(pt)->hist[(size_t)(k) * (PROC_MAX_SKIN + 1)])

static inline unsigned int v_of(const struct skin_proc *p, uint8_t raw)
{
	return p->prm.zero_up_raw_data ? raw : PROC_MAX_SKIN - raw;
}

static void taxel_outputs_zero(struct proc_part *pt, unsigned int k)
{
	pt->value[k] = 0;
	pt->filt[k] = 0;
	pt->byte[k] = 0;
	pt->touched[k] = 0;
	pt->touch_raw[k] = 0;
	pt->hold[k] = 0;
	proc_mark(pt, k);
}

static void hist_clear(struct proc_part *pt, unsigned int k)
{
	memset(HIST(pt, k), 0, (PROC_MAX_SKIN + 1) * sizeof(uint32_t));
	pt->sum[k] = 0;
	pt->valid[k] = 0;
}

void proc_cal_start(struct skin_proc *p, struct proc_part *pt)
{
	unsigned int i, k;

	pt->state = SKIN_PROC_CALIBRATING;
	pt->reason[0] = '\0';
	for (k = 0; k < pt->n; k++) {
		taxel_outputs_zero(pt, k);
		if (pt->kind[k] == SKIN_TAXEL_TACTILE)
			hist_clear(pt, k);
	}
	for (i = 0; i < pt->n_patches; i++) {
		struct proc_patch *pp = &p->patches[pt->first_patch + i];

		pp->cal_done = 0;
		pp->cal_active = true;
		pp->n_touched = 0;
	}
}

/*
 * The 95th-percentile rule on a taxel's histogram of @n readings: the
 * first value j whose cumulative count exceeds 0.95 n.  -1 when n is 0.
 */
static int percentile95(const uint32_t *h, unsigned int n)
{
	uint64_t cum = 0;
	int j;

	for (j = 0; j <= PROC_MAX_SKIN; j++) {
		cum += h[j];
		if ((double)cum > n * 0.95)
			return j;
	}
	return -1;
}

static void hist_range(const uint32_t *h, int *lo, int *hi)
{
	int j;

	*lo = *hi = -1;
	for (j = 0; j <= PROC_MAX_SKIN; j++)
		if (h[j]) {
			if (*lo < 0)
				*lo = j;
			*hi = j;
		}
}

/* Baseline and raw threshold of taxel k from its histogram; false when too
 * few of its readings were valid (fewer than 95% of @expected). */
static bool taxel_calibration(const struct skin_proc *p,
			      const struct proc_part *pt, unsigned int k,
			      unsigned int expected, double *baseline,
			      double *thr)
{
	unsigned int n = pt->valid[k];
	int j;

	if (!n || n < expected * 0.95)
		return false;
	if (p->prm.compat)
		/* start_sum is a vector<float>; float / int in float */
		*baseline = (double)((float)pt->sum[k] / (float)n);
	else
		*baseline = (double)pt->sum[k] / n;
	j = percentile95(HIST(pt, k), n);
	*thr = (double)j - *baseline;
	return true;
}

static void set_threshold(struct skin_proc *p, struct proc_part *pt,
			  unsigned int k, double thr)
{
	pt->thr[k] = thr > PROC_MIN_TOUCH_THR ? thr : PROC_MIN_TOUCH_THR;
	pt->inv_thr[k] = 1.0 / pt->thr[k];
	pt->level[k] = pt->thr[k] + p->add;
}

/*
 * Median of the part's calibration baselines, to the count: a histogram
 * (no sort, no allocation).
 */
static double median_baseline(struct skin_proc *p, struct proc_part *pt,
			      unsigned int n_ok)
{
	unsigned int k, seen = 0;
	int j;

	memset(p->median_hist, 0, sizeof(p->median_hist));
	for (k = 0; k < pt->n; k++)
		if (pt->kind[k] == SKIN_TAXEL_TACTILE &&
		    !(pt->fault[k] & SKIN_FAULT_CALIBRATION)) {
			double b = pt->cal_baseline[k];
			int bin = b < 0 ? 0 : b > PROC_MAX_SKIN ? PROC_MAX_SKIN :
				  (int)lround(b);

			p->median_hist[bin]++;
		}
	for (j = 0; j <= PROC_MAX_SKIN; j++) {
		seen += p->median_hist[j];
		if (2 * seen >= n_ok)
			return j;
	}
	return PROC_MAX_SKIN;
}

/* The part's new calibration is accepted: it replaces the old one. */
static void commit_calibration(struct skin_proc *p, struct proc_part *pt,
			       uint64_t ts)
{
	unsigned int k;

	for (k = 0; k < pt->n; k++) {
		taxel_outputs_zero(pt, k);
		pt->fault[k] = 0;
		pt->fault_ns[k] = 0;
		pt->d[k] = 0;
		pt->raw_ns[k] = 0;	/* set by the next sample */
		pt->last_raw[k] = 0;
		pt->recal_n[k] = 0;
		if (pt->kind[k] != SKIN_TAXEL_TACTILE) {
			pt->mode[k] = MODE_OFF;
			continue;
		}
		pt->mode[k] = MODE_RUN;
		if (pt->cal_baseline[k] < 0) {	/* too few valid readings */
			pt->fault[k] = SKIN_FAULT_CALIBRATION;
			pt->fault_ns[k] = ts;
			if (p->prm.auto_recalibrate && !p->prm.compat) {
				pt->mode[k] = MODE_RECAL;
				hist_clear(pt, k);
			}
			continue;
		}
		pt->baseline[k] = pt->cal_baseline[k];
		pt->initial[k] = pt->cal_baseline[k];
		set_threshold(p, pt, k, pt->cal_thr[k]);
		/*
		 * skinManager starts the smoothing state at the baselines
		 * ("to get a smooth start"), so its first outputs decay
		 * from about baseline / 2; skind starts it at 0.
		 */
		pt->smooth[k] = p->prm.compat ? pt->baseline[k] : 0;
	}
	for (k = 0; k < pt->n; k++)
		proc_mark(pt, k);
	for (k = 0; k < pt->n_patches; k++)
		p->patches[pt->first_patch + k].next_check_ns = 0;
	pt->state = SKIN_PROC_RUNNING;
	pt->calibrated = true;
	pt->reason[0] = '\0';
}

static int refuse(struct proc_part *pt, const struct skin_model *m,
		  const char *why)
{
	snprintf(pt->reason, sizeof(pt->reason), "part %s: %s",
		 m->parts[pt->index].name, why);
	pt->state = pt->calibrated ? SKIN_PROC_RUNNING : SKIN_PROC_UNCALIBRATED;
	return SKIN_PROC_EV_CAL_FAILED;
}

/*
 * Every patch of the part has its samples: compute, check, commit or
 * refuse.  The calibration-completing sample costs a histogram scan per
 * taxel (256 steps), bounded and allocation-free like the rest.
 */
static int finish_calibration(struct skin_proc *p, struct proc_part *pt,
			      uint64_t ts)
{
	const unsigned int n_exp = p->cal_samples;
	unsigned int k, n_ok = 0, n_255 = 0, n_quiet = 0, n_touched = 0;
	int first_touched = -1, lo, hi;
	double median, worst = 0;
	char why[200];
	bool spread_kind = false;

	for (k = 0; k < pt->n; k++) {
		double b, t;

		pt->cal_baseline[k] = -1;
		if (pt->kind[k] != SKIN_TAXEL_TACTILE)
			continue;
		if (!taxel_calibration(p, pt, k, n_exp, &b, &t))
			continue;
		pt->cal_baseline[k] = b;
		pt->cal_thr[k] = t;
		n_ok++;
		if (b == PROC_MAX_SKIN)
			n_255++;
		if (t <= 1e-5)
			n_quiet++;
	}
	if (!pt->n_tactile)
		return refuse(pt, p->m, "no tactile taxels");
	if (!n_ok)
		return refuse(pt, p->m,
			      "the skin is broken: no taxel gave 95% valid readings (no triangle sent data)");
	/* skinManager's checks (calibrationFinish) */
	if (n_255 == n_ok)
		return refuse(pt, p->m,
			      "the skin is broken: every baseline is 255 (raw values 0)");
	if (n_quiet == n_ok)
		return refuse(pt, p->m,
			      "the skin is broken: no taxel shows any noise (every value constant)");
	if (p->prm.calibration_check && !p->prm.compat) {
		median = median_baseline(p, pt, n_ok);
		for (k = 0; k < pt->n; k++) {
			double over;
			int spread;

			if (pt->cal_baseline[k] < 0)
				continue;
			hist_range(HIST(pt, k), &lo, &hi);
			spread = hi - lo;
			over = pt->cal_baseline[k] - median;
			if (spread > p->prm.calibration_spread ||
			    over > p->prm.calibration_offset) {
				if (first_touched < 0 ||
				    spread - p->prm.calibration_spread > worst ||
				    over - p->prm.calibration_offset > worst) {
					spread_kind = spread - p->prm.calibration_spread >=
						      over - p->prm.calibration_offset;
					worst = spread_kind ?
						spread - p->prm.calibration_spread :
						over - p->prm.calibration_offset;
					first_touched = (int)k;
				}
				n_touched++;
			}
		}
		if (n_touched) {
			k = (unsigned int)first_touched;
			hist_range(HIST(pt, k), &lo, &hi);
			if (spread_kind)
				snprintf(why, sizeof(why),
					 "touched during calibration: %u taxel(s) moved, e.g. taxel %u by %d counts (calibration_spread %g)",
					 n_touched, k, hi - lo,
					 p->prm.calibration_spread);
			else
				snprintf(why, sizeof(why),
					 "touched during calibration: %u taxel(s) pressed, e.g. taxel %u at %.1f counts above the part's median baseline %.0f (calibration_offset %g)",
					 n_touched, k, pt->cal_baseline[k] - median,
					 median, p->prm.calibration_offset);
			return refuse(pt, p->m, why);
		}
	}
	commit_calibration(p, pt, ts);
	return SKIN_PROC_EV_CALIBRATED;
}

static int collect(struct skin_proc *p, struct proc_patch *pp,
		   const struct skin_frame *f)
{
	struct proc_part *pt = &p->parts[pp->part];
	unsigned int i;

	for (i = 0; i < pp->n_tactile; i++) {
		unsigned int o = pp->tactile[i], k = pp->first + o;
		unsigned int v = v_of(p, f->values[o]);

		/* a reading is valid when its triangle sent it in this
		 * sample; skinManager counts every reading */
		if (!p->prm.compat &&
		    !(f->refreshed & (1u << (o / SKIN_CHANNELS_PER_TRIANGLE))))
			continue;
		HIST(pt, k)[v]++;
		pt->sum[k] += v;
		pt->valid[k]++;
	}
	if (++pp->cal_done < p->cal_samples)
		return 0;
	pp->cal_active = false;
	for (i = 0; i < pt->n_patches; i++)
		if (p->patches[pt->first_patch + i].cal_active)
			return 0;
	return finish_calibration(p, pt, f->timestamp_ns);
}

/*
 * Improvement b: a taxel whose baseline left [min_baseline, 255 -
 * min_baseline] recalibrates alone over the calibration time, outputting
 * 0 meanwhile.  The result is taken only if the readings stayed within
 * calibration_spread (nobody touched it) and the baseline is back in the
 * safe range; otherwise it marks the taxel saturated and tries again.
 */
static int recal_step(struct skin_proc *p, struct proc_part *pt,
		      unsigned int k, unsigned int v, bool fresh, uint64_t ts)
{
	double b, t, lo_b = p->prm.min_baseline,
	       hi_b = PROC_MAX_SKIN - p->prm.min_baseline;
	int lo, hi, ev = 0;

	if (fresh) {
		HIST(pt, k)[v]++;
		pt->sum[k] += v;
		pt->valid[k]++;
	}
	if (++pt->recal_n[k] < p->cal_samples)
		return 0;
	hist_range(HIST(pt, k), &lo, &hi);
	if (taxel_calibration(p, pt, k, p->cal_samples, &b, &t) &&
	    hi - lo <= p->prm.calibration_spread) {
		if (b >= lo_b && b <= hi_b) {
			pt->baseline[k] = b;
			set_threshold(p, pt, k, t);
			pt->smooth[k] = 0;
			pt->mode[k] = MODE_RUN;
			pt->fault[k] &= (uint8_t)~(SKIN_FAULT_SATURATED |
						   SKIN_FAULT_CALIBRATION);
			pt->raw_ns[k] = ts;
			ev |= SKIN_PROC_EV_RECAL | SKIN_PROC_EV_FAULTS;
		} else if (!(pt->fault[k] & SKIN_FAULT_SATURATED)) {
			if (!pt->fault[k])
				pt->fault_ns[k] = ts;
			pt->fault[k] |= SKIN_FAULT_SATURATED;
			ev |= SKIN_PROC_EV_FAULTS;
		}
	}
	/* else: touched or silent meanwhile: try again */
	pt->recal_n[k] = 0;
	hist_clear(pt, k);
	return ev;
}

static void recal_start(struct proc_part *pt, unsigned int k)
{
	pt->mode[k] = MODE_RECAL;
	pt->recal_n[k] = 0;
	hist_clear(pt, k);
	taxel_outputs_zero(pt, k);
	proc_mark(pt, k);
}

/* Channels each triangle's diagnostics word reports (12-bit masks);
 * returns whether any does. */
static bool diag_channels(const struct skin_frame *f,
			  uint16_t out[SKIN_TRIANGLES])
{
	unsigned int t;
	bool any = false;

	for (t = 0; t < SKIN_TRIANGLES; t++) {
		uint16_t w = (f->diag_valid & (1u << t)) ? f->diag[t] : 0;

		/* bits 15..4: out-of-range channels 0..11 (bit 4 + c);
		 * bit 0 no-ack, bit 1 not-connected: the whole triangle */
		out[t] = (w & 0x3) ? 0xfff : (uint16_t)(w >> 4);
		any |= out[t] != 0;
	}
	return any;
}

/*
 * Improvement c: the fault flags of the patch's taxels, evaluated every
 * PROC_FAULT_CHECK_NS of frame time and on every frame that carries (or
 * stopped carrying) diagnostics.  The sample loop only records when each
 * raw value last changed.
 */
static int check_faults(struct skin_proc *p, struct proc_patch *pp,
			const struct skin_frame *f, const uint16_t *diag)
{
	struct proc_part *pt = &p->parts[pp->part];
	const uint64_t ts = f->timestamp_ns;
	unsigned int i, t;
	int ev = 0;

	pp->tri_dead = 0;
	for (t = 0; t < SKIN_TRIANGLES; t++)
		if ((pp->tri_tactile & (1u << t)) &&
		    ts - pp->tri_refresh_ns[t] >= p->dead_ns)
			pp->tri_dead |= (uint16_t)(1u << t);
	for (i = 0; i < pp->n_tactile; i++) {
		const unsigned int o = pp->tactile[i], k = pp->first + o;
		const unsigned int tri = o / SKIN_CHANNELS_PER_TRIANGLE;
		const bool dead = pp->tri_dead & (1u << tri);
		const uint8_t raw = pt->last_raw[k];
		const bool rail = raw == 0 || raw == PROC_MAX_SKIN;
		unsigned int fl = pt->fault[k] & SKIN_FAULT_CALIBRATION;
		uint64_t still;

		if (!pt->raw_ns[k])
			pt->raw_ns[k] = ts;	/* first sample since calibration */
		still = ts - pt->raw_ns[k];
		/* a recalibration that keeps finding the baseline out of
		 * range holds SATURATED (recal_step) */
		if (pt->mode[k] == MODE_RECAL)
			fl |= pt->fault[k] & SKIN_FAULT_SATURATED;
		if (dead)
			fl |= SKIN_FAULT_DEAD;
		else if (rail && still >= p->sat_ns)
			fl |= SKIN_FAULT_SATURATED;	/* clamped: no noise */
		else if (!rail && still >= p->stuck_ns)
			fl |= SKIN_FAULT_STUCK;
		if (diag && (diag[tri] & (1u << (o % SKIN_CHANNELS_PER_TRIANGLE))))
			fl |= SKIN_FAULT_DIAG;
		if (fl != pt->fault[k]) {
			if (fl & ~pt->fault[k])
				pt->fault_ns[k] = ts;
			pt->fault[k] = (uint8_t)fl;
			if (fl && pt->touched[k])
				ev |= SKIN_PROC_EV_TOUCH;
			if (fl)
				taxel_outputs_zero(pt, k);
			proc_mark(pt, k);
			ev |= SKIN_PROC_EV_FAULTS;
		}
	}
	pp->next_check_ns = ts + PROC_FAULT_CHECK_NS;
	pp->diag_active = diag != NULL;
	return ev;
}

/*
 * One taxel in any state (recalibrating, faulty, held): the general path.
 * Identical results to the fast loop in run() for a taxel in none of them.
 */
static int taxel_slow(struct skin_proc *p, struct proc_part *pt,
		      struct proc_patch *pp, unsigned int k, uint8_t raw,
		      bool fresh, uint64_t ts, unsigned int *n_touched)
{
	const struct skin_config_comp *c = &p->prm;
	const double hyst = c->hold_hysteresis;
	double d, s, level, out;
	bool tr, tf;
	int ev = 0;

	if (pt->mode[k] == MODE_RECAL) {
		ev = recal_step(p, pt, k, v_of(p, raw), fresh, ts);
		proc_mark(pt, k);
		return ev;
	}
	if (pt->fault[k]) {
		if (pt->touched[k])
			ev |= SKIN_PROC_EV_TOUCH;
		taxel_outputs_zero(pt, k);
		return ev;
	}
	d = p->vtab[raw] - pt->baseline[k];
	if (d > PROC_MAX_SKIN)
		d = PROC_MAX_SKIN;
	level = pt->level[k];
	tr = d > level;
	s = p->a_new * d + p->a_old * pt->smooth[k];
	pt->smooth[k] = s;
	tf = s > level;
	if (c->hold_contacts && !c->compat) {
		/* improvement a: a touched taxel's baseline stays put (no
		 * "compensating away", icub-main #55) until d falls
		 * hold_hysteresis below the touch level or hold_max_s passes */
		uint8_t h = pt->hold[k];

		if (h & HOLD_ON) {
			if (d <= level - hyst)
				pt->hold[k] = 0;
			else if (p->hold_max_ns &&
				 ts - pt->hold_ns[k] >= p->hold_max_ns)
				pt->hold[k] = HOLD_EXPIRED;
			else
				tf = tf || s > level - hyst;
		} else if (h & HOLD_EXPIRED) {
			if (d <= level - hyst)
				pt->hold[k] = 0;
		} else if (tr) {
			pt->hold[k] = HOLD_ON;
			pt->hold_ns[k] = ts;
		}
		proc_mark(pt, k);
	}
	pt->filt[k] = s > 0 ? s : 0;
	out = c->binarization ? (tf ? PROC_BIN_TOUCH : PROC_BIN_NO_TOUCH) :
	      pt->filt[k];
	pt->value[k] = out;
	pt->byte[k] = (uint8_t)(out + 0.5);
	if (tf != pt->touched[k])
		ev |= SKIN_PROC_EV_TOUCH;
	pt->touched[k] = tf;
	if (tf)
		pp->touched[(*n_touched)++] = k;
	pt->touch_raw[k] = tr;
	pt->d[k] = d;
	if (!(pt->hold[k] & HOLD_ON))
		pt->baseline[k] += (tr ? p->g_touch : p->g_free) * d *
				   pt->inv_thr[k];
	if (c->auto_recalibrate && !c->compat && !tr && !tf &&
	    (pt->baseline[k] < c->min_baseline ||
	     pt->baseline[k] > PROC_MAX_SKIN - c->min_baseline)) {
		recal_start(pt, k);
	}
	return ev;
}

/*
 * The arithmetic of every slot of a patch, dense and branch-free, four
 * slots at a time in GCC's vector extension (AVX2 or SSE2 pairs; the
 * clone is picked at load time; gcc 12 does not vectorise the scalar form
 * by itself).  A slot that is not a plain running tactile taxel (act 0:
 * pads, absent slots, taxels recalibrating, faulty or held) keeps its
 * baseline and smoothing state and gets 0; the scalar pass in run()
 * finishes plain taxels and sends the others through taxel_slow().  The
 * scalar tail and dense_one() compute the same expressions.
 */
typedef double v4d __attribute__((vector_size(32), aligned(8)));
typedef long long v4l __attribute__((vector_size(32), aligned(8)));

struct dense_k {
	double a_new, a_old, g_free, g_touch, voff, vsign;
	bool bin;
};

/* a macro: 32-byte vectors as arguments trip gcc's -Wpsabi */
#define vsel(m, a, b)	((v4d)(((v4l)(a) & (m)) | ((v4l)(b) & ~(m))))

static inline void dense_one(const struct dense_k *K, double *baseline,
			     double *smooth, double *dd, double *value,
			     double *filt, const double *level,
			     const double *inv_thr, const double *act,
			     uint8_t raw)
{
	const double v = K->voff + K->vsign * (double)raw;
	const double b = *baseline, sm = *smooth, lv = *level;
	const bool on = *act > 0.5;
	double d = v - b, s, fs, out, g;

	d = d < PROC_MAX_SKIN ? d : PROC_MAX_SKIN;
	s = K->a_new * d + K->a_old * sm;
	fs = s > 0 ? s : 0;
	out = K->bin ? (s > lv ? PROC_BIN_TOUCH : PROC_BIN_NO_TOUCH) : fs;
	g = (d > lv ? K->g_touch : K->g_free) * d * *inv_thr;
	*smooth = on ? s : sm;
	*filt = on ? fs : 0;
	*value = on ? out : 0;
	*dd = d;
	*baseline = on ? b + g : b;
}

__attribute__((target_clones("avx2", "default")))
static void dense(const struct dense_k *K, double *restrict baseline,
		  double *restrict smooth, double *restrict dd,
		  double *restrict value, double *restrict filt,
		  const double *restrict level, const double *restrict inv_thr,
		  const double *restrict act, const uint8_t *restrict vals,
		  unsigned int n)
{
	const v4d a_new = { K->a_new, K->a_new, K->a_new, K->a_new };
	const v4d a_old = { K->a_old, K->a_old, K->a_old, K->a_old };
	const v4d g_free = { K->g_free, K->g_free, K->g_free, K->g_free };
	const v4d g_touch = { K->g_touch, K->g_touch, K->g_touch, K->g_touch };
	const v4d voff = { K->voff, K->voff, K->voff, K->voff };
	const v4d vsign = { K->vsign, K->vsign, K->vsign, K->vsign };
	const v4d max = { PROC_MAX_SKIN, PROC_MAX_SKIN, PROC_MAX_SKIN, PROC_MAX_SKIN };
	const v4d zero = { 0, 0, 0, 0 }, half = { 0.5, 0.5, 0.5, 0.5 };
	const v4d touch = { PROC_BIN_TOUCH, PROC_BIN_TOUCH, PROC_BIN_TOUCH, PROC_BIN_TOUCH };
	const v4l bin = { -(long long)K->bin, -(long long)K->bin,
			  -(long long)K->bin, -(long long)K->bin };
	unsigned int j;

	for (j = 0; j + 4 <= n; j += 4) {
		const v4d raw = { vals[j], vals[j + 1], vals[j + 2], vals[j + 3] };
		const v4d b = *(const v4d *)(baseline + j);
		const v4d sm = *(const v4d *)(smooth + j);
		const v4d lv = *(const v4d *)(level + j);
		const v4d it = *(const v4d *)(inv_thr + j);
		const v4l on = *(const v4d *)(act + j) > half;
		v4d d = voff + vsign * raw - b, s, fs, out, g;

		d = vsel(d < max, d, max);
		s = a_new * d + a_old * sm;
		fs = vsel(s > zero, s, zero);
		/* NO_TOUCH is 0: the touch mask and 100 */
		out = vsel(bin, (v4d)((v4l)touch & (s > lv)), fs);
		g = vsel(d > lv, g_touch, g_free) * d * it;
		*(v4d *)(smooth + j) = vsel(on, s, sm);
		*(v4d *)(filt + j) = (v4d)((v4l)fs & on);
		*(v4d *)(value + j) = (v4d)((v4l)out & on);
		*(v4d *)(dd + j) = d;
		*(v4d *)(baseline + j) = vsel(on, b + g, b);
	}
	for (; j < n; j++)
		dense_one(K, baseline + j, smooth + j, dd + j, value + j,
			  filt + j, level + j, inv_thr + j, act + j, vals[j]);
}

static void dense_patch(const struct skin_proc *p, struct proc_part *pt,
			const struct proc_patch *pp, const uint8_t *vals)
{
	const unsigned int f = pp->first;
	const struct dense_k K = {
		.a_new = p->a_new, .a_old = p->a_old, .g_free = p->g_free,
		/* with holds, a plain taxel that touches starts one: no
		 * drift */
		.g_touch = p->prm.hold_contacts && !p->prm.compat ? 0 : p->g_touch,
		.voff = p->prm.zero_up_raw_data ? 0 : PROC_MAX_SKIN,
		.vsign = p->prm.zero_up_raw_data ? 1 : -1,
		.bin = p->prm.binarization,
	};

	dense(&K, pt->baseline + f, pt->smooth + f, pt->d + f, pt->value + f,
	      pt->filt + f, pt->level + f, pt->inv_thr + f, pt->act + f, vals,
	      pp->n_slots);
}

/*
 * The sample path of a calibrated patch: the dense arithmetic, then one
 * scalar pass over the tactile taxels for the byte outputs, the touched
 * list, the raw-change times (faults), new holds and recalibrations, and
 * the general path of the special taxels.
 */
static int run(struct skin_proc *p, struct proc_patch *pp,
	       const struct skin_frame *f)
{
	struct proc_part *pt = &p->parts[pp->part];
	const struct skin_config_comp *c = &p->prm;
	const bool faults = c->fault_detection && !c->compat;
	const bool hold_on = c->hold_contacts && !c->compat;
	const bool recal_on = c->auto_recalibrate && !c->compat;
	const double lo_b = c->min_baseline, hi_b = PROC_MAX_SKIN - c->min_baseline;
	const uint64_t ts = f->timestamp_ns;
	const uint16_t *restrict tac = pp->tactile;
	const uint8_t *restrict vals = f->values;
	double *restrict baseline = pt->baseline;
	const double *restrict smooth = pt->smooth, *restrict dd = pt->d;
	const double *restrict value = pt->value, *restrict level = pt->level;
	uint8_t *restrict byte = pt->byte, *restrict touched = pt->touched;
	uint8_t *restrict touch_raw = pt->touch_raw, *restrict special = pt->special;
	uint8_t *restrict last_raw = pt->last_raw;
	uint64_t *restrict raw_ns = pt->raw_ns;
	unsigned int *restrict list = pp->touched;
	const unsigned int first = pp->first, n_tac = pp->n_tactile;
	unsigned int i, n_touched = 0, changed = 0;
	uint16_t diag[SKIN_TRIANGLES];
	int ev = 0;

	if (faults) {
		bool any = diag_channels(f, diag);

		if (any || pp->diag_active || ts >= pp->next_check_ns)
			ev |= check_faults(p, pp, f, any ? diag : NULL);
	}
	dense_patch(p, pt, pp, vals);
	for (i = 0; i < n_tac; i++) {
		const unsigned int o = tac[i], k = first + o;
		const uint8_t raw = vals[o];
		unsigned int tr, tf;

		if (faults) {
			/* when each raw value last changed (stuck,
			 * saturated): branch-free, noise makes it random */
			const bool ch = raw != last_raw[k];

			last_raw[k] = raw;
			raw_ns[k] = ch ? ts : raw_ns[k];
		}
		if (__builtin_expect(special[k], 0)) {
			ev |= taxel_slow(p, pt, pp, k, raw,
					 f->refreshed & (1u << (o / SKIN_CHANNELS_PER_TRIANGLE)),
					 ts, &n_touched);
			continue;
		}
		tr = dd[k] > level[k];
		tf = smooth[k] > level[k];
		byte[k] = (uint8_t)(value[k] + 0.5);
		changed |= tf ^ touched[k];
		touched[k] = (uint8_t)tf;
		list[n_touched] = k;
		n_touched += tf;
		touch_raw[k] = (uint8_t)tr;
		if (__builtin_expect(tr && hold_on, 0)) {
			/* a new contact (dense() left its baseline): hold it */
			pt->hold[k] = HOLD_ON;
			pt->hold_ns[k] = ts;
			proc_mark(pt, k);
			continue;
		}
		if (__builtin_expect(recal_on && !tr && !tf &&
				     (baseline[k] < lo_b || baseline[k] > hi_b), 0))
			recal_start(pt, k);
	}
	if (changed)
		ev |= SKIN_PROC_EV_TOUCH;
	pp->n_touched = n_touched;
	return ev;
}

int proc_feed(struct skin_proc *p, struct proc_patch *pp,
	      const struct skin_frame *f)
{
	struct proc_part *pt = &p->parts[pp->part];
	const uint64_t ts = f->timestamp_ns;
	unsigned int t;

	if (!pp->seen) {
		pp->seen = true;
		for (t = 0; t < SKIN_TRIANGLES; t++)
			pp->tri_refresh_ns[t] = ts;
	}
	for (t = 0; t < SKIN_TRIANGLES; t++)
		if (f->refreshed & (1u << t))
			pp->tri_refresh_ns[t] = ts;
	pp->last_ns = ts;
	if (ts > pt->last_ns)
		pt->last_ns = ts;
	if (pt->state == SKIN_PROC_CALIBRATING) {
		if (!pp->cal_active)
			return 0;
		return collect(p, pp, f);
	}
	if (pt->state != SKIN_PROC_RUNNING)
		return 0;
	return run(p, pp, f);
}

/* A calibration that came from a file: the part runs from the next sample. */
void proc_set_running(struct skin_proc *p, struct proc_part *pt)
{
	uint64_t ts = pt->last_ns;
	unsigned int i;

	commit_calibration(p, pt, ts);
	for (i = 0; i < pt->n_patches; i++)
		p->patches[pt->first_patch + i].cal_active = false;
}
