// SPDX-License-Identifier: GPL-2.0
/*
 * eth.c - the ETH boards (--pcap, --eth): the MTB boards' CAN frames
 * carried in UDP ropframes to the head PC, as an ems4 or mc4plus does
 *
 * Each board (--board, parsed by lib/eth's receiver: one grammar for the
 * boards on both sides) owns the config's buses named by its interfaces
 * (eb24can1, eb24can2: --bus maps a config's bus onto one).  The frames
 * its MTB boards send on those buses queue per CAN port, in order; every
 * millisecond (the boards' cycle), at n ms from the start, the board
 * sends one datagram with sequence number n and age n ms, holding the
 * regular ROPs yarprobotinterface asks of a board driving 4 joints
 * (per joint: status core, multiple encoders, motor status; sig, no
 * signature or time), once a second a diagnostics ROP (management, info
 * status), and one skin ROP per patch index of the board with the frames
 * of that CAN port that came before the datagram, at most 24, the rest
 * waiting for the next one.  A frame of time t goes in the first
 * datagram after t: the frames carried are exactly those the CAN log
 * holds, in its order per port, but for those a skin ROP cannot hold
 * (29-bit ids, remote requests, error frames: some of the scenario's
 * faults), which are counted instead.
 *
 * The datagrams go to a pcap file (lib/eth's writer: Ethernet, IPv4, UDP
 * from the board's address and port 12345 to the head PC's), and with
 * --eth over UDP from a socket bound to the board's address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <skin/capture.h>
#include <skin/ethrx.h>
#include <skin/ropframe.h>

#include "skinsim.h"

#define CYCLE_NS	1000000ULL	/* a board's datagram, every 1 ms */
#define JOINTS		4		/* an ems4's or mc4plus's motors */
#define INFO_EVERY	1000		/* a diagnostics ROP once a second */

/* Motion control (EoProtocolMC.h, EoMotionControl.h): entities, tags and
 * the sizes of what yarprobotinterface's embObjMotionControl asks for */
#define MC_JOINT		0
#define MC_MOTOR		1
#define MC_JOINT_STATUS_CORE	10	/* eOmc_joint_status_core_t */
#define MC_JOINT_MULTIENC	15	/* eOmc_joint_status_additionalInfo_t */
#define MC_MOTOR_STATUS		9	/* eOmc_motor_status_t */
#define MC_JOINT_CORE_SIZE	40
#define MC_MULTIENC_SIZE	12
#define MC_MOTOR_SIZE		24
/* Management (EoProtocolMN.h, EoManagement.h): info status */
#define MN_INFO			2
#define MN_INFO_STATUS		3	/* eOmn_info_status_t */
#define MN_INFO_SIZE		72
#define MN_INFO_VERBAL		(1u << 10)	/* extraformat verbal */

/* A CAN port's frames not yet carried */
struct port_queue {
	struct skin_eth_can *f;
	size_t head, n, cap;
};

struct eth_board {
	const struct skin_eth_board *b;	/* the receiver's */
	struct port_queue q[SKIN_ETH_CAN_PORTS];
	int fd;				/* --eth */
	uint64_t send_errors;
	uint64_t datagrams;
};

struct eth {
	struct skin_eth_rx *rx;		/* the boards, as parsed */
	struct eth_board *boards;
	unsigned int n_boards;
	unsigned int *board_of;		/* per patch of the sim */
	unsigned int *port_of;		/* per patch: the board's patch index */
	uint64_t cycle;			/* datagrams sent: cycles 1..cycle */
	uint64_t frames;
	uint64_t not_carried;		/* frames a skin ROP cannot hold */
	struct in_addr head;		/* the head PC */
	uint16_t head_port;
};

static int parse_head(const char *s, struct in_addr *a, uint16_t *port)
{
	const char *colon = strchr(s, ':');
	char text[INET_ADDRSTRLEN];
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	unsigned long u = SKIN_ETH_UDP_PORT;
	char *end;

	if (n >= sizeof(text))
		return -1;
	memcpy(text, s, n);
	text[n] = '\0';
	if (inet_pton(AF_INET, text, a) != 1)
		return -1;
	if (colon) {
		errno = 0;
		u = strtoul(colon + 1, &end, 10);
		if (end == colon + 1 || *end || errno || !u || u > 65535)
			return -1;
	}
	*port = (uint16_t)u;
	return 0;
}

