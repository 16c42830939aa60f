/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proc-private.h - the processor's state, shared by the files of lib/proc
 *
 * Everything is allocated by skin_proc_new() (one block per array) and
 * laid out structure-of-arrays per part, so the per-sample loop walks
 * a patch's tactile taxels through a few dense arrays.
 */
#ifndef SKIN_PROC_PRIVATE_H
#define SKIN_PROC_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <skin/proc.h>

#include "proc-isa.h"

#define SKIN_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* skinManager's constants (icub-main compensator.h) */
#define PROC_MAX_SKIN		255	/* MAX_SKIN */
#define PROC_MIN_TOUCH_THR	1.0	/* MIN_TOUCH_THR */
#define PROC_BIN_TOUCH		100.0	/* BIN_TOUCH */
#define PROC_BIN_NO_TOUCH	0.0	/* BIN_NO_TOUCH */
#define PROC_DRIFT_SCALE	0.02	/* gain * 0.02 (= gain / 50) */
#define PROC_FORCE_SCALE	(-0.05)	/* force = -0.05 n p normal */
#define PROC_FAULT_CHECK_NS	100000000ull	/* faults are evaluated
						 * every 100 ms of frame time */
#define PROC_NOISE_SLICES	8	/* noise is judged at the end of
					 * each eighth of noisy_s, over the
					 * last eight: within noisy_s / 8 of
					 * the moment it is due */
#define PROC_NOISE_ROWS		(PROC_NOISE_SLICES + 1)	/* and their sum */
#define PROC_RECENT_CHECKS	3	/* checks whose moved raw values
					 * are a mask, not timestamps */
#define PROC_CAL_MAX_SAMPLES	65535u	/* a histogram's bins are 16-bit:
					 * no bin counts more readings than a
					 * calibration has samples; far beyond
					 * any sane calibration */

/* struct proc_part.mode[] (per taxel): what the per-sample step does */
enum proc_mode {
	MODE_OFF = 0,		/* thermal pad, absent slot: always 0 */
	MODE_RUN,		/* tactile, processed */
	MODE_RECAL,		/* tactile, recalibrating by itself (b) */
};

/* struct proc_part.hold[] flags (improvement a) */
#define HOLD_ON		0x1u	/* baseline frozen under contact */
#define HOLD_EXPIRED	0x2u	/* held hold_max_s: drift resumes until
				 * the contact ends */
#define HOLD_DUE	0x4u	/* with HOLD_ON: reaches hold_max_s at
				 * this sample, so taxel_slow() ends it
				 * (set and cleared within one run()) */

/*
 * A set of a patch's slots (SKIN_VALUES_PER_PATCH, 192): slot o is bit
 * o % 64 of w[o / 64].  x86 being little-endian, an 8-slot group is one
 * byte of it, as the AVX-512 form reads it.
 */
struct proc_mask {
	uint64_t w[3];
};

static inline bool proc_mask_any(const struct proc_mask *m)
{
	return m->w[0] | m->w[1] | m->w[2];
}

/*
 * The arguments of the dense pass over one patch (proc-isa.h: one form
 * per instruction set), kept in the patch (proc_patch.io): the slices of the
 * part's arrays, the masks and the parameters' constants are set once
 * (proc_patch_io()), so a sample sets only its raw values and masks.
 */
struct dense_io {
	double a_new, a_old, g_free, g_touch, voff, vsign;
	double hyst;			/* hold_hysteresis */
	double *baseline, *smooth, *d, *value;
	const double *level, *inv_thr, *act;
	struct proc_mask on;		/* act as bits (tactile slots but the
					 * special ones) */
	uint8_t *byte;
	const uint8_t *vals;
	unsigned int n;
	uint64_t groups;		/* proc_patch.groups */
	struct proc_mask wr;		/* proc_patch.slots */
	const struct proc_mask *held;	/* proc_patch.held */
	struct proc_mask nz;		/* proc_patch.out_nz before the pass */
	struct proc_mask tf, tr;	/* out: touched (smoothed), raw */
	struct proc_mask rel;		/* out: the held slots whose hold ends */
};

