// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_reference.c - compat mode against skinManager's algorithm
 *
 * An independent, line-by-line transcription of skinManager's Compensator
 * (robotology/icub-main, src/modules/skinManager/src/compensator.cpp:
 * calibrationInit, calibrationDataCollection, calibrationFinish,
 * readRawAndWriteCompensatedData, updateBaseline; types from
 * compensator.h: start_sum is vector<float>, smoothFactor a float,
 * addThreshold an unsigned int, MIN_TOUCH_THR 1, BIN_TOUCH 100) runs on
 * the same generated streams as lib/proc in compat mode; every published
 * value of every tactile taxel must agree within 1e-6, and so must the
 * touch flags contacts are built from (touchDetectedFilt).
 *
 * The streams: per taxel a resting value, noise, slow drift, and presses
 * of random taxel groups, depth and length, from a fixed-seed generator.
 */
#include <math.h>
#include <stdbool.h>

#include "test_proc_util.h"
#include "tap_skip.h"

#define MAX_SKIN 255
#define MIN_TOUCH_THR 1
#define BIN_TOUCH 100
#define BIN_NO_TOUCH 0

/* ---- the transcription: one Compensator over one part's vector ---- */
struct compensator {
	unsigned int skinDim;
	double compensationGain, contactCompensationGain;
	unsigned int addThreshold;
	bool zeroUpRawData, binarization, smoothFilter;
	float smoothFactor;
	double *baselines, *touchThresholds, *compensatedData,
	       *compensatedDataOld, *compensatedDataFilt, *out;
	bool *touchDetected, *touchDetectedFilt;
	int calibrationRead;
	float *start_sum;
	int (*skin_empty)[MAX_SKIN + 1];
};

static void comp_init(struct compensator *c, unsigned int n,
		      const struct skin_config_comp *prm)
{
	memset(c, 0, sizeof(*c));
	c->skinDim = n;
	c->compensationGain = prm->compensation_gain;
	c->contactCompensationGain = prm->contact_compensation_gain;
	c->addThreshold = (unsigned int)prm->add_threshold;
	c->zeroUpRawData = prm->zero_up_raw_data;
	c->binarization = prm->binarization;
	c->smoothFilter = prm->smooth_filter;
	c->smoothFactor = (float)prm->smooth_factor;
	c->baselines = calloc(n, sizeof(double));
	c->touchThresholds = calloc(n, sizeof(double));
	c->compensatedData = calloc(n, sizeof(double));
	c->compensatedDataOld = calloc(n, sizeof(double));
	c->compensatedDataFilt = calloc(n, sizeof(double));
	c->out = calloc(n, sizeof(double));
	c->touchDetected = calloc(n, sizeof(bool));
	c->touchDetectedFilt = calloc(n, sizeof(bool));
	c->start_sum = calloc(n, sizeof(float));
	c->skin_empty = calloc(n, sizeof(*c->skin_empty));
}

static void comp_free(struct compensator *c)
{
	free(c->baselines); free(c->touchThresholds); free(c->compensatedData);
	free(c->compensatedDataOld); free(c->compensatedDataFilt); free(c->out);
	free(c->touchDetected); free(c->touchDetectedFilt); free(c->start_sum);
	free(c->skin_empty);
}

static void calibrationInit(struct compensator *c)
{
	c->calibrationRead = 0;
	memset(c->start_sum, 0, c->skinDim * sizeof(float));
	memset(c->skin_empty, 0, c->skinDim * sizeof(*c->skin_empty));
}

static void calibrationDataCollection(struct compensator *c, const double *skin_values_in)
{
	unsigned int j;

	c->calibrationRead++;
	for (j = 0; j < c->skinDim; j++) {
		double v = skin_values_in[j];

		if (c->zeroUpRawData == false)
			v = MAX_SKIN - v;
		if (v < 0 || v > MAX_SKIN)
			continue;	/* "Data out of range" */
		c->skin_empty[j][(int)v]++;
		c->start_sum[j] += (int)v;
	}
}

