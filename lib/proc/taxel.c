// SPDX-License-Identifier: GPL-2.0
/*
 * taxel.c - a running part's sample path: compensation, smoothing, touch,
 * drift, and skind's improvements (hold, self-recalibration, faults).
 * Everything here runs in the sample path: no allocation, no lock, no
 * system call.  taxel_slow() states the per-sample arithmetic with
 * docs/PROCESSING.md's formulas; the dense pass (proc-isa.h) computes the
 * same for the patch's plain taxels, a form per instruction set.
 * calibrate.c has the calibration.
 *
 * Compat mode follows skinManager's Compensator (icub-main
 * src/modules/skinManager/src/compensator.cpp): per sample
 * readRawAndWriteCompensatedData() then updateBaseline() (taxel_slow()).
 */
#include <string.h>

#include "proc-private.h"

/* Taxel k outputs 0 and is not touched (calibrating, faulty,
 * recalibrating) */
void proc_outputs_zero(struct proc_part *pt, unsigned int k)
{
	if (pt->touched[k])
		proc_touch_dirty(pt);
	pt->value[k] = 0;
	pt->byte[k] = 0;
	pt->touched[k] = 0;
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].out_nz,
		     k % SKIN_VALUES_PER_PATCH, false);
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].touched_bytes,
		     k % SKIN_VALUES_PER_PATCH, false);
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].tr_bits,
		     k % SKIN_VALUES_PER_PATCH, false);
	/* not touched any more: a touch at the next sample is a change, and
	 * the patch's touched list is to be built again */
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].touch_bits,
		     k % SKIN_VALUES_PER_PATCH, false);
	pt->patch0[k / SKIN_VALUES_PER_PATCH].list_stale = true;
	pt->hold[k] = 0;
	proc_mark(pt, k);
}

/*
 * The time each tactile raw value last moved (improvement c), kept in two
 * places.  A taxel whose value last moved at one of the patch's last
 * PROC_RECENT_CHECKS checks is listed in that check's mask
 * (proc_patch.recent[i], at recent_ns[i]) and its raw_ns[] is not
 * written: a live taxel's noise moves its value at almost every check, so
 * the checks write almost no timestamp.  raw_ns[] is written when the
 * oldest of those checks leaves the window with the value unchanged since
 * (raw_window_advance()), or by raw_ns_set().  raw_ns_of() reads either.
 */
static uint64_t raw_ns_of(const struct proc_part *pt,
			  const struct proc_patch *pp, unsigned int o)
{
	unsigned int i;

	for (i = 0; i < PROC_RECENT_CHECKS; i++)
		if (proc_bit(&pp->recent[i], o))
			return pp->recent_ns[i];
	return pt->raw_ns[pp->first + o];
}

static void raw_ns_set(struct proc_part *pt, struct proc_patch *pp,
		       unsigned int o, uint64_t ts)
{
	unsigned int i;

	for (i = 0; i < PROC_RECENT_CHECKS; i++)
		proc_bit_set(&pp->recent[i], o, false);
	pt->raw_ns[pp->first + o] = ts;
}

/* A check at @ts: the slots in @upd moved (their time is @ts now) */
static void raw_window_advance(struct proc_part *pt, struct proc_patch *pp,
			       const struct proc_mask *upd, uint64_t ts)
{
	const unsigned int last = PROC_RECENT_CHECKS - 1;
	unsigned int i, w;
	uint64_t m;

	for (w = 0; w < 3; w++)
		for (m = pp->recent[last].w[w] & ~upd->w[w]; m; m &= m - 1)
			pt->raw_ns[pp->first + 64 * w + (unsigned int)__builtin_ctzll(m)] =
				pp->recent_ns[last];
	for (i = last; i > 0; i--) {
		pp->recent_ns[i] = pp->recent_ns[i - 1];
		for (w = 0; w < 3; w++)
			pp->recent[i].w[w] = pp->recent[i - 1].w[w] & ~upd->w[w];
	}
	pp->recent_ns[0] = ts;
	pp->recent[0] = *upd;
}

