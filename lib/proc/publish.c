// SPDX-License-Identifier: GPL-2.0
/*
 * publish.c - a part's newest output in the shared memory's form
 * (include/skin/shm.h): the per-taxel flags and the contacts as records
 * whose taxels are ranges of one array.  skind's publication and
 * skin-view's replay both serve this form, from this one copy.
 */
#include <skin/shm.h>

#include "proc-private.h"

/* SKIN_FAULT_* as shm's SKIN_SHM_TAXEL_* bits (CALIBRATION has none:
 * the socket's `faults` lists it) */
static uint8_t shm_fault_bits(uint8_t f)
{
	return (uint8_t)(((f & SKIN_FAULT_STUCK) ? SKIN_SHM_TAXEL_STUCK : 0) |
			 ((f & SKIN_FAULT_SATURATED) ? SKIN_SHM_TAXEL_SATURATED : 0) |
			 ((f & SKIN_FAULT_DEAD) ? SKIN_SHM_TAXEL_DEAD : 0) |
			 ((f & SKIN_FAULT_NOISY) ? SKIN_SHM_TAXEL_NOISY : 0) |
			 ((f & SKIN_FAULT_DIAG) ? SKIN_SHM_TAXEL_DIAG : 0));
}

void skin_proc_shm_flags(const struct skin_proc *p, unsigned int part,
			 uint8_t *flags)
{
	const uint8_t *touched, *faults;
	unsigned int i, n;

	if (part >= p->n_parts)
		return;
	touched = skin_proc_touched(p, part);
	faults = skin_proc_faults(p, part);
	n = p->parts[part].n;
	for (i = 0; i < n; i++)
		flags[i] = (uint8_t)((flags[i] & (SKIN_SHM_TAXEL_TACTILE |
						  SKIN_SHM_TAXEL_THERMAL)) |
				     (touched[i] ? SKIN_SHM_TAXEL_TOUCHED : 0) |
				     shm_fault_bits(faults[i]));
}

unsigned int skin_proc_shm_contacts(const struct skin_proc *p,
				    unsigned int part,
				    struct skin_contact_record *rec,
				    unsigned int max, uint32_t *taxels,
				    unsigned int max_taxels,
				    unsigned int *n_taxels)
{
	const struct skin_contact *c;
	unsigned int n = skin_proc_contacts(p, part, &c), i, k, nt = 0;

	for (i = 0; i < n && i < max; i++) {
		struct skin_contact_record *o = &rec[i];

		*o = c[i].r;
		o->first_taxel = nt;
		o->n_taxels = 0;
		for (k = 0; k < c[i].r.n_taxels && nt < max_taxels; k++) {
			taxels[nt++] = c[i].taxels[k];
			o->n_taxels++;
		}
	}
	*n_taxels = nt;
	return n;
}