static void calibrationFinish(struct compensator *c)
{
	unsigned int i;
	int j;

	for (i = 0; i < c->skinDim; i++) {
		c->baselines[i] = c->start_sum[i] /
			(c->calibrationRead != 0.0 ? c->calibrationRead : 1.0);
		for (j = 1; j <= MAX_SKIN; j++)
			c->skin_empty[i][j] += c->skin_empty[i][j - 1];
		for (j = 0; j <= MAX_SKIN; j++)
			if (c->skin_empty[i][j] > (c->calibrationRead * 0.95)) {
				c->touchThresholds[i] = (double)j - c->baselines[i];
				j = MAX_SKIN;
			}
	}
	memcpy(c->compensatedDataOld, c->baselines, c->skinDim * sizeof(double));
	for (i = 0; i < c->skinDim; i++)
		c->touchThresholds[i] = c->touchThresholds[i] > MIN_TOUCH_THR ?
					c->touchThresholds[i] : MIN_TOUCH_THR;
}

static void readRawAndWriteCompensatedData(struct compensator *c, const double *rawData)
{
	unsigned int i;
	double d;

	for (i = 0; i < c->skinDim; i++) {
		d = (double)(c->zeroUpRawData ? rawData[i] - c->baselines[i]
					      : MAX_SKIN - rawData[i] - c->baselines[i]);
		d = d < MAX_SKIN ? d : MAX_SKIN;
		c->compensatedData[i] = d;
		c->touchDetected[i] = (d > c->touchThresholds[i] + c->addThreshold);
		if (c->smoothFilter) {
			d = (1 - c->smoothFactor) * d + c->smoothFactor * c->compensatedDataOld[i];
			c->compensatedDataOld[i] = d;
		}
		c->compensatedDataFilt[i] = d;
		c->touchDetectedFilt[i] = (d > c->touchThresholds[i] + c->addThreshold);
		if (c->binarization)
			d = (c->touchDetectedFilt[i] ? BIN_TOUCH : BIN_NO_TOUCH);
		c->out[i] = d > 0.0 ? d : 0.0;
	}
}

static void updateBaseline(struct compensator *c)
{
	double change, gain, d;
	unsigned int j;

	for (j = 0; j < c->skinDim; j++) {
		d = c->compensatedData[j];
		if (c->touchDetected[j])
			gain = c->contactCompensationGain * 0.02;
		else
			gain = c->compensationGain * 0.02;
		change = gain * d / c->touchThresholds[j];
		c->baselines[j] += change;
	}
}

/* ---- the generated streams ---- */
static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

struct press {
	unsigned int part, centre, radius, left;
	int depth;
	unsigned int len;		/* samples in all (press_ramp) */
};

/* Presses that ramp in (wobbling) and out over RAMP samples instead of
 * stepping: holds whose value falls back below the touch level while the
 * smoothed value lags below it */
static bool press_ramp;
#define RAMP 6

