// SPDX-License-Identifier: GPL-2.0
/*
 * dense_avx2.c - the AVX2 forms of the per-instruction-set passes
 * (proc-isa.h), built with -mavx2 (meson.build) and called only on a CPU
 * that has it (isa.c).
 */
#include <immintrin.h>
#include <string.h>

#include "proc-private.h"

/* lane_masks[m]: 64-bit lane i all ones when bit i of m is set */
static const uint64_t lane_masks[16][4] = {
#define L(m, i)	(((m) >> (i)) & 1 ? ~0ull : 0)
#define R(m)	{ L(m, 0), L(m, 1), L(m, 2), L(m, 3) }
	R(0), R(1), R(2), R(3), R(4), R(5), R(6), R(7),
	R(8), R(9), R(10), R(11), R(12), R(13), R(14), R(15),
#undef R
#undef L
};

/* The 16 triangles' timestamps: a masked store per 4 */
void proc_store_where16_avx2(uint64_t *dst, unsigned int bits, uint64_t v)
{
	const __m256i vv = _mm256_set1_epi64x((long long)v);
	unsigned int g;

	for (g = 0; g < 16; g += 4)
		_mm256_maskstore_epi64((long long *)(dst + g),
				       _mm256_loadu_si256((const __m256i *)lane_masks[(bits >> g) & 15]),
				       vv);
}

/* The raw values that moved, 32 bytes at a time */
void proc_raw_changed_avx2(const uint8_t *a, const uint8_t *b, struct proc_mask *out)
{
	unsigned int w;

	for (w = 0; w < 3; w++) {
		const __m256i x0 = _mm256_loadu_si256((const __m256i *)(a + 64 * w));
		const __m256i x1 = _mm256_loadu_si256((const __m256i *)(a + 64 * w + 32));
		const __m256i y0 = _mm256_loadu_si256((const __m256i *)(b + 64 * w));
		const __m256i y1 = _mm256_loadu_si256((const __m256i *)(b + 64 * w + 32));

		out->w[w] = ~((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x0, y0)) |
			   (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x1, y1)) << 32);
	}
}

/* The baselines out of range, a group of 4 at a time */
static void baseline_out_of_range_avx2(const double *restrict b,
				       uint64_t groups, const struct proc_mask *slots,
				       unsigned int n, double lo, double hi,
				       struct proc_mask *out)
{
	const __m256d vlo = _mm256_set1_pd(lo), vhi = _mm256_set1_pd(hi);
	unsigned int w;

	(void)slots;
	(void)n;
	for (w = 0; w < 3; w++) {
		uint64_t g, mo = 0;

		for (g = (groups >> (16 * w)) & 0xffff; g; g &= g - 1) {
			const unsigned int i = (unsigned int)__builtin_ctzll(g);
			const __m256d v = _mm256_loadu_pd(b + 64 * w + 4 * i);

			mo |= (uint64_t)_mm256_movemask_pd(_mm256_or_pd(
				_mm256_cmp_pd(v, vlo, _CMP_LT_OQ),
				_mm256_cmp_pd(v, vhi, _CMP_GT_OQ))) << (4 * i);
		}
		out->w[w] = mo;
	}
}

/*
 * The dense pass (dense.c: dense_portable_body()) in AVX2 intrinsics, four slots
 * per step: the same operations in the same order (no FMA; min and max
 * are the same comparisons as the portable form's), so both give the same
 * doubles.  gcc's vector extension would leave the u8 loads, the masks
 * and the byte stores to scalar code; here they are one instruction each.
 */
