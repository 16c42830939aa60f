// SPDX-License-Identifier: GPL-2.0
/*
 * test_yarp_port.c - a port's transcripts byte for byte, over real TCP
 *
 * The test plays the YARP peers of docs/YARP.md on
 * loopback sockets: `yarp connect`'s two admin connections, the reader
 * the port then connects to (tcp, fast_tcp, text), `yarp rpc`'s writer,
 * and a reader that never reads.  Every byte the port sends is compared
 * with the transcript written out here by hand.  The only stand-in is
 * the name lookup: the port asks its owner, and the test answers with
 * its own listener's address (tests/yarp does it with yarpserver).
 *
 * Then hostile peers (docs/YARP.md "Hostile peers"): names with control
 * characters or against YARP's rules never reach the lookup, a peer that
 * leaves its replies unread is bounded and dropped, silent and half-sent
 * connections time out, the caps per address and in all hold (a silent
 * connection gives its place to a new one), and out of descriptors the
 * listener's queue drains without spinning.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "port.h"

#define I32(x) (uint8_t)((x) & 0xff), (uint8_t)(((x) >> 8) & 0xff), \
	(uint8_t)(((x) >> 16) & 0xff), (uint8_t)(((x) >> 24) & 0xff)

struct fixture {
	sd_event *e;
	struct yp_port *p;
	int lfd;		/* the readers' listener */
	struct sockaddr_in laddr;
	int resolved;
	char last_cmd[256];
	struct net_guard *guard;	/* a test's own, or NULL */
};

static void resolve(void *data, const char *name, void *cookie)
{
	struct fixture *f = data;

	f->resolved++;
	if (!strcmp(name, "/nobody"))
		yp_resolved(cookie, -ENOENT, NULL);
	else
		yp_resolved(cookie, 0, &f->laddr);
}

static void on_rpc(void *data, struct yp_call *call,
		   const struct yw_atom *a, unsigned int n)
{
	struct fixture *f = data;
	struct yw_atom r[2];
	unsigned int i;

	f->last_cmd[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(f->last_cmd, i ? " " : "");
		strncat(f->last_cmd, a[i].s, 40);
	}
	memset(r, 0, sizeof(r));
	r[0].type = YW_ATOM_INT;
	r[0].i = (int64_t)n;
	r[1].type = YW_ATOM_STRING;
	snprintf(r[1].s, sizeof(r[1].s), "%s", n ? a[0].s : "");
	yp_call_reply(call, r, 2);
}

static int setup_opts(void **state, bool with_rpc, unsigned int stall_ms,
		      unsigned int idle_ms, const struct net_guard_limits *l)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct yp_port_options o;
	socklen_t sl = sizeof(f->laddr);

	assert_non_null(f);
	assert_int_equal(sd_event_new(&f->e), 0);
	memset(&o, 0, sizeof(o));
	o.name = "/src";
	o.version = YW_YARP3;
	o.bind.s_addr = htonl(INADDR_LOOPBACK);
	o.stall_ms = stall_ms;
	o.idle_ms = idle_ms;
	if (l) {
		assert_int_equal(net_guard_new(&f->guard, l), 0);
		o.guard = f->guard;
	}
	o.resolve = resolve;
	o.rpc = with_rpc ? on_rpc : NULL;
	o.data = f;
	assert_int_equal(yp_port_new(&f->p, f->e, &o), 0);
	f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&f->laddr, 0, sizeof(f->laddr));
	f->laddr.sin_family = AF_INET;
	f->laddr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(f->lfd, (struct sockaddr *)&f->laddr, sizeof(f->laddr)), 0);
	assert_int_equal(listen(f->lfd, 4), 0);
	getsockname(f->lfd, (struct sockaddr *)&f->laddr, &sl);
	*state = f;
	return 0;
}

static int setup(void **state, bool with_rpc, unsigned int stall_ms)
{
	return setup_opts(state, with_rpc, stall_ms, 0, NULL);
}

static int setup_out(void **state)
{
	return setup(state, false, 0);
}

static int setup_rpc(void **state)
{
	return setup(state, true, 0);
}

static int setup_stall(void **state)
{
	return setup(state, false, 300);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	yp_port_free(f->p);
	net_guard_free(f->guard);
	close(f->lfd);
	sd_event_unref(f->e);
	free(f);
	return 0;
}

/* Run the loop until @fd is readable (or @ms pass) */
static bool pump_until(struct fixture *f, int fd, short ev, int ms)
{
	int i;

	for (i = 0; i < ms; i++) {
		struct pollfd p = { fd, ev, 0 };

		if (poll(&p, 1, 0) > 0)
			return true;
		sd_event_run(f->e, 1000);
	}
	return false;
}

