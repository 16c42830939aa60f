// SPDX-License-Identifier: GPL-2.0
/*
 * contact.c - contacts: connected groups of touched neighbouring taxels,
 * their geometry, and ids that persist while a contact does
 *
 * Cost per call: O(touched taxels + their edges).  The touched taxels come
 * from the lists the last feed of each patch left (ascending), the edges
 * from the part's copy of the model's neighbour graph (proc.c:
 * part_neighbours(): a 192-bit mask per taxel for its own patch, a list
 * for the others), or from the model's graph itself if it was computed
 * again since.  One walk per component labels its taxels and counts its
 * overlaps with the previous contacts; then one pass places the lists and
 * one per contact sums its geometry.  The per-taxel scratch (the owner
 * arrays, pend) is reset only where it was set.
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

/*
 * The touched taxels are the lists the last feed of each patch left
 * (ascending; the part's patches in order: "touched order"), @n of them.
 * Set pend (a bit per touched taxel, for the walk); *@all: every taxel
 * listed is still touched (none was zeroed since its feed), so that pend
 * holds the whole lists.
 */
static void set_pend(const struct skin_proc *p, struct proc_part *pt,
		     unsigned int n, bool *all)
{
	const uint8_t *restrict touched = pt->touched;
	uint64_t *restrict pend = pt->pend;
	unsigned int i, j, n_on = 0;

	if (!pend)
		return;
	for (i = 0; i < pt->n_patches; i++) {
		const struct proc_patch *pp = &p->patches[pt->first_patch + i];
		const unsigned int *restrict list = pp->touched;
		const unsigned int nt = pp->n_touched;

		for (j = 0; j < nt; j++) {
			unsigned int k = list[j], t = touched[k];

			pend[k / 64] |= (uint64_t)t << (k % 64);
			n_on += t;
		}
	}
	*all = n_on == n;
}

/*
 * Ids by overlap with the previous contacts: each new contact wants the id
 * of the previous one it shares most taxels with (ties: the smaller id;
 * the ids of the previous contacts are distinct, so the order in which
 * they are looked at does not matter); when two want the same (a split),
 * the larger overlap keeps it and the other gets a new id; a merge keeps
 * the id of its largest part.
 *
 * The walk counts the overlaps of a component as it labels its taxels:
 * ovl[o] (o = -1: none) per previous contact, seen[] the distinct o in
 * the order met.  Here, at the end of component @i, the best previous
 * contact, its claim, and ovl all zero again; returns the component's
 * size (the sum of its overlaps, with none's).
 */
static unsigned int component_done(struct proc_part *pt,
				   const struct proc_contact_buf *prev,
				   unsigned int i, unsigned int ns)
{
	unsigned int *restrict ovl = pt->overlap + 1;
	const int32_t *restrict seen = pt->seen;
	unsigned int s, best = UINT32_MAX, best_n = 0, size = 0;

	for (s = 0; s < ns; s++) {
		int32_t o = seen[s];
		unsigned int n_o = ovl[o];

		ovl[o] = 0;
		size += n_o;
		if (o < 0)
			continue;
		if (n_o > best_n ||
		    (n_o == best_n && prev->c[o].r.id < prev->c[best].r.id)) {
			best = (unsigned int)o;
			best_n = n_o;
		}
	}
	pt->best[i] = best;
	pt->best_n[i] = best_n;
	if (best != UINT32_MAX) {
		int32_t cl = pt->claim[best];

		if (cl < 0 || pt->best_n[cl] < best_n)
			pt->claim[best] = (int32_t)i;
	}
	return size;
}

/*
 * A taxel of the component being walked: its label, and its previous
 * owner's overlap
 */
static inline unsigned int visit(struct proc_part *pt,
				 const int32_t *restrict po,
				 int32_t *restrict lab, int32_t c,
				 unsigned int ns, unsigned int q)
{
	unsigned int *restrict ovl = pt->overlap + 1;
	int32_t *restrict seen = pt->seen;
	int32_t o = po[q];

	lab[q] = c;
	seen[ns] = o;
	ns += !ovl[o];
	ovl[o]++;
	return ns;
}

