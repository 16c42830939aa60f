// SPDX-License-Identifier: GPL-2.0
/*
 * dense_avx512.c - the AVX-512 (F, VL) forms of the per-instruction-set
 * passes (proc-isa.h), built with -mavx512f -mavx512vl (meson.build) and
 * called only on a CPU that has them (isa.c)
 */
#include <immintrin.h>
#include <string.h>

#include "proc-private.h"

/*
 * The baselines out of range, 8 slots per step, the 8-slot groups' write
 * masks (proc_patch.slots) read a byte at a time as in the dense pass
 */
static void baseline_out_of_range_avx512(const double *restrict b,
					 uint64_t groups,
					 const struct proc_mask *slots, unsigned int n,
					 double lo, double hi, struct proc_mask *out)
{
	const uint8_t *wr8 = (const uint8_t *)slots;
	const __m512d vlo = _mm512_set1_pd(lo), vhi = _mm512_set1_pd(hi);
	uint8_t *out8 = (uint8_t *)out->w;
	unsigned int q;

	(void)groups;
	*out = (struct proc_mask){ { 0, 0, 0 } };
	for (q = 0; q < n / 8; q++) {
		const __mmask8 km = wr8[q];
		__m512d v;

		if (!km)
			continue;
		v = _mm512_loadu_pd(b + 8 * q);
		out8[q] = (uint8_t)(_mm512_mask_cmp_pd_mask(km, v, vlo, _CMP_LT_OQ) |
				    _mm512_mask_cmp_pd_mask(km, v, vhi, _CMP_GT_OQ));
	}
}

/*
 * The dense pass (dense.c: dense_portable_body()) eight slots at a time, with
 * AVX-512's mask registers: the comparisons are the touch masks
 * themselves.  Only the slots of triangles with tactile taxels are
 * written (write mask from the 4-slot groups), as in the other two forms,
 * and each array's 8 slots with one store: a store with more lanes masked
 * off than the write mask's costs more than blending the old values in and
 * storing them back.  No FMA (-ffp-contract=off): the same doubles.
 *
 * The loop walks the patch's 8-slot groups in order, reading each group's
 * write mask and plain-taxel mask as one byte of the 192-bit masks and
 * storing its touch masks the same way (an 8-slot group is one byte of a
 * mask, x86 being little-endian), so that one index addresses everything
 * and nothing spills: about half the instructions of walking the set bits
 * and shifting the masks into place.  v = 255 - raw is raw ^ 0xff on the
 * bytes, before the conversion: the same integers, so the same doubles.
 */
