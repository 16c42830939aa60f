// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shm.c - skind's shared memory, the reader's side (skin/client.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <skin/client.h>

#include "skin_clock.h"

/* Everything the header says that the reader relies on. */
static bool header_ok(const struct skin_shm_header *h, size_t size)
{
	if (size < sizeof(*h) || h->magic != SKIN_SHM_MAGIC)
		return false;
	if (h->version_major != SKIN_SHM_VERSION_MAJOR)
		return false;
	/* strides: at least ours, and keeping 8-byte fields aligned */
	if (h->header_size < sizeof(*h) || h->header_size % 8 ||
	    h->part_desc_size < sizeof(struct skin_shm_part_desc) ||
	    h->part_desc_size % 8 ||
	    h->contact_size < sizeof(struct skin_contact_record) ||
	    h->contact_size % 8 || h->size > size)
		return false;
	return (uint64_t)h->header_size +
	       (uint64_t)h->n_parts * h->part_desc_size <= size;
}

/* A part's block and its arrays lie inside the object, aligned. */
static bool part_ok(const struct skin_shm_part_desc *d, uint32_t contact_size,
		    size_t size)
{
	uint64_t n = d->n_taxels;

	return d->offset <= size && d->size <= size - d->offset &&
	       d->offset % 8 == 0 &&
	       d->size >= sizeof(struct skin_shm_part) &&
	       d->values_off % 4 == 0 && d->contacts_off % 8 == 0 &&
	       d->contact_taxels_off % 4 == 0 &&
	       d->values_off + n * 4 <= d->size &&
	       d->raw_off + n <= d->size && d->flags_off + n <= d->size &&
	       d->contacts_off + (uint64_t)d->max_contacts * contact_size <= d->size &&
	       d->contact_taxels_off + n * 4 <= d->size &&
	       d->thresholds_off % 8 == 0 &&
	       d->thresholds_off + n * 8 <= d->size &&
	       d->baselines_off % 8 == 0 &&
	       d->baselines_off + n * 8 <= d->size &&
	       d->cal_baselines_off % 8 == 0 &&
	       d->cal_baselines_off + n * 8 <= d->size;
}

int skin_shm_map_fd(struct skin_shm_map *m, int fd)
{
	struct skin_shm_header h;
	struct stat st;
	unsigned int i;
	void *base;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	if (fstat(fd, &st) < 0)
		goto fail_errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(h))
		goto fail_proto;
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		skin_shm_close(m);
		return -EFBIG;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		goto fail_errno;
	m->base = base;
	m->size = (size_t)st.st_size;
	m->hdr = base;
	/* checked on a copy, and used from the copy */
	memcpy(&h, base, sizeof(h));
	if (!header_ok(&h, m->size))
		goto fail_proto;
	m->n_parts = h.n_parts;
	m->contact_size = h.contact_size;
	m->parts = calloc(h.n_parts ? h.n_parts : 1, sizeof(*m->parts));
	if (!m->parts) {
		skin_shm_close(m);
		return -ENOMEM;
	}
	for (i = 0; i < h.n_parts; i++) {
		memcpy(&m->parts[i], (const char *)base + h.header_size +
		       (size_t)i * h.part_desc_size, sizeof(m->parts[i]));
		if (!part_ok(&m->parts[i], h.contact_size, m->size))
			goto fail_proto;
	}
	return 0;

fail_proto:
	skin_shm_close(m);
	return -EPROTO;
fail_errno:
	i = (unsigned int)errno;
	skin_shm_close(m);
	return -(int)i;
}

int skin_shm_open(struct skin_shm_map *m, const char *path)
{
	int fd = open(path ? path : SKIN_SHM_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		memset(m, 0, sizeof(*m));
		m->fd = -1;
		return -errno;
	}
	return skin_shm_map_fd(m, fd);
}

void skin_shm_close(struct skin_shm_map *m)
{
	if (m->base)
		munmap((void *)m->base, m->size);
	if (m->fd >= 0)
		close(m->fd);
	free(m->parts);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

bool skin_shm_retired(const struct skin_shm_map *m)
{
	return __atomic_load_n(&m->hdr->state, __ATOMIC_ACQUIRE) & SKIN_SHM_RETIRED;
}

int skin_shm_check(struct skin_shm_map *m)
{
	uint64_t beat, now, ms;

	if (skin_shm_retired(m))
		return -ESTALE;
	ms = m->hdr->heartbeat_ms;
	if (m->hdr->version_minor < 1 || !ms)
		return 0;		/* a writer without a heartbeat */
	beat = __atomic_load_n(&m->hdr->heartbeat, __ATOMIC_RELAXED);
	now = clock_monotonic_ns();
	if (beat != m->beat || !m->beat_ns) {
		m->beat = beat;
		m->beat_ns = now;
		return 0;
	}
	return now - m->beat_ns > SKIN_SHM_STALE_BEATS * ms * 1000000ull ?
		-ETIMEDOUT : 0;
}

unsigned int skin_shm_n_parts(const struct skin_shm_map *m)
{
	return m->n_parts;
}

const struct skin_shm_part_desc *skin_shm_part(const struct skin_shm_map *m,
					       unsigned int part)
{
	if (part >= m->n_parts)
		return NULL;
	return &m->parts[part];
}

int skin_shm_find_part(const struct skin_shm_map *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->n_parts; i++)
		if (!strncmp(skin_shm_part(m, i)->name, name, SKIN_SHM_NAME_LEN))
			return (int)i;
	return -1;
}

