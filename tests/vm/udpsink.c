// SPDX-License-Identifier: GPL-2.0
/*
 * udpsink - the VM's stand-in for yarprobotinterface: owns a UDP port on
 * the head PC and counts what reaches it, so that a case can show the ETH
 * gateway beside it takes nothing away.
 *
 * Usage: udpsink IPV4 PORT COUNTFILE
 *
 * Binds IPV4:PORT (SO_REUSEADDR, not SO_REUSEPORT: a second owner would
 * share the datagrams) with an 8 MiB receive buffer (SO_RCVBUFFORCE: the
 * emulated machine can stall it for longer than the default's few dozen
 * datagrams), then counts every datagram and its bytes, per source
 * address, and the datagrams its own full buffer dropped (SO_RXQ_OVFL):
 * what never reached it, whoever else reads the wire.  After each datagram
 * that changes them, at most every 100 ms, and on SIGTERM/SIGINT,
 * COUNTFILE is replaced (rename) by lines "SOURCE DATAGRAMS BYTES", a line
 * "dropped DATAGRAMS" and a last line "all DATAGRAMS BYTES".
 * Static (gcc -static): the guest needs no libc of its own for it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOURCES 64

static struct source {
	struct in_addr addr;
	unsigned long long datagrams, bytes;
} sources[MAX_SOURCES];
static unsigned int n_sources;
static unsigned long long all_datagrams, all_bytes, other_datagrams, other_bytes;
static uint32_t dropped;	/* SO_RXQ_OVFL: the socket's drops so far */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void count(struct in_addr a, size_t len)
{
	unsigned int i;

	all_datagrams++;
	all_bytes += len;
	for (i = 0; i < n_sources; i++)
		if (sources[i].addr.s_addr == a.s_addr)
			break;
	if (i == n_sources) {
		if (n_sources == MAX_SOURCES) {
			other_datagrams++;
			other_bytes += len;
			return;
		}
		sources[n_sources++].addr = a;
	}
	sources[i].datagrams++;
	sources[i].bytes += len;
}

static int save(const char *path)
{
	char tmp[4096];
	unsigned int i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	for (i = 0; i < n_sources; i++)
		fprintf(f, "%s %llu %llu\n", inet_ntoa(sources[i].addr),
			sources[i].datagrams, sources[i].bytes);
	if (other_datagrams)
		fprintf(f, "other %llu %llu\n", other_datagrams, other_bytes);
	fprintf(f, "dropped %u\n", dropped);
	fprintf(f, "all %llu %llu\n", all_datagrams, all_bytes);
	if (fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static unsigned char buf[65536];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned long long saved_ms = 0;
	bool dirty = true;
	struct sigaction sa = { .sa_handler = on_signal };
	int fd, one = 1, rcvbuf = 8 << 20;

	if (argc != 4 || !inet_aton(argv[1], &sin.sin_addr) || !atoi(argv[2])) {
		fprintf(stderr, "usage: udpsink IPV4 PORT COUNTFILE\n");
		return 2;
	}
	sin.sin_port = htons((unsigned short)atoi(argv[2]));
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		fprintf(stderr, "udpsink: %s:%s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	if (save(argv[3])) {
		fprintf(stderr, "udpsink: %s: %s\n", argv[3], strerror(errno));
		return 1;
	}
	while (!stop) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_in from;
		union {
			char buf[CMSG_SPACE(sizeof(uint32_t))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
		};
		struct cmsghdr *c;
		ssize_t n;

		if (poll(&p, 1, 100) > 0) {
			n = recvmsg(fd, &msg, MSG_DONTWAIT);
			if (n >= 0) {
				count(from.sin_addr, (size_t)n);
				for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
					if (c->cmsg_level == SOL_SOCKET &&
					    c->cmsg_type == SO_RXQ_OVFL)
						memcpy(&dropped, CMSG_DATA(c), sizeof(dropped));
				dirty = true;
			}
		}
		if (dirty && now_ms() - saved_ms >= 100) {
			if (save(argv[3]))
				return 1;
			saved_ms = now_ms();
			dirty = false;
		}
	}
	return save(argv[3]) ? 1 : 0;
}