/*
 * The walk with the part's own copy of the graph, from @k (labelled, its
 * pend bit clear).  A component grows a patch at a time: the frontier (a
 * 192-bit mask of the patch) ORs its taxels' nb_mask, ANDed with pend
 * (touched, not yet labelled) that is the next frontier; the neighbours
 * in other patches, found through the short lists, are queued as seeds
 * of a frontier of their own patch.  Every taxel of the component is a
 * frontier bit exactly once.  Returns the number of seen[] entries.
 */
static unsigned int walk_own(struct proc_part *pt, const int32_t *po,
			     int32_t *lab, unsigned int k, int32_t c)
{
	const struct proc_mask *restrict nbm = pt->nb_mask;
	const uint64_t *restrict nbx = pt->nb_x;
	const uint32_t *restrict nbs = pt->nb_start;
	const uint32_t *restrict nbl = pt->nb;
	unsigned int *restrict queue = pt->queue;
	uint64_t *restrict pend = pt->pend;
	unsigned int head = 0, tail = 0, ns = 0;

	queue[tail++] = k;
	while (head < tail) {
		const unsigned int s = queue[head++];
		const unsigned int p0 = s / SKIN_VALUES_PER_PATCH *
					SKIN_VALUES_PER_PATCH;
		uint64_t *restrict pw = pend + p0 / 64;
		uint64_t f[3] = { 0, 0, 0 };

		f[(s - p0) / 64] = 1ull << ((s - p0) % 64);
		do {
			uint64_t a0 = 0, a1 = 0, a2 = 0;
			unsigned int w;

			for (w = 0; w < 3; w++) {
				uint64_t x;

				for (x = f[w]; x; x &= x - 1) {
					unsigned int q = p0 + 64 * w +
						(unsigned int)__builtin_ctzll(x);
					const struct proc_mask *nm = &nbm[q];

					ns = visit(pt, po, lab, c, ns, q);
					a0 |= nm->w[0];
					a1 |= nm->w[1];
					a2 |= nm->w[2];
				}
				/* those with neighbours in other patches */
				for (x = f[w] & nbx[p0 / 64 + w]; x; x &= x - 1) {
					unsigned int q = p0 + 64 * w +
						(unsigned int)__builtin_ctzll(x);
					uint32_t e;

					for (e = nbs[q]; e < nbs[q + 1]; e++) {
						uint32_t r = nbl[e];

						if (pend[r / 64] & (1ull << (r % 64))) {
							pend[r / 64] &= ~(1ull << (r % 64));
							queue[tail++] = r;
						}
					}
				}
			}
			f[0] = a0 & pw[0];
			f[1] = a1 & pw[1];
			f[2] = a2 & pw[2];
			pw[0] &= ~f[0];
			pw[1] &= ~f[1];
			pw[2] &= ~f[2];
		} while (f[0] | f[1] | f[2]);
	}
	return ns;
}

/* The walk through the model's graph (it was computed again since
 * skin_proc_new(), or there is none); as walk_own() */
static unsigned int walk_model(const struct skin_proc *p,
			       struct proc_part *pt, const int32_t *po,
			       int32_t *lab, unsigned int k, int32_t c)
{
	const struct skin_model *m = p->m;
	const unsigned int base = m->parts[pt->index].first_taxel;
	const uint8_t *restrict touched = pt->touched;
	unsigned int *restrict queue = pt->queue;
	uint64_t *restrict pend = pt->pend;
	unsigned int head = 0, tail = 0, ns = 0;

	queue[tail++] = k;
	while (head < tail) {
		unsigned int e;

		k = queue[head++];
		ns = visit(pt, po, lab, c, ns, k);
		if (pt->has_pos[k]) {
			if (!m->nbr_start)
				continue;
			for (e = m->nbr_start[base + k];
			     e < m->nbr_start[base + k + 1]; e++) {
				unsigned int q = m->nbr[e] - base;

				if (q < pt->n && touched[q] && lab[q] < 0) {
					lab[q] = c;
					queue[tail++] = q;
					if (pend)
						pend[q / 64] &= ~(1ull << (q % 64));
				}
			}
		} else {
			unsigned int t0 = k - k % SKIN_CHANNELS_PER_TRIANGLE, q;

			for (q = t0; q < t0 + SKIN_CHANNELS_PER_TRIANGLE &&
			     q < pt->n; q++)
				if (touched[q] && lab[q] < 0 &&
				    !pt->has_pos[q]) {
					lab[q] = c;
					queue[tail++] = q;
					if (pend)
						pend[q / 64] &= ~(1ull << (q % 64));
				}
		}
	}
	return ns;
}