static void pump(struct fixture *f, int n)
{
	while (n--)
		sd_event_run(f->e, 1000);
}

/* Exactly @n bytes from @fd, running the port's loop meanwhile */
static void read_exact(struct fixture *f, int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r;

		assert_true(pump_until(f, fd, POLLIN, 2000));
		r = recv(fd, buf + got, n - got, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		assert_true(r > 0);
		got += (size_t)r;
	}
}

static void expect(struct fixture *f, int fd, const void *want, size_t n)
{
	uint8_t *got = malloc(n + 1);

	read_exact(f, fd, got, n);
	if (memcmp(got, want, n)) {
		size_t i;

		for (i = 0; i < n && got[i] == ((const uint8_t *)want)[i]; i++)
			;
		print_error("byte %zu: %02x, want %02x\n", i, got[i],
			    ((const uint8_t *)want)[i]);
	}
	assert_memory_equal(got, want, n);
	free(got);
}

static void expect_str(struct fixture *f, int fd, const char *s)
{
	expect(f, fd, s, strlen(s));
}

/* Nothing more arrives on @fd (after the loop ran a while) */
static void expect_nothing_more(struct fixture *f, int fd)
{
	char c;

	pump(f, 20);
	assert_int_equal(recv(fd, &c, 1, MSG_DONTWAIT), -1);
}

static void expect_closed(struct fixture *f, int fd)
{
	char c;

	assert_true(pump_until(f, fd, POLLIN, 2000));
	assert_int_equal(recv(fd, &c, 1, MSG_DONTWAIT), 0);
}

static int connect_port(struct fixture *f)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(yp_port_number(f->p));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void send_str(int fd, const char *s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL), (ssize_t)strlen(s));
}

/* One admin connection: the preamble, a command, its reply, closed */
static void admin(struct fixture *f, const char *cmd, const char *reply)
{
	int fd = connect_port(f);

	send_str(fd, "CONNACK admin\r\n");
	expect_str(f, fd, "Welcome admin\r\n");
	send_str(fd, "a\r\n");
	send_str(fd, cmd);
	expect_str(f, fd, reply);
	expect_str(f, fd, "<ACK>\r\n");
	close(fd);
}

/* `yarp connect /src /dst CARRIER`: list, then add; the reader accepts */
static int yarp_connect(struct fixture *f, const char *carrier)
{
	char cmd[128];
	int afd, rfd;

	admin(f, "[list] [out] \"/dst\"\r\n", "\r\n");
	afd = connect_port(f);
	send_str(afd, "CONNACK admin\r\n");
	expect_str(f, afd, "Welcome admin\r\n");
	snprintf(cmd, sizeof(cmd), "a\r\n[add] \"%s://dst\"\r\n", carrier);
	send_str(afd, cmd);
	assert_true(pump_until(f, f->lfd, POLLIN, 2000));
	rfd = accept(f->lfd, NULL, NULL);
	assert_true(rfd >= 0);
	snprintf(cmd, sizeof(cmd), "0 \"Added connection from /src to %s://dst\"\r\n<ACK>\r\n",
		 carrier);
	expect_str(f, afd, cmd);
	close(afd);
	return rfd;
}

static void admin_transcript(void **state)
{
	struct fixture *f = *state;
	static const uint8_t header[] = {
		'Y', 'A', 0xe4, 0x1e, 0, 0, 'R', 'P', I32(5), '/', 's', 'r', 'c', 0,
	};
	struct yp_port_stats st;
	int rfd;

	admin(f, "[ver]\r\n", "[ver] 1 2 3\r\n");
	admin(f, "[list] [out]\r\n", "\r\n");
	rfd = yarp_connect(f, "tcp");
	expect(f, rfd, header, sizeof(header));
	send_str(rfd, "YA\x10\x27\0\0RP");	/* the reader's reply, ignored */
	pump(f, 5);
	assert_true(yp_port_connected(f->p, "/dst"));
	admin(f, "[list] [out]\r\n", "\"/dst\"\r\n");
	admin(f, "[list] [out] \"/dst\"\r\n",
	      "(from \"/src\") (to \"/dst\") (carrier \"tcp\")\r\n");
	admin(f, "[add] \"/nobody\"\r\n",
	      "-1 \"Do not know how to connect to /nobody\"\r\n");
	admin(f, "[add] \"mcast://x\"\r\n",
	      "-1 \"Do not know how to connect to mcast://x (carriers: tcp, fast_tcp, text, udp)\"\r\n");
	admin(f, "[zz]\r\n",
	      "[fail] \"send [help] for list of valid commands\"\r\n");
	admin(f, "[del] \"/dst\"\r\n", "0 \"Removed connection from /src to /dst\"\r\n");
	expect_closed(f, rfd);
	admin(f, "[del] \"/dst\"\r\n", "-1 \"Could not find an outgoing connection to /dst\"\r\n");
	close(rfd);
	/* a line that is no Bottle (a vocab of 5): closed, counted */
	rfd = connect_port(f);
	send_str(rfd, "CONNACK admin\r\na\r\n[bogus]\r\n");
	expect_str(f, rfd, "Welcome admin\r\n");
	expect_closed(f, rfd);
	close(rfd);
	yp_port_stats(f->p, &st);
	assert_int_equal(st.refused, 1);
}