/* A tactile raw_ns[] of the patch was set to @ts: the bounds take it in */
static void raw_bounds(struct proc_patch *pp, uint64_t ts)
{
	if (ts < pp->raw_lo)
		pp->raw_lo = ts;
	if (ts > pp->raw_hi)
		pp->raw_hi = ts;
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
		proc_hist(pt, k)[v]++;
		pt->sum[k] += v;
		pt->valid[k]++;
	}
	if (++pt->recal_n[k] < p->cal_samples)
		return 0;
	proc_hist_range(proc_hist(pt, k), &lo, &hi);
	if (proc_taxel_calibration(pt, k, p->cal_samples, &b, &t) &&
	    hi - lo <= p->prm.calibration_spread) {
		if (b >= lo_b && b <= hi_b) {
			pt->baseline[k] = b;
			proc_set_threshold(p, pt, k, t);
			pt->smooth[k] = 0;
			pt->mode[k] = MODE_RUN;
			pt->fault[k] &= (uint8_t)~(SKIN_FAULT_SATURATED |
						   SKIN_FAULT_CALIBRATION);
			raw_ns_set(pt, &pt->patch0[k / SKIN_VALUES_PER_PATCH],
				   k % SKIN_VALUES_PER_PATCH, ts);
			raw_bounds(&pt->patch0[k / SKIN_VALUES_PER_PATCH], ts);
			proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].ns0,
				     k % SKIN_VALUES_PER_PATCH, !ts);
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
	proc_hist_clear(pt, k);
	return ev;
}

static void recal_start(struct proc_part *pt, unsigned int k)
{
	pt->mode[k] = MODE_RECAL;
	pt->recal_n[k] = 0;
	proc_hist_clear(pt, k);
	proc_outputs_zero(pt, k);
	proc_mark(pt, k);
}

/* Channels each triangle's diagnostics word reports (12-bit masks);
 * returns whether any does. */
static bool diag_channels(const struct skin_frame *f,
			  uint16_t out[SKIN_TRIANGLES])
{
	unsigned int t, v;
	bool any = false;

	if (!f->diag_valid)	/* the usual frame: nothing to decode */
		return false;
	memset(out, 0, SKIN_TRIANGLES * sizeof(out[0]));
	for (v = f->diag_valid; v; v &= v - 1) {
		uint16_t w;

		t = (unsigned int)__builtin_ctz(v);
		w = f->diag[t];

		/* bits 15..4: out-of-range channels 0..11 (bit 4 + c);
		 * bit 0 no-ack, bit 1 not-connected: the whole triangle */
		out[t] = (w & 0x3) ? 0xfff : (uint16_t)(w >> 4);
		any |= out[t] != 0;
	}
	return any;
}



/*
 * Tactile slots (bit o) whose raw value has stayed for less than @lim:
 * ts - raw_ns < lim, in the unsigned arithmetic maintain() uses; returns
 * the oldest timestamp of the tactile slots.  A healthy taxel among them
 * cannot be stuck or saturated yet, so the walk need not visit it.  The
 * listed slots a mask at a time, the others (the quiet ones) one by one.
 */
static uint64_t raw_young(const struct proc_part *pt,
			  const struct proc_patch *pp, uint64_t ts,
			  uint64_t lim, struct proc_mask *young)
{
	struct proc_mask listed = { { 0, 0, 0 } };
	uint64_t mn = UINT64_MAX, m;
	unsigned int i, w;

	*young = (struct proc_mask){ { 0, 0, 0 } };
	for (i = 0; i < PROC_RECENT_CHECKS; i++) {
		const bool in = ts - pp->recent_ns[i] < lim;

		if (!proc_mask_any(&pp->recent[i]))
			continue;
		for (w = 0; w < 3; w++) {
			listed.w[w] |= pp->recent[i].w[w];
			young->w[w] |= in ? pp->recent[i].w[w] : 0;
		}
		mn = pp->recent_ns[i] < mn ? pp->recent_ns[i] : mn;
	}
	for (w = 0; w < 3; w++)
		for (m = pp->tact.w[w] & ~listed.w[w]; m; m &= m - 1) {
			const unsigned int b = (unsigned int)__builtin_ctzll(m);
			const uint64_t ns = pt->raw_ns[pp->first + 64 * w + b];

			young->w[w] |= (uint64_t)(ts - ns < lim) << b;
			mn = ns < mn ? ns : mn;
		}
	return mn;
}


/*
 * One slice's counts (@n, a slot each) and their sum over the slices
 * (@tot): +1 where the raw value moved by more than @step since @last.
 * Whole bytes, a fixed count: the compiler makes it a few vector
 * instructions per 16 or 32 slots, as many for a noisy patch as for a
 * quiet one.
 */
static void noise_count(uint16_t *restrict n, uint16_t *restrict tot,
			const uint8_t *restrict vals,
			const uint8_t *restrict last, uint8_t step)
{
	unsigned int o;

	for (o = 0; o < SKIN_VALUES_PER_PATCH; o++) {
		const uint8_t hi = vals[o] > last[o] ? vals[o] : last[o];
		const uint8_t lo = vals[o] > last[o] ? last[o] : vals[o];
		const uint16_t moved = (uint8_t)(hi - lo) > step;

		n[o] = (uint16_t)(n[o] + moved);
		tot[o] = (uint16_t)(tot[o] + moved);
	}
}