/* The head of part @part's block in the mapping; NULL for a bad part. */
static const struct skin_shm_part *part_head(const struct skin_shm_map *m,
					     unsigned int part)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);

	return d ? (const struct skin_shm_part *)((const char *)m->base + d->offset) : NULL;
}

uint64_t skin_shm_seq(const struct skin_shm_map *m, unsigned int part)
{
	const struct skin_shm_part *sp = part_head(m, part);

	return sp ? __atomic_load_n(&sp->seq, __ATOMIC_ACQUIRE) : 0;
}

int skin_shm_read_part(const struct skin_shm_map *m, unsigned int part,
		       void *buf, unsigned int tries)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);
	const struct skin_shm_part *sp = part_head(m, part);
	uint64_t s1, s2;

	if (!d)
		return -EINVAL;
	while (tries--) {
		s1 = __atomic_load_n(&sp->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			sched_yield();	/* the writer is in the middle */
			continue;
		}
		memcpy(buf, sp, d->size);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&sp->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return 0;
	}
	return -EAGAIN;
}

int skin_shm_read_part_used(const struct skin_shm_map *m, unsigned int part,
			    void *buf, unsigned int tries)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);
	const struct skin_shm_part *sp = part_head(m, part);
	const char *src = (const char *)sp;
	char *dst = buf;
	struct skin_shm_part *h = buf;
	size_t n, nc, nt;
	uint64_t s1, s2;

	if (!d)
		return -EINVAL;
	n = d->n_taxels;
	while (tries--) {
		s1 = __atomic_load_n(&sp->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			sched_yield();	/* the writer is in the middle */
			continue;
		}
		memcpy(h, sp, sizeof(*h));
		/* the writer's counts, bounded by the room part_ok() checked */
		nc = h->n_contacts < d->max_contacts ? h->n_contacts : d->max_contacts;
		nt = h->n_contact_taxels < n ? h->n_contact_taxels : n;
		memcpy(dst + d->values_off, src + d->values_off, n * sizeof(float));
		memcpy(dst + d->raw_off, src + d->raw_off, n);
		memcpy(dst + d->flags_off, src + d->flags_off, n);
		memcpy(dst + d->contacts_off, src + d->contacts_off, nc * m->contact_size);
		memcpy(dst + d->contact_taxels_off, src + d->contact_taxels_off,
		       nt * sizeof(uint32_t));
		if (d->thresholds_off)
			memcpy(dst + d->thresholds_off, src + d->thresholds_off,
			       n * sizeof(double));
		if (d->baselines_off)
			memcpy(dst + d->baselines_off, src + d->baselines_off,
			       n * sizeof(double));
		if (d->cal_baselines_off)
			memcpy(dst + d->cal_baselines_off,
			       src + d->cal_baselines_off, n * sizeof(double));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&sp->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return 0;
	}
	return -EAGAIN;
}

const struct skin_shm_part *skin_shm_head(const void *buf)
{
	return buf;
}

/* @buf + the offset @field of part @part's descriptor; NULL for no part */
#define VIEW(m, part, buf, field) ({					\
	const struct skin_shm_part_desc *d_ = skin_shm_part(m, part);	\
	d_ ? (const char *)(buf) + d_->field : NULL; })

const float *skin_shm_values(const struct skin_shm_map *m, unsigned int part,
			     const void *buf)
{
	return (const float *)VIEW(m, part, buf, values_off);
}

const uint8_t *skin_shm_raw(const struct skin_shm_map *m, unsigned int part,
			    const void *buf)
{
	return (const uint8_t *)VIEW(m, part, buf, raw_off);
}

const uint8_t *skin_shm_flags(const struct skin_shm_map *m, unsigned int part,
			      const void *buf)
{
	return (const uint8_t *)VIEW(m, part, buf, flags_off);
}

const struct skin_contact_record *skin_shm_contact(const struct skin_shm_map *m,
						unsigned int part,
						const void *buf, unsigned int i)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);

	if (!d || i >= d->max_contacts)
		return NULL;
	return (const struct skin_contact_record *)((const char *)buf +
		d->contacts_off + (size_t)i * m->contact_size);
}

const uint32_t *skin_shm_contact_taxels(const struct skin_shm_map *m,
					unsigned int part, const void *buf)
{
	return (const uint32_t *)VIEW(m, part, buf, contact_taxels_off);
}

const double *skin_shm_thresholds(const struct skin_shm_map *m,
				  unsigned int part, const void *buf)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);

	if (!d || !d->thresholds_off ||
	    !(skin_shm_head(buf)->state & SKIN_SHM_PART_THRESHOLDS))
		return NULL;
	return (const double *)((const char *)buf + d->thresholds_off);
}

const double *skin_shm_baselines(const struct skin_shm_map *m,
				 unsigned int part, const void *buf)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);

	if (!d || !d->baselines_off)
		return NULL;
	return (const double *)((const char *)buf + d->baselines_off);
}

const double *skin_shm_cal_baselines(const struct skin_shm_map *m,
				     unsigned int part, const void *buf)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);

	if (!d || !d->cal_baselines_off ||
	    !(skin_shm_head(buf)->state & SKIN_SHM_PART_THRESHOLDS))
		return NULL;
	return (const double *)((const char *)buf + d->cal_baselines_off);
}