/* The raw value of slot k of part pi at sample s. */
static int raw_value(unsigned int pi, unsigned int k, unsigned int s,
		     const struct press *pr, unsigned int n_press)
{
	unsigned int i;
	int base = 225 + (int)((pi * 7 + k * 13) % 20);	/* 225..244 */
	double drift = 6 * sin(s / 700.0 + k * 0.1);
	int v = base + (int)lround(drift) + (int)(rng() % 5) - 2;

	for (i = 0; i < n_press; i++)
		if (pr[i].left && pr[i].part == pi &&
		    k + pr[i].radius >= pr[i].centre &&
		    k <= pr[i].centre + pr[i].radius) {
			unsigned int in = pr[i].len - pr[i].left, r = RAMP;

			if (press_ramp && in < r)
				r = in;
			if (press_ramp && pr[i].left < r)
				r = pr[i].left;
			/* and wobble on the way in: 0, 0, 2, 1, 4, 3, 6 */
			if (press_ramp && in < RAMP && in % 2)
				r = r > 2 ? r - 2 : 0;
			v -= press_ramp ? pr[i].depth * (int)r / RAMP : pr[i].depth;
		}
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

static double run_reference(const char *what, void (*tweak)(struct skin_config_comp *),
			    bool strict)
{
	enum { N_PRESS = 4, SAMPLES = 1000 };
	struct fixture fx;
	struct compensator *c;
	struct press pr[N_PRESS];
	struct skin_frame f;
	double *raw;
	unsigned int pi, k, s, i, compared = 0, touches = 0, cal_n;
	double worst = 0;

	fixture_icub(&fx, tweak);
	cal_n = (unsigned int)lround(fx.cfg->comp.calibration_s * 1000 / fx.cfg->comp.period_ms);
	c = calloc(fx.m->n_parts, sizeof(*c));
	raw = calloc(768, sizeof(double));
	for (pi = 0; pi < fx.m->n_parts; pi++) {
		comp_init(&c[pi], fx.m->parts[pi].n_taxels, &fx.cfg->comp);
		calibrationInit(&c[pi]);
	}
	memset(pr, 0, sizeof(pr));
	rng_state = 42;
	assert_int_equal(skin_proc_calibrate(fx.p, -1), 0);
	for (s = 0; s < SAMPLES; s++) {
		/* presses begin after the calibration */
		for (i = 0; s > cal_n && i < N_PRESS; i++) {
			if (pr[i].left) {
				pr[i].left--;
				continue;
			}
			if (rng() % 50)
				continue;
			pr[i].part = rng() % fx.m->n_parts;
			pr[i].centre = rng() % fx.m->parts[pr[i].part].n_taxels;
			pr[i].radius = rng() % 8;
			pr[i].depth = 10 + (int)(rng() % 150);
			pr[i].left = 5 + rng() % 300;
		}
		for (pi = 0; pi < fx.m->n_parts; pi++) {
			const struct skin_part *sp = &fx.m->parts[pi];
			const double *v;
			const uint8_t *t;

			for (k = 0; k < sp->n_taxels; k++) {
				raw[k] = raw_value(pi, k, s, pr, N_PRESS);
				/* zeroUpRawData: pressure drives values up */
				if (fx.cfg->comp.zero_up_raw_data)
					raw[k] = 255 - raw[k];
			}
			for (i = 0; i < sp->n_patches; i++) {
				frame_init(&f, s + 1, (s + 1) * 20 * MS, 0);
				for (k = 0; k < SKIN_VALUES_PER_PATCH; k++)
					f.values[k] = (uint8_t)raw[i * SKIN_VALUES_PER_PATCH + k];
				assert_true(skin_proc_feed(fx.p, sp->first_patch + i, &f) >= 0);
			}
			/* CompensationThread::run(): calibration collects
			 * samples 0..CAL_SAMPLES-1 here (N of them), then
			 * compensation reads and updates the baseline */
			if (s < cal_n) {
				calibrationDataCollection(&c[pi], raw);
				if (s == cal_n - 1) {
					calibrationFinish(&c[pi]);
					assert_int_equal(skin_proc_state(fx.p, pi), SKIN_PROC_RUNNING);
				}
				continue;
			}
			readRawAndWriteCompensatedData(&c[pi], raw);
			updateBaseline(&c[pi]);
			v = skin_proc_values(fx.p, pi);
			t = skin_proc_touched(fx.p, pi);
			for (k = 0; k < sp->n_taxels; k++) {
				double e;

				if (fx.m->taxels[sp->first_taxel + k].kind != SKIN_TAXEL_TACTILE) {
					assert_true(v[k] == 0);
					continue;
				}
				e = fabs(v[k] - c[pi].out[k]);
				if (e > worst)
					worst = e;
				if (e > 1e-6 && strict)
					fail_msg("%s: sample %u part %s taxel %u: %.9f, skinManager %.9f",
						 what, s, sp->name, k, v[k], c[pi].out[k]);
				if (t[k] != c[pi].touchDetectedFilt[k] && strict)
					fail_msg("%s: sample %u part %s taxel %u: touch %d, skinManager %d",
						 what, s, sp->name, k, t[k], c[pi].touchDetectedFilt[k]);
				touches += t[k];
				compared++;
			}
		}
	}
	print_message("# %s (%s form): %u values compared, %u touched, largest difference %.3g\n",
		      what, skin_proc_isa_name(skin_proc_isa(fx.p)), compared,
		      touches, worst);
	assert_true(touches > 1000);	/* the streams did press */
	for (pi = 0; pi < fx.m->n_parts; pi++)
		comp_free(&c[pi]);
	free(c);
	free(raw);
	fixture_done(&fx);
	return worst;
}

static void t_compat(struct skin_config_comp *c)
{
	c->compat = 1;
	c->binarization = 0;
}

static void t_compat_bin(struct skin_config_comp *c)
{
	c->compat = 1;
}

static void t_compat_nosmooth(struct skin_config_comp *c)
{
	c->compat = 1;
	c->binarization = 0;
	c->smooth_filter = 0;
	c->add_threshold = 3;
	c->compensation_gain = 0.5;
}

static void t_compat_factor(struct skin_config_comp *c)
{
	c->compat = 1;
	c->binarization = 0;
	c->smooth_factor = 0.3;	/* not exact in float: the float path */
	c->calibration_s = 1.3;
}

static void t_compat_zero_up(struct skin_config_comp *c)
{
	c->compat = 1;
	c->binarization = 0;
	c->zero_up_raw_data = 1;
}

static void reference_skinmanall(void **state)
{
	(void)state;
	assert_true(run_reference("skinManAll.ini, no binarization", t_compat, true) <= 1e-6);
}

static void reference_binarized(void **state)
{
	(void)state;
	assert_true(run_reference("skinManAll.ini", t_compat_bin, true) <= 1e-6);
}

static void reference_no_smoothing(void **state)
{
	(void)state;
	assert_true(run_reference("no smoothing, addThreshold 3, gain 0.5", t_compat_nosmooth, true) <= 1e-6);
}

static void reference_float_factor(void **state)
{
	(void)state;
	assert_true(run_reference("smoothFactor 0.3, 1.3 s calibration", t_compat_factor, true) <= 1e-6);
}

static void reference_zero_up(void **state)
{
	(void)state;
	assert_true(run_reference("zeroUpRawData", t_compat_zero_up, true) <= 1e-6);
}

/*
 * The forms of the dense pass a test compares (proc-isa.h), as the state
 * of its cmocka case: each is compared with the portable form, which
 * every CPU runs; a form this CPU lacks is reported skipped, not passed.
 * skip() leaves the case at once (a longjmp): a case that sets the
 * run_hash() flags (hash_contacts, press_ramp, toggle_bin) and clears
 * them at its end calls isa_wanted() before setting them, else a skipped
 * case leaves them set for the cases after it (press_ramp made
 * run_reference()'s presses ramp out, so "skind's default mode" counted
 * 5,285 touched instead of 5,326 on a CPU without AVX-512: aarch64, or an
 * x86-64 with AVX2 alone).
 */
static enum skin_proc_isa isa_avx2 = SKIN_PROC_ISA_AVX2;
static enum skin_proc_isa isa_avx512 = SKIN_PROC_ISA_AVX512;

static enum skin_proc_isa isa_wanted(void **state)
{
	const enum skin_proc_isa isa = *(const enum skin_proc_isa *)*state;

	if (!skin_proc_isa_supported(isa)) {
		print_message("# this CPU has no %s: that form is not compared\n",
			      skin_proc_isa_name(isa));
		skip();
	}
	return isa;
}

/* Each form, the portable one and the vector ones (a case each, the
 * form as its state), agrees with skinManager as well */
static void reference_portable_path(void **state)
{
	(void)state;
	fixture_isa = SKIN_PROC_ISA_PORTABLE;
	assert_true(run_reference("skinManAll.ini, no binarization", t_compat, true) <= 1e-6);
	fixture_isa = SKIN_PROC_ISA_AUTO;
}

static void reference_isa_path(void **state)
{
	fixture_isa = isa_wanted(state);
	assert_true(run_reference("skinManAll.ini, no binarization", t_compat, true) <= 1e-6);
	fixture_isa = SKIN_PROC_ISA_AUTO;
}

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;	/* FNV-1a */
}

