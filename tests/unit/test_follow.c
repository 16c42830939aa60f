// SPDX-License-Identifier: GPL-2.0
/*
 * The follower (lib/client/follow.c) where no skind is needed: its
 * options, a socket nobody listens on, and peers that are not skind
 * (they answer the handshake wrongly, pass no descriptor or one that is
 * no skind object, or hang up): it never attaches to them, tells
 * nothing, and tries again after retry_ms.  Then its states on an object
 * of no parts the test lays out and changes itself (a hang-up, retired,
 * a heartbeat that stops and moves again), each at a known moment.
 * Following a real skind (kill -9, reloads, SIGSTOP, samples against the
 * socket's) is the daemon layer's (tests/daemon/followcheck.c).
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
#include <fcntl.h>
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
	enum skin_follow_event ev[8];
	int reason[8];
	bool map[8];		/* s->map given */
	unsigned int part[8];	/* SAMPLE and STATE */
};

static void count(struct skin_follow *f, enum skin_follow_event ev,
		  const struct skin_follow_sample *s, void *data)
{
	struct events *e = data;

	assert_true(s->map == skin_follow_map(f));
	if (e->n < 8) {
		e->ev[e->n] = ev;
		e->reason[e->n] = s->reason;
		e->map[e->n] = s->map;
		e->part[e->n] = s->part;
		if (ev == SKIN_FOLLOW_SAMPLE || ev == SKIN_FOLLOW_STATE)
			assert_ptr_equal(s->block, skin_follow_block(f, s->part));
	}
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

/* --- an object of no parts, laid out here ------------------------------ */

struct object {
	int fd;
	struct skin_shm_header *h;	/* writable: the test is its writer */
};

static void object_make(struct object *o, uint32_t heartbeat_ms)
{
	struct skin_shm_header *h;

	o->fd = memfd_create("skin-shm", MFD_CLOEXEC);
	assert_true(o->fd >= 0);
	assert_int_equal(ftruncate(o->fd, 4096), 0);
	h = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, o->fd, 0);
	assert_true(h != MAP_FAILED);
	h->magic = SKIN_SHM_MAGIC;
	h->version_major = SKIN_SHM_VERSION_MAJOR;
	h->version_minor = SKIN_SHM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->part_desc_size = sizeof(struct skin_shm_part_desc);
	h->contact_size = sizeof(struct skin_contact_record);
	h->size = 4096;
	h->generation = 1;
	h->state = SKIN_SHM_LIVE;
	h->heartbeat_ms = heartbeat_ms;
	h->instance = 42;
	o->h = h;
}

static void object_free(struct object *o)
{
	munmap(o->h, 4096);
	close(o->fd);
}

struct peer {
	char *path;
	int lfd, fd;
	struct skin_follow *f;
	struct events e;
};

static void peer_start(struct peer *p)
{
	struct skin_follow_options o = { .retry_ms = RETRY_MS };

	memset(p, 0, sizeof(*p));
	p->path = tmp_path("object.sock");
	p->lfd = listen_at(p->path);
	p->fd = -1;
	o.socket = p->path;
	assert_int_equal(skin_follow_new(&p->f, &o), 0);
}

static void peer_stop(struct peer *p)
{
	skin_follow_free(p->f);
	if (p->fd >= 0)
		close(p->fd);
	close(p->lfd);
	unlink(p->path);
	free(p->path);
}

/* Dispatch, within a bound, until @n events in all. */
static void events_until(struct peer *p, unsigned int n)
{
	int i;

	for (i = 0; i < 100 && p->e.n < n; i++) {
		struct pollfd pf = { skin_follow_fd(p->f), POLLIN, 0 };
		int t = skin_follow_timeout_ms(p->f);

		poll(&pf, 1, t < 0 || t > 20 ? 20 : t);
		assert_true(skin_follow_dispatch(p->f, count, &p->e) >= 0);
	}
	assert_int_equal(p->e.n, n);
}

