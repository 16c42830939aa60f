// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc.c - skind's processing with hand-computed expectations: the
 * calibration rule, each step of the pipeline in both modes, hold,
 * self-recalibration, faults, contacts and their ids, parameters, the
 * calibration file.  Every expected number is worked out in a comment.
 */
#include <errno.h>
#include <math.h>

#include "test_proc_util.h"

#define EPS 1e-12
#define assert_near(a, b, eps) do {					\
	double a_ = (a), b_ = (b);					\
	if (!(fabs(a_ - b_) <= (eps)))					\
		fail_msg("%s = %.17g, want %.17g", #a, a_, b_);		\
} while (0)

/*
 * Calibration over N = 0.1 s / 20 ms = 5 samples, v = 255 - raw:
 *  t0: raw 240 240 239 241 240 -> v 15 15 16 14 15: mean 15; cumulative
 *      count 1 at 14, 4 at 15, 5 at 16: the first > 0.95 x 5 = 4.75 is 16,
 *      threshold 16 - 15 = 1
 *  t1: raw 245 235 225 235 235 -> v 10 20 30 20 20: mean 20; 1, 4, 5 at
 *      10, 20, 30: threshold 30 - 20 = 10
 *  t2: raw 230 x 5 -> v 25: mean 25, threshold 0 -> at least 1
 *  t3: raw 250 250 250 250 249 -> v 5 5 5 5 6: mean 26 / 5 = 5.2
 *      (skinManager too: its float sum over a double); 4 at 5, 5 at 6: threshold 0.8 -> 1
 */
static uint64_t calibrate_strip(struct skin_proc *p)
{
	static const int raw[5][4] = {
		{ 240, 245, 230, 250 }, { 240, 235, 230, 250 },
		{ 239, 225, 230, 250 }, { 241, 235, 230, 250 },
		{ 240, 235, 230, 249 },
	};
	uint64_t seq;
	int ev = 0;

	assert_int_equal(skin_proc_calibrate(p, 0), 0);
	assert_int_equal(skin_proc_state(p, 0), SKIN_PROC_CALIBRATING);
	for (seq = 1; seq <= 5; seq++)
		ev = feed4(p, seq, raw[seq - 1][0], raw[seq - 1][1],
			   raw[seq - 1][2], raw[seq - 1][3]);
	if (!(ev & SKIN_PROC_EV_CALIBRATED))
		fail_msg("calibration did not finish: %s", skin_proc_reason(p, 0));
	assert_int_equal(skin_proc_state(p, 0), SKIN_PROC_RUNNING);
	return seq;
}

static void calibration_rule(void **state)
{
	struct fixture fx, fc;
	const double *b, *t;

	(void)state;
	fixture_strip(&fx, "");
	assert_int_equal(skin_proc_state(fx.p, 0), SKIN_PROC_UNCALIBRATED);
	calibrate_strip(fx.p);
	b = skin_proc_baselines(fx.p, 0);
	t = skin_proc_thresholds(fx.p, 0);
	assert_near(b[0], 15, EPS);
	assert_near(t[0], 1, EPS);
	assert_near(b[1], 20, EPS);
	assert_near(t[1], 10, EPS);
	assert_near(b[2], 25, EPS);
	assert_near(t[2], 1, EPS);
	assert_near(b[3], 5.2, EPS);
	assert_near(t[3], 1, EPS);
	fixture_done(&fx);

	fixture_strip(&fc, "compat = true");
	calibrate_strip(fc.p);
	b = skin_proc_baselines(fc.p, 0);
	/* skinManager divides its float sum by a double (the 1.0 of its
	 * "calibrationRead != 0.0 ? calibrationRead : 1.0"): 26 / 5 in
	 * double, not in float */
	assert_true(b[3] == 26.0 / 5);
	assert_true(b[3] != (double)5.2f);
	fixture_done(&fc);
}

/*
 * Compat mode, smoothing 0.5, no binarization.  Taxel 1: baseline 20,
 * threshold 10, level 10 + 7 = 17; the smoothing state starts at the
 * baseline (20).
 *  A: raw 215, v 40: d = 20 > 17 touched; s = 0.5 x 20 + 0.5 x 20 = 20,
 *     touched; drift with the contact gain: 20 + 0.02 x 0.05 x 20 / 10
 *     = 20.002
 *  B: raw 235, v 20: d = 20 - 20.002 = -0.002; s = 0.5 x -0.002 + 0.5 x 20
 *     = 9.999, not touched; drift 0.02 x 0.2 x -0.002 / 10 = -8e-7:
 *     20.0019992
 * Taxel 0 (baseline 15, raw 240 -> d 0): s = 7.5 then 3.75, the upstream
 * quirk of a smoothing state starting at the baseline.
 */
static void compat_steps(void **state)
{
	struct fixture fx;
	const double *v, *b;
	const uint8_t *touched;
	uint64_t seq;
	int ev;

	(void)state;
	fixture_strip(&fx, "compat = true\nbinarization = false");
	seq = calibrate_strip(fx.p);
	v = skin_proc_values(fx.p, 0);
	b = skin_proc_baselines(fx.p, 0);
	touched = skin_proc_touched(fx.p, 0);
	ev = feed4(fx.p, seq++, 240, 215, 230, 250);
	assert_true(ev & SKIN_PROC_EV_TOUCH);
	assert_near(v[1], 20, EPS);
	assert_int_equal(touched[1], 1);
	assert_near(b[1], 20.002, EPS);
	assert_near(v[0], 7.5, EPS);
	assert_int_equal(touched[0], 0);
	feed4(fx.p, seq++, 240, 235, 230, 250);
	assert_near(v[1], 9.999, 1e-12);
	assert_int_equal(touched[1], 0);
	assert_near(b[1], 20.0019992, 1e-12);
	assert_near(v[0], 3.75, EPS);
	/* taxel 3, baseline b0 = 26 / 5, threshold 1, raw 250 (v 5):
	 *  A: dA = 5 - b0, sA = 0.5 dA + 0.5 b0, b1 = b0 + 0.004 dA
	 *  B: dB = 5 - b1, sB = 0.5 dB + 0.5 sA */
	{
		double b0 = 26.0 / 5, dA = 5 - b0, sA = 0.5 * dA + 0.5 * b0;
		double b1 = b0 + 0.02 * 0.2 * dA / 1, dB = 5 - b1;

		assert_near(v[3], 0.5 * dB + 0.5 * sA, 1e-12);
		assert_near(b[3], b1 + 0.02 * 0.2 * dB, 1e-12);
	}
	fixture_done(&fx);
}

/*
 * skind's default mode: the smoothing state starts at 0 and taxel 1's
 * baseline is held under contact.
 *  A: d = 20, touched raw -> hold; s = 0.5 x 20 = 10 (below 17, and below
 *     17 - 2 = 15): not touched yet; baseline stays 20
 *  B: v 20: d = 0 <= 15 releases the hold; s = 5; drift 0.004 x 0 = 0
 * Taxel 0: s = 0 from the start.
 */
