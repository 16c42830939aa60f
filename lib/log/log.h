/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - the logging of skind and the bridges: the journal with
 * priorities, or stderr
 *
 * Under systemd (stderr is the journal stream named by $JOURNAL_STREAM)
 * messages go to the journal through sd_journal_send() with PRIORITY= and,
 * when given, PART= / PATCH= fields; otherwise to stderr as "<N>text"
 * when --log-prefix is on (systemd's stream format, for any supervisor
 * that parses it) or as "NAME: LEVEL: text", NAME being the program's.
 *
 * Logging allocates and may block: never from the real-time path.  The
 * per-frame path counts instead, and a timer logs what the counters say.
 */
#ifndef SKIN_LOG_H
#define SKIN_LOG_H

#include <syslog.h>

/* @name: the program's (SYSLOG_IDENTIFIER=, the stderr prefix); a
 * string that outlives every log call */
void log_init(const char *name, int max_priority, int force_prefix);
void log_set_max_priority(int priority);
int log_max_priority(void);

void log_msg(int priority, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* With a PART= or PATCH= journal field (field "PART", value "left_hand"). */
void log_field(int priority, const char *field, const char *value,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