struct proc_patch {
	unsigned int part;
	unsigned int first;		/* part-local index of slot 0 */
	unsigned int n_slots;		/* slots of this patch in the part
					 * (192, fewer for a short part) */
	unsigned int n_tactile;
	uint16_t *tactile;		/* offsets (0..191) of tactile slots */
	uint16_t tri_tactile;		/* triangles holding tactile taxels */
	/* calibration */
	unsigned int cal_done;		/* samples collected */
	bool cal_active;
	/* faults */
	bool seen;			/* a frame has arrived */
	uint64_t tri_refresh_ns[SKIN_TRIANGLES];	/* last refresh, of
					 * the triangles not in tri_stale */
	uint64_t all_ns;		/* last refresh of the tri_stale ones */
	uint16_t tri_stale;		/* triangles last refreshed at all_ns
					 * (all of them after a frame that
					 * refreshed every triangle: the usual
					 * frame stores one timestamp) */
	uint16_t tri_dead;		/* triangles flagged dead */
	uint64_t next_check_ns;		/* next fault evaluation */
	struct proc_mask spec;		/* slots whose taxel is special, but
					 * for the held ones in held */
	struct proc_mask held;		/* slots of plain running taxels under
					 * a hold (HOLD_ON alone): the dense
					 * pass computes them too */
	uint64_t hold_lo, hold_hi;	/* bounds of the hold_ns of held:
					 * lo <= every one <= hi */
	struct proc_mask touch_bits;	/* slots touched at the last sample */
	struct proc_mask tr_bits;	/* slots whose unsmoothed d was above
					 * the touch level at the last sample */
	struct proc_mask tact;		/* tactile slots */
	struct proc_mask touched_bytes;	/* slots whose proc_part.touched[]
					 * byte is 1: run() writes the bytes
					 * that differ from its new mask */
	struct proc_mask out_nz;	/* slots whose proc_part.value[] (so
					 * byte[]) may be nonzero, a superset:
					 * the binarized pass stores only
					 * these and the touched ones, the
					 * rest stay 0 */
	struct proc_mask ns0;		/* tactile slots whose raw_ns is 0 */
	uint64_t raw_lo, raw_hi;	/* bounds of the raw_ns of the tactile
					 * slots: lo <= every one <= hi */
	struct proc_mask recent[PROC_RECENT_CHECKS];	/* tactile slots whose
					 * raw value last moved at the check
					 * at recent_ns[i] (0: the last one):
					 * their raw_ns is that, not written
					 * (taxel.c: raw_ns_of()) */
	uint64_t recent_ns[PROC_RECENT_CHECKS];
	uint8_t last_raw[SKIN_VALUES_PER_PATCH];	/* raw values at the
					 * last fault check */
	struct proc_mask slots;		/* the slots of those groups */
	uint64_t groups;		/* groups of 4 slots (bit j: slots
					 * 4j..4j+3) in triangles with tactile
					 * taxels, below n_slots */
	bool diag_active;		/* the last frame reported diagnostics */
	/* noise (SKIN_FAULT_NOISY): every periodic fault evaluation counts,
	 * per tactile slot, whether its raw value moved more than
	 * noisy_counts since the last evaluation (proc_part.noise_n), in
	 * PROC_NOISE_SLICES slices of noisy_s; at the end of each slice the
	 * last noisy_s is judged (taxel.c: noise_step()) */
	struct proc_mask noisy;		/* slots judged noisy */
	uint64_t noise_slice_ns;	/* when the current slice began */
	uint64_t noise_next_ns;		/* the next evaluation that counts */
	uint16_t noise_checks[PROC_NOISE_SLICES];	/* evaluations
					 * counted in each slice */
	unsigned int noise_slice;	/* the current one */
	unsigned int noise_done;	/* slices ended since the counting
					 * (re)started, up to PROC_NOISE_SLICES:
					 * a judgement covers noisy_s */
	bool noise_on;			/* last_raw holds the last evaluation's
					 * values: the next one's moves count */
	/* touch list of the last feed: part-local indices, ascending */
	unsigned int n_touched;
	unsigned int *touched;
	bool list_stale;		/* touched[] is not built from
					 * touch_bits (taxel_outputs_zero()
					 * cleared a bit since): run()
					 * builds it again */
	uint64_t last_ns;
	/* skinManager's cycle (skin_proc_cycle()): the patch's newest
	 * sample, which the part's next cycle processes in compat mode */
	struct skin_frame latest;
	bool has_latest;
	const struct proc_isa_ops *ops;	/* the dense pass and the checks'
					 * masks for this patch's CPU and
					 * size (proc_isa_ops_for()) */
	struct dense_io io;		/* the dense pass's arguments */
};

