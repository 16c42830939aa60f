// SPDX-License-Identifier: GPL-2.0
/*
 * ring_reader.c - read the samples of skin patches from their mapped rings
 *
 * Side (a) of the ring-versus-raw benchmark (docs/PERFORMANCE.md): maps
 * /dev/skin/NAME devices read-only with <skin/ring.h>, waits for all of
 * them with one epoll (as skind's sd-event loop does: the cost of a wakeup
 * does not grow with the number of devices) and, after each EPOLLIN,
 * drains that ring to its
 * head (for a mapped file POLLIN means "frames were published since poll()
 * last said POLLIN", so a reader that stops early could sleep on frames
 * already there).  It counts the samples, the partial ones, and the
 * samples overwritten before it got to them.
 *
 *   ring_reader [--duration SEC] [--tick MS] [--wakeup N[,USEC[,FLAGS]]]
 *               [--latency] [--read] DEVICE...
 *
 * --tick MS: instead of waking on every new frame, wake every MS
 * milliseconds and drain every ring, as a control loop at a fixed rate
 * would.
 * --wakeup N,USEC: moderate the devices' wakeups (SKIN_IOC_SET_WAKEUP):
 * POLLIN once N frames are pending or the oldest waited USEC us.  FLAGS
 * (default 0) goes to the driver as it is, to test that it refuses what it
 * does not know.  Implies --latency.
 * --read: one device, read with blocking read() calls of up to 64 frames
 * instead of the mapping and epoll (each read() that returns is a wakeup):
 * how a moderated blocking reader behaves.
 * --latency: on each drain, measure how long the frames waited since their
 * timestamp (the last CAN frame of the sample): latency_max_us and
 * latency_mean_us.  Off by default: the clock read is a cost of its own.
 *
 * The last line of output is key=value pairs: frames is the CAN frames the
 * driver accepted for these patches during the run (their counters in the
 * control page), lost the samples this reader missed, cpu_us its user plus
 * system time while reading (getrusage), cpu_ns_per_sample that over the
 * samples read, wakeups the epoll_wait() calls (or ticks) that returned
 * events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <skin/ring.h>

#include "measure.h"

#define MAX_DEVICES	64

struct dev {
	const char *path;
	struct skin_ring_map map;
	uint64_t samples, partial, repeat, timeout;
	uint64_t rx0;	/* accepted CAN frames at start */
	uint64_t rx;	/* ... during the run */
};

static struct dev devs[MAX_DEVICES];
static unsigned int ndevs;
static volatile sig_atomic_t stop;
static bool latency;
static uint64_t latency_max_ns, latency_sum_ns;

static uint64_t rx_frames(const struct dev *d)
{
	const volatile __u64 *s = d->map.ctrl->stats;

	return s[SKIN_RX_HEAD] + s[SKIN_RX_TAIL];
}

static void drain(struct dev *d)
{
	uint64_t now = latency ? clock_monotonic_ns() : 0;
	struct skin_frame f;

	while (skin_ring_map_next(&d->map, &f) > 0) {
		if (latency) {
			uint64_t lat = now > f.timestamp_ns ?
				       now - f.timestamp_ns : 0;

			latency_sum_ns += lat;
			if (lat > latency_max_ns)
				latency_max_ns = lat;
		}
		d->samples++;
		if (f.flags & SKIN_FRAME_PARTIAL)
			d->partial++;
		if (f.flags & SKIN_FRAME_REPEAT)
			d->repeat++;
		if (f.flags & SKIN_FRAME_TIMEOUT)
			d->timeout++;
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: ring_reader [--duration SEC] [--tick MS] "
		"[--wakeup N[,USEC[,FLAGS]]] [--latency] [--read] DEVICE...\n");
	exit(2);
}

/* N[,USEC[,FLAGS]] */
static int parse_wakeup(const char *arg, struct skin_wakeup *w)
{
	unsigned long v[3] = { 0, 0, 0 };
	const char *p = arg;
	unsigned int i;
	char *end;

	for (i = 0; i < 3; i++) {
		errno = 0;
		v[i] = strtoul(p, &end, 0);
		if (errno || end == p || v[i] > UINT32_MAX)
			return -1;
		if (!*end)
			break;
		if (*end != ',' || i == 2)
			return -1;
		p = end + 1;
	}
	memset(w, 0, sizeof(*w));
	w->frames = (uint32_t)v[0];
	w->usecs = (uint32_t)v[1];
	w->flags = (uint32_t)v[2];
	return 0;
}

