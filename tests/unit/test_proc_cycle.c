// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_cycle.c - compat mode on skinManager's clock (skin_proc_opts.cycle)
 *
 * skinManager's thread (icub-main CompensationThread::run()) reads each
 * part's whole vector once per period (20 ms), whatever its boards' rate
 * (50 ms), and calibrates over the cycles from 0 to CAL_SAMPLES =
 * (int)(5 / 0.02) inclusive: 251 vectors.  Here a part's boards send
 * samples at 50 ms, out of phase with one another, a press comes and goes
 * on one board under noise and drift, and lib/proc, cycled every 20 ms,
 * is compared after every cycle with skinManager's arithmetic written out
 * below from compensator.cpp (its types: start_sum a vector<float>,
 * smoothFactor a float, addThreshold an unsigned int; the part vector the
 * newest sample of each board), not from lib/proc.  The same stream fed
 * to a processor that processes each board's sample as it comes (compat
 * without cycling, what skind did before) differs from it, which shows
 * the comparison can fail.
 */
#include "test_proc_util.h"

#include <math.h>

#define BOARD_MS	50u
#define CYCLE_MS	20u
#define SLOTS		SKIN_VALUES_PER_PATCH
#define MAX_BOARDS	4

/* skinManager's constants (compensator.h, compensationThread.h) */
#define SM_MAX_SKIN	255
#define SM_CAL_TIME	5

/* The stream: board b's raw value of slot o at board sample n */
static uint8_t stream_raw(unsigned int b, unsigned int o, unsigned int n,
			  uint32_t *rng)
{
	int v = 240 - (int)((b * 7 + o * 3) % 25);
	int noise;

	*rng = *rng * 1103515245u + 12345u;
	noise = (int)((*rng >> 16) % 5) - 2;		/* -2..2 */
	v += noise;
	v -= (int)(n / 40);				/* drift: a count a 2 s */
	/* a press on board 1's first triangles from 8 s to 11 s, ramping */
	if (b == 1 && o < 36 && n >= 160 && n < 220)
		v -= n < 170 ? (int)(n - 159) * 6 : 60;
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* skinManager's Compensator for one part, as compensator.cpp computes */
struct sm {
	unsigned int dim;
	bool bin;
	/* calibration */
	int cal_read;
	float start_sum[MAX_BOARDS * SLOTS];
	int hist[MAX_BOARDS * SLOTS][SM_MAX_SKIN + 1];
	/* compensation */
	double baselines[MAX_BOARDS * SLOTS], thr[MAX_BOARDS * SLOTS];
	double old[MAX_BOARDS * SLOTS], out[MAX_BOARDS * SLOTS];
	bool touch_filt[MAX_BOARDS * SLOTS];
};

static const double sm_gain = 0.2, sm_contact_gain = 0.05;
static const unsigned int sm_add_threshold = 7;
static const float sm_smooth_factor = 0.5f;

static void sm_collect(struct sm *s, const uint8_t *raw)
{
	unsigned int j;

	s->cal_read++;
	for (j = 0; j < s->dim; j++) {
		double v = SM_MAX_SKIN - (double)raw[j];

		s->hist[j][(int)v]++;
		s->start_sum[j] += (int)v;
	}
}

static void sm_finish(struct sm *s)
{
	unsigned int i;
	int j;

	for (i = 0; i < s->dim; i++) {
		/* a float sum over (int or 1.0): a double division */
		s->baselines[i] = s->start_sum[i] / (s->cal_read != 0.0 ? s->cal_read : 1.0);
		for (j = 1; j <= SM_MAX_SKIN; j++)
			s->hist[i][j] += s->hist[i][j - 1];
		for (j = 0; j <= SM_MAX_SKIN; j++)
			if (s->hist[i][j] > s->cal_read * 0.95) {
				s->thr[i] = (double)j - s->baselines[i];
				break;
			}
		s->old[i] = s->baselines[i];
	}
	for (i = 0; i < s->dim; i++)
		s->thr[i] = s->thr[i] > 1 ? s->thr[i] : 1;
}

/* readRawAndWriteCompensatedData() then updateBaseline() */
static void sm_compensate(struct sm *s, const uint8_t *raw)
{
	bool touch[MAX_BOARDS * SLOTS];
	double cd[MAX_BOARDS * SLOTS];
	unsigned int i;

	for (i = 0; i < s->dim; i++) {
		double d = (double)(SM_MAX_SKIN - raw[i] - s->baselines[i]);

		d = d < SM_MAX_SKIN ? d : SM_MAX_SKIN;
		cd[i] = d;
		touch[i] = d > s->thr[i] + sm_add_threshold;
		d = (1 - sm_smooth_factor) * d + sm_smooth_factor * s->old[i];
		s->old[i] = d;
		s->touch_filt[i] = d > s->thr[i] + sm_add_threshold;
		if (s->bin)
			d = s->touch_filt[i] ? 100.0 : 0.0;
		s->out[i] = d > 0.0 ? d : 0.0;
	}
	for (i = 0; i < s->dim; i++) {
		double gain = touch[i] ? sm_contact_gain * 0.02 : sm_gain * 0.02;

		s->baselines[i] += gain * cd[i] / s->thr[i];
	}
}

static bool g_bin;

static void tweak(struct skin_config_comp *c)
{
	c->compat = 1;
	c->binarization = g_bin;
	c->period_ms = CYCLE_MS;
	c->calibration_s = SM_CAL_TIME;
	c->compensation_gain = sm_gain;
	c->contact_compensation_gain = sm_contact_gain;
	c->add_threshold = sm_add_threshold;
	c->smooth_filter = 1;
	c->smooth_factor = sm_smooth_factor;
	c->zero_up_raw_data = 0;
}

static unsigned int part_named(const struct skin_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->n_parts; i++)
		if (!strcmp(m->parts[i].name, name))
			return i;
	fail_msg("no part %s", name);
	return 0;
}