/*
 * Faults for the periodic checks to find, in sample s of patch i of part
 * pi: taxels whose value stays put (stuck), taxels on the rail
 * (saturated), triangles that stop sending (dead), diagnostics words,
 * each for a while and then healed.
 */
static unsigned int faults_seen;	/* fault flags run_hash() saw */
static bool hash_contacts;		/* run_hash() hashes every field of
					 * every contact, not only counts */
static bool graph_again;		/* run_hash() computes the model's
					 * neighbour graph again after
					 * skin_proc_new() */
static bool toggle_bin;			/* run_hash() switches binarization
					 * every 100 samples and checks that
					 * binarized values follow the touch
					 * flags */

static void inject_faults(struct skin_frame *f, unsigned int pi,
			  unsigned int i, unsigned int s)
{
	unsigned int k, t;

	for (k = 0; k < SKIN_VALUES_PER_PATCH; k++) {
		unsigned int h = pi * 131 + i * 17 + k;

		if (h % 37 == 5 && s >= 200 && s < 420)
			f->values[k] = 230;
		if (h % 41 == 7 && s >= 250 && s < 470)
			f->values[k] = h % 2 ? 255 : 0;
		/* noisy: anywhere in 100..255, for 6 s after the calibration */
		if (h % 43 == 11 && s >= 300 && s < 600)
			f->values[k] = (uint8_t)(100 + ((h * 2654435761u) ^ (s * 40503u)) % 156);
	}
	if (s >= 300 && s < 360) {
		t = (pi + i + s / 20) % SKIN_TRIANGLES;
		f->refreshed &= (uint16_t)~(1u << t);
	}
	if (s >= 500 && s < 530 && (pi + i) % 3 == 0) {
		t = (pi * 5 + i) % SKIN_TRIANGLES;
		f->diag_valid = (uint16_t)(1u << t);
		f->diag[t] = s < 515 ? (uint16_t)(0x10u << (s % 12)) : 0x1;
	}
}