/* The data transcript: header, then per message index, command, payload;
 * tcp's acks are read and ignored */
static void data_tcp(void **state)
{
	struct fixture *f = *state;
	static const uint8_t header[] = {
		'Y', 'A', 0xe4, 0x1e, 0, 0, 'R', 'P', I32(5), '/', 's', 'r', 'c', 0,
	};
	static const uint8_t msg[] = {
		'Y', 'A', 10, 0, 0, 0, 'R', 'P',
		2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I32(8), I32(24), I32(0),
		0, 0, 0, 0, '~', 'D', 0, 1,
		0x0a, 0x01, 0, 0, 0x02, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x40,
	};
	static const uint8_t msg_env[] = {
		'Y', 'A', 10, 0, 0, 0, 'R', 'P',
		2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I32(16), I32(8), I32(0),
		I32(8), '~', 0, 0, 1, 'D', ' ', '5', ' ', '2', '.', '5', 0,
		I32(256), I32(0),
	};
	const float x[] = { 1, 2 };
	struct yw_buf v, l;
	int rfd = yarp_connect(f, "tcp");

	expect(f, rfd, header, sizeof(header));
	send_str(rfd, "YA\x10\x27\0\0RP");
	yw_buf_init(&v);
	yw_buf_init(&l);
	yw_vector_f32(&v, YW_YARP3, x, 2);
	yw_contact_list(&l, 0);
	yp_port_write(f->p, &v, NULL, NULL);
	expect(f, rfd, msg, sizeof(msg));
	send_str(rfd, "YA\0\0\0\0RP");			/* ack */
	yp_port_write(f->p, &l, NULL, "5 2.5");
	expect(f, rfd, msg_env, sizeof(msg_env));
	send_str(rfd, "YA\0\0\0\0RP");
	expect_nothing_more(f, rfd);
	close(rfd);
	pump(f, 5);
	assert_false(yp_port_connected(f->p, "/dst"));
	yw_buf_free(&v);
	yw_buf_free(&l);
}

