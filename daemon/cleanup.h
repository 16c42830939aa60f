/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cleanup.h - scope-bound ownership, as systemd's _cleanup_
 *
 * A variable declared _cleanup_(f) has f(&variable) run when it goes out
 * of scope, so a function with many exits frees what it built on every
 * one of them; TAKE_PTR() and TAKE_FD() hand the object on (the variable
 * is left NULL or -1, which the cleanup functions ignore).
 */
#ifndef SKIND_CLEANUP_H
#define SKIND_CLEANUP_H

#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)	__attribute__((cleanup(f)))

#define TAKE_PTR(p) ({				\
	__typeof__(p) *p_ = &(p);		\
	__typeof__(p) v_ = *p_;			\
	*p_ = NULL;				\
	v_;					\
})

#define TAKE_FD(fd) ({				\
	int *fd_ = &(fd);			\
	int v_ = *fd_;				\
	*fd_ = -1;				\
	v_;					\
})

static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#endif