/*
 * 14 s of @part's boards, each at 50 ms from its own phase, and lib/proc
 * cycled every 20 ms beside skinManager's arithmetic (cycling) or fed
 * every sample (not).  Returns the largest difference of a published
 * value of a tactile taxel over the cycles after both calibrated, and
 * counts the touch flags that differ.
 */
static double run_part(const char *name, bool bin, bool cycle,
		       unsigned int *flag_diffs, unsigned int *touched_cycles)
{
	static struct sm s;
	struct skin_proc_opts o = { .cycle = cycle };
	struct skin_error err;
	struct fixture fx;
	const struct skin_part *sp;
	struct skin_frame f;
	uint8_t latest[MAX_BOARDS * SLOTS];
	bool tactile[MAX_BOARDS * SLOTS];
	unsigned int part, b, k, nb, cycle_no = 0, done, needed;
	unsigned int sent[MAX_BOARDS] = { 0 };
	uint32_t rng[MAX_BOARDS] = { 1, 2, 3, 4 };
	uint64_t t, t_end = 14000 * MS;
	double worst = 0;
	bool sm_running = false;

	g_bin = bin;
	fixture_icub(&fx, tweak);
	skin_proc_free(fx.p);
	/* per feed, period_ms is the feeds' interval (skind's pipeline sets
	 * the board period) */
	if (!cycle)
		fx.cfg->comp.period_ms = BOARD_MS;
	fx.p = skin_proc_new_opts(fx.m, &fx.cfg->comp, &o, &err);
	if (!fx.p)
		fail_msg("proc: %s", err.text);
	part = part_named(fx.m, name);
	sp = &fx.m->parts[part];
	nb = sp->n_patches;
	assert_true(nb <= MAX_BOARDS);
	memset(&s, 0, sizeof(s));
	s.dim = sp->n_taxels;
	s.bin = bin;
	for (k = 0; k < s.dim; k++)
		tactile[k] = fx.m->taxels[sp->first_taxel + k].kind == SKIN_TAXEL_TACTILE;
	*flag_diffs = *touched_cycles = 0;
	assert_int_equal(skin_proc_calibrate(fx.p, (int)part), 0);
	skin_proc_calibration_progress(fx.p, part, &done, &needed);
	/* skinManager's count: cycles 0..250 of 20 ms; per feed: 5 s of
	 * board samples */
	assert_int_equal(needed, cycle ? 251 : 100);

	/* 1 ms steps: board b sends at 50 ms x n + 7 + 13 b ms, cycles at
	 * 20 ms x n + 10 ms (after both boards' first samples) */
	for (t = 0; t < t_end; t += MS) {
		for (b = 0; b < nb; b++) {
			const struct skin_patch *pa = &fx.m->patches[sp->first_patch + b];
			unsigned int ms = (unsigned int)(t / MS), n = sent[b];

			if (ms < 7 + 13 * b || (ms - 7 - 13 * b) % BOARD_MS)
				continue;
			frame_init(&f, n + 1, t, 0);
			for (k = 0; k < SLOTS; k++)
				f.values[k] = stream_raw(b, k, n, &rng[b]);
			for (k = 0; k < SLOTS && pa->order * SLOTS + k < s.dim; k++)
				latest[pa->order * SLOTS + k] = f.values[k];
			assert_true(skin_proc_feed(fx.p, sp->first_patch + b, &f) >= 0);
			sent[b]++;
		}
		if (t < 60 * MS || (t / MS - 10) % CYCLE_MS)
			continue;
		/* skinManager's cycle */
		if (!sm_running) {
			sm_collect(&s, latest);
			/* CAL_SAMPLES = (int)((double)CAL_TIME / getPeriod()) */
			if (cycle_no++ == (unsigned int)((double)SM_CAL_TIME / (CYCLE_MS / 1000.0))) {
				sm_finish(&s);
				sm_running = true;
			}
		} else {
			sm_compensate(&s, latest);
		}
		assert_true(skin_proc_cycle(fx.p, part, t) >= 0);
		if (!sm_running || skin_proc_state(fx.p, part) != SKIN_PROC_RUNNING)
			continue;
		{
			const double *v = skin_proc_values(fx.p, part);
			const uint8_t *tf = skin_proc_touched(fx.p, part);
			bool any = false;

			for (k = 0; k < s.dim; k++) {
				double dv;

				if (!tactile[k])
					continue;
				dv = fabs(v[k] - s.out[k]);
				worst = dv > worst ? dv : worst;
				*flag_diffs += tf[k] != s.touch_filt[k];
				any |= s.touch_filt[k];
			}
			*touched_cycles += any;
		}
	}
	fixture_done(&fx);
	return worst;
}

