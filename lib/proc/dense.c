// SPDX-License-Identifier: GPL-2.0
/*
 * dense.c - the portable forms of the per-instruction-set passes
 * (proc-isa.h): plain C for any CPU, the ones ARM robot computers run and
 * the reference the vector forms are compared with.
 *
 * Written with gcc's and clang's generic vector extension (vector_size),
 * two doubles per vector: the compiler lowers it to SSE2 on x86-64, to
 * NEON on aarch64 and to pairs of scalars elsewhere, with no intrinsic
 * and no #ifdef, on either byte order (a lane is an index, not a memory
 * offset).  Two lanes because both SSE2 and NEON have 128-bit registers:
 * gcc 12 splits a wider type into the same operations but makes scalar
 * code of a select on it.  Each vector operation is the scalar
 * statement's (dense_slot(), taxel.c's taxel_slow()) per lane, in the
 * same order, with -ffp-contract=off: the same doubles, bit for bit.  C
 * has no vector ?:, so a select is the bitwise b ^ (m & (a ^ b)) on the
 * comparison's lane mask.  What is not arithmetic on doubles stays
 * scalar: the raw bytes become doubles through a table, and the 64-slot
 * masks are words; the touch masks are gathered as vectors (a constant
 * bit per lane) and reduced to a word once per 64 slots.
 *
 * On x86-64 the pass is bound by the latency of each slot's chain from
 * its loads to its stores more than by its instruction count (the 2-lane
 * form has about twice the AVX2 form's instructions per slot, so fewer
 * slots in flight): what shortens the chain pays even at the price of
 * instructions, such as testing a group's baselines to skip min(d, 255)
 * (dense_group()).  docs/PERFORMANCE.md ("Instruction sets") has the
 * figures; the commits that wrote this form, what was tried and dropped.
 */
#include <string.h>

#include "proc-private.h"

typedef double v2df __attribute__((vector_size(16)));
typedef int64_t v2di __attribute__((vector_size(16)));

/* Four lane masks (a 4-slot group): lanes 0-1, 2-3 */
struct m4 {
	v2di lo, hi;
};

/* lane_masks[b]: lane i all ones where bit i of b is set, 0 elsewhere */
static const struct m4 lane_masks[16] = {
#define L(b, i)	(((b) >> (i)) & 1 ? -1 : 0)
#define R(b)	{ { L(b, 0), L(b, 1) }, { L(b, 2), L(b, 3) } }
	R(0), R(1), R(2), R(3), R(4), R(5), R(6), R(7),
	R(8), R(9), R(10), R(11), R(12), R(13), R(14), R(15),
#undef R
#undef L
};

/* lane_bits[i]: lane k holds the bit of slot 4i + k in a 64-slot word */
static const struct m4 lane_bits[16] = {
#define P(i)	{ { 1ll << (4 * (i)), 2ll << (4 * (i)) }, \
		  { 4ll << (4 * (i)), (int64_t)(8ull << (4 * (i))) } }
	P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7),
	P(8), P(9), P(10), P(11), P(12), P(13), P(14), P(15),
#undef P
};

/* v of each raw value, a load per slot: [0] raw (zero_up_raw_data),
 * [1] 255 - raw; each the double voff + vsign raw is (an integer) */
static const double raw_v[2][256] = {
#define B4(i)	(i), (i) + 1, (i) + 2, (i) + 3
#define B16(i)	B4(i), B4((i) + 4), B4((i) + 8), B4((i) + 12)
#define B64(i)	B16(i), B16((i) + 16), B16((i) + 32), B16((i) + 48)
	{ B64(0), B64(64), B64(128), B64(192) },
#undef B4
#define B4(i)	255 - (i), 254 - (i), 253 - (i), 252 - (i)
	{ B64(0), B64(64), B64(128), B64(192) },
#undef B64
#undef B16
#undef B4
};

/* Four bytes of @p as a little-endian word: byte i is bits 8i..8i+7 */
static inline uint32_t load_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

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

/* m ? a : b per lane (b's bits, flipped where they differ from a's) */
static inline v2df v2_sel(v2di m, v2df a, v2df b)
{
	return (v2df)((v2di)b ^ (m & ((v2di)a ^ (v2di)b)));
}

/* Bit 4i of @m (bits 0, 4, ..., 60) as bit i */
static inline uint64_t nibbles_compress(uint64_t m)
{
	m &= 0x1111111111111111ull;
	m = (m | m >> 3) & 0x0303030303030303ull;
	m = (m | m >> 6) & 0x000f000f000f000full;
	m = (m | m >> 12) & 0x000000ff000000ffull;
	return (m | m >> 24) & 0xffff;
}

