// SPDX-License-Identifier: GPL-2.0
/*
 * test_sim.c - libskinsim: the board's answer to the driver's own start-up
 * commands, the signal model (determinism, noise and drift statistics,
 * blob shape, clamping, absent channels, faults), the encoder through the
 * driver's decoder and assembler, and ring files read back with lib/ring
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/can/error.h>

#include <skin/ring.h>
#include <skin/sim.h>

#include "skin_core.h"

/* The left forearm (two boards, real geometry) and the left hand. */
static const char test_conf[] =
	"[board]\n"
	"period_ms = 20\n"
	"[bus vcan0]\n"
	"[bus vcan1]\n"
	"[part left_forearm]\n"
	"layout = forearm_v2\n"
	"geometry = icub/positions/left_forearm_V2.txt\n"
	"patches = vcan0:13 vcan0:12\n"
	"[part left_hand]\n"
	"layout = hand_v2_1\n"
	"geometry = icub/positions/left_hand_V2_1.txt\n"
	"patches = vcan1:14\n";

static struct skin_config *load_conf(void)
{
	static char name[1024];
	struct skin_error err;
	struct skin_config *c;

	snprintf(name, sizeof(name), "%s/etc/sim-test.conf", SKIN_SOURCE_ROOT);
	c = skin_config_load_buffer(test_conf, sizeof(test_conf) - 1, name, &err);
	if (!c)
		fail_msg("config: %s", err.text);
	return c;
}

static struct skin_sim *make_sim(const char *scenario)
{
	struct skin_sim_scenario *sc = NULL;
	struct skin_config *c = load_conf();
	struct skin_error err;
	struct skin_sim *s;

	if (scenario) {
		sc = skin_sim_scenario_load_buffer(scenario, strlen(scenario),
						   "t.scn", &err);
		if (!sc)
			fail_msg("scenario: %s", err.text);
	}
	s = skin_sim_new(c, sc, &err);
	if (!s)
		fail_msg("sim: %s", err.text);
	skin_sim_scenario_free(sc);
	skin_config_free(c);
	return s;
}

static void board_on(struct skin_sim_board *b, unsigned int address,
		     uint16_t enabled)
{
	skin_sim_board_init(b, address);
	b->enabled = enabled;
	b->period_ms = 20;
	b->streaming = true;
}

/* ---- the board ------------------------------------------------------ */

static void apply_driver_commands(struct skin_sim_board *b,
				  const struct skin_patch_config *cfg, bool start)
{
	struct can_frame cmds[SKIN_CMD_MAX];
	unsigned int n = skin_board_commands(cfg, start, cmds), i;

	for (i = 0; i < n; i++)
		assert_int_not_equal(skin_sim_board_command(b, &cmds[i]),
				     SKIN_SIM_CMD_BAD);
}

static void test_board_follows_driver(void **state)
{
	static const u16 masks[] = { 0xffff, 0x0001, 0x8000, 0x0fff, 0xa5a5, 0x7ffe };
	struct skin_patch_config cfg;
	struct skin_sim_board b;
	unsigned int i, t;

	(void)state;
	for (i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		skin_patch_config_default(&cfg);
		strcpy(cfg.ifname, "vcan0");
		cfg.address = 13;
		cfg.triangles = masks[i];
		cfg.period_ms = (u16)(10 + i);
		cfg.no_load = (u8)(200 + i);
		cfg.shift = (u8)(i % 4);
		cfg.cdc_offset = (u16)(0x2200 + i);
		cfg.skin_type = 8;
		skin_sim_board_init(&b, 13);
		b.enabled = (uint16_t)~masks[i];	/* whatever it was */
		assert_false(b.streaming);
		apply_driver_commands(&b, &cfg, true);
		assert_true(b.streaming);
		assert_int_equal(b.enabled, masks[i]);
		assert_int_equal(b.period_ms, 10 + i);
		assert_int_equal(b.no_load, 200 + i);
		assert_int_equal(b.skin_type, 8);
		for (t = 0; t < 16; t++) {
			assert_int_equal(b.shift[t], i % 4);
			assert_int_equal(b.cdc_offset[t], 0x2200 + i);
		}
		assert_int_equal(b.rejected, 0);
		apply_driver_commands(&b, &cfg, false);
		assert_false(b.streaming);
	}
}

