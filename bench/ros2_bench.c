// SPDX-License-Identifier: GPL-2.0
/*
 * ros2_bench - the ROS 2 bridge's latency and CPU, against skind's socket
 * and against Cyclone DDS alone (bench/ros2-bench runs it; docs/PERFORMANCE.md)
 *
 *	ros2_bench --socket SKIND_SOCK --domain D --namespace NS
 *	           --bridge-pid PID [--seconds S] [--bare wakeup|timer]
 *
 * One process, one run, one machine, while skind publishes (skinsim's
 * ring files) and skin-ros2-bridge follows it:
 *
 *  - socket: a subscriber of skind (`subscribe taxels all`, every
 *            publication of every part's values): latency = when the line
 *            arrives - its PUBLISH_NS (skind's shm publication);
 *  - bridge: a default-profile reader of every part's NS/PART/values:
 *            latency = when dds_take() returns it - the PUBLISH_NS of the
 *            same sample, found on the socket by its stamp (the frame
 *            time moved to CLOCK_REALTIME: moved back here);
 *  - bare:   a child process writes, per part, a TactileState of the same
 *            size on a topic of its own, with the bridge's QoS, its write
 *            time in the stamp; the same reader QoS takes it: latency =
 *            take - write.  Cyclone alone, the same size.  It writes when
 *            the bridge does: on each of skind's `samples` lines, the part
 *            the line names (--bare wakeup, the default), so that its
 *            round meets the same busy moment (skind fanning out, the
 *            socket subscriber and the bridge running); --bare timer
 *            writes every part every 50 ms on its own clock instead, in
 *            the quiet between skind's publications, where a round costs
 *            a third to a half of one in the busy moment.
 *
 * and the bridge's CPU time (utime + stime of /proc/PID/stat) over the
 * run, per full-body sample (every part published once) and as a share of
 * one core.  Prints "BENCH key=value ..." lines; asserts nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <skin/client.h>

#include "dds.h"
#include "msg.h"
#include "measure.h"

#define MAX_PARTS	32
#define MAX_REC		400000

static struct {
	const char *sock, *ns;
	unsigned int domain;
	int bridge_pid;
	double seconds;
	bool bare_on_wakeup;
} o = { .ns = "/skin", .seconds = 20, .bare_on_wakeup = true };

struct rec {
	uint16_t part;
	uint64_t key;		/* frame time (socket), stamp - offset (DDS) */
	uint64_t t0;		/* publish_ns (socket), write time (bare) */
	uint64_t t1;		/* arrival */
};

static struct rec sock_rec[MAX_REC], dds_rec[MAX_REC], bare_rec[MAX_REC];
static unsigned int n_sock, n_dds, n_bare;
static char part_name[MAX_PARTS][SKIN_SHM_NAME_LEN];
static unsigned int part_taxels[MAX_PARTS];
static unsigned int n_parts;
static volatile int stop;

static int part_index(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < n_parts; i++)
		if (strlen(part_name[i]) == len && !memcmp(part_name[i], name, len))
			return (int)i;
	return -1;
}

/* "taxels PART SAMPLE FRAME_TS PUBLISH_NS (...)" */
static void *socket_thread(void *arg)
{
	struct skin_client *c = arg;
	const char *line;

	while (!stop) {
		int rc = skin_client_read_line(c, &line, 100);
		uint64_t t = clock_monotonic_ns(), sample, fts, pub;
		const char *sp;
		int k, p;

		if (rc <= 0) {
			if (rc < 0)
				break;
			continue;
		}
		if (strncmp(line, "taxels ", 7))
			continue;
		sp = strchr(line + 7, ' ');
		if (!sp || sscanf(sp, " %lu %lu %lu%n", &sample, &fts, &pub, &k) != 3)
			continue;
		p = part_index(line + 7, (size_t)(sp - line - 7));
		if (p < 0 || n_sock >= MAX_REC)
			continue;
		sock_rec[n_sock++] = (struct rec){ (uint16_t)p, fts, pub, t };
	}
	return NULL;
}