static void data_fast_tcp_and_text(void **state)
{
	struct fixture *f = *state;
	static const uint8_t header[] = {
		'Y', 'A', 0x64, 0x1e, 0, 0, 'R', 'P', I32(5), '/', 's', 'r', 'c', 0,
	};
	const float x[] = { 1, 0.5f };
	struct yw_buf v, t;
	struct yp_port_stats st;
	int rfd = yarp_connect(f, "fast_tcp");

	expect(f, rfd, header, sizeof(header));
	yw_buf_init(&v);
	yw_buf_init(&t);
	yw_vector_f32(&v, YW_YARP3, x, 2);
	yw_vector_f32_text(&t, x, 2);
	assert_false(yp_port_wants_text(f->p));
	close(rfd);
	rfd = yarp_connect(f, "text");	/* replaces the connection to /dst */
	expect_str(f, rfd, "CONNECT /src\r\n");
	send_str(rfd, "Welcome /src\r\n");
	assert_true(yp_port_wants_text(f->p));
	yp_port_write(f->p, &v, &t, NULL);
	expect_str(f, rfd, "D\r\n1.0 0.5\r\n");
	yp_port_write(f->p, &v, &t, "7 1.25");
	expect_str(f, rfd, "D 7 1.25\r\n1.0 0.5\r\n");
	yp_port_write(f->p, &v, NULL, NULL);		/* no text: skipped */
	expect_nothing_more(f, rfd);
	yp_port_stats(f->p, &st);
	assert_int_equal(st.written, 3);
	assert_int_equal(st.sent, 2);
	assert_int_equal(st.readers, 1);
	close(rfd);
	yw_buf_free(&v);
	yw_buf_free(&t);
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* A udp reader as UdpCarrier::respondToHeader is one: it reads the header
 * on TCP, names a UDP port of its own ("YA <port> RP"); the TCP connection
 * is then closed, and the [add] answered.  Returns the UDP socket. */
static int udp_reader(struct fixture *f)
{
	static const uint8_t header[] = {
		'Y', 'A', 0x61, 0x1e, 0, 0, 'R', 'P', I32(5), '/', 's', 'r', 'c', 0,
	};
	struct sockaddr_in ua = { .sin_family = AF_INET };
	socklen_t sl = sizeof(ua);
	int ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int afd, rfd;
	uint8_t num[8] = { 'Y', 'A', 0, 0, 0, 0, 'R', 'P' };

	ua.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(ufd, (struct sockaddr *)&ua, sizeof(ua)), 0);
	getsockname(ufd, (struct sockaddr *)&ua, &sl);
	afd = connect_port(f);
	send_str(afd, "CONNACK admin\r\na\r\n[add] \"udp://dst\"\r\n");
	expect_str(f, afd, "Welcome admin\r\n");
	assert_true(pump_until(f, f->lfd, POLLIN, 2000));
	rfd = accept(f->lfd, NULL, NULL);
	expect(f, rfd, header, sizeof(header));
	assert_false(yp_port_connected(f->p, "/dst"));	/* not before its port */
	num[2] = (uint8_t)(ntohs(ua.sin_port) & 0xff);
	num[3] = (uint8_t)(ntohs(ua.sin_port) >> 8);
	assert_int_equal(send(rfd, num, 8, 0), 8);
	expect_str(f, afd, "0 \"Added connection from /src to udp://dst\"\r\n<ACK>\r\n");
	expect_closed(f, rfd);
	close(rfd);
	close(afd);
	assert_true(yp_port_connected(f->p, "/dst"));
	return ufd;
}

/* udp: each message a datagram, its CRC-32 and index 0 before the bytes
 * tcp carries; a reader whose port closed is dropped */
static void data_udp(void **state)
{
	struct fixture *f = *state;
	static const uint8_t msg[] = {
		I32(0x6a72eb8e), I32(0),	/* zlib.crc32 of the rest */
		'Y', 'A', 10, 0, 0, 0, 'R', 'P',
		2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I32(8), I32(24), I32(0),
		0, 0, 0, 0, '~', 'D', 0, 1,
		0x0a, 0x01, 0, 0, 0x02, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0x40,
	};
	const float x[] = { 1, 2 };
	struct yp_port_stats st;
	struct yw_buf v;
	uint8_t buf[256];
	int ufd = udp_reader(f), i;

	yw_buf_init(&v);
	yw_vector_f32(&v, YW_YARP3, x, 2);
	for (i = 0; i < 2; i++) {	/* every message starts at index 0 */
		yp_port_write(f->p, &v, NULL, NULL);
		assert_true(pump_until(f, ufd, POLLIN, 2000));
		assert_int_equal(recv(ufd, buf, sizeof(buf), 0), sizeof(msg));
		assert_memory_equal(buf, msg, sizeof(msg));
	}
	close(ufd);
	/* the kernel reports the port unreachable: dropped within a message
	 * or two */
	for (i = 0; i < 5 && yp_port_connected(f->p, "/dst"); i++) {
		yp_port_write(f->p, &v, NULL, NULL);
		pump(f, 5);
	}
	assert_false(yp_port_connected(f->p, "/dst"));
	yp_port_stats(f->p, &st);
	assert_int_equal(st.dropped, 1);
	/* the first message after the close still went out: the
	 * unreachable port is known once it has been sent to */
	assert_true(st.sent >= 3 && st.sent <= 4);
	yw_buf_free(&v);
}

/* A udp reader that names no port (or port 0) is closed and the [add]
 * answered -1, counted */
static void udp_bad_port(void **state)
{
	struct fixture *f = *state;
	static const char *const answers[] = { "XXXXXXXX", "YA\0\0\0\0RP" };
	struct yp_port_stats st;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		int afd = connect_port(f), rfd;

		send_str(afd, "CONNACK admin\r\na\r\n[add] \"udp://dst\"\r\n");
		expect_str(f, afd, "Welcome admin\r\n");
		assert_true(pump_until(f, f->lfd, POLLIN, 2000));
		rfd = accept(f->lfd, NULL, NULL);
		read_exact(f, rfd, (uint8_t[17]){ 0 }, 17);	/* the header */
		assert_int_equal(send(rfd, answers[i], 8, 0), 8);
		expect_str(f, afd, "-1 \"Cannot connect to udp://dst\"\r\n<ACK>\r\n");
		expect_closed(f, rfd);
		close(rfd);
		close(afd);
		assert_false(yp_port_connected(f->p, "/dst"));
	}
	yp_port_stats(f->p, &st);
	assert_int_equal(st.refused, 2);
}

