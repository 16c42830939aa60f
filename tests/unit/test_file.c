// SPDX-License-Identifier: GPL-2.0
/*
 * test_file.c - skin_file_open() and every reader of a file a user names:
 * a FIFO, a directory, a device or a socket is refused at once with a
 * message naming the file and what it is (issue 16, item 4: fopen() of a
 * FIFO hung skind).  Every case runs under alarm(), so a reader that
 * blocks kills the program (a failure) instead of hanging the layer.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "test_model_util.h"
#include "skin/canlog.h"
#include "skin/proc.h"
#include "skin/sim.h"

#define GUARD_S 10

static char dir[256];
static char fifo[300], sock[100], reg[300];

static int setup(void **state)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_file.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(fifo, sizeof(fifo), "%s/f.conf", dir);
	if (snprintf(sock, sizeof(sock), "%s/s.conf", dir) >= (int)sizeof(sock))
		return -1;
	snprintf(reg, sizeof(reg), "%s/r.txt", dir);
	if (mkfifo(fifo, 0600))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memcpy(a.sun_path, sock, strlen(sock) + 1);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	close(fd);	/* the socket file stays */
	fd = open(reg, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "0123456789", 10) != 10)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(fifo);
	unlink(sock);
	unlink(reg);
	rmdir(dir);
	return 0;
}

static void want(const struct skin_error *err, const char *path,
		 const char *what)
{
	char text[1200];

	snprintf(text, sizeof(text), "%s: %s", path, what);
	if (strcmp(err->text, text))
		fail_msg("got:  %s\nwant: %s", err->text, text);
}

struct odd {
	const char *path;
	const char *what;
};

/* Each path that is not a regular file and what the message calls it. */
static const struct odd *odd(unsigned int *n)
{
	static struct odd o[4];

	o[0].path = fifo;
	o[0].what = "is a FIFO, not a regular file";
	o[1].path = dir;
	o[1].what = "is a directory, not a regular file";
	o[2].path = "/dev/null";
	o[2].what = "is a character device, not a regular file";
	o[3].path = sock;
	o[3].what = "is a socket, not a regular file";
	*n = 4;
	return o;
}

static void helper(void **state)
{
	struct skin_error err;
	unsigned int i, n;
	const struct odd *o = odd(&n);
	size_t len;
	char *buf;
	FILE *f;
	int fd;

	(void)state;
	alarm(GUARD_S);
	for (i = 0; i < n; i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(skin_file_open(o[i].path, 0, &err), -1);
		want(&err, o[i].path, o[i].what);
		memset(&err, 0, sizeof(err));
		assert_null(skin_file_fopen(o[i].path, 0, &err));
		want(&err, o[i].path, o[i].what);
		memset(&err, 0, sizeof(err));
		assert_null(skin_file_read(o[i].path, SKIN_FILE_MAX, &len, &err));
		want(&err, o[i].path, o[i].what);
	}
	assert_int_equal(skin_file_open("/nonexistent/x", 0, &err), -1);
	want(&err, "/nonexistent/x", "cannot open: No such file or directory");

	buf = skin_file_read(reg, SKIN_FILE_MAX, &len, &err);
	assert_non_null(buf);
	assert_int_equal(len, 10);
	assert_string_equal(buf, "0123456789");
	free(buf);
	assert_null(skin_file_read(reg, 9, &len, &err));
	want(&err, reg, "is 10 bytes: expected at most 9");
	buf = skin_file_read(reg, 10, &len, &err);
	assert_non_null(buf);
	free(buf);

	/* the descriptor reads blocking (O_NONBLOCK cleared) and closes on exec */
	fd = skin_file_open(reg, 0, &err);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	f = skin_file_fopen(reg, 0, &err);
	assert_non_null(f);
	assert_int_equal(fgetc(f), '0');
	fclose(f);
	alarm(0);
}

