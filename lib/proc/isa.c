// SPDX-License-Identifier: GPL-2.0
/*
 * isa.c - which form of the per-instruction-set passes (proc-isa.h) a
 * processor and each of its patches use: asked of the CPU once, at
 * creation, or given by the caller (struct skin_proc_opts) to compare the
 * forms or to measure one.
 */
#include <errno.h>
#include <string.h>

#include "proc-private.h"

bool skin_proc_isa_supported(enum skin_proc_isa isa)
{
	switch (isa) {
	case SKIN_PROC_ISA_AUTO:
	case SKIN_PROC_ISA_PORTABLE:
		return true;
#if defined(__x86_64__)
	/* dense_avx2.c is built with -mbmi -mbmi2 too (every AVX2 CPU
	 * has them, but a hypervisor may hide them) */
	case SKIN_PROC_ISA_AVX2:
		return __builtin_cpu_supports("avx2") &&
		       __builtin_cpu_supports("bmi") &&
		       __builtin_cpu_supports("bmi2");
	case SKIN_PROC_ISA_AVX512:
		return skin_proc_isa_supported(SKIN_PROC_ISA_AVX2) &&
		       __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl");
#endif
	default:
		return false;
	}
}

const char *skin_proc_isa_name(enum skin_proc_isa isa)
{
	switch (isa) {
	case SKIN_PROC_ISA_AUTO:
		return "auto";
	case SKIN_PROC_ISA_PORTABLE:
		return "portable";
	case SKIN_PROC_ISA_AVX2:
		return "avx2";
	case SKIN_PROC_ISA_AVX512:
		return "avx512";
	}
	return NULL;
}

int skin_proc_isa_parse(const char *name)
{
	int i;

	for (i = SKIN_PROC_ISA_AUTO; i <= SKIN_PROC_ISA_AVX512; i++)
		if (!strcmp(name, skin_proc_isa_name((enum skin_proc_isa)i)))
			return i;
	return -EINVAL;
}

/* The best instruction set the CPU has */
static enum skin_proc_isa isa_best(void)
{
	int i;

	for (i = SKIN_PROC_ISA_AVX512; i > SKIN_PROC_ISA_PORTABLE; i--)
		if (skin_proc_isa_supported((enum skin_proc_isa)i))
			return (enum skin_proc_isa)i;
	return SKIN_PROC_ISA_PORTABLE;
}

int proc_isa_resolve(enum skin_proc_isa want, enum skin_proc_isa *isa)
{
	if (want == SKIN_PROC_ISA_AUTO) {
		*isa = isa_best();
		return 0;
	}
	if (!skin_proc_isa_supported(want))
		return -EOPNOTSUPP;
	*isa = want;
	return 0;
}

const struct proc_isa_ops *proc_isa_ops_for(enum skin_proc_isa isa,
					    unsigned int n_slots)
{
	static const struct proc_isa_ops *const ops[] = {
		[SKIN_PROC_ISA_PORTABLE] = &proc_isa_portable,
#if defined(__x86_64__)
		[SKIN_PROC_ISA_AVX2] = &proc_isa_avx2,
		[SKIN_PROC_ISA_AVX512] = &proc_isa_avx512,
#endif
	};
	int i;

	/* a short patch whose slots are no multiple of the set's step takes
	 * the widest form whose step fits */
	for (i = (int)isa; i > SKIN_PROC_ISA_PORTABLE; i--)
		if ((unsigned int)i < sizeof(ops) / sizeof(ops[0]) && ops[i] &&
		    !(n_slots % ops[i]->align))
			return ops[i];
	return &proc_isa_portable;
}