/* A message bigger than a datagram is cut: indices 0, 1, 2, each with the
 * CRC of its own bytes, together the message as tcp carries it */
static void data_udp_cut(void **state)
{
	struct fixture *f = *state;
	static float big[16384];
	struct yw_buf v, head, all;
	uint8_t *buf = malloc(65536);
	int ufd = udp_reader(f), i;
	ssize_t n;

	for (i = 0; i < 16384; i++)
		big[i] = (float)i;
	yw_buf_init(&v);
	yw_buf_init(&head);
	yw_buf_init(&all);
	yw_vector_f32(&v, YW_YARP3, big, 16384);
	yw_msg_head(&head, "3 1.5", false, v.len);
	yp_port_write(f->p, &v, NULL, "3 1.5");
	for (i = 0; i < 3; i++) {
		assert_true(pump_until(f, ufd, POLLIN, 2000));
		n = recv(ufd, buf, 65536, 0);
		assert_true(n > 8 && n <= 65507);
		assert_int_equal(le32(buf + 4), i);
		assert_int_equal(le32(buf), yw_crc32(buf + 8, (size_t)n - 8));
		yw_put(&all, buf + 8, (size_t)n - 8);
	}
	assert_int_equal(all.len, head.len + v.len);
	assert_memory_equal(all.data, head.data, head.len);
	assert_memory_equal(all.data + head.len, v.data, v.len);
	close(ufd);
	yw_buf_free(&v);
	yw_buf_free(&head);
	yw_buf_free(&all);
	free(buf);
}

/* A reader that never reads is skipped, then dropped; the other reader
 * gets every message meanwhile. */