/* The 4-slot groups (bit i) of a word of slots in which any bit is set */
static inline uint64_t groups_any(uint64_t m)
{
	m |= m >> 1;
	return nibbles_compress(m | m >> 2);
}

/* The 4-slot groups (bit i) of a word of slots in which every bit is set */
static inline uint64_t groups_all(uint64_t m)
{
	m &= m >> 1;
	return nibbles_compress(m & m >> 2);
}

/* The slots of the 4-slot groups (bit i) @g of a word */
static inline uint64_t groups_slots(uint64_t g)
{
	g = (g | g << 24) & 0x000000ff000000ffull;
	g = (g | g << 12) & 0x000f000f000f000full;
	g = (g | g << 6) & 0x0303030303030303ull;
	g = (g | g << 3) & 0x1111111111111111ull;
	return g * 0xf;
}

/*
 * One slot, as taxel_slow() computes a plain running taxel (@hd: under a
 * hold; @nz: its value may be nonzero); returns its touched (bit 0),
 * touched-raw (bit 1) and hold-ended (bit 2) flags.  The statement of
 * what dense_pair() computes two slots at a time, and the form of the
 * slots of a last group that n cuts short.
 */
static inline __attribute__((always_inline))
unsigned int dense_slot(const struct dense_io *io, unsigned int j,
			const bool bin, const bool hd, const bool nz)
{
	const double v = io->voff + io->vsign * (double)io->vals[j];
	const double b = io->baseline[j], sm = io->smooth[j], lv = io->level[j];
	const bool on = io->act[j] > 0.5;
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
	io->smooth[j] = on ? s : sm;
	io->d[j] = d;
	io->baseline[j] = on && !stay ? b + (tr ? io->g_touch : io->g_free) *
					 d * io->inv_thr[j] : b;
	if (!bin || tf || nz) {
		io->value[j] = out;
		io->byte[j] = (uint8_t)(int)(out + 0.5);
	}
	return (unsigned int)tf | (unsigned int)tr << 1 |
	       (unsigned int)(hd && !stay) << 2;
}

/* The pass's constants (both lanes) and arrays, for dense_pair() */
struct dense_pass {
	v2df a_new, a_old, g_free, max, zero, hyst;
	v2di g_flip;			/* g_free's bits ^ g_touch's */
	const double *vtab;		/* a row of raw_v */
	double *baseline, *smooth, *d, *value;
	const double *level, *inv_thr;
	const uint8_t *vals;
	uint8_t *byte;
};

/*
 * Slots j and j + 1 (dense_slot() per lane): @on the plain running ones,
 * @hd the held ones (only with @held).  Their touched and touched-raw
 * lanes go into @tfw and @trw as the bits @place gives them (lane_bits[]:
 * their bits in the word); returns the held ones whose hold ends as bits
 * 0-1.  Binarized, the values and bytes are left to the caller (100 where
 * touched, 0 elsewhere: dense_portable_body() stores them from the
 * masks); else they are stored.  Two slots, not four, per call: fewer
 * values live at once, so that x86-64's 16 vector registers hold them
 * and the constants.
 */
static inline __attribute__((always_inline))
unsigned int dense_pair(const struct dense_pass *c, unsigned int j, v2df raw,
			v2df b, v2di on, v2di hd, v2di place, v2di *tfw,
			v2di *trw, const bool bin, const bool held,
			const bool clamp)
{
	v2df sm, lv, d, s, gn, inv;
	v2di tf, tr, bon = on;
	unsigned int rel = 0;

	memcpy(&sm, c->smooth + j, sizeof(sm));
	memcpy(&lv, c->level + j, sizeof(lv));
	memcpy(&inv, c->inv_thr + j, sizeof(inv));
	d = raw - b;
	if (clamp)
		d = v2_sel(d < c->max, d, c->max);
	s = c->a_new * d + c->a_old * sm;
	tf = (s > lv) & on;
	tr = (d > lv) & on;
	if (held) {
		const v2df lvh = lv - c->hyst;
		const v2di stay = hd & (d > lvh), ends = hd & ~stay;

		tf |= stay & (s > lvh);
		bon = on & ~stay;
		rel = (unsigned int)(ends[0] & 1) | (unsigned int)(ends[1] & 2);
	}
	/* tr ? g_touch : g_free, from the bits in which they differ */
	gn = (v2df)((v2di)c->g_free ^ (tr & c->g_flip)) * d * inv;
	*tfw |= tf & place;
	*trw |= tr & place;
	sm = v2_sel(on, s, sm);
	b = v2_sel(bon, b + gn, b);
	memcpy(c->smooth + j, &sm, sizeof(sm));
	memcpy(c->d + j, &d, sizeof(d));
	memcpy(c->baseline + j, &b, sizeof(b));
	if (!bin) {
		const v2df out = (v2df)(on & (s > c->zero) & (v2di)s);

		memcpy(c->value + j, &out, sizeof(out));
		c->byte[j] = (uint8_t)(int)(out[0] + 0.5);
		c->byte[j + 1] = (uint8_t)(int)(out[1] + 0.5);
	}
	return rel;
}