static void test_board_rejects(void **state)
{
	struct skin_sim_board b;
	struct can_frame cf = { .can_id = 0x20d, .len = 2, .data = { 0x07, 0x00 } };

	(void)state;
	skin_sim_board_init(&b, 13);
	cf.can_id = 0x20c;			/* another board */
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_OTHER);
	cf.can_id = 0x20d | CAN_EFF_FLAG;
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_OTHER);
	cf.can_id = 0x20d;
	cf.len = 3;				/* SET_TXMODE of 3 bytes */
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_BAD);
	cf.len = 2;
	cf.data[1] = 2;				/* neither on nor off */
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_BAD);
	cf.len = 7;				/* triangles 5..3 */
	memcpy(cf.data, (uint8_t[]){ 0x50, 5, 3, 2, 1, 0, 0x22 }, 7);
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_BAD);
	cf.data[1] = 3;
	cf.data[2] = 16;			/* triangle 16 */
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_BAD);
	cf.len = 1;
	cf.data[0] = 0x99;			/* unknown opcode */
	assert_int_equal(skin_sim_board_command(&b, &cf), SKIN_SIM_CMD_BAD);
	assert_int_equal(b.rejected, 5);
	assert_int_equal(b.commands, 0);
	assert_false(b.streaming);
	assert_int_equal(b.enabled, 0xffff);
}

/* ---- the signal model ----------------------------------------------- */

static void test_patches_and_presence(void **state)
{
	struct skin_sim *s = make_sim(NULL);
	const struct skin_sim_patch_info *p;

	(void)state;
	assert_int_equal(skin_sim_patches(s), 3);
	p = skin_sim_patch(s, 0);
	assert_string_equal(p->name, "left_forearm.0");
	assert_string_equal(p->bus, "vcan0");
	assert_int_equal(p->address, 13);
	assert_int_equal(p->present, 0xffff);
	p = skin_sim_patch(s, 1);
	assert_string_equal(p->name, "left_forearm.1");
	assert_int_equal(p->address, 12);
	/* forearm V2 top patch: 193-216, 229-240, 265-276, 289-312, 337-360
	 * are mounted (docs/MODEL.md, "Built-in layouts"): triangles 0 1 3 6 8 9 12 13 */
	assert_int_equal(p->present, 0x334b);
	p = skin_sim_patch(s, 2);
	assert_string_equal(p->name, "left_hand");
	/* hand: fingertips 0-4, palm 8-11 */
	assert_int_equal(p->present, 0x0f1f);
	assert_int_equal(skin_sim_find(s, "vcan0", 12), 1);
	assert_int_equal(skin_sim_find(s, "vcan1", 12), -1);
	skin_sim_free(s);
}

static void test_determinism(void **state)
{
	struct skin_sim *a = make_sim("seed 7\n");
	struct skin_sim *b = make_sim("seed 7\n");
	struct skin_sim *c = make_sim("seed 8\n");
	struct skin_sim_sample sa, sb, sc;
	struct skin_sim_board bd;
	unsigned int k, differ = 0;

	(void)state;
	board_on(&bd, 13, 0xffff);
	for (k = 1; k < 50; k++) {
		skin_sim_sample(a, 0, &bd, k, k * 20000000ULL, &sa);
		skin_sim_sample(b, 0, &bd, k, k * 20000000ULL, &sb);
		skin_sim_sample(c, 0, &bd, k, k * 20000000ULL, &sc);
		assert_memory_equal(sa.values, sb.values, sizeof(sa.values));
		differ += memcmp(sa.values, sc.values, sizeof(sa.values)) != 0;
	}
	/* the same call twice, out of order: the same sample */
	skin_sim_sample(a, 0, &bd, 3, 60000000ULL, &sb);
	skin_sim_sample(a, 0, &bd, 3, 60000000ULL, &sc);
	assert_memory_equal(sb.values, sc.values, sizeof(sb.values));
	assert_int_equal(differ, 49);
	skin_sim_free(a);
	skin_sim_free(b);
	skin_sim_free(c);
}