static void default_steps(void **state)
{
	struct fixture fx;
	const double *v, *b;
	const uint8_t *touched;
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "binarization = false");
	seq = calibrate_strip(fx.p);
	v = skin_proc_values(fx.p, 0);
	b = skin_proc_baselines(fx.p, 0);
	touched = skin_proc_touched(fx.p, 0);
	feed4(fx.p, seq++, 240, 215, 230, 250);
	assert_near(v[0], 0, EPS);
	assert_near(v[1], 10, EPS);
	assert_int_equal(touched[1], 0);
	assert_near(b[1], 20, EPS);
	feed4(fx.p, seq++, 240, 215, 230, 250);
	/* s = 0.5 x 20 + 0.5 x 10 = 15 > 15? no; held: baseline 20 */
	assert_near(v[1], 15, EPS);
	assert_int_equal(touched[1], 0);
	feed4(fx.p, seq++, 240, 215, 230, 250);
	/* s = 17.5 > 17: touched */
	assert_near(v[1], 17.5, EPS);
	assert_int_equal(touched[1], 1);
	assert_near(b[1], 20, EPS);
	feed4(fx.p, seq++, 240, 235, 230, 250);
	/* d = 0: released; s = 8.75, below 17 - 2 */
	assert_near(v[1], 8.75, EPS);
	assert_int_equal(touched[1], 0);
	assert_near(b[1], 20, EPS);
	fixture_done(&fx);
}

/* Binarization: 0 / 100 from the smoothed value; bytes round. */
static void binarization_and_bytes(void **state)
{
	struct fixture fx;
	const double *v;
	const uint8_t *by;
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "smooth_filter = false");
	seq = calibrate_strip(fx.p);
	v = skin_proc_values(fx.p, 0);
	by = skin_proc_bytes(fx.p, 0);
	/* t1: d = 20 > 17 -> 100; t0: d = 7.5 of 8 -> 0 */
	feed4(fx.p, seq++, 232, 215, 230, 250);
	assert_near(v[1], 100, EPS);
	assert_int_equal(by[1], 100);
	assert_near(v[0], 0, EPS);
	skin_proc_set(fx.p, "binarization", "false", NULL, 0);
	/* t0: the last sample's d = 8 (not above 8) drifted the baseline by
	 * 0.02 x 0.2 x 8 / 1 = 0.032: d = 23 - 15.032 = 7.968, byte 8 */
	feed4(fx.p, seq++, 232, 215, 230, 250);
	assert_near(v[0], 7.968, 1e-12);
	assert_int_equal(by[0], 8);
	fixture_done(&fx);
}

/*
 * Binarization switched on: an untouched taxel whose value was not 0
 * reads 0 at the next sample (the binarized pass stores only the slots
 * touched now or not 0 before: proc_patch.out_nz).
 */
static void binarization_switched_on(void **state)
{
	struct fixture fx;
	const double *v;
	const uint8_t *by;
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "smooth_filter = false\nbinarization = false");
	seq = calibrate_strip(fx.p);
	v = skin_proc_values(fx.p, 0);
	by = skin_proc_bytes(fx.p, 0);
	/* t0: d = 23 - 15 = 8, not above 1 + 7: untouched at 8; t1: d = 20 */
	feed4(fx.p, seq++, 232, 215, 230, 250);
	assert_near(v[0], 8, EPS);
	assert_int_equal(by[0], 8);
	assert_near(v[1], 20, EPS);
	skin_proc_set(fx.p, "binarization", "true", NULL, 0);
	/* t0: d = 23 - 15.032 = 7.968 (binarization_and_bytes): 0; t1
	 * touched: 100 */
	feed4(fx.p, seq++, 232, 215, 230, 250);
	assert_near(v[0], 0, 0);
	assert_int_equal(by[0], 0);
	assert_near(v[1], 100, 0);
	assert_int_equal(by[1], 100);
	/* t1 released: 0 again */
	feed4(fx.p, seq++, 232, 235, 230, 250);
	assert_near(v[1], 0, 0);
	assert_int_equal(by[1], 0);
	fixture_done(&fx);
}

/* zero_up_raw_data: v = raw (values grow with pressure). */
static void zero_up(void **state)
{
	struct fixture fx;
	const double *b, *v;
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "zero_up_raw_data = true\nbinarization = false\nsmooth_filter = false");
	seq = calibrate_strip(fx.p);
	b = skin_proc_baselines(fx.p, 0);
	v = skin_proc_values(fx.p, 0);
	/* t0: raw 240 240 239 241 240: mean 240, cumulative 1 at 239, 4 at
	 * 240, 5 at 241: threshold 1 */
	assert_near(b[0], 240, EPS);
	feed4(fx.p, seq, 250, 235, 230, 250);
	assert_near(v[0], 10, EPS);
	fixture_done(&fx);
}

/* Thermal pads and absent slots never touch and always output 0. */
static void pads_and_absent_are_zero(void **state)
{
	struct fixture fx;
	struct skin_frame f;
	const double *v;
	const uint8_t *touched;
	unsigned int k, seq, hand = 0;
	int ev = 0;

	(void)state;
	fixture_icub(&fx, NULL);
	for (k = 0; k < fx.m->n_parts; k++)
		if (fx.m->parts[k].skin_part == SKIN_LEFT_HAND)
			hand = k;
	skin_proc_calibrate(fx.p, (int)hand);
	for (seq = 1; seq <= 250; seq++) {
		frame_init(&f, seq, seq * 20 * MS, (uint8_t)(238 + seq % 3));
		ev |= skin_proc_feed(fx.p, fx.m->parts[hand].first_patch, &f);
	}
	assert_true(ev & SKIN_PROC_EV_CALIBRATED);
	/* everything pressed hard */
	frame_init(&f, seq, seq * 20 * MS, 20);
	for (k = 0; k < 5; k++)
		skin_proc_feed(fx.p, fx.m->parts[hand].first_patch, &f);
	v = skin_proc_values(fx.p, hand);
	touched = skin_proc_touched(fx.p, hand);
	for (k = 0; k < 192; k++) {
		enum skin_taxel_kind kind =
			fx.m->taxels[fx.m->parts[hand].first_taxel + k].kind;

		if (kind == SKIN_TAXEL_TACTILE) {
			assert_true(v[k] == 100);
			assert_int_equal(touched[k], 1);
		} else {
			assert_true(v[k] == 0);
			assert_int_equal(touched[k], 0);
		}
	}
	/* slot 107 is a palm pad, 60 is absent (docs/MODEL.md, "Built-in layouts") */
	assert_int_equal(fx.m->taxels[fx.m->parts[hand].first_taxel + 107].kind,
			 SKIN_TAXEL_THERMAL);
	assert_true(v[107] == 0 && v[60] == 0);
	fixture_done(&fx);
}

/* Refusals: touched (spread, offset), broken (all 255, no noise), and the
 * previous calibration survives. */