/*
 * A hash of every output bit (values, bytes, touched, faults, baselines)
 * of every part after every sample, and of the contacts' taxel counts,
 * over generated streams with presses.
 */
static uint64_t run_hash(void (*tweak)(struct skin_config_comp *),
			 bool faulty)
{
	enum { N_PRESS = 4, SAMPLES = 700 };
	struct fixture fx;
	struct press pr[N_PRESS];
	struct skin_frame f;
	uint64_t h = 1469598103934665603ull;
	unsigned int pi, k, s, i, r;
	bool bin;

	fixture_icub(&fx, tweak);
	bin = fx.cfg->comp.binarization;
	if (graph_again)
		assert_int_equal(skin_model_compute_neighbours(fx.m,
				 fx.cfg->comp.max_neighbor_dist_m, NULL), 0);
	memset(pr, 0, sizeof(pr));
	rng_state = 7;
	assert_int_equal(skin_proc_calibrate(fx.p, -1), 0);
	for (s = 0; s < SAMPLES; s++) {
		for (i = 0; s > 150 && i < N_PRESS; i++) {
			if (pr[i].left) {
				pr[i].left--;
				continue;
			}
			if (rng() % 30)
				continue;
			pr[i].part = rng() % fx.m->n_parts;
			pr[i].centre = rng() % fx.m->parts[pr[i].part].n_taxels;
			pr[i].radius = rng() % 12;
			r = rng();
			/* half of them shallow when ramping: holds at the level */
			pr[i].depth = press_ramp && r % 2 ? 20 + (int)(r / 2 % 50) :
				      10 + (int)(r % 200);
			pr[i].left = 5 + rng() % 200;
			pr[i].len = pr[i].left;
		}
		/* baselines out of the safe range under holds */
		if (press_ramp && s == 500)
			assert_int_equal(skin_proc_set(fx.p, "min_baseline", "28",
						       NULL, 0), 0);
		if (toggle_bin && s % 100 == 60) {
			bin = !bin;
			assert_int_equal(skin_proc_set(fx.p, "binarization",
						       bin ? "true" : "false",
						       NULL, 0), 0);
		}
		for (pi = 0; pi < fx.m->n_parts; pi++) {
			const struct skin_part *sp = &fx.m->parts[pi];
			const struct skin_contact *c;
			unsigned int n_c;

			for (i = 0; i < sp->n_patches; i++) {
				frame_init(&f, s + 1, (s + 1) * 20 * MS, 0);
				for (k = 0; k < SKIN_VALUES_PER_PATCH; k++)
					f.values[k] = (uint8_t)raw_value(pi, i * SKIN_VALUES_PER_PATCH + k,
									 s, pr, N_PRESS);
				if (faulty)
					inject_faults(&f, pi, i, s);
				assert_true(skin_proc_feed(fx.p, sp->first_patch + i, &f) >= 0);
			}
			assert_true(skin_proc_cluster(fx.p, pi) >= 0);
			n_c = skin_proc_contacts(fx.p, pi, &c);
			hash_bytes(&h, &n_c, sizeof(n_c));
			for (i = 0; i < n_c; i++)
				hash_bytes(&h, &c[i].r.n_taxels, sizeof(c[i].r.n_taxels));
			for (i = 0; hash_contacts && i < n_c; i++) {
				hash_bytes(&h, c[i].taxels, c[i].r.n_taxels * sizeof(*c[i].taxels));
				hash_bytes(&h, &c[i].r.id, sizeof(c[i].r.id));
				hash_bytes(&h, &c[i].first_ns, sizeof(c[i].first_ns));
				hash_bytes(&h, &c[i].n_with_pos, sizeof(c[i].n_with_pos));
				hash_bytes(&h, c[i].r.cop, sizeof(c[i].r.cop));
				hash_bytes(&h, c[i].r.geo, sizeof(c[i].r.geo));
				hash_bytes(&h, c[i].r.normal, sizeof(c[i].r.normal));
				hash_bytes(&h, &c[i].r.pressure, sizeof(c[i].r.pressure));
				hash_bytes(&h, c[i].r.force, sizeof(c[i].r.force));
				hash_bytes(&h, c[i].r.moment, sizeof(c[i].r.moment));
			}
			hash_bytes(&h, skin_proc_values(fx.p, pi), sp->n_taxels * sizeof(double));
			hash_bytes(&h, skin_proc_baselines(fx.p, pi), sp->n_taxels * sizeof(double));
			hash_bytes(&h, skin_proc_bytes(fx.p, pi), sp->n_taxels);
			hash_bytes(&h, skin_proc_touched(fx.p, pi), sp->n_taxels);
			hash_bytes(&h, skin_proc_faults(fx.p, pi), sp->n_taxels);
			for (k = 0; toggle_bin && bin && k < sp->n_taxels; k++) {
				const uint8_t t = skin_proc_touched(fx.p, pi)[k];

				if (skin_proc_values(fx.p, pi)[k] != (t ? 100 : 0) ||
				    skin_proc_bytes(fx.p, pi)[k] != (t ? 100 : 0))
					fail_msg("part %u taxel %u at sample %u: value %g, byte %u, touched %u",
						 pi, k, s, skin_proc_values(fx.p, pi)[k],
						 skin_proc_bytes(fx.p, pi)[k], t);
			}
			for (k = 0; k < sp->n_taxels; k++)
				faults_seen |= skin_proc_faults(fx.p, pi)[k];
		}
	}
	fixture_done(&fx);
	return h;
}