/* Component @c from its first taxel @k, in touched order */
static void component(const struct skin_proc *p, struct proc_part *pt,
		      bool own, const int32_t *po, int32_t *lab,
		      const struct proc_contact_buf *prev,
		      struct proc_contact_buf *cur, unsigned int k,
		      unsigned int c, unsigned int *off)
{
	struct skin_contact *ct = &cur->c[c];
	unsigned int size, ns;

	lab[k] = (int32_t)c;
	if (pt->pend)
		pt->pend[k / 64] &= ~(1ull << (k % 64));
	if (own)
		ns = walk_own(pt, po, lab, k, (int32_t)c);
	else
		ns = walk_model(p, pt, po, lab, k, (int32_t)c);
	size = component_done(pt, prev, c, ns);
	ct->taxels = cur->taxels + *off;
	ct->r.n_taxels = size;
	pt->count[c] = *off;
	*off += size;
}

/*
 * Label the connected components of the touched taxels (@lab, which is
 * all -1 on entry); returns how many.  A component's number is the rank
 * of its first taxel in touched order among the components' first
 * taxels, whatever order the walk visits it in.  Per component: its size,
 * where its list starts in @cur's store (@pt->count, placed by the
 * caller), and the best previous contact (component_done(), with @po the
 * owners in @prev).
 *
 * pend holds a bit per touched taxel not yet labelled (touched[q] &&
 * lab[q] < 0: what the walk may add); gather_touched() set it, and it is
 * all zero again on return, each bit cleared as its taxel is labelled.
 * When it held every listed taxel (@all), the first taxel of the next
 * component is its first bit left, patch by patch; otherwise the lists
 * are walked for the first taxel still touched and not labelled (the
 * others are in no contact).
 */
static unsigned int label_components(const struct skin_proc *p,
				     struct proc_part *pt, bool all,
				     const int32_t *po, int32_t *lab,
				     const struct proc_contact_buf *prev,
				     struct proc_contact_buf *cur)
{
	const struct skin_model *m = p->m;
	/* the part's own copy of the graph, unless the model's was
	 * computed again since skin_proc_new() */
	const bool own = pt->nb_start && m->nbr_start == pt->nb_of &&
			 m->n_nbr == pt->nb_count;
	unsigned int i, j, n_comp = 0, off = 0;

	for (i = 0; i < prev->n; i++)
		pt->claim[i] = -1;
	if (own && all) {
		for (i = 0; i < pt->n_patches; i++) {
			uint64_t *pw = pt->pend + 3 * (size_t)i;

			for (j = 0; j < 3; j++)
				while (pw[j])
					component(p, pt, true, po, lab, prev, cur,
						  i * SKIN_VALUES_PER_PATCH + 64 * j +
						  (unsigned int)__builtin_ctzll(pw[j]),
						  n_comp++, &off);
		}
		return n_comp;
	}
	for (i = 0; i < pt->n_patches; i++) {
		const struct proc_patch *pp = &p->patches[pt->first_patch + i];

		/* a listed taxel zeroed since its feed (a calibration
		 * restored, say) is in no contact */
		for (j = 0; j < pp->n_touched; j++)
			if (lab[pp->touched[j]] < 0 && pt->touched[pp->touched[j]])
				component(p, pt, own, po, lab, prev, cur,
					  pp->touched[j], n_comp++, &off);
	}
	return n_comp;
}

