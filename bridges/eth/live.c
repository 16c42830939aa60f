// SPDX-License-Identifier: GPL-2.0
/*
 * live.c - skin-eth's live mode: the boards' datagrams off the wire,
 * beside the process that owns their port
 *
 * A packet socket (AF_PACKET, SOCK_DGRAM: packets from their IPv4
 * header) gets a copy of every IPv4 packet the kernel receives, on one
 * interface or all; the process bound to the UDP port (yarprobotinterface)
 * still gets every datagram.  A classic BPF program, run by the kernel
 * before anything is copied, keeps only UDP to or from the boards' port:
 * the host's other traffic costs no wake-up.  First fragments pass (they
 * carry the UDP header) and are counted, never published; the kernel
 * cannot tell later fragments' port, so they never reach us.  The filter
 * is attached before the socket is bound, so no unfiltered packet is
 * ever queued.  Only CAP_NET_RAW is needed.
 *
 * Packets are read in batches (recvmmsg), or with --ring-ms from a
 * TPACKET_V3 ring whose blocks the kernel hands over when full or after
 * the timeout (fewer wake-ups, later), and each goes the replay's way
 * (gateway_packet()), with the batch's CLOCK_REALTIME in the log.  Once
 * a second: interfaces that went away are bound again, the kernel's drop
 * count is read, the counters file is rewritten; every few seconds a
 * one-line STATUS= for systemd; SIGUSR1 prints every counter on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "gateway.h"
#include "service.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING	23
#endif

#define BATCH		16
#define PKT_MAX		65536		/* an IPv4 packet's largest */
#define BATCHES_PER_WAKE 8		/* then let the loop's other work run */
#define RCVBUF		(4 << 20)
#define TICK_US		1000000ull
/* --ring-ms: TPACKET_V3 blocks, any IPv4 packet fits one */
#define RING_BLOCK	(256u << 10)
#define RING_BLOCKS	16u
#define RING_FRAME	2048u

struct live {
	struct gateway *g;
	const struct live_opts *o;
	int fd;
	int count_fd;			/* FILTER_OTHERS's, or -1 */
	uint8_t *bufs;
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_ll from[BATCH];
	unsigned int ticks;
	bool said_recv_error;
	/* --ring-ms: the mapped ring and the next block to read */
	uint8_t *ring;
	unsigned int cur;
};

/*
 * The kernel's filters, for a SOCK_DGRAM packet socket (IPv4 at offset 0):
 * IPv4 UDP to or from @port (later fragments carry no UDP header: dropped),
 * then the source address decides.  FILTER_BOARDS takes the configured
 * boards' datagrams whole: the gateway reads them.  FILTER_OTHERS takes
 * one byte of every other source's, for a socket nobody reads: its
 * PACKET_STATISTICS count them (queued or, once its small buffer is
 * full, dropped before any copy), so that a datagram of a board missing
 * from the boards file, or of a spoofer, is counted exactly without
 * waking the gateway for the robot's motion-control boards, which send
 * a datagram a millisecond each like the skin's.  Over FILTER_MAX_BOARDS
 * boards (a jump reaches 255 instructions) the gateway's filter takes
 * every source and the receiver counts the foreign ones itself.
 */
#define FILTER_MAX_BOARDS	200

enum filter_kind { FILTER_ANY, FILTER_BOARDS, FILTER_OTHERS };

static int attach_filter(int fd, uint16_t port, const struct skin_eth_rx *rx,
			 enum filter_kind kind)
{
	unsigned int nb = kind == FILTER_ANY ? 0 : skin_eth_rx_n_boards(rx);
	/* the front (0-11), the source (12 on), then match, no match, drop */
	const unsigned int src = 12, match = 13 + nb, nomatch = 14 + nb, drop = 15 + nb;
	struct sock_filter code[16 + FILTER_MAX_BOARDS];
	struct sock_fprog prog = { .len = (unsigned short)(drop + 1), .filter = code };
	unsigned int i;

