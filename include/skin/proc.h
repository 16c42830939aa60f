/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skin/proc.h - skind's processing: calibration, drift compensation,
 * filtering, touch detection, faults and contacts
 *
 * A library with no I/O in its sample path, so that skind, `skinctl
 * process` (recorded CAN logs), the tests and the benchmarks run the same
 * code.  docs/PROCESSING.md gives every formula.
 *
 *	struct skin_proc *p = skin_proc_new(model, &config->comp, &err);
 *	skin_proc_calibrate(p, -1);                   (every part)
 *	for each frame f of patch k (e.g. from /dev/skin/NAME):
 *		int ev = skin_proc_feed(p, k, &f);
 *		...
 *	per part, when its patches are fed (e.g. once per period):
 *		n = skin_proc_cluster(p, part);
 *		skin_proc_contacts(p, part, &contacts);
 *		skin_proc_values(p, part), skin_proc_touched(p, part) ...
 *	skin_proc_free(p);
 *
 * Units and indices: taxel values are counts of the board's 8-bit scale;
 * taxel indices are part-local (the slot in the part's data vector, as
 * skinDynLib's taxel ids); patch and part indices are the model's.
 *
 * Ownership: skin_proc_new() copies the parameters and keeps a pointer to
 * the model, which must outlive the processor and not change.  Every
 * array a getter returns belongs to the processor: it stays valid until
 * skin_proc_free(), and its content until the next call that updates it
 * (skin_proc_feed() for values, touch flags and faults of the fed patch;
 * skin_proc_cluster() for the contacts of the part).
 *
 * Threading: none inside.  A processor belongs to one thread at a time;
 * calls on one processor must not overlap (skind makes every call from
 * its event loop).  Different processors are independent.
 *
 * Real time: skin_proc_new() and skin_proc_restore() allocate everything
 * the processor will ever need.  The calls marked [RT] below allocate no
 * memory, take no lock, make no system call and run in time bounded by
 * what they process (a patch's 192 taxels; a part's touched taxels and
 * their edges).  The others (creation, save/restore, parameters, fault
 * lists) may do I/O or take longer and belong outside the sample path.
 * The encoders allocate nothing either (snprintf into the caller's
 * buffer).
 *
 * Errors: functions returning int return 0 (or a count) on success and a
 * negative errno on failure: -EINVAL for an index out of range or a bad
 * value, -ENOENT for an unknown parameter name, -EROFS for a parameter
 * that cannot change at run time, -EBUSY when an operation needs a
 * calibrated part.  Creation and the calibration file calls fill a
 * struct skin_error (skin/model.h) with the file, line and what is wrong.
 *
 * Instruction sets: the per-patch arithmetic has a portable form and,
 * on x86-64, an AVX2 and an AVX-512 one, all with the same results.
 * skin_proc_new() takes the best the CPU has; skin_proc_new_opts() can
 * ask for one (to compare them, or measure one).
 *
 * Compatibility mode (compat = true): the per-taxel pipeline follows
 * skinManager's published algorithm (icub-main compensator.cpp) step for
 * step, including its quirks (smoothing state starting at the
 * baselines), contacts carry upstream's unnormalised normal
 * and zero moment, and every improvement (hold, automatic recalibration,
 * fault exclusion, the touched-calibration check) is off.  Thermal pads
 * and absent slots never touch and output 0 in both modes.
 */
#ifndef SKIN_PROC_H
#define SKIN_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/skin.h>
#include <skin/contact.h>
#include <skin/model.h>

#ifdef __cplusplus
extern "C" {
#endif

struct skin_proc;

/*
 * Create a processor for every part and patch of @m.  @comp holds the
 * parameters (skind.conf's [skind] section; skin_config_comp_default()
 * for the defaults); the neighbour graph of @m (skin_config_build_model()
 * computes it) defines which taxels are neighbours.  Every part starts
 * uncalibrated: it outputs 0 until skin_proc_calibrate() or
 * skin_proc_restore() gives it a calibration.
 * NULL with *err filled when the model or a parameter is unusable or
 * memory runs out.
 */
struct skin_proc *skin_proc_new(const struct skin_model *m,
				const struct skin_config_comp *comp,
				struct skin_error *err);

/* The forms of the per-patch arithmetic (same results on every one) */
enum skin_proc_isa {
	SKIN_PROC_ISA_AUTO = 0,		/* the best the CPU has */
	SKIN_PROC_ISA_PORTABLE,		/* plain C, any CPU */
	SKIN_PROC_ISA_AVX2,		/* x86-64 with AVX2 */
	SKIN_PROC_ISA_AVX512,		/* x86-64 with AVX-512 F and VL */
};

/*
 * Creation options; zeroed: what skin_proc_new() does.
 * @cycle: in compat mode, process as skinManager's thread does, once per
 * period on the newest sample of each board: skin_proc_feed() only keeps
 * the patch's sample, skin_proc_cycle() processes the part, to be called
 * every period_ms (skinManager's period, which then also counts the
 * calibration's cycles).  Without it, or outside compat mode, every feed
 * is processed as it comes and skin_proc_cycle() does nothing.
 */
struct skin_proc_opts {
	enum skin_proc_isa isa;
	bool cycle;
};

/*
 * skin_proc_new() with options (@opts NULL: none).  NULL with *err filled
 * also when @opts asks for an instruction set this CPU does not have.
 */
struct skin_proc *skin_proc_new_opts(const struct skin_model *m,
				     const struct skin_config_comp *comp,
				     const struct skin_proc_opts *opts,
				     struct skin_error *err);
/* The instruction set @p runs (never SKIN_PROC_ISA_AUTO; a patch whose
 * slots are no multiple of its vector width runs the next one down) */
enum skin_proc_isa skin_proc_isa(const struct skin_proc *p);
/* Whether this CPU can run @isa (AUTO and PORTABLE: always) */
bool skin_proc_isa_supported(enum skin_proc_isa isa);
/* "auto", "portable", "avx2", "avx512"; NULL for another value */
const char *skin_proc_isa_name(enum skin_proc_isa isa);
/* The enum skin_proc_isa of one of those names, or -EINVAL */
int skin_proc_isa_parse(const char *name);
void skin_proc_free(struct skin_proc *p);
const struct skin_model *skin_proc_model(const struct skin_proc *p);

/* The model's patch on bus:address, or -1 (e.g. to map /dev/skin/NAME's
 * control page onto the model). */
int skin_proc_patch_find(const struct skin_proc *p, const char *bus,
			 int address);

/* skin_proc_feed() result flags: what changed with this frame */
#define SKIN_PROC_EV_CALIBRATED	0x01u	/* a part finished calibrating */
#define SKIN_PROC_EV_CAL_FAILED	0x02u	/* a part's calibration was refused
					 * (skin_proc_reason() says why) */
#define SKIN_PROC_EV_FAULTS	0x04u	/* a taxel's fault flags changed */
#define SKIN_PROC_EV_TOUCH	0x08u	/* a touch flag of the patch changed */
#define SKIN_PROC_EV_RECAL	0x10u	/* a taxel recalibrated itself (b) */

/*
 * [RT] Process one sample of patch @patch (model patch index): its 192
 * raw values, refreshed mask and diagnostics.  Calibrating parts collect
 * it; calibrated parts get new compensated values, touch flags, drift
 * compensation and fault checks for the patch's taxels.  Time comes from
 * f->timestamp_ns (CLOCK_MONOTONIC; a log's clock works as well): the
 * processor never reads a clock.
 * Return: SKIN_PROC_EV_* flags (0 when nothing notable changed), or
 * -EINVAL for a bad patch index.
 */
int skin_proc_feed(struct skin_proc *p, unsigned int patch,
		   const struct skin_frame *f);

/*
 * [RT] skinManager's cycle of part @part at time @ts_ns, on a processor
 * created with skin_proc_opts.cycle in compat mode: the newest sample of
 * each of its patches (those fed at least once) is collected by a
 * calibration or goes through the sample path, whether or not its board
 * sent a new one since the last cycle.  A calibration takes
 * trunc(calibration_s * 1000 / period_ms) + 1 cycles, as skinManager's.
 * Call it once per period_ms for every part, then skin_proc_cluster().
 * Return: SKIN_PROC_EV_* flags as skin_proc_feed()'s (0 outside compat
 * mode or without the option: the feeds processed), or -EINVAL.
 */
int skin_proc_cycle(struct skin_proc *p, unsigned int part, uint64_t ts_ns);

/* Part state */
enum skin_proc_state {
	SKIN_PROC_UNCALIBRATED = 0,	/* outputs 0; no calibration yet */
	SKIN_PROC_CALIBRATING,		/* collecting samples; outputs 0 */
	SKIN_PROC_RUNNING,		/* calibrated, processing */
};

/*
 * Start calibrating part @part (-1: every part): collect
 * round(calibration_s * 1000 / period_ms) samples of each of its patches
 * (period_ms is read as the interval between two samples of a patch as
 * fed: set it to the board period when feeding every published frame;
 * cycling in compat mode, the cycles of skin_proc_cycle() instead),
 * then baseline = mean of v = 255 - raw (raw with zero_up_raw_data), touch
 * threshold = the 95th percentile rule of skinManager.  Not [RT] but
 * cheap (no allocation).  A part that was running keeps its previous
 * calibration if the new one is refused: the skin is broken (fewer than
 * 95% valid readings, every baseline 255, no noise at all) or, outside
 * compat mode, being touched (docs/PROCESSING.md).
 * Return: 0, or -EINVAL for a bad part.
 */
int skin_proc_calibrate(struct skin_proc *p, int part);
/*
 * Give back the memory only a calibration uses (the per-taxel histograms
 * of v, 512 bytes a taxel: most of the processor's memory) of part @part
 * (-1: every part) when no calibration of it runs, not even a taxel's own
 * recalibration; the next one gets zeroed pages again.  Not [RT]: a
 * system call (madvise), and the next calibration's first samples fault
 * the pages in; memory locked with mlockall() is kept.  skind calls it
 * after a calibration ends.
 */
void skin_proc_trim(struct skin_proc *p, int part);
enum skin_proc_state skin_proc_state(const struct skin_proc *p,
				     unsigned int part);
/* Why the last calibration of @part was refused, or "" when it was not.
 * Owned by the processor, overwritten by the next calibration. */
const char *skin_proc_reason(const struct skin_proc *p, unsigned int part);
/* Samples collected so far and needed, for progress reports. */
void skin_proc_calibration_progress(const struct skin_proc *p,
				    unsigned int part, unsigned int *done,
				    unsigned int *needed);

/*
 * [RT] Per-taxel outputs of part @part, arrays of model.parts[part].n_taxels
 * entries indexed by the part-local taxel index; NULL for a bad part.
 *  values:  the published value max(0, d) in [0, 255], 0 = no pressure
 *           (0/100 with binarization), after smoothing;
 *  bytes:   the same rounded to the nearest integer (shared memory, evdev);
 *  touched: 1 when the taxel is touched (the smoothed value above its
 *           threshold + add_threshold: the flag contacts are built from);
 *  faults:  SKIN_FAULT_* flags, 0 for a healthy taxel.
 *  baselines / thresholds: the current calibration (counts of v).
 *  initial_baselines: each taxel's baseline as the part's last
 *           calibration left it (skinManager's initialBaselines, counts of
 *           v): baselines - initial_baselines is the drift compensated
 *           since; 0 for a slot that is no tactile taxel or before the
 *           first calibration.  A taxel's own recalibration (improvement
 *           e) leaves it.
 */
const double *skin_proc_values(const struct skin_proc *p, unsigned int part);
const uint8_t *skin_proc_bytes(const struct skin_proc *p, unsigned int part);
const uint8_t *skin_proc_touched(const struct skin_proc *p, unsigned int part);
const uint8_t *skin_proc_faults(const struct skin_proc *p, unsigned int part);
const double *skin_proc_baselines(const struct skin_proc *p, unsigned int part);
const double *skin_proc_thresholds(const struct skin_proc *p,
				   unsigned int part);
const double *skin_proc_initial_baselines(const struct skin_proc *p,
					  unsigned int part);

/* Taxel faults (improvement c), skin_proc_faults() flags.  A faulty
 * taxel is excluded: it never touches, outputs 0 and keeps its baseline.
 * Flags clear by themselves when the condition ends. */
#define SKIN_FAULT_STUCK	0x01u	/* raw value unchanged for stuck_s */
#define SKIN_FAULT_SATURATED	0x02u	/* raw at 0 or 255 for saturated_s, or
					 * a baseline that cannot be recovered
					 * within min_baseline of 0 or 255 */
#define SKIN_FAULT_DEAD		0x04u	/* its triangle sent nothing for dead_s */
#define SKIN_FAULT_DIAG		0x08u	/* board diagnostics: channel out of
					 * range, or triangle no-ack /
					 * not connected */
#define SKIN_FAULT_CALIBRATION	0x10u	/* fewer than 95% valid readings
					 * during calibration */
#define SKIN_FAULT_NOISY	0x20u	/* raw value moved more than
					 * noisy_counts between most of the
					 * fault evaluations of noisy_s */

struct skin_taxel_fault {
	unsigned int part;
	unsigned int taxel;		/* part-local index */
	unsigned int flags;		/* SKIN_FAULT_* */
	uint64_t since_ns;		/* frame time since which the taxel
					 * has been faulty without a break
					 * (its oldest flag still raised,
					 * unless an older one cleared) */
};

/* The faulty taxels (part -1: every part), at most @max into @out.
 * Return: how many there are in all (may exceed @max), or -EINVAL. */
int skin_proc_fault_list(const struct skin_proc *p, int part,
			 struct skin_taxel_fault *out, unsigned int max);
/* "stuck,dead", "" for none: names of SKIN_FAULT_* flags ("stuck",
 * "saturated", "dead", "diagnostics", "calibration", "noisy", in that
 * order), into buf, snprintf-style. */
int skin_fault_names(unsigned int flags, char *buf, size_t len);

/*
 * Part @part's newest output in the shared memory's form (skin/shm.h),
 * for whoever publishes it (skind; skin-view's replay).  [RT], no
 * allocation.
 *
 * skin_proc_shm_flags(): each of the part's bytes of @flags keeps its
 * kind bits (SKIN_SHM_TAXEL_TACTILE, THERMAL) and gets TOUCHED and the
 * fault bits (STUCK, SATURATED, DEAD, NOISY, DIAG) of the newest sample.
 *
 * skin_proc_shm_contacts(): the contacts as records, at most @max into
 * @rec, their taxels packed into @taxels (at most @max_taxels: contacts
 * share no taxel, so the part's size always fits), each record's
 * first_taxel and n_taxels its range; *n_taxels the taxels written.
 * Returns how many contacts there are (may exceed @max: the rest are not
 * written).  The records' flat[] are lib/proc's; a publisher with a
 * flattening fills them.
 */
void skin_proc_shm_flags(const struct skin_proc *p, unsigned int part,
			 uint8_t *flags);
unsigned int skin_proc_shm_contacts(const struct skin_proc *p,
				    unsigned int part,
				    struct skin_contact_record *rec,
				    unsigned int max, uint32_t *taxels,
				    unsigned int max_taxels,
				    unsigned int *n_taxels);

/*
 * A contact: a connected group of touched neighbouring taxels of one part.
 * Positions in metres in the link frame; p = published (smoothed, not
 * binarized) value of each taxel.
 *  cop      = sum(pos * p) / sum(p) over taxels with a position
 *  geo      = mean position of those taxels
 *  normal   = sum(n * p) / |sum(n * p)|  (compat: / sum(p), as upstream)
 *  pressure = mean p over all the contact's taxels
 *  force    = -0.05 * n_taxels * pressure * normal
 *  moment   = cop x force, about the link origin (compat: 0, as upstream)
 * The quantities of skin/contact.h's record, the one every output
 * publishes, with its rule for a contact without a position; here with
 * the processor's own fields (the part, a pointer to its taxels).
 * Ids: a contact keeps its id while it persists (matched to the previous
 * sample's contacts by taxel overlap); a new contact gets a new id, unique
 * over the processor's life.
 */
struct skin_contact {
	struct skin_contact_record r;	/* id, cop, force, moment, geo,
					 * normal, pressure, n_taxels (its
					 * flat is NaN, first_taxel 0: the
					 * processor's contact has @taxels) */
	unsigned int part;		/* model part index */
	enum skin_body_part body_part;
	enum skin_part_id skin_part;
	int link_number;		/* iCub link number, -1 unknown */
	const unsigned int *taxels;	/* part-local ids, ascending; owned
					 * by the processor */
	unsigned int n_with_pos;	/* taxels with a position (0: cop,
					 * geo and normal are NaN, force
					 * and moment 0: skin/contact.h) */
	uint64_t first_ns;		/* frame time it appeared */
};

/*
 * [RT] Build the contacts of part @part from the current touch flags, in
 * O(touched taxels + their edges), and match them to the previous ones.
 * When no touch flag of the part changed since the last call, the
 * contacts are the same taxels with the same ids, and only their
 * geometry is computed again: O(touched taxels).
 * Return: the number of contacts, or -EINVAL.
 */
int skin_proc_cluster(struct skin_proc *p, unsigned int part);
/* [RT] The contacts of the last skin_proc_cluster() of @part. */
unsigned int skin_proc_contacts(const struct skin_proc *p, unsigned int part,
				const struct skin_contact **out);

/*
 * Encoders, into a caller-provided buffer, snprintf-style: they write at
 * most @len bytes including the NUL and return the length the full text
 * needs (not counting the NUL); when that is >= @len the text was cut
 * and should be written again into a larger buffer.  [RT]: no allocation.
 *
 * Bottle: skinContactList as YARP bottle text (docs/ICUB.md, section 3),
 * the contacts of every given part in one outer list, "()" when none:
 *   ((id bodyPart link skinPart) (CoPx CoPy CoPz) (Fx Fy Fz) (Mx My Mz)
 *    (geoCx geoCy geoCz) (nx ny nz) (taxel ...) pressure) ...
 * Doubles always carry a '.' or an exponent so that YARP reads them as
 * doubles (an all-int list would not parse as a skinContact).
 *
 * JSON: {"contacts":[{"id":..,"part":"left_hand","body_part":3,
 *   "skin_part":1,"link":6,"cop":[..],"force":[..],"moment":[..],
 *   "geo":[..],"normal":[..],"pressure":..,"taxels":[..]}, ...]}
 *
 * skin_proc_bottle() / skin_proc_json() return -EINVAL for a bad part.
 */
int skin_contacts_bottle(char *buf, size_t len,
			 const struct skin_contact *c, unsigned int n);
int skin_contacts_json(char *buf, size_t len, const struct skin_model *m,
		       const struct skin_contact *c, unsigned int n);
/*
 * skin_json_escape() - @s as the contents of a JSON string (RFC 8259), the
 * one escaper of every JSON text the project writes (skind's replies,
 * the encoders above).  '"' and '\\' are escaped, control characters and
 * DEL become \u00XX, well-formed UTF-8 passes as it is and any other byte
 * becomes \ufffd, so that the result is valid JSON whatever @s holds.
 * snprintf semantics: writes at most @len bytes with the NUL, never a
 * partial escape or character, and returns the length of the whole
 * escaped text (without the NUL); @buf may be NULL when @len is 0.
 */
size_t skin_json_escape(char *buf, size_t len, const char *s);
/*
 * skin_value_g4() - @v as snprintf(buf, len, "%.4g", v) prints it, byte
 * for byte, with its semantics (at most @len bytes with the NUL; returns
 * the whole length), for the text lines that carry every taxel's value:
 * glibc's printf of a double costs about 1,800 instructions, this about
 * 140, 25 for a zero (docs/PERFORMANCE.md, "Under -icount").
 */
int skin_value_g4(char *buf, size_t len, float v);
/* Every part's contacts of the last skin_proc_cluster() calls, in one
 * list (part -1) or one part's. */
int skin_proc_bottle(const struct skin_proc *p, int part, char *buf,
		     size_t len);
int skin_proc_json(const struct skin_proc *p, int part, char *buf,
		   size_t len);

/*
 * Parameters by name, for skind's `get PARAM` / `set PARAM VALUE`: the
 * [skind] keys of skind.conf (docs/MODEL.md, docs/PROCESSING.md).  Values
 * are text as in skind.conf.  skin_proc_set() checks the value as the
 * config parser does; on failure it writes why into @why (when not NULL)
 * and changes nothing.  max_neighbor_dist_m is read-only here (-EROFS: the
 * neighbour graph belongs to the model).  A new calibration_s or
 * period_ms applies to the next calibration.
 */
const char *const *skin_proc_param_names(void);	/* NULL-terminated */
int skin_proc_get(const struct skin_proc *p, const char *name, char *buf,
		  size_t len);
int skin_proc_set(struct skin_proc *p, const char *name, const char *value,
		  char *why, size_t why_len);
/* The current parameters. */
const struct skin_config_comp *skin_proc_params(const struct skin_proc *p);

/*
 * Calibration file (improvement d; docs/PROCESSING.md gives the format):
 * the baselines and thresholds of every running part, written to a
 * temporary file and renamed over @path, so a crash leaves the old file.
 * skin_proc_restore() loads it and sets every part it describes running,
 * after checking that the model's parts (names, sizes, taxel kinds) are
 * those the file was written for.  Parts the file does not name are left
 * as they are.  0, or -1 with *err filled (file, line, what).
 */
int skin_proc_save(const struct skin_proc *p, const char *path,
		   struct skin_error *err);
int skin_proc_restore(struct skin_proc *p, const char *path,
		      struct skin_error *err);

#ifdef __cplusplus
}
#endif
#endif /* SKIN_PROC_H */