/* The oldest slice @n leaves the sums @tot and starts again at 0 */
static void noise_drop(uint16_t *restrict n, uint16_t *restrict tot)
{
	unsigned int o;

	for (o = 0; o < SKIN_VALUES_PER_PATCH; o++) {
		tot[o] = (uint16_t)(tot[o] - n[o]);
		n[o] = 0;
	}
}

/*
 * Noise (SKIN_FAULT_NOISY), at each periodic fault evaluation, before
 * last_raw takes @vals: which tactile slots moved more than noisy_counts
 * since the last evaluation, counted per slot in the current slice of
 * noisy_s.  At the end of each slice, once the counts cover noisy_s, the
 * last noisy_s is judged: a slot that moved so at more than half of the
 * evaluations is noisy, one that did at fewer than a quarter is not any
 * more (between the two it stays as it was, so that a taxel near the
 * limit does not flicker).  A healthy taxel's noise (1 to 3 counts)
 * rarely moves it that far; a press moves it at the few evaluations of
 * its onset and release only, never at most of them, held or not; a dead
 * triangle's values do not move.  Whole raw counts compared with
 * floor(noisy_counts), a counter per slot and slice and their sum: no
 * allocation, one vector pass over the patch's slots (noise_count()),
 * and at the end of a slice one more (noise_drop()) and a compare per
 * tactile slot.  The evaluation after a calibration (last_raw zeroed) or
 * with the detection switched back on only takes the values.  Only
 * evaluations 100 ms apart at least count (frames with diagnostics are
 * evaluated each, and a board whose diagnostics flag a channel sends them
 * in every frame): a slice holds at most noisy_s / 8 / 100 ms + 1 of
 * them, 4,501 at noisy_s's limit, and the sum of eight 36,008, which the
 * 16-bit counters hold.
 */
static void noise_step(struct skin_proc *p, struct proc_patch *pp,
		       const uint8_t *vals, uint64_t ts)
{
	const size_t per = SKIN_VALUES_PER_PATCH;
	uint16_t *n = p->parts[pp->part].noise_n +
		      (size_t)(pp->first / per) * PROC_NOISE_ROWS * per;
	uint16_t *tot = n + PROC_NOISE_SLICES * per;
	unsigned int i, j, s = pp->noise_slice;

	if (!pp->noise_on) {
		memset(n, 0, PROC_NOISE_ROWS * per * sizeof(*n));
		memset(pp->noise_checks, 0, sizeof(pp->noise_checks));
		pp->noise_slice_ns = ts;
		pp->noise_done = 0;
		pp->noise_on = true;
		return;
	}
	noise_count(n + s * per, tot, vals, pp->last_raw,
		    (uint8_t)(p->noisy_step < 255 ? p->noisy_step : 255));
	pp->noise_checks[s]++;
	if (ts - pp->noise_slice_ns < p->noisy_slice_ns)
		return;
	if (++pp->noise_done >= PROC_NOISE_SLICES) {
		unsigned int c = 0;

		pp->noise_done = PROC_NOISE_SLICES;
		for (j = 0; j < PROC_NOISE_SLICES; j++)
			c += pp->noise_checks[j];
		for (i = 0; i < pp->n_tactile; i++) {
			const unsigned int o = pp->tactile[i];

			if (2u * tot[o] > c)
				proc_bit_set(&pp->noisy, o, true);
			else if (4u * tot[o] < c)
				proc_bit_set(&pp->noisy, o, false);
		}
	}
	/* the next slice replaces the oldest */
	s = (s + 1) % PROC_NOISE_SLICES;
	noise_drop(n + s * per, tot);
	pp->noise_checks[s] = 0;
	pp->noise_slice = s;
	/* slices of noisy_s / 8 of frame time, whatever the evaluations'
	 * spacing; after a gap (a silent patch), from now */
	pp->noise_slice_ns += p->noisy_slice_ns;
	if (ts - pp->noise_slice_ns >= p->noisy_slice_ns)
		pp->noise_slice_ns = ts;
}

/*
 * Improvements b and c, every PROC_FAULT_CHECK_NS of frame time (and, for
 * faults, on every frame that carries or stopped carrying diagnostics):
 * the time each raw value last changed (read at these instants: a noisy
 * taxel cannot read the same value at every one of them for long), the
 * fault flags, and the taxels whose baseline left the safe range.  The
 * per-sample path stays free of this bookkeeping.  The per taxel steps
 * are the same as a walk over every tactile taxel would take; bit masks
 * (baselines out of range, raw values that moved, values still for less
 * than the shorter fault limit, faulty or dead candidates) only skip the
 * taxels for which that walk does nothing: a healthy taxel of a live
 * triangle whose raw value moved within the shorter of stuck_s and
 * saturated_s, and whose baseline is in range.  The masks are vector
 * compares or a few words (the timestamps: raw_window_advance()), so a
 * check of a quiet patch costs a few hundred instructions, not a step per
 * taxel.
 */
