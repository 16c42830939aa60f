// SPDX-License-Identifier: GPL-2.0
/*
 * offline.c - the boards without a bus: ring files (--ring), candump
 * logs (--log) and the ETH boards' datagrams (--pcap, --eth: eth.c)
 *
 * Every board streams from time 0 as the driver would have configured it
 * (board_for_offline()); sample k of a board is taken at (k - 1) x its
 * period.  Boards are served in time order.  Each bus carries one frame
 * at a time, FRAME_NS each (a classic 8-byte frame at 1 Mbit/s with its
 * stuff bits): a board's frames queue behind those of the boards before
 * it on the same bus, so the timestamps of a bus only go forwards, as in
 * a capture, and a bus that is overloaded shows it.  Frames are emitted in
 * timestamp order across buses: those of a sample are held until no later
 * sample can come before them.  In real time (the default) each frame
 * waits for its time on CLOCK_MONOTONIC; with --fast nothing waits and
 * the timestamps are the schedule's.
 */
#include <stdlib.h>
#include <string.h>

#include "skinsim.h"

#define FRAME_NS	120000ULL

/* A frame on the bus of patch i: to the log, to every ring file of that
 * bus (each ring's driver filter keeps its own board's frames) and to the
 * ETH board whose CAN port the bus is. */
static int emit(struct run *r, unsigned int i, const struct can_frame *cf,
		uint64_t t_off, uint64_t epoch, uint64_t t0_mono)
{
	const char *bus = skin_sim_patch(r->sim, i)->bus;
	unsigned int j;

	if (log_frame(r, bus, cf, epoch + t_off) || eth_frame(r, i, cf))
		return -1;
	if (r->rings)
		for (j = 0; j < skin_sim_patches(r->sim); j++)
			if (!strcmp(skin_sim_patch(r->sim, j)->bus, bus))
				skin_sim_ring_rx(r->rings[j], cf, t0_mono + t_off);
	return 0;
}

struct pending {
	uint64_t ts;		/* from the start */
	uint64_t seq;		/* order of generation, for ties */
	unsigned int patch;
	struct can_frame cf;
};

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Emit, in time order, the held frames earlier than until. */
static int flush(struct run *r, struct pending *p, unsigned int *n,
		 uint64_t until, uint64_t epoch, uint64_t t0_mono)
{
	unsigned int i, k;

	if (*n > 1)	/* (p is NULL until a frame is held) */
		qsort(p, *n, sizeof(*p), cmp_pending);
	for (i = 0; i < *n && p[i].ts < until && !skinsim_stop; i++) {
		/* the datagrams before it go first: it is in a later one */
		if (eth_advance(r, p[i].ts, epoch, t0_mono))
			return -1;
		if (!r->o->fast)
			clock_sleep_until_mono(t0_mono + p[i].ts, &skinsim_stop);
		if (emit(r, p[i].patch, &p[i].cf, p[i].ts, epoch, t0_mono))
			return -1;
	}
	for (k = 0; i < *n; i++, k++)
		p[k] = p[i];
	*n = k;
	return 0;
}