	if (nb > FILTER_MAX_BOARDS) {
		errno = E2BIG;
		return -1;
	}
#define J(pc, target)	((uint8_t)((target) - (pc) - 1))
	code[0] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0);
	code[1] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0);
	code[2] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, J(2, drop));
	code[3] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9);
	code[4] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, J(4, drop));
	code[5] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6);
	code[6] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, J(6, drop), 0);
	code[7] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0);
	code[8] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0);
	code[9] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, J(9, src), 0);
	code[10] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2);
	code[11] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, J(11, drop));
	/* the source address (a big-endian load: the address in host order) */
	code[src] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 12);
	for (i = 0; i < nb; i++) {
		unsigned int pc = src + 1 + i;

		code[pc] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			ntohl(skin_eth_rx_board(rx, i)->addr.s_addr),
			J(pc, match), i + 1 < nb ? 0 : J(pc, nomatch));
	}
	if (kind == FILTER_ANY)		/* no address to compare: all match */
		code[src] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, J(src, match));
	code[match] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						   kind == FILTER_OTHERS ? 0 : PKT_MAX);
	code[nomatch] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, kind == FILTER_OTHERS);
	code[drop] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
#undef J
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/* The receive ring (TPACKET_V3): the kernel fills blocks and hands one
 * over when it is full or @ms after its first packet, so one wake-up
 * takes every datagram of that time, with no copy and no system call per
 * batch; at the price of up to @ms of latency. */
static uint8_t *map_ring(int fd, unsigned int ms)
{
	int v = TPACKET_V3;
	struct tpacket_req3 req = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = RING_BLOCKS,
		.tp_frame_size = RING_FRAME,
		.tp_frame_nr = RING_BLOCK / RING_FRAME * RING_BLOCKS,
		.tp_retire_blk_tov = ms,
	};
	void *m;

	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req))) {
		fprintf(stderr, "skin-eth: the receive ring: %s\n", strerror(errno));
		return NULL;
	}
	m = mmap(NULL, (size_t)RING_BLOCK * RING_BLOCKS, PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "skin-eth: mapping the receive ring: %s\n", strerror(errno));
		return NULL;
	}
	return m;
}

/* a packet socket with the filter @kind, bound to @ifname (NULL: every
 * interface); the gateway's (@ring non-NULL) gets a big buffer or a
 * receive ring, the counting socket the smallest buffer there is */
static int open_socket(const struct gateway *g, const char *ifname,
		       enum filter_kind kind, unsigned int ring_ms, uint8_t **ring)
{
	struct sockaddr_ll a = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
	};
	int fd, one = 1, rcvbuf = ring ? RCVBUF : 0;

	if (ifname) {
		a.sll_ifindex = (int)if_nametoindex(ifname);
		if (!a.sll_ifindex) {
			fprintf(stderr, "skin-eth: --interface %s: no such interface\n",
				ifname);
			return -1;
		}
	}
	/* protocol 0: nothing is queued before the filter is on */
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "skin-eth: packet socket: %s%s\n", strerror(errno),
			errno == EPERM ? " (needs CAP_NET_RAW)" : "");
		return -1;
	}
	if (attach_filter(fd, g->udp_port, g->rx, kind)) {
		fprintf(stderr, "skin-eth: the packet filter: %s\n", strerror(errno));
		goto bad;
	}
	/* this host's own sends (yarprobotinterface's to the boards) are
	 * not wanted: the kernel skips them (4.20 and later) */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) &&
	    errno != ENOPROTOOPT)
		fprintf(stderr, "skin-eth: PACKET_IGNORE_OUTGOING: %s\n", strerror(errno));
	/* bursts of a full-body robot's 1 ms datagrams while the loop is
	 * busy; the kernel caps it at rmem_max, and counts what it drops */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (ring && ring_ms) {
		*ring = map_ring(fd, ring_ms);
		if (!*ring)
			goto bad;
	}
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "skin-eth: binding the packet socket%s%s: %s\n",
			ifname ? " to " : "", ifname ? ifname : "", strerror(errno));
		goto bad;
	}
	return fd;
bad:
	close(fd);
	return -1;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int on_packets(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct live *l = data;
	unsigned int b, i;
	int n;

	(void)s;
	(void)revents;
	for (b = 0; b < BATCHES_PER_WAKE; b++) {
		uint64_t ts;

		for (i = 0; i < BATCH; i++) {
			l->msgs[i].msg_hdr.msg_namelen = sizeof(l->from[i]);
			l->msgs[i].msg_hdr.msg_flags = 0;
		}
		n = recvmmsg(fd, l->msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			/* ENETDOWN when the bound interface goes down: the
			 * socket takes packets again once it is up */
			l->g->recv_errors++;
			if (!l->said_recv_error)
				fprintf(stderr, "skin-eth: reading packets: %s (counted; said once)\n",
					strerror(errno));
			l->said_recv_error = true;
			return 0;
		}
		ts = realtime_ns();
		for (i = 0; i < (unsigned int)n; i++) {
			size_t len = l->msgs[i].msg_len;

			if (l->from[i].sll_pkttype == PACKET_OUTGOING) {
				l->g->outgoing++;
				continue;
			}
			if (len > PKT_MAX)	/* MSG_TRUNC: the decoder says so */
				len = PKT_MAX;
			gateway_packet(l->g, SKIN_LINKTYPE_RAW, l->iov[i].iov_base,
				       len, ts);
		}
		if (n < BATCH)
			break;
	}
	return 0;
}

