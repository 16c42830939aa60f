// SPDX-License-Identifier: GPL-2.0
/*
 * shm_write.c - the shared memory object, the writer's side (skin/shm.h)
 *
 * A regular file on the tmpfs of the runtime directory rather than
 * shm_open()'s /dev/shm: the runtime directory's owner and group decide
 * who may read it, it survives a hardened unit's private /dev, and a
 * reload can publish a new object under the same name atomically with
 * rename().  Clients get the object by name, or as a descriptor opened
 * O_RDONLY that skind passes over the socket (a read-only descriptor
 * cannot be mapped writable).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skin_clock.h"
#include "log.h"
#include "shm_write.h"

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Where each array of a part lies in its block. */
static size_t part_layout(struct skin_shm_part_desc *pd, unsigned int n_taxels)
{
	size_t off = sizeof(struct skin_shm_part);

	pd->values_off = (uint32_t)off;
	off += align_up(n_taxels * sizeof(float), 8);
	pd->raw_off = (uint32_t)off;
	off += align_up(n_taxels, 8);
	pd->flags_off = (uint32_t)off;
	off += align_up(n_taxels, 8);
	pd->contacts_off = (uint32_t)off;
	off += SKIND_MAX_CONTACTS * sizeof(struct skin_contact_record);
	pd->contact_taxels_off = (uint32_t)off;
	off += align_up(n_taxels * sizeof(uint32_t), 8);
	pd->thresholds_off = (uint32_t)off;
	off += n_taxels * sizeof(double);
	pd->baselines_off = (uint32_t)off;
	off += n_taxels * sizeof(double);
	pd->cal_baselines_off = (uint32_t)off;
	off += n_taxels * sizeof(double);
	return align_up(off, SKIN_SHM_ALIGN);
}

/*
 * The object that holds the name now, unless it is ours: opened before the
 * rename, marked retired after it (retire_replaced()), so that its readers,
 * mapping the name again, find the new object at once.  A skind killed
 * (kill -9, a crash, the watchdog's SIGABRT) could not mark its object
 * retired, and its readers would go on reading a dead object for ever.
 * Only a regular file with skind's magic is touched, and only its state
 * word; a reload's old object (@ours) is retired by main.c's reload() once
 * the new skin runs.  Return: a descriptor or -1.
 */
static int open_replaced(const char *path, int ours)
{
	struct stat st, o;
	uint32_t magic;
	int fd;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			log_warn("shm: %s: %s; its readers may not notice that it is replaced",
				 path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct skin_shm_header) ||
	    pread(fd, &magic, sizeof(magic), 0) != sizeof(magic) ||
	    magic != SKIN_SHM_MAGIC ||
	    (ours >= 0 && !fstat(ours, &o) && o.st_dev == st.st_dev &&
	     o.st_ino == st.st_ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void retire_replaced(int fd)
{
	struct skin_shm_header *h;

	if (fd < 0)
		return;
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h != MAP_FAILED) {
		if (!(__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) & SKIN_SHM_RETIRED)) {
			log_notice("shm: the object of skind %u (generation %llu) was left live; marked retired",
				   h->pid, (unsigned long long)h->generation);
			__atomic_store_n(&h->state, SKIN_SHM_RETIRED, __ATOMIC_RELEASE);
		}
		munmap(h, sizeof(*h));
	}
	close(fd);
}

/*
 * The object is built unnamed (O_TMPFILE in the name's directory), and
 * named only once it is whole (name_tmp(), then rename()): a skind killed
 * while it builds one leaves nothing behind in the directory.  Where the
 * file system has no O_TMPFILE, the temporary name is made at once, as
 * before, and removed by shm_retire() on every exit but kill -9.
 */
static int open_unnamed(const char *path, struct skind_skin *s,
			struct skin_error *err)
{
	char dir[sizeof(s->shm_tmp)], *slash;
	int fd;

	snprintf(s->shm_tmp, sizeof(s->shm_tmp), "%s.%d.%llu", path,
		 (int)getpid(), (unsigned long long)s->generation);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = 0;	/* "/x": "/" */
	fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0640);
	if (fd >= 0) {
		s->shm_tmp_named = false;
		return fd;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		snprintf(err->text, sizeof(err->text), "shm: %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	fd = open(s->shm_tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0) {
		snprintf(err->text, sizeof(err->text), "shm: %s: %s", s->shm_tmp,
			 strerror(errno));
		return -1;
	}
	s->shm_tmp_named = true;
	return fd;
}

/* The whole object under its temporary name, for the rename() over the
 * real one (which a link cannot replace). */
static int name_tmp(const char *path, struct skind_skin *s,
		    struct skin_error *err)
{
	char proc[64];

	if (s->shm_tmp_named)
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->shm_fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, s->shm_tmp, AT_SYMLINK_FOLLOW) < 0) {
		snprintf(err->text, sizeof(err->text), "shm: %s: %s", path,
			 strerror(errno));
		return -1;
	}
	s->shm_tmp_named = true;
	return 0;
}

