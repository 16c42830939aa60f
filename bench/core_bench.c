// SPDX-License-Identifier: GPL-2.0
/*
 * core_bench.c - cost per CAN frame of the driver's decode-and-assemble core
 *
 * The core (driver/skin_decode.c, skin_assemble.c, skin_ring.c) is built in
 * user space from the driver's own source (skin_core_dep) and fed a
 * pre-generated stream of one 16-triangle board: every period a head and a
 * tail frame per triangle, the 32 frames shuffled, the values varying.  Each
 * frame goes through the driver's receive sequence, skin_asm_rx() (what
 * skin_can_rx() in driver/skin_can.c runs between its lock, clock and
 * timer), into a ring of 256 frames.  In the same process, interleaved with it, run the baselines:
 *
 *   copy      each CAN frame copied into a 256-frame buffer: the least any
 *             code that looks at every frame does;
 *   decode    skin_decode() alone;
 *
 * and the reader side: skin_ring_read() of every frame of a full ring (the
 * reader of <skin/ring.h>), against a plain copy of the 256-byte slots.
 *
 * Times are ns per frame (min and median of the repetitions), with
 * CLOCK_MONOTONIC on one pinned CPU.  When valgrind is installed the
 * instructions per frame are counted too (callgrind, one process per case,
 * collection only inside the case's function): repeatable where the times
 * are not.
 *
 *   core_bench [--reps N] [--cpu N] [--no-callgrind]
 *
 * The last line is key=value pairs for scripts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "skin_clock.h"
#include "skin_core.h"

#define PERIODS		512
#define HALVES		(2 * SKIN_TRIANGLES)	/* frames per period */
#define STREAM_FRAMES	(PERIODS * HALVES)	/* 16384 frames, 256 KiB */
#define RING_LOG2	8			/* 256 frames, as the driver */
#define RING_FRAMES	(1U << RING_LOG2)
#define RING_OFFSET	4096
#define REP_FRAMES	(1U << 18)		/* CAN frames per repetition */
#define DEFAULT_REPS	21
#define DROP_PER_MILLE	10			/* the lossy stream: 1% */

/* ------------------------------------------------------------------ */
/* The stream                                                          */

static struct can_frame stream[STREAM_FRAMES];
static struct can_frame ordered[STREAM_FRAMES];
static struct can_frame lossy[STREAM_FRAMES];
static size_t lossy_frames;

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u32 rng(void)
{
	/* xorshift64*: fixed seed, so every run sees the same stream */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (u32)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

/* One board (class 4, address 14, the iCub hand), all 16 triangles. */
#define BENCH_CLASS	SKIN_CLASS_DATA
#define BENCH_BOARD	14
#define BENCH_NO_LOAD	0xf0

static u8 taxel_value(bool touched)
{
	/* unloaded: noLoad minus a little noise; touched: pressed down */
	if (touched)
		return (u8)(rng() % 200);
	return (u8)(BENCH_NO_LOAD - rng() % 6);
}

static void make_stream(void)
{
	unsigned int p, i, c;
	size_t n = 0;

	for (p = 0; p < PERIODS; p++) {
		unsigned int order[HALVES];

		for (i = 0; i < HALVES; i++)
			order[i] = i;
		for (i = HALVES - 1; i > 0; i--) {	/* Fisher-Yates */
			unsigned int j = rng() % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < HALVES; i++) {
			unsigned int tri = order[i] >> 1;
			bool tail = order[i] & 1;
			bool touched = (rng() % 8) == 0;
			struct can_frame *cf = &stream[n++];

			memset(cf, 0, sizeof(*cf));
			cf->can_id = SKIN_DATA_ID(BENCH_CLASS, BENCH_BOARD, tri);
			/* tails of 8 bytes: values and a diagnostics word 0 */
			cf->len = 8;
			cf->data[0] = tail ? SKIN_BYTE0_TAIL : SKIN_BYTE0_HEAD;
			for (c = 1; c <= (tail ? 5U : 7U); c++)
				cf->data[c] = taxel_value(touched);
		}
	}
	/* the same periods in the order of the firmware's loop */
	for (i = 0; i < STREAM_FRAMES; i++) {
		const struct can_frame *cf = &stream[i];
		unsigned int k = SKIN_ID_TRIANGLE(cf->can_id) * 2 +
				 (cf->data[0] == SKIN_BYTE0_TAIL);

		ordered[i / HALVES * HALVES + k] = *cf;
	}
	for (i = 0; i < STREAM_FRAMES; i++)
		if (rng() % 1000 >= DROP_PER_MILLE)
			lossy[lossy_frames++] = stream[i];
}

/* ------------------------------------------------------------------ */
/* The receive sequence: skin_asm_rx(), as skin_can_rx() runs it       */

struct core {
	struct skin_asm a;
	struct skin_ring r;
	void *mem;
};

static __attribute__((noinline)) void
case_core(struct core *s, const struct can_frame *f, size_t n, u64 ts)
{
	size_t i;

	for (i = 0; i < n; i++)
		skin_asm_rx(&s->a, &s->r, &f[i], false, ts + i);
}

static void core_init(struct core *s)
{
	struct skin_patch_config cfg;

	skin_patch_config_default(&cfg);
	strcpy(cfg.ifname, "bench0");
	cfg.cls = BENCH_CLASS;
	cfg.address = BENCH_BOARD;
	cfg.no_load = BENCH_NO_LOAD;
	cfg.ring_log2 = RING_LOG2;
	if (skin_patch_config_check(&cfg)) {
		fprintf(stderr, "core_bench: bad configuration: %s\n",
			skin_patch_config_check(&cfg));
		exit(1);
	}
	memset(s, 0, sizeof(*s));
	s->mem = aligned_alloc(4096, RING_OFFSET +
			       RING_FRAMES * sizeof(struct skin_frame));
	if (!s->mem) {
		perror("core_bench: aligned_alloc");
		exit(1);
	}
	memset(s->mem, 0, RING_OFFSET + RING_FRAMES * sizeof(struct skin_frame));
	skin_ring_init(&s->r, s->mem, RING_OFFSET, RING_LOG2);
	skin_asm_init(&s->a, &cfg);
}

/* ------------------------------------------------------------------ */
/* Baselines                                                           */

static struct can_frame copy_buf[256];
static struct skin_frame read_buf;

static __attribute__((noinline)) void
case_copy(const struct can_frame *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(&copy_buf[i & 255], &f[i], sizeof(*f));
		/* one frame at a time, as a receive path gets them */
		__asm__ volatile("" : : "r"(&copy_buf[i & 255]) : "memory");
	}
}

