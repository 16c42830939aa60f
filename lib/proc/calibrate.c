// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate.c - a part's calibration: the samples collected per taxel (a
 * histogram of v, its sum), skinManager's rules when every patch has its
 * samples (calibrationFinish(): baseline = the mean of v, a double in
 * both modes; threshold = the first value j whose cumulative count exceeds
 * 0.95 N, minus the baseline, at least 1), skind's checks of a touched or
 * broken skin, and the commit that starts the part running.  The rules
 * serve a taxel's own recalibration too (taxel.c: recal_step()).  No
 * allocation: the calibration-completing sample costs a histogram scan per
 * taxel.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proc-private.h"

void proc_hist_clear(struct proc_part *pt, unsigned int k)
{
	memset(proc_hist(pt, k), 0, (PROC_MAX_SKIN + 1) * sizeof(uint16_t));
	pt->sum[k] = 0;
	pt->valid[k] = 0;
}

void proc_cal_start(struct skin_proc *p, struct proc_part *pt)
{
	unsigned int i, k;

	pt->state = SKIN_PROC_CALIBRATING;
	pt->reason[0] = '\0';
	for (k = 0; k < pt->n; k++) {
		proc_outputs_zero(pt, k);
		if (pt->kind[k] == SKIN_TAXEL_TACTILE)
			proc_hist_clear(pt, k);
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
static int percentile95(const uint16_t *h, unsigned int n)
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

void proc_hist_range(const uint16_t *h, int *lo, int *hi)
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
bool proc_taxel_calibration(const struct proc_part *pt, unsigned int k,
			    unsigned int expected, double *baseline,
			    double *thr)
{
	unsigned int n = pt->valid[k];
	int j;

	if (!n || n < expected * 0.95)
		return false;
	/*
	 * skinManager: start_sum[i] / (calibrationRead != 0.0 ?
	 * calibrationRead : 1.0), a float sum over a double (the 1.0 makes
	 * the conditional a double): a division in double.  Its float sum
	 * of integers is exact below 2^24, which PROC_CAL_MAX_SAMPLES x 255
	 * is, so the mean is the integer sum's in both modes.
	 */
	*baseline = (double)pt->sum[k] / n;
	j = percentile95(proc_hist(pt, k), n);
	*thr = (double)j - *baseline;
	return true;
}

void proc_set_threshold(struct skin_proc *p, struct proc_part *pt,
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
		proc_outputs_zero(pt, k);
		pt->fault[k] = 0;
		pt->fault_ns[k] = 0;
		pt->raw_ns[k] = 0;	/* set by the next sample */
		pt->recal_n[k] = 0;
		pt->d[k] = 0;
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
				proc_hist_clear(pt, k);
			}
			continue;
		}
		pt->baseline[k] = pt->cal_baseline[k];
		pt->initial[k] = pt->cal_baseline[k];
		proc_set_threshold(p, pt, k, pt->cal_thr[k]);
		/*
		 * skinManager starts the smoothing state at the baselines
		 * ("to get a smooth start"), so its first outputs decay
		 * from about baseline / 2; skind starts it at 0.
		 */
		pt->smooth[k] = p->prm.compat ? pt->baseline[k] : 0;
	}
	for (k = 0; k < pt->n; k++)
		proc_mark(pt, k);
	for (k = 0; k < pt->n_patches; k++) {
		struct proc_patch *pp = &p->patches[pt->first_patch + k];

		pp->next_check_ns = 0;
		pp->raw_lo = pp->raw_hi = 0;	/* every raw_ns 0 */
		memset(pp->last_raw, 0, sizeof(pp->last_raw));
		pp->ns0 = pp->tact;	/* raw_ns 0 */
		memset(pp->recent, 0, sizeof(pp->recent));
		/* no noise judged yet: the next evaluation takes the values */
		pp->noise_on = false;
		memset(&pp->noisy, 0, sizeof(pp->noisy));
	}
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
		if (!proc_taxel_calibration(pt, k, n_exp, &b, &t))
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
			proc_hist_range(proc_hist(pt, k), &lo, &hi);
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
			proc_hist_range(proc_hist(pt, k), &lo, &hi);
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

int proc_collect(struct skin_proc *p, struct proc_patch *pp,
		   const struct skin_frame *f)
{
	struct proc_part *pt = &p->parts[pp->part];
	unsigned int i;

	for (i = 0; i < pp->n_tactile; i++) {
		unsigned int o = pp->tactile[i], k = pp->first + o;
		unsigned int v = proc_v_of(p, f->values[o]);

		/* a reading is valid when its triangle sent it in this
		 * sample; skinManager counts every reading */
		if (!p->prm.compat &&
		    !(f->refreshed & (1u << (o / SKIN_CHANNELS_PER_TRIANGLE))))
			continue;
		proc_hist(pt, k)[v]++;
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

/* A calibration that came from a file: the part runs from the next sample. */
void proc_set_running(struct skin_proc *p, struct proc_part *pt)
{
	uint64_t ts = pt->last_ns;
	unsigned int i;

	commit_calibration(p, pt, ts);
	for (i = 0; i < pt->n_patches; i++)
		p->patches[pt->first_patch + i].cal_active = false;
}
