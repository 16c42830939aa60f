// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shm.c - skind's shared memory, the reader's side (skin/client.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <skin/client.h>

static const char *check(const struct skin_shm_header *h, size_t size)
{
	if (size < sizeof(*h) || h->magic != SKIN_SHM_MAGIC)
		return "not a skind shm object";
	if (h->version_major != SKIN_SHM_VERSION_MAJOR)
		return "another major version";
	if (h->header_size < sizeof(*h) ||
	    h->part_desc_size < sizeof(struct skin_shm_part_desc) ||
	    h->contact_size < sizeof(struct skin_shm_contact) || h->size > size ||
	    (uint64_t)h->header_size + (uint64_t)h->n_parts * h->part_desc_size > size)
		return "inconsistent sizes";
	return NULL;
}

int skin_shm_map_fd(struct skin_shm_map *m, int fd)
{
	struct stat st;
	unsigned int i;
	void *base;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	if (fstat(fd, &st) < 0)
		goto fail_errno;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		goto fail_errno;
	m->base = base;
	m->size = (size_t)st.st_size;
	m->hdr = base;
	if (check(m->hdr, m->size))
		goto fail_proto;
	for (i = 0; i < m->hdr->n_parts; i++) {
		const struct skin_shm_part_desc *d = skin_shm_part(m, i);

		if (d->offset + d->size > m->size ||
		    d->contact_taxels_off + (uint64_t)d->n_taxels * 4 > d->size ||
		    d->contacts_off + (uint64_t)d->max_contacts * m->hdr->contact_size >
		    d->size || d->values_off + (uint64_t)d->n_taxels * 4 > d->size ||
		    d->raw_off + (uint64_t)d->n_taxels > d->size ||
		    d->flags_off + (uint64_t)d->n_taxels > d->size)
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
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

bool skin_shm_retired(const struct skin_shm_map *m)
{
	return __atomic_load_n(&m->hdr->state, __ATOMIC_ACQUIRE) & SKIN_SHM_RETIRED;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
	now = mono_ns();
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
	return m->hdr->n_parts;
}

const struct skin_shm_part_desc *skin_shm_part(const struct skin_shm_map *m,
					       unsigned int part)
{
	if (part >= m->hdr->n_parts)
		return NULL;
	return (const struct skin_shm_part_desc *)((const char *)m->base +
		m->hdr->header_size + (size_t)part * m->hdr->part_desc_size);
}

int skin_shm_find_part(const struct skin_shm_map *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->hdr->n_parts; i++)
		if (!strncmp(skin_shm_part(m, i)->name, name, SKIN_SHM_NAME_LEN))
			return (int)i;
	return -1;
}

int skin_shm_read_part(const struct skin_shm_map *m, unsigned int part,
		       void *buf, unsigned int tries)
{
	const struct skin_shm_part_desc *d = skin_shm_part(m, part);
	const struct skin_shm_part *sp;
	uint64_t s1, s2;

	if (!d)
		return -EINVAL;
	sp = (const struct skin_shm_part *)((const char *)m->base + d->offset);
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

const struct skin_shm_part *skin_shm_head(const void *buf)
{
	return buf;
}

const float *skin_shm_values(const struct skin_shm_map *m, unsigned int part,
			     const void *buf)
{
	return (const float *)((const char *)buf + skin_shm_part(m, part)->values_off);
}

const uint8_t *skin_shm_raw(const struct skin_shm_map *m, unsigned int part,
			    const void *buf)
{
	return (const uint8_t *)buf + skin_shm_part(m, part)->raw_off;
}

const uint8_t *skin_shm_flags(const struct skin_shm_map *m, unsigned int part,
			      const void *buf)
{
	return (const uint8_t *)buf + skin_shm_part(m, part)->flags_off;
}

const struct skin_shm_contact *skin_shm_contact(const struct skin_shm_map *m,
						unsigned int part,
						const void *buf, unsigned int i)
{
	return (const struct skin_shm_contact *)((const char *)buf +
		skin_shm_part(m, part)->contacts_off +
		(size_t)i * m->hdr->contact_size);
}

const uint32_t *skin_shm_contact_taxels(const struct skin_shm_map *m,
					unsigned int part, const void *buf)
{
	return (const uint32_t *)((const char *)buf +
				  skin_shm_part(m, part)->contact_taxels_off);
}