struct proc_contact_buf {
	unsigned int n;
	struct skin_contact *c;
	unsigned int *taxels;		/* backing store of c[].taxels */
};

struct proc_part {
	unsigned int index;		/* model part */
	unsigned int n;			/* taxels (slots) */
	unsigned int n_tactile;
	unsigned int first_patch, n_patches;
	enum skin_proc_state state;
	bool calibrated;		/* has a calibration (may be running a
					 * new one meanwhile) */
	char reason[256];
	/* per taxel (structure of arrays, n entries each) */
	uint8_t *mode;			/* enum proc_mode */
	uint8_t *kind;			/* enum skin_taxel_kind */
	uint8_t *has_pos;		/* SKIN_TAXEL_HAS_POS, compact for the
					 * clustering's walk */
	double *baseline;
	double *initial;		/* baseline at calibration */
	double *thr;			/* touch threshold, >= 1 */
	double *inv_thr;		/* 1 / thr */
	double *smooth;			/* smoothing state (compensatedDataOld);
					 * max(0, smooth) of a touched taxel
					 * is what its contact weighs */
	double *d;			/* last unsmoothed d (smooth_restart) */
	double *value;			/* published */
	uint8_t *byte;
	uint8_t *touched;		/* smoothed value above the level;
					 * unsmoothed: proc_patch.tr_bits */
	uint8_t *hold;			/* HOLD_* */
	uint64_t *hold_ns;		/* when the hold began */
	uint8_t *fault;			/* SKIN_FAULT_* */
	uint64_t *fault_ns;
	uint16_t *noise_n;		/* per patch, PROC_NOISE_ROWS rows of a
					 * counter per slot ([(order * ROWS +
					 * row) * 192 + slot]): per slice of
					 * noisy_s, evaluations at which the
					 * slot's raw value moved more than
					 * noisy_counts, and in the last row
					 * their sum; slot-indexed, so that a
					 * count is one vector pass */
	uint64_t *raw_ns;		/* when the raw value last changed; 0
					 * before the first sample; of the
					 * taxels in no proc_patch.recent[]
					 * mask (taxel.c: raw_ns_of()) */
	double *level;			/* thr + add_threshold: the touch level */
	uint8_t *special;		/* not the plain case: recalibrating,
					 * faulty or held (proc_mark) */
	double *act;			/* 1.0: a plain tactile taxel; 0 */
	struct proc_patch *patch0;	/* the part's first patch */
	struct {			/* what to free of the arrays above
					 * that are aligned to 64 bytes */
		void *baseline, *smooth, *d, *value, *level, *inv_thr, *act;
		void *raw_ns;
	} mem;
	/* calibration: per taxel histogram of v, sums, staging results.
	 * The histograms are their own pages (mmap), which skin_proc_trim()
	 * gives back once no calibration needs them: most of lib/proc's
	 * memory otherwise, dead between calibrations */
	uint16_t *hist;			/* n x 256 */
	size_t hist_bytes;
	uint32_t *valid;		/* readings counted per taxel */
	uint64_t *sum;			/* integer sum of v */
	uint32_t *recal_n;		/* samples of a taxel's own recal */
	double *cal_baseline;
	double *cal_thr;
	/* contacts */
	uint32_t *nb_start, *nb;	/* the model's neighbour lists of the
					 * part's taxels, part-local and
					 * within the part but outside the
					 * taxel's own patch (those are in
					 * nb_mask); NULL when the model had
					 * none at creation */
	struct proc_mask *nb_mask;	/* per taxel: its neighbours
					 * in its own patch, a bit per slot
					 * of the patch (NULL with nb_*) */
	uint64_t *nb_x;			/* 3 words per patch: the taxels with
					 * neighbours in other patches (NULL
					 * with nb_*) */
	uint64_t *pend;			/* clustering scratch, 3 words per
					 * patch: touched, not yet labelled */
	const unsigned int *nb_of;	/* the model's nbr_start they copy */
	unsigned int nb_count;		/* and its n_nbr */
	int32_t *owner[2];		/* per taxel, of cb[i]: the index of
					 * its contact there, -1 */
	unsigned int *queue;
	unsigned int *overlap;		/* per previous contact, scratch */
	int32_t *claim;			/* per previous contact: the new one
					 * that keeps its id, -1 */
	unsigned int *best;		/* per new contact: best previous */
	unsigned int *best_n;		/* and its overlap */
	unsigned int *count;		/* per new contact: where its next
					 * taxel goes in the list store */
	int32_t *seen;			/* the previous contacts one new
					 * contact overlaps (-1: none), once */
	double *geom;			/* per taxel: the model's pos and
					 * normal (6 doubles), for the
					 * geometry (the model does not
					 * change: skin/proc.h) */
	struct proc_contact_buf cb[2];
	unsigned int cur;		/* cb[cur] is the current list */
	bool touch_dirty;		/* a touch flag or a touched list of
					 * the part changed since cb[cur] was
					 * built (proc_touch_dirty()) */
	bool clustered;			/* cb[cur] was built from the lists
					 * of a running part */
	const unsigned int *clustered_nbr;	/* and the model's graph
					 * (nbr_start) at that time */
	uint64_t last_ns;
};