static __attribute__((noinline))	/* once in 5 samples: run() keeps
					 * its registers for the rest */
int maintain(struct skin_proc *p, struct proc_patch *pp,
	     const struct skin_frame *f, const uint16_t *diag)
{
	struct proc_part *pt = &p->parts[pp->part];
	const struct skin_config_comp *c = &p->prm;
	const bool faults = p->faults_on, recal_on = p->recal_on;
	const double lo_b = c->min_baseline, hi_b = PROC_MAX_SKIN - c->min_baseline;
	const uint64_t ts = f->timestamp_ns;
	const uint64_t still_min = p->stuck_ns < p->sat_ns ? p->stuck_ns : p->sat_ns;
	struct proc_mask oor, neq, upd = { { 0, 0, 0 } }, young = { { 0, 0, 0 } };
	struct proc_mask dead_slots = { { 0, 0, 0 } };
	uint64_t m;
	unsigned int t, w;
	int ev = 0;

	pp->tri_dead = 0;
	if (pp->tri_stale == 0xffff) {	/* every triangle refreshed at all_ns */
		if (ts - pp->all_ns >= p->dead_ns)
			pp->tri_dead = pp->tri_tactile;
	} else {
		for (t = 0; t < SKIN_TRIANGLES; t++)
			if ((pp->tri_tactile & (1u << t)) &&
			    ts - ((pp->tri_stale >> t) & 1 ? pp->all_ns :
				  pp->tri_refresh_ns[t]) >= p->dead_ns)
				pp->tri_dead |= (uint16_t)(1u << t);
	}
	for (m = pp->tri_dead; m; m &= m - 1) {
		t = (unsigned int)__builtin_ctzll(m);
		for (w = 0; w < SKIN_CHANNELS_PER_TRIANGLE; w++)
			proc_bit_set(&dead_slots, t * SKIN_CHANNELS_PER_TRIANGLE + w, true);
	}
	if (faults) {
		pp->ops->raw_changed(f->values, pp->last_raw, &neq);
		/* noise counts evaluations 100 ms apart at least, whatever
		 * diagnostics add between them (noise_step()) */
		if (ts >= pp->noise_next_ns || !pp->noise_on) {
			noise_step(p, pp, f->values, ts);
			pp->noise_next_ns = ts + PROC_FAULT_CHECK_NS;
		}
		memcpy(pp->last_raw, f->values, sizeof(pp->last_raw));
		/* raw moved, or no time recorded yet (raw_ns 0) */
		for (w = 0; w < 3; w++)
			upd.w[w] = (neq.w[w] | pp->ns0.w[w]) & pp->tact.w[w];
		raw_window_advance(pt, pp, &upd, ts);
		if (proc_mask_any(&upd)) {
			pp->raw_lo = ts < pp->raw_lo ? ts : pp->raw_lo;
			pp->raw_hi = ts > pp->raw_hi ? ts : pp->raw_hi;
		}
		/*
		 * The values still too young to be stuck or saturated: all
		 * of them when the bounds of the tactile timestamps say so
		 * (none later than now, the oldest less than still_min ago),
		 * without reading them; else per slot, which also finds the
		 * oldest timestamp again (the bound tightens).
		 */
		if (pp->raw_hi <= ts && ts - pp->raw_lo < still_min)
			young = pp->tact;
		else
			pp->raw_lo = raw_young(pt, pp, ts, still_min, &young);
	}
	if (recal_on) {
		/* the baselines out of range */
		pp->ops->baseline_out_of_range(pt->baseline + pp->first,
					       pp->groups, &pp->slots, pp->n_slots,
					       lo_b, hi_b, &oor);
		for (w = 0; w < 3; w++)
			for (m = oor.w[w] & pp->tact.w[w]; m; m &= m - 1) {
				const unsigned int o = 64 * w + (unsigned int)__builtin_ctzll(m);
				const unsigned int k = pp->first + o;

				if (!pt->special[k] && !pt->touched[k] &&
				    !proc_bit(&pp->tr_bits, o) &&
				    (pt->baseline[k] < lo_b || pt->baseline[k] > hi_b))
					recal_start(pt, k);
			}
	}
	if (!faults)
		goto done;
	for (w = 0; w < 3; w++) {
		pp->ns0.w[w] = ts ? pp->ns0.w[w] & ~upd.w[w] : pp->ns0.w[w] | upd.w[w];
		/* the rest of the walk: every taxel that is special (a faulty
		 * one is), dead, noisy, or has diagnostics, or whose value
		 * stayed for the shorter of the two limits: a healthy taxel of
		 * a live triangle whose value moved since then is done (below) */
		m = pp->tact.w[w] & (pp->spec.w[w] | dead_slots.w[w] |
				   pp->noisy.w[w] | (diag ? ~0ull : 0) |
				   ~(upd.w[w] | young.w[w]));
		for (; m; m &= m - 1) {
			const unsigned int o = 64 * w + (unsigned int)__builtin_ctzll(m);
			const unsigned int k = pp->first + o;
			const unsigned int tri = o / SKIN_CHANNELS_PER_TRIANGLE;
			const bool dead = pp->tri_dead & (1u << tri);
			const bool noisy = proc_bit(&pp->noisy, o);
			const uint64_t still = ts - raw_ns_of(pt, pp, o);
			uint8_t raw;
			bool rail;
			unsigned int fl;

			/* a value that moved, or has not stayed for the shorter
			 * of the two limits, is neither stuck nor saturated: a
			 * healthy taxel of a live triangle is done */
			if (!pt->fault[k] && !dead && !noisy && !diag &&
			    (((upd.w[w] >> (o % 64)) & 1) || still < still_min))
				continue;
			raw = f->values[o];
			rail = raw == 0 || raw == PROC_MAX_SKIN;
			fl = pt->fault[k] & SKIN_FAULT_CALIBRATION;
			/* a recalibration that keeps finding the baseline out
			 * of range holds SATURATED (recal_step) */
			if (pt->mode[k] == MODE_RECAL)
				fl |= pt->fault[k] & SKIN_FAULT_SATURATED;
			if (dead) {
				fl |= SKIN_FAULT_DEAD;
				/* not refreshed, so not still: a value that
				 * reads the same when the triangle is back
				 * has stayed from then on, not from before */
				raw_ns_set(pt, pp, o, ts);
				raw_bounds(pp, ts);
				proc_bit_set(&pp->ns0, o, !ts);
			} else if (rail && still >= p->sat_ns) {
				fl |= SKIN_FAULT_SATURATED;	/* clamped: no noise */
			} else if (!rail && still >= p->stuck_ns) {
				fl |= SKIN_FAULT_STUCK;
			}
			if (noisy)
				fl |= SKIN_FAULT_NOISY;
			if (diag && (diag[tri] & (1u << (o % SKIN_CHANNELS_PER_TRIANGLE))))
				fl |= SKIN_FAULT_DIAG;
			if (fl != pt->fault[k]) {
				/* faulty since: the first flag of an
				 * unbroken run of them */
				if (!pt->fault[k])
					pt->fault_ns[k] = ts;
				pt->fault[k] = (uint8_t)fl;
				if (fl && pt->touched[k])
					ev |= SKIN_PROC_EV_TOUCH;
				if (fl)
					proc_outputs_zero(pt, k);
				proc_mark(pt, k);
				ev |= SKIN_PROC_EV_FAULTS;
			}
		}
	}
done:
	pp->next_check_ns = ts + PROC_FAULT_CHECK_NS;
	pp->diag_active = diag != NULL;
	return ev;
}