static int set_wakeup(struct dev *d, struct skin_wakeup *w)
{
	if (!w->flags)
		return skin_ring_map_set_wakeup(&d->map, w->frames, w->usecs);
	/* only to see the driver refuse flags it does not know */
	return ioctl(d->map.fd, SKIN_IOC_SET_WAKEUP, w) < 0 ? -errno : 0;
}

/*
 * --read: blocking read()s of one device until the duration is over
 * (SIGALRM, installed without SA_RESTART, interrupts the read()) or the
 * patch is gone (0).  lost counts the gaps in seq.
 */
static int read_loop(const char *path, const struct skin_wakeup *w,
		     bool moderate, unsigned long duration)
{
	static struct skin_frame buf[64];
	uint64_t samples = 0, lost = 0, wakeups = 0, last = 0, c0, cpu;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool eof = false;

	if (fd < 0) {
		fprintf(stderr, "ring_reader: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (moderate && ioctl(fd, SKIN_IOC_SET_WAKEUP, w) < 0) {
		fprintf(stderr, "ring_reader: %s: wakeup %u,%u,%u: %s\n", path,
			w->frames, w->usecs, w->flags, strerror(errno));
		close(fd);
		return 1;
	}
	c0 = bench_cpu_us();
	alarm((unsigned int)duration);
	while (!stop && duration) {
		ssize_t n = read(fd, buf, sizeof(buf));
		uint64_t now = clock_monotonic_ns();
		size_t i;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "ring_reader: %s: read: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		wakeups++;
		for (i = 0; i < (size_t)n / sizeof(buf[0]); i++) {
			const struct skin_frame *f = &buf[i];
			uint64_t lat = now > f->timestamp_ns ?
				       now - f->timestamp_ns : 0;

			if (last && f->seq != last + 1)
				lost += f->seq - last - 1;
			last = f->seq;
			samples++;
			latency_sum_ns += lat;
			if (lat > latency_max_ns)
				latency_max_ns = lat;
		}
	}
	cpu = bench_cpu_us() - c0;
	close(fd);
	if (eof)
		fprintf(stderr, "ring_reader: %s: end of file (patch removed)\n",
			path);
	printf("devices=1 samples=%llu lost=%llu cpu_us=%llu "
	       "cpu_ns_per_sample=%.0f wakeups=%llu latency_max_us=%llu "
	       "latency_mean_us=%.0f\n",
	       (unsigned long long)samples, (unsigned long long)lost,
	       (unsigned long long)cpu, samples ? cpu * 1000.0 / samples : 0.0,
	       (unsigned long long)wakeups,
	       (unsigned long long)(latency_max_ns / 1000),
	       samples ? latency_sum_ns / 1000.0 / samples : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	struct epoll_event ev[MAX_DEVICES];
	bool gone[MAX_DEVICES] = { false };
	uint64_t t0, t1, deadline, c0, c1, cpu, b0, b1;
	uint64_t samples = 0, partial = 0, repeat = 0, timeout = 0;
	uint64_t lost = 0, rx = 0, wakeups = 0;
	struct skin_wakeup wakeup = { .frames = 0 };
	bool moderate = false, use_read = false;
	unsigned long duration = 10, tick_ms = 0;
	unsigned int i, active;
	int k;
	struct sigaction sa;
	int a, ep;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		perror("ring_reader: epoll_create1");
		return 1;
	}
	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		const char *opt = argv[a];
		unsigned long v;
		char *end;

		if (!strcmp(opt, "--latency")) {
			latency = true;
			continue;
		}
		if (!strcmp(opt, "--read")) {
			use_read = true;
			continue;
		}
		if (!strcmp(opt, "--wakeup") && a + 1 < argc) {
			if (parse_wakeup(argv[++a], &wakeup)) {
				fprintf(stderr, "ring_reader: --wakeup: bad value '%s' (N[,USEC[,FLAGS]])\n",
					argv[a]);
				return 2;
			}
			latency = true;
			moderate = true;
			continue;
		}
		if ((strcmp(opt, "--duration") && strcmp(opt, "--tick")) ||
		    a + 1 >= argc)
			usage();
		errno = 0;
		v = strtoul(argv[++a], &end, 0);
		if (errno || !*argv[a] || *end || v > 86400) {
			fprintf(stderr, "ring_reader: %s: bad value '%s'\n",
				opt, argv[a]);
			return 2;
		}
		if (!strcmp(opt, "--tick"))
			tick_ms = v;
		else
			duration = v;
	}
	if (a == argc || argc - a > MAX_DEVICES || (use_read && argc - a > 1))
		usage();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (use_read)
		return read_loop(argv[a], &wakeup, moderate, duration);
	for (; a < argc; a++) {
		struct dev *d = &devs[ndevs];
		int err;

		d->path = argv[a];
		err = skin_ring_map_open(&d->map, d->path);
		if (err < 0) {
			fprintf(stderr, "ring_reader: %s: %s\n", d->path,
				err == -EPROTO ? "not a skin ring" :
				strerror(-err));
			return 1;
		}
		if (moderate) {
			err = set_wakeup(d, &wakeup);
			if (err < 0) {
				fprintf(stderr, "ring_reader: %s: wakeup %u,%u,%u: %s\n",
					d->path, wakeup.frames, wakeup.usecs,
					wakeup.flags, strerror(-err));
				return 1;
			}
		}
		d->rx0 = rx_frames(d);
		ev[0].events = EPOLLIN;
		ev[0].data.u32 = ndevs;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, d->map.fd, &ev[0]) < 0) {
			fprintf(stderr, "ring_reader: %s: epoll_ctl: %s\n",
				d->path, strerror(errno));
			return 1;
		}
		ndevs++;
	}
	active = ndevs;

	b0 = bench_busy_us();
	c0 = bench_cpu_us();
	t0 = clock_monotonic_ns();
	deadline = t0 + duration * 1000000000ull;
	while (!stop && active) {
		uint64_t now = clock_monotonic_ns();
		int n;

		if (now >= deadline)
			break;
		if (tick_ms) {
			clock_sleep_until_mono(now + tick_ms * 1000000ull, NULL);
			for (i = 0; i < ndevs; i++)
				drain(&devs[i]);
			wakeups++;
			continue;
		}
		n = epoll_wait(ep, ev, ndevs,
			       (int)((deadline - now) / 1000000) + 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("ring_reader: epoll_wait");
			return 1;
		}
		if (n > 0)
			wakeups++;
		for (k = 0; k < n; k++) {
			uint32_t e = ev[k].events;

			i = ev[k].data.u32;
			if (e & EPOLLIN)
				drain(&devs[i]);
			if (e & (EPOLLHUP | EPOLLERR)) {
				fprintf(stderr, "ring_reader: %s: %s, no longer read\n",
					devs[i].path, e & EPOLLHUP ?
					"patch removed" : "CAN interface gone");
				drain(&devs[i]);
				devs[i].rx = rx_frames(&devs[i]) - devs[i].rx0;
				epoll_ctl(ep, EPOLL_CTL_DEL, devs[i].map.fd, NULL);
				gone[i] = true;
				active--;
			}
		}
	}
	t1 = clock_monotonic_ns();
	c1 = bench_cpu_us();
	b1 = bench_busy_us();

	for (i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];

		if (!gone[i])
			d->rx = rx_frames(d) - d->rx0;
		fprintf(stderr, "ring_reader: %s: samples %llu (partial %llu, "
			"repeat %llu, timeout %llu), lost %llu, frames %llu\n",
			d->path, (unsigned long long)d->samples,
			(unsigned long long)d->partial,
			(unsigned long long)d->repeat,
			(unsigned long long)d->timeout,
			(unsigned long long)d->map.lost,
			(unsigned long long)d->rx);
		samples += d->samples;
		partial += d->partial;
		repeat += d->repeat;
		timeout += d->timeout;
		lost += d->map.lost;
		rx += d->rx;
		skin_ring_map_close(&d->map);
	}
	cpu = c1 - c0;
	printf("devices=%u samples=%llu partial=%llu repeat=%llu timeout=%llu "
	       "lost=%llu frames=%llu wall_s=%.3f cpu_us=%llu "
	       "cpu_ns_per_sample=%.0f cpu_ns_per_frame=%.0f "
	       "machine_busy_us=%llu wakeups=%llu",
	       ndevs, (unsigned long long)samples,
	       (unsigned long long)partial, (unsigned long long)repeat,
	       (unsigned long long)timeout, (unsigned long long)lost,
	       (unsigned long long)rx, (t1 - t0) / 1e9,
	       (unsigned long long)cpu,
	       samples ? cpu * 1000.0 / samples : 0.0,
	       rx ? cpu * 1000.0 / rx : 0.0, (unsigned long long)(b1 - b0),
	       (unsigned long long)wakeups);
	if (moderate)
		printf(" wakeup_frames=%u wakeup_usecs=%u", wakeup.frames,
		       wakeup.usecs);
	if (latency)
		printf(" latency_max_us=%llu latency_mean_us=%.0f",
		       (unsigned long long)(latency_max_ns / 1000),
		       samples ? latency_sum_ns / 1000.0 / samples : 0.0);
	printf("\n");
	return 0;
}