/*
 * Slots j..j+3 (lanes 0-3 of the masks): dense_pair() twice.  d = v - b
 * is at most 255 where b >= 0 (v is; the rounding is monotonic), so that
 * min(d, 255) changes nothing: the usual group, whose baselines are all
 * >= 0, skips it (its comparison and select are the longest link of the
 * chain from the loads to the stores); any other, with a negative or NaN
 * baseline, takes it.
 */
static inline __attribute__((always_inline))
unsigned int dense_group(const struct dense_pass *c, unsigned int j,
			 struct m4 on, struct m4 hd, const struct m4 *place,
			 v2di *tfw, v2di *trw, const bool bin, const bool held)
{
	const uint32_t r = load_le32(c->vals + j);	/* one load, 4 bytes */
	const v2df raw0 = { c->vtab[r & 0xff], c->vtab[(r >> 8) & 0xff] };
	const v2df raw1 = { c->vtab[(r >> 16) & 0xff], c->vtab[r >> 24] };
	v2df b0, b1;
	v2di pos;

	memcpy(&b0, c->baseline + j, sizeof(b0));
	memcpy(&b1, c->baseline + j + 2, sizeof(b1));
	pos = (b0 >= c->zero) & (b1 >= c->zero);
	if (pos[0] & pos[1])
		return dense_pair(c, j, raw0, b0, on.lo, hd.lo, place->lo,
				  tfw, trw, bin, held, false) |
		       dense_pair(c, j + 2, raw1, b1, on.hi, hd.hi, place->hi,
				  tfw, trw, bin, held, false) << 2;
	return dense_pair(c, j, raw0, b0, on.lo, hd.lo, place->lo,
			  tfw, trw, bin, held, true) |
	       dense_pair(c, j + 2, raw1, b1, on.hi, hd.hi, place->hi,
			  tfw, trw, bin, held, true) << 2;
}

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
 * patch.  This is the portable form: a group of 4 slots at a time
 * (dense_group()), only the groups of triangles with tactile taxels (the
 * others' outputs stay 0), in three loops per 64-slot word: the groups of
 * four plain slots (the selects on the plain-slot mask fold away), the
 * others, and those with held slots (the hold's arithmetic only there);
 * the touched slots' binarized values are stored after the loops, from
 * the masks; dense_avx2.c and dense_avx512.c compute the same doubles
 * four and eight at a time.
 */
static inline __attribute__((always_inline))
void dense_portable_body(struct dense_io *io, const bool bin, const bool hold)
{
	static const double *const vtabs[2] = { raw_v[0], raw_v[1] };
	struct dense_pass c = {
		.a_new = { io->a_new, io->a_new }, .a_old = { io->a_old, io->a_old },
		.g_free = { io->g_free, io->g_free },
		.max = { PROC_MAX_SKIN, PROC_MAX_SKIN }, .zero = { 0, 0 },
		.hyst = { io->hyst, io->hyst },
		/* a pointer loaded, so that gcc does not index the table
		 * and add the row per slot */
		.vtab = vtabs[io->vsign < 0],
		.baseline = io->baseline, .smooth = io->smooth, .d = io->d,
		.value = io->value, .level = io->level, .inv_thr = io->inv_thr,
		.vals = io->vals, .byte = io->byte,
	};
	const struct m4 none = lane_masks[0];
	const v2df g_touch = { io->g_touch, io->g_touch };
	const unsigned int n = io->n;
	/* the groups whose 4 slots are all below n; the last one n cuts
	 * (a part whose slot count is no multiple of 4), slot by slot */
	const uint64_t whole = (1ull << (n / 4)) - 1;	/* n <= 192 */
	const uint64_t groups = io->groups & whole, cut = io->groups & ~whole;
	unsigned int w;
	uint64_t g;

	c.g_flip = (v2di)c.g_free ^ (v2di)g_touch;
	for (w = 0; w < 3; w++) {
		/* the word's masks in registers: io is not restrict, so a
		 * read through it inside the loop is a load per group */
		const uint64_t heldw = hold ? io->held->w[w] : 0;
		const uint64_t onw = io->on.w[w], gw = (groups >> (16 * w)) & 0xffff;
		/* the groups with held slots (few), in a loop of their own */
		const uint64_t hg = hold ? groups_any(heldw) : 0;
		/* the groups of 4 plain running slots: no lane to leave
		 * as it was, so no select (the constant mask folds them) */
		const uint64_t full = groups_all(onw);
		v2di tfv = { 0, 0 }, trv = { 0, 0 };
		uint64_t tfw, relw = 0, m;

		for (g = gw & full & ~hg; g; g &= g - 1) {
			const unsigned int i = (unsigned int)__builtin_ctzll(g);

			dense_group(&c, 64 * w + 4 * i, lane_masks[15], none,
				    &lane_bits[i], &tfv, &trv, bin, false);
		}
		for (g = gw & ~full & ~hg; g; g &= g - 1) {
			const unsigned int i = (unsigned int)__builtin_ctzll(g);

			dense_group(&c, 64 * w + 4 * i, lane_masks[(onw >> (4 * i)) & 15],
				    none, &lane_bits[i], &tfv, &trv, bin, false);
		}
		for (g = gw & hg; g; g &= g - 1) {
			const unsigned int i = (unsigned int)__builtin_ctzll(g);

			relw |= (uint64_t)dense_group(&c, 64 * w + 4 * i,
				lane_masks[(onw >> (4 * i)) & 15],
				lane_masks[(heldw >> (4 * i)) & 15],
				&lane_bits[i], &tfv, &trv, bin, true) << (4 * i);
		}
		tfw = (uint64_t)(tfv[0] | tfv[1]);
		io->tf.w[w] = tfw;
		io->tr.w[w] = (uint64_t)(trv[0] | trv[1]);
		io->rel.w[w] = relw;
		/* binarized: 100 where touched, 0 where it was not 0 (the
		 * slots of the groups above; the others are 0 already) */
		for (m = bin ? (tfw | io->nz.w[w]) & groups_slots(gw) : 0; m; m &= m - 1) {
			const unsigned int j = 64 * w + (unsigned int)__builtin_ctzll(m);
			const double out = (tfw >> (j % 64)) & 1 ? PROC_BIN_TOUCH :
								   PROC_BIN_NO_TOUCH;

			io->value[j] = out;
			io->byte[j] = (uint8_t)(int)(out + 0.5);
		}
	}
	for (g = cut; g; g &= g - 1) {
		const unsigned int j0 = 4 * (unsigned int)__builtin_ctzll(g);
		unsigned int j;

		for (j = j0; j < n; j++) {
			const unsigned int o = j % 64;
			const unsigned int f = dense_slot(io, j, bin,
				hold && ((io->held->w[j / 64] >> o) & 1),
				(io->nz.w[j / 64] >> o) & 1);

			io->tf.w[j / 64] |= (uint64_t)(f & 1) << o;
			io->tr.w[j / 64] |= (uint64_t)((f >> 1) & 1) << o;
			io->rel.w[j / 64] |= (uint64_t)(f >> 2) << o;
		}
	}
}

PROC_DENSE_FORMS(dense_portable, dense_portable_body)


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
 * comparisons as maintain() makes per taxel, a group of 4 at a time (the
 * last group, if n cuts it, slot by slot).  Below and above go to masks
 * of their own: gcc makes scalar code of a lane-bit mask of the two
 * comparisons or'd.
 */
static void baseline_out_of_range_portable(const double *restrict b,
					   uint64_t groups,
					   const struct proc_mask *slots,
					   unsigned int n, double lo, double hi,
					   struct proc_mask *out)
{
	const v2df vlo = { lo, lo }, vhi = { hi, hi };
	const uint64_t whole = (1ull << (n / 4)) - 1;	/* n <= 192 */
	unsigned int w, j, end;
	uint64_t g;

	(void)slots;
	for (w = 0; w < 3; w++) {
		v2di below = { 0, 0 }, above = { 0, 0 };

		for (g = ((groups & whole) >> (16 * w)) & 0xffff; g; g &= g - 1) {
			const unsigned int i = (unsigned int)__builtin_ctzll(g);
			v2df x0, x1;

			memcpy(&x0, b + 64 * w + 4 * i, sizeof(x0));
			memcpy(&x1, b + 64 * w + 4 * i + 2, sizeof(x1));
			below |= (x0 < vlo) & lane_bits[i].lo;
			above |= (x0 > vhi) & lane_bits[i].lo;
			below |= (x1 < vlo) & lane_bits[i].hi;
			above |= (x1 > vhi) & lane_bits[i].hi;
		}
		below |= above;
		out->w[w] = (uint64_t)(below[0] | below[1]);
	}
	for (g = groups & ~whole; g; g &= g - 1)
		for (j = 4 * (unsigned int)__builtin_ctzll(g), end = j + 4;
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