static int bind_board(struct eth_board *eb)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(SKIN_ETH_UDP_PORT),
				  .sin_addr = eb->b->addr };
	char text[INET_ADDRSTRLEN];

	eb->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (eb->fd < 0 || bind(eb->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		inet_ntop(AF_INET, &eb->b->addr, text, sizeof(text));
		fprintf(stderr, "skinsim: board %s: UDP %s:%d: %s%s\n",
			eb->b->name, text, SKIN_ETH_UDP_PORT, strerror(errno),
			errno == EADDRNOTAVAIL ?
			" (the board's address must be one of this host's, in a network namespace say: docs/ETH.md)" : "");
		return -1;
	}
	return 0;
}

int eth_open(struct run *r)
{
	const struct options *o = r->o;
	unsigned int n = skin_sim_patches(r->sim), i, j, p;
	struct skin_error err;
	struct eth *e;

	e = calloc(1, sizeof(*e));
	if (!e)
		return -1;
	r->eth = e;
	if (parse_head(o->head ? o->head : SKINSIM_HEAD, &e->head, &e->head_port)) {
		fprintf(stderr, "skinsim: --head: expected IPV4[:PORT], not '%s'\n", o->head);
		return -1;
	}
	e->rx = skin_eth_rx_new();
	e->board_of = calloc(n ? n : 1, sizeof(*e->board_of));
	e->port_of = calloc(n ? n : 1, sizeof(*e->port_of));
	if (!e->rx || !e->board_of || !e->port_of)
		return -1;
	for (i = 0; i < o->n_boards; i++)
		if (skin_eth_rx_add_board(e->rx, o->boards[i], &err)) {
			fprintf(stderr, "skinsim: --board: %s\n", err.text);
			return -1;
		}
	e->n_boards = skin_eth_rx_n_boards(e->rx);
	e->boards = calloc(e->n_boards, sizeof(*e->boards));
	if (!e->boards)
		return -1;
	for (j = 0; j < e->n_boards; j++) {
		e->boards[j].b = skin_eth_rx_board(e->rx, j);
		e->boards[j].fd = -1;
		if (o->eth && bind_board(&e->boards[j]))
			return -1;
	}
	/* every patch's bus is a CAN port of a board */
	for (i = 0; i < n; i++) {
		const char *bus = bus_map(o, skin_sim_patch(r->sim, i)->bus);

		for (j = 0; j < e->n_boards; j++)
			for (p = 0; p < e->boards[j].b->n_patches; p++)
				if (!strcmp(e->boards[j].b->ifname[p], bus))
					goto found;
		fprintf(stderr, "skinsim: board %s: its bus %s is no CAN port of a --board (NAMEcanPORT: eb24can1; --bus maps a bus onto one)\n",
			skin_sim_patch(r->sim, i)->name, bus);
		return -1;
found:
		e->board_of[i] = j;
		e->port_of[i] = p;
	}
	return 0;
}

void eth_close(struct run *r)
{
	struct eth *e = r->eth;
	unsigned int j, p;

	if (!e)
		return;
	for (j = 0; e->boards && j < e->n_boards; j++) {
		if (e->boards[j].fd >= 0)
			close(e->boards[j].fd);
		for (p = 0; p < SKIN_ETH_CAN_PORTS; p++)
			free(e->boards[j].q[p].f);
	}
	free(e->boards);
	free(e->board_of);
	free(e->port_of);
	skin_eth_rx_free(e->rx);
	free(e);
	r->eth = NULL;
}

