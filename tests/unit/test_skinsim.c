// SPDX-License-Identifier: GPL-2.0
/*
 * test_skinsim.c - the skinsim program without CAN (the VM case 95-sim
 * covers the CAN mode): its log, read back with lib/canlog, decoded and
 * assembled by the driver's core, is its ground truth; its ring files,
 * read with lib/ring, are the same truth; a log replayed into ring files
 * too; the same seed gives the same truth in every mode; bad input is an
 * error that names the file and line, with the documented exit status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_file.h"

#include <skin/canlog.h>
#include <skin/ring.h>

#include "skin_core.h"

static char dir[] = "/tmp/test_skinsim_XXXXXX";
static char conf[1024];

static const char *tmp(const char *name)
{
	static char buf[8][1200];
	static unsigned int k;
	char *b = buf[k++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* Run skinsim with args; its exit status, stderr in dir/err. */
static int skinsim(const char *fmt, ...)
{
	char args[4096], cmd[6000];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s 2>%s", SKINSIM_PATH, args, tmp("err"));
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The truth's frame lines of a patch: "ENABLED VALUES" each. */
static unsigned int truth_frames(const char *truth, const char *patch,
				 char (*out)[420], unsigned int max)
{
	FILE *f = fopen(truth, "r");
	char line[2048], p[64], en[8], vals[400];
	unsigned int n = 0;
	unsigned long long k;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "frame %63s %llu %*u %7s %*s %*s %*s %399s", p,
			   &k, en, vals) == 4 && !strcmp(p, patch) && n < max) {
			assert_int_equal(k, n + 1);
			snprintf(out[n++], 420, "%s %s", en, vals);
		}
	fclose(f);
	return n;
}

static void frame_line(const struct skin_frame *f, char *out)
{
	unsigned int i, n;

	n = (unsigned int)sprintf(out, "%04x ", f->refreshed);
	for (i = 0; i < SKIN_BOARD_VALUES; i++)
		n += (unsigned int)sprintf(out + n, "%02x", f->values[i]);
}

static const char *const patches[] = { "left_hand", "left_forearm.0", "left_forearm.1" };
static const unsigned int addresses[] = { 14, 13, 12 };
static const u16 present[] = { 0x0f1f, 0xffff, 0x334b };

