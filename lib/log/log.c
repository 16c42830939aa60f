// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - the journal or stderr, for skind and the bridges (log.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"

static const char *ident = "skin";
static int max_priority = LOG_INFO;
static int use_journal;
static int use_prefix;

/*
 * systemd sets $JOURNAL_STREAM to "DEV:INODE" of the stream it connected
 * to stderr; only when stderr still is that stream do we talk to the
 * journal directly (sd-daemon(3)).
 */
static int stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return 0;
	if (fstat(STDERR_FILENO, &st) < 0)
		return 0;
	return st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

void log_init(const char *name, int priority, int force_prefix)
{
	ident = name;
	max_priority = priority;
	use_journal = stderr_is_journal();
	use_prefix = force_prefix;
}

void log_set_max_priority(int priority)
{
	max_priority = priority;
}

int log_max_priority(void)
{
	return max_priority;
}

static void vlog(int priority, const char *field, const char *value,
		 const char *fmt, va_list ap)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info",
		"debug",
	};
	char text[1024];
	int saved = errno;

	if (priority > max_priority)
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	if (use_journal) {
		if (field)
			sd_journal_send("MESSAGE=%s", text, "PRIORITY=%d", priority,
					"SYSLOG_IDENTIFIER=%s", ident, "%s=%s",
					field, value, NULL);
		else
			sd_journal_send("MESSAGE=%s", text, "PRIORITY=%d", priority,
					"SYSLOG_IDENTIFIER=%s", ident, NULL);
	} else if (use_prefix) {
		fprintf(stderr, "<%d>%s\n", priority, text);
	} else {
		fprintf(stderr, "%s: %s: %s\n", ident, names[priority & 7], text);
	}
	errno = saved;
}

void log_msg(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, NULL, NULL, fmt, ap);
	va_end(ap);
}

void log_field(int priority, const char *field, const char *value,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, field, value, fmt, ap);
	va_end(ap);
}
