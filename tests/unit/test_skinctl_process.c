// SPDX-License-Identifier: GPL-2.0
/*
 * test_skinctl_process.c - `skinctl process CONFIG LOG` on hand-made logs
 *
 * The strip of test_proc_util.h on can0:1, board period 50 ms, a
 * calibration of 0.25 s = 5 samples; the log is written line by line here
 * (head 0x40 + channels 0..6, tail 0xC0 + channels 7..11 of triangle 0),
 * and the program's output is compared with numbers worked out by hand.
 */
#include <math.h>
#include <sys/wait.h>

#include "test_proc_util.h"

struct run {
	char out[1 << 16];
	char err[8192];
	int status;
};

static char dir[64];

static void write_conf(void)
{
	char path[128], conf[1024];

	strcpy(dir, "/tmp/test_process.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/strip.urdf", dir);
	write_file(path, strip_urdf);
	snprintf(conf, sizeof(conf),
		 "[skind]\ncalibration_s = 0.25\nmax_neighbor_dist_m = 0.015\n"
		 "[board]\nperiod_ms = 50\n"
		 "[bus can0]\n[part strip]\nlayout = none\ngeometry = strip.urdf\n"
		 "geometry_format = urdf\npatches = can0:1\n");
	snprintf(path, sizeof(path), "%s/skind.conf", dir);
	write_file(path, conf);
}

/* One period's two frames for taxels 0..3 (the rest at 0xf0), at t ms. */
static void period(FILE *f, unsigned int t_ms, int r0, int r1, int r2, int r3,
		   bool head, bool tail)
{
	if (head)
		fprintf(f, "(1000.%06u) can0 410#40%02X%02X%02X%02XF0F0F0\n",
			t_ms * 1000, r0, r1, r2, r3);
	if (tail)
		fprintf(f, "(1000.%06u) can0 410#C0F0F0F0F0F00000\n",
			t_ms * 1000 + 1000);
}

static void calibration(FILE *f)
{
	static const int r[5] = { 240, 240, 239, 241, 240 };
	unsigned int s;

	for (s = 0; s < 5; s++)
		period(f, 50 * s, r[s], r[s], r[s], r[s], true, true);
}