static void stalled_reader(void **state)
{
	struct fixture *f = *state;
	static float big[16384];
	struct yw_buf v;
	struct yp_port_stats st;
	int stalled, good, rcv = 4096, i, msgs = 0;
	size_t per_msg, got = 0;
	uint8_t *buf = malloc(1 << 20);

	stalled = yarp_connect(f, "fast_tcp");
	setsockopt(stalled, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	assert_int_equal(yp_port_connect(f->p, "/good", YW_FAST_TCP), 0);
	assert_true(pump_until(f, f->lfd, POLLIN, 2000));
	good = accept(f->lfd, NULL, NULL);
	pump(f, 5);
	assert_true(yp_port_connected(f->p, "/good"));
	read_exact(f, good, buf, 8 + 4 + 5);		/* its header */
	yw_buf_init(&v);
	yw_vector_f32(&v, YW_YARP3, big, 16384);
	per_msg = 8 + 10 + 12 + 8 + v.len;
	/* the stalled reader's socket fills within a few messages */
	for (i = 0; i < 200; i++) {
		yp_port_write(f->p, &v, NULL, NULL);
		msgs++;
		read_exact(f, good, buf, per_msg);
		got += per_msg;
		yp_port_stats(f->p, &st);
		if (st.skipped)
			break;
	}
	assert_true(st.skipped > 0);
	assert_int_equal(st.dropped, 0);
	assert_true(yp_port_connected(f->p, "/dst"));
	/* still stalled past stall_ms (300): the next write drops it */
	usleep(400 * 1000);
	yp_port_write(f->p, &v, NULL, NULL);
	msgs++;
	read_exact(f, good, buf, per_msg);
	got += per_msg;
	yp_port_stats(f->p, &st);
	assert_int_equal(st.dropped, 1);
	assert_false(yp_port_connected(f->p, "/dst"));
	assert_true(yp_port_connected(f->p, "/good"));
	assert_int_equal(got, (size_t)msgs * per_msg);
	close(stalled);
	close(good);
	yw_buf_free(&v);
	free(buf);
}

/* `yarp rpc /src`: a tcp writer; each command's reply is the Bottle and
 * then tcp's ack */
static void rpc_tcp(void **state)
{
	struct fixture *f = *state;
	static const uint8_t hello[] = {
		'Y', 'A', 0xe4, 0x1e, 0, 0, 'R', 'P', I32(5), '/', 'r', 'p', 'c', 0,
	};
	static const uint8_t cmd[] = {
		'Y', 'A', 10, 0, 0, 0, 'R', 'P',
		2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		I32(8), I32(31), I32(0),
		0, 0, 0, 0, '~', 'd', 0, 1,
		I32(260), I32(3), I32(3), 'g', 'e', 't', I32(5), 't', 'o', 'u',
		'c', 'h', I32(3), 't', 'h', 'r',
	};
	static const uint8_t reply[] = {
		I32(256), I32(2), I32(1), I32(3), I32(4), I32(3), 'g', 'e', 't',
		'Y', 'A', 0, 0, 0, 0, 'R', 'P',
	};
	uint8_t num[8];
	int fd = connect_port(f);

	assert_int_equal(send(fd, hello, sizeof(hello), 0), (ssize_t)sizeof(hello));
	yw_number(num, yp_port_number(f->p));
	expect(f, fd, num, 8);
	assert_int_equal(send(fd, cmd, sizeof(cmd), 0), (ssize_t)sizeof(cmd));
	expect(f, fd, reply, sizeof(reply));
	assert_string_equal(f->last_cmd, "get touch thr");
	/* two commands in one write: both answered, in order */
	assert_int_equal(send(fd, cmd, sizeof(cmd), 0), (ssize_t)sizeof(cmd));
	assert_int_equal(send(fd, cmd, sizeof(cmd), 0), (ssize_t)sizeof(cmd));
	expect(f, fd, reply, sizeof(reply));
	expect(f, fd, reply, sizeof(reply));
	close(fd);
	/* garbage instead of a header: closed, counted */
	fd = connect_port(f);
	send_str(fd, "GET / HTTP/1.0\r\n\r\n");
	expect_closed(f, fd);
	close(fd);
}

/* text and text_ack writers: "d", a line; the reply is a line */
static void rpc_text(void **state)
{
	struct fixture *f = *state;
	int fd = connect_port(f);

	send_str(fd, "CONNECT /t\r\nd\r\nset threshold 12\r\n");
	expect_str(f, fd, "Welcome /t\r\n3 \"set\"\r\n");
	assert_string_equal(f->last_cmd, "set threshold 12");
	close(fd);
	fd = connect_port(f);
	send_str(fd, "CONNACK /t\r\nd\r\nhelp\r\n");
	expect_str(f, fd, "Welcome /t\r\n1 \"help\"\r\n<ACK>\r\n");
	close(fd);
}

/* An output port takes no commands: it says so */
static void no_rpc(void **state)
{
	struct fixture *f = *state;
	int fd = connect_port(f);

	send_str(fd, "CONNECT /t\r\nd\r\ncalib\r\n");
	expect_str(f, fd, "Welcome /t\r\n\"this port takes no commands\"\r\n");
	close(fd);
}

/*
 * Hostile peers
 */

static void put_i32(uint8_t *b, uint32_t x)
{
	b[0] = (uint8_t)x;
	b[1] = (uint8_t)(x >> 8);
	b[2] = (uint8_t)(x >> 16);
	b[3] = (uint8_t)(x >> 24);
}

/* A binary admin connection (tcp, PortCore's "a") sending [add] @name:
 * its descriptor, after the reply to the header */
static int bin_add(struct fixture *f, const char *name)
{
	static const uint8_t hello[] = {
		'Y', 'A', 0xe4, 0x1e, 0, 0, 'R', 'P', I32(4), '/', 'h', 'x', 0,
	};
	uint8_t m[512], num[8];
	size_t n = strlen(name), len = 8 + 4 + 3 + 4 + n, o = 0;
	int fd = connect_port(f);

	assert_int_equal(send(fd, hello, sizeof(hello), 0), (ssize_t)sizeof(hello));
	yw_number(num, yp_port_number(f->p));
	expect(f, fd, num, 8);
	memcpy(m, "YA\x0a\0\0\0RP\x02\x01", 10);
	memset(m + 10, 0xff, 8);
	o = 18;
	put_i32(m + o, 8);
	put_i32(m + o + 4, (uint32_t)len);
	put_i32(m + o + 8, 0);
	o += 12;
	memcpy(m + o, "\0\0\0\0~a\0\x01", 8);
	o += 8;
	put_i32(m + o, 256 + 4);	/* a list of strings: "add", @name */
	put_i32(m + o + 4, 2);
	put_i32(m + o + 8, 3);
	memcpy(m + o + 12, "add", 3);
	put_i32(m + o + 15, (uint32_t)n);
	memcpy(m + o + 19, name, n);
	o += len;
	assert_int_equal(send(fd, m, o, 0), (ssize_t)o);
	return fd;
}

/* Every path by which a peer names a port we connect to: a name with a
 * control character, or against YARP's rules, is answered "Cannot
 * connect" and never reaches the lookup (the name server) */
static void injected_names(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"/x\nNAME_SERVER unregister /victim",		/* binary [add] */
		"tcp://x\nNAME_SERVER unregister /victim",	/* carrier://name */
		"/x\rNAME_SERVER unregister /victim",
		"/x\tb", "/x y", "/x/", "...", "x", "/", "/a\"b", "/a(b",
	};
	struct yp_port_stats st;
	unsigned int i;
	int fd;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t reply[8];

		fd = bin_add(f, bad[i]);
		/* a Bottle: (-1 "Cannot connect to ..." ) */
		read_exact(f, fd, reply, 8);
		assert_memory_equal(reply, "\x00\x01\x00\x00\x02\x00\x00\x00", 8);
		close(fd);
	}
	assert_int_equal(f->resolved, 0);
	/* the text admin: a line holds no "\n", but may hold "\r" */
	admin(f, "[add] \"/x\rNAME_SERVER\"\r\n",
	      "-1 \"Cannot connect to /x\rNAME_SERVER\"\r\n");
	assert_int_equal(f->resolved, 0);
	yp_port_stats(f->p, &st);
	assert_int_equal(st.refused, sizeof(bad) / sizeof(bad[0]) + 1);
	/* the owner's own connections are held to the same rule */
	assert_int_equal(yp_port_connect(f->p, "/a\nb", YW_TCP), -EINVAL);
	assert_int_equal(f->resolved, 0);
	/* a good name is looked up */
	fd = bin_add(f, "/dst");
	assert_true(pump_until(f, f->lfd, POLLIN, 2000));
	assert_int_equal(f->resolved, 1);
	close(fd);
	/* the name a peer gives for itself is echoed in replies ([list]
	 * [in], "Welcome"): one with a control character is refused */
	fd = connect_port(f);
	send_str(fd, "CONNACK /a\x1b[2Jb\r\n");
	expect_closed(f, fd);
	close(fd);
}

