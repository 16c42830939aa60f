// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - parameters by name (skind's get/set), checked against the
 * table skind.conf is parsed with (lib/conf/skind.c)
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "proc-private.h"

#define OFF(f) offsetof(struct skin_config_comp, f)

/* The [skind] keys with their ranges: lib/conf's table, the one skind.conf
 * is parsed with. */
static const char *names[64];

const char *const *skin_proc_param_names(void)
{
	unsigned int i;

	if (!names[0])	/* constant content: a race would write the same */
		for (i = 0; i < conf_comp_n_keys && i < 63; i++)
			names[i] = conf_comp_keys[i].name;
	return names;
}

static const struct conf_key *find(const char *name)
{
	return conf_key_find(conf_comp_keys, conf_comp_n_keys, name);
}

int skin_proc_get(const struct skin_proc *p, const char *name, char *buf,
		  size_t len)
{
	const struct conf_key *pr = find(name);
	const char *base = (const char *)&p->prm;

	if (!pr)
		return -ENOENT;
	switch (pr->type) {
	case CONF_UINT:
		return snprintf(buf, len, "%u",
				*(const unsigned int *)(base + pr->offset));
	case CONF_BOOL:
		return snprintf(buf, len, "%s",
				*(const int *)(base + pr->offset) ? "true" : "false");
	default:
		return snprintf(buf, len, "%.17g",
				*(const double *)(base + pr->offset));
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
	/* noise is judged again from the next evaluation on */
	for (i = 0; faults_was && !faults_is && i < p->n_patches; i++) {
		p->patches[i].noise_on = false;
		memset(&p->patches[i].noisy, 0, sizeof(p->patches[i].noisy));
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
	const struct conf_key *pr = find(name);
	struct skin_config_comp old = p->prm, next = p->prm;
	char msg[256];

	if (!pr)
		return why_fail(why, why_len, -ENOENT,
				"unknown parameter '%s'", name ? name : "");
	if (pr->fixed)
		return why_fail(why, why_len, -EROFS,
				"%s is fixed while running: the neighbour graph belongs to the model (change skind.conf and restart)",
				pr->name);
	if (conf_key_set(pr, &next, value, msg, sizeof(msg)))
		return why_fail(why, why_len, -EINVAL, "%s", msg);
	if (pr->offset == OFF(smooth_filter) && next.smooth_filter &&
	    !p->prm.smooth_filter)
		smooth_restart(p);
	p->prm = next;
	proc_derive(p);
	if (pr->type == CONF_BOOL)
		switches_changed(p, &old);
	return 0;
}
