// SPDX-License-Identifier: GPL-2.0
/*
 * skind_bench - latency from a sample's last CAN frame to skind's clients,
 * against a process reading CAN_RAW itself; skind's CPU with many clients
 *
 *	skind_bench --ifname vcan0 --board 14 --triangles 0x0f1f --part left_hand
 *	            --pid SKIND_PID [--samples N] [--period-ms P] [--fanout N]
 *	            [--from frame|publish] [--socket PATH] [--shm PATH]
 *	            [--only raw|socket|shm|follow]
 *	skind_bench --ifname none --seconds S --from publish --part PART ...
 *
 * One process, one run, one machine (the VM): a sender thread plays one
 * board on IFNAME (a head and a tail per enabled triangle, back to back,
 * every period; values noLoad with noise), and at the same time
 *
 *  - raw:    a thread reading CAN_RAW with the driver's filter and
 *            assembling the samples itself: latency = when it has the
 *            sample - when the sender sent the sample's last frame;
 *  - socket: a subscriber of skind (`subscribe taxels PART`): latency =
 *            when the line arrives - the line's FRAME_TS_NS (the driver's
 *            receive time of that last frame);
 *  - shm:    a thread watching the part's seqlock in skind's shared memory
 *            (polling every 20 us; the --fanout crowd polls at 100 Hz):
 *            latency = when it sees the publication
 *            - the block's frame_ts_ns;
 *  - follow: a follower (skin/follow.h: woken by `subscribe samples all`,
 *            copying from the shared memory): latency = when its SAMPLE
 *            callback runs - the copy's frame_ts_ns.
 *
 * Each line's arrival is also taken from the publication's time
 * (*_from_publish), and the subscriber's lines give skind's own hop,
 * FRAME_TS_NS to PUBLISH_NS (skind_hop): one run splits each path in two.
 * --only runs one measured reader and no other, so that on one CPU (the
 * VM under -icount) a reader's latency is not the others' work.
 *
 * --from publish subtracts the publication's time (PUBLISH_NS,
 * publish_ns) instead: skind's hop to each client alone.  --ifname none
 * plays no board and reads no CAN (skind reads ring files someone else
 * writes, natively): the three skind paths for --seconds.
 *
 * All times are CLOCK_MONOTONIC in the same machine; on vcan the sender's
 * send and the driver's receive are the same system call, so the three
 * start from the same instant.  Then, with --fanout N, skind's CPU time
 * (utime + stime of /proc/PID/stat) over the same traffic without clients
 * and with N more socket subscribers and N more shm readers.  Prints
 * "BENCH key=value ..." lines; asserts nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/can.h>
#include <linux/can/raw.h>

#include <skin/client.h>
#include <skin/follow.h>

#include "measure.h"

#define MAX_SAMPLES	100000

static struct {
	const char *ifname, *part, *sock, *shm;
	int board, pid, samples, period_ms, fanout, seconds;
	unsigned int triangles;
	bool from_publish;		/* else from the last frame's time */
	bool no_can;			/* --ifname none */
	const char *only;		/* one measured reader, the others off */
} o = {
	.ifname = "vcan0", .part = "left_hand", .board = 14, .samples = 1000,
	.period_ms = 10, .triangles = 0xffff,
};

static uint64_t sent_ns[MAX_SAMPLES];
static int n_sent;
static volatile bool stop;
static bool measuring;		/* the follower's: after its attachment */

