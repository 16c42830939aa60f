/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc-isa.h - the passes of lib/proc that have a form per instruction set
 *
 * The dense pass over a patch's slots (taxel_slow()'s arithmetic, taxel.c,
 * for every plain running taxel of the patch at once) and the masks of the
 * periodic checks.  Each instruction set's forms are a file of their own,
 * built with that set's compiler flags (meson.build: a static library per
 * set, as the kernel's lib/raid6 builds its avx2.c and avx512.c), behind
 * one table of operations: dense.c (portable C, any CPU), dense_avx2.c,
 * dense_avx512.c.  A patch is given its table once, at creation
 * (proc_isa_ops_for(), isa.c); the sample path calls through it and
 * never asks the CPU again.
 *
 * Every form computes the same doubles by the same operations in the same
 * order (no FMA: the files are built with -ffp-contract=off), so the
 * results do not depend on the table (test_proc_reference compares them
 * bit for bit).
 */
#ifndef SKIN_PROC_ISA_H
#define SKIN_PROC_ISA_H

#include <stdbool.h>
#include <stdint.h>

#include <skin/proc.h>

struct dense_io;
struct proc_mask;

struct proc_isa_ops {
	enum skin_proc_isa isa;
	/* slots per step: a patch gets this table only when its n_slots is
	 * a multiple (else the next one down) */
	unsigned int align;
	/* the dense pass (struct dense_io, proc-private.h): without held
	 * taxels, and the copy for a patch with some (the rare case, so that
	 * the usual one pays nothing for holds) */
	void (*dense)(struct dense_io *io, bool bin);
	void (*dense_held)(struct dense_io *io, bool bin);
	/* slots (bit o) whose raw value differs between @a and @b (192
	 * bytes each) */
	void (*raw_changed)(const uint8_t *a, const uint8_t *b,
			    struct proc_mask *out);
	/* slots of the 4-slot @groups (8-slot ones: @slots, the same slots)
	 * whose baseline lies outside [lo, hi] */
	void (*baseline_out_of_range)(const double *b, uint64_t groups,
				      const struct proc_mask *slots,
				      unsigned int n, double lo, double hi,
				      struct proc_mask *out);
	/* dst[t] = v for every bit t of @bits (16 triangles' timestamps) */
	void (*store_where16)(uint64_t *dst, unsigned int bits, uint64_t v);
};

extern const struct proc_isa_ops proc_isa_portable;	/* dense.c */
#if defined(__x86_64__)
extern const struct proc_isa_ops proc_isa_avx2;		/* dense_avx2.c */
extern const struct proc_isa_ops proc_isa_avx512;	/* dense_avx512.c */
/* dense_avx2.c's forms that the AVX-512 table takes as they are */
void proc_raw_changed_avx2(const uint8_t *a, const uint8_t *b,
			   struct proc_mask *out);
void proc_store_where16_avx2(uint64_t *dst, unsigned int bits, uint64_t v);
#endif

/* isa.c: the instruction set a processor asked for @want runs (the
 * best the CPU has for SKIN_PROC_ISA_AUTO); -EOPNOTSUPP when the CPU
 * lacks it */
int proc_isa_resolve(enum skin_proc_isa want, enum skin_proc_isa *isa);
/* the table for a patch of @n_slots slots when the processor runs
 * @isa (resolved: not SKIN_PROC_ISA_AUTO) */
const struct proc_isa_ops *proc_isa_ops_for(enum skin_proc_isa isa,
					    unsigned int n_slots);

/*
 * The two entry points of a form of the dense pass, from its body
 * (static inline, always_inline): @name without held taxels and
 * @name_held with, each with a copy of the loop for binarized and not, so
 * that every case is compiled with its constants.  The held copies are
 * functions of their own because gcc allocates registers worse for every
 * case when they share one (the AVX2 loop: 6% more instructions without
 * any hold).
 */
#define PROC_DENSE_FORMS(name, body)					\
	static void name(struct dense_io *io, bool bin)			\
	{								\
		if (bin)						\
			body(io, true, false);				\
		else							\
			body(io, false, false);				\
	}								\
	static void name##_held(struct dense_io *io, bool bin)		\
	{								\
		if (bin)						\
			body(io, true, true);				\
		else							\
			body(io, false, true);				\
	}

#endif