static inline __attribute__((always_inline))
void dense_avx2_body(struct dense_io *io, const bool bin, const bool hold)
{
	const __m256d a_new = _mm256_set1_pd(io->a_new);
	const __m256d a_old = _mm256_set1_pd(io->a_old);
	const __m256d g_free = _mm256_set1_pd(io->g_free);
	const __m256d g_touch = _mm256_set1_pd(io->g_touch);
	const __m256d voff = _mm256_set1_pd(io->voff);
	const __m256d vsign = _mm256_set1_pd(io->vsign);
	const __m256d max = _mm256_set1_pd(PROC_MAX_SKIN);
	const __m256d zero = _mm256_setzero_pd(), half = _mm256_set1_pd(0.5);
	const __m256d touch = _mm256_set1_pd(PROC_BIN_TOUCH);
	const __m256d hyst = _mm256_set1_pd(io->hyst);
	double *restrict baseline = io->baseline, *restrict smooth = io->smooth;
	double *restrict dd = io->d, *restrict value = io->value;
	const double *restrict level = io->level, *restrict inv_thr = io->inv_thr;
	const double *restrict act = io->act;
	const uint8_t *restrict vals = io->vals;
	uint8_t *restrict byte = io->byte;
	unsigned int w;
	uint64_t g;

	/* n is a multiple of 4 (this table's align): groups are whole */
	for (w = 0; w < 3; w++) {
		/* the word's masks in registers: io is not restrict, so a
		 * read through it inside the loop is a load per group */
		const uint64_t heldw = hold ? io->held->w[w] : 0, nzw = io->nz.w[w];
		uint64_t tfw = 0, trw = 0, relw = 0;

		for (g = (io->groups >> (16 * w)) & 0xffff; g; g &= g - 1) {
			const unsigned int i = (unsigned int)__builtin_ctzll(g);
			const unsigned int j = 64 * w + 4 * i;
			int32_t r4, ob;

			const __m256d raw = (memcpy(&r4, vals + j, 4),
				_mm256_cvtepi32_pd(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(r4))));
			const __m256d b = _mm256_loadu_pd(baseline + j);
			const __m256d sm = _mm256_loadu_pd(smooth + j);
			const __m256d lv = _mm256_loadu_pd(level + j);
			const __m256d on = _mm256_cmp_pd(_mm256_loadu_pd(act + j), half, _CMP_GT_OQ);
			const unsigned int hb = (heldw >> (4 * i)) & 15;
			__m256d d, s, fs, tf, tr, out, gn, bon = on;
			__m128i oi;
			uint64_t mtf, mtr;

			d = _mm256_sub_pd(_mm256_add_pd(voff, _mm256_mul_pd(vsign, raw)), b);
			/* minpd(a, b) is a < b ? a : b, maxpd a > b ? a : b */
			d = _mm256_min_pd(d, max);
			s = _mm256_add_pd(_mm256_mul_pd(a_new, d), _mm256_mul_pd(a_old, sm));
			fs = _mm256_max_pd(s, zero);
			tf = _mm256_and_pd(_mm256_cmp_pd(s, lv, _CMP_GT_OQ), on);
			tr = _mm256_and_pd(_mm256_cmp_pd(d, lv, _CMP_GT_OQ), on);
			if (hb) {	/* held slots (rare): as the portable form */
				const __m256d hd = _mm256_castsi256_pd(_mm256_loadu_si256(
					(const __m256i *)lane_masks[hb]));
				const __m256d lvh = _mm256_sub_pd(lv, hyst);
				const __m256d stay = _mm256_and_pd(hd,
					_mm256_cmp_pd(d, lvh, _CMP_GT_OQ));

				tf = _mm256_or_pd(tf, _mm256_and_pd(stay,
					_mm256_cmp_pd(s, lvh, _CMP_GT_OQ)));
				bon = _mm256_andnot_pd(stay, on);
				relw |= (uint64_t)_mm256_movemask_pd(
					_mm256_andnot_pd(stay, hd)) << (4 * i);
			}
			out = bin ? _mm256_and_pd(touch, tf) : _mm256_and_pd(fs, on);
			gn = _mm256_mul_pd(_mm256_mul_pd(_mm256_blendv_pd(g_free, g_touch, tr), d),
					   _mm256_loadu_pd(inv_thr + j));
			mtf = (unsigned int)_mm256_movemask_pd(tf);
			mtr = (unsigned int)_mm256_movemask_pd(tr);
			_mm256_storeu_pd(smooth + j, _mm256_blendv_pd(sm, s, on));
			_mm256_storeu_pd(dd + j, d);
			_mm256_storeu_pd(baseline + j, _mm256_blendv_pd(b, _mm256_add_pd(b, gn), bon));
			if (!bin || ((mtf | (nzw >> (4 * i))) & 15)) {
				_mm256_storeu_pd(value + j, out);
				oi = _mm256_cvttpd_epi32(_mm256_add_pd(out, half));
				oi = _mm_packus_epi16(_mm_packus_epi32(oi, oi), oi);
				ob = _mm_cvtsi128_si32(oi);
				memcpy(byte + j, &ob, 4);
			}
			tfw |= mtf << (4 * i);
			trw |= mtr << (4 * i);
		}
		io->tf.w[w] = tfw;
		io->tr.w[w] = trw;
		io->rel.w[w] = relw;
	}
}

PROC_DENSE_FORMS(dense_avx2, dense_avx2_body)


const struct proc_isa_ops proc_isa_avx2 = {
	.isa = SKIN_PROC_ISA_AVX2,
	.align = 4,
	.dense = dense_avx2,
	.dense_held = dense_avx2_held,
	.raw_changed = proc_raw_changed_avx2,
	.baseline_out_of_range = baseline_out_of_range_avx2,
	.store_where16 = proc_store_where16_avx2,
};