/**
 * shm_create() - lay out the object of a skin and give it its name
 * @d: the daemon
 * @s: the skin, its parts built
 * @err: why not
 *
 * Written unnamed, then linked to a temporary name next to the name and
 * renamed over it, so a reader opening the name sees either the old
 * object or the whole new one.  Return: 0 or -1.
 */
int shm_create(struct skind *d, struct skind_skin *s, struct skin_error *err)
{
	size_t descs = align_up(sizeof(struct skin_shm_header) +
				s->n_parts * sizeof(struct skin_shm_part_desc),
				SKIN_SHM_ALIGN);
	struct skin_shm_part_desc *pd;
	struct skin_shm_header *h;
	size_t size = descs;
	unsigned int i;
	char proc[64];
	int old;

	for (i = 0; i < s->n_parts; i++) {
		struct skin_shm_part_desc tmp;

		size += part_layout(&tmp, s->parts[i].n_taxels);
	}
	s->shm_fd = open_unnamed(d->opt.shm_path, s, err);
	if (s->shm_fd < 0)
		return -1;
	if (ftruncate(s->shm_fd, (off_t)size) < 0) {
		snprintf(err->text, sizeof(err->text), "shm: %s: %s",
			 d->opt.shm_path, strerror(errno));
		goto fail;
	}
	s->shm_base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   s->shm_fd, 0);
	if (s->shm_base == MAP_FAILED) {
		s->shm_base = NULL;
		snprintf(err->text, sizeof(err->text), "shm: mmap: %s",
			 strerror(errno));
		goto fail;
	}
	s->shm_size = size;
	/* the read-only descriptor handed to clients */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->shm_fd);
	s->shm_ro_fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (s->shm_ro_fd < 0) {
		snprintf(err->text, sizeof(err->text), "shm: %s: %s", proc,
			 strerror(errno));
		goto fail;
	}

	h = s->shm_base;
	h->magic = SKIN_SHM_MAGIC;
	h->version_major = SKIN_SHM_VERSION_MAJOR;
	h->version_minor = SKIN_SHM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->part_desc_size = sizeof(struct skin_shm_part_desc);
	h->contact_size = sizeof(struct skin_contact_record);
	h->n_parts = s->n_parts;
	h->size = size;
	h->generation = s->generation;
	h->pid = (uint32_t)getpid();
	h->created_ns = clock_realtime_ns();
	h->period_ms = s->config->comp.period_ms;
	h->heartbeat_ms = SKIND_HEARTBEAT_MS;
	h->instance = d->instance;

	size = descs;
	pd = (struct skin_shm_part_desc *)((char *)s->shm_base + sizeof(*h));
	for (i = 0; i < s->n_parts; i++, pd++) {
		struct skind_part *p = &s->parts[i];
		char *block;

		snprintf(pd->name, sizeof(pd->name), "%s", p->name);
		pd->skin_part = p->mp->skin_part;
		pd->body_part = p->mp->body_part;
		pd->link_number = p->mp->link_number;
		pd->n_taxels = p->n_taxels;
		pd->n_patches = p->n_patches;
		pd->max_contacts = SKIND_MAX_CONTACTS;
		pd->offset = size;
		pd->size = part_layout(pd, p->n_taxels);
		size += pd->size;

		block = (char *)s->shm_base + pd->offset;
		p->shm = (struct skin_shm_part *)block;
		p->shm_values = (float *)(block + pd->values_off);
		p->shm_raw = (uint8_t *)(block + pd->raw_off);
		p->shm_flags = (uint8_t *)(block + pd->flags_off);
		p->shm_contacts = (struct skin_contact_record *)(block + pd->contacts_off);
		p->shm_contact_taxels = (uint32_t *)(block + pd->contact_taxels_off);
		p->shm_thresholds = (double *)(block + pd->thresholds_off);
		p->shm_baselines = (double *)(block + pd->baselines_off);
		p->shm_cal_baselines = (double *)(block + pd->cal_baselines_off);
		p->thr_dirty = p->thr_valid;	/* a reload's new block */
		/* the kinds are known before the first sample */
		memcpy(p->shm_flags, p->flags, p->n_taxels);
		memcpy(p->shm_raw, p->raw, p->n_taxels);
	}
	__atomic_store_n(&h->state, SKIN_SHM_LIVE, __ATOMIC_RELEASE);
	old = open_replaced(d->opt.shm_path, d->skin ? d->skin->shm_fd : -1);
	if (name_tmp(d->opt.shm_path, s, err) < 0) {
		if (old >= 0)
			close(old);
		goto fail;
	}
	if (rename(s->shm_tmp, d->opt.shm_path) < 0) {
		snprintf(err->text, sizeof(err->text), "shm: %s: %s",
			 d->opt.shm_path, strerror(errno));
		if (old >= 0)
			close(old);
		goto fail;
	}
	retire_replaced(old);
	s->shm_tmp[0] = 0;
	return 0;

fail:
	shm_retire(s, false);
	return -1;
}

/**
 * shm_publish_part() - write a part's latest state under its seqlock
 * @p: the part
 *
 * The real-time path: plain copies of preallocated arrays, no system call.
 */