struct skin_proc {
	const struct skin_model *m;
	struct skin_config_comp prm;
	/* derived from prm (proc_derive) */
	unsigned int cal_samples;
	double a_old, a_new;		/* smoothing coefficients */
	double add;			/* add_threshold */
	double g_free, g_touch;		/* 0.02 x gains */
	uint64_t stuck_ns, sat_ns, dead_ns, hold_max_ns;
	uint64_t noisy_slice_ns;	/* noisy_s / PROC_NOISE_SLICES */
	unsigned int noisy_step;	/* a move of more than this many raw
					 * counts is noise: floor(noisy_counts)
					 * (raw values are whole counts) */
	double vtab[PROC_MAX_SKIN + 1];	/* v of each raw value */
	bool faults_on, hold_on, recal_on;	/* improvements c, a, b are
					 * on (their switch, not compat) */
	bool cycle;			/* skin_proc_opts.cycle: in compat
					 * mode a part is processed by
					 * skin_proc_cycle(), not per feed */
	enum skin_proc_isa isa;		/* the instruction set its patches'
					 * passes use (resolved at creation) */
	unsigned int n_parts, n_patches;
	struct proc_part *parts;
	struct proc_patch *patches;
	uint64_t next_id;
	unsigned int median_hist[PROC_MAX_SKIN + 1];	/* scratch */
};

/* Slot o of a mask */
static inline void proc_bit_set(struct proc_mask *m, unsigned int o, bool on)
{
	if (on)
		m->w[o / 64] |= 1ull << (o % 64);
	else
		m->w[o / 64] &= ~(1ull << (o % 64));
}