static void t_skind(struct skin_config_comp *c)
{
	c->binarization = 0;
}

/*
 * run_hash() on the portable form (h[0]) and the form of @state (h[1]),
 * which isa_wanted() skips on a CPU without it; @what names the case in
 * the message that gives both hashes.
 */
static void run_hash_paths(void **state, const char *what,
			   void (*tweak)(struct skin_config_comp *),
			   bool faulty, uint64_t h[2])
{
	const enum skin_proc_isa isa = isa_wanted(state);

	fixture_isa = SKIN_PROC_ISA_PORTABLE;
	h[0] = run_hash(tweak, faulty);
	fixture_isa = isa;
	h[1] = run_hash(tweak, faulty);
	fixture_isa = SKIN_PROC_ISA_AUTO;
	print_message("# %s: portable %016llx, %s %016llx\n", what,
		      (unsigned long long)h[0], skin_proc_isa_name(isa),
		      (unsigned long long)h[1]);
}

/*
 * A vector form of the dense pass (the case's state) gives the portable
 * form's bits, in both modes, binarized or not.
 */
static void paths_identical(void **state)
{
	void (*const tweaks[])(struct skin_config_comp *) = {
		t_compat, t_compat_bin, t_skind, NULL,
	};
	unsigned int i;

	for (i = 0; i < sizeof(tweaks) / sizeof(tweaks[0]); i++) {
		char what[32];
		uint64_t h[2];

		snprintf(what, sizeof(what), "paths, case %u", i);
		run_hash_paths(state, what, tweaks[i], false, h);
		assert_true(h[0] == h[1]);
	}
}