static inline __attribute__((always_inline))
void dense_avx512_body(struct dense_io *io, const bool bin, const bool hold)
{
	const __m512d a_new = _mm512_set1_pd(io->a_new);
	const __m512d a_old = _mm512_set1_pd(io->a_old);
	const __m512d g_free = _mm512_set1_pd(io->g_free);
	const __m512d g_touch = _mm512_set1_pd(io->g_touch);
	const __m512d max = _mm512_set1_pd(PROC_MAX_SKIN);
	const __m512d zero = _mm512_setzero_pd(), half = _mm512_set1_pd(0.5);
	const __m512d touch = _mm512_set1_pd(PROC_BIN_TOUCH);
	const __m512d hyst = _mm512_set1_pd(io->hyst);
	/* a dword broadcast: a byte one needs AVX512BW, else the stack */
	const __m128i flip = _mm_set1_epi32(io->vsign < 0 ? -1 : 0);
	double *restrict baseline = io->baseline, *restrict smooth = io->smooth;
	double *restrict dd = io->d, *restrict value = io->value;
	const double *restrict level = io->level, *restrict inv_thr = io->inv_thr;
	const uint8_t *restrict vals = io->vals;
	uint8_t *restrict byte = io->byte;
	/* the masks, a byte per group, all in *io: one base register */
	const uint8_t *wr8 = (const uint8_t *)&io->wr;
	const uint8_t *on8 = (const uint8_t *)&io->on;
	const uint8_t *hd8 = (const uint8_t *)io->held;
	const uint8_t *nz8 = (const uint8_t *)&io->nz;
	uint8_t *tf8 = (uint8_t *)&io->tf, *tr8 = (uint8_t *)&io->tr;
	uint8_t *rel8 = (uint8_t *)&io->rel;
	const unsigned int nq = io->n / 8;
	unsigned int q;

	io->tf = io->tr = (struct proc_mask){ { 0, 0, 0 } };
	if (hold)
		io->rel = (struct proc_mask){ { 0, 0, 0 } };
	/* n is a multiple of 8 (this table's align): an 8-slot group is
	 * two whole 4-slot groups */
	for (q = 0; q < nq; q++) {
		const __mmask8 km = wr8[q], on = on8[q], hd = hold ? hd8[q] : 0;
		const unsigned int j = 8 * q;
		__m512d raw, b, sm, lv, d, s, fs, out, gn;
		__mmask8 tf, tr, bon = on;

		if (!km)	/* a triangle without tactile taxels */
			continue;
		raw = _mm512_cvtepi32_pd(_mm256_cvtepu8_epi32(_mm_xor_si128(
			_mm_loadl_epi64((const __m128i *)(vals + j)), flip)));
		b = _mm512_loadu_pd(baseline + j);
		sm = _mm512_loadu_pd(smooth + j);
		lv = _mm512_loadu_pd(level + j);
		d = _mm512_sub_pd(raw, b);
		d = _mm512_min_pd(d, max);
		s = _mm512_add_pd(_mm512_mul_pd(a_new, d), _mm512_mul_pd(a_old, sm));
		fs = _mm512_max_pd(s, zero);
		tf = _mm512_mask_cmp_pd_mask(on, s, lv, _CMP_GT_OQ);
		tr = _mm512_mask_cmp_pd_mask(on, d, lv, _CMP_GT_OQ);
		if (hd) {	/* held slots (rare): as the portable form */
			const __m512d lvh = _mm512_sub_pd(lv, hyst);
			const __mmask8 stay = _mm512_mask_cmp_pd_mask(hd, d, lvh, _CMP_GT_OQ);

			tf |= _mm512_mask_cmp_pd_mask(stay, s, lvh, _CMP_GT_OQ);
			bon = on & (__mmask8)~stay;
			rel8[q] = hd & (__mmask8)~stay;
		}
		out = bin ? _mm512_mask_mov_pd(zero, tf, touch) :
		      _mm512_maskz_mov_pd(on, fs);
		gn = _mm512_mul_pd(_mm512_mul_pd(_mm512_mask_blend_pd(tr, g_free, g_touch), d),
				   _mm512_loadu_pd(inv_thr + j));
		/* whole-group stores: the lanes not to change get the value
		 * they had (a store with lanes masked off costs more) */
		_mm512_mask_storeu_pd(smooth + j, km, _mm512_mask_mov_pd(sm, on, s));
		_mm512_mask_storeu_pd(dd + j, km, d);
		_mm512_mask_storeu_pd(baseline + j, km,
				      _mm512_mask_add_pd(b, bon, b, gn));
		if (!bin || (km & (tf | nz8[q]))) {
			_mm512_mask_storeu_pd(value + j, km, out);
			_mm256_mask_cvtepi32_storeu_epi8(byte + j, km,
				_mm512_cvttpd_epi32(_mm512_add_pd(out, half)));
		}
		tf8[q] = tf;
		tr8[q] = tr;
	}
}

PROC_DENSE_FORMS(dense_avx512, dense_avx512_body)

const struct proc_isa_ops proc_isa_avx512 = {
	.isa = SKIN_PROC_ISA_AVX512,
	.align = 8,
	.dense = dense_avx512,
	.dense_held = dense_avx512_held,
	.raw_changed = proc_raw_changed_avx2,
	.baseline_out_of_range = baseline_out_of_range_avx512,
	.store_where16 = proc_store_where16_avx2,
};