static dds_entity_t reader(dds_entity_t pp, const char *topic)
{
	dds_qos_t *q = ros2_dds_reader_qos(ROS2_DDS_PROFILE_DEFAULT);
	dds_entity_t t = dds_create_topic(pp, &tactile_msgs_msg_dds__TactileState__desc,
					  topic, NULL, NULL);
	dds_entity_t r = t < 0 ? t : dds_create_reader(pp, t, q, NULL);

	dds_delete_qos(q);
	if (r < 0) {
		fprintf(stderr, "ros2_bench: reader on %s: %s\n", topic, dds_strretcode(r));
		exit(1);
	}
	return r;
}

static void bare_write(dds_entity_t w, struct ros2_msg_part *m, const float *zeros)
{
	uint64_t t = clock_monotonic_ns();
	ros2_time st = { (int32_t)(t / 1000000000), (uint32_t)(t % 1000000000) };

	ros2_msg_fill_values(m, &st, zeros);
	dds_write(w, &m->values);
}

/*
 * The bare publisher woken as the bridge is: by skind's `samples` lines,
 * one write of the part each line names.  Its rounds then happen in the
 * same moments of skind's cycle as the bridge's (skind fanning out, the
 * socket subscriber reading), not in the quiet between them.
 */
static void bare_on_wakeups(const dds_entity_t *w, struct ros2_msg_part *m, const float *zeros)
{
	char why[256];
	const char *line;
	int err, rc;
	struct skin_client *c = skin_client_connect(o.sock, &err);

	if (!c) {
		fprintf(stderr, "ros2_bench: bare publisher: skind: %s\n", strerror(-err));
		_exit(1);
	}
	if (skin_client_command(c, "subscribe samples all", NULL, NULL, why, sizeof(why))) {
		fprintf(stderr, "ros2_bench: bare publisher: subscribe: %s\n", why);
		_exit(1);
	}
	while ((rc = skin_client_read_line(c, &line, -1)) >= 0) {
		const char *sp;
		int p;

		if (rc == 0 || strncmp(line, "sample ", 7))
			continue;
		sp = strchr(line + 7, ' ');
		p = sp ? part_index(line + 7, (size_t)(sp - line - 7)) : -1;
		if (p >= 0)
			bare_write(w[p], &m[p], zeros);
	}
	fprintf(stderr, "ros2_bench: bare publisher: skind's socket: %s\n", strerror(-rc));
	_exit(1);
}

/* The bare publisher: every part's size, every 50 ms (or on skind's
 * wakeups), until killed. */
static void bare_publish(void)
{
	dds_entity_t pp = dds_create_participant(o.domain, NULL, NULL), w[MAX_PARTS];
	struct ros2_msg_part m[MAX_PARTS];
	static float zeros[4096];
	char topic[ROS2_DDS_TOPIC_LEN];
	unsigned int i;
	uint64_t next = clock_monotonic_ns();

	for (i = 0; i < n_parts; i++) {
		snprintf(topic, sizeof(topic), "rt/bench_bare%d/%s", (int)getppid(), part_name[i]);
		w[i] = ros2_dds_writer(pp, &tactile_msgs_msg_dds__TactileState__desc, topic);
		if (w[i] < 0 || ros2_msg_part_init(&m[i], part_name[i], "bench_frame",
						   part_taxels[i], 0))
			_exit(1);
	}
	if (o.bare_on_wakeup)
		bare_on_wakeups(w, m, zeros);
	for (;;) {
		next += 50000000;
		clock_sleep_until_mono(next, NULL);
		for (i = 0; i < n_parts; i++)
			bare_write(w[i], &m[i], zeros);
	}
}