static void calibration_refused(void **state)
{
	struct fixture fx;
	uint64_t seq, s;
	int ev = 0;

	(void)state;
	fixture_strip(&fx, "");
	/* taxel 2 pressed halfway through: v 25 -> 125, spread 100 > 40 */
	skin_proc_calibrate(fx.p, 0);
	for (seq = 1; seq <= 5; seq++)
		ev = feed4(fx.p, seq, 240, 240 + (int)(seq % 2), seq < 3 ? 230 : 130, 250);
	assert_true(ev & SKIN_PROC_EV_CAL_FAILED);
	assert_int_equal(skin_proc_state(fx.p, 0), SKIN_PROC_UNCALIBRATED);
	assert_string_equal(skin_proc_reason(fx.p, 0),
			    "part strip: touched during calibration: 1 taxel(s) moved, e.g. taxel 2 by 100 counts (calibration_spread 40)");

	/* pressed throughout: taxel 3 at v 155, the median baseline 15:
	 * 140 above (calibration_offset 60) */
	skin_proc_calibrate(fx.p, 0);
	for (s = 0; s < 5; s++, seq++)
		ev = feed4(fx.p, seq, 240, 240, 241 - (int)(s % 2), 100);
	assert_true(ev & SKIN_PROC_EV_CAL_FAILED);
	assert_non_null(strstr(skin_proc_reason(fx.p, 0),
			       "touched during calibration: 1 taxel(s) pressed, e.g. taxel 3 at 140.0 counts above the part's median baseline 15"));

	/* a good calibration, then a broken one: it stays */
	skin_proc_calibrate(fx.p, 0);
	for (s = 0; s < 5; s++, seq++)
		ev = feed4(fx.p, seq, 240 + (int)(s % 2), 240, 240, 240);
	assert_true(ev & SKIN_PROC_EV_CALIBRATED);
	assert_string_equal(skin_proc_reason(fx.p, 0), "");
	skin_proc_calibrate(fx.p, 0);
	for (s = 0; s < 5; s++, seq++)
		ev = feed4(fx.p, seq, 0, 0, 0, 0);
	assert_true(ev & SKIN_PROC_EV_CAL_FAILED);
	assert_string_equal(skin_proc_reason(fx.p, 0),
			    "part strip: the skin is broken: every baseline is 255 (raw values 0)");
	assert_int_equal(skin_proc_state(fx.p, 0), SKIN_PROC_RUNNING);
	assert_near(skin_proc_baselines(fx.p, 0)[0], 14.6, 1e-12);

	skin_proc_calibrate(fx.p, 0);
	for (s = 0; s < 5; s++, seq++)
		ev = feed4(fx.p, seq, 240, 240, 240, 240);
	assert_true(ev & SKIN_PROC_EV_CAL_FAILED);
	assert_string_equal(skin_proc_reason(fx.p, 0),
			    "part strip: the skin is broken: no taxel shows any noise (every value constant)");

	/* no triangle sends: nothing valid */
	skin_proc_calibrate(fx.p, 0);
	for (s = 0; s < 5; s++, seq++) {
		struct skin_frame f;

		frame_init(&f, seq, seq * 20 * MS, 240);
		f.refreshed = 0;
		ev = skin_proc_feed(fx.p, 0, &f);
	}
	assert_true(ev & SKIN_PROC_EV_CAL_FAILED);
	assert_string_equal(skin_proc_reason(fx.p, 0),
			    "part strip: the skin is broken: no taxel gave 95% valid readings (no triangle sent data)");
	fixture_done(&fx);
}

/*
 * Persistent contact (icub-main #55): pressed at d = 40 for 10 simulated
 * minutes (30000 samples).  skinManager's drift, 0.02 x 0.05 x d / 10 =
 * 1e-4 d per sample, compensates it away (time constant 200 s); the hold
 * keeps it.
 */
static void persistent_contact(void **state)
{
	struct fixture fx, fc;
	uint64_t seq, sc, i;

	(void)state;
	fixture_strip(&fx, "binarization = false");
	fixture_strip(&fc, "binarization = false\ncompat = true");
	seq = calibrate_strip(fx.p);
	sc = calibrate_strip(fc.p);
	for (i = 0; i < 30000; i++) {
		int n = (int)(i % 3) - 1;	/* noise on the others */

		feed4(fx.p, seq++, 240 + n, 175 + n, 230 + n, 250 + n);
		feed4(fc.p, sc++, 240 + n, 175 + n, 230 + n, 250 + n);
	}
	assert_int_equal(skin_proc_touched(fx.p, 0)[1], 1);
	assert_near(skin_proc_values(fx.p, 0)[1], 60, 1);
	assert_near(skin_proc_baselines(fx.p, 0)[1], 20, EPS);
	assert_int_equal(skin_proc_touched(fc.p, 0)[1], 0);
	assert_true(skin_proc_baselines(fc.p, 0)[1] > 60);
	assert_int_equal(skin_proc_faults(fx.p, 0)[1], 0);
	/* the calibration's baselines stay what it left: the drift
	 * compensated since is the difference (skinManager's monitor) */
	assert_near(skin_proc_initial_baselines(fx.p, 0)[1], 20, EPS);
	assert_near(skin_proc_initial_baselines(fc.p, 0)[1], 20, EPS);
	assert_near(skin_proc_initial_baselines(fc.p, 0)[0], 15, EPS);
	assert_null(skin_proc_initial_baselines(fc.p, 1));
	fixture_done(&fx);
	fixture_done(&fc);
}

/* hold_max_s ends a hold: the baseline drifts again (contact gain). */
static void hold_max(void **state)
{
	struct fixture fx;
	uint64_t seq, i;

	(void)state;
	fixture_strip(&fx, "binarization = false\nhold_max_s = 1");
	seq = calibrate_strip(fx.p);
	for (i = 0; i < 50; i++)	/* 50 x 20 ms = 1 s */
		feed4(fx.p, seq++, 240, 175, 230, 250);
	assert_near(skin_proc_baselines(fx.p, 0)[1], 20, EPS);
	/* at t = 1 s the hold expires; this sample drifts: d = 60, level 17
	 * touched: 20 + 0.001 x 60 / 10 = 20.006 */
	feed4(fx.p, seq++, 240, 175, 230, 250);
	assert_near(skin_proc_baselines(fx.p, 0)[1], 20.006, 1e-12);
	fixture_done(&fx);
}

/*
 * Self-recalibration (b): taxel 3 (baseline 5.2, threshold 1) reads v 2 for
 * good: drift 0.02 x 0.2 x (2 - b) / 1 per sample pulls the baseline below
 * min_baseline 3; it recalibrates over 5 samples at v 2: mean 2 < 3, so it
 * is marked saturated and retries; at v 10 it takes baseline 10.
 */
static void self_recalibration(void **state)
{
	struct fixture fx;
	uint64_t seq, i;
	int ev = 0;

	(void)state;
	fixture_strip(&fx, "binarization = false");
	seq = calibrate_strip(fx.p);
	for (i = 0; i < 2000 && !(ev & SKIN_PROC_EV_FAULTS); i++) {
		int n = (int)(i % 3) - 1;

		ev = feed4(fx.p, seq++, 240 + n, 235 + n, 230 + n, 253);
	}
	assert_true(skin_proc_faults(fx.p, 0)[3] & SKIN_FAULT_SATURATED);
	assert_near(skin_proc_values(fx.p, 0)[3], 0, EPS);
	ev = 0;
	for (i = 0; i < 10 && !(ev & SKIN_PROC_EV_RECAL); i++)
		ev = feed4(fx.p, seq++, 240, 235, 230, 245 - (int)(i % 2));
	assert_true(ev & SKIN_PROC_EV_RECAL);
	assert_int_equal(skin_proc_faults(fx.p, 0)[3], 0);
	assert_true(skin_proc_baselines(fx.p, 0)[3] >= 10 &&
		    skin_proc_baselines(fx.p, 0)[3] <= 11);
	fixture_done(&fx);
}

