// SPDX-License-Identifier: GPL-2.0
/*
 * contact.c - contacts: connected groups of touched neighbouring taxels,
 * their geometry, and ids that persist while a contact does
 *
 * Cost per call: O(touched taxels + their edges).  The touched taxels come
 * from the lists the last feed of each patch left (ascending), the edges
 * from the model's neighbour graph (CSR, model-wide indices).  Per-taxel
 * scratch arrays (label, prev_owner) are reset only where they were set.
 */
#include <math.h>
#include <string.h>

#include "proc-private.h"

/*
 * Taxels without a position (the hand's fingertips: all-zero rows) have no
 * edges in the model's graph; skinManager makes them all neighbours of one
 * another (they all sit at the origin).  Here the touched position-less
 * taxels of one triangle (a fingertip is one) form one group.
 */

static unsigned int gather_touched(const struct skin_proc *p,
				   struct proc_part *pt)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < pt->n_patches; i++) {
		const struct proc_patch *pp = &p->patches[pt->first_patch + i];

		for (j = 0; j < pp->n_touched; j++)
			pt->order[n++] = pp->touched[j];
	}
	return n;
}

/*
 * Label the connected components of the touched taxels; returns how many.
 * A component's number is the rank of its first taxel in @pt->order among
 * the components' first taxels, whatever order the walk visits it in.
 *
 * pend holds a bit per touched taxel not yet labelled (touched[q] &&
 * label[q] < 0: what the walk may add); it is set here from the touched
 * lists and is all zero again on return, each bit cleared as its taxel is
 * labelled.  A taxel's neighbours in its own patch are then three ANDs
 * with its nb_mask, the others a short list.
 */
static unsigned int label_components(const struct skin_proc *p,
				     struct proc_part *pt, unsigned int n)
{
	const struct skin_model *m = p->m;
	const struct skin_part *sp = &m->parts[pt->index];
	const unsigned int base = sp->first_taxel;
	/* the part's own copy of the graph, unless the model's was
	 * computed again since skin_proc_new() */
	const bool own = pt->nb_start && m->nbr_start == pt->nb_of &&
			 m->n_nbr == pt->nb_count;
	const uint8_t *restrict touched = pt->touched;
	const unsigned int *restrict order = pt->order;
	int32_t *restrict label = pt->label;
	unsigned int *restrict queue = pt->queue;
	uint64_t *restrict pend = pt->pend;
	unsigned int i, n_comp = 0;

	if (pend)
		for (i = 0; i < n; i++)
			if (touched[order[i]])
				pend[order[i] / 64] |= 1ull << (order[i] % 64);
	for (i = 0; i < n; i++) {
		unsigned int head = 0, tail = 0;
		const int32_t c = (int32_t)n_comp;

		if (label[order[i]] >= 0)
			continue;
		label[order[i]] = c;
		queue[tail++] = order[i];
		if (pend)
			pend[order[i] / 64] &= ~(1ull << (order[i] % 64));
		while (head < tail) {
			unsigned int k = queue[head++], e;

			if (pt->has_pos[k]) {
				if (!m->nbr_start)
					continue;
				if (own) {
					const uint32_t *nb = pt->nb + pt->nb_start[k];
					const uint32_t *end = pt->nb + pt->nb_start[k + 1];
					const uint64_t *restrict nm = pt->nb_mask + 3 * (size_t)k;
					const unsigned int p0 = k / SKIN_VALUES_PER_PATCH *
								SKIN_VALUES_PER_PATCH;
					uint64_t *restrict pw = pend + p0 / 64;
					unsigned int w;

					for (w = 0; w < 3; w++) {
						uint64_t x = nm[w] & pw[w];

						if (!x)
							continue;
						pw[w] &= ~x;
						for (; x; x &= x - 1) {
							unsigned int q = p0 + 64 * w +
								(unsigned int)__builtin_ctzll(x);

							label[q] = c;
							queue[tail++] = q;
						}
					}
					for (; nb < end; nb++)
						if (pend[*nb / 64] & (1ull << (*nb % 64))) {
							pend[*nb / 64] &= ~(1ull << (*nb % 64));
							label[*nb] = c;
							queue[tail++] = *nb;
						}
					continue;
				}
				for (e = m->nbr_start[base + k];
				     e < m->nbr_start[base + k + 1]; e++) {
					unsigned int q = m->nbr[e] - base;

					if (q < pt->n && touched[q] &&
					    label[q] < 0) {
						label[q] = c;
						queue[tail++] = q;
						if (pend)
							pend[q / 64] &= ~(1ull << (q % 64));
					}
				}
			} else {
				unsigned int t0 = k - k % SKIN_CHANNELS_PER_TRIANGLE, q;

				for (q = t0; q < t0 + SKIN_CHANNELS_PER_TRIANGLE &&
				     q < pt->n; q++)
					if (touched[q] && label[q] < 0 &&
					    !pt->has_pos[q]) {
						label[q] = c;
						queue[tail++] = q;
						if (pend)
							pend[q / 64] &= ~(1ull << (q % 64));
					}
			}
		}
		n_comp++;
	}
	return n_comp;
}

