/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap_skip.h - a skipped cmocka case reported as TAP's "ok N # SKIP"
 *
 * cmocka 1.1.5 (Debian 12) prints a case that called skip() as "not ok N
 * # SKIP", which TAP consumers (meson test among them) count as a
 * failure; TAP's skip is "ok N # SKIP".  tap_skip_filter() puts a child
 * process between the test and its standard output that rewrites those
 * lines and passes every other byte as it comes, so a crash of the test
 * loses nothing it printed.  Call it first thing in main(); the child
 * ends when the test's output closes, at exit.
 */
#ifndef TAP_SKIP_H
#define TAP_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void tap_skip_wait(void)
{
	fflush(stdout);
	fclose(stdout);		/* the child's end of file */
	wait(NULL);
}

static inline void tap_skip_filter(void)
{
	char line[4096];
	int fd[2];
	FILE *in;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) || (pid = fork()) < 0) {
		perror("tap_skip_filter");
		exit(1);
	}
	if (pid) {		/* the test */
		if (dup2(fd[1], STDOUT_FILENO) < 0) {
			perror("tap_skip_filter");
			exit(1);
		}
		close(fd[0]);
		close(fd[1]);
		atexit(tap_skip_wait);
		return;
	}
	close(fd[1]);
	in = fdopen(fd[0], "r");
	if (!in)
		_exit(1);
	while (fgets(line, sizeof(line), in)) {
		const char *rest = !strncmp(line, "not ok ", 7) ? line + 4 : NULL;
		const char *dir = rest ? strstr(rest, " # SKIP") : NULL;

		/* "not ok N # SKIP...": the number alone before the directive */
		if (dir && rest + 3 + strspn(rest + 3, "0123456789") == dir)
			fputs(rest, stdout);
		else
			fputs(line, stdout);
		fflush(stdout);
	}
	_exit(0);
}

#endif