/* Noise alone: mean at noLoad, standard deviation as configured. */
static void test_noise_statistics(void **state)
{
	struct skin_sim *s = make_sim("noise 2\nspread 0\ndrift 0 100s\n");
	struct skin_sim_sample smp;
	struct skin_sim_board b;
	double sum = 0, sum2 = 0;
	unsigned int k, c, n = 0;

	(void)state;
	board_on(&b, 13, 0xffff);
	for (k = 1; k <= 400; k++) {
		skin_sim_sample(s, 0, &b, k, k * 20000000ULL, &smp);
		for (c = 0; c < 192; c++) {
			double v;

			if (c % 12 == 6 || c % 12 == 10)
				continue;	/* thermal pads */
			v = smp.values[c];
			sum += v;
			sum2 += v * v;
			n++;
		}
	}
	sum /= n;
	sum2 = sqrt(sum2 / n - sum * sum);
	/* floor() of the firmware's shift, over quarter counts, adds 3/8 */
	assert_true(fabs(sum - (240 + 0.375)) < 0.1);
	/* quantisation adds 1/12 of a count's variance */
	assert_true(fabs(sum2 - sqrt(4 + 1.0 / 12)) < 0.05);
	skin_sim_free(s);
}

/* Per-taxel baselines near noLoad; drift slow and bounded; pads more. */
static void test_baseline_and_drift(void **state)
{
	struct skin_sim *s = make_sim("noise 0\nspread 2\ndrift 5 10s\nthermal 3\n");
	/* (a failed assertion leaks the sims: cmocka longjmps out) */
	struct skin_sim_sample smp;
	struct skin_sim_board b;
	uint8_t lo[192], hi[192];
	double spread = 0, mean = 0;
	unsigned int k, c, n = 0, step = 0;
	uint8_t prev[192];

	(void)state;
	board_on(&b, 13, 0xffff);
	{	/* the baselines alone */
		struct skin_sim *s0 = make_sim("noise 0\nspread 2\ndrift 0 10s\n");

		skin_sim_sample(s0, 0, &b, 1, 0, &smp);
		skin_sim_free(s0);
	}
	for (c = 0; c < 192; c++) {
		if (c % 12 == 6 || c % 12 == 10)
			continue;
		mean += smp.values[c];
		n++;
	}
	mean /= n;
	for (c = 0; c < 192; c++)
		if (c % 12 != 6 && c % 12 != 10)
			spread += (smp.values[c] - mean) * (smp.values[c] - mean);
	spread = sqrt(spread / n);
	assert_true(fabs(mean - 240) < 2);
	assert_true(spread > 1.2 && spread < 3.0);

	b.no_load = 200;	/* room for the pads' 30 counts above and below */
	skin_sim_sample(s, 0, &b, 1, 0, &smp);
	memset(lo, 255, sizeof(lo));
	memset(hi, 0, sizeof(hi));
	memcpy(prev, smp.values, sizeof(prev));
	for (k = 1; k <= 500; k++) {		/* 10 s: one drift period */
		skin_sim_sample(s, 0, &b, k, k * 20000000ULL, &smp);
		for (c = 0; c < 192; c++) {
			if (smp.values[c] < lo[c])
				lo[c] = smp.values[c];
			if (smp.values[c] > hi[c])
				hi[c] = smp.values[c];
			if (abs(smp.values[c] - prev[c]) > 1)
				step++;		/* drift is slow */
		}
		memcpy(prev, smp.values, sizeof(prev));
	}
	assert_int_equal(step, 0);
	for (c = 0; c < 192; c++) {
		unsigned int pp = hi[c] - lo[c];

		if (c % 12 == 6 || c % 12 == 10)	/* 2 x 5 x 3 */
			assert_true(pp >= 29 && pp <= 31);
		else					/* 2 x 5 x 0.8..1.2 */
			assert_true(pp >= 7 && pp <= 13);
	}
	skin_sim_free(s);
}

static void test_raw_clamp_and_shift(void **state)
{
	(void)state;
	assert_int_equal(skin_sim_raw(240, 2, 0), 240);
	assert_int_equal(skin_sim_raw(240, 2, 10), 230);
	assert_int_equal(skin_sim_raw(240, 3, 10), 235);
	assert_int_equal(skin_sim_raw(240, 0, 10), 200);
	assert_int_equal(skin_sim_raw(240, 2, 300), 0);
	assert_int_equal(skin_sim_raw(240, 2, 1e12), 0);
	assert_int_equal(skin_sim_raw(240, 2, -100), 255);
	assert_int_equal(skin_sim_raw(240, 2, -1e12), 255);
	assert_int_equal(skin_sim_raw(240, 2, -0.25), 241);	/* floor */
	assert_int_equal(skin_sim_raw(240, 2, 0.25), 240);
	assert_int_equal(skin_sim_raw(0, 2, -3), 3);
}

static double dist(const double *a, const double *b)
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
		    (a[2] - b[2]) * (a[2] - b[2]));
}

