// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_scenario.c - lib/proc scored against skinsim's ground truth
 *
 * libskinsim simulates every board of etc/skind.conf (the iCub upper body)
 * under a scenario; each simulated sample becomes the frame the driver
 * would publish (values, refreshed = triangles whose head and tail were
 * sent, diagnostics) and is fed to the processor; every part is clustered
 * each period.  The truth is skinsim's own: the scenario's contacts (part,
 * centre, radius) at each time.  Scores, printed as TAP comments and
 * bounded by the asserts:
 *
 *  - contacts found: periods in which a pressed part shows exactly one
 *    contact, over the periods it is pressed (after a short onset);
 *  - CoP error: distance from the contact's CoP to the truth's centre;
 *  - detection latency: samples from the press to the first contact;
 *  - false contacts per hour on noise-only input (new contact ids);
 *  - a persistent contact still reported after 10 simulated minutes of
 *    drift (and, in compat mode, skinManager's #55: compensated away);
 *  - a taxel skinsim makes noisy flagged, and cleared, within noisy_s.
 */
#include <math.h>

#include <skin/sim.h>

#include "test_proc_util.h"

#define PERIOD_NS	(50 * MS)	/* the boards' period */

struct scene {
	struct skin_config *cfg;
	struct skin_model *m;
	struct skin_sim_scenario *sc;
	struct skin_sim *sim;
	struct skin_proc *p;
	struct skin_sim_board *boards;
	unsigned int *patch_of;		/* sim board -> model patch */
	uint64_t k;
};

static void scene_open(struct scene *s, const char *text, bool compat)
{
	struct skin_error err;
	char path[1024];
	unsigned int i;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/etc/skind.conf", SKIN_SOURCE_ROOT);
	s->cfg = skin_config_load(path, &err);
	if (!s->cfg)
		fail_msg("%s", err.text);
	s->cfg->comp.compat = compat;
	/* samples come every board period */
	s->cfg->comp.period_ms = 50;
	s->m = skin_config_build_model(s->cfg, &err);
	s->sc = skin_sim_scenario_load_buffer(text, strlen(text), path, &err);
	if (!s->m || !s->sc)
		fail_msg("%s", err.text);
	s->sim = skin_sim_new(s->cfg, s->sc, &err);
	s->p = skin_proc_new(s->m, &s->cfg->comp, &err);
	if (!s->sim || !s->p)
		fail_msg("%s", err.text);
	s->boards = calloc(skin_sim_patches(s->sim), sizeof(*s->boards));
	s->patch_of = calloc(skin_sim_patches(s->sim), sizeof(*s->patch_of));
	for (i = 0; i < skin_sim_patches(s->sim); i++) {
		const struct skin_sim_patch_info *pi = skin_sim_patch(s->sim, i);
		int pa = skin_proc_patch_find(s->p, pi->bus, pi->address);

		assert_true(pa >= 0);
		s->patch_of[i] = (unsigned int)pa;
		skin_sim_board_init(&s->boards[i], pi->address);
		s->boards[i].enabled = pi->present;
		s->boards[i].streaming = true;
	}
	skin_proc_calibrate(s->p, -1);
}

static void scene_close(struct scene *s)
{
	skin_proc_free(s->p);
	skin_sim_free(s->sim);
	skin_sim_scenario_free(s->sc);
	skin_model_free(s->m);
	skin_config_free(s->cfg);
	free(s->boards);
	free(s->patch_of);
}

/* One period of every board; returns the scenario time. */
static uint64_t scene_step(struct scene *s)
{
	static struct skin_sim_sample smp;
	uint64_t t = s->k * PERIOD_NS;
	unsigned int i;

	s->k++;
	for (i = 0; i < skin_sim_patches(s->sim); i++) {
		struct skin_frame f;
		unsigned int tr;

		skin_sim_sample(s->sim, i, &s->boards[i], s->k, t, &smp);
		memset(&f, 0, sizeof(f));
		f.seq = s->k;
		f.timestamp_ns = t + 1;	/* never 0 */
		f.refreshed = smp.send_head & smp.send_tail & s->boards[i].enabled;
		memcpy(f.values, smp.values, sizeof(f.values));
		for (tr = 0; tr < SKIN_TRIANGLES; tr++)
			if (f.refreshed & (1u << tr)) {
				f.diag[tr] = smp.diag[tr];
				f.diag_valid |= (uint16_t)(1u << tr);
			}
		assert_true(skin_proc_feed(s->p, s->patch_of[i], &f) >= 0);
	}
	for (i = 0; i < s->m->n_parts; i++)
		assert_true(skin_proc_cluster(s->p, i) >= 0);
	return t;
}

static void calibrate(struct scene *s)
{
	unsigned int i;

	while (s->k < 101)	/* 5 s at 50 ms */
		scene_step(s);
	for (i = 0; i < s->m->n_parts; i++)
		if (skin_proc_state(s->p, i) != SKIN_PROC_RUNNING)
			fail_msg("part %s: %s", s->m->parts[i].name,
				 skin_proc_reason(s->p, i));
}

static unsigned int part_index(const struct scene *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->m->n_parts; i++)
		if (!strcmp(s->m->parts[i].name, name))
			return i;
	fail_msg("no part %s", name);
	return 0;
}

