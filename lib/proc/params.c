// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - parameters by name (skind's get/set), with the ranges of
 * skind.conf's parser (lib/model/config.c)
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc-private.h"

enum ptype { P_UINT, P_REAL, P_BOOL };

struct param {
	const char *name;
	enum ptype type;
	size_t off;
	double min, max;
	bool min_open;
	bool read_only;
};

#define OFF(f) offsetof(struct skin_config_comp, f)

static const struct param params[] = {
	{ "period_ms", P_UINT, OFF(period_ms), 1, 10000, false, false },
	{ "min_baseline", P_REAL, OFF(min_baseline), 0, 127, false, false },
	{ "add_threshold", P_REAL, OFF(add_threshold), 0, 254, false, false },
	{ "compensation_gain", P_REAL, OFF(compensation_gain), 0, 1e6, false, false },
	{ "contact_compensation_gain", P_REAL, OFF(contact_compensation_gain), 0, 1e6, false, false },
	{ "zero_up_raw_data", P_BOOL, OFF(zero_up_raw_data), 0, 1, false, false },
	{ "smooth_filter", P_BOOL, OFF(smooth_filter), 0, 1, false, false },
	{ "smooth_factor", P_REAL, OFF(smooth_factor), 0, 1, false, false },
	{ "binarization", P_BOOL, OFF(binarization), 0, 1, false, false },
	{ "max_neighbor_dist_m", P_REAL, OFF(max_neighbor_dist_m), 0, 1, true, true },
	{ "calibration_s", P_REAL, OFF(calibration_s), 0, 3600, true, false },
	{ "compat", P_BOOL, OFF(compat), 0, 1, false, false },
	{ "hold_contacts", P_BOOL, OFF(hold_contacts), 0, 1, false, false },
	{ "hold_hysteresis", P_REAL, OFF(hold_hysteresis), 0, 255, false, false },
	{ "hold_max_s", P_REAL, OFF(hold_max_s), 0, 1e7, false, false },
	{ "auto_recalibrate", P_BOOL, OFF(auto_recalibrate), 0, 1, false, false },
	{ "fault_detection", P_BOOL, OFF(fault_detection), 0, 1, false, false },
	{ "stuck_s", P_REAL, OFF(stuck_s), 0, 1e7, true, false },
	{ "saturated_s", P_REAL, OFF(saturated_s), 0, 1e7, true, false },
	{ "dead_s", P_REAL, OFF(dead_s), 0, 1e7, true, false },
	{ "calibration_check", P_BOOL, OFF(calibration_check), 0, 1, false, false },
	{ "calibration_spread", P_REAL, OFF(calibration_spread), 0, 255, true, false },
	{ "calibration_offset", P_REAL, OFF(calibration_offset), 0, 255, true, false },
	{ "persist_calibration", P_BOOL, OFF(persist_calibration), 0, 1, false, false },
};

#define N_PARAMS (sizeof(params) / sizeof(params[0]))

static const char *names[N_PARAMS + 1];

const char *const *skin_proc_param_names(void)
{
	unsigned int i;

	if (!names[0])	/* constant content: a race would write the same */
		for (i = 0; i < N_PARAMS; i++)
			names[i] = params[i].name;
	return names;
}

static const struct param *find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < N_PARAMS; i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

int skin_proc_get(const struct skin_proc *p, const char *name, char *buf,
		  size_t len)
{
	const struct param *pr = find(name);
	const char *base = (const char *)&p->prm;

	if (!pr)
		return -ENOENT;
	switch (pr->type) {
	case P_UINT:
		return snprintf(buf, len, "%u",
				*(const unsigned int *)(base + pr->off));
	case P_BOOL:
		return snprintf(buf, len, "%s",
				*(const int *)(base + pr->off) ? "true" : "false");
	default:
		return snprintf(buf, len, "%.17g",
				*(const double *)(base + pr->off));
	}
}