/* A blob at taxel 37 of the forearm: the centre reads noLoad - force, the
 * pressure falls with distance as the raised cosine, nothing beyond. */
static void test_blob_shape(void **state)
{
	struct skin_sim *s = make_sim(
		"noise 0\nspread 0\ndrift 0 10s\n"
		"at 1s press left_forearm taxel 37 radius 15mm force 100 ramp 0s\n");
	const struct skin_model *m;
	const struct skin_part *part;
	const double *centre;
	struct skin_sim_sample smp;
	struct skin_sim_board b;
	unsigned int c, pressed = 0;

	(void)state;
	m = skin_sim_model(s);
	part = &m->parts[0];
	centre = m->taxels[part->first_taxel + 37].pos;
	board_on(&b, 13, 0xffff);
	skin_sim_sample(s, 0, &b, 1, 999000000ULL, &smp);	/* before */
	for (c = 0; c < 192; c++)
		assert_true(smp.pressure[c] == 0);
	skin_sim_sample(s, 0, &b, 2, 1000000000ULL, &smp);
	assert_int_equal(smp.values[37], 140);
	for (c = 0; c < 192; c++) {
		const struct skin_taxel *tx = &m->taxels[part->first_taxel + c];
		double d, want;

		if (tx->kind != SKIN_TAXEL_TACTILE)
			continue;
		d = dist(tx->pos, centre);
		want = d < 0.015 ? 100 * 0.5 * (1 + cos(M_PI * d / 0.015)) : 0;
		assert_true(fabs(smp.pressure[c] - want) < 1e-3);
		if (want > 0) {
			pressed++;
			assert_int_equal(smp.values[c], skin_sim_raw(240, 2, want));
		} else {
			assert_int_equal(smp.values[c], 240);
		}
	}
	assert_true(pressed >= 5 && pressed < 60);
	/* the other board of the part, far away, feels nothing here */
	skin_sim_sample(s, 1, &b, 2, 1000000000ULL, &smp);
	for (c = 0; c < 192; c++)
		assert_true(smp.pressure[c] == 0);
	skin_sim_free(s);
}

/* Ramps, moves, release; the contacts the scenario has at each time. */
static void test_contact_timeline(void **state)
{
	struct skin_sim *s = make_sim(
		"at 1s press left_forearm 0 0 0 radius 1cm force 80 name a ramp 100ms\n"
		"at 2s move a to 10mm 20mm -4mm over 1s\n"
		"at 4s release a ramp 200ms\n"
		"at 4s press left_forearm taxel 5 radius 1cm force 50 ramp 0s\n");
	struct skin_sim_contact_state cs[4];

	(void)state;
	assert_int_equal(skin_sim_contacts(s, 999999999ULL, cs, 4), 0);
	assert_int_equal(skin_sim_contacts(s, 1000000000ULL, cs, 4), 0); /* force 0 */
	assert_int_equal(skin_sim_contacts(s, 1050000000ULL, cs, 4), 1);
	assert_string_equal(cs[0].name, "a");
	assert_true(fabs(cs[0].force - 40) < 1e-9);
	assert_int_equal(skin_sim_contacts(s, 2500000000ULL, cs, 4), 1);
	assert_true(fabs(cs[0].force - 80) < 1e-9);
	assert_true(fabs(cs[0].centre[0] - 0.005) < 1e-12);
	assert_true(fabs(cs[0].centre[1] - 0.010) < 1e-12);
	assert_true(fabs(cs[0].centre[2] + 0.002) < 1e-12);
	assert_int_equal(skin_sim_contacts(s, 4100000000ULL, cs, 4), 2);
	assert_string_equal(cs[0].name, "a");
	assert_true(fabs(cs[0].force - 40) < 1e-9);
	assert_true(fabs(cs[0].centre[1] - 0.020) < 1e-12);
	assert_string_equal(cs[1].name, "c2");
	assert_true(fabs(cs[1].force - 50) < 1e-9);
	assert_int_equal(skin_sim_contacts(s, 4200000000ULL, cs, 4), 1);
	assert_string_equal(cs[0].name, "c2");
	skin_sim_free(s);
}