/* Faults (c): stuck, dead triangle, diagnostics, saturated; excluded while
 * they last, cleared when they end. */
static void faults(void **state)
{
	struct fixture fx;
	struct skin_frame f;
	struct skin_taxel_fault list[8];
	char names[64];
	uint64_t seq, i;

	(void)state;
	fixture_strip(&fx, "binarization = false\nstuck_s = 1\nsaturated_s = 0.5\ndead_s = 0.2");
	seq = calibrate_strip(fx.p);
	/* taxel 0 constant, the others noisy: stuck 1 s after the first
	 * sample; faults are evaluated every 100 ms (5 samples), the first
	 * time at the first sample: the 51st sample (t = 1 s) sees it */
	for (i = 0; i < 50; i++)
		feed4(fx.p, seq++, 240, 235 + (int)(i % 2), 230 + (int)(i % 2), 250 + (int)(i % 2));
	assert_int_equal(skin_proc_faults(fx.p, 0)[0], 0);
	assert_true(feed4(fx.p, seq++, 240, 236, 231, 251) & SKIN_PROC_EV_FAULTS);
	assert_int_equal(skin_proc_faults(fx.p, 0)[0], SKIN_FAULT_STUCK);
	assert_int_equal(skin_proc_fault_list(fx.p, -1, list, 8), 1);
	assert_int_equal(list[0].taxel, 0);
	assert_int_equal(list[0].flags, SKIN_FAULT_STUCK);
	skin_fault_names(list[0].flags, names, sizeof(names));
	assert_string_equal(names, "stuck");
	/* pressed while flagged: excluded until the next evaluation */
	feed4(fx.p, seq++, 200, 235, 230, 250);
	assert_int_equal(skin_proc_touched(fx.p, 0)[0], 0);
	assert_near(skin_proc_values(fx.p, 0)[0], 0, EPS);
	/* the raw values are read at each evaluation: 242 differs from the
	 * 240 of the last one */
	for (i = 0; i < 5; i++)
		feed4(fx.p, seq++, 242, 236 - (int)(i % 2), 231, 251 - (int)(i % 2));
	assert_int_equal(skin_proc_faults(fx.p, 0)[0], 0);

	/* diagnostics: channel 2 out of range (bit 4 + 2), then the
	 * triangle not connected (bit 1) */
	frame_init(&f, seq, seq * 20 * MS, 240);
	f.values[1] = 235; f.values[2] = 230; f.values[3] = 250;
	f.diag_valid = 1;
	f.diag[0] = 1u << 6;
	seq++;
	skin_proc_feed(fx.p, 0, &f);
	assert_int_equal(skin_proc_faults(fx.p, 0)[2], SKIN_FAULT_DIAG);
	assert_int_equal(skin_proc_faults(fx.p, 0)[1], 0);
	f.diag[0] = 0x2;
	f.seq = seq; f.timestamp_ns = seq++ * 20 * MS;
	skin_proc_feed(fx.p, 0, &f);
	for (i = 0; i < 4; i++)
		assert_int_equal(skin_proc_faults(fx.p, 0)[i], SKIN_FAULT_DIAG);
	f.diag[0] = 0;
	f.seq = seq; f.timestamp_ns = seq++ * 20 * MS;
	f.values[0] = 241;
	skin_proc_feed(fx.p, 0, &f);
	assert_int_equal(skin_proc_fault_list(fx.p, 0, NULL, 0), 0);

	/* triangle 0 silent for 0.2 s: flagged within the next 100 ms */
	for (i = 0; i < 15; i++) {
		frame_init(&f, seq, seq * 20 * MS, 240);
		f.refreshed = 0xfffe;
		seq++;
		skin_proc_feed(fx.p, 0, &f);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(skin_proc_faults(fx.p, 0)[i], SKIN_FAULT_DEAD);
	for (i = 0; i < 5; i++)
		feed4(fx.p, seq++, 240 + (int)(i % 2), 235 + (int)(i % 2), 230 + (int)(i % 2), 250 + (int)(i % 2));
	assert_int_equal(skin_proc_fault_list(fx.p, 0, NULL, 0), 0);

	/* taxel 3 at raw 0 for 0.5 s: saturated */
	for (i = 0; i < 31; i++)
		feed4(fx.p, seq++, 240 + (int)(i % 2), 235 + (int)(i % 2), 230 + (int)(i % 2), 0);
	assert_true(skin_proc_faults(fx.p, 0)[3] & SKIN_FAULT_SATURATED);
	assert_near(skin_proc_values(fx.p, 0)[3], 0, EPS);
	fixture_done(&fx);
}

/*
 * A triangle silent for longer than stuck_s, back with the values it had:
 * dead while silent, then healthy; its values have stayed since it came
 * back, not since it fell silent, so none is stuck before another
 * stuck_s (they were not refreshed, not still).
 */
static void dead_then_back(void **state)
{
	struct fixture fx;
	struct skin_frame f;
	uint64_t seq, i;

	(void)state;
	fixture_strip(&fx, "binarization = false\nstuck_s = 1\ndead_s = 0.2");
	seq = calibrate_strip(fx.p);
	for (i = 0; i < 10; i++)
		feed4(fx.p, seq++, 240 + (int)(i % 2), 235 + (int)(i % 2), 230 + (int)(i % 2), 250);
	/* 2 s silent (the driver keeps a silent triangle's last values) */
	for (i = 0; i < 100; i++) {
		frame_init(&f, seq, seq * 20 * MS, 240);
		f.values[1] = 236; f.values[2] = 231; f.values[3] = 250;
		f.refreshed = 0xfffe;
		seq++;
		skin_proc_feed(fx.p, 0, &f);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(skin_proc_faults(fx.p, 0)[i], SKIN_FAULT_DEAD);
	/* back with the same values for 0.8 s: healthy all along */
	for (i = 0; i < 40; i++) {
		feed4(fx.p, seq++, 240, 236, 231, 250);
		if (i >= 5)
			assert_int_equal(skin_proc_fault_list(fx.p, 0, NULL, 0), 0);
	}
	/* and stuck once they stayed for stuck_s since */
	for (i = 0; i < 15; i++)
		feed4(fx.p, seq++, 240, 236, 231, 250);
	assert_int_equal(skin_proc_faults(fx.p, 0)[0], SKIN_FAULT_STUCK);
	fixture_done(&fx);
}

/* A fixed-seed xorshift32: the noisy taxel's readings */
static uint32_t noise_next(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * One sample of the strip for the noise test: taxel 0 noisy (uniform in
 * 100..255, which moves it more than 10 counts between most pairs of
 * evaluations) or quiet (240 +- 1); taxel 1 pressed for 1.5 s out of 3
 * (raw 180 after a 40 ms ramp: d = 75 - 20 = 55, touched), its steps
 * coming at a few evaluations only; taxels 2 and 3 a healthy noise of
 * +-2 counts.  Returns the flags of taxel 0 after the sample.
 */
static unsigned int noise_feed(struct skin_proc *p, uint64_t seq, bool noisy,
			       uint32_t *x)
{
	const unsigned int phase = (unsigned int)(seq % 150);	/* 3 s */
	const int jitter = (int)(seq % 5) - 2;
	int r0 = noisy ? 100 + (int)(noise_next(x) % 156) : 240 + (int)(seq % 3) - 1;
	int r1 = phase < 2 ? 235 - 20 * (int)(phase + 1) : phase < 75 ? 180 + jitter / 2 :
		 235 + jitter / 2;

	feed4(p, seq, r0, r1, 230 + jitter, 250 - jitter);
	return skin_proc_faults(p, 0)[0];
}

/*
 * Noise (c, SKIN_FAULT_NOISY) with noisy_s = 1 and noisy_counts 10:
 * judged at the end of each eighth of noisy_s over the last noisy_s, a
 * taxel whose raw value jumps is flagged within noisy_s of the noise's
 * start (wherever it starts; not before half of it), excluded while
 * flagged, and clear within noisy_s of its end (fewer than a quarter of
 * the evaluations moved); a taxel pressed and released every 1.5 s, and
 * a healthy one, never are.
 */
static void noisy(void **state)
{
	struct fixture fx;
	struct skin_taxel_fault list[8];
	char names[64];
	uint64_t seq, start, t, since;
	uint32_t x = 2463534242u;
	unsigned int i, fl = 0;
	bool touched0 = false, pressed1 = false;
	int n;

	(void)state;
	fixture_strip(&fx, "binarization = false\nnoisy_s = 1");
	assert_int_equal(skin_proc_get(fx.p, "noisy_counts", names, sizeof(names)), 2);
	assert_string_equal(names, "10");
	seq = calibrate_strip(fx.p);
	/* quiet for 2.3 s: nothing noisy, taxel 1 pressed and released */
	for (i = 0; i < 115; i++) {
		assert_int_equal(noise_feed(fx.p, seq, false, &x), 0);
		pressed1 |= skin_proc_touched(fx.p, 0)[1];
		seq++;
	}
	assert_true(pressed1);
	/* noise on taxel 0 from the middle of a half: flagged within 1 s
	 * (plus the 100 ms of an evaluation), not before half of it */
	for (start = seq; seq < start + 65; seq++) {
		fl = noise_feed(fx.p, seq, true, &x);
		touched0 |= skin_proc_touched(fx.p, 0)[0];
		if (fl)
			break;
	}
	assert_int_equal(fl, SKIN_FAULT_NOISY);
	t = (seq - start) * 20;		/* ms */
	if (t < 500 || t > 1100)
		fail_msg("flagged noisy %llu ms after the noise started", (unsigned long long)t);
	assert_true(touched0);		/* what the flag stops */
	n = skin_proc_fault_list(fx.p, -1, list, 8);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].taxel, 0);
	assert_int_equal(list[0].flags, SKIN_FAULT_NOISY);
	assert_true(list[0].since_ns == seq * 20 * MS);
	skin_fault_names(list[0].flags, names, sizeof(names));
	assert_string_equal(names, "noisy");
	/* flagged as long as the noise lasts (5 s), excluded meanwhile */
	for (i = 0, seq++; i < 250; i++, seq++) {
		assert_int_equal(noise_feed(fx.p, seq, true, &x), SKIN_FAULT_NOISY);
		assert_int_equal(skin_proc_touched(fx.p, 0)[0], 0);
		assert_near(skin_proc_values(fx.p, 0)[0], 0, EPS);
		assert_int_equal(skin_proc_faults(fx.p, 0)[1], 0);
		assert_int_equal(skin_proc_faults(fx.p, 0)[2], 0);
		assert_int_equal(skin_proc_faults(fx.p, 0)[3], 0);
	}
	/* faulty since the flag was raised, without a break */
	since = list[0].since_ns;
	assert_int_equal(skin_proc_fault_list(fx.p, 0, list, 8), 1);
	assert_true(list[0].since_ns == since);
	/* quiet again: clear within 1 s (plus an evaluation) */
	for (start = seq; seq < start + 65; seq++)
		if (!(fl = noise_feed(fx.p, seq, false, &x)))
			break;
	assert_int_equal(fl, 0);
	t = (seq - start) * 20;
	if (t > 1100)
		fail_msg("noisy cleared %llu ms after the noise ended", (unsigned long long)t);
	/* 30 s more: taxel 1 pressed and released 10 times, never noisy */
	for (i = 0, seq++; i < 1500; i++, seq++) {
		assert_int_equal(noise_feed(fx.p, seq, false, &x), 0);
		assert_int_equal(skin_proc_fault_list(fx.p, 0, NULL, 0), 0);
	}
	/* processed again: a press touches (d = 55 - 15, half of it) */
	feed4(fx.p, seq++, 200, 235, 230, 250);
	assert_int_equal(skin_proc_touched(fx.p, 0)[0], 1);
	/* noisy again, from a board whose diagnostics flag taxel 3 in every
	 * frame (each one evaluated): flagged within noisy_s all the same */
	for (start = seq, fl = 0; seq < start + 60 && !(fl & SKIN_FAULT_NOISY); seq++) {
		struct skin_frame f;

		frame_init(&f, seq, seq * 20 * MS, 240);
		f.values[0] = (uint8_t)(100 + noise_next(&x) % 156);
		f.values[1] = 235;
		f.values[2] = 230;
		f.values[3] = 250;
		f.diag_valid = 1;
		f.diag[0] = 1u << (4 + 3);
		skin_proc_feed(fx.p, 0, &f);
		fl = skin_proc_faults(fx.p, 0)[0];
		assert_int_equal(skin_proc_faults(fx.p, 0)[3], SKIN_FAULT_DIAG);
	}
	assert_int_equal(fl, SKIN_FAULT_NOISY);
	/* the names, in flag order */
	skin_fault_names(SKIN_FAULT_NOISY | SKIN_FAULT_STUCK, names, sizeof(names));
	assert_string_equal(names, "stuck,noisy");
	skin_fault_names(SKIN_FAULT_NOISY | SKIN_FAULT_DIAG, names, sizeof(names));
	assert_string_equal(names, "diagnostics,noisy");
	/* its parameters are checked as the file's */
	assert_int_equal(skin_proc_set(fx.p, "noisy_s", "0.5", names, sizeof(names)), -EINVAL);
	assert_int_equal(skin_proc_set(fx.p, "noisy_counts", "0", names, sizeof(names)), -EINVAL);
	fixture_done(&fx);
}

/*
 * Contacts on the strip (y = 0, 10, 20, 30 mm; neighbours within 15 mm:
 * 0-1-2-3), no smoothing, no binarization.  Baselines 15 (all calibrated
 * at raw 240 +- 1: threshold 1, level 8).  d = 40, 20, 0, 30:
 *  A = {0, 1}, p 40 and 20: CoP y = (0 x 40 + 0.01 x 20) / 60 = 1/300;
 *      geo y = 0.005; n = 40 (0,0,1) + 20 (0,-1,0) = (0,-20,40), unit
 *      (0, -1/sqrt5, 2/sqrt5); pressure 30; F = -0.05 x 2 x 30 n = -3 n;
 *      M = CoP x F = (cy Fz - 0, 0, -cy Fx) = (cy Fz, 0, 0)
 *  B = {3}, p 30: CoP = geo = (0, 0.03, 0); n (0,0,1); F = (0,0,-1.5);
 *      M = (0.03 x -1.5, 0, 0) = (-0.045, 0, 0)
 * compat: n = (0,-20,40) / 60, M = 0.
 */
static uint64_t calibrate_flat(struct skin_proc *p)
{
	uint64_t seq;
	int ev = 0;

	skin_proc_calibrate(p, 0);
	for (seq = 1; seq <= 5; seq++) {
		int r = seq == 3 ? 239 : seq == 4 ? 241 : 240;

		ev = feed4(p, seq, r, r, r, r);
	}
	assert_true(ev & SKIN_PROC_EV_CALIBRATED);
	return seq;
}

static void contacts_geometry(void **state)
{
	const double s5 = sqrt(5.0);
	const struct skin_contact *c;
	struct fixture fx, fc;
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "binarization = false\nsmooth_filter = false");
	seq = calibrate_flat(fx.p);
	feed4(fx.p, seq, 200, 220, 240, 210);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 2);
	assert_int_equal(skin_proc_contacts(fx.p, 0, &c), 2);
	assert_int_equal(c[0].r.n_taxels, 2);
	assert_int_equal(c[0].taxels[0], 0);
	assert_int_equal(c[0].taxels[1], 1);
	assert_near(c[0].r.cop[0], 0, EPS);
	assert_near(c[0].r.cop[1], 1.0 / 300, EPS);
	assert_near(c[0].r.geo[1], 0.005, EPS);
	assert_near(c[0].r.normal[0], 0, EPS);
	assert_near(c[0].r.normal[1], -1 / s5, 1e-9);
	assert_near(c[0].r.normal[2], 2 / s5, 1e-9);
	assert_near(c[0].r.pressure, 30, EPS);
	assert_near(c[0].r.force[1], -3 * -1 / s5, 1e-9);
	assert_near(c[0].r.force[2], -3 * 2 / s5, 1e-9);
	assert_near(c[0].r.moment[0], 1.0 / 300 * (-3 * 2 / s5) - 0 * c[0].r.force[1], 1e-9);
	assert_near(c[0].r.moment[1], 0, EPS);
	assert_near(c[0].r.moment[2], 0, EPS);
	assert_int_equal(c[0].n_with_pos, 2);
	assert_int_equal(c[1].r.n_taxels, 1);
	assert_int_equal(c[1].taxels[0], 3);
	assert_near(c[1].r.cop[1], 0.03, EPS);
	assert_near(c[1].r.force[2], -1.5, EPS);
	assert_near(c[1].r.moment[0], -0.045, 1e-12);
	assert_true(c[0].r.id != c[1].r.id);
	fixture_done(&fx);

	fixture_strip(&fc, "binarization = false\nsmooth_filter = false\ncompat = true");
	seq = calibrate_flat(fc.p);
	feed4(fc.p, seq, 200, 220, 240, 210);
	assert_int_equal(skin_proc_cluster(fc.p, 0), 2);
	skin_proc_contacts(fc.p, 0, &c);
	assert_near(c[0].r.normal[1], -20.0 / 60, EPS);
	assert_near(c[0].r.normal[2], 40.0 / 60, EPS);
	assert_near(c[0].r.force[2], -3 * 40.0 / 60, 1e-12);
	assert_near(c[0].r.moment[0], 0, 0);
	fixture_done(&fc);
}

