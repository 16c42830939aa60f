// SPDX-License-Identifier: GPL-2.0
/*
 * truth.c - the ground truth: what was simulated, sample by sample
 *
 * Plain text, one record per line, the kind first (docs/SIMULATOR.md),
 * so a shell test can compare it with `skinctl dump` and a scorer can
 * read it with a few lines of any language.
 */
#include <math.h>
#include <string.h>

#include "sim-private.h"

int skin_sim_truth_header(FILE *f, const struct skin_sim *s)
{
	unsigned int i;

	fprintf(f, "# skinsim truth 1, seed %llu\n",
		(unsigned long long)s->params.seed);
	fprintf(f, "# patch NAME BUS ADDRESS PART ORDER PRESENT\n");
	fprintf(f, "# frame PATCH K T_NS ENABLED SENT_HEAD SENT_TAIL DIAG VALUES\n");
	fprintf(f, "# taxel PATCH K TAXEL PRESSURE RAW\n");
	fprintf(f, "# contact T_NS NAME PART X Y Z RADIUS FORCE NTAXELS CX CY CZ\n");
	for (i = 0; i < s->n_patches; i++) {
		const struct skin_sim_patch_info *p = &s->patches[i].info;

		fprintf(f, "patch %s %s %u %s %u %04x\n", p->name, p->bus,
			p->address, p->part_name, p->order, p->present);
	}
	return ferror(f) ? -1 : 0;
}

int skin_sim_truth_sample(FILE *f, const struct skin_sim *s,
			  const struct skin_sim_board *b,
			  const struct skin_sim_sample *smp)
{
	const struct sim_patch *p = &s->patches[smp->patch];
	char values[2 * SKIN_SIM_VALUES + 1];
	char diag[16 * 8 + 2] = "";
	unsigned int c, t;
	size_t n = 0;

	for (c = 0; c < SKIN_SIM_VALUES; c++)
		snprintf(&values[2 * c], 3, "%02x", smp->values[c]);
	for (t = 0; t < SKIN_SIM_TRIANGLES; t++)
		if (smp->diag[t] && (b->enabled & (1U << t)))
			n += (size_t)snprintf(diag + n, sizeof(diag) - n, "%s%u=%04x",
					      n ? "," : "", t, smp->diag[t]);
	fprintf(f, "frame %s %llu %llu %04x %04x %04x %s %s\n", p->info.name,
		(unsigned long long)smp->k, (unsigned long long)smp->t_ns,
		b->enabled, smp->send_head, smp->send_tail, n ? diag : "-",
		values);
	for (c = 0; c < SKIN_SIM_VALUES; c++)
		if (smp->pressure[c] > 0)
			fprintf(f, "taxel %s %llu %u %.3f %u\n", p->info.name,
				(unsigned long long)smp->k, p->ch[c].taxel,
				(double)smp->pressure[c], smp->values[c]);
	return ferror(f) ? -1 : 0;
}

int skin_sim_truth_contacts(FILE *f, const struct skin_sim *s, uint64_t t_ns)
{
	struct skin_sim_contact_state cs[64];
	unsigned int n = skin_sim_contacts(s, t_ns, cs, 64), i, k;

	for (i = 0; i < n; i++) {
		const struct skin_part *part = &s->model->parts[cs[i].part];
		double sum = 0, cop[3] = { 0, 0, 0 };
		unsigned int pressed = 0;

		/* what an ideal reader of the part would see: the taxels
		 * under the blob and their pressure-weighted centre */
		for (k = 0; k < part->n_taxels; k++) {
			const struct skin_taxel *tx =
				&s->model->taxels[part->first_taxel + k];
			double dx, dy, dz, w;

			if (tx->kind != SKIN_TAXEL_TACTILE ||
			    !(tx->flags & SKIN_TAXEL_HAS_POS))
				continue;
			dx = tx->pos[0] - cs[i].centre[0];
			dy = tx->pos[1] - cs[i].centre[1];
			dz = tx->pos[2] - cs[i].centre[2];
			w = cs[i].force * sim_falloff(sqrt(dx * dx + dy * dy + dz * dz),
						      cs[i].radius);
			if (w <= 0)
				continue;
			pressed++;
			sum += w;
			cop[0] += w * tx->pos[0];
			cop[1] += w * tx->pos[1];
			cop[2] += w * tx->pos[2];
		}
		if (sum > 0)
			for (k = 0; k < 3; k++)
				cop[k] /= sum;
		fprintf(f, "contact %llu %s %s %.6f %.6f %.6f %.6f %.3f %u %.6f %.6f %.6f\n",
			(unsigned long long)t_ns, cs[i].name, part->name,
			cs[i].centre[0], cs[i].centre[1], cs[i].centre[2],
			cs[i].radius, cs[i].force, pressed, cop[0], cop[1], cop[2]);
	}
	return ferror(f) ? -1 : 0;
}