static void test_absent_and_unmounted(void **state)
{
	struct skin_sim *s = make_sim("noise 3\n");
	const struct skin_sim_patch_info *p = skin_sim_patch(s, 1);
	struct skin_sim_sample smp;
	struct skin_sim_board b;
	unsigned int c, t;

	(void)state;
	board_on(&b, 12, 0xffff);
	b.no_load = 230;
	skin_sim_sample(s, 1, &b, 5, 100000000ULL, &smp);
	for (t = 0; t < 16; t++) {
		if (p->present & (1U << t)) {
			assert_int_equal(smp.diag[t], 0);
			continue;
		}
		/* enabled but not mounted: noLoad, "not connected" */
		assert_int_equal(smp.diag[t], 0x0002);
		for (c = 0; c < 12; c++)
			assert_int_equal(smp.values[12 * t + c], 230);
	}
	/* disabled: nothing sent, noLoad */
	b.enabled = 0x0003;
	skin_sim_sample(s, 1, &b, 5, 100000000ULL, &smp);
	assert_int_equal(smp.send_head, 0x0003);
	assert_int_equal(smp.send_tail, 0x0003);
	for (c = 24; c < 192; c++)
		assert_int_equal(smp.values[c], 230);
	skin_sim_free(s);
}

static void test_faults(void **state)
{
	struct skin_sim *s = make_sim(
		"noise 0\nspread 0\ndrift 0 10s\n"
		"at 1s fault dead vcan0:13 triangle 3 for 1s\n"
		"at 1s fault stuck left_forearm 40 value 17\n"
		"at 1s fault saturate left_forearm 41 for 1s\n"
		"at 3s fault drop 0.3 board vcan0:13 for 1s\n"
		"at 5s fault drop 1\n"
		"at 1s fault garbage vcan0:12 5 for 1s\n"
		"at 1.01s fault errors vcan0 4\n");
	struct skin_sim_sample smp;
	struct skin_sim_board b;
	unsigned int k, dropped = 0, total = 0, i;

	(void)state;
	board_on(&b, 13, 0xffff);
	skin_sim_sample(s, 0, &b, 1, 1000000000ULL, &smp);
	assert_int_equal(smp.send_head, 0xfff7);
	assert_int_equal(smp.send_tail, 0xfff7);
	assert_int_equal(smp.values[40], 17);
	assert_int_equal(smp.values[41], 0);
	assert_int_equal(smp.diag[3], 1U << (4 + 5));
	assert_int_equal(smp.n_extra, 0);
	/* the error burst: once, in the period that holds it, first board */
	skin_sim_sample(s, 0, &b, 2, 1020000000ULL, &smp);
	assert_int_equal(smp.n_extra, 4);
	for (i = 0; i < 4; i++) {
		assert_true(smp.extra[i].can_id & CAN_ERR_FLAG);
		assert_int_equal(smp.extra[i].len, 8);
	}
	skin_sim_sample(s, 0, &b, 3, 1040000000ULL, &smp);
	assert_int_equal(smp.n_extra, 0);
	b.address = 12;
	skin_sim_sample(s, 1, &b, 2, 1020000000ULL, &smp);
	assert_int_equal(smp.n_extra, 5);
	for (i = 0; i < 5; i++) {
		struct skin_half h;

		assert_true(skin_decode(&smp.extra[i], false, &h) > SKIN_RX_ERR_FRAME);
	}
	b.address = 13;
	skin_sim_sample(s, 0, &b, 100, 2000000000ULL, &smp);	/* over */
	assert_int_equal(smp.send_head, 0xffff);
	assert_int_equal(smp.values[40], 17);			/* for ever */
	assert_int_equal(smp.values[41], 240);
	assert_int_equal(smp.diag[3], 0);
	for (k = 150; k < 200; k++) {
		skin_sim_sample(s, 0, &b, k, 3000000000ULL + (k - 150) * 20000000ULL, &smp);
		dropped += 32 - __builtin_popcount(smp.send_head) -
			   __builtin_popcount(smp.send_tail);
		total += 32;
	}
	assert_true(fabs((double)dropped / total - 0.3) < 0.05);
	skin_sim_sample(s, 1, &b, 300, 5000000000ULL, &smp);
	assert_int_equal(smp.send_head | smp.send_tail, 0);
	skin_sim_free(s);

	/* more fault frames than a sample holds: counted, not sent */
	s = make_sim("at 0s fault garbage vcan0:13 16\n"
		     "at 0s fault garbage vcan0:13 16\n"
		     "at 0s fault errors vcan0 64\n");
	skin_sim_sample(s, 0, &b, 1, 0, &smp);
	assert_int_equal(smp.n_extra, SKIN_SIM_EXTRA_MAX);
	assert_int_equal(smp.extra_lost, 32);
	skin_sim_free(s);
}