static void cross(const double a[3], const double b[3], double out[3])
{
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* cop, geo, normal, pressure, force, moment of contact c */
static void contact_geometry(const struct skin_proc *p,
			     const struct proc_part *pt,
			     struct skin_contact *c)
{
	const struct skin_model *m = p->m;
	const struct skin_part *sp = &m->parts[pt->index];
	double sum_p = 0, sum_pp = 0, sum_pn = 0, nrm[3] = { 0, 0, 0 };
	double cop[3] = { 0, 0, 0 }, geo[3] = { 0, 0, 0 };
	unsigned int i, j, n_pos = 0;

	for (i = 0; i < c->n_taxels; i++) {
		unsigned int k = c->taxels[i];
		const struct skin_taxel *t = &m->taxels[sp->first_taxel + k];
		/* the smoothed value, not the binarized one (skinManager:
		 * max(compensatedDataFilt, 0)); a taxel whose outputs were
		 * zeroed since its touched list was built weighs 0 */
		double v = pt->touched[k] && pt->smooth[k] > 0 ? pt->smooth[k] : 0;

		sum_p += v;
		if (t->flags & SKIN_TAXEL_HAS_POS) {
			/* by hand and in locals: gcc -O2 kept the loop of 3
			 * and stored into *c at every step */
			cop[0] += t->pos[0] * v;
			cop[1] += t->pos[1] * v;
			cop[2] += t->pos[2] * v;
			geo[0] += t->pos[0];
			geo[1] += t->pos[1];
			geo[2] += t->pos[2];
			nrm[0] += t->normal[0] * v;
			nrm[1] += t->normal[1] * v;
			nrm[2] += t->normal[2] * v;
			sum_pp += v;
			sum_pn += v;
			n_pos++;
		}
	}
	memcpy(c->cop, cop, sizeof(cop));
	memcpy(c->geo, geo, sizeof(geo));
	c->n_with_pos = n_pos;
	if (sum_pp != 0)
		for (j = 0; j < 3; j++)
			c->cop[j] /= sum_pp;
	if (n_pos)
		for (j = 0; j < 3; j++)
			c->geo[j] /= n_pos;
	if (p->prm.compat) {
		/* upstream: weighted mean, not re-normalised */
		for (j = 0; j < 3; j++)
			c->normal[j] = sum_pn != 0 ? nrm[j] / sum_pn : 0;
	} else {
		double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] +
				  nrm[2] * nrm[2]);

		for (j = 0; j < 3; j++)
			c->normal[j] = len > 0 ? nrm[j] / len : 0;
	}
	c->pressure = c->n_taxels ? sum_p / c->n_taxels : 0;
	for (j = 0; j < 3; j++)
		c->force[j] = PROC_FORCE_SCALE * c->n_taxels * c->pressure *
			      c->normal[j];
	if (p->prm.compat)
		memset(c->moment, 0, sizeof(c->moment));
	else
		cross(c->cop, c->force, c->moment);
}