/*
 * Ids: A = {0,1} and B = {3} persist; B grows into {2,3} and then merges
 * with A into {0..3}: the merged contact keeps the id of the larger
 * overlap (A: 2 taxels vs B's 2 -> equal: the older, lower id).  Split
 * {0..3} -> {0} + {2,3}: {2,3} overlaps by 2 and keeps it, {0} is new.
 * Released and pressed again: a new id.
 */
static void contact_ids(void **state)
{
	const struct skin_contact *c;
	struct fixture fx;
	uint64_t seq, a, b, ab;

	(void)state;
	fixture_strip(&fx, "binarization = false\nsmooth_filter = false");
	seq = calibrate_flat(fx.p);
	feed4(fx.p, seq++, 200, 220, 240, 210);
	skin_proc_cluster(fx.p, 0);
	skin_proc_contacts(fx.p, 0, &c);
	a = c[0].r.id;
	b = c[1].r.id;
	feed4(fx.p, seq++, 201, 221, 240, 211);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 2);
	skin_proc_contacts(fx.p, 0, &c);
	assert_int_equal(c[0].r.id, a);
	assert_int_equal(c[1].r.id, b);
	feed4(fx.p, seq++, 240, 220, 210, 210);	/* {1} and... {1,2,3} */
	assert_int_equal(skin_proc_cluster(fx.p, 0), 1);
	skin_proc_contacts(fx.p, 0, &c);
	/* {1,2,3}: overlap 1 with A ({1}), 1 with B ({3}): the lower id */
	assert_int_equal(c[0].r.id, a < b ? a : b);
	ab = c[0].r.id;
	feed4(fx.p, seq++, 200, 240, 210, 210);	/* {0} and {2,3} */
	assert_int_equal(skin_proc_cluster(fx.p, 0), 2);
	skin_proc_contacts(fx.p, 0, &c);
	assert_int_equal(c[1].r.n_taxels, 2);
	assert_int_equal(c[1].r.id, ab);
	assert_true(c[0].r.id > a && c[0].r.id > b);
	feed4(fx.p, seq++, 240, 240, 240, 240);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 0);
	feed4(fx.p, seq++, 240, 240, 210, 210);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 1);
	skin_proc_contacts(fx.p, 0, &c);
	assert_true(c[0].r.id != ab);
	fixture_done(&fx);
}