/*
 * noisy: the taxel's reading jumps by up to the amplitude either way, a
 * new draw every sample (the same for the same sample: counter-based),
 * clamped; its neighbours and the time outside the fault read as before.
 */
static void test_noisy_fault(void **state)
{
	struct skin_sim *s = make_sim(
		"noise 0\nspread 0\ndrift 0 10s\n"
		"at 1s fault noisy left_forearm 42 amplitude 30 for 4s\n"
		"at 1s fault noisy left_forearm 44\n");
	struct skin_sim_sample smp, again;
	struct skin_sim_board b;
	unsigned int k, moved = 0, below = 0, above = 0, wide = 0, clamped = 0;
	int v, prev = -1;

	(void)state;
	board_on(&b, 13, 0xffff);
	skin_sim_sample(s, 0, &b, 1, 900000000ULL, &smp);	/* before */
	assert_int_equal(smp.values[42], 240);
	assert_int_equal(smp.values[44], 240);
	for (k = 0; k < 200; k++) {
		const uint64_t t = 1000000000ULL + k * 20000000ULL;

		skin_sim_sample(s, 0, &b, 50 + k, t, &smp);
		v = smp.values[42];
		assert_true(v >= 210 && v <= 255);
		moved += prev >= 0 && abs(v - prev) > 10;
		below += v < 240;
		above += v > 240;
		prev = v;
		assert_int_equal(smp.values[41], 240);
		assert_int_equal(smp.values[43], 240);
		assert_int_equal(smp.diag[3], 0);
		/* the default amplitude, 40, clamped at 255 */
		v = smp.values[44];
		assert_true(v >= 200 && v <= 255);
		wide += v < 210;
		clamped += v == 255;
		skin_sim_sample(s, 0, &b, 50 + k, t, &again);
		assert_memory_equal(smp.values, again.values, sizeof(smp.values));
	}
	/* uniform in 210..270, clamped: about 62% of consecutive pairs
	 * more than 10 apart, half below 240, a quarter clamped */
	assert_true(moved > 100 && below > 70 && above > 40);
	assert_true(wide > 10 && clamped > 20);
	skin_sim_sample(s, 0, &b, 300, 5000000000ULL, &smp);	/* over */
	assert_int_equal(smp.values[42], 240);
	skin_sim_free(s);
}

/* ---- frames --------------------------------------------------------- */

/* Encoded frames decode and assemble, in the driver's own core, to the
 * sample they came from. */
static void test_encode_through_driver(void **state)
{
	static const u16 masks[] = { 0xffff, 0x0001, 0x374b, 0x8000 };
	uint8_t values[192];
	uint16_t diag[16];
	unsigned int i, m, n, c;

	(void)state;
	for (m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		struct can_frame frames[SKIN_SIM_FRAMES_MAX];
		/* a ring of two frames: control page, then the frames */
		static __u64 mem[(4096 + 2 * sizeof(struct skin_frame)) / 8];
		struct skin_patch_config cfg;
		const struct skin_frame *f;
		struct skin_ring ring;
		struct skin_asm a;

		for (c = 0; c < 192; c++)
			values[c] = (uint8_t)(c * 37 + m);
		for (c = 0; c < 16; c++)
			diag[c] = c == 5 ? 0x0102 : 0;
		n = skin_sim_encode(4, 14, masks[m], values, diag, frames);
		assert_int_equal(n, 2 * __builtin_popcount(masks[m]));
		skin_patch_config_default(&cfg);
		strcpy(cfg.ifname, "vcan0");
		cfg.address = 14;
		cfg.triangles = masks[m];
		skin_asm_init(&a, &cfg);
		memset(mem, 0, sizeof(mem));
		skin_ring_init(&ring, mem, 4096, 1);
		for (i = 0; i < n; i++) {
			unsigned int todo;

			assert_int_equal(frames[i].can_id >> 4, 0x4e);
			todo = skin_asm_rx(&a, &ring, &frames[i], false, i);
			/* the first half arms the timer, the last publishes */
			assert_int_equal(todo, (i == 0 ? SKIN_ASM_ARM : 0) |
					 (i == n - 1 ? SKIN_ASM_WAKE : 0));
		}
		/* head, tail, head, tail ...: all accepted, none repeated */
		assert_int_equal(ring.ctrl->stats[SKIN_RX_HEAD], n / 2);
		assert_int_equal(ring.ctrl->stats[SKIN_RX_TAIL], n / 2);
		assert_int_equal(ring.ctrl->stats[SKIN_STAT_REPEATS], 0);
		assert_int_equal(ring.ctrl->stats[SKIN_STAT_DIAG],
				 masks[m] & (1U << 5) ? 1 : 0);
		assert_int_equal(ring.head, 1);
		f = &ring.slots[1 & ring.mask];
		assert_int_equal(f->flags & ~SKIN_FRAME_DIAG, 0);
		assert_int_equal(f->refreshed, masks[m]);
		assert_int_equal(f->diag_valid, masks[m]);
		for (c = 0; c < 16; c++)
			assert_int_equal(f->diag[c], masks[m] & (1U << c) ? diag[c] : 0);
		for (c = 0; c < 192; c++)
			assert_int_equal(f->values[c], masks[m] & (1U << (c / 12)) ?
					 values[c] : 0xf0);
	}
}