static uint64_t proc_cpu_ticks(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	p = strrchr(buf, ')');
	/* fields 14, 15 (utime, stime): the 12th and 13th after ") S" */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return 0;
	return ut + st;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t lat[MAX_REC];

/* median and 99th percentile of @n latencies, in us */
static void stats(const char *name, unsigned int n, double *med, double *p99)
{
	qsort(lat, n, sizeof(lat[0]), cmp_u64);
	*med = n ? lat[n / 2] / 1e3 : 0;
	*p99 = n ? lat[(size_t)n * 99 / 100] / 1e3 : 0;
	printf("BENCH side=%s n=%u median_us=%.1f p99_us=%.1f\n", name, n, *med, *p99);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "domain", required_argument, NULL, 'd' },
		{ "namespace", required_argument, NULL, 'n' },
		{ "bridge-pid", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 't' },
		{ "bare", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct skin_client *c;
	struct skin_shm_map m;
	dds_entity_t pp, ws, r[MAX_PARTS + MAX_PARTS];
	pthread_t th;
	char why[256], topic[ROS2_DDS_TOPIC_LEN];
	uint64_t cpu0, cpu1, t_start, t_end;
	double med_s, p99_s, med_b, p99_b, med_x, p99_x;
	unsigned int i, j, n;
	pid_t child;
	int err, opt;

	while ((opt = getopt_long(argc, argv, "s:d:n:p:t:b:", opts, NULL)) != -1) {
		switch (opt) {
		case 's': o.sock = optarg; break;
		case 'd': o.domain = (unsigned int)atoi(optarg); break;
		case 'n': o.ns = optarg; break;
		case 'p': o.bridge_pid = atoi(optarg); break;
		case 't': o.seconds = atof(optarg); break;
		case 'b': o.bare_on_wakeup = strcmp(optarg, "timer") != 0; break;
		default: return 2;
		}
	}
	c = skin_client_connect(o.sock, &err);
	if (!c || skin_client_shm(c, &m)) {
		fprintf(stderr, "ros2_bench: skind at %s: %s\n", o.sock ? o.sock : "(default)",
			strerror(c ? EPROTO : -err));
		return 1;
	}
	n_parts = skin_shm_n_parts(&m) < MAX_PARTS ? skin_shm_n_parts(&m) : MAX_PARTS;
	for (i = 0; i < n_parts; i++) {
		snprintf(part_name[i], sizeof(part_name[i]), "%s", skin_shm_part(&m, i)->name);
		part_taxels[i] = skin_shm_part(&m, i)->n_taxels;
	}
	skin_shm_close(&m);

	child = fork();
	if (child == 0)
		bare_publish();

	pp = dds_create_participant(o.domain, NULL, NULL);
	ws = dds_create_waitset(pp);
	for (i = 0; i < n_parts; i++) {
		ros2_dds_topic_name(topic, sizeof(topic), o.ns, part_name[i], "values");
		r[i] = reader(pp, topic);
		snprintf(topic, sizeof(topic), "rt/bench_bare%d/%s", (int)getpid(), part_name[i]);
		r[MAX_PARTS + i] = reader(pp, topic);
		dds_set_status_mask(r[i], DDS_DATA_AVAILABLE_STATUS);
		dds_set_status_mask(r[MAX_PARTS + i], DDS_DATA_AVAILABLE_STATUS);
		dds_waitset_attach(ws, r[i], (dds_attach_t)i);
		dds_waitset_attach(ws, r[MAX_PARTS + i], (dds_attach_t)(MAX_PARTS + i));
	}
	if (skin_client_command(c, "subscribe taxels all", NULL, NULL, why, sizeof(why))) {
		fprintf(stderr, "ros2_bench: subscribe: %s\n", why);
		return 1;
	}
	pthread_create(&th, NULL, socket_thread, c);
	/* discovery and the first samples before measuring: only what is
	 * published after t_start counts */
	t_start = clock_monotonic_ns() + 3000000000ull;
	cpu0 = 0;
	while (clock_monotonic_ns() < t_start + (uint64_t)(o.seconds * 1e9)) {
		dds_attach_t trig[2 * MAX_PARTS];
		int k = dds_waitset_wait(ws, trig, 2 * MAX_PARTS, DDS_MSECS(100));
		int64_t off = clock_mono_to_real_ns();

		if (!cpu0 && clock_monotonic_ns() >= t_start)
			cpu0 = proc_cpu_ticks(o.bridge_pid);

		for (j = 0; j < (unsigned int)(k > 0 ? k : 0); j++) {
			void *s[8] = { NULL };
			dds_sample_info_t info[8];
			unsigned int idx = (unsigned int)trig[j];
			int got = dds_take(r[idx], s, info, 8, 8), q;
			uint64_t t = clock_monotonic_ns();

			for (q = 0; q < got; q++) {
				const ros2_state *st = s[q];
				uint64_t stamp = (uint64_t)st->header_.stamp_.sec_ * 1000000000u +
						 st->header_.stamp_.nanosec_;

				if (!info[q].valid_data)
					continue;
				if (idx >= MAX_PARTS) {
					if (n_bare < MAX_REC)
						bare_rec[n_bare++] = (struct rec){
							(uint16_t)(idx - MAX_PARTS), 0, stamp, t };
				} else if (n_dds < MAX_REC) {
					dds_rec[n_dds++] = (struct rec){ (uint16_t)idx,
						(uint64_t)((int64_t)stamp - off), 0, t };
				}
			}
			if (got > 0)
				dds_return_loan(r[idx], s, got);
		}
	}
	t_end = clock_monotonic_ns();
	cpu1 = proc_cpu_ticks(o.bridge_pid);
	stop = 1;
	pthread_join(th, NULL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	/* socket: arrival - publication */
	for (i = 0, n = 0; i < n_sock; i++)
		if (sock_rec[i].t0 >= t_start && sock_rec[i].t0 < t_end)
			lat[n++] = sock_rec[i].t1 - sock_rec[i].t0;
	stats("socket", n, &med_s, &p99_s);
	/* bridge: arrival - the same sample's publication (its frame time,
	 * within a microsecond of the stamp's: samples are 50 ms apart) */
	for (i = 0, n = 0; i < n_dds; i++) {
		const struct rec *d = &dds_rec[i];

		for (j = 0; j < n_sock; j++) {
			const struct rec *s = &sock_rec[j];
			int64_t dk = (int64_t)(d->key - s->key);

			if (s->part == d->part && dk > -100000 && dk < 100000 &&
			    s->t0 >= t_start && s->t0 < t_end) {
				lat[n++] = d->t1 - s->t0;
				break;
			}
		}
	}
	printf("BENCH bridge_samples=%u matched=%u\n", n_dds, n);
	stats("bridge", n, &med_b, &p99_b);
	for (i = 0, n = 0; i < n_bare; i++)
		if (bare_rec[i].t0 >= t_start && bare_rec[i].t0 < t_end)
			lat[n++] = bare_rec[i].t1 - bare_rec[i].t0;
	stats("bare", n, &med_x, &p99_x);
	/* what the bridge adds to skind's own path: its latency beyond the
	 * socket subscriber's, in bare Cyclone rounds */
	if (med_x > 0 && med_s > 0)
		printf("BENCH ratio bridge/bare=%.2f bridge/socket=%.2f (bridge-socket)/bare=%.2f (medians)\n",
		       med_b / med_x, med_b / med_s, (med_b - med_s) / med_x);
	if (o.bridge_pid && n_dds) {
		/* the bridge's publications in the window, n_parts a full body */
		double cpu_s = (double)(cpu1 - cpu0) / (double)sysconf(_SC_CLK_TCK);
		double wall = (double)(t_end - t_start) / 1e9;
		double full;

		for (i = 0, n = 0; i < n_dds; i++)
			n += dds_rec[i].t1 >= t_start && dds_rec[i].t1 < t_end;
		full = (double)n / n_parts;

		printf("BENCH bridge_cpu_s=%.3f wall_s=%.1f parts=%u full_body_samples=%.0f cpu_us_per_full_body_sample=%.0f core_percent=%.2f\n",
		       cpu_s, wall, n_parts, full, cpu_s * 1e6 / full, 100.0 * cpu_s / wall);
	}
	skin_client_close(c);
	dds_delete(pp);
	return 0;
}