/*
 * A calibration restored between a feed and the clustering zeroes the
 * outputs of taxels that feed listed as touched: the clustering finds
 * no contact in them (and none weighs the zeroed values), and the next
 * feed, touching them again, reports the change and the contacts are
 * built again (not the ones of a steady touch, reused).
 */
static void restore_between_feed_and_cluster(void **state)
{
	const struct skin_contact *c;
	struct skin_error err;
	struct fixture fx;
	char path[128];
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "binarization = false\nsmooth_filter = false");
	seq = calibrate_flat(fx.p);
	snprintf(path, sizeof(path), "%s/cal", fx.dir);
	assert_int_equal(skin_proc_save(fx.p, path, &err), 0);
	feed4(fx.p, seq++, 200, 220, 240, 210);
	assert_int_equal(skin_proc_touched(fx.p, 0)[0], 1);
	assert_int_equal(skin_proc_restore(fx.p, path, &err), 0);
	assert_int_equal(skin_proc_touched(fx.p, 0)[0], 0);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 0);
	assert_int_equal(skin_proc_contacts(fx.p, 0, &c), 0);
	/* touched again: a change of the touch flags, and the contacts */
	assert_true(feed4(fx.p, seq++, 200, 220, 240, 210) & SKIN_PROC_EV_TOUCH);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 2);
	fixture_done(&fx);
}

