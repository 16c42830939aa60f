// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_shm.c - libFuzzer harness for the shared-memory reader
 * (lib/client/shm_read.c, include/skin/shm.h) against a hostile or truncated
 * object: any sizes, strides, offsets, counts, generations, heartbeat and
 * seqlock states
 *
 * The input is the object, put in a memfd and mapped with
 * skin_shm_map_fd().  Beyond "no crash, no leak, no UB": an object that
 * is refused is refused with -EPROTO (or another negative errno); one
 * that is mapped has every part's block inside the object, and every
 * view the library gives into a copy of a part lies inside that copy,
 * aligned for its type.  Then a hostile writer rewrites the header and
 * descriptors under the mapping (the input reversed), and every read is
 * done again: the library must go on using what it checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <skin/client.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void in_copy(const void *p, size_t len, size_t align, const char *buf,
		    size_t size)
{
	const char *c = p;

	if (!p || c < buf || (size_t)(c - buf) > size ||
	    len > size - (size_t)(c - buf) || (uintptr_t)c % align)
		abort();
}

static void read_all(struct skin_shm_map *m)
{
	unsigned int i, k, n = skin_shm_n_parts(m);
	char name[SKIN_SHM_NAME_LEN + 1];

	sink += skin_shm_retired(m) + (uint64_t)skin_shm_check(m);
	if (skin_shm_part(m, n) || skin_shm_values(m, n, m) ||
	    skin_shm_contact(m, n, m, 0))
		abort();
	for (i = 0; i < n; i++) {
		const struct skin_shm_part_desc *d = skin_shm_part(m, i);
		const struct skin_shm_part *h;
		const float *v;
		const uint8_t *raw, *fl;
		const uint32_t *ct;
		const double *thr;
		char *buf;

		if (!d || d->offset > m->size || d->size > m->size - d->offset ||
		    d->size < sizeof(struct skin_shm_part))
			abort();
		memcpy(name, d->name, SKIN_SHM_NAME_LEN);
		name[SKIN_SHM_NAME_LEN] = 0;
		if (skin_shm_find_part(m, name) < 0)
			abort();
		buf = malloc(d->size);
		if (!buf)
			abort();
		if (skin_shm_read_part(m, i, buf, 2) == 0) {
			h = skin_shm_head(buf);
			in_copy(h, sizeof(*h), 8, buf, d->size);
			sink += h->seq + h->samples + h->n_contacts + h->n_contact_taxels;
			v = skin_shm_values(m, i, buf);
			raw = skin_shm_raw(m, i, buf);
			fl = skin_shm_flags(m, i, buf);
			ct = skin_shm_contact_taxels(m, i, buf);
			in_copy(v, (size_t)d->n_taxels * 4, 4, buf, d->size);
			in_copy(raw, d->n_taxels, 1, buf, d->size);
			in_copy(fl, d->n_taxels, 1, buf, d->size);
			in_copy(ct, (size_t)d->n_taxels * 4, 4, buf, d->size);
			for (k = 0; k < d->n_taxels; k++) {
				uint32_t bits;

				memcpy(&bits, &v[k], sizeof(bits));
				sink += bits + raw[k] + fl[k] + ct[k];
			}
			for (k = 0; k < d->max_contacts && k < 4096; k++) {
				const struct skin_contact_record *c =
					skin_shm_contact(m, i, buf, k);

				in_copy(c, sizeof(*c), 8, buf, d->size);
				sink += c->id + c->first_taxel + c->n_taxels;
			}
			if (skin_shm_contact(m, i, buf, d->max_contacts))
				abort();
			thr = skin_shm_thresholds(m, i, buf);
			if (thr) {
				in_copy(thr, (size_t)d->n_taxels * 8, 8, buf, d->size);
				for (k = 0; k < d->n_taxels; k++)
					sink += (uint64_t)(thr[k] == thr[k]);
			}
			/* 1.3's baselines: inside the copy, 8-aligned */
			for (k = 0; k < 2; k++) {
				const double *b = k ? skin_shm_cal_baselines(m, i, buf) :
						      skin_shm_baselines(m, i, buf);
				unsigned int j;

				if (!b)
					continue;
				in_copy(b, (size_t)d->n_taxels * 8, 8, buf, d->size);
				for (j = 0; j < d->n_taxels; j++)
					sink += (uint64_t)(b[j] == b[j]);
			}
		}
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skin_shm_map m;
	uint8_t *rev;
	size_t i;
	int fd, r;

	fd = memfd_create("fuzz_shm", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	r = skin_shm_map_fd(&m, fd);	/* owns fd from here */
	if (r < 0) {
		if (m.base || m.fd != -1)
			abort();	/* a failure leaves nothing behind */
		return 0;
	}
	if (r || m.size != size)
		abort();
	read_all(&m);
	/* a writer that changes what was checked, under the mapping */
	rev = malloc(size);
	if (!rev)
		abort();
	for (i = 0; i < size; i++)
		rev[i] = data[size - 1 - i] ^ 0x5a;
	if (pwrite(m.fd, rev, size < 4096 ? size : 4096, 0) < 0)
		abort();
	free(rev);
	read_all(&m);
	skin_shm_close(&m);
	return 0;
}
