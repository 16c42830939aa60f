/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/client.h - talk to skind: its socket and its shared memory
 *
 * The socket (/usr/share/doc/skin/PROTOCOL.md): one command per line, a
 * reply of data lines ending with "ok ..." or "error CODE TEXT";
 * subscriptions add event lines, which have the form of data lines.
 *
 *	int err;
 *	struct skin_client *c = skin_client_connect(NULL, &err);
 *	char why[256];
 *
 *	if (!c) ...                                   (-err is an errno)
 *	if (skin_client_command(c, "status", print_line, NULL, why,
 *				sizeof(why)) < 0) ...
 *	skin_client_command(c, "subscribe contacts left_hand 50", NULL,
 *			    NULL, why, sizeof(why));
 *	while (skin_client_read_line(c, &line, -1) > 0)
 *		... "contacts left_hand SAMPLE FRAME_TS PUBLISH_TS ((...))"
 *	skin_client_close(c);
 *
 * The shared memory (skin/shm.h), by name or through the socket:
 *
 *	struct skin_shm_map m;
 *	skin_shm_open(&m, NULL)   or   skin_client_shm(c, &m)
 *	int i = skin_shm_find_part(&m, "left_hand");
 *	void *buf = malloc(skin_shm_part(&m, i)->size);
 *	if (skin_shm_read_part(&m, i, buf, 1000) == 0)
 *		skin_shm_values(&m, i, buf)[taxel] ...
 *
 * Ownership: skin_client_connect() returns a connection the caller closes
 * with skin_client_close(); lines it returns belong to it and stay valid
 * until the next call on it.  A struct skin_shm_map owns its descriptor
 * and mapping until skin_shm_close().  Errors: negative errno values;
 * -EPROTO when skind said "error" (the text in @why) or the peer is not
 * skind.  Not thread-safe per object; use one per thread.
 */
#ifndef SKIN_CLIENT_H
#define SKIN_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <skin/shm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKIN_SOCKET_PATH	"/run/skin/skind.sock"

struct skin_client;

/* @path NULL: $SKIN_SOCKET, else SKIN_SOCKET_PATH.  NULL with *err = -errno. */
struct skin_client *skin_client_connect(const char *path, int *err);
/*
 * The same, on a non-blocking socket: connect() does not wait for a
 * skind whose listen backlog is full (-EAGAIN: try again later), and no
 * read or send waits; skin_client_read_line() with a timeout of 0 and
 * skin_client_send() of short commands on a fresh connection work as on
 * a blocking one, and a send that would block returns -EAGAIN.
 */
struct skin_client *skin_client_connect_nonblock(const char *path, int *err);
void skin_client_close(struct skin_client *c);
int skin_client_fd(const struct skin_client *c);

/* Called for each data line of a reply (without its newline). */
typedef void (*skin_client_line_fn)(const char *line, void *data);

/*
 * Send one command and read its reply: @fn gets every data line.  Event
 * lines that arrive meanwhile (the connection has subscriptions) are
 * indistinguishable from data lines and go to @fn as well.
 * Return: 0 for "ok" (its text, if any, in @why), -EPROTO for "error"
 * (the whole line in @why), other -errno for I/O failures.
 */
int skin_client_command(struct skin_client *c, const char *cmd,
			skin_client_line_fn fn, void *data, char *why,
			size_t why_len);

/*
 * The next line from skind (events, once subscribed), waiting at most
 * @timeout_ms (-1: no limit; 0: only what has arrived, never waiting).
 * Return: 1 with *line set, 0 on timeout, -ECONNRESET when skind closed
 * the connection, other -errno.
 */
int skin_client_read_line(struct skin_client *c, const char **line,
			  int timeout_ms);

/* Send a line without waiting for the reply (pipelining). */
int skin_client_send(struct skin_client *c, const char *cmd);

/*
 * The descriptor the reads so far brought (a `shm` reply's, SCM_RIGHTS;
 * it arrives with the reply's first bytes), now the caller's; -1 none.
 * For a client that pipelines `shm` and reads its reply line by line.
 */
int skin_client_take_fd(struct skin_client *c);

/* --- shared memory ------------------------------------------------------ */

struct skin_shm_map {
	int fd;
	const void *base;
	size_t size;
	const struct skin_shm_header *hdr;
	/* skin_shm_check()'s: the heartbeat last seen, and when it moved */
	uint64_t beat;
	uint64_t beat_ns;		/* CLOCK_MONOTONIC, the reader's */
	/* what skin_shm_map_fd() checked, copied: the library uses these,
	 * never the mapping's own, so a writer that changed them afterwards
	 * could not lead it out of bounds */
	unsigned int n_parts;
	uint32_t contact_size;
	struct skin_shm_part_desc *parts;
};

/* Map by name (@path NULL: SKIN_SHM_PATH).  0 or -errno (-EPROTO: not a
 * skind object, of another major version, or with sizes, offsets or
 * counts out of bounds or misaligned; -EFBIG: larger than this process can
 * map).  Whatever the file holds, what the functions below return lies
 * inside the mapping or the caller's copy of a part. */