static unsigned int decode_sink;

static __attribute__((noinline)) void
case_decode(const struct can_frame *f, size_t n)
{
	unsigned int acc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct skin_half h;

		if (skin_verdict_accepted(skin_decode(&f[i], false, &h)))
			acc += h.values[0];
	}
	decode_sink += acc;
}

/* Reader: every frame of the full ring, oldest first. */
static __attribute__((noinline)) unsigned int
case_read(const struct core *s, u64 *lost)
{
	u64 next = s->r.head - RING_FRAMES + 1;
	unsigned int n = 0;

	while (skin_ring_read(s->r.ctrl, s->r.slots, &next, &read_buf, lost) ==
	       SKIN_RING_FRAME)
		n++;
	return n;
}

static __attribute__((noinline)) unsigned int
case_read_copy(const struct core *s)
{
	unsigned int i;

	for (i = 0; i < RING_FRAMES; i++) {
		memcpy(&read_buf, &s->r.slots[i], sizeof(read_buf));
		__asm__ volatile("" : : "r"(&read_buf) : "memory");
	}
	return i;
}

/* ------------------------------------------------------------------ */
/* Measurement                                                         */

enum bench_case {
	C_COPY, C_DECODE, C_CORE, C_CORE_ORDERED, C_CORE_LOSSY, C_READ,
	C_READ_COPY, C_NR
};

static const struct {
	const char *name;	/* --one NAME */
	const char *func;	/* callgrind --toggle-collect */
	const char *what;
	const char *unit;
} cases[C_NR] = {
	[C_COPY] = { "copy", "case_copy",
		     "copy CAN frame to a buffer (baseline)", "frame" },
	[C_DECODE] = { "decode", "case_decode",
		       "skin_decode() alone", "frame" },
	[C_CORE] = { "core", "case_core",
		     "receive sequence: check..publish", "frame" },
	[C_CORE_ORDERED] = { "core-ordered", "case_core",
			     "receive sequence, in board order", "frame" },
	[C_CORE_LOSSY] = { "core-lossy", "case_core",
			   "receive sequence, 1% frames lost", "frame" },
	[C_READ] = { "read", "case_read",
		     "skin_ring_read() of a full ring", "sample" },
	[C_READ_COPY] = { "read-copy", "case_read_copy",
			  "copy 256-byte slots (baseline)", "sample" },
};

static struct core core, core_ordered, core_lossy, core_reader;

static double now_ns(void)
{
	return (double)clock_monotonic_ns();
}