static int can_socket(bool filter)
{
	struct sockaddr_can addr = { .can_family = AF_CAN };
	struct can_filter f = {
		.can_id = (uint32_t)(4 << 8 | o.board << 4), .can_mask = 0x7f0 | CAN_EFF_FLAG | CAN_RTR_FLAG,
	};
	int s = socket(PF_CAN, SOCK_RAW, CAN_RAW);

	if (s < 0)
		return -1;
	addr.can_ifindex = (int)if_nametoindex(o.ifname);
	if (filter)
		setsockopt(s, SOL_CAN_RAW, CAN_RAW_FILTER, &f, sizeof(f));
	else
		setsockopt(s, SOL_CAN_RAW, CAN_RAW_FILTER, NULL, 0);	/* send only */
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static void *sender(void *arg)
{
	int s = can_socket(false), k, t;
	uint32_t rng = 1;
	uint64_t next = clock_monotonic_ns();

	(void)arg;
	if (s < 0) {
		perror("skind_bench: CAN socket");
		exit(1);
	}
	for (k = 0; k < o.samples && !stop; k++) {
		next += (uint64_t)o.period_ms * 1000000ull;
		for (t = 0; t < 16; t++) {
			struct can_frame f = { 0 };
			int i;

			if (!(o.triangles & (1u << t)))
				continue;
			for (i = 0; i < 2; i++) {
				/* the sample's last frame: its time, then the frame */
				if (i && !(o.triangles >> (t + 1))) {
					sent_ns[k] = clock_monotonic_ns();
					__atomic_store_n(&n_sent, k + 1, __ATOMIC_RELEASE);
				}
				int c;

				f.can_id = (canid_t)(4 << 8 | o.board << 4 | t);
				f.len = 8;
				f.data[0] = i ? 0xc0 : 0x40;
				for (c = 1; c < 8; c++) {
					rng = rng * 1103515245u + 12345u;
					f.data[c] = (uint8_t)(240 - (rng >> 16) % 3);
				}
				if (i) {
					f.data[6] = 0;	/* diagnostics word: OK */
					f.data[7] = 0;
				}
				if (write(s, &f, sizeof(f)) != sizeof(f))
					perror("skind_bench: send");
			}
		}
		clock_sleep_until_mono(next, NULL);
	}
	close(s);
	return NULL;
}

struct lat {
	const char *name;
	uint64_t v[MAX_SAMPLES];
	int n;
};

/*
 * skind_hop: FRAME_TS_NS to PUBLISH_NS of each line the subscriber gets
 * (skind's wakeup, ring read and processing); *_pub: the same arrivals
 * from PUBLISH_NS (the hop from skind to the client), whatever --from
 * says, so that one run splits each path's latency in two.
 */
static struct lat raw = { .name = "raw" }, sock_lat = { .name = "socket" },
		  shm_lat = { .name = "shm" }, follow_lat = { .name = "follow" },
		  skind_hop = { .name = "skind_hop" }, sock_pub = { .name = "socket_from_publish" },
		  shm_pub = { .name = "shm_from_publish" },
		  follow_pub = { .name = "follow_from_publish" };

static void add(struct lat *l, int64_t ns)
{
	if (l->n < MAX_SAMPLES && ns >= 0)
		l->v[l->n++] = (uint64_t)ns;
}

/* One arrival at time t of a publication made at pts of a frame at fts. */
static void arrived(struct lat *from, struct lat *pub, uint64_t t, uint64_t fts, uint64_t pts)
{
	add(from, (int64_t)(t - (o.from_publish ? pts : fts)));
	if (!o.from_publish)
		add(pub, (int64_t)(t - pts));
}

/* The straightforward user-space reader: the driver's filter, its assembly. */
static void *raw_reader(void *arg)
{
	int s = can_socket(true), k = 0;
	uint16_t head = 0, tail = 0;

	(void)arg;
	while (!stop && k < o.samples) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		struct can_frame f;

		if (poll(&p, 1, 200) <= 0)
			continue;
		if (read(s, &f, sizeof(f)) != sizeof(f))
			continue;
		if (f.data[0] == 0x40)
			head |= (uint16_t)(1u << (f.can_id & 0xf));
		else if (f.data[0] == 0xc0)
			tail |= (uint16_t)(1u << (f.can_id & 0xf));
		if ((head & tail) == o.triangles) {
			uint64_t t = clock_monotonic_ns();
			int last = __atomic_load_n(&n_sent, __ATOMIC_ACQUIRE) - 1;

			if (last >= 0)
				add(&raw, (int64_t)(t - sent_ns[last]));
			k++;
			head = tail = 0;
		}
	}
	close(s);
	return NULL;
}

static void *socket_reader(void *arg)
{
	struct skin_client *c = arg;
	const char *line;

	while (!stop) {
		int r = skin_client_read_line(c, &line, 200);
		unsigned long long sample, fts, pts;
		uint64_t t = clock_monotonic_ns();
		char part[64];

		if (r < 0)
			break;
		if (r == 0)
			continue;
		if (sscanf(line, "taxels %63s %llu %llu %llu", part, &sample, &fts, &pts) == 4) {
			arrived(&sock_lat, &sock_pub, t, fts, pts);
			if (!o.from_publish)
				add(&skind_hop, (int64_t)(pts - fts));
		}
	}
	return NULL;
}