int skin_shm_open(struct skin_shm_map *m, const char *path);
/* Map a descriptor (owned by @m from here on, even on failure). */
int skin_shm_map_fd(struct skin_shm_map *m, int fd);
/* Ask skind for the object over the socket (`shm`, SCM_RIGHTS) and map it. */
int skin_client_shm(struct skin_client *c, struct skin_shm_map *m);
void skin_shm_close(struct skin_shm_map *m);

/* Whether skind replaced (reload) or left the object: map it again. */
bool skin_shm_retired(const struct skin_shm_map *m);
/*
 * What the object says of its writer (skin/shm.h): 0 live; -ESTALE
 * retired (a reload, skind stopped, or its successor found it left live
 * after a crash): close it and map the name again, or ask the socket;
 * -ETIMEDOUT the heartbeat has not moved for SKIN_SHM_STALE_BEATS beats
 * (skind killed, stopped or hung): the data is old, keep the mapping and
 * keep calling, a successor retires it.  Call it every so often (each
 * read is fine): it notes when the heartbeat last moved.
 */
int skin_shm_check(struct skin_shm_map *m);
unsigned int skin_shm_n_parts(const struct skin_shm_map *m);
const struct skin_shm_part_desc *skin_shm_part(const struct skin_shm_map *m,
					       unsigned int part);
/* The part's index, or -1. */
int skin_shm_find_part(const struct skin_shm_map *m, const char *name);

/*
 * Part @part's sequence number now (acquire order; odd: being written,
 * seq / 2 publications), without copying: whether a copy is due.  0 for
 * a bad part.
 */
uint64_t skin_shm_seq(const struct skin_shm_map *m, unsigned int part);

/*
 * Copy part @part's block (skin_shm_part(m, part)->size bytes into @buf)
 * under its seqlock (the reader of skin/shm.h), trying at most @tries
 * times.  Return: 0 with one consistent publication in @buf, -EAGAIN when
 * the writer kept it busy, -EINVAL for a bad part.
 */
int skin_shm_read_part(const struct skin_shm_map *m, unsigned int part,
		       void *buf, unsigned int tries);
/*
 * The same, copying only what the publication holds: the head, the
 * values, raw values, flags, thresholds and baselines, and of the contacts and
 * their taxels only the n_contacts and n_contact_taxels in use (64
 * contacts are 10.7 KB; a part seldom has more than a few), each at its
 * place in @buf, which is skin_shm_part(m, part)->size bytes as for
 * skin_shm_read_part().  Entries of @buf past those counts are not part
 * of the publication (whatever an earlier copy left there).
 */
int skin_shm_read_part_used(const struct skin_shm_map *m, unsigned int part,
			    void *buf, unsigned int tries);

/*
 * Views into a copy made by skin_shm_read_part(): each array holds the
 * descriptor's n_taxels entries, contacts max_contacts (NULL past them).
 * The counts in the copy's head (n_contacts, n_contact_taxels) and a
 * contact's first_taxel and n_taxels are the writer's: check them against
 * those bounds before indexing.
 */
const struct skin_shm_part *skin_shm_head(const void *buf);
const float *skin_shm_values(const struct skin_shm_map *m, unsigned int part,
			     const void *buf);
const uint8_t *skin_shm_raw(const struct skin_shm_map *m, unsigned int part,
			    const void *buf);
const uint8_t *skin_shm_flags(const struct skin_shm_map *m, unsigned int part,
			      const void *buf);
const struct skin_contact_record *skin_shm_contact(const struct skin_shm_map *m,
						unsigned int part,
						const void *buf,
						unsigned int i);
const uint32_t *skin_shm_contact_taxels(const struct skin_shm_map *m,
					unsigned int part, const void *buf);
/*
 * The part's touch thresholds in the copy (n_taxels doubles, skin/shm.h
 * since 1.2): the numbers of the socket's `thresholds PART`, without the
 * text between.  NULL when the part has no calibration's thresholds yet
 * (its state lacks SKIN_SHM_PART_THRESHOLDS), or the writer publishes
 * none (a 1.0 or 1.1 object: ask the socket).
 */
const double *skin_shm_thresholds(const struct skin_shm_map *m,
				  unsigned int part, const void *buf);
/*
 * The part's baselines in the copy (n_taxels doubles in counts of v,
 * skin/shm.h since 1.3): the current ones, and the ones its last
 * calibration left (cal); baselines - cal is the drift compensated since
 * that calibration.  NULL when the writer publishes none (older than
 * 1.3); cal NULL too, as skin_shm_thresholds(), while the part has no
 * calibration's (its state lacks SKIN_SHM_PART_THRESHOLDS).  The current
 * ones mean something while the state has SKIN_SHM_PART_CALIBRATED.
 */
const double *skin_shm_baselines(const struct skin_shm_map *m,
				 unsigned int part, const void *buf);
const double *skin_shm_cal_baselines(const struct skin_shm_map *m,
				     unsigned int part, const void *buf);

#ifdef __cplusplus
}
#endif
#endif /* SKIN_CLIENT_H */