/* One repetition of a case; returns ns per unit. */
static double run_rep(enum bench_case c)
{
	unsigned int passes, p;
	u64 lost = 0, units = 0;
	double t0, t1;

	switch (c) {
	case C_READ:
	case C_READ_COPY:
		passes = REP_FRAMES / RING_FRAMES;
		t0 = now_ns();
		for (p = 0; p < passes; p++)
			units += c == C_READ ? case_read(&core_reader, &lost) :
					       case_read_copy(&core_reader);
		t1 = now_ns();
		if (lost || units != (u64)passes * RING_FRAMES) {
			fprintf(stderr, "core_bench: reader lost frames\n");
			exit(1);
		}
		break;
	default:
		passes = REP_FRAMES / STREAM_FRAMES;
		t0 = now_ns();
		for (p = 0; p < passes; p++) {
			if (c == C_COPY)
				case_copy(stream, STREAM_FRAMES);
			else if (c == C_DECODE)
				case_decode(stream, STREAM_FRAMES);
			else if (c == C_CORE)
				case_core(&core, stream, STREAM_FRAMES, p);
			else if (c == C_CORE_ORDERED)
				case_core(&core_ordered, ordered,
					  STREAM_FRAMES, p);
			else
				case_core(&core_lossy, lossy, lossy_frames, p);
		}
		t1 = now_ns();
		units = (u64)passes * (c == C_CORE_LOSSY ? lossy_frames :
					STREAM_FRAMES);
		break;
	}
	return (t1 - t0) / units;
}

/* --one CASE: what callgrind runs; one call of the case function. */
static double units_per_call(enum bench_case c)
{
	if (c == C_READ || c == C_READ_COPY)
		return RING_FRAMES;
	return c == C_CORE_LOSSY ? lossy_frames : STREAM_FRAMES;
}

static void run_one(enum bench_case c)
{
	u64 lost = 0;

	switch (c) {
	case C_COPY:
		case_copy(stream, STREAM_FRAMES);
		break;
	case C_DECODE:
		case_decode(stream, STREAM_FRAMES);
		break;
	case C_CORE:
		case_core(&core, stream, STREAM_FRAMES, 0);
		break;
	case C_CORE_ORDERED:
		case_core(&core_ordered, ordered, STREAM_FRAMES, 0);
		break;
	case C_CORE_LOSSY:
		case_core(&core_lossy, lossy, lossy_frames, 0);
		break;
	case C_READ:
		case_read(&core_reader, &lost);
		break;
	default:
		case_read_copy(&core_reader);
		break;
	}
}

