// SPDX-License-Identifier: GPL-2.0
/*
 * file.c - opening the files a user names (configurations, geometry,
 * calibration, scenarios, logs) without blocking on what is not a file
 *
 * fopen() of a FIFO waits for a writer and fopen() of some devices waits
 * for the device: skind stuck in either answers nobody (issue 16, item 4).
 * So the path is stat()ed first and anything but a regular file refused
 * before it is opened (opening a device may have side effects); then it
 * is opened with O_NONBLOCK | O_NOCTTY | O_CLOEXEC and the descriptor
 * fstat()ed, which closes the race with a path replaced in between.
 * O_NONBLOCK is cleared again before anything is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model-private.h"

const char *skin_file_type(unsigned int mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFIFO:
		return "a FIFO";
	case S_IFDIR:
		return "a directory";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "of an unknown type";
	}
}

static bool acceptable(const struct stat *st, unsigned int flags)
{
	return S_ISREG(st->st_mode) ||
	       ((flags & SKIN_FILE_STREAM) && S_ISFIFO(st->st_mode));
}

static int refuse(const char *path, const struct stat *st,
		  struct skin_error *err)
{
	skin_error_set(err, path, 0, 0, "is %s, not a regular file",
		       skin_file_type(st->st_mode));
	return -1;
}

int skin_file_open(const char *path, unsigned int flags,
		   struct skin_error *err)
{
	int oflags = O_RDONLY | O_NOCTTY | O_CLOEXEC;
	struct stat st;
	int fd, fl;

	if (stat(path, &st)) {
		/* Upstream skinManager carried on without a missing file
		 * (icub-main #467); a missing file is always an error here. */
		skin_error_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (!acceptable(&st, flags))
		return refuse(path, &st, err);
	/* A stream reader waits for a FIFO's writer, as it would on stdin. */
	if (!S_ISFIFO(st.st_mode))
		oflags |= O_NONBLOCK;
	fd = open(path, oflags);
	if (fd < 0) {
		skin_error_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		skin_error_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!acceptable(&st, flags)) {
		close(fd);
		return refuse(path, &st, err);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || ((fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))) {
		skin_error_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

FILE *skin_file_fopen(const char *path, unsigned int flags,
		      struct skin_error *err)
{
	int fd = skin_file_open(path, flags, err);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		skin_error_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
	}
	return f;
}

char *skin_file_read(const char *path, size_t max, size_t *len,
		     struct skin_error *err)
{
	size_t n = 0, cap, limit;
	struct stat st;
	char *buf;
	int fd;

	fd = skin_file_open(path, 0, err);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (unsigned long long)st.st_size > max) {
		skin_error_set(err, path, 0, 0,
			       "is %lld bytes: expected at most %zu",
			       (long long)st.st_size, max);
		close(fd);
		return NULL;
	}
	/* The size is a hint: the file may change while it is read.  Room
	 * for one byte past it (and the NUL) shows the end without a second
	 * read into a full buffer; one byte past max means it grew. */
	limit = max + 1;
	cap = (size_t)st.st_size + 2;
	buf = malloc(cap);
	if (!buf)
		goto oom;
	for (;;) {
		ssize_t r;

		if (n + 1 == cap) {
			char *b;

			if (n == limit) {
				skin_error_set(err, path, 0, 0,
					       "grew past %zu bytes while read",
					       max);
				goto fail;
			}
			cap = cap * 2 > limit + 1 ? limit + 1 : cap * 2;
			b = realloc(buf, cap);
			if (!b)
				goto oom;
			buf = b;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			skin_error_set(err, path, 0, 0, "read error: %s",
				       strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
oom:
	skin_error_set(err, path, 0, 0, "out of memory");
fail:
	close(fd);
	free(buf);
	return NULL;
}