/* A peer that sends commands and never reads the replies: read no more
 * once 64 KB wait for it, dropped when it has taken none for stall_ms */
static void unread_replies(void **state)
{
	struct fixture *f = *state;
	static const char cmd[] = "a\r\n[help]\r\n";
	struct yp_port_stats st;
	int fd = connect_port(f), rcv = 4096, i;
	size_t sent = 0;
	bool closed = false;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	send_str(fd, "CONNACK /amp\r\n");
	/* 2 s of commands as fast as they are taken (each [help] answers
	 * 500 bytes): the port stops reading, the peer's writes wait, and
	 * after stall_ms (300) the peer is dropped */
	for (i = 0; i < 2000 && !closed; i++) {
		ssize_t n;

		do {
			n = send(fd, cmd, sizeof(cmd) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
		} while (n > 0);
		if (errno != EAGAIN)
			closed = true;
		sd_event_run(f->e, 1000);
	}
	assert_true(closed);
	yp_port_stats(f->p, &st);
	assert_int_equal(st.unread, 1);
	print_message("# %zu bytes of commands taken before the drop\n", sent);
	close(fd);
}

/* Silent connections: one that says nothing is closed within 2 s; one in
 * the middle of a message that sends nothing for idle_ms too; one between
 * messages may stay */
static void idle_connections(void **state)
{
	struct fixture *f = *state;
	struct yp_port_stats st;
	int silent = connect_port(f), half = connect_port(f), quiet = connect_port(f);

	send_str(half, "CONNECT /half\r\nd\r\nget touch");	/* no newline */
	send_str(quiet, "CONNECT /quiet\r\n");
	expect_str(f, half, "Welcome /half\r\n");
	expect_str(f, quiet, "Welcome /quiet\r\n");
	expect_closed(f, half);		/* idle_ms: 300 */
	assert_true(pump_until(f, silent, POLLIN, 3000));
	expect_closed(f, silent);
	yp_port_stats(f->p, &st);
	assert_int_equal(st.timed_out, 2);
	send_str(quiet, "d\r\nhelp\r\n");
	expect_str(f, quiet, "1 \"help\"\r\n");
	close(silent);
	close(half);
	close(quiet);
}

static bool evict(void *data)
{
	struct fixture *f = data;

	return yp_port_evict(f->p);
}

static int connect_from(struct fixture *f, const char *src)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	inet_pton(AF_INET, src, &sa.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(yp_port_number(f->p));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* max_conns 6, max_per_addr 3: a fourth from one address is closed at
 * once; with all six held, a new peer takes the place of the oldest that
 * has not said who it is */
static void connection_caps(void **state)
{
	struct fixture *f = *state;
	struct net_guard_stats gs;
	struct yp_port_stats st;
	int named[3], silent[3], over, fresh, i;
	char w[64];

	net_guard_set_room(f->guard, evict, f);
	for (i = 0; i < 3; i++) {
		named[i] = connect_from(f, "127.0.0.1");
		snprintf(w, sizeof(w), "CONNECT /n%d\r\n", i);
		send_str(named[i], w);
		snprintf(w, sizeof(w), "Welcome /n%d\r\n", i);
		expect_str(f, named[i], w);
	}
	over = connect_from(f, "127.0.0.1");
	expect_closed(f, over);
	for (i = 0; i < 3; i++) {
		silent[i] = connect_from(f, "127.0.0.2");
		pump(f, 5);
	}
	fresh = connect_from(f, "127.0.0.3");
	send_str(fresh, "CONNECT /fresh\r\n");
	expect_str(f, fresh, "Welcome /fresh\r\n");
	expect_closed(f, silent[0]);	/* the oldest silent one */
	net_guard_stats(f->guard, &gs);
	yp_port_stats(f->p, &st);
	assert_int_equal(gs.refused_addr, 1);
	assert_int_equal(gs.evicted, 1);
	assert_int_equal(gs.conns, 6);
	assert_int_equal(st.refused_conns, 1);
	for (i = 0; i < 3; i++) {
		close(named[i]);
		close(silent[i]);
	}
	close(over);
	close(fresh);
}

/* Out of descriptors: each waiting connection is accepted with the
 * reserve and closed (its peer sees the end), so the listener's queue
 * drains and the loop does not spin on it */
static void out_of_descriptors(void **state)
{
	struct fixture *f = *state;
	struct net_guard_stats gs;
	struct rlimit old, low;
	int fds[8], i, probe;

	for (i = 0; i < 8; i++)
		fds[i] = connect_port(f);
	/* no descriptor left for accept() but the guard's reserve: the
	 * lowest free number is the limit */
	probe = dup(0);
	assert_true(probe >= 0);
	close(probe);
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = (rlim_t)probe;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	pump(f, 20);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	for (i = 0; i < 8; i++) {
		expect_closed(f, fds[i]);
		close(fds[i]);
	}
	net_guard_stats(f->guard, &gs);
	assert_int_equal(gs.out_of_fds, 8);
	assert_int_equal(gs.conns, 0);
}

static int setup_hostile(void **state)
{
	return setup_opts(state, true, 300, 300, NULL);
}

static int setup_caps(void **state)
{
	struct net_guard_limits l = { .max_conns = 6, .max_per_addr = 3 };

	return setup_opts(state, false, 0, 0, &l);
}

static int setup_guarded(void **state)
{
	struct net_guard_limits l = { 0, 0 };

	return setup_opts(state, false, 0, 0, &l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(admin_transcript, setup_out, teardown),
		cmocka_unit_test_setup_teardown(data_tcp, setup_out, teardown),
		cmocka_unit_test_setup_teardown(data_fast_tcp_and_text, setup_out, teardown),
		cmocka_unit_test_setup_teardown(data_udp, setup_out, teardown),
		cmocka_unit_test_setup_teardown(data_udp_cut, setup_out, teardown),
		cmocka_unit_test_setup_teardown(udp_bad_port, setup_out, teardown),
		cmocka_unit_test_setup_teardown(stalled_reader, setup_stall, teardown),
		cmocka_unit_test_setup_teardown(rpc_tcp, setup_rpc, teardown),
		cmocka_unit_test_setup_teardown(rpc_text, setup_rpc, teardown),
		cmocka_unit_test_setup_teardown(no_rpc, setup_out, teardown),
		cmocka_unit_test_setup_teardown(injected_names, setup_out, teardown),
		cmocka_unit_test_setup_teardown(unread_replies, setup_hostile, teardown),
		cmocka_unit_test_setup_teardown(idle_connections, setup_hostile, teardown),
		cmocka_unit_test_setup_teardown(connection_caps, setup_caps, teardown),
		cmocka_unit_test_setup_teardown(out_of_descriptors, setup_guarded, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