/*
 * One taxel in any state (recalibrating, faulty, held): the algorithm,
 * one taxel at a time.  For a running taxel, v its raw value as a count
 * (p->vtab: 255 - raw, or raw with zero_up_raw_data), per sample
 * (docs/PROCESSING.md, "Per sample"):
 *
 *	d         = min(255, v - baseline)
 *	tr        = d > level		level = threshold + add_threshold
 *	s         = a_new d + a_old s_prev
 *			a_new = 1 - smooth_factor, a_old = smooth_factor
 *			(1 and 0 without smooth_filter)
 *	tf        = s > level		(touched: what contacts use)
 *	value     = binarization ? (tf ? 100 : 0) : max(0, s)
 *	baseline += (tr ? g_touch : g_free) d / threshold
 *			g = 0.02 x contact_compensation_gain, compensation_gain
 *
 * and outside compat mode improvement a: a taxel that touches (tr) holds
 * its baseline until d falls hold_hysteresis below the level (touching
 * down to that lower level meanwhile) or hold_max_s passes (then drift
 * resumes until the contact ends); b: a baseline out of [min_baseline,
 * 255 - min_baseline] recalibrates the taxel alone (recal_step()); c: a
 * faulty taxel outputs 0 (maintain() sets the faults).
 *
 * The dense pass (proc-isa.h) computes exactly this, the same doubles in
 * the same order, for the patch's plain running taxels (held ones
 * included); run() sends the others here.
 */