static unsigned int total_contacts(const struct scene *s)
{
	const struct skin_contact *c;
	unsigned int i, n = 0;

	for (i = 0; i < s->m->n_parts; i++)
		n += skin_proc_contacts(s->p, i, &c);
	return n;
}

/*
 * A press of 3 s on the left forearm after the calibration (default
 * smoothing 0.5, binarization on: skinManAll.ini's values).
 */
static void single_touch(bool compat)
{
	static const char text[] =
		"seed 11\n"
		"at 7s press left_forearm taxel 37 radius 12mm force 80 name finger ramp 50ms\n"
		"at 10s release finger ramp 50ms\n";
	struct skin_sim_contact_state truth[4];
	struct scene s;
	unsigned int fa, held = 0, found = 0, latency = 0, elsewhere = 0;
	double cop_err = 0, worst = 0;
	uint64_t t, first = 0;

	scene_open(&s, text, compat);
	fa = part_index(&s, "left_forearm");
	calibrate(&s);
	do {
		const struct skin_contact *c;
		unsigned int n, nt;

		t = scene_step(&s);
		nt = skin_sim_contacts(s.sim, t, truth, 4);
		n = skin_proc_contacts(s.p, fa, &c);
		elsewhere += total_contacts(&s) - n;
		if (!nt) {
			assert_true(t < 7000 * MS || t > 10300 * MS || n <= 1);
			continue;
		}
		if (!first && n)
			first = t;
		if (t < 7200 * MS || t > 9900 * MS)	/* onset and release */
			continue;
		held++;
		if (n == 1) {
			double e = sqrt(pow(c[0].r.cop[0] - truth[0].centre[0], 2) +
					pow(c[0].r.cop[1] - truth[0].centre[1], 2) +
					pow(c[0].r.cop[2] - truth[0].centre[2], 2));

			found++;
			cop_err += e;
			if (e > worst)
				worst = e;
		}
	} while (t < 12000 * MS);
	latency = first ? (unsigned int)((first - 7000 * MS) / PERIOD_NS) : 9999;
	print_message("# single touch (%s): found in %u of %u held periods, CoP error mean %.2f mm, worst %.2f mm, latency %u samples, %u contact-periods elsewhere\n",
		      compat ? "compat" : "default", found, held,
		      found ? 1000 * cop_err / found : -1.0, 1000 * worst,
		      latency, elsewhere);
	assert_int_equal(found, held);
	assert_true(1000 * worst < 10);	/* within a taxel spacing or so */
	assert_true(latency <= 3);
	assert_int_equal(elsewhere, 0);
	assert_int_equal(total_contacts(&s), 0);	/* released */
	scene_close(&s);
}

static void single_touch_default(void **state)
{
	(void)state;
	single_touch(false);
}

static void single_touch_compat(void **state)
{
	(void)state;
	single_touch(true);
}

/* Noise and drift only, 10 simulated minutes: new contact ids per hour. */
static void false_contacts(void **state)
{
	static const char text[] = "seed 5\nnoise 0.8\nspread 2\ndrift 1.5 120s\n";
	struct scene s;
	uint64_t periods = 0, ids = 0, last_seen = 0;
	unsigned int i;

	(void)state;
	scene_open(&s, text, false);
	calibrate(&s);
	for (periods = 0; periods < 12000; periods++) {
		scene_step(&s);
		for (i = 0; i < s.m->n_parts; i++) {
			const struct skin_contact *c;
			unsigned int n = skin_proc_contacts(s.p, i, &c), j;

			for (j = 0; j < n; j++)
				if (c[j].r.id > last_seen) {
					ids++;
					last_seen = c[j].r.id;
				}
		}
	}
	print_message("# noise only: %llu false contacts in %.0f s of the whole upper body: %.1f per hour\n",
		      (unsigned long long)ids, periods * 0.05,
		      ids * 3600.0 / (periods * 0.05));
	assert_int_equal(ids, 0);
	assert_int_equal(skin_proc_fault_list(s.p, -1, NULL, 0), 0);
	scene_close(&s);
}