static char *find_valgrind(void)
{
	const char *path = getenv("PATH");
	static char buf[PATH_MAX];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len && len + sizeof("/valgrind") < sizeof(buf)) {
			memcpy(buf, path, len);
			strcpy(buf + len, "/valgrind");
			if (access(buf, X_OK) == 0)
				return buf;
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* Instructions per unit of a case under callgrind, or -1. */
static double callgrind_ir(const char *valgrind, const char *self,
			   enum bench_case c)
{
	char out[] = "/tmp/core_bench.callgrind.XXXXXX";
	char outarg[sizeof(out) + 32], toggle[64], toggle2[64], line[256];
	unsigned long long ir = 0;
	int fd, status;
	pid_t pid;
	FILE *f;

	fd = mkstemp(out);
	if (fd < 0)
		return -1;
	close(fd);
	snprintf(outarg, sizeof(outarg), "--callgrind-out-file=%s", out);
	/* the function, or gcc's clone of it (case_x.constprop.0) */
	snprintf(toggle, sizeof(toggle), "--toggle-collect=%s", cases[c].func);
	snprintf(toggle2, sizeof(toggle2), "--toggle-collect=%s.*",
		 cases[c].func);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(valgrind, "valgrind", "--tool=callgrind", outarg, toggle,
		      toggle2, self, "--one", cases[c].name, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		unlink(out);
		return -1;
	}
	f = fopen(out, "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "totals: %llu", &ir) == 1 ||
			    sscanf(line, "summary: %llu", &ir) == 1)
				break;
		fclose(f);
	}
	unlink(out);
	return ir ? ir / units_per_call(c) : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: core_bench [--reps N] [--cpu N] [--no-callgrind]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double t[C_NR][256], min[C_NR], med[C_NR], ir[C_NR];
	int reps = DEFAULT_REPS, cpu = -1, i, one = -1;
	bool callgrind = true;
	char self[PATH_MAX];
	const char *valgrind;
	cpu_set_t set;
	ssize_t len;
	u64 drops;
	int c, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
			if (reps < 1 || reps > 256)
				usage();
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			cpu = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--no-callgrind")) {
			callgrind = false;
		} else if (!strcmp(argv[i], "--one") && i + 1 < argc) {
			for (c = 0; c < C_NR; c++)
				if (!strcmp(argv[i + 1], cases[c].name))
					one = c;
			if (one < 0)
				usage();
			i++;
		} else {
			usage();
		}
	}

	make_stream();
	core_init(&core);
	core_init(&core_ordered);
	core_init(&core_lossy);
	core_init(&core_reader);
	/*
	 * A full ring for the reader: 256 periods.  Not under callgrind when
	 * case_core() is the function counted.
	 */
	if (one != C_CORE && one != C_CORE_ORDERED && one != C_CORE_LOSSY)
		case_core(&core_reader, stream, RING_FRAMES * HALVES, 0);

	if (one >= 0) {
		run_one(one);
		return 0;
	}

	if (cpu < 0)
		cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (cpu < 0 || sched_setaffinity(0, sizeof(set), &set) < 0) {
		fprintf(stderr, "core_bench: not pinned to cpu %d: %s\n", cpu,
			strerror(errno));
		cpu = -1;
	}

	/* warm-up: caches, branch predictors, the CPU's clock */
	for (c = 0; c < C_NR; c++)
		run_rep(c);
	/* interleaved, so that a disturbance hits every case alike */
	for (r = 0; r < reps; r++)
		for (c = 0; c < C_NR; c++)
			t[c][r] = run_rep(c);
	for (c = 0; c < C_NR; c++) {
		qsort(t[c], reps, sizeof(double), cmp_double);
		min[c] = t[c][0];
		med[c] = t[c][reps / 2];
		ir[c] = -1;
	}

	/* the core must have published one sample per period */
	if (core.r.ctrl->stats[SKIN_STAT_PARTIAL] ||
	    core.r.ctrl->stats[SKIN_STAT_REPEATS] ||
	    core.r.ctrl->stats[SKIN_RX_HEAD] + core.r.ctrl->stats[SKIN_RX_TAIL] !=
	    core.r.ctrl->stats[SKIN_STAT_FRAMES] * HALVES) {
		fprintf(stderr, "core_bench: the clean stream did not assemble cleanly\n");
		return 1;
	}
	drops = STREAM_FRAMES - lossy_frames;

	valgrind = callgrind ? find_valgrind() : NULL;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (valgrind && len > 0) {
		self[len] = 0;
		for (c = 0; c < C_NR; c++)
			ir[c] = callgrind_ir(valgrind, self, c);
	}

	printf("core_bench: 1 board x 16 triangles, %u CAN frames (%u periods, "
	       "halves shuffled), ring of %u frames\n",
	       STREAM_FRAMES, PERIODS, RING_FRAMES);
	printf("core_bench: %d repetitions of %u frames per case, interleaved, "
	       "cpu %d%s; lossy stream: %llu of %u frames dropped\n",
	       reps, REP_FRAMES, cpu, cpu < 0 ? " (not pinned)" : " (pinned)",
	       (unsigned long long)drops, STREAM_FRAMES);
	printf("\n%-38s %7s %8s %8s %8s %10s\n", "case", "per", "min ns",
	       "med ns", "x copy", "instr");
	for (c = 0; c < C_NR; c++) {
		double base = c >= C_READ ? med[C_READ_COPY] : med[C_COPY];
		char irs[32];

		if (ir[c] >= 0)
			snprintf(irs, sizeof(irs), "%.1f", ir[c]);
		else
			snprintf(irs, sizeof(irs), "-");
		printf("%-38s %7s %8.2f %8.2f %8.2f %10s\n", cases[c].what,
		       cases[c].unit, min[c], med[c], med[c] / base, irs);
	}
	printf("\n\"x copy\": median over the median of the baseline of the "
	       "same side (frames: copy; samples: read-copy).\n");
	printf("writer per 192-taxel sample (32 frames): %.0f ns median\n\n",
	       med[C_CORE] * HALVES);

	printf("core_ns_min=%.2f core_ns_median=%.2f core_lossy_ns_median=%.2f "
	       "decode_ns_median=%.2f copy_ns_median=%.2f core_x_copy=%.2f "
	       "core_ir=%.1f decode_ir=%.1f copy_ir=%.1f "
	       "read_ns_median=%.2f read_copy_ns_median=%.2f read_ir=%.1f\n",
	       min[C_CORE], med[C_CORE], med[C_CORE_LOSSY], med[C_DECODE],
	       med[C_COPY], med[C_CORE] / med[C_COPY], ir[C_CORE],
	       ir[C_DECODE], ir[C_COPY], med[C_READ], med[C_READ_COPY],
	       ir[C_READ]);
	return 0;
}