/*
 * Every field of every contact (taxel lists, ids, first_ns, geometry) is
 * the same on a vector form as on the portable one, in both modes; the hashes it prints are
 * the figure to compare with another build of the clustering.
 */
static void contacts_identical(void **state)
{
	void (*const tweaks[])(struct skin_config_comp *) = {
		t_compat, t_skind, NULL,
	};
	unsigned int i;

	(void)isa_wanted(state);	/* skip before setting the flags */
	hash_contacts = true;
	for (i = 0; i < sizeof(tweaks) / sizeof(tweaks[0]); i++) {
		char what[32];
		uint64_t h[2];

		snprintf(what, sizeof(what), "contacts, case %u", i);
		run_hash_paths(state, what, tweaks[i], false, h);
		assert_true(h[0] == h[1]);
	}
	hash_contacts = false;
}

/*
 * The clustering walks the part's own copy of the neighbour graph, made
 * at creation, or the model's graph when that was computed again since:
 * the same contacts either way.
 */
static void contacts_any_graph(void **state)
{
	void (*const tweaks[])(struct skin_config_comp *) = { t_compat, t_skind };
	unsigned int i;

	(void)state;
	hash_contacts = true;
	for (i = 0; i < 2; i++) {
		uint64_t own = run_hash(tweaks[i], false), model;

		graph_again = true;
		model = run_hash(tweaks[i], false);
		graph_again = false;
		assert_true(own == model);
	}
	hash_contacts = false;
}

/* skind's mode with limits short enough for the stream of run_hash() to
 * raise and clear every fault, and baselines that leave the safe range */
static void t_faults(struct skin_config_comp *c)
{
	c->binarization = 0;
	c->stuck_s = 0.5;
	c->saturated_s = 0.3;
	c->dead_s = 0.2;
	c->noisy_s = 1;
	c->min_baseline = 18;
}

/*
 * The same for the periodic checks (faults, self-recalibration), whose
 * masks have a form per instruction set too: the forms agree on a stream
 * that raises and clears faults, and the faults are there.
 */
static void maintain_paths_identical(void **state)
{
	const unsigned int kinds = SKIN_FAULT_STUCK | SKIN_FAULT_SATURATED |
				   SKIN_FAULT_DEAD | SKIN_FAULT_DIAG |
				   SKIN_FAULT_NOISY;
	uint64_t h[2];

	faults_seen = 0;
	run_hash_paths(state, "maintain paths", t_faults, true, h);
	/* every kind was raised */
	assert_int_equal(faults_seen & kinds, kinds);
	assert_true(h[0] == h[1]);
	/* the hash changes when the faults are injected: they are seen */
	assert_true(h[0] != run_hash(t_faults, false));
}

/* skind's mode with holds that expire (hold_max_s) and release (a wide
 * hysteresis) within run_hash()'s ramped presses, with a slow smoothing
 * (held taxels whose smoothed value lags below both levels); run_hash()
 * raises min_baseline to 28 at sample 500, out of the range of most
 * baselines, some of them held (recalibrations as holds end) */
static void t_holds(struct skin_config_comp *c)
{
	c->binarization = 0;
	c->hold_hysteresis = 6;
	c->hold_max_s = 1;
	c->smooth_factor = 0.9;
	c->min_baseline = 0;
}