/* two doubles, added and multiplied lane by lane (gcc's vector
 * extension: SSE2's packed instructions on x86-64) */
typedef double v2d __attribute__((vector_size(16)));

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
	const uint8_t *restrict has_pos = pt->has_pos;
	const double *restrict smooth = pt->smooth;
	const double *restrict geom = pt->geom;
	const unsigned int *restrict tx = c->taxels;
	const unsigned int nt = c->r.n_taxels;
	/* the sums in pairs, lane by lane the same additions in the same
	 * order as one by one: (cop0, cop1), (cop2, nrm0), (nrm1, nrm2),
	 * (geo0, geo1), against geom's (pos0, pos1), (pos2, normal0),
	 * (normal1, normal2) */
	v2d s01 = { 0, 0 }, s2n0 = { 0, 0 }, sn12 = { 0, 0 }, g01 = { 0, 0 };
	double sum_p = 0, sum_pp = 0, sum_pn, nrm[3], g2 = 0;
	double cop[3], geo[3];
	unsigned int i, j, n_pos = 0;

	for (i = 0; i < nt; i++) {
		unsigned int k = tx[i];
		/* the smoothed value, not the binarized one (skinManager:
		 * max(compensatedDataFilt, 0)); every taxel of a contact is
		 * touched (label_components()) */
		double v = smooth[k] > 0 ? smooth[k] : 0;

		sum_p += v;
		if (has_pos[k]) {
			/* the model's pos and normal (pt->geom: a copy
			 * without the taxel's other fields) */
			const double *t = geom + 6 * (size_t)k;
			const v2d vv = { v, v };
			v2d t01, t2n0, tn12;

			memcpy(&t01, t, sizeof(t01));
			memcpy(&t2n0, t + 2, sizeof(t2n0));
			memcpy(&tn12, t + 4, sizeof(tn12));
			s01 += t01 * vv;
			s2n0 += t2n0 * vv;
			sn12 += tn12 * vv;
			g01 += t01;
			g2 += t[2];
			sum_pp += v;
			n_pos++;
		}
	}
	sum_pn = sum_pp;
	cop[0] = s01[0];
	cop[1] = s01[1];
	cop[2] = s2n0[0];
	nrm[0] = s2n0[1];
	nrm[1] = sn12[0];
	nrm[2] = sn12[1];
	geo[0] = g01[0];
	geo[1] = g01[1];
	geo[2] = g2;
	memcpy(c->r.cop, cop, sizeof(cop));
	memcpy(c->r.geo, geo, sizeof(geo));
	c->n_with_pos = n_pos;
	c->r.flat[0] = c->r.flat[1] = NAN;	/* a flattening is skind's */
	if (sum_pp != 0)
		for (j = 0; j < 3; j++)
			c->r.cop[j] /= sum_pp;
	if (n_pos)
		for (j = 0; j < 3; j++)
			c->r.geo[j] /= n_pos;
	if (p->prm.compat) {
		/* upstream: weighted mean, not re-normalised */
		for (j = 0; j < 3; j++)
			c->r.normal[j] = sum_pn != 0 ? nrm[j] / sum_pn : 0;
	} else {
		double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] +
				  nrm[2] * nrm[2]);

		for (j = 0; j < 3; j++)
			c->r.normal[j] = len > 0 ? nrm[j] / len : 0;
	}
	c->r.pressure = c->r.n_taxels ? sum_p / c->r.n_taxels : 0;
	for (j = 0; j < 3; j++)
		c->r.force[j] = PROC_FORCE_SCALE * c->r.n_taxels * c->r.pressure *
			      c->r.normal[j];
	if (p->prm.compat)
		memset(c->r.moment, 0, sizeof(c->r.moment));
	else
		cross(c->r.cop, c->r.force, c->r.moment);
	/* No taxel with a position: no place and no direction, which 0
	 * (the link's origin, a real place) would claim; force and moment
	 * stay 0 (skin/contact.h) */
	if (!n_pos)
		for (j = 0; j < 3; j++)
			c->r.cop[j] = c->r.geo[j] = c->r.normal[j] = NAN;
}