int run_offline(struct run *r)
{
	unsigned int n = skin_sim_patches(r->sim), i, j, t, npend = 0, cap = 0;
	struct skin_sim_board *boards = calloc(n, sizeof(*boards));
	uint64_t *k = calloc(n, sizeof(*k));
	uint64_t *bus_free = calloc(n, sizeof(*bus_free));
	unsigned int *bus = calloc(n, sizeof(*bus));
	struct pending *pend = NULL;
	struct skin_sim_sample smp;
	uint64_t t0_mono, epoch, samples = 0, frames = 0, seq = 0, extra_lost = 0;
	int status = 1;

	if (!boards || !k || !bus_free || !bus)
		goto out;
	if (r->o->fast && !r->duration_ns) {
		fprintf(stderr, "skinsim: --fast needs a duration (the scenario's or --duration)\n");
		goto out;
	}
	for (i = 0; i < n; i++) {
		board_for_offline(r, i, &boards[i]);
		k[i] = 1;
		for (j = 0; j < i; j++)
			if (!strcmp(skin_sim_patch(r->sim, j)->bus,
				    skin_sim_patch(r->sim, i)->bus))
				break;
		bus[i] = j;	/* the first patch of the bus names it */
	}
	t0_mono = clock_monotonic_ns();
	epoch = r->o->have_epoch ? r->o->epoch_ns : clock_realtime_ns();

	while (!skinsim_stop) {
		uint64_t t_best = UINT64_MAX;
		unsigned int best = 0, nf = 0;
		struct can_frame cf[SKIN_SIM_FRAMES_MAX + SKIN_SIM_EXTRA_MAX];

		for (i = 0; i < n; i++) {
			uint64_t ti = (k[i] - 1) * boards[i].period_ms * 1000000ULL;

			if (ti < t_best) {
				t_best = ti;
				best = i;
			}
		}
		/* nothing generated from now on goes out before t_best */
		if (flush(r, pend, &npend, t_best, epoch, t0_mono))
			goto out;
		if (r->duration_ns && t_best >= r->duration_ns)
			break;
		if (eth_advance(r, t_best, epoch, t0_mono))
			goto out;
		if (!r->o->fast)
			clock_sleep_until_mono(t0_mono + t_best, &skinsim_stop);
		if (skinsim_stop)
			break;
		if (r->rings)
			for (j = 0; j < n; j++)
				skin_sim_ring_tick(r->rings[j], t0_mono + t_best);

		i = best;
		skin_sim_sample(r->sim, i, &boards[i], k[i], t_best, &smp);
		if (write_truth_sample(r, &boards[i], &smp)) {
			fprintf(stderr, "skinsim: %s: write error\n", r->o->truth);
			goto out;
		}
		for (t = 0; t < SKIN_SIM_TRIANGLES; t++) {
			if (smp.send_head & (1U << t))
				skin_sim_encode_half(r->o->cls, boards[i].address, t,
						     false, smp.values, smp.diag[t],
						     &cf[nf++]);
			if (smp.send_tail & (1U << t))
				skin_sim_encode_half(r->o->cls, boards[i].address, t,
						     true, smp.values, smp.diag[t],
						     &cf[nf++]);
		}
		for (j = 0; j < smp.n_extra; j++)
			cf[nf++] = smp.extra[j];
		extra_lost += smp.extra_lost;
		if (npend + nf > cap) {
			struct pending *np;

			cap = 2 * (npend + nf);
			np = realloc(pend, cap * sizeof(*np));
			if (!np)
				goto out;
			pend = np;
		}
		for (j = 0; j < nf; j++) {
			uint64_t ts = bus_free[bus[i]] > t_best ? bus_free[bus[i]] : t_best;

			bus_free[bus[i]] = ts + FRAME_NS;
			pend[npend].ts = ts;
			pend[npend].seq = seq++;
			pend[npend].patch = i;
			pend[npend].cf = cf[j];
			npend++;
		}
		frames += nf;
		samples++;
		k[i]++;
	}
	if (flush(r, pend, &npend, UINT64_MAX, epoch, t0_mono) ||
	    eth_finish(r, epoch, t0_mono))
		goto out;
	if (r->rings)
		for (j = 0; j < n; j++)
			skin_sim_ring_flush(r->rings[j]);
	if (extra_lost)
		fprintf(stderr, "skinsim: %llu fault frames not sent (more than %d in one period)\n",
			(unsigned long long)extra_lost, SKIN_SIM_EXTRA_MAX);
	if (r->o->verbose)
		fprintf(stderr, "skinsim: %llu samples, %llu frames\n",
			(unsigned long long)samples, (unsigned long long)frames);
	status = 0;
out:
	free(boards);
	free(k);
	free(bus_free);
	free(bus);
	free(pend);
	return status;
}
