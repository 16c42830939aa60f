// SPDX-License-Identifier: GPL-2.0
/*
 * can.c - the boards on SocketCAN
 *
 * One raw socket per interface, receiving only the commands to the boards
 * on it (id 0x200 | address); one timerfd per board, armed by
 * SET_TXMODE(on) at the board's configured period and disarmed by
 * SET_TXMODE(off); one epoll loop.  A board powers up silent and streams
 * exactly what it was configured to (skin_sim_board_command()).
 *
 * When the loop falls behind (a loaded machine, qemu without KVM), a timer
 * reports several expirations at once: the board sends the periods it
 * owes back to back, so no sample is skipped and the counts stay exact;
 * beyond MAX_BEHIND periods it gives up on the oldest and says so.
 */
#define _GNU_SOURCE	/* sendmmsg() */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <linux/can/raw.h>

#include "skinsim.h"

#define MAX_BEHIND	64

struct bus {
	char name[IFNAMSIZ];		/* the interface, mapped */
	const char *config_name;	/* as the config names it */
	int fd;
	bool down;			/* said that it is gone */
};

struct board {
	unsigned int patch;
	unsigned int bus;
	struct skin_sim_board b;
	int tfd;
	uint64_t k;			/* samples sent */
	uint64_t next_mono;		/* when the next sample is due */
	uint64_t frames, lost, skipped;
};

/*
 * A period's frames in one sendmmsg(): the board sends them back to back,
 * and a process preempted between two of them (a loaded machine, qemu)
 * would otherwise split a sample across the driver's 1.5-period timeout.
 * Returns the frames sent, or -1 on an error that ends the run; frames not
 * sent (the interface went away, its queue stayed full) are the caller's
 * to count as lost.
 */