/*
 * The contacts of a sample with @n touched taxels, or contacts at the
 * last one.  Out of line: the usual part, nothing touched then or now,
 * does not pay for its registers.
 */
static __attribute__((noinline)) unsigned int
cluster(struct skin_proc *p, struct proc_part *pt, unsigned int n)
{
	const struct skin_model *m = p->m;
	const struct skin_part *sp = &m->parts[pt->index];
	struct proc_contact_buf *prev = &pt->cb[pt->cur];
	struct proc_contact_buf *cur = &pt->cb[!pt->cur];
	int32_t *restrict po = pt->owner[pt->cur];
	int32_t *restrict lab = pt->owner[!pt->cur];
	unsigned int *restrict pos = pt->count;
	unsigned int *restrict store = cur->taxels;
	unsigned int n_comp, i, j;
	bool all = false;

	if (n)
		set_pend(p, pt, n, &all);
	n_comp = n ? label_components(p, pt, all, po, lab, prev, cur) : 0;
	cur->n = n_comp;

	/* forget the previous owners (the previous lists are one run of
	 * the store): all -1, for the next sample's labels */
	if (prev->n) {
		const struct skin_contact *last = &prev->c[prev->n - 1];
		const unsigned int *restrict pl = prev->taxels;
		const unsigned int pn = (unsigned int)(last->taxels - pl) +
					last->r.n_taxels;

		for (i = 0; i < pn; i++)
			po[pl[i]] = -1;
	}
	/* the lists, in touched order (ascending); without @all, of the
	 * listed taxels still touched */
	for (i = 0; n && i < pt->n_patches; i++) {
		const struct proc_patch *pp = &p->patches[pt->first_patch + i];
		const unsigned int *restrict list = pp->touched;
		const unsigned int nt = pp->n_touched;

		for (j = 0; j < nt; j++) {
			const unsigned int k = list[j];

			if (all || lab[k] >= 0)
				store[pos[lab[k]]++] = k;
		}
	}

	for (i = 0; i < n_comp; i++) {
		struct skin_contact *c = &cur->c[i];
		unsigned int b = pt->best[i];

		if (b != UINT32_MAX && pt->claim[b] == (int32_t)i) {
			c->r.id = prev->c[b].r.id;
			c->first_ns = prev->c[b].first_ns;
		} else {
			c->r.id = p->next_id++;
			c->first_ns = pt->last_ns;
		}
		c->part = pt->index;
		c->body_part = sp->body_part;
		c->skin_part = sp->skin_part;
		c->link_number = sp->link_number;
		contact_geometry(p, pt, c);
	}
	return n_comp;
}

int proc_cluster(struct skin_proc *p, struct proc_part *pt)
{
	struct proc_contact_buf *last = &pt->cb[pt->cur];
	unsigned int n = 0, i;
	int n_comp = 0;

	/*
	 * No touch flag changed since the last contacts were built from a
	 * running part's lists (a steady contact, the usual case while one
	 * lasts): the same lists give the same components, each overlapping
	 * its previous self whole, so the same ids; only the weights moved.
	 * (The graph is the model's, which does not change; were it computed
	 * again, the contacts are built again.)
	 */
	if (pt->state == SKIN_PROC_RUNNING && pt->clustered && !pt->touch_dirty &&
	    pt->clustered_nbr == p->m->nbr_start) {
		for (i = 0; i < last->n; i++)
			contact_geometry(p, pt, &last->c[i]);
		return (int)last->n;
	}
	if (pt->state == SKIN_PROC_RUNNING)
		for (i = 0; i < pt->n_patches; i++)
			n += p->patches[pt->first_patch + i].n_touched;
	if (n || last->n)
		n_comp = (int)cluster(p, pt, n);
	else
		pt->cb[!pt->cur].n = 0;	/* nothing touched, then or now */
	pt->cur = !pt->cur;
	pt->clustered = pt->state == SKIN_PROC_RUNNING;
	pt->clustered_nbr = p->m->nbr_start;
	pt->touch_dirty = false;
	return n_comp;
}