static int taxel_slow(struct skin_proc *p, struct proc_part *pt,
		      unsigned int k, uint8_t raw, bool fresh, uint64_t ts)
{
	const struct skin_config_comp *c = &p->prm;
	const double hyst = c->hold_hysteresis;
	double d, s, level, out;
	bool tr, tf;
	int ev = 0;

	if (pt->mode[k] == MODE_RECAL) {
		ev = recal_step(p, pt, k, proc_v_of(p, raw), fresh, ts);
		proc_mark(pt, k);
		return ev;
	}
	if (pt->fault[k]) {
		if (pt->touched[k])
			ev |= SKIN_PROC_EV_TOUCH;
		proc_outputs_zero(pt, k);
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
		const uint8_t h0 = pt->hold[k];
		const uint8_t h = h0 & (uint8_t)~HOLD_DUE;

		pt->hold[k] = h;
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
		/* every change of mode, fault or hold marks the taxel: with
		 * the hold unchanged the marks are already right */
		if (pt->hold[k] != h0)
			proc_mark(pt, k);
	}
	out = c->binarization ? (tf ? PROC_BIN_TOUCH : PROC_BIN_NO_TOUCH) :
	      s > 0 ? s : 0;
	pt->value[k] = out;
	pt->byte[k] = (uint8_t)(out + 0.5);
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].out_nz,
		     k % SKIN_VALUES_PER_PATCH, out != 0);
	if (tf != pt->touched[k])
		ev |= SKIN_PROC_EV_TOUCH;
	pt->touched[k] = tf;
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].touched_bytes,
		     k % SKIN_VALUES_PER_PATCH, tf);
	proc_bit_set(&pt->patch0[k / SKIN_VALUES_PER_PATCH].tr_bits,
		     k % SKIN_VALUES_PER_PATCH, tr);
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
 * The held taxels of @pp whose hold reaches hold_max_s at @ts leave the
 * dense pass for this sample (HOLD_DUE: special), so that taxel_slow()
 * ends their hold as it ends any other.  The bounds of the held taxels'
 * hold_ns show, without reading them, that none is due: every one is no
 * later than ts and the oldest less than hold_max_s old (exact in the
 * unsigned arithmetic taxel_slow() uses); else they are read, and the
 * bounds tightened to the remaining holds.
 */
static void holds_due(struct skin_proc *p, struct proc_patch *pp, uint64_t ts)
{
	struct proc_part *pt = &p->parts[pp->part];
	struct proc_mask held;
	uint64_t lo = UINT64_MAX, hi = 0, m;
	unsigned int w;

	if (!p->hold_max_ns || !proc_mask_any(&pp->held) ||
	    (pp->hold_hi <= ts && ts - pp->hold_lo < p->hold_max_ns))
		return;
	held = pp->held;
	for (w = 0; w < 3; w++)
		for (m = held.w[w]; m; m &= m - 1) {
			unsigned int k = pp->first + 64 * w + (unsigned int)__builtin_ctzll(m);
			uint64_t ns = pt->hold_ns[k];

			if (ts - ns >= p->hold_max_ns) {
				pt->hold[k] |= HOLD_DUE;
				proc_mark(pt, k);
				continue;
			}
			lo = ns < lo ? ns : lo;
			hi = ns > hi ? ns : hi;
		}
	pp->hold_lo = lo;
	pp->hold_hi = hi;
}

/*
 * @pp's arguments of the dense pass that do not change from sample to
 * sample: its slices of the part's arrays and masks, set once, and the
 * parameters' constants, set again by proc_derive() when one changes.
 */
void proc_patch_io(struct skin_proc *p, struct proc_patch *pp)
{
	const struct skin_config_comp *c = &p->prm;
	struct proc_part *pt = &p->parts[pp->part];
	struct dense_io *io = &pp->io;
	const unsigned int first = pp->first;

	io->a_new = p->a_new;
	io->a_old = p->a_old;
	io->g_free = p->g_free;
	/* with holds, a plain taxel that touches starts one: no drift */
	io->g_touch = p->hold_on ? 0 : p->g_touch;
	io->voff = c->zero_up_raw_data ? 0 : PROC_MAX_SKIN;
	io->vsign = c->zero_up_raw_data ? 1 : -1;
	io->hyst = c->hold_hysteresis;
	io->held = &pp->held;
	io->baseline = pt->baseline + first;
	io->smooth = pt->smooth + first;
	io->d = pt->d + first;
	io->value = pt->value + first;
	io->level = pt->level + first;
	io->inv_thr = pt->inv_thr + first;
	io->act = pt->act + first;
	io->byte = pt->byte + first;
	io->n = pp->n_slots;
	io->groups = pp->groups;
	io->wr = pp->slots;
}