void shm_publish_part(struct skind_part *p)
{
	struct skin_shm_part *sp = p->shm;
	uint64_t seq;

	if (!sp)
		return;
	seq = __atomic_load_n(&sp->seq, __ATOMIC_RELAXED);
	__atomic_store_n(&sp->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* odd before the data */

	sp->samples = p->samples;
	sp->frame_ts_ns = p->frame_ts_ns;
	sp->publish_ns = p->publish_ns;
	sp->lost_frames = p->lost;
	sp->state = p->state | (p->thr_valid ? SKIN_SHM_PART_THRESHOLDS : 0);
	sp->n_contacts = p->n_contacts;
	sp->n_contact_taxels = p->n_contact_taxels;
	sp->patches_attached = p->attached;
	memcpy(p->shm_values, p->values, p->n_taxels * sizeof(float));
	memcpy(p->shm_raw, p->raw, p->n_taxels);
	memcpy(p->shm_flags, p->flags, p->n_taxels);
	memcpy(p->shm_contacts, p->contacts,
	       p->n_contacts * sizeof(struct skin_contact_record));
	memcpy(p->shm_contact_taxels, p->contact_taxels,
	       p->n_contact_taxels * sizeof(uint32_t));
	if (p->proc_baselines)
		memcpy(p->shm_baselines, p->proc_baselines,
		       p->n_taxels * sizeof(double));
	/* only when a calibration changed them: the block keeps them */
	if (p->thr_dirty) {
		memcpy(p->shm_thresholds, p->thr, p->n_taxels * sizeof(double));
		memcpy(p->shm_cal_baselines, p->cal_baselines,
		       p->n_taxels * sizeof(double));
		p->thr_dirty = false;
	}

	__atomic_store_n(&sp->seq, seq + 2, __ATOMIC_RELEASE);	/* data, then even */
}

/**
 * shm_heartbeat() - say that skind runs (skin/shm.h, heartbeat)
 * @s: the skin whose object is live
 *
 * From a timer every SKIND_HEARTBEAT_MS, at housekeeping priority: a
 * heartbeat that stops means the whole loop stopped, not just the input.
 */
void shm_heartbeat(struct skind_skin *s)
{
	struct skin_shm_header *h = s->shm_base;

	if (h)
		__atomic_fetch_add(&h->heartbeat, 1, __ATOMIC_RELAXED);
}

/**
 * shm_retire() - mark a skin's object replaced and let go of it
 * @s: the skin
 * @unlink_name: remove the name too (skind stops)
 *
 * Readers still holding the mapping see SKIN_SHM_RETIRED and map the name
 * again; the memory stays theirs until they unmap it.  Idempotent.
 */
void shm_retire(struct skind_skin *s, bool unlink_name)
{
	struct skin_shm_header *h = s->shm_base;
	unsigned int i;

	if (h)
		__atomic_store_n(&h->state, SKIN_SHM_RETIRED, __ATOMIC_RELEASE);
	if (unlink_name && h && s->d->opt.shm_path) {
		/* only our own object: a newer skind may own the name */
		struct stat a, b;

		if (!fstat(s->shm_fd, &a) && !stat(s->d->opt.shm_path, &b) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			unlink(s->d->opt.shm_path);
	}
	if (s->shm_tmp[0] && s->shm_tmp_named)
		unlink(s->shm_tmp);
	s->shm_tmp[0] = 0;
	s->shm_tmp_named = false;
	if (h)
		munmap(s->shm_base, s->shm_size);
	s->shm_base = NULL;
	for (i = 0; i < s->n_parts && s->parts; i++)
		s->parts[i].shm = NULL;
	if (s->shm_fd >= 0)
		close(s->shm_fd);
	if (s->shm_ro_fd >= 0)
		close(s->shm_ro_fd);
	s->shm_fd = -1;
	s->shm_ro_fd = -1;
}

/* The layout other languages read (clients/python/skin/_shm.py). */
_Static_assert(sizeof(struct skin_shm_header) == 88, "shm header ABI");
_Static_assert(sizeof(struct skin_shm_part_desc) == 104, "shm part descriptor ABI");
_Static_assert(sizeof(struct skin_shm_part) == 72, "shm part head ABI");
_Static_assert(sizeof(struct skin_contact_record) == 168, "shm contact ABI");
_Static_assert(offsetof(struct skin_shm_part_desc, offset) == 56, "shm part offset");
_Static_assert(offsetof(struct skin_shm_header, heartbeat_ms) == 60 &&
	       offsetof(struct skin_shm_header, instance) == 64 &&
	       offsetof(struct skin_shm_header, heartbeat) == 72, "shm header 1.1");
_Static_assert(offsetof(struct skin_contact_record, first_taxel) == 152, "shm contact taxels");
_Static_assert(offsetof(struct skin_shm_part_desc, thresholds_off) == 92 &&
	       offsetof(struct skin_shm_part_desc, baselines_off) == 96 &&
	       offsetof(struct skin_shm_part_desc, cal_baselines_off) == 100,
	       "shm part descriptor 1.3");