static void check(const char *name, bool bin)
{
	unsigned int flags, touched, flags_feed, touched_feed;
	double cyc = run_part(name, bin, true, &flags, &touched);
	double feed = run_part(name, bin, false, &flags_feed, &touched_feed);

	print_message("# %s, binarization %s: cycled: largest difference %.3g, %u touch flags differ (%u cycles touched); per feed: %.3g, %u\n",
		      name, bin ? "on" : "off", cyc, flags, touched, feed, flags_feed);
	if (strcmp(name, "left_hand"))
		assert_true(touched > 50);	/* the press was seen */
	assert_true(cyc <= 1e-9);
	assert_int_equal(flags, 0);
	/* processing each board's sample as it comes is not skinManager */
	assert_true(feed > 1);
}

static void forearm_two_boards(void **state)
{
	(void)state;
	check("left_forearm", false);
}

static void forearm_two_boards_binarized(void **state)
{
	(void)state;
	check("left_forearm", true);
}

static void upper_arm_four_boards(void **state)
{
	(void)state;
	check("left_upper_arm", false);
}

static void hand_one_board(void **state)
{
	(void)state;
	check("left_hand", false);
}

/*
 * The mode switches at run time on a cycling processor: outside compat
 * mode a feed is processed at once and a cycle does nothing; with compat
 * turned on a feed changes no output and the cycle processes the newest
 * sample, every cycle, new or not; the calibration counts cycles.
 */
static void switches_with_compat(void **state)
{
	const struct skin_proc_opts o = { .cycle = true };
	struct skin_error err;
	struct fixture fx;
	const double *v;
	unsigned int done, needed, i;
	uint64_t seq = 1;
	double before;

	(void)state;
	fixture_strip(&fx, "binarization = false");
	skin_proc_free(fx.p);
	fx.p = skin_proc_new_opts(fx.m, &fx.cfg->comp, &o, &err);
	assert_non_null(fx.p);
	v = skin_proc_values(fx.p, 0);
	/* skind's mode: calibration_s 0.1 of feeds at period_ms 20: 5 */
	assert_int_equal(skin_proc_calibrate(fx.p, 0), 0);
	for (i = 0; i < 5; i++)		/* a little noise: 240, 241 */
		feed4(fx.p, seq++, 240 + i % 2, 240 + i % 2, 240 + i % 2, 240 + i % 2);
	assert_int_equal(skin_proc_state(fx.p, 0), SKIN_PROC_RUNNING);
	feed4(fx.p, seq++, 240, 200, 240, 240);
	assert_true(v[1] > 10);
	before = v[1];
	assert_int_equal(skin_proc_cycle(fx.p, 0, seq * 20 * MS), 0);
	assert_true(v[1] == before);

	/* compat: feeds kept, cycles process; (int)(0.1 / 0.02) + 1 cycles */
	assert_int_equal(skin_proc_set(fx.p, "compat", "true", NULL, 0), 0);
	assert_int_equal(skin_proc_calibrate(fx.p, 0), 0);
	skin_proc_calibration_progress(fx.p, 0, &done, &needed);
	assert_int_equal(needed, 6);
	/* v 15, 14, ... over 6 cycles: mean 14.5, threshold 15 - 14.5 -> 1 */
	for (i = 0; i < 5; i++) {
		assert_int_equal(feed4(fx.p, seq++, 240 + i % 2, 240 + i % 2,
				       240 + i % 2, 240 + i % 2), 0);
		assert_int_equal(skin_proc_cycle(fx.p, 0, seq * 20 * MS), 0);
	}
	assert_int_equal(skin_proc_state(fx.p, 0), SKIN_PROC_CALIBRATING);
	feed4(fx.p, seq++, 241, 241, 241, 241);
	assert_true(skin_proc_cycle(fx.p, 0, seq * 20 * MS) & SKIN_PROC_EV_CALIBRATED);
	assert_int_equal(skin_proc_state(fx.p, 0), SKIN_PROC_RUNNING);
	assert_int_equal(feed4(fx.p, seq++, 240, 200, 240, 240), 0);
	assert_true(v[1] == 0);		/* kept, not processed */
	skin_proc_cycle(fx.p, 0, seq * 20 * MS);
	/* d = 55 - 14.5, smoothing from the baseline: 0.5 x 40.5 + 0.5 x 14.5 */
	assert_true(fabs(v[1] - 27.5) < 1e-12);
	before = v[1];
	skin_proc_cycle(fx.p, 0, seq * 20 * MS);	/* the same sample again */
	assert_true(v[1] != before);
	fixture_done(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(forearm_two_boards),
		cmocka_unit_test(forearm_two_boards_binarized),
		cmocka_unit_test(upper_arm_four_boards),
		cmocka_unit_test(hand_one_board),
		cmocka_unit_test(switches_with_compat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