/* The follower connects; the peer answers as skind would, with @o. */
static void serve(struct peer *p, struct object *o)
{
	assert_int_equal(skin_follow_dispatch(p->f, count, &p->e), 0);
	assert_true(skin_follow_fd(p->f) >= 0);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(p->fd >= 0);
	expect_handshake(p->fd);
	send_reply(p->fd, "shm /x size 4096 generation 1 version 1.1\nok\n", o->fd);
	send_reply(p->fd, "ok subscribed samples all every\n", -1);
}

static void test_attach_hang_up(void **state)
{
	struct object o;
	struct peer p;

	(void)state;
	object_make(&o, 0);
	peer_start(&p);
	serve(&p, &o);
	events_until(&p, 1);
	assert_int_equal(p.e.ev[0], SKIN_FOLLOW_ATTACHED);
	assert_true(p.e.map[0]);
	assert_non_null(skin_follow_map(p.f));
	assert_int_equal(skin_follow_map(p.f)->hdr->instance, 42);
	/* no heartbeat (0): nothing to check on a clock */
	assert_int_equal(skin_follow_timeout_ms(p.f), -1);
	/* skind dies: its connection closes, the object stays live */
	close(p.fd);
	p.fd = -1;
	events_until(&p, 2);
	assert_int_equal(p.e.ev[1], SKIN_FOLLOW_DETACHED);
	assert_int_equal(p.e.reason[1], -ECONNRESET);
	assert_false(p.e.map[1]);
	assert_null(skin_follow_map(p.f));
	/* a successor needs time: the next attempt after a retry */
	assert_int_equal(skin_follow_fd(p.f), -1);
	assert_true(skin_follow_timeout_ms(p.f) > 0);
	peer_stop(&p);
	object_free(&o);
}

static void test_retired(void **state)
{
	struct object o;
	struct peer p;
	int i;

	(void)state;
	object_make(&o, 0);
	peer_start(&p);
	serve(&p, &o);
	events_until(&p, 1);
	/* a reload: the object retired, the connection open */
	__atomic_store_n(&o.h->state, SKIN_SHM_RETIRED, __ATOMIC_RELEASE);
	events_until(&p, 2);
	assert_int_equal(p.e.ev[1], SKIN_FOLLOW_DETACHED);
	assert_int_equal(p.e.reason[1], -ESTALE);
	/* skind is there: asked again at once */
	assert_int_equal(skin_follow_timeout_ms(p.f), 0);
	/* and it passes the same, retired object: not attached, nothing
	 * told, and not asked again at once (no loop) */
	serve(&p, &o);
	for (i = 0; i < 100 && skin_follow_fd(p.f) >= 0; i++) {
		struct pollfd pf = { skin_follow_fd(p.f), POLLIN, 0 };

		poll(&pf, 1, 20);
		assert_int_equal(skin_follow_dispatch(p.f, count, &p.e), 0);
	}
	assert_int_equal(p.e.n, 2);
	assert_int_equal(skin_follow_fd(p.f), -1);
	assert_true(skin_follow_timeout_ms(p.f) > 0);
	peer_stop(&p);
	object_free(&o);
}

static void test_heartbeat(void **state)
{
	struct object o;
	struct peer p;
	int fd;

	(void)state;
	object_make(&o, 5);	/* stale after 4 x 5 ms without a beat */
	peer_start(&p);
	serve(&p, &o);
	events_until(&p, 1);
	assert_int_equal(skin_follow_timeout_ms(p.f), 5);
	fd = skin_follow_fd(p.f);
	/* no beat: DETACHED -ETIMEDOUT, the connection and the mapping kept */
	events_until(&p, 2);
	assert_int_equal(p.e.ev[1], SKIN_FOLLOW_DETACHED);
	assert_int_equal(p.e.reason[1], -ETIMEDOUT);
	assert_null(skin_follow_map(p.f));
	assert_int_equal(skin_follow_fd(p.f), fd);
	/* still none: nothing more to say */
	nap_ms(30);
	assert_int_equal(skin_follow_dispatch(p.f, count, &p.e), 0);
	assert_int_equal(p.e.n, 2);
	/* it beats again: ATTACHED, the same object */
	__atomic_fetch_add(&o.h->heartbeat, 1, __ATOMIC_RELAXED);
	events_until(&p, 3);
	assert_int_equal(p.e.ev[2], SKIN_FOLLOW_ATTACHED);
	assert_int_equal(skin_follow_fd(p.f), fd);
	assert_int_equal(skin_follow_map(p.f)->hdr->instance, 42);
	peer_stop(&p);
	object_free(&o);
}