static void t_holds_bin(struct skin_config_comp *c)
{
	t_holds(c);
	c->binarization = 1;
	c->hold_hysteresis = 0;
}

static void t_holds_forever(struct skin_config_comp *c)
{
	t_holds(c);
	c->hold_max_s = 0;
}

/*
 * Held taxels (improvement a): starting, keeping, releasing and expiring
 * holds give the same bits on a vector form as on the portable one, with and without the
 * fault stream; and the holds do expire in this stream (the hash differs
 * from holds that never expire).
 */
static void holds_paths_identical(void **state)
{
	void (*const tweaks[])(struct skin_config_comp *) = {
		t_holds, t_holds_bin,
	};
	unsigned int i, faulty;

	(void)isa_wanted(state);	/* skip before setting the flags */
	hash_contacts = true;
	press_ramp = true;
	for (faulty = 0; faulty < 2; faulty++)
		for (i = 0; i < sizeof(tweaks) / sizeof(tweaks[0]); i++) {
			char what[32];
			uint64_t h[2];

			snprintf(what, sizeof(what), "holds, case %u%s", i,
				 faulty ? " faulty" : "");
			run_hash_paths(state, what, tweaks[i], faulty, h);
			assert_true(h[0] == h[1]);
			if (i == 0 && !faulty)
				assert_true(h[0] != run_hash(t_holds_forever, false));
		}
	press_ramp = false;
	hash_contacts = false;
}

/*
 * Binarization switched on and off while running: every binarized value
 * and byte is 100 where touched and 0 elsewhere (the binarized pass
 * stores only the slots that may change, proc_patch.out_nz), holds and
 * faults included, and the forms agree.
 */
static void binarization_switched(void **state)
{
	void (*const tweaks[])(struct skin_config_comp *) = {
		t_faults, t_holds,
	};
	unsigned int i;

	(void)isa_wanted(state);	/* skip before setting the flags */
	toggle_bin = true;
	press_ramp = true;
	for (i = 0; i < sizeof(tweaks) / sizeof(tweaks[0]); i++) {
		char what[32];
		uint64_t h[2];

		snprintf(what, sizeof(what), "binarization switched, case %u", i);
		run_hash_paths(state, what, tweaks[i], true, h);
		assert_true(h[0] == h[1]);
	}
	press_ramp = false;
	toggle_bin = false;
}

/* The comparison can fail: skind's own mode (smoothing from 0, exact
 * mean, hold) differs from skinManager on the same streams. */
static void t_default(struct skin_config_comp *c)
{
	c->binarization = 0;
	c->fault_detection = 0;
}

static void reference_detects_differences(void **state)
{
	(void)state;
	assert_true(run_reference("skind's default mode", t_default, false) > 1);
}

/* A case comparing the form isa_NAME with the portable one */
#define ISA_TEST(f, isa)						\
	{ .name = #f " (" #isa ")", .test_func = f,			\
	  .initial_state = &isa_##isa }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reference_skinmanall),
		cmocka_unit_test(reference_binarized),
		cmocka_unit_test(reference_no_smoothing),
		cmocka_unit_test(reference_float_factor),
		cmocka_unit_test(reference_zero_up),
		cmocka_unit_test(reference_portable_path),
		ISA_TEST(reference_isa_path, avx2),
		ISA_TEST(reference_isa_path, avx512),
		ISA_TEST(paths_identical, avx2),
		ISA_TEST(paths_identical, avx512),
		ISA_TEST(maintain_paths_identical, avx2),
		ISA_TEST(maintain_paths_identical, avx512),
		ISA_TEST(contacts_identical, avx2),
		ISA_TEST(contacts_identical, avx512),
		ISA_TEST(holds_paths_identical, avx2),
		ISA_TEST(holds_paths_identical, avx512),
		ISA_TEST(binarization_switched, avx2),
		ISA_TEST(binarization_switched, avx512),
		cmocka_unit_test(contacts_any_graph),
		cmocka_unit_test(reference_detects_differences),
	};

	tap_skip_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
