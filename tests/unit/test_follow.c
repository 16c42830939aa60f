// SPDX-License-Identifier: GPL-2.0
/*
 * The follower (lib/client/follow.c) where no skind is needed: its
 * options, a socket nobody listens on, and peers that are not skind
 * (they answer the handshake wrongly, pass no descriptor or one that is
 * no skind object, or hang up): it never attaches to them, tells
 * nothing, and tries again after retry_ms.  Following a real skind
 * (kill -9, reloads, SIGSTOP) is the daemon layer's
 * (tests/daemon/followcheck.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <skin/follow.h>

#define RETRY_MS	50

struct events {
	unsigned int n;
};

static void count(struct skin_follow *f, enum skin_follow_event ev,
		  const struct skin_follow_sample *s, void *data)
{
	struct events *e = data;

	(void)f;
	(void)ev;
	(void)s;
	e->n++;
}

static void nap_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_options(void **state)
{
	struct skin_follow_options o = { .socket = "" };
	struct skin_follow *f = (void *)1;

	(void)state;
	assert_int_equal(skin_follow_new(&f, &o), -EINVAL);
	assert_null(f);
	assert_int_equal(skin_follow_new(&f, NULL), 0);
	assert_non_null(f);
	/* not attached on return, and the first dispatch is due at once */
	assert_int_equal(skin_follow_fd(f), -1);
	assert_int_equal(skin_follow_timeout_ms(f), 0);
	assert_null(skin_follow_map(f));
	skin_follow_free(f);
	skin_follow_free(NULL);
}

static char dir[64];

/* A directory of the test's own, for sockets. */
static char *tmp_path(const char *name)
{
	char *p;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/test_follow.XXXXXX");
		assert_non_null(mkdtemp(dir));
	}
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void test_nobody_listens(void **state)
{
	struct skin_follow_options o = { .retry_ms = RETRY_MS };
	struct events e = { 0 };
	struct skin_follow *f;
	int t, i;

	(void)state;
	o.socket = tmp_path("absent.sock");
	assert_int_equal(skin_follow_new(&f, &o), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(skin_follow_dispatch(f, count, &e), 0);
		assert_int_equal(skin_follow_fd(f), -1);
		t = skin_follow_timeout_ms(f);
		assert_true(t > 0 && t <= RETRY_MS);
		/* early: nothing is due, nothing happens */
		assert_int_equal(skin_follow_dispatch(f, count, &e), 0);
		nap_ms((unsigned int)t);
	}
	assert_int_equal(e.n, 0);
	assert_null(skin_follow_map(f));
	skin_follow_free(f);
	free((char *)o.socket);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* What the follower sends a new connection: both commands at once. */
static void expect_handshake(int peer)
{
	static const char want[] = "shm\nsubscribe samples all\n";
	char buf[128];
	size_t got = 0;

	while (got < sizeof(want) - 1) {
		struct pollfd p = { peer, POLLIN, 0 };
		ssize_t n;

		assert_int_equal(poll(&p, 1, 5000), 1);
		n = read(peer, buf + got, sizeof(buf) - 1 - got);
		assert_true(n > 0);
		got += (size_t)n;
	}
	buf[got] = 0;
	assert_string_equal(buf, want);
}

static void send_reply(int peer, const char *text, int pass)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (pass >= 0) {
		struct cmsghdr *cm;

		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	}
	assert_int_equal(sendmsg(peer, &msg, MSG_NOSIGNAL), (ssize_t)iov.iov_len);
}

/*
 * A peer answering @reply (NULL: hanging up), with @pass as the `shm`
 * reply's descriptor (-1: none): the follower must not attach, must say
 * nothing, must drop the connection and come back after retry_ms.
 */
static void not_skind(const char *reply, int pass)
{
	struct skin_follow_options o = { .retry_ms = RETRY_MS };
	struct events e = { 0 };
	struct skin_follow *f;
	int lfd, peer, round, t;
	char *path = tmp_path("peer.sock");

	lfd = listen_at(path);
	o.socket = path;
	assert_int_equal(skin_follow_new(&f, &o), 0);
	for (round = 0; round < 2; round++) {
		/* connects and sends at once, without waiting for replies */
		assert_int_equal(skin_follow_dispatch(f, count, &e), 0);
		assert_true(skin_follow_fd(f) >= 0);
		peer = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		assert_true(peer >= 0);
		expect_handshake(peer);
		/* no reply yet: it waits for one, telling nothing */
		assert_int_equal(skin_follow_dispatch(f, count, &e), 0);
		assert_true(skin_follow_fd(f) >= 0);
		if (reply)
			send_reply(peer, reply, pass);
		else
			shutdown(peer, SHUT_RDWR);
		for (t = 0; t < 100 && skin_follow_fd(f) >= 0; t++) {
			struct pollfd p = { skin_follow_fd(f), POLLIN, 0 };

			poll(&p, 1, 50);
			assert_int_equal(skin_follow_dispatch(f, count, &e), 0);
		}
		/* dropped: nothing to poll until the next attempt */
		assert_int_equal(skin_follow_fd(f), -1);
		t = skin_follow_timeout_ms(f);
		assert_true(t > 0 && t <= RETRY_MS);
		assert_null(skin_follow_map(f));
		close(peer);
		nap_ms((unsigned int)t);
	}
	assert_int_equal(e.n, 0);
	skin_follow_free(f);
	close(lfd);
	unlink(path);
	free(path);
}

static void test_ok_without_shm_line(void **state)
{
	(void)state;
	not_skind("ok\nok subscribed samples all every\n", -1);
}

static void test_shm_line_without_fd(void **state)
{
	(void)state;
	not_skind("shm /run/skin/skind.shm size 4096 generation 1 version 1.1\nok\n"
		  "ok subscribed samples all every\n", -1);
}

static void test_shm_refused(void **state)
{
	(void)state;
	not_skind("error too-many-descriptors descriptors in flight at their bound\n"
		  "ok subscribed samples all every\n", -1);
}

static void test_not_an_object(void **state)
{
	int fd = memfd_create("zeros", MFD_CLOEXEC);

	(void)state;
	/* a descriptor of 64 KiB of zeros: no skind object (no magic) */
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 65536), 0);
	not_skind("shm /x size 65536 generation 1 version 1.1\nok\n"
		  "ok subscribed samples all every\n", fd);
	close(fd);
}

static void test_hangs_up(void **state)
{
	(void)state;
	not_skind(NULL, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_nobody_listens),
		cmocka_unit_test(test_ok_without_shm_line),
		cmocka_unit_test(test_shm_line_without_fd),
		cmocka_unit_test(test_shm_refused),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_hangs_up),
	};

	int r = cmocka_run_group_tests(tests, NULL, NULL);

	if (dir[0])
		rmdir(dir);
	return r;
}