int proc_cluster(struct skin_proc *p, struct proc_part *pt)
{
	const struct skin_model *m = p->m;
	const struct skin_part *sp = &m->parts[pt->index];
	struct proc_contact_buf *prev = &pt->cb[pt->cur];
	struct proc_contact_buf *cur = &pt->cb[!pt->cur];
	unsigned int n, n_comp, i, off;

	n = pt->state == SKIN_PROC_RUNNING ? gather_touched(p, pt) : 0;
	if (!n && !prev->n) {	/* nothing touched, then or now */
		cur->n = 0;
		pt->cur = !pt->cur;
		return 0;
	}
	n_comp = label_components(p, pt, n);

	/* taxel lists, ascending: count, offsets, place in touched order */
	for (i = 0; i < n_comp; i++)
		pt->count[i] = 0;
	for (i = 0; i < n; i++)
		pt->count[pt->label[pt->order[i]]]++;
	for (i = 0, off = 0; i < n_comp; i++) {
		struct skin_contact *c = &cur->c[i];

		c->taxels = cur->taxels + off;
		c->n_taxels = 0;
		off += pt->count[i];
	}
	for (i = 0; i < n; i++) {
		unsigned int k = pt->order[i];
		struct skin_contact *c = &cur->c[pt->label[k]];

		((unsigned int *)c->taxels)[c->n_taxels++] = k;
	}
	cur->n = n_comp;

	/*
	 * Ids by overlap with the previous contacts: each new contact wants
	 * the id of the previous one it shares most taxels with; when two
	 * want the same (a split), the larger overlap keeps it and the other
	 * gets a new id; a merge keeps the id of its largest part.
	 */
	for (i = 0; i < prev->n; i++) {
		pt->claim[i] = -1;
		pt->overlap[i] = 0;
	}
	for (i = 0; i < n_comp; i++) {
		struct skin_contact *c = &cur->c[i];
		unsigned int j, best = UINT32_MAX, best_n = 0;

		for (j = 0; j < c->n_taxels; j++) {
			int32_t o = pt->prev_owner[c->taxels[j]];

			if (o >= 0)
				pt->overlap[o]++;
		}
		for (j = 0; j < c->n_taxels; j++) {
			int32_t o = pt->prev_owner[c->taxels[j]];

			if (o < 0 || !pt->overlap[o])
				continue;
			if (pt->overlap[o] > best_n ||
			    (pt->overlap[o] == best_n &&
			     prev->c[o].id < prev->c[best].id)) {
				best = (unsigned int)o;
				best_n = pt->overlap[o];
			}
		}
		for (j = 0; j < c->n_taxels; j++) {
			int32_t o = pt->prev_owner[c->taxels[j]];

			if (o >= 0 && (unsigned int)o != best)
				pt->overlap[o] = 0;
		}
		/* overlap[best] keeps this contact's count until claimed */
		pt->best[i] = best;
		pt->count[i] = best_n;
		if (best != UINT32_MAX) {
			int32_t cl = pt->claim[best];

			if (cl < 0 || pt->count[cl] < best_n)
				pt->claim[best] = (int32_t)i;
			pt->overlap[best] = 0;
		}
	}
	for (i = 0; i < n_comp; i++) {
		struct skin_contact *c = &cur->c[i];
		unsigned int b = pt->best[i];

		if (b != UINT32_MAX && pt->claim[b] == (int32_t)i) {
			c->id = prev->c[b].id;
			c->first_ns = prev->c[b].first_ns;
		} else {
			c->id = p->next_id++;
			c->first_ns = pt->last_ns;
		}
		c->part = pt->index;
		c->body_part = sp->body_part;
		c->skin_part = sp->skin_part;
		c->link_number = sp->link_number;
		contact_geometry(p, pt, c);
	}

	/* reset the scratch where it was set; remember the owners */
	for (i = 0; i < prev->n; i++) {
		unsigned int j;

		for (j = 0; j < prev->c[i].n_taxels; j++)
			pt->prev_owner[prev->c[i].taxels[j]] = -1;
	}
	for (i = 0; i < n; i++) {
		unsigned int k = pt->order[i];

		pt->prev_owner[k] = pt->label[k];
		pt->label[k] = -1;
	}
	pt->cur = !pt->cur;
	return (int)n_comp;
}