/*
 * The sample path of a calibrated patch: the periodic checks when due,
 * the dense arithmetic, new and ended holds, the special taxels, and the
 * touched list from the bit masks.
 */
static int run(struct skin_proc *p, struct proc_patch *pp,
	       const struct skin_frame *f)
{
	struct proc_part *pt = &p->parts[pp->part];
	const struct skin_config_comp *c = &p->prm;
	const bool faults = p->faults_on, hold_on = p->hold_on;
	const bool recal_on = p->recal_on;
	const uint64_t ts = f->timestamp_ns;
	const unsigned int first = pp->first;
	struct dense_io *const io = &pp->io;
	struct proc_mask spec, held0, was;
	bool held;
	unsigned int w, n_touched = 0, changed = 0;
	uint16_t diag[SKIN_TRIANGLES];
	int ev = 0;

	/* the touch flags of the last sample, before this one zeroes any */
	was = pp->touch_bits;
	if (faults || recal_on) {
		bool any = faults && diag_channels(f, diag);

		if (any || pp->diag_active || ts >= pp->next_check_ns)
			ev |= maintain(p, pp, f, any ? diag : NULL);
	}
	if (hold_on)
		holds_due(p, pp, ts);
	held = proc_mask_any(&pp->held);
	io->vals = f->values;
	io->nz = pp->out_nz;
	for (w = 0; w < 3; w++)
		io->on.w[w] = pp->tact.w[w] & ~pp->spec.w[w];
	(held ? pp->ops->dense_held : pp->ops->dense)(io, c->binarization);
	pp->tr_bits = io->tr;	/* taxel_slow: the rest */
	/* the pass's slots hold 100 where touched and 0 elsewhere when
	 * binarized; else any value */
	if (c->binarization)
		for (w = 0; w < 3; w++)
			pp->out_nz.w[w] = (pp->out_nz.w[w] & ~pp->slots.w[w]) | io->tf.w[w];
	else
		for (w = 0; w < 3; w++)
			pp->out_nz.w[w] |= pp->slots.w[w];
	/* the usual patch: nothing touched, now or at the last sample, no
	 * special or held taxel: no byte, hold, list or flag to update */
	if (!(proc_mask_any(&io->tf) | proc_mask_any(&io->tr) |
	      proc_mask_any(&pp->touched_bytes) | proc_mask_any(&was) |
	      proc_mask_any(&pp->spec) | held)) {
		pp->n_touched = 0;
		pp->list_stale = false;
		return ev;
	}
	/* the touched bytes of the slots the pass computed (0 for the
	 * special ones, as before taxel_slow), where they change */
	for (w = 0; w < 3; w++) {
		uint64_t m;

		for (m = pp->touched_bytes.w[w] ^ io->tf.w[w]; m; m &= m - 1)
			pt->touched[first + 64 * w + (unsigned int)__builtin_ctzll(m)] =
				(io->tf.w[w] >> __builtin_ctzll(m)) & 1;
		pp->touched_bytes.w[w] = io->tf.w[w];
	}
	spec = pp->spec;
	held0 = pp->held;	/* the loop changes them */
	for (w = 0; w < 3; w++) {
		uint64_t m;

		/* plain taxels that touch start holds */
		for (m = hold_on ? io->tr.w[w] & ~held0.w[w] : 0; m; m &= m - 1) {
			unsigned int k = first + 64 * w + (unsigned int)__builtin_ctzll(m);

			pt->hold[k] = HOLD_ON;
			pt->hold_ns[k] = ts;
			proc_mark(pt, k);
		}
		/* held ones whose hold ended */
		for (m = held ? io->rel.w[w] : 0; m; m &= m - 1) {
			unsigned int k = first + 64 * w + (unsigned int)__builtin_ctzll(m);

			pt->hold[k] = 0;
			proc_mark(pt, k);
		}
		/* and taxel_slow()'s last step for the held ones (a hold keeps
		 * the baseline, which may have been out of range before) */
		for (m = recal_on && held ? held0.w[w] & ~(io->tr.w[w] | io->tf.w[w]) : 0;
		     m; m &= m - 1) {
			unsigned int k = first + 64 * w + (unsigned int)__builtin_ctzll(m);

			if (pt->baseline[k] < c->min_baseline ||
			    pt->baseline[k] > PROC_MAX_SKIN - c->min_baseline)
				recal_start(pt, k);
		}
		/* the special taxels, through the general path */
		for (m = spec.w[w]; m; m &= m - 1) {
			unsigned int o = 64 * w + (unsigned int)__builtin_ctzll(m);
			unsigned int k = first + o;

			ev |= taxel_slow(p, pt, k, f->values[o],
					 f->refreshed & (1u << (o / SKIN_CHANNELS_PER_TRIANGLE)),
					 ts);
			if (pt->touched[k])
				io->tf.w[w] |= 1ull << (o % 64);
		}
		changed |= io->tf.w[w] != was.w[w];
		pp->touch_bits.w[w] = io->tf.w[w];
	}
	if (changed) {
		ev |= SKIN_PROC_EV_TOUCH;
		proc_touch_dirty(pt);
	}
	/* the touched list, unless it is the last sample's (the same flags,
	 * and none cleared outside a feed since: a steady touch) */
	if (changed || pp->list_stale) {
		for (w = 0; w < 3; w++) {
			uint64_t m;

			for (m = io->tf.w[w]; m; m &= m - 1)
				pp->touched[n_touched++] = first + 64 * w +
					(unsigned int)__builtin_ctzll(m);
		}
		pp->n_touched = n_touched;
		pp->list_stale = false;
	}
	return ev;
}