/* ---- ring files ----------------------------------------------------- */

static void test_ring_file(void **state)
{
	struct skin_sim *s = make_sim("seed 3\nat 0.1s press left_forearm taxel 37 radius 1cm force 60\n");
	char dir[] = "/tmp/test_sim_XXXXXX", path[256];
	const struct skin_sim_patch_info *info = skin_sim_patch(s, 0);
	struct skin_sim_sample smp[20];
	struct skin_sim_ring *r;
	struct skin_ring_map map;
	struct skin_sim_board b;
	struct skin_frame f;
	struct skin_error err;
	unsigned int k, i, t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, info->name);
	board_on(&b, 13, 0x0fff);
	r = skin_sim_ring_create(path, info, &b, 4, 4, &err);
	if (!r)
		fail_msg("%s", err.text);
	assert_int_equal(skin_ring_map_open(&map, path), 0);
	assert_string_equal(map.ctrl->name, "left_forearm.0");
	assert_string_equal(map.ctrl->ifname, "vcan0");
	assert_int_equal(map.ctrl->address, 13);
	assert_int_equal(map.ctrl->triangles, 0x0fff);
	assert_int_equal(map.ctrl->period_ms, 20);
	assert_int_equal(map.ctrl->frame_count, 16);
	/* nothing wakes the readers of a file: no moderation to set */
	assert_int_equal(skin_ring_map_set_wakeup(&map, 4, 1000), -ENOTTY);
	map.next = 1;
	for (k = 1; k <= 20; k++) {
		uint64_t t_ns = (k - 1) * 20000000ULL;
		struct can_frame cf;

		skin_sim_sample(s, 0, &b, k, t_ns, &smp[k - 1]);
		for (t = 0; t < 16; t++) {
			if (!(b.enabled & (1U << t)))
				continue;
			/* period 10: triangle 2's tail lost */
			skin_sim_encode_half(4, 13, t, false, smp[k - 1].values,
					     smp[k - 1].diag[t], &cf);
			skin_sim_ring_rx(r, &cf, t_ns + t);
			if (k == 10 && t == 2)
				continue;
			skin_sim_encode_half(4, 13, t, true, smp[k - 1].values,
					     smp[k - 1].diag[t], &cf);
			skin_sim_ring_rx(r, &cf, t_ns + t);
		}
		/* read as we go, as a reader on a timer would */
		while (skin_ring_map_next(&map, &f) > 0) {
			i = (unsigned int)f.seq - 1;
			assert_int_equal(f.flags, i == 9 ? SKIN_FRAME_PARTIAL | SKIN_FRAME_REPEAT : 0);
			assert_int_equal(f.refreshed, i == 9 ? 0x0ffb : 0x0fff);
			for (t = 0; t < 192; t++) {
				uint8_t want = smp[i].values[t];

				if (t >= 144)
					want = 0xf0;
				else if (i == 9 && t >= 31 && t <= 35)
					want = smp[8].values[t];	/* lost tail */
				assert_int_equal(f.values[t], want);
			}
		}
	}
	/* the partial sample 10 was published when sample 11's first half
	 * repeated: 20 samples, all read, none lost */
	assert_int_equal(skin_sim_ring_head(r), 20);
	assert_int_equal(map.next, 21);
	assert_int_equal(map.lost, 0);
	assert_int_equal(skin_sim_ring_stat(r, SKIN_RX_HEAD), 240);
	assert_int_equal(skin_sim_ring_stat(r, SKIN_RX_TAIL), 239);
	assert_int_equal(skin_sim_ring_stat(r, SKIN_STAT_PARTIAL), 1);
	assert_int_equal(skin_sim_ring_stat(r, SKIN_STAT_REPEATS), 1);
	assert_int_equal(map.ctrl->stats[SKIN_STAT_FRAMES], 20);
	/* the pressed taxel reads lower than noLoad in the ring */
	assert_true(smp[19].values[37] < 200);

	/* a board that stops half-way: the timer publishes it */
	{
		struct can_frame cf;

		skin_sim_encode_half(4, 13, 0, false, smp[0].values, 0, &cf);
		skin_sim_ring_rx(r, &cf, 500000000ULL);
		skin_sim_ring_tick(r, 500000000ULL + 29000000ULL);
		assert_int_equal(skin_sim_ring_head(r), 20);
		skin_sim_ring_tick(r, 500000000ULL + 30000000ULL);
		assert_int_equal(skin_sim_ring_head(r), 21);
		assert_int_equal(skin_sim_ring_stat(r, SKIN_STAT_TIMEOUTS), 1);
		assert_int_equal(skin_ring_map_next(&map, &f), 1);
		assert_int_equal(f.flags, SKIN_FRAME_PARTIAL | SKIN_FRAME_TIMEOUT);
		assert_int_equal(f.refreshed, 0);
		/* frames of another board and error frames */
		cf.can_id = 0x4c0;
		skin_sim_ring_rx(r, &cf, 600000000ULL);
		assert_int_equal(skin_sim_ring_stat(r, SKIN_RX_BAD_BOARD), 0);
		cf.can_id = CAN_ERR_FLAG | CAN_ERR_BUSOFF;
		skin_sim_ring_rx(r, &cf, 600000000ULL);
		assert_int_equal(skin_sim_ring_stat(r, SKIN_RX_ERR_FRAME), 1);
		assert_int_equal(skin_sim_ring_stat(r, SKIN_STAT_BUS_OFF), 1);
	}
	skin_ring_map_close(&map);
	skin_sim_ring_close(r);
	/* not a ring where the ring cannot be: an error, not a crash */
	snprintf(path, sizeof(path), "%s/no/such/dir", dir);
	assert_null(skin_sim_ring_create(path, info, &b, 4, 4, &err));
	assert_non_null(strstr(err.text, "cannot create"));
	snprintf(path, sizeof(path), "%s/%s", dir, info->name);
	unlink(path);
	rmdir(dir);
	skin_sim_free(s);
}