/* Position-less taxels (the fingertips): grouped per triangle. */
static void fingertips_group_by_triangle(void **state)
{
	const struct skin_contact *c;
	struct fixture fx;
	struct skin_frame f;
	unsigned int hand = 0, k, seq;

	(void)state;
	fixture_icub(&fx, NULL);
	for (k = 0; k < fx.m->n_parts; k++)
		if (fx.m->parts[k].skin_part == SKIN_LEFT_HAND)
			hand = k;
	skin_proc_calibrate(fx.p, (int)hand);
	for (seq = 1; seq <= 250; seq++) {
		frame_init(&f, seq, seq * 20 * MS, (uint8_t)(238 + seq % 3));
		skin_proc_feed(fx.p, fx.m->parts[hand].first_patch, &f);
	}
	frame_init(&f, seq, seq * 20 * MS, 240);
	/* index fingertip (slots 0..11): 3 and 5; middle (12..23): 14 */
	f.values[3] = f.values[5] = f.values[14] = 100;
	for (k = 0; k < 4; k++)
		skin_proc_feed(fx.p, fx.m->parts[hand].first_patch, &f);
	assert_int_equal(skin_proc_cluster(fx.p, hand), 2);
	skin_proc_contacts(fx.p, hand, &c);
	assert_int_equal(c[0].r.n_taxels, 2);
	assert_int_equal(c[0].taxels[0], 3);
	assert_int_equal(c[0].taxels[1], 5);
	assert_int_equal(c[0].n_with_pos, 0);
	/* no position: NaN, never the link's origin (skin/contact.h) */
	for (k = 0; k < 3; k++) {
		assert_true(isnan(c[0].r.cop[k]) && isnan(c[0].r.geo[k]) && isnan(c[0].r.normal[k]));
		assert_true(c[0].r.force[k] == 0 && c[0].r.moment[k] == 0);
	}
	assert_int_equal(c[1].taxels[0], 14);
	assert_int_equal(c[0].skin_part, SKIN_LEFT_HAND);
	assert_int_equal(c[0].body_part, SKIN_BODY_LEFT_ARM);
	assert_int_equal(c[0].link_number, 6);
	fixture_done(&fx);
}