static void run_process(struct run *r, const char *args, const char *log)
{
	char cmd[1024], path[128];
	FILE *p;
	size_t n;

	snprintf(path, sizeof(path), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "%s process %s %s/skind.conf %s 2>%s",
		 SKINCTL, args, dir, log, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(r->out, 1, sizeof(r->out) - 1, p);
	r->out[n] = '\0';
	r->status = pclose(p);
	p = fopen(path, "r");
	assert_non_null(p);
	n = fread(r->err, 1, sizeof(r->err) - 1, p);
	r->err[n] = '\0';
	fclose(p);
}

static FILE *log_open(char *path, size_t len, const char *name)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/*
 * After the calibration (baselines 15, thresholds 1, levels 8), raw 200,
 * 220, 240, 210: d = 40, 20, 0, 30, published as they are without
 * smoothing and binarization; contacts {0, 1} and {3}
 * (test_proc.c: contacts_geometry works out their numbers).
 */
static void taxels_and_contacts(void **state)
{
	static struct run r;
	char log[128], want[64];
	FILE *f;

	(void)state;
	f = log_open(log, sizeof(log), "touch.log");
	calibration(f);
	period(f, 250, 200, 220, 240, 210, true, true);
	fclose(f);

	run_process(&r, "--set smooth_filter=false --set binarization=false --taxels strip", log);
	if (WEXITSTATUS(r.status))
		fail_msg("exit %d: %s", WEXITSTATUS(r.status), r.err);
	/* one line: the sample at t = 1000.251 s (its tail) */
	snprintf(want, sizeof(want), "1000.251000 40 20 0 30 0 0 ");
	assert_memory_equal(r.out, want, strlen(want));
	assert_non_null(strstr(r.err, "part strip calibrated"));
	assert_non_null(strstr(r.err, "6 samples (0 timed out, 0 on a repeated half), 0 frames for no patch, 0 bad lines"));

	run_process(&r, "--set smooth_filter=false --set binarization=false", log);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_non_null(strstr(r.out, "1000.251000 strip (((1 0 -1 0) (0.0 0.00333333333 0.0) "));
	assert_non_null(strstr(r.out, " (0 1) 30.0) ((2 0 -1 0) (0.0 0.03 0.0) (0.0 0.0 -1.5) (-0.045 0.0 0.0) (0.0 0.03 0.0) (0.0 0.0 1.0) (3) 30.0))\n"));

	run_process(&r, "--set smooth_filter=false --set binarization=false --format json --compat", log);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_non_null(strstr(r.out, "{\"time\":1000.251000,\"part\":\"strip\",\"contacts\":[{\"id\":1,"));
	/* compat: normal (0, -20, 40) / 60, moment 0 */
	assert_non_null(strstr(r.out, "\"normal\":[0,-0.333333333,0.666666667]"));
	assert_non_null(strstr(r.out, "\"moment\":[0,0,0]"));
}

/*
 * The driver's publication rules on the log's clock: a head alone,
 * followed 100 ms later by the next head, is published by the timer at
 * 1.5 periods (75 ms); a head followed by a head 50 ms later (its tail
 * lost) is published as a repeat; and the pending head at the end of the
 * log by the timer.
 */
static void publication_rules(void **state)
{
	static struct run r;
	char log[128];
	FILE *f;

	(void)state;
	f = log_open(log, sizeof(log), "rules.log");
	calibration(f);
	period(f, 250, 240, 240, 240, 240, true, false);	/* timeout */
	period(f, 350, 240, 240, 240, 240, true, false);	/* repeat */
	period(f, 400, 240, 240, 240, 240, true, true);		/* complete */
	period(f, 450, 240, 240, 240, 240, true, false);	/* end of log */
	fclose(f);
	run_process(&r, "", log);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_non_null(strstr(r.err, "9 samples (2 timed out, 1 on a repeated half)"));
	/* one output line per sample of the calibrated part */
	assert_non_null(strstr(r.out, "1000.250000 strip ()\n"));
	assert_non_null(strstr(r.out, "1000.350000 strip ()\n"));
	assert_non_null(strstr(r.out, "1000.401000 strip ()\n"));
	assert_non_null(strstr(r.out, "1000.450000 strip ()\n"));
}

static void bad_input(void **state)
{
	static struct run r;
	char log[128];
	FILE *f;

	(void)state;
	f = log_open(log, sizeof(log), "bad.log");
	calibration(f);
	fprintf(f, "(1000.300000) can0 410#40F0ZZ\n");
	fprintf(f, "(1000.100000) can0 410#40F0F0F0F0F0F0F0\n");
	fprintf(f, "(1000.400000) can1 123#00\n");
	fclose(f);
	run_process(&r, "", log);
	assert_int_equal(WEXITSTATUS(r.status), 1);
	assert_non_null(strstr(r.err, "bad.log:11:"));
	assert_non_null(strstr(r.err, "bad.log:12: timestamp goes back in time on can0"));
	assert_non_null(strstr(r.err, "1 frames for no patch, 2 bad lines"));

	run_process(&r, "--format yaml", log);
	assert_int_equal(WEXITSTATUS(r.status), 1);
	assert_non_null(strstr(r.err, "--format 'yaml': expected bottle or json"));
	run_process(&r, "--taxels arm", log);
	assert_non_null(strstr(r.err, "--taxels arm: no such part"));
	run_process(&r, "--set add_threshold=999", log);
	assert_non_null(strstr(r.err, "add_threshold = '999': expected a number >= 0 and <= 254"));
	run_process(&r, "", "/nonexistent.log");
	assert_int_equal(WEXITSTATUS(r.status), 1);
	assert_non_null(strstr(r.err, "/nonexistent.log"));
}

/* --save-calibration, then --calibration: no calibration samples needed. */
static void calibration_file(void **state)
{
	static struct run r;
	char log[128], log2[128], args[256];
	FILE *f;

	(void)state;
	f = log_open(log, sizeof(log), "cal.log");
	calibration(f);
	fclose(f);
	snprintf(args, sizeof(args), "--save-calibration %s/cal", dir);
	run_process(&r, args, log);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	f = log_open(log2, sizeof(log2), "after.log");
	period(f, 0, 200, 220, 240, 210, true, true);
	fclose(f);
	snprintf(args, sizeof(args), "--calibration %s/cal --set smooth_filter=false --set binarization=false --taxels strip", dir);
	run_process(&r, args, log2);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	assert_memory_equal(r.out, "1000.001000 40 20 0 30 0", 24);
}

/*
 * --compat --cycle 20 on a restored calibration: samples every 50 ms
 * (published at their tails, 1 ms in), cycles every 20 ms of the log's
 * time from the first sample on, up to the last: at .021 ... .141, seven,
 * a line per cycle where the samples gave four.  The first cycle is the
 * first sample's values (40 20 0 30, as above); each cycle after it runs
 * skinManager's drift compensation again, which in compat mode also
 * lowers a pressed taxel by a step proportional to its value (the flaw
 * that loses a held press, docs/PROCESSING.md): the pressed taxels fall
 * by one ratio at every cycle, the unpressed one stays 0.
 */
static void cycles(void **state)
{
	static struct run r;
	char log[128], log2[128], args[256], want[64];
	double v[7][4], ratio;
	unsigned int t, k, i;
	const char *line;
	char *end;
	FILE *f;

	(void)state;
	f = log_open(log, sizeof(log), "cal.log");
	calibration(f);
	fclose(f);
	snprintf(args, sizeof(args), "--save-calibration %s/cal", dir);
	run_process(&r, args, log);
	assert_int_equal(WEXITSTATUS(r.status), 0);
	f = log_open(log2, sizeof(log2), "cycled.log");
	for (t = 0; t < 200; t += 50)
		period(f, t, 200, 220, 240, 210, true, true);
	fclose(f);

	snprintf(args, sizeof(args), "--compat --cycle 20 --calibration %s/cal "
		 "--set smooth_filter=false --set binarization=false --taxels strip", dir);
	run_process(&r, args, log2);
	if (WEXITSTATUS(r.status))
		fail_msg("exit %d: %s", WEXITSTATUS(r.status), r.err);
	assert_non_null(strstr(r.err, "7 cycles of 20 ms"));
	assert_non_null(strstr(r.err, "4 samples (0 timed out"));
	assert_memory_equal(r.out, "1000.021000 40 20 0 30 0 0 ", 27);
	line = r.out;
	for (k = 0; k < 7; k++) {
		snprintf(want, sizeof(want), "1000.%06u ", 21000 + 20000 * k);
		if (strncmp(line, want, strlen(want)))
			fail_msg("cycle %u: got '%.40s', want its time %s", k + 1, line, want);
		line += strlen(want);
		for (i = 0; i < 4; i++) {
			v[k][i] = strtod(line, &end);
			assert_true(end > line);
			line = end;
		}
		line = strchr(line, '\n');
		assert_non_null(line);
		line++;
	}
	assert_string_equal(line, "");
	for (k = 1; k < 7; k++) {
		ratio = v[k][0] / v[k - 1][0];
		assert_true(ratio < 1.0 && ratio > 0.99);
		assert_true(fabs(v[k][1] / v[k - 1][1] - ratio) < 1e-4);
		assert_true(fabs(v[k][3] / v[k - 1][3] - ratio) < 1e-4);
		assert_true(v[k][2] == 0.0);
	}

	/* skinManager's clock is compat mode's; a period is 1 to 10000 ms */
	run_process(&r, "--cycle 20", log2);
	assert_int_equal(WEXITSTATUS(r.status), 2);
	assert_non_null(strstr(r.err, "--cycle is skinManager's clock: it goes with --compat"));
	run_process(&r, "--compat --cycle 0", log2);
	assert_int_equal(WEXITSTATUS(r.status), 2);
	assert_non_null(strstr(r.err, "--cycle '0': expected a period in ms, 1 to 10000"));
	run_process(&r, "--compat --cycle 20ms", log2);
	assert_int_equal(WEXITSTATUS(r.status), 2);
}

static int teardown(void **state)
{
	char cmd[160];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return getenv("KEEP") ? 0 : system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(taxels_and_contacts),
		cmocka_unit_test(publication_rules),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(calibration_file),
		cmocka_unit_test(cycles),
	};

	write_conf();
	return cmocka_run_group_tests(tests, NULL, teardown);
}