struct shm_reader {
	struct skin_shm_map *m;
	int part;
	struct lat *lat;	/* NULL: a fan-out reader, not measured */
	struct lat *pub;
	unsigned long reads;
};

static void *shm_reader(void *arg)
{
	struct shm_reader *r = arg;
	const struct skin_shm_part_desc *d = skin_shm_part(r->m, (unsigned int)r->part);
	const struct skin_shm_part *sp = (const void *)((const char *)r->m->base + d->offset);
	char *buf = malloc(d->size);
	/* not the publication there when the phase starts: it is old */
	uint64_t last = __atomic_load_n(&sp->seq, __ATOMIC_ACQUIRE);
	struct timespec nap = { 0, r->lat ? 20000 : 10000000 };	/* crowd: 100 Hz */

	while (!stop) {
		uint64_t seq = __atomic_load_n(&sp->seq, __ATOMIC_ACQUIRE);

		if (seq != last && !(seq & 1) &&
		    !skin_shm_read_part(r->m, (unsigned int)r->part, buf, 100)) {
			uint64_t t = clock_monotonic_ns();
			const struct skin_shm_part *h = skin_shm_head(buf);

			last = h->seq;
			r->reads++;
			if (r->lat && h->frame_ts_ns)
				arrived(r->lat, r->pub, t, h->frame_ts_ns, h->publish_ns);
		}
		nanosleep(&nap, NULL);
	}
	free(buf);
	return NULL;
}

static void on_follow(struct skin_follow *f, enum skin_follow_event ev,
		      const struct skin_follow_sample *s, void *data)
{
	const struct skin_shm_part *h;
	uint64_t t = clock_monotonic_ns();

	(void)f;
	(void)data;
	if (ev != SKIN_FOLLOW_SAMPLE || !__atomic_load_n(&measuring, __ATOMIC_ACQUIRE) ||
	    strcmp(skin_shm_part(s->map, s->part)->name, o.part))
		return;
	h = skin_shm_head(s->block);
	if (h->frame_ts_ns)
		arrived(&follow_lat, &follow_pub, t, h->frame_ts_ns, h->publish_ns);
}

/* A follower as a bridge runs one: poll, dispatch. */
static void *follow_reader(void *arg)
{
	struct skin_follow_options fo = { .socket = o.sock };
	struct skin_follow *f;
	int r;

	(void)arg;
	r = skin_follow_new(&f, &fo);
	if (r < 0) {
		fprintf(stderr, "skind_bench: follower: %s\n", strerror(-r));
		exit(1);
	}
	while (!stop) {
		struct pollfd p = { skin_follow_fd(f), POLLIN, 0 };
		int t = skin_follow_timeout_ms(f);

		poll(&p, 1, t < 0 || t > 200 ? 200 : t);
		skin_follow_dispatch(f, on_follow, NULL);
	}
	skin_follow_free(f);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *phase, struct lat *l)
{
	double sum = 0;
	int i;

	if (!l->n) {
		printf("BENCH phase=%s path=%s n=0\n", phase, l->name);
		return;
	}
	qsort(l->v, (size_t)l->n, sizeof(l->v[0]), cmp);
	for (i = 0; i < l->n; i++)
		sum += (double)l->v[i];
	printf("BENCH phase=%s path=%s n=%d mean_us=%.1f median_us=%.1f p99_us=%.1f max_us=%.1f\n",
	       phase, l->name, l->n, sum / l->n / 1e3, (double)l->v[l->n / 2] / 1e3,
	       (double)l->v[(int)(l->n * 0.99)] / 1e3, (double)l->v[l->n - 1] / 1e3);
	l->n = 0;
}

static double cpu_s(int pid)
{
	unsigned long ut = 0, st = 0;
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return 0;
	}
	fclose(f);
	p = strrchr(buf, ')');
	/* fields 14 and 15 after "pid (comm)" */
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st);
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* One phase: traffic for --samples periods, the measured readers on. */
/* --only: is this reader on? */
static bool on(const char *path)
{
	return !o.only || !strcmp(o.only, path);
}

