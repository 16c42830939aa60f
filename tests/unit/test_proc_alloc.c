// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_alloc.c - the per-sample path allocates nothing
 *
 * Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free:
 * every call lib/proc (and lib/model) makes to the allocator goes through
 * the counters below, under ASan as well (the wrappers call ASan's
 * allocator).  Calls glibc makes internally (inside snprintf, say) are not
 * seen; the encoders use snprintf with short formats only.
 */
#include <math.h>

#include "test_proc_util.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static unsigned long allocs, frees;

void *__wrap_malloc(size_t n)
{
	allocs++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	allocs++;
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	allocs++;
	return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
	if (p)
		frees++;
	__real_free(p);
}

static void default_mode(struct skin_config_comp *c)
{
	(void)c;
}

static void compat_mode(struct skin_config_comp *c)
{
	c->compat = 1;
}

/* @cycle: compat on skinManager's clock, a cycle of every part per step */
static void no_allocation(void (*tweak)(struct skin_config_comp *), bool cycle)
{
	const struct skin_proc_opts o = { .cycle = cycle };
	struct skin_error err;
	static char buf[1 << 16];
	struct skin_taxel_fault fl[16];
	struct fixture fx;
	struct skin_frame f;
	unsigned int s, i, pi, contacts = 0;
	unsigned long a0, f0;
	char val[64];

	fixture_icub(&fx, tweak);
	if (cycle) {
		skin_proc_free(fx.p);
		fx.p = skin_proc_new_opts(fx.m, &fx.cfg->comp, &o, &err);
		assert_non_null(fx.p);
	}
	skin_proc_calibrate(fx.p, -1);
	a0 = allocs;
	f0 = frees;
	for (s = 1; s <= 2000; s++) {
		for (i = 0; i < fx.m->n_patches; i++) {
			frame_init(&f, s, s * 20 * MS, (uint8_t)(236 + (s + i) % 5));
			/* presses come and go; a stuck triangle, diagnostics */
			if (s > 300 && (s / 100) % 2)
				memset(f.values + 24 * (s % 7), 120, 30);
			if (i == 3)
				f.refreshed = 0x7fff;
			if (i == 4 && s % 10 == 0) {
				f.diag_valid = 1;
				f.diag[0] = 0x10;
			}
			assert_true(skin_proc_feed(fx.p, i, &f) >= 0);
		}
		for (pi = 0; pi < fx.m->n_parts; pi++) {
			int n;

			assert_true(skin_proc_cycle(fx.p, pi, s * 20 * MS) >= 0);
			n = skin_proc_cluster(fx.p, pi);

			assert_true(n >= 0);
			contacts += (unsigned int)n;
		}
		assert_true(skin_proc_bottle(fx.p, -1, buf, sizeof(buf)) < (int)sizeof(buf));
		assert_true(skin_proc_json(fx.p, -1, buf, sizeof(buf)) < (int)sizeof(buf));
		skin_proc_fault_list(fx.p, -1, fl, 16);
		skin_proc_get(fx.p, "add_threshold", val, sizeof(val));
	}
	if (allocs != a0 || frees != f0)
		fail_msg("%lu allocations and %lu frees in the sample path",
			 allocs - a0, frees - f0);
	assert_true(contacts > 100);	/* the path did cluster */
	fixture_done(&fx);
}

static void no_allocation_default(void **state)
{
	(void)state;
	no_allocation(default_mode, false);
}

static void no_allocation_compat(void **state)
{
	(void)state;
	no_allocation(compat_mode, false);
}

static void no_allocation_compat_cycle(void **state)
{
	(void)state;
	no_allocation(compat_mode, true);
}

/* The counters see the library's allocations: creation counts. */
static void counters_work(void **state)
{
	struct fixture fx;
	unsigned long a0 = allocs;

	(void)state;
	fixture_strip(&fx, "");
	assert_true(allocs > a0);
	fixture_done(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counters_work),
		cmocka_unit_test(no_allocation_default),
		cmocka_unit_test(no_allocation_compat),
		cmocka_unit_test(no_allocation_compat_cycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