static void ring_packet(struct live *l, const struct tpacket3_hdr *h,
			uint64_t ts)
{
	const struct sockaddr_ll *from = (const void *)((const uint8_t *)h +
		TPACKET_ALIGN(sizeof(*h)));

	if (from->sll_pkttype == PACKET_OUTGOING) {
		l->g->outgoing++;
		return;
	}
	/* SOCK_DGRAM: the packet from its network header */
	gateway_packet(l->g, SKIN_LINKTYPE_RAW, (const uint8_t *)h + h->tp_net,
		       h->tp_snaplen, ts);
}

/* The socket's pending error (ENETDOWN when the interface went down),
 * read so that it is cleared: the ring is read without recv(), which
 * would clear it, and epoll would say EPOLLERR for ever */
static void ring_error(struct live *l, int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) || !e)
		return;
	l->g->recv_errors++;
	if (!l->said_recv_error)
		fprintf(stderr, "skin-eth: reading packets: %s (counted; said once)\n",
			strerror(e));
	l->said_recv_error = true;
}

static int on_ring(sd_event_source *s, int fd, uint32_t revents, void *data)
{
	struct live *l = data;
	unsigned int b;

	(void)s;
	if (revents & EPOLLERR)
		ring_error(l, fd);
	for (b = 0; b < RING_BLOCKS; b++) {
		struct tpacket_block_desc *bd =
			(void *)(l->ring + (size_t)l->cur * RING_BLOCK);
		const uint8_t *p;
		uint64_t ts;
		uint32_t i;

		if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			break;
		ts = realtime_ns();
		p = (const uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
		for (i = 0; i < bd->hdr.bh1.num_pkts; i++) {
			const struct tpacket3_hdr *h = (const void *)p;

			ring_packet(l, h, ts);
			p += h->tp_next_offset;
		}
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		l->cur = (l->cur + 1) % RING_BLOCKS;
	}
	return 0;
}

/* sum of every rejection: datagrams from boards not published, foreign
 * datagrams, packets that were no sound UDP */
static unsigned long long rejected(const struct gateway *g)
{
	unsigned long long r = skin_eth_rx_foreign(g->rx)->datagrams + g->foreign_filtered;
	unsigned int i, v;

	for (i = 0; i < skin_eth_rx_n_boards(g->rx); i++) {
		const struct skin_eth_counters *c =
			&skin_eth_rx_board(g->rx, i)->counters;

		r += c->datagrams - c->verdict[SKIN_ETH_OK];
	}
	for (v = SKIN_CAP_UDP + 1; v < SKIN_CAP_VERDICT_NR; v++)
		r += g->capture[v];
	return r;
}

static void notify_status(const struct gateway *g)
{
	unsigned long long d = 0, f = 0, lost = 0;
	unsigned int i;

	for (i = 0; i < skin_eth_rx_n_boards(g->rx); i++) {
		const struct skin_eth_counters *c =
			&skin_eth_rx_board(g->rx, i)->counters;

		d += c->datagrams;
		f += c->frames;
		lost += c->lost;
	}
	sd_notifyf(0, "STATUS=datagrams %llu frames %llu rejected %llu lost %llu",
		   d, f, rejected(g), lost + g->socket_drops);
}

/* The counters file, replaced whole: a reader sees the old or the new */
static void write_counters(const struct live *l)
{
	char tmp[4096];
	FILE *f;

	if (!l->o->counters)
		return;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", l->o->counters) >= (int)sizeof(tmp))
		return;
	f = fopen(tmp, "we");
	if (!f)
		return;
	gateway_write_counters(l->g, f);
	if (fclose(f) || rename(tmp, l->o->counters))
		unlink(tmp);
}

/* the kernel's counts: the gateway socket's drops, and every datagram of
 * another source (the counting socket's packets, queued or dropped) */
static void socket_counts(struct live *l)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	/* reading them resets them */
	if (!getsockopt(l->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		l->g->socket_drops += st.tp_drops;
	len = sizeof(st);
	if (l->count_fd >= 0 &&
	    !getsockopt(l->count_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		l->g->foreign_filtered += st.tp_packets;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *data)
{
	struct live *l = data;
	int r;

	if (l->g->can)
		gateway_output_retry(l->g);
	socket_counts(l);
	write_counters(l);
	if (l->g->log && !l->g->log_failed && fflush(l->g->log))
		l->g->log_failed = true;
	if (l->o->status_period_s && ++l->ticks % l->o->status_period_s == 0)
		notify_status(l->g);
	r = sd_event_source_set_time(s, usec + TICK_US);
	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_usr1(sd_event_source *s, const struct signalfd_siginfo *si,
		   void *data)
{
	struct live *l = data;

	(void)s;
	(void)si;
	socket_counts(l);
	gateway_print_counters(l->g, stderr);
	return 0;
}

/*
 * Every write from one CPU.  vcan hands a frame to the receive backlog of
 * the CPU that wrote it; a writer that migrated between two frames can
 * have the later one delivered first while the earlier CPU's softirq
 * waits for ksoftirqd (the VM layer saw it with canplayer), and the order
 * of a board's frames is what the driver assembles samples from.  The CPU
 * the gateway starts on, within the unit's CPUAffinity= if set.
 */
static void pin_to_one_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	if (cpu < 0 || sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "skin-eth: warning: cannot keep to one CPU (%s): a board's frames may reach the CAN stack out of order under load\n",
			strerror(errno));
}

int gateway_live(struct gateway *g, const struct live_opts *o)
{
	struct live l = { .g = g, .o = o, .fd = -1, .count_fd = -1 };
	sd_event *e = NULL;
	sigset_t ss;
	uint64_t now;
	unsigned int i;
	int r, status = 1;

	l.bufs = malloc((size_t)BATCH * PKT_MAX);
	if (!l.bufs) {
		fprintf(stderr, "skin-eth: out of memory\n");
		return 1;
	}
	for (i = 0; i < BATCH; i++) {
		l.iov[i].iov_base = l.bufs + (size_t)i * PKT_MAX;
		l.iov[i].iov_len = PKT_MAX;
		l.msgs[i].msg_hdr.msg_iov = &l.iov[i];
		l.msgs[i].msg_hdr.msg_iovlen = 1;
		l.msgs[i].msg_hdr.msg_name = &l.from[i];
	}
	if (skin_eth_rx_n_boards(g->rx) <= FILTER_MAX_BOARDS) {
		l.count_fd = open_socket(g, o->interface, FILTER_OTHERS, 0, NULL);
		if (l.count_fd < 0)
			goto out;
		l.fd = open_socket(g, o->interface, FILTER_BOARDS, o->ring_ms, &l.ring);
	} else {
		l.fd = open_socket(g, o->interface, FILTER_ANY, o->ring_ms, &l.ring);
	}
	if (l.fd < 0)
		goto out;
	if (g->can)
		pin_to_one_cpu();
	r = service_init(&e);
	if (r < 0) {
		fprintf(stderr, "skin-eth: the event loop: %s\n", strerror(-r));
		goto out;
	}
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR1);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	r = sd_event_add_io(e, NULL, l.fd, EPOLLIN, l.ring ? on_ring : on_packets, &l);
	if (r >= 0)
		r = sd_event_add_signal(e, NULL, SIGUSR1, on_usr1, &l);
	if (r >= 0)
		r = sd_event_now(e, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(e, NULL, CLOCK_MONOTONIC, now + TICK_US, 0,
				      on_tick, &l);
	if (r < 0) {
		fprintf(stderr, "skin-eth: the event loop: %s\n", strerror(-r));
		goto out;
	}
	write_counters(&l);
	service_ready(NULL);
	notify_status(g);
	r = service_run(e);
	if (r < 0)
		fprintf(stderr, "skin-eth: the event loop: %s\n", strerror(-r));
	status = r < 0 ? 1 : 0;
	socket_counts(&l);
	write_counters(&l);
	if (g->log && !g->log_failed && fflush(g->log))
		g->log_failed = true;
out:
	sd_event_unref(e);
	if (l.ring)
		munmap(l.ring, (size_t)RING_BLOCK * RING_BLOCKS);
	if (l.fd >= 0)
		close(l.fd);
	if (l.count_fd >= 0)
		close(l.count_fd);
	free(l.bufs);
	return status;
}