static void test_truth(void **state)
{
	struct skin_sim *s = make_sim("seed 5\nat 0s press left_forearm taxel 37 radius 1cm force 60 ramp 0s name p\n");
	struct skin_sim_sample smp;
	struct skin_sim_board b;
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int frames = 0, taxels = 0, contacts = 0, patches = 0;

	(void)state;
	board_on(&b, 13, 0xffff);
	assert_int_equal(skin_sim_truth_header(f, s), 0);
	skin_sim_sample(s, 0, &b, 1, 0, &smp);
	assert_int_equal(skin_sim_truth_sample(f, s, &b, &smp), 0);
	assert_int_equal(skin_sim_truth_contacts(f, s, 0), 0);
	fclose(f);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "patch ", 6))
			patches++;
		if (!strncmp(line, "frame left_forearm.0 1 0 ffff ffff ffff - ", 42)) {
			frames++;
			assert_int_equal(strlen(line), 42 + 384);
		}
		if (!strncmp(line, "taxel left_forearm.0 1 ", 23))
			taxels++;
		if (!strncmp(line, "contact 0 p left_forearm ", 25))
			contacts++;
	}
	assert_int_equal(patches, 3);
	assert_int_equal(frames, 1);
	assert_true(taxels >= 3);
	assert_int_equal(contacts, 1);
	free(buf);
	skin_sim_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_board_follows_driver),
		cmocka_unit_test(test_board_rejects),
		cmocka_unit_test(test_patches_and_presence),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_noise_statistics),
		cmocka_unit_test(test_baseline_and_drift),
		cmocka_unit_test(test_raw_clamp_and_shift),
		cmocka_unit_test(test_blob_shape),
		cmocka_unit_test(test_contact_timeline),
		cmocka_unit_test(test_absent_and_unmounted),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_noisy_fault),
		cmocka_unit_test(test_encode_through_driver),
		cmocka_unit_test(test_ring_file),
		cmocka_unit_test(test_truth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