/* skinManager's setSmoothFilter(true): the filter restarts from the last
 * unsmoothed values, "to get a smooth start". */
static void smooth_restart(struct skin_proc *p)
{
	unsigned int i, k;

	for (i = 0; i < p->n_parts; i++)
		for (k = 0; k < p->parts[i].n; k++)
			p->parts[i].smooth[k] = p->parts[i].d[k];
}

/*
 * A switch turned off leaves no state behind: holds end, fault flags the
 * periodic checks would no longer clear are cleared (not those of the
 * calibration), so no taxel stays on the general path or excluded.
 */
static void switches_changed(struct skin_proc *p,
			     const struct skin_config_comp *old)
{
	const struct skin_config_comp *c = &p->prm;
	const bool hold_was = old->hold_contacts && !old->compat;
	const bool hold_is = c->hold_contacts && !c->compat;
	const bool faults_was = old->fault_detection && !old->compat;
	const bool faults_is = c->fault_detection && !c->compat;
	unsigned int i, k;

	if ((!hold_was || hold_is) && (!faults_was || faults_is))
		return;
	for (i = 0; i < p->n_parts; i++) {
		struct proc_part *pt = &p->parts[i];

		for (k = 0; k < pt->n; k++) {
			if (pt->kind[k] != SKIN_TAXEL_TACTILE)
				continue;
			if (hold_was && !hold_is)
				pt->hold[k] = 0;
			if (faults_was && !faults_is)
				pt->fault[k] &= SKIN_FAULT_CALIBRATION;
			proc_mark(pt, k);
		}
	}
}

static int why_fail(char *why, size_t why_len, int rc, const char *fmt, ...)
	SKIN_PRINTF_LIKE(4, 5);

static int why_fail(char *why, size_t why_len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (why && why_len) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

int skin_proc_set(struct skin_proc *p, const char *name, const char *value,
		  char *why, size_t why_len)
{
	const struct param *pr = find(name);
	char *base = (char *)&p->prm, *end;
	double x;

	if (!pr)
		return why_fail(why, why_len, -ENOENT,
				"unknown parameter '%s'", name ? name : "");
	if (pr->read_only)
		return why_fail(why, why_len, -EROFS,
				"%s is fixed while running: the neighbour graph belongs to the model (change skind.conf and restart)",
				pr->name);
	if (!value)
		value = "";
	if (pr->type == P_BOOL) {
		int b;

		if (!strcmp(value, "true") || !strcmp(value, "yes") ||
		    !strcmp(value, "1"))
			b = 1;
		else if (!strcmp(value, "false") || !strcmp(value, "no") ||
			 !strcmp(value, "0"))
			b = 0;
		else
			return why_fail(why, why_len, -EINVAL,
					"%s = '%s': expected true or false",
					pr->name, value);
		struct skin_config_comp old = p->prm;

		if (pr->off == OFF(smooth_filter) && b && !p->prm.smooth_filter)
			smooth_restart(p);
		*(int *)(base + pr->off) = b;
		proc_derive(p);
		switches_changed(p, &old);
		return 0;
	}
	errno = 0;
	x = strtod(value, &end);
	if (!*value || *end || errno || !isfinite(x) ||
	    strpbrk(value, "xXnNiI") || x < pr->min || x > pr->max ||
	    (pr->min_open && x == pr->min) ||
	    (pr->type == P_UINT && x != floor(x)))
		return why_fail(why, why_len, -EINVAL,
				"%s = '%s': expected %s %s %g and <= %g",
				pr->name, value,
				pr->type == P_UINT ? "an integer" : "a number",
				pr->min_open ? ">" : ">=", pr->min, pr->max);
	if (pr->type == P_UINT)
		*(unsigned int *)(base + pr->off) = (unsigned int)x;
	else
		*(double *)(base + pr->off) = x;
	proc_derive(p);
	return 0;
}