/*
 * A press held for 10 simulated minutes under a strong drift: reported
 * throughout by default (the hold), compensated away by skinManager's
 * algorithm (compat; icub-main #55).
 */
static void persistent(bool compat)
{
	static const char text[] =
		"seed 4\ndrift 4 60s\n"
		"at 6s press left_forearm taxel 37 radius 15mm force 60 name held ramp 300ms\n";
	struct scene s;
	unsigned int fa, missing = 0;
	uint64_t t, first_gone = 0;

	scene_open(&s, text, compat);
	fa = part_index(&s, "left_forearm");
	calibrate(&s);
	do {
		const struct skin_contact *c;

		t = scene_step(&s);
		if (t < 7000 * MS)
			continue;
		if (skin_proc_contacts(s.p, fa, &c) != 1) {
			if (!first_gone)
				first_gone = t;
			missing++;
		}
	} while (t < 6000 * MS + 600000 * MS);
	print_message("# persistent contact (%s), 10 min: missing in %u of %llu periods",
		      compat ? "compat" : "default", missing,
		      (unsigned long long)((t - 7000 * MS) / PERIOD_NS));
	if (first_gone)
		print_message(", first lost %.0f s after the press",
			      (first_gone - 6000 * MS) / 1e9);
	print_message("\n");
	if (compat) {
		const struct skin_contact *c;

		assert_int_equal(skin_proc_contacts(s.p, fa, &c), 0);
	} else {
		assert_int_equal(missing, 0);
	}
	scene_close(&s);
}

static void persistent_default(void **state)
{
	(void)state;
	persistent(false);
}

static void persistent_compat(void **state)
{
	(void)state;
	persistent(true);
}

/*
 * skinsim's noisy fault (its default amplitude, 40 counts) on one
 * forearm taxel for 20 s, beside a press elsewhere on the forearm:
 * flagged with the default parameters (noisy_s 10 s) within noisy_s,
 * cleared within noisy_s of the fault's end, and no other taxel of the
 * body is ever faulty.
 */
static void noisy_taxel(void **state)
{
	static const char text[] =
		"at 6s fault noisy left_forearm 40 for 20s\n"
		"at 10s press left_forearm taxel 100 radius 12mm force 60 name p\n"
		"at 13s release p\n";
	struct skin_taxel_fault f[4];
	uint64_t t, raised = 0, cleared = 0;
	unsigned int fa;
	struct scene s;
	int n;

	(void)state;
	scene_open(&s, text, false);
	fa = part_index(&s, "left_forearm");
	calibrate(&s);
	do {
		t = scene_step(&s);
		n = skin_proc_fault_list(s.p, -1, f, 4);
		if (n > 1 || (n == 1 && (f[0].part != fa || f[0].taxel != 40 ||
					 f[0].flags != SKIN_FAULT_NOISY)))
			fail_msg("at %.2f s: %d faulty taxels, the first %u of part %u (%#x)",
				 t / 1e9, n, f[0].taxel, f[0].part, f[0].flags);
		if (n && !raised)
			raised = t;
		if (!n && raised && !cleared)
			cleared = t;
	} while (t < 40000 * MS);
	print_message("# noisy taxel (amplitude 40, noisy_s 10 s): flagged %.2f s after the fault began, cleared %.2f s after it ended\n",
		      (raised - 6000 * MS) / 1e9, (cleared - 26000 * MS) / 1e9);
	assert_true(raised >= 11000 * MS && raised <= 16500 * MS);
	assert_true(cleared > 26000 * MS && cleared <= 36500 * MS);
	scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_touch_default),
		cmocka_unit_test(single_touch_compat),
		cmocka_unit_test(false_contacts),
		cmocka_unit_test(persistent_default),
		cmocka_unit_test(persistent_compat),
		cmocka_unit_test(noisy_taxel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