static void params_by_name(void **state)
{
	struct fixture fx;
	char buf[64], why[200];
	const char *const *names;
	unsigned int n = 0;

	(void)state;
	fixture_strip(&fx, "");
	for (names = skin_proc_param_names(); *names; names++) {
		assert_true(skin_proc_get(fx.p, *names, buf, sizeof(buf)) > 0);
		n++;
	}
	assert_int_equal(n, 26);
	assert_int_equal(skin_proc_get(fx.p, "add_threshold", buf, sizeof(buf)), 1);
	assert_string_equal(buf, "7");
	assert_int_equal(skin_proc_set(fx.p, "add_threshold", "9.5", why, sizeof(why)), 0);
	assert_true(skin_proc_params(fx.p)->add_threshold == 9.5);
	assert_int_equal(skin_proc_set(fx.p, "add_threshold", "300", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "add_threshold = '300': expected a number >= 0 and <= 254");
	assert_int_equal(skin_proc_set(fx.p, "period_ms", "2.5", why, sizeof(why)), -EINVAL);
	assert_int_equal(skin_proc_set(fx.p, "compat", "maybe", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "compat = 'maybe': expected yes or no (true/false, on/off, 1/0)");
	assert_int_equal(skin_proc_set(fx.p, "nope", "1", why, sizeof(why)), -ENOENT);
	assert_int_equal(skin_proc_get(fx.p, "nope", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(skin_proc_set(fx.p, "max_neighbor_dist_m", "0.02", why, sizeof(why)), -EROFS);
	assert_int_equal(skin_proc_set(fx.p, "compat", "yes", why, sizeof(why)), 0);
	skin_proc_get(fx.p, "compat", buf, sizeof(buf));
	assert_string_equal(buf, "true");
	/* calibration_s 0.2 -> 10 samples at 20 ms */
	assert_int_equal(skin_proc_set(fx.p, "calibration_s", "0.2", why, sizeof(why)), 0);
	skin_proc_calibrate(fx.p, 0);
	{
		unsigned int done, need;

		skin_proc_calibration_progress(fx.p, 0, &done, &need);
		assert_int_equal(need, 10);
		assert_int_equal(done, 0);
	}
	assert_int_equal(skin_proc_calibrate(fx.p, 5), -EINVAL);
	fixture_done(&fx);
}

static void calibration_file(void **state)
{
	struct fixture fx, fy;
	struct skin_error err;
	char path[128], bad[128];
	uint64_t seq;

	(void)state;
	fixture_strip(&fx, "");
	fixture_strip(&fy, "");
	seq = calibrate_strip(fx.p);
	(void)seq;
	snprintf(path, sizeof(path), "%s/cal", fx.dir);
	assert_int_equal(skin_proc_save(fx.p, path, &err), 0);
	assert_int_equal(skin_proc_restore(fy.p, path, &err), 0);
	assert_int_equal(skin_proc_state(fy.p, 0), SKIN_PROC_RUNNING);
	assert_memory_equal(skin_proc_baselines(fy.p, 0), skin_proc_baselines(fx.p, 0), 4 * sizeof(double));
	assert_memory_equal(skin_proc_thresholds(fy.p, 0), skin_proc_thresholds(fx.p, 0), 4 * sizeof(double));
	/* the restored part runs at once: pressed taxel 1 touches */
	feed4(fy.p, 100, 240, 175, 230, 250);
	feed4(fy.p, 101, 240, 175, 230, 250);
	assert_int_equal(skin_proc_touched(fy.p, 0)[1], 1);

	snprintf(bad, sizeof(bad), "%s/bad", fx.dir);
	write_file(bad, "skind-calibration 1\npart strip 192 tttt\nend\n");
	assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.text, "part 'strip' has 192 slots in the model, the file gives 192"));
	write_file(bad, "skind-calibration 1\npart arm 192 x\nend\n");
	assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
	assert_non_null(strstr(err.text, ":2: part 'arm' is not in the model"));
	write_file(bad, "skind-calibration 2\n");
	assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
	assert_non_null(strstr(err.text, ":1: expected 'skind-calibration 1'"));
	{
		char text[600], kinds[193];

		memset(kinds, '-', 192);
		memcpy(kinds, "tttt", 4);
		kinds[192] = '\0';
		snprintf(text, sizeof(text), "skind-calibration 1\npart strip 192 %s\n0 15 1\n7 15 1\nend\n", kinds);
		write_file(bad, text);
		assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
		assert_non_null(strstr(err.text, ":4: slot 7 is not tactile"));
		snprintf(text, sizeof(text), "skind-calibration 1\npart strip 192 %s\n0 15 nan\nend\n", kinds);
		write_file(bad, text);
		assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
		assert_non_null(strstr(err.text, ":3: threshold 'nan'"));
		snprintf(text, sizeof(text), "skind-calibration 1\npart strip 192 %s\n0 15 1\n", kinds);
		write_file(bad, text);
		assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
		assert_non_null(strstr(err.text, "no 'end' line"));
		/* slots 1..3 missing: restored as not calibrated */
		snprintf(text, sizeof(text), "skind-calibration 1\npart strip 192 %s\n0 15 1\nend\n", kinds);
		write_file(bad, text);
		assert_int_equal(skin_proc_restore(fy.p, bad, &err), 0);
		assert_int_equal(skin_proc_faults(fy.p, 0)[1], SKIN_FAULT_CALIBRATION);
		assert_int_equal(skin_proc_faults(fy.p, 0)[0], 0);
	}
	snprintf(bad, sizeof(bad), "%s/none", fx.dir);
	assert_int_equal(skin_proc_restore(fy.p, bad, &err), -1);
	assert_non_null(strstr(err.text, "cannot open: No such file or directory"));
	fixture_done(&fx);
	fixture_done(&fy);
}

/* Switching an improvement off leaves nothing behind: a held baseline
 * drifts again, a stuck taxel is back. */
static void switches_off(void **state)
{
	struct fixture fx;
	uint64_t seq, i;

	(void)state;
	fixture_strip(&fx, "binarization = false\nstuck_s = 0.5");
	seq = calibrate_strip(fx.p);
	for (i = 0; i < 40; i++)	/* taxel 1 held, taxel 0 constant */
		feed4(fx.p, seq++, 240, 175 + (int)(i % 2), 230 + (int)(i % 2), 250 + (int)(i % 2));
	assert_near(skin_proc_baselines(fx.p, 0)[1], 20, EPS);
	assert_int_equal(skin_proc_faults(fx.p, 0)[0], SKIN_FAULT_STUCK);
	assert_int_equal(skin_proc_set(fx.p, "hold_contacts", "false", NULL, 0), 0);
	assert_int_equal(skin_proc_set(fx.p, "fault_detection", "false", NULL, 0), 0);
	assert_int_equal(skin_proc_faults(fx.p, 0)[0], 0);
	/* d = 60 or 59, touched: the contact gain drifts the baseline; and
	 * taxel 0 (baseline 15, smoothing state 0: its d was 0 until it
	 * stuck) is processed again: d = 25 - 15, half of it smoothed */
	feed4(fx.p, seq++, 230, 175, 230, 250);
	assert_near(skin_proc_baselines(fx.p, 0)[1], 20 + 0.02 * 0.05 * 60 / 10, 1e-12);
	assert_near(skin_proc_values(fx.p, 0)[0], 5, EPS);
	fixture_done(&fx);
}

static void bad_calls(void **state)
{
	struct fixture fx;
	struct skin_frame f;
	struct skin_error err;
	struct skin_config_comp c;

	(void)state;
	fixture_strip(&fx, "");
	frame_init(&f, 1, 0, 240);
	assert_int_equal(skin_proc_feed(fx.p, 1, &f), -EINVAL);
	assert_int_equal(skin_proc_cluster(fx.p, 1), -EINVAL);
	assert_null(skin_proc_values(fx.p, 1));
	assert_int_equal(skin_proc_patch_find(fx.p, "can0", 1), 0);
	assert_int_equal(skin_proc_patch_find(fx.p, "can0", 2), -1);
	/* uncalibrated: 0 and no contacts */
	assert_int_equal(skin_proc_feed(fx.p, 0, &f), 0);
	assert_int_equal(skin_proc_cluster(fx.p, 0), 0);
	skin_config_comp_default(&c);
	c.smooth_factor = 2;
	assert_null(skin_proc_new(fx.m, &c, &err));
	assert_string_equal(err.what, "smooth_factor = 2: expected a number >= 0 and <= 1");
	fixture_done(&fx);
}

/*
 * The form of the per-patch arithmetic is an option of creation: each
 * one this CPU has is run when asked for, one it lacks is refused by
 * name, AUTO is the best it has, and the names parse both ways.
 */
static void isa_options(void **state)
{
	static const enum skin_proc_isa forms[] = {
		SKIN_PROC_ISA_PORTABLE, SKIN_PROC_ISA_AVX2, SKIN_PROC_ISA_AVX512,
	};
	enum skin_proc_isa best = SKIN_PROC_ISA_PORTABLE;
	struct skin_proc_opts o = { 0 };
	struct skin_error err;
	struct skin_proc *p;
	struct fixture fx;
	unsigned int i;

	(void)state;
	fixture_strip(&fx, "");
	assert_true(skin_proc_isa_supported(SKIN_PROC_ISA_AUTO));
	assert_true(skin_proc_isa_supported(SKIN_PROC_ISA_PORTABLE));
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const char *name = skin_proc_isa_name(forms[i]);

		assert_non_null(name);
		assert_int_equal(skin_proc_isa_parse(name), forms[i]);
		o.isa = forms[i];
		p = skin_proc_new_opts(fx.m, &fx.cfg->comp, &o, &err);
		if (skin_proc_isa_supported(forms[i])) {
			assert_non_null(p);
			assert_int_equal(skin_proc_isa(p), forms[i]);
			/* it runs: a calibration and a sample */
			calibrate_strip(p);
			skin_proc_free(p);
			best = forms[i];
		} else {
			assert_null(p);
			assert_non_null(strstr(err.what, name));
		}
	}
	assert_int_equal(skin_proc_isa(fx.p), best);	/* AUTO */
	assert_int_equal(skin_proc_isa_parse("auto"), SKIN_PROC_ISA_AUTO);
	assert_int_equal(skin_proc_isa_parse("sse9"), -EINVAL);
	assert_null(skin_proc_isa_name((enum skin_proc_isa)7));
	o.isa = (enum skin_proc_isa)7;
	assert_null(skin_proc_new_opts(fx.m, &fx.cfg->comp, &o, &err));
	assert_string_equal(err.what, "unknown instruction set 7");
	fixture_done(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(calibration_rule),
		cmocka_unit_test(compat_steps),
		cmocka_unit_test(default_steps),
		cmocka_unit_test(binarization_and_bytes),
		cmocka_unit_test(binarization_switched_on),
		cmocka_unit_test(zero_up),
		cmocka_unit_test(pads_and_absent_are_zero),
		cmocka_unit_test(calibration_refused),
		cmocka_unit_test(persistent_contact),
		cmocka_unit_test(hold_max),
		cmocka_unit_test(self_recalibration),
		cmocka_unit_test(faults),
		cmocka_unit_test(dead_then_back),
		cmocka_unit_test(noisy),
		cmocka_unit_test(contacts_geometry),
		cmocka_unit_test(contact_ids),
		cmocka_unit_test(restore_between_feed_and_cluster),
		cmocka_unit_test(fingertips_group_by_triangle),
		cmocka_unit_test(params_by_name),
		cmocka_unit_test(calibration_file),
		cmocka_unit_test(switches_off),
		cmocka_unit_test(bad_calls),
		cmocka_unit_test(isa_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