/* SKIN_FILE_STREAM takes a FIFO (a log), nothing else that is odd. */
static void stream(void **state)
{
	struct skin_error err;
	unsigned int i, n;
	const struct odd *o = odd(&n);
	int keep, fd;

	(void)state;
	alarm(GUARD_S);
	/* a writer already there, so the blocking open returns at once */
	keep = open(fifo, O_RDWR | O_NONBLOCK);
	assert_true(keep >= 0);
	fd = skin_file_open(fifo, SKIN_FILE_STREAM, &err);
	assert_true(fd >= 0);
	close(fd);
	close(keep);
	for (i = 1; i < n; i++) {
		assert_int_equal(skin_file_open(o[i].path, SKIN_FILE_STREAM, &err), -1);
		want(&err, o[i].path, o[i].what);
	}
	alarm(0);
}

/* Every loader of the libraries goes through it. */
static void readers(void **state)
{
	struct skin_error err;
	unsigned int i, n;
	const struct odd *o = odd(&n);

	(void)state;
	alarm(GUARD_S);
	for (i = 0; i < n; i++) {
		struct skin_canlog *l;

		memset(&err, 0, sizeof(err));
		assert_null(skin_config_load(o[i].path, &err));
		want(&err, o[i].path, o[i].what);
		memset(&err, 0, sizeof(err));
		assert_null(skin_model_load(o[i].path, SKIN_FORMAT_AUTO, &err));
		want(&err, o[i].path, o[i].what);
		memset(&err, 0, sizeof(err));
		assert_null(skin_sim_scenario_load(o[i].path, &err));
		want(&err, o[i].path, o[i].what);
		if (i == 0)
			continue;	/* a FIFO is a stream for a log */
		memset(&err, 0, sizeof(err));
		l = skin_canlog_open(o[i].path, &err);
		assert_null(l);
		want(&err, o[i].path, o[i].what);
	}
	alarm(0);
}

/* A geometry path in a configuration that is a FIFO: named, with where
 * the configuration names it. */
static void geometry(void **state)
{
	struct skin_error err;
	struct skin_config *c;
	char text[1024], w[1200];

	(void)state;
	alarm(GUARD_S);
	snprintf(text, sizeof(text),
		 "[bus can0]\n[part a]\ngeometry = %s\npatches = can0:14\n", fifo);
	c = skin_config_load_buffer(text, strlen(text), "/etc/skin/skind.conf", &err);
	assert_non_null(c);
	assert_null(skin_config_build_model(c, &err));
	snprintf(w, sizeof(w),
		 "%s: is a FIFO, not a regular file (geometry of [part a] in /etc/skin/skind.conf:2)",
		 fifo);
	assert_string_equal(err.text, w);
	skin_config_free(c);
	alarm(0);
}

/* The calibration file (lib/proc): a FIFO is refused, not waited on. */
static void calibration(void **state)
{
	struct skin_config *c;
	struct skin_model *m;
	struct skin_proc *p;
	struct skin_error err;
	static const char conf[] =
		"[bus can0]\n[part left_hand]\nlayout = hand_v2_1\npatches = can0:14\n";

	(void)state;
	alarm(GUARD_S);
	c = skin_config_load_buffer(conf, strlen(conf), "x.conf", &err);
	assert_non_null(c);
	m = skin_config_build_model(c, &err);
	assert_non_null(m);
	p = skin_proc_new(m, &c->comp, &err);
	assert_non_null(p);
	assert_int_equal(skin_proc_restore(p, fifo, &err), -1);
	want(&err, fifo, "is a FIFO, not a regular file");
	assert_int_equal(skin_proc_restore(p, dir, &err), -1);
	want(&err, dir, "is a directory, not a regular file");
	skin_proc_free(p);
	skin_model_free(m);
	skin_config_free(c);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(helper),
		cmocka_unit_test(stream),
		cmocka_unit_test(readers),
		cmocka_unit_test(geometry),
		cmocka_unit_test(calibration),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