static inline bool proc_bit(const struct proc_mask *m, unsigned int o)
{
	return (m->w[o / 64] >> (o % 64)) & 1;
}

/*
 * Whether taxel k needs the general path (taxel.c: taxel_slow): special
 * (not the plain case) unless it is a plain running taxel whose only
 * state is a hold, which the dense pass computes (held).
 */
static inline void proc_mark(struct proc_part *pt, unsigned int k)
{
	struct proc_patch *pp = &pt->patch0[k / SKIN_VALUES_PER_PATCH];
	unsigned int o = k % SKIN_VALUES_PER_PATCH;
	const bool tactile = pt->kind[k] == SKIN_TAXEL_TACTILE;
	const bool sp = pt->mode[k] != MODE_RUN || pt->fault[k] || pt->hold[k];
	const bool held = tactile && pt->mode[k] == MODE_RUN && !pt->fault[k] &&
			  pt->hold[k] == HOLD_ON;

	pt->special[k] = sp;
	pt->act[k] = sp && !held ? 0.0 : 1.0;
	/* the slot bit of special tactile taxels (pads and absent slots are
	 * special too, but the dense pass leaves them at 0 for good) */
	proc_bit_set(&pp->spec, o, sp && !held && tactile);
	proc_bit_set(&pp->held, o, held);
	if (held) {
		if (pt->hold_ns[k] < pp->hold_lo)
			pp->hold_lo = pt->hold_ns[k];
		if (pt->hold_ns[k] > pp->hold_hi)
			pp->hold_hi = pt->hold_ns[k];
	}
}

/* A touch flag or touched list of @pt changed: its contacts are to be
 * built again (contact.c reuses them while nothing changed). */
static inline void proc_touch_dirty(struct proc_part *pt)
{
	pt->touch_dirty = true;
}

/* taxel k's histogram of v (calibration) */
static inline uint16_t *proc_hist(const struct proc_part *pt, unsigned int k)
{
	return &pt->hist[(size_t)k * (PROC_MAX_SKIN + 1)];
}

/* v, the count a raw value stands for (calibration's histograms) */
static inline unsigned int proc_v_of(const struct skin_proc *p, uint8_t raw)
{
	return p->prm.zero_up_raw_data ? raw : PROC_MAX_SKIN - raw;
}

/* Compat mode on a processor created with skin_proc_opts.cycle: feeds
 * store, skin_proc_cycle() processes (skinManager's thread cycle) */
static inline bool proc_cycled(const struct skin_proc *p)
{
	return p->cycle && p->prm.compat;
}

/* proc.c */
void proc_derive(struct skin_proc *p);
void proc_err(struct skin_error *err, const char *file, unsigned int line,
	      const char *fmt, ...) SKIN_PRINTF_LIKE(4, 5);

/* taxel.c */
int proc_feed(struct skin_proc *p, struct proc_patch *pp,
	      const struct skin_frame *f);
int proc_cycle(struct skin_proc *p, struct proc_part *pt, uint64_t ts);
void proc_patch_io(struct skin_proc *p, struct proc_patch *pp);
void proc_outputs_zero(struct proc_part *pt, unsigned int k);

/* calibrate.c */
void proc_cal_start(struct skin_proc *p, struct proc_part *pt);
void proc_set_running(struct skin_proc *p, struct proc_part *pt);
int proc_collect(struct skin_proc *p, struct proc_patch *pp,
		 const struct skin_frame *f);
void proc_hist_clear(struct proc_part *pt, unsigned int k);
void proc_hist_range(const uint16_t *h, int *lo, int *hi);
bool proc_taxel_calibration(const struct proc_part *pt, unsigned int k,
			    unsigned int expected, double *baseline,
			    double *thr);
void proc_set_threshold(struct skin_proc *p, struct proc_part *pt,
			unsigned int k, double thr);

/* contact.c */
int proc_cluster(struct skin_proc *p, struct proc_part *pt);

#endif