static int send_frames(struct run *r, struct bus *bus, struct can_frame *cf,
		       unsigned int n)
{
	struct mmsghdr msgs[SKIN_SIM_FRAMES_MAX + SKIN_SIM_EXTRA_MAX];
	struct iovec iov[SKIN_SIM_FRAMES_MAX + SKIN_SIM_EXTRA_MAX];
	unsigned int done = 0, i, tries = 0;
	uint64_t now;

	memset(msgs, 0, n * sizeof(msgs[0]));
	for (i = 0; i < n; i++) {
		iov[i].iov_base = &cf[i];
		iov[i].iov_len = sizeof(cf[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (done < n) {
		struct pollfd p = { .fd = bus->fd, .events = POLLOUT };
		int k = sendmmsg(bus->fd, msgs + done, n - done, 0);

		if (k > 0) {
			bus->down = false;
			now = clock_realtime_ns();
			for (i = done; i < done + (unsigned int)k; i++)
				if (log_frame(r, bus->config_name, &cf[i], now))
					return -1;
			done += (unsigned int)k;
			tries = 0;
			continue;
		}
		if (errno == ENETDOWN || errno == ENODEV || errno == ENXIO) {
			/* unplugged or down: a board talks to nobody, and
			 * carries on when the bus is back */
			if (!bus->down)
				fprintf(stderr, "skinsim: %s: %s: frames lost until it is back\n",
					bus->name, strerror(errno));
			bus->down = true;
			break;
		}
		if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR) {
			fprintf(stderr, "skinsim: %s: sendmmsg: %s\n", bus->name,
				strerror(errno));
			return -1;
		}
		/* the interface's queue is full: wait a little */
		if (++tries > 50)
			break;
		if (poll(&p, 1, 2) < 0 && errno != EINTR)
			return -1;
	}
	return (int)done;
}

static int arm(struct board *bd, uint64_t first_mono)
{
	uint64_t period = (uint64_t)bd->b.period_ms * 1000000ULL;
	struct itimerspec its = {
		.it_interval = { .tv_sec = (time_t)(period / 1000000000ULL),
				 .tv_nsec = (long)(period % 1000000000ULL) },
		.it_value = { .tv_sec = (time_t)(first_mono / 1000000000ULL),
			      .tv_nsec = (long)(first_mono % 1000000000ULL) },
	};

	if (!first_mono)
		memset(&its, 0, sizeof(its));
	bd->next_mono = first_mono;
	return timerfd_settime(bd->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int send_sample(struct run *r, struct bus *bus, struct board *bd,
		       uint64_t origin)
{
	struct can_frame cf[SKIN_SIM_FRAMES_MAX + SKIN_SIM_EXTRA_MAX];
	struct skin_sim_sample smp;
	unsigned int t, j, n = 0;
	int sent;

	bd->k++;
	skin_sim_sample(r->sim, bd->patch, &bd->b, bd->k, bd->next_mono - origin,
			&smp);
	if (write_truth_sample(r, &bd->b, &smp)) {
		fprintf(stderr, "skinsim: %s: write error\n", r->o->truth);
		return -1;
	}
	for (t = 0; t < SKIN_SIM_TRIANGLES; t++)
		for (j = 0; j < 2; j++)
			if ((j ? smp.send_tail : smp.send_head) & (1U << t))
				skin_sim_encode_half(r->o->cls, bd->b.address, t, j,
						     smp.values, smp.diag[t],
						     &cf[n++]);
	for (j = 0; j < smp.n_extra; j++)
		cf[n++] = smp.extra[j];
	bd->lost += smp.extra_lost;	/* more fault frames than a sample holds */
	sent = send_frames(r, bus, cf, n);
	if (sent < 0)
		return -1;
	bd->frames += (unsigned int)sent;
	bd->lost += n - (unsigned int)sent;
	return 0;
}

static int open_bus(struct bus *bus, const struct board *boards, unsigned int n,
		    unsigned int index)
{
	struct can_filter f[SKIN_SIM_TRIANGLES * 16];
	struct sockaddr_can addr = { .can_family = AF_CAN };
	unsigned int i, nf = 0;

	bus->fd = socket(PF_CAN, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, CAN_RAW);
	if (bus->fd < 0) {
		fprintf(stderr, "skinsim: CAN socket: %s (is the can-raw module loaded?)\n",
			strerror(errno));
		return -1;
	}
	addr.can_ifindex = (int)if_nametoindex(bus->name);
	if (!addr.can_ifindex) {
		fprintf(stderr, "skinsim: %s: no such interface\n", bus->name);
		return -1;
	}
	for (i = 0; i < n && nf < sizeof(f) / sizeof(f[0]); i++) {
		if (boards[i].bus != index)
			continue;
		f[nf].can_id = 0x200u | boards[i].b.address;
		f[nf].can_mask = CAN_SFF_MASK | CAN_EFF_FLAG | CAN_RTR_FLAG;
		nf++;
	}
	if (setsockopt(bus->fd, SOL_CAN_RAW, CAN_RAW_FILTER, f,
		       (socklen_t)(nf * sizeof(f[0]))) < 0 ||
	    bind(bus->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "skinsim: %s: %s\n", bus->name, strerror(errno));
		return -1;
	}
	return 0;
}

static void command(struct run *r, struct board *boards, unsigned int n,
		    unsigned int bus, const struct can_frame *cf,
		    uint64_t *origin)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct board *bd = &boards[i];
		uint8_t period = bd->b.period_ms;
		bool was = bd->b.streaming;
		enum skin_sim_cmd c;
		uint64_t now;

		if (bd->bus != bus)
			continue;
		c = skin_sim_board_command(&bd->b, cf);
		if (c == SKIN_SIM_CMD_OTHER)
			continue;
		if (r->o->verbose)
			fprintf(stderr, "skinsim: %s: %s\n",
				skin_sim_patch(r->sim, bd->patch)->name,
				skin_sim_cmd_name(c));
		now = clock_monotonic_ns();
		if (c == SKIN_SIM_CMD_TX_ON) {
			if (!*origin)
				*origin = now;
			/* the first sample one period from now */
			arm(bd, now + bd->b.period_ms * 1000000ULL);
		} else if (c == SKIN_SIM_CMD_TX_OFF && was) {
			arm(bd, 0);
		} else if (c == SKIN_SIM_CMD_BRD_CFG && was &&
			   period != bd->b.period_ms) {
			arm(bd, now + bd->b.period_ms * 1000000ULL);
		}
	}
}

int run_can(struct run *r)
{
	unsigned int n = skin_sim_patches(r->sim), nb = 0, i, j;
	struct board *boards = calloc(n, sizeof(*boards));
	struct bus *buses = calloc(n, sizeof(*buses));
	struct epoll_event ev;
	uint64_t origin = 0;
	int ep = -1, status = 1;

	if (!boards || !buses)
		goto out;
	for (i = 0; i < n; i++) {
		const struct skin_sim_patch_info *p = skin_sim_patch(r->sim, i);

		for (j = 0; j < nb; j++)
			if (!strcmp(buses[j].config_name, p->bus))
				break;
		if (j == nb) {
			buses[nb].config_name = p->bus;
			snprintf(buses[nb].name, sizeof(buses[nb].name), "%s",
				 bus_map(r->o, p->bus));
			buses[nb].fd = -1;
			nb++;
		}
		boards[i].patch = i;
		boards[i].bus = j;
		boards[i].tfd = -1;
		skin_sim_board_init(&boards[i].b, p->address);
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		goto out;
	for (j = 0; j < nb; j++) {
		if (open_bus(&buses[j], boards, n, j))
			goto out;
		ev.events = EPOLLIN;
		ev.data.u64 = j;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, buses[j].fd, &ev) < 0)
			goto out;
	}
	for (i = 0; i < n; i++) {
		boards[i].tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		ev.events = EPOLLIN;
		ev.data.u64 = (uint64_t)1 << 32 | i;
		if (boards[i].tfd < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, boards[i].tfd, &ev) < 0)
			goto out;
	}
	if (r->o->verbose)
		fprintf(stderr, "skinsim: %u boards on %u interfaces, waiting for SET_TXMODE(on)\n",
			n, nb);

	while (!skinsim_stop) {
		struct epoll_event evs[16];
		int ne = epoll_wait(ep, evs, 16, 100), e;

		if (ne < 0 && errno != EINTR) {
			perror("skinsim: epoll_wait");
			goto out;
		}
		for (e = 0; e < ne; e++) {
			uint64_t id = evs[e].data.u64;

			if (id >> 32) {
				struct board *bd = &boards[(uint32_t)id];
				uint64_t exp, period = bd->b.period_ms * 1000000ULL;

				if (read(bd->tfd, &exp, sizeof(exp)) != sizeof(exp) ||
				    !bd->b.streaming)
					continue;
				if (exp > MAX_BEHIND) {
					bd->skipped += exp - MAX_BEHIND;
					bd->next_mono += (exp - MAX_BEHIND) * period;
					exp = MAX_BEHIND;
				}
				while (exp--) {
					if (r->duration_ns &&
					    bd->next_mono - origin >= r->duration_ns)
						break;
					if (send_sample(r, &buses[bd->bus], bd, origin))
						goto out;
					bd->next_mono += period;
				}
			} else {
				struct can_frame cf;

				/* (a failing read also clears a socket error:
				 * an interface that went away) */
				while (read(buses[id].fd, &cf, sizeof(cf)) == sizeof(cf))
					command(r, boards, n, (unsigned int)id, &cf,
						&origin);
			}
		}
		if (r->duration_ns && origin &&
		    clock_monotonic_ns() - origin >= r->duration_ns)
			break;
	}
	status = 0;
out:
	for (i = 0; boards && i < n; i++) {
		const struct board *bd = &boards[i];

		if (r->o->verbose || bd->lost || bd->skipped || bd->b.rejected)
			fprintf(stderr, "skinsim: %s (%s:%u): %u commands, %u malformed, %llu samples, %llu frames, %llu frames lost, %llu periods skipped\n",
				skin_sim_patch(r->sim, i)->name,
				buses[bd->bus].name, bd->b.address,
				bd->b.commands, bd->b.rejected,
				(unsigned long long)bd->k,
				(unsigned long long)bd->frames,
				(unsigned long long)bd->lost,
				(unsigned long long)bd->skipped);
		if (bd->tfd >= 0)
			close(bd->tfd);
	}
	for (j = 0; buses && j < nb; j++)
		if (buses[j].fd >= 0)
			close(buses[j].fd);
	if (ep >= 0)
		close(ep);
	free(boards);
	free(buses);
	return status;
}