static int setup(void **state)
{
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/etc/examples/sim-vcan.conf", SKIN_SOURCE_ROOT);
	f = fopen(tmp("touch.scn"), "w");
	fprintf(f, "config %s\nseed 11\nduration 2s\n"
		"at 0.3s press left_forearm taxel 300 radius 12mm force 90 name f\n"
		"at 0.8s move f to taxel 290 over 0.5s\n"
		"at 1.5s release f\n", conf);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	char cmd[1200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The log, through the driver's receive sequence, is the truth. */
static void test_log_is_truth(void **state)
{
	static char want[3][64][420];
	/* a ring of two frames per patch: control page, then the frames */
	static __u64 mem[3][(4096 + 2 * sizeof(struct skin_frame)) / 8];
	struct skin_ring ring[3];
	struct skin_asm a[3];
	struct skin_canlog *l;
	struct skin_canlog_record r;
	struct skin_error err;
	unsigned int n[3], got[3] = { 0 }, i;
	uint64_t prev = 0;
	int ret;

	(void)state;
	assert_int_equal(skinsim("--log %s --truth %s --fast --epoch 1000 %s",
				 tmp("touch.log"), tmp("touch.truth"),
				 tmp("touch.scn")), 0);
	for (i = 0; i < 3; i++) {
		struct skin_patch_config cfg;

		n[i] = truth_frames(tmp("touch.truth"), patches[i], want[i], 64);
		assert_int_equal(n[i], 40);		/* 2 s at 50 ms */
		skin_patch_config_default(&cfg);
		strcpy(cfg.ifname, "vcan0");
		cfg.address = (u8)addresses[i];
		cfg.triangles = present[i];
		skin_asm_init(&a[i], &cfg);
		skin_ring_init(&ring[i], mem[i], 4096, 1);
	}
	l = skin_canlog_open(tmp("touch.log"), &err);
	assert_non_null(l);
	while ((ret = skin_canlog_next(l, &r, &err)) != 0) {
		struct can_frame cf = { 0 };
		u64 accepted;

		if (ret < 0)
			fail_msg("%s", err.text);
		assert_true(r.ts_ns >= prev);		/* one bus: forwards */
		assert_true(r.ts_ns >= 1000000000000ULL);
		prev = r.ts_ns;
		assert_string_equal(r.ifname, "vcan0");
		cf.can_id = r.frame.can_id;
		cf.len = r.frame.len;
		memcpy(cf.data, r.frame.data, 8);
		for (i = 0; i < 3; i++)
			if (SKIN_ID_BOARD(cf.can_id) == addresses[i])
				break;
		assert_true(i < 3);
		accepted = ring[i].ctrl->stats[SKIN_RX_HEAD] +
			   ring[i].ctrl->stats[SKIN_RX_TAIL];
		if (skin_asm_rx(&a[i], &ring[i], &cf, false, r.ts_ns) &
		    SKIN_ASM_WAKE) {
			const struct skin_frame *f =
				&ring[i].slots[ring[i].head & ring[i].mask];
			char line[400];

			assert_int_equal(f->flags, 0);
			frame_line(f, line);
			assert_string_equal(line, want[i][got[i]]);
			got[i]++;
		}
		assert_int_equal(ring[i].ctrl->stats[SKIN_RX_HEAD] +
				 ring[i].ctrl->stats[SKIN_RX_TAIL], accepted + 1);
	}
	skin_canlog_close(l);
	for (i = 0; i < 3; i++) {
		assert_int_equal(got[i], n[i]);
		assert_int_equal(ring[i].head, n[i]);
		assert_int_equal(ring[i].ctrl->stats[SKIN_STAT_REPEATS], 0);
	}
}

static void check_rings(const char *ringdir, const char *truth)
{
	static char want[64][420];
	unsigned int i, k, n;

	for (i = 0; i < 3; i++) {
		struct skin_ring_map m;
		struct skin_frame f;
		char path[1300], line[400];

		n = truth_frames(truth, patches[i], want, 64);
		assert_int_equal(n, 40);
		snprintf(path, sizeof(path), "%s/%s", ringdir, patches[i]);
		assert_int_equal(skin_ring_map_open(&m, path), 0);
		assert_string_equal(m.ctrl->name, patches[i]);
		assert_int_equal(m.ctrl->address, addresses[i]);
		assert_int_equal(m.ctrl->triangles, present[i]);
		assert_int_equal(m.ctrl->period_ms, 50);
		assert_int_equal(skin_ring_map_head(&m), n);
		m.next = 1;
		for (k = 0; k < n; k++) {
			assert_int_equal(skin_ring_map_next(&m, &f), 1);
			assert_int_equal(f.seq, k + 1);
			assert_int_equal(f.flags, 0);
			frame_line(&f, line);
			assert_string_equal(line, want[k]);
		}
		assert_int_equal(skin_ring_map_next(&m, &f), 0);
		assert_int_equal(m.ctrl->stats[SKIN_STAT_FRAMES], n);
		assert_int_equal(m.ctrl->stats[SKIN_RX_HEAD],
				 n * (unsigned int)__builtin_popcount(present[i]));
		skin_ring_map_close(&m);
	}
}

static void test_rings_are_truth(void **state)
{
	char *a, *b;

	(void)state;
	assert_int_equal(skinsim("--ring %s --truth %s --fast --ring-frames 64 %s",
				 tmp("rings"), tmp("ring.truth"),
				 tmp("touch.scn")), 0);
	check_rings(tmp("rings"), tmp("ring.truth"));
	/* the same seed: the same truth, whatever the mode */
	a = slurp(tmp("ring.truth"));
	b = slurp(tmp("touch.truth"));
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* another seed: another truth */
	assert_int_equal(skinsim("--ring %s --truth %s --fast --seed 12 %s",
				 tmp("rings2"), tmp("seed.truth"),
				 tmp("touch.scn")), 0);
	a = slurp(tmp("seed.truth"));
	b = slurp(tmp("touch.truth"));
	assert_string_not_equal(a, b);
	free(a);
	free(b);
}

static void test_replay_into_rings(void **state)
{
	(void)state;
	assert_int_equal(skinsim("--replay %s --ring %s --config %s --fast",
				 tmp("touch.log"), tmp("replayed"), conf), 0);
	check_rings(tmp("replayed"), tmp("touch.truth"));
}

/* Faults, through the driver's receive path into ring files: every
 * malformed frame rejected with its own counter, error frames counted on
 * every board of the bus, a dead triangle's samples published partial on
 * the next period's first half, a saturated taxel reported. */
static void test_faults_through_driver(void **state)
{
	struct skin_ring_map m[3];
	struct skin_frame f;
	unsigned int i, diag_frames = 0, partial = 0;
	FILE *sc;

	(void)state;
	sc = fopen(tmp("faults.scn"), "w");
	fprintf(sc, "config %s\nduration 3s\n"
		"at 1s fault garbage vcan0:13 5 for 1s\n"
		"at 0.5s fault errors vcan0 7\n"
		"at 2s fault dead vcan0:12 triangle 3 for 500ms\n"
		"at 1s fault saturate left_hand 100 for 1s\n", conf);
	fclose(sc);
	assert_int_equal(skinsim("--ring %s --fast %s", tmp("faults"),
				 tmp("faults.scn")), 0);
	for (i = 0; i < 3; i++) {
		char path[1300];
		const __u64 *st;

		snprintf(path, sizeof(path), "%s/%s", tmp("faults"), patches[i]);
		assert_int_equal(skin_ring_map_open(&m[i], path), 0);
		st = m[i].ctrl->stats;
		/* the burst reaches every patch of the bus */
		assert_int_equal(st[SKIN_RX_ERR_FRAME], 7);
		assert_int_equal(st[SKIN_STAT_BUS_ERROR], 7);
		assert_int_equal(st[SKIN_STAT_BUS_OFF], 0);
		/* 20 periods x 5 garbage frames, the kinds in turn */
		assert_int_equal(st[SKIN_RX_BAD_DLC], i == 1 ? 40 : 0);
		assert_int_equal(st[SKIN_RX_BAD_BYTE0], i == 1 ? 20 : 0);
		assert_int_equal(st[SKIN_RX_BAD_RTR], i == 1 ? 20 : 0);
		assert_int_equal(st[SKIN_RX_BAD_EFF], i == 1 ? 20 : 0);
		assert_int_equal(st[SKIN_STAT_FRAMES], 60);
		assert_int_equal(st[SKIN_STAT_PARTIAL], i == 2 ? 10 : 0);
		assert_int_equal(st[SKIN_STAT_REPEATS], i == 2 ? 10 : 0);
		assert_int_equal(st[SKIN_STAT_TIMEOUTS], 0);
		assert_int_equal(st[SKIN_RX_HEAD],
				 60 * __builtin_popcount(present[i]) - (i == 2 ? 10 : 0));
		assert_int_equal(st[SKIN_STAT_DIAG], i == 0 ? 20 : 0);
	}
	m[0].next = 1;
	while (skin_ring_map_next(&m[0], &f) > 0) {
		if (f.flags & SKIN_FRAME_DIAG) {
			assert_int_equal(f.diag[8], 1U << (4 + 4));
			assert_int_equal(f.values[100], 0);
			diag_frames++;
		}
	}
	assert_int_equal(diag_frames, 20);
	m[2].next = 1;
	while (skin_ring_map_next(&m[2], &f) > 0)
		if (f.flags & SKIN_FRAME_PARTIAL) {
			assert_int_equal(f.flags, SKIN_FRAME_PARTIAL | SKIN_FRAME_REPEAT);
			assert_int_equal(f.refreshed, 0x334b & ~0x0008);
			partial++;
		}
	assert_int_equal(partial, 10);
	for (i = 0; i < 3; i++)
		skin_ring_map_close(&m[i]);
}

static void expect_err(const char *text)
{
	char *e = slurp(tmp("err"));

	if (!strstr(e, text))
		fail_msg("stderr '%s' lacks '%s'", e, text);
	free(e);
}

static void test_errors(void **state)
{
	FILE *f;

	(void)state;
	assert_int_equal(skinsim("--frobnicate"), 2);
	assert_int_equal(skinsim("a.scn b.scn"), 2);
	assert_int_equal(skinsim("--seed -3 x"), 1);
	expect_err("--seed: not an unsigned integer");
	assert_int_equal(skinsim("--duration 5"), 1);
	expect_err("--duration: expected a time");
	assert_int_equal(skinsim("--ring-frames 100 x"), 1);
	assert_int_equal(skinsim("--bus can0 x"), 1);
	assert_int_equal(skinsim("--ring %s --log x %s", tmp("r"), tmp("touch.scn")), 2);
	assert_int_equal(skinsim("%s", tmp("missing.scn")), 1);
	expect_err("missing.scn: cannot open: No such file or directory");
	assert_int_equal(skinsim("--log /dev/null"), 1);
	expect_err("no config");

	f = fopen(tmp("bad.scn"), "w");
	fprintf(f, "config %s\n\nat 1s press left_forearm taxel 300 radius 12mm force 9 nmae x\n", conf);
	fclose(f);
	assert_int_equal(skinsim("--list %s", tmp("bad.scn")), 1);
	expect_err("bad.scn:3:56: expected 'name' or 'ramp', found 'nmae'");

	f = fopen(tmp("bad2.scn"), "w");
	fprintf(f, "config %s\nat 1s press torso taxel 3 radius 12mm force 9\n", conf);
	fclose(f);
	assert_int_equal(skinsim("--list %s", tmp("bad2.scn")), 1);
	expect_err("bad2.scn:2: no part 'torso' in the config");

	/* --fast without an end */
	assert_int_equal(skinsim("--log %s --fast --config %s", tmp("x.log"), conf), 1);
	expect_err("--fast needs a duration");

	/* a damaged log: each bad line named, the rest replayed, status 1 */
	f = fopen(tmp("bad.log"), "w");
	fprintf(f, "(1000.000000) vcan0 4E0#40F0F0F0F0F0F0F0\n"
		"(1000.000100) vcan0 4E0#40F0F0\n"		/* fine: a short frame */
		"(1000.0001) vcan0 4E0#40\n"
		"# a comment\n"
		"(1000.000300) vcan0 4E0:40\n"
		"(1000.000400) vcan0 4E0#C0F0F0F0F0F00000\n");
	fclose(f);
	assert_int_equal(skinsim("--replay %s --ring %s --config %s --fast",
				 tmp("bad.log"), tmp("badrings"), conf), 1);
	expect_err("bad.log:3:11: timestamp needs 6 fractional digits");
	expect_err("bad.log:5:24: expected '#' after the CAN id, found ':'");
	expect_err("3 frames replayed, 2 bad lines");

	/* --list: the boards, as the daemon names them */
	assert_int_equal(skinsim("--list --config %s --bus vcan0=can7 >%s", conf,
				 tmp("list")), 0);
	{
		char *l = slurp(tmp("list"));

		assert_non_null(strstr(l, "left_hand can7 14 left_hand 0 0f1f\n"));
		assert_non_null(strstr(l, "left_forearm.1 can7 12 left_forearm 1 334b\n"));
		free(l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_is_truth),
		cmocka_unit_test(test_rings_are_truth),
		cmocka_unit_test(test_replay_into_rings),
		cmocka_unit_test(test_faults_through_driver),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