/*
 * Parts "a" and "b" in the object, 4 slots and room for 4 contacts each,
 * both published once; part a holds 1 contact (id 7), and a contact the
 * writer left past it (id 99) that is no part of the publication.  Part
 * a is calibrated and has 1.3's baselines, current and its calibration's;
 * part b's descriptor has none (offsets 0, as an older writer's).
 */
static const double base_a[4] = { 15.5, 16, 0, 14.25 };
static const double cal_a[4] = { 15, 16, 0, 14.125 };

static void object_two_parts(struct object *o)
{
	static const char *const names[2] = { "a", "b" };
	struct skin_shm_part_desc *d;
	unsigned int i;

	object_make(o, 0);
	o->h->n_parts = 2;
	for (i = 0; i < 2; i++) {
		struct skin_shm_part *sp;
		struct skin_contact_record *c;

		d = (struct skin_shm_part_desc *)((char *)o->h + sizeof(*o->h)) + i;
		snprintf(d->name, sizeof(d->name), "%s", names[i]);
		d->n_taxels = 4;
		d->n_patches = 1;
		d->max_contacts = 4;
		d->offset = 320 + i * 896;
		d->size = 896;
		d->values_off = 72;
		d->raw_off = 88;
		d->flags_off = 96;
		d->contacts_off = 104;
		d->contact_taxels_off = 776;
		d->thresholds_off = 792;
		sp = (struct skin_shm_part *)((char *)o->h + d->offset);
		c = (struct skin_contact_record *)((char *)sp + d->contacts_off);
		if (!i) {
			d->baselines_off = 824;
			d->cal_baselines_off = 856;
			memcpy((char *)sp + 824, base_a, sizeof(base_a));
			memcpy((char *)sp + 856, cal_a, sizeof(cal_a));
			sp->state = SKIN_SHM_PART_CALIBRATED | SKIN_SHM_PART_THRESHOLDS;
		}
		sp->samples = 1;
		sp->n_contacts = i ? 0 : 1;
		c[0].id = 7;
		c[1].id = 99;
		__atomic_store_n(&sp->seq, 2, __ATOMIC_RELEASE);
	}
}

/* A follower of part a only, on a non-blocking socket: a's copy holds
 * its one contact and nothing past it; b is neither copied nor told. */