int eth_frame(struct run *r, unsigned int patch, const struct can_frame *cf)
{
	struct eth *e = r->eth;
	struct port_queue *q;
	struct skin_eth_can *f;

	if (!e)
		return 0;
	/* an item holds an 11-bit id and data: a 29-bit id, a remote
	 * request or an error frame (the garbage and errors faults) is not
	 * one a board carries */
	if (cf->can_id & (CAN_EFF_FLAG | CAN_RTR_FLAG | CAN_ERR_FLAG)) {
		e->not_carried++;
		return 0;
	}
	q = &e->boards[e->board_of[patch]].q[e->port_of[patch]];
	if (q->n == q->cap) {	/* grow, unrolling the ring */
		size_t cap = q->cap ? 2 * q->cap : 64, k;
		struct skin_eth_can *nf = malloc(cap * sizeof(*nf));

		if (!nf)
			return -1;
		for (k = 0; k < q->n; k++)	/* (full: cap is not 0) */
			nf[k] = q->f[(q->head + k) % q->cap];
		free(q->f);
		q->f = nf;
		q->cap = cap;
		q->head = 0;
	}
	f = &q->f[(q->head + q->n) % q->cap];
	memset(f, 0, sizeof(*f));
	f->id = (uint16_t)(cf->can_id & CAN_SFF_MASK);
	f->len = cf->len > 8 ? 8 : cf->len;
	f->patch = (uint8_t)e->port_of[patch];
	memcpy(f->data, cf->data, f->len);
	q->n++;
	return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The regular ROPs of motion control: a still arm holding its pose */
static void add_motion_control(struct skin_ropframe_writer *w)
{
	uint8_t core[MC_JOINT_CORE_SIZE], enc[MC_MULTIENC_SIZE];
	uint8_t motor[MC_MOTOR_SIZE];
	unsigned int j;

	for (j = 0; j < JOINTS; j++) {
		int32_t pos = (int32_t)(j * 1000);	/* icubdegrees */

		memset(core, 0, sizeof(core));
		put32(core, (uint32_t)pos);		/* measures: position */
		core[36] = 1;		/* modes: control mode position */
		core[37] = 0;		/* interaction mode stiff */
		core[38] = 1;		/* motion done */
		memset(enc, 0, sizeof(enc));
		put32(enc, (uint32_t)pos);
		memset(motor, 0, sizeof(motor));
		put32(motor, (uint32_t)pos * 100);	/* rotor position */
		motor[14] = 300 & 0xff;			/* 30.0 C */
		motor[15] = 300 >> 8;
		skin_ropframe_add_rop(w, 0, SKIN_ROP_SIG,
				      SKIN_ROP_ID32(SKIN_ROP_EP_MOTION, MC_JOINT, j,
						    MC_JOINT_STATUS_CORE),
				      core, sizeof(core), 0, 0);
		skin_ropframe_add_rop(w, 0, SKIN_ROP_SIG,
				      SKIN_ROP_ID32(SKIN_ROP_EP_MOTION, MC_JOINT, j,
						    MC_JOINT_MULTIENC),
				      enc, sizeof(enc), 0, 0);
		skin_ropframe_add_rop(w, 0, SKIN_ROP_SIG,
				      SKIN_ROP_ID32(SKIN_ROP_EP_MOTION, MC_MOTOR, j,
						    MC_MOTOR_STATUS),
				      motor, sizeof(motor), 0, 0);
	}
}

/* A diagnostics message (info, from the board, verbal) */
static void add_info(struct skin_ropframe_writer *w, uint64_t age_us)
{
	static const char text[] = "skinsim: simulated ETH board";
	uint8_t info[MN_INFO_SIZE] = { 0 };

	put32(info, (uint32_t)age_us);			/* timestamp */
	put32(info + 4, (uint32_t)(age_us >> 32));
	info[12] = MN_INFO_VERBAL & 0xff;		/* flags */
	info[13] = MN_INFO_VERBAL >> 8;
	memcpy(info + 24, text, sizeof(text));		/* extra */
	skin_ropframe_add_rop(w, 0, SKIN_ROP_SIG,
			      SKIN_ROP_ID32(SKIN_ROP_EP_MANAGEMENT, MN_INFO, 0,
					    MN_INFO_STATUS),
			      info, sizeof(info), 0, 0);
}

static int send_datagram(struct run *r, struct eth_board *eb, uint64_t t_ns,
			 uint64_t epoch)
{
	struct eth *e = r->eth;
	uint8_t buf[1472];	/* one Ethernet frame's UDP payload */
	struct skin_eth_can frames[SKIN_ROP_ARRAY_CAPACITY];
	struct skin_ropframe_writer w;
	uint64_t age = t_ns / 1000;
	unsigned int p, k;
	size_t len;

	/* the board's sequence number: 1 for its first datagram */
	skin_ropframe_begin(&w, buf, sizeof(buf), age, eb->datagrams + 1);
	if (eb->datagrams % INFO_EVERY == 0)
		add_info(&w, age);
	add_motion_control(&w);
	for (p = 0; p < eb->b->n_patches; p++) {
		struct port_queue *q = &eb->q[p];
		unsigned int n = q->n < SKIN_ROP_ARRAY_CAPACITY ?
				 (unsigned int)q->n : SKIN_ROP_ARRAY_CAPACITY;

		for (k = 0; k < n; k++)
			frames[k] = q->f[(q->head + k) % q->cap];
		q->head = n ? (q->head + n) % q->cap : q->head;
		q->n -= n;
		e->frames += n;
		skin_ropframe_add_skin(&w, 0, (uint8_t)p, frames, n, 0, 0);
	}
	len = skin_ropframe_end(&w);
	if (!len) {	/* cannot be: the sizes above are fixed */
		fprintf(stderr, "skinsim: board %s: datagram over %zu bytes\n",
			eb->b->name, sizeof(buf));
		return -1;
	}
	eb->datagrams++;
	if (r->pcap && skin_capture_write_udp(r->pcap, epoch + t_ns, eb->b->addr,
					      SKIN_ETH_UDP_PORT, e->head,
					      e->head_port, buf, len)) {
		fprintf(stderr, "skinsim: %s: %s\n", r->o->pcap, strerror(errno));
		return -1;
	}
	if (eb->fd >= 0) {
		struct sockaddr_in to = { .sin_family = AF_INET,
					  .sin_port = htons(e->head_port),
					  .sin_addr = e->head };

		/* a board sends on whatever happens to its datagrams */
		if (sendto(eb->fd, buf, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) < 0 && !eb->send_errors++)
			fprintf(stderr, "skinsim: board %s: sending: %s (counted from now on)\n",
				eb->b->name, strerror(errno));
	}
	return 0;
}

/* Send every cycle due at or before t (from the start), each board's in
 * board order; in real time each waits for its time. */
int eth_advance(struct run *r, uint64_t t, uint64_t epoch, uint64_t t0_mono)
{
	struct eth *e = r->eth;
	unsigned int j;

	if (!e)
		return 0;
	while ((e->cycle + 1) * CYCLE_NS <= t && !skinsim_stop) {
		uint64_t tc = (e->cycle + 1) * CYCLE_NS;

		if (!r->o->fast) {
			clock_sleep_until_mono(t0_mono + tc, &skinsim_stop);
			if (skinsim_stop)
				break;
		}
		e->cycle++;
		for (j = 0; j < e->n_boards; j++)
			if (send_datagram(r, &e->boards[j], tc, epoch))
				return -1;
	}
	return 0;
}

static bool queued(const struct eth *e)
{
	unsigned int j, p;

	for (j = 0; j < e->n_boards; j++)
		for (p = 0; p < SKIN_ETH_CAN_PORTS; p++)
			if (e->boards[j].q[p].n)
				return true;
	return false;
}

/* The run's end: the cycles up to its duration, and on until every frame
 * is carried; then what was sent, with -v or when sends failed. */
int eth_finish(struct run *r, uint64_t epoch, uint64_t t0_mono)
{
	struct eth *e = r->eth;
	unsigned int j;
	int status = 0;

	if (!e)
		return 0;
	if (eth_advance(r, r->duration_ns, epoch, t0_mono))
		return -1;
	while (queued(e) && !skinsim_stop)
		if (eth_advance(r, (e->cycle + 1) * CYCLE_NS, epoch, t0_mono))
			return -1;
	for (j = 0; j < e->n_boards; j++) {
		const struct eth_board *eb = &e->boards[j];

		if (r->o->verbose || eb->send_errors)
			fprintf(stderr, "skinsim: board %s: %llu datagrams, %llu not sent\n",
				eb->b->name, (unsigned long long)eb->datagrams,
				(unsigned long long)eb->send_errors);
	}
	if (r->o->verbose || e->not_carried)
		fprintf(stderr, "skinsim: %llu frames carried, %llu not (29-bit ids, remote requests, error frames: a skin ROP holds none)\n",
			(unsigned long long)e->frames,
			(unsigned long long)e->not_carried);
	return status;
}