static void phase(const char *name, struct skin_shm_map *m, int part)
{
	pthread_t ts, tr, tk, tm, tf;
	struct skin_client *c = NULL;
	struct shm_reader sr = { m, part, &shm_lat, &shm_pub, 0 };
	double c0, c1;
	uint64_t t0, t1;
	char cmd[128], why[256];
	int err;

	/* (skind_hop comes from the subscriber's lines) */
	if (on("socket")) {
		c = skin_client_connect(o.sock, &err);
		if (!c) {
			fprintf(stderr, "skind_bench: %s: %s\n", o.sock ? o.sock : "socket",
				strerror(-err));
			exit(1);
		}
		snprintf(cmd, sizeof(cmd), "subscribe taxels %s", o.part);
		if (skin_client_command(c, cmd, NULL, NULL, why, sizeof(why)) < 0) {
			fprintf(stderr, "skind_bench: %s: %s\n", cmd, why);
			exit(1);
		}
	}
	stop = false;
	__atomic_store_n(&n_sent, 0, __ATOMIC_RELEASE);
	if (!o.no_can && on("raw"))
		pthread_create(&tr, NULL, raw_reader, NULL);
	if (c)
		pthread_create(&tk, NULL, socket_reader, c);
	if (on("shm"))
		pthread_create(&tm, NULL, shm_reader, &sr);
	if (on("follow"))
		pthread_create(&tf, NULL, follow_reader, NULL);
	usleep(200000);
	/* not the copies its attachment brings: they are not fresh */
	__atomic_store_n(&measuring, true, __ATOMIC_RELEASE);
	c0 = cpu_s(o.pid);
	t0 = clock_monotonic_ns();
	if (o.no_can) {
		clock_sleep_until_mono(t0 + (uint64_t)o.seconds * 1000000000ull, NULL);
	} else {
		pthread_create(&ts, NULL, sender, NULL);
		pthread_join(ts, NULL);
	}
	t1 = clock_monotonic_ns();
	c1 = cpu_s(o.pid);
	usleep(300000);
	stop = true;
	if (!o.no_can && on("raw"))
		pthread_join(tr, NULL);
	if (c)
		pthread_join(tk, NULL);
	if (on("shm"))
		pthread_join(tm, NULL);
	if (on("follow"))
		pthread_join(tf, NULL);
	__atomic_store_n(&measuring, false, __ATOMIC_RELEASE);
	if (c)
		skin_client_close(c);
	if (o.no_can)
		printf("BENCH phase=%s skind_cpu_pct=%.2f seconds=%.2f from=%s\n",
		       name, 100.0 * (c1 - c0) / ((double)(t1 - t0) / 1e9),
		       (double)(t1 - t0) / 1e9, o.from_publish ? "publish" : "frame");
	else
		printf("BENCH phase=%s skind_cpu_pct=%.2f skind_cpu_us_per_sample=%.1f seconds=%.2f samples=%d from=%s\n",
		       name, 100.0 * (c1 - c0) / ((double)(t1 - t0) / 1e9),
		       (c1 - c0) * 1e6 / o.samples, (double)(t1 - t0) / 1e9, o.samples,
		       o.from_publish ? "publish" : "frame");
	if (!o.no_can)
		report(name, &raw);
	report(name, &sock_lat);
	report(name, &shm_lat);
	report(name, &follow_lat);
	if (!o.from_publish) {
		report(name, &skind_hop);
		report(name, &sock_pub);
		report(name, &shm_pub);
		report(name, &follow_pub);
	}
	fflush(stdout);
}

/* N more subscribers (one thread reading them all) and N more shm readers */
struct crowd {
	struct skin_client **c;
	pthread_t *shm_threads;
	struct shm_reader *readers;
	pthread_t sock_thread;
	unsigned long lines;
};