/* tri_refresh_ns[] of the triangles whose time is all_ns, written out */
static void tri_refresh_unstale(struct proc_patch *pp)
{
	unsigned int t;

	for (; pp->tri_stale; pp->tri_stale &= (uint16_t)(pp->tri_stale - 1)) {
		t = (unsigned int)__builtin_ctz(pp->tri_stale);
		pp->tri_refresh_ns[t] = pp->all_ns;
	}
}

int proc_feed(struct skin_proc *p, struct proc_patch *pp,
	      const struct skin_frame *f)
{
	struct proc_part *pt = &p->parts[pp->part];
	const uint64_t ts = f->timestamp_ns;

	if (!pp->seen) {
		pp->seen = true;
		pp->all_ns = ts;
		pp->tri_stale = 0xffff;
	}
	/* the usual frame refreshes every triangle with tactile taxels (the
	 * only ones maintain() looks at): one timestamp for all */
	if ((f->refreshed & pp->tri_tactile) == pp->tri_tactile) {
		pp->all_ns = ts;
		pp->tri_stale = 0xffff;
	} else {
		tri_refresh_unstale(pp);
		pp->ops->store_where16(pp->tri_refresh_ns, f->refreshed, ts);
	}
	pp->last_ns = ts;
	if (ts > pt->last_ns)
		pt->last_ns = ts;
	if (p->cycle) {
		/* kept in either mode, so that compat turned on at run time
		 * cycles on the boards' newest samples at once */
		pp->latest = *f;
		pp->has_latest = true;
		if (p->prm.compat)
			return 0;	/* skin_proc_cycle() processes it */
	}
	if (pt->state == SKIN_PROC_CALIBRATING) {
		if (!pp->cal_active)
			return 0;
		return proc_collect(p, pp, f);
	}
	if (pt->state != SKIN_PROC_RUNNING)
		return 0;
	return run(p, pp, f);
}

/*
 * skinManager's cycle of one part (CompensationThread::run(), compat mode
 * of a cycling processor): whatever the boards' rate, once per thread
 * period it reads the part's whole vector, the newest sample of each
 * board, and calibrates on it (calibrationDataCollection()) or compensates
 * it (readRawAndWriteCompensatedData(), updateBaseline()): each patch's
 * newest sample goes through the sample path once per cycle, processed
 * again at the next cycle if its board sent nothing new meanwhile (the
 * robot's wrapper publishes the part at its own period, and skinManager
 * reads what it finds).  A patch that has sent nothing yet is skipped.
 * A calibration finishes at the cycle that completes it; the part
 * compensates from the next one, as upstream.
 */
int proc_cycle(struct skin_proc *p, struct proc_part *pt, uint64_t ts)
{
	unsigned int i;
	int ev = 0;

	if (ts > pt->last_ns)
		pt->last_ns = ts;
	if (pt->state == SKIN_PROC_CALIBRATING) {
		for (i = 0; i < pt->n_patches; i++) {
			struct proc_patch *pp = &p->patches[pt->first_patch + i];

			if (pp->has_latest && pp->cal_active)
				ev |= proc_collect(p, pp, &pp->latest);
		}
		return ev;
	}
	if (pt->state != SKIN_PROC_RUNNING)
		return 0;
	for (i = 0; i < pt->n_patches; i++) {
		struct proc_patch *pp = &p->patches[pt->first_patch + i];

		if (pp->has_latest)
			ev |= run(p, pp, &pp->latest);
	}
	return ev;
}