static void test_part_filter(void **state)
{
	static const char *const only_a[] = { "a" };
	const struct skin_contact_record *c;
	const void *block;
	struct object o;
	struct peer p;

	(void)state;
	object_two_parts(&o);
	peer_start(&p);
	assert_int_equal(skin_follow_set_parts(p.f, only_a, 1), 0);
	serve(&p, &o);
	assert_true(fcntl(skin_follow_fd(p.f), F_GETFL) & O_NONBLOCK);
	events_until(&p, 2);
	assert_int_equal(p.e.ev[0], SKIN_FOLLOW_ATTACHED);
	assert_int_equal(p.e.ev[1], SKIN_FOLLOW_SAMPLE);
	assert_int_equal(p.e.part[1], 0);
	assert_null(skin_follow_block(p.f, 1));
	block = skin_follow_block(p.f, 0);
	assert_non_null(block);
	assert_int_equal(skin_shm_head(block)->n_contacts, 1);
	c = skin_shm_contact(skin_follow_map(p.f), 0, block, 0);
	assert_int_equal(c->id, 7);
	c = skin_shm_contact(skin_follow_map(p.f), 0, block, 1);
	assert_int_equal(c->id, 0);	/* not in use: not copied */
	/* 1.3's baselines came with the copy */
	assert_memory_equal(skin_shm_baselines(skin_follow_map(p.f), 0, block),
			    base_a, sizeof(base_a));
	assert_memory_equal(skin_shm_cal_baselines(skin_follow_map(p.f), 0, block),
			    cal_a, sizeof(cal_a));
	/* nothing new: nothing told, the copy stays */
	assert_int_equal(skin_follow_dispatch(p.f, count, &p.e), 0);
	assert_int_equal(p.e.n, 2);
	assert_ptr_equal(skin_follow_block(p.f, 0), block);
	/* b followed too: it comes at the next dispatch */
	assert_int_equal(skin_follow_set_parts(p.f, NULL, 0), 0);
	events_until(&p, 3);
	assert_int_equal(p.e.ev[2], SKIN_FOLLOW_SAMPLE);
	assert_int_equal(p.e.part[2], 1);
	block = skin_follow_block(p.f, 1);
	assert_non_null(block);
	/* an older writer's part: no baselines, not zeros read as some */
	assert_null(skin_shm_baselines(skin_follow_map(p.f), 1, block));
	assert_null(skin_shm_cal_baselines(skin_follow_map(p.f), 1, block));
	peer_stop(&p);
	object_free(&o);
}

/* A 1.3 descriptor whose baselines would lie past its block: the map is
 * refused, as for any array out of bounds */
static void test_baselines_out_of_block(void **state)
{
	struct skin_shm_part_desc *d;
	struct skin_shm_map m;
	struct object o;
	int fd;

	(void)state;
	object_two_parts(&o);
	fd = dup(o.fd);
	assert_int_equal(skin_shm_map_fd(&m, fd), 0);
	skin_shm_close(&m);
	d = (struct skin_shm_part_desc *)((char *)o.h + sizeof(*o.h));
	/* a copy: both arrays; the calibration's only while the state says
	 * a calibration wrote them */
	fd = dup(o.fd);
	assert_int_equal(skin_shm_map_fd(&m, fd), 0);
	{
		char buf[896];
		struct skin_shm_part *sp = (struct skin_shm_part *)((char *)o.h + 320);

		assert_int_equal(skin_shm_read_part(&m, 0, buf, 10), 0);
		assert_memory_equal(skin_shm_cal_baselines(&m, 0, buf), cal_a, sizeof(cal_a));
		sp->state = SKIN_SHM_PART_CALIBRATING;
		assert_int_equal(skin_shm_read_part(&m, 0, buf, 10), 0);
		assert_null(skin_shm_cal_baselines(&m, 0, buf));
		assert_memory_equal(skin_shm_baselines(&m, 0, buf), base_a, sizeof(base_a));
	}
	skin_shm_close(&m);
	d->cal_baselines_off = 872;	/* 872 + 4 * 8 > 896 */
	fd = dup(o.fd);
	assert_int_equal(skin_shm_map_fd(&m, fd), -EPROTO);
	d->cal_baselines_off = 860;	/* inside, not 8-aligned */
	fd = dup(o.fd);
	assert_int_equal(skin_shm_map_fd(&m, fd), -EPROTO);
	object_free(&o);
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
		cmocka_unit_test(test_attach_hang_up),
		cmocka_unit_test(test_retired),
		cmocka_unit_test(test_heartbeat),
		cmocka_unit_test(test_part_filter),
		cmocka_unit_test(test_baselines_out_of_block),
	};

	int r = cmocka_run_group_tests(tests, NULL, NULL);

	if (dir[0])
		rmdir(dir);
	return r;
}