static void *crowd_reader(void *arg)
{
	struct crowd *cr = arg;
	struct pollfd *p = calloc((size_t)o.fanout, sizeof(*p));
	int i;

	for (i = 0; i < o.fanout; i++) {
		p[i].fd = skin_client_fd(cr->c[i]);
		p[i].events = POLLIN;
	}
	while (!stop) {
		if (poll(p, (nfds_t)o.fanout, 200) <= 0)
			continue;
		for (i = 0; i < o.fanout; i++) {
			const char *line;

			if (!(p[i].revents & POLLIN))
				continue;
			while (skin_client_read_line(cr->c[i], &line, 0) > 0)
				cr->lines++;
		}
	}
	free(p);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ifname", 1, NULL, 'i' }, { "board", 1, NULL, 'b' },
		{ "triangles", 1, NULL, 't' }, { "part", 1, NULL, 'p' },
		{ "pid", 1, NULL, 'P' }, { "samples", 1, NULL, 'n' },
		{ "period-ms", 1, NULL, 'T' }, { "fanout", 1, NULL, 'f' },
		{ "socket", 1, NULL, 's' }, { "shm", 1, NULL, 'm' },
		{ "from", 1, NULL, 'F' }, { "seconds", 1, NULL, 'S' },
		{ "only", 1, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct skin_shm_map m;
	struct crowd cr = { 0 };
	int c, part, i, err;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i': o.ifname = optarg; break;
		case 'b': o.board = atoi(optarg); break;
		case 't': o.triangles = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'p': o.part = optarg; break;
		case 'P': o.pid = atoi(optarg); break;
		case 'n': o.samples = atoi(optarg); break;
		case 'T': o.period_ms = atoi(optarg); break;
		case 'f': o.fanout = atoi(optarg); break;
		case 's': o.sock = optarg; break;
		case 'm': o.shm = optarg; break;
		case 'F': o.from_publish = !strcmp(optarg, "publish"); break;
		case 'S': o.seconds = atoi(optarg); break;
		case 'o': o.only = optarg; break;
		default: return 2;
		}
	}
	if (o.samples > MAX_SAMPLES)
		o.samples = MAX_SAMPLES;
	o.no_can = !strcmp(o.ifname, "none");
	if (o.only && !on("raw") && !on("socket") && !on("shm") && !on("follow")) {
		fprintf(stderr, "skind_bench: --only raw|socket|shm|follow, not %s\n", o.only);
		return 2;
	}
	if (o.no_can && o.seconds <= 0)
		o.seconds = 10;
	err = skin_shm_open(&m, o.shm);
	if (err < 0 || (part = skin_shm_find_part(&m, o.part)) < 0) {
		fprintf(stderr, "skind_bench: shm or part %s: %s\n", o.part, strerror(-err));
		return 1;
	}
	phase("alone", &m, part);
	if (o.fanout <= 0)
		return 0;

	cr.c = calloc((size_t)o.fanout, sizeof(*cr.c));
	cr.shm_threads = calloc((size_t)o.fanout, sizeof(*cr.shm_threads));
	cr.readers = calloc((size_t)o.fanout, sizeof(*cr.readers));
	for (i = 0; i < o.fanout; i++) {
		char cmd[128], why[256];

		cr.c[i] = skin_client_connect(o.sock, &err);
		snprintf(cmd, sizeof(cmd), "subscribe taxels %s", o.part);
		if (cr.c[i])
			err = skin_client_command(cr.c[i], cmd, NULL, NULL, why, sizeof(why));
		if (err < 0) {
			fprintf(stderr, "skind_bench: subscriber %d: %s\n", i,
				err == -EPROTO ? why : strerror(-err));
			return 1;
		}
		cr.readers[i] = (struct shm_reader){ &m, part, NULL, NULL, 0 };
	}
	stop = false;
	pthread_create(&cr.sock_thread, NULL, crowd_reader, &cr);
	for (i = 0; i < o.fanout; i++)
		pthread_create(&cr.shm_threads[i], NULL, shm_reader, &cr.readers[i]);
	/* phase() clears stop and sets it at its end: the crowd ends with it */
	phase("fanout", &m, part);
	stop = true;
	pthread_join(cr.sock_thread, NULL);
	for (i = 0; i < o.fanout; i++)
		pthread_join(cr.shm_threads[i], NULL);
	printf("BENCH phase=fanout subscribers=%d shm_readers=%d lines_read=%lu\n",
	       o.fanout, o.fanout, cr.lines);
	for (i = 0; i < o.fanout; i++)
		skin_client_close(cr.c[i]);
	skin_shm_close(&m);
	return 0;
}
