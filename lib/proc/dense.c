// SPDX-License-Identifier: GPL-2.0
/*
 * dense.c - the portable forms of the per-instruction-set passes
 * (proc-isa.h): plain C for any CPU, the ones ARM robot computers run and
 * the reference the vector forms are compared with.
 */
#include <string.h>

#include "proc-private.h"

/*
 * The arithmetic of every slot of a patch, dense and branch-free.  A slot
 * that is not a plain running tactile taxel (act 0: pads, absent slots,
 * taxels recalibrating, faulty or in an expired hold) keeps its baseline
 * and smoothing state and gets 0 everywhere; run() sends those through
 * taxel_slow() afterwards.  A plain taxel under a hold (held, act 1) is
 * computed here as taxel_slow() would: the hold ends when d falls to
 * level - hold_hysteresis (rel), else the baseline stays and the taxel
 * touches down to that lower level.  Besides the arrays it returns the
 * touched (smoothed) and touched-raw (unsmoothed) slots as bit masks,
 * from which run() builds the touched list in O(touched).  Binarized, a
 * slot's value and byte are stored only where it is touched or was not 0
 * (proc_patch.out_nz): the others are 0 already, and the usual slot of a
 * binarized skin is untouched, so most samples store neither array.
 * Its arguments are a struct dense_io (proc-private.h), kept in the
 * patch.  This is the portable form (scalar; gcc 12 does not vectorise
 * it), over the slots j one group of 4 at a time, only the groups of
 * triangles with tactile taxels (the others' outputs stay 0), the masks
 * of a 64-slot word kept in registers and stored once per word;
 * dense_avx2.c and dense_avx512.c compute the same doubles four and
 * eight at a time.
 */
static inline __attribute__((always_inline))
void dense_portable_body(struct dense_io *io, const bool bin, const bool hold)
{
	double *restrict baseline = io->baseline, *restrict smooth = io->smooth;
	double *restrict dd = io->d, *restrict value = io->value;
	const double *restrict level = io->level, *restrict inv_thr = io->inv_thr;
	const double *restrict act = io->act;
	const uint8_t *restrict vals = io->vals;
	uint8_t *restrict byte = io->byte;
	const unsigned int n = io->n;
	unsigned int w, j, end;
	uint64_t g;

	for (w = 0; w < 3; w++) {
		uint64_t mtf = 0, mtr = 0, mrel = 0;

		for (g = (io->groups >> (16 * w)) & 0xffff; g; g &= g - 1)
		for (j = 64 * w + 4 * (unsigned int)__builtin_ctzll(g),
		     end = j + 4; j < end && j < n; j++) {
			const double v = io->voff + io->vsign * (double)vals[j];
			const double b = baseline[j], sm = smooth[j], lv = level[j];
			const bool on = act[j] > 0.5;
			const bool hd = hold && ((io->held->w[w] >> (j % 64)) & 1);
			const double lvh = lv - io->hyst;
			double d = v - b, s, fs, out;
			bool tf, tr, stay;

			d = d < PROC_MAX_SKIN ? d : PROC_MAX_SKIN;
			s = io->a_new * d + io->a_old * sm;
			fs = s > 0 ? s : 0;
			stay = hd && d > lvh;
			tf = (on && s > lv) || (stay && s > lvh);
			tr = on && d > lv;
			out = bin ? (tf ? PROC_BIN_TOUCH : PROC_BIN_NO_TOUCH) : fs;
			out = on ? out : 0;
			smooth[j] = on ? s : sm;
			dd[j] = d;
			baseline[j] = on && !stay ? b + (tr ? io->g_touch : io->g_free) *
							d * inv_thr[j] : b;
			if (!bin || tf || ((io->nz.w[w] >> (j % 64)) & 1)) {
				value[j] = out;
				byte[j] = (uint8_t)(int)(out + 0.5);
			}
			mtf |= (uint64_t)tf << (j % 64);
			mtr |= (uint64_t)tr << (j % 64);
			mrel |= (uint64_t)(hd && !stay) << (j % 64);
		}
		io->tf.w[w] = mtf;
		io->tr.w[w] = mtr;
		io->rel.w[w] = mrel;
	}
}

PROC_DENSE_FORMS(dense_portable, dense_portable_body)


/* Eight bytes of @p as a little-endian word: byte i is bits 8i..8i+7 */
static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/*
 * Slots (bit o) whose raw value differs from the last check's, eight
 * bytes a step in one 64-bit word: bit 7 of each byte of t is set where
 * the byte of x = a ^ b is not 0 (its low seven bits plus 0x7f carry into
 * bit 7 without leaving the byte, or bit 7 was set), and the multiply
 * gathers those eight bits into the top byte, byte i to bit 56 + i.
 */
static void raw_changed_portable(const uint8_t *a, const uint8_t *b,
				 struct proc_mask *out)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
	unsigned int o;

	*out = (struct proc_mask){ { 0, 0, 0 } };
	for (o = 0; o < SKIN_VALUES_PER_PATCH; o += 8) {
		const uint64_t x = load_le64(a + o) ^ load_le64(b + o);
		const uint64_t t = (((x & low7) + low7) | x) & ~low7;

		out->w[o / 64] |= ((t >> 7) * 0x0102040810204080ull) >> 56 << (o % 64);
	}
}

/*
 * Slots (bit o) of the patch's groups whose baseline lies outside
 * [lo, hi]: the candidates for a self-recalibration.  The same
 * comparisons as maintain() makes per taxel.
 */
static void baseline_out_of_range_portable(const double *restrict b,
					   uint64_t groups,
					   const struct proc_mask *slots,
					   unsigned int n, double lo, double hi,
					   struct proc_mask *out)
{
	unsigned int j, end;

	(void)slots;
	*out = (struct proc_mask){ { 0, 0, 0 } };
	for (; groups; groups &= groups - 1)
		for (j = 4 * (unsigned int)__builtin_ctzll(groups), end = j + 4;
		     j < end && j < n; j++)
			out->w[j / 64] |= (uint64_t)(b[j] < lo || b[j] > hi) << (j % 64);
}

static void store_where16_portable(uint64_t *dst, unsigned int bits,
				   uint64_t v)
{
	for (bits &= 0xffff; bits; bits &= bits - 1)
		dst[__builtin_ctz(bits)] = v;
}

const struct proc_isa_ops proc_isa_portable = {
	.isa = SKIN_PROC_ISA_PORTABLE,
	.align = 1,
	.dense = dense_portable,
	.dense_held = dense_portable_held,
	.raw_changed = raw_changed_portable,
	.baseline_out_of_range = baseline_out_of_range_portable,
	.store_where16 = store_where16_portable,
};
