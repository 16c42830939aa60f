/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/shm.h - skind's shared memory: the latest state of every skin part
 *
 * skind publishes, per part, the latest compensated taxel values, the raw
 * values they came from, per-taxel flags (touched, kind, faults) and the
 * contacts, in one shared memory object.  Clients map it read-only:
 *
 *  - by name: open(SKIN_SHM_PATH, O_RDONLY) and mmap(PROT_READ, MAP_SHARED)
 *    (the file lives on the tmpfs of /run; group-readable by the socket's
 *    group), or
 *  - as a file descriptor skind passes over its socket (the `shm` command,
 *    SCM_RIGHTS; /usr/share/doc/skin/PROTOCOL.md), opened O_RDONLY, so
 *    the mapping cannot be made writable.
 *
 * Layout (all offsets from the start of the object, little endian, natural
 * alignment; /usr/share/doc/skin/DAEMON.md draws it):
 *
 *	struct skin_shm_header             at 0
 *	struct skin_shm_part_desc[n_parts] at header_size, part_desc_size apart
 *	per part, at desc.offset (64-byte aligned), desc.size bytes:
 *	    struct skin_shm_part           the part's seqlock and counters
 *	    float    values[n_taxels]      at desc.values_off (from the block)
 *	    uint8_t  raw[n_taxels]         at desc.raw_off
 *	    uint8_t  flags[n_taxels]       at desc.flags_off, SKIN_SHM_TAXEL_*
 *	                                   (fault bits since 1.4)
 *	    struct skin_contact_record contacts[max_contacts] at desc.contacts_off
 *	                                   (skin/contact.h)
 *	    uint32_t contact_taxels[n_taxels] at desc.contact_taxels_off
 *	    double   thresholds[n_taxels] at desc.thresholds_off (since 1.2)
 *	    double   baselines[n_taxels] at desc.baselines_off (since 1.3)
 *	    double   cal_baselines[n_taxels] at desc.cal_baselines_off (1.3)
 *
 * Versioning: version_major changes only when a reader of the old layout
 * would misread the new one; fields are only ever appended (header, part
 * descriptor, part block, contact), and readers use header_size,
 * part_desc_size and contact_size as strides, so a reader built against
 * an older minor version keeps working.
 *
 * The descriptors and the offsets never change while the object is live.
 * When skind reloads its configuration it publishes a new object under the
 * same name and marks the old one SKIN_SHM_RETIRED: a reader seeing that
 * flag (or a header generation it did not map) opens the name again, or
 * asks the socket for a new fd.  The old mapping stays valid until
 * unmapped.  A skind that starts marks whatever object it replaces under
 * the name SKIN_SHM_RETIRED too, so the object of a skind that was killed
 * (kill -9, a crash) is retired as soon as its successor publishes.
 *
 * A dead or hung writer (since 1.1): skind adds 1 to @heartbeat every
 * @heartbeat_ms while it runs.  A reader that sees @heartbeat unchanged,
 * by its own clock, for SKIN_SHM_STALE_BEATS x heartbeat_ms may take the
 * writer for dead or hung: the data is old.  That is a hint, not an
 * order (a stopped or starved skind beats again): keep the mapping and
 * keep checking; SKIN_SHM_RETIRED is what says to map the name again.
 * @heartbeat_ms 0 (a 1.0 writer): no heartbeat; judge nothing by it.
 * @instance is random and differs for every skind process (0 from a 1.0
 * writer), so (instance, generation) names one object: generations start
 * at 1 again after a restart.
 *
 * Reserved fields are 0; a minor version may give one a meaning in which
 * 0 means "not provided" (1.1: heartbeat_ms, instance, heartbeat; 1.2: a
 * part descriptor's thresholds_off; 1.3: its baselines_off and
 * cal_baselines_off), so the header keeps its size and an
 * older reader its strides.
 *
 * The touch thresholds (since 1.2): each taxel's, as the part's last
 * calibration (or a taxel's own recalibration) left them in skind's
 * processing, the numbers the socket's `thresholds PART` line prints
 * (/usr/share/doc/skin/PROTOCOL.md), in the part's block so that a reader gets them with
 * the publication they belong to, as doubles, without text between.  0
 * for a taxel that is not a pressure cell; all 0 until
 * SKIN_SHM_PART_THRESHOLDS says a calibration wrote them.  A descriptor
 * with thresholds_off 0 (a 1.0 or 1.1 writer) has none: ask the socket.
 *
 * The baselines (since 1.3), as doubles in counts of v = 255 - raw, the
 * unit of the thresholds: baselines[] holds each taxel's current
 * baseline in skind's processing, which drift compensation moves,
 * written at every publication; cal_baselines[] the baseline each taxel
 * had at the end of the part's last calibration (skinManager's initial
 * baselines), written, with thresholds[], only when a calibration
 * changed them.  baselines - cal_baselines is the drift compensated since
 * the calibration (skinManager's getCompensation(), what its monitor:o
 * port publishes).  Both are 0 for a taxel that is not a pressure cell;
 * they mean something only while SKIN_SHM_PART_CALIBRATED (baselines)
 * and SKIN_SHM_PART_THRESHOLDS (cal_baselines) say so.  A descriptor
 * with baselines_off or cal_baselines_off 0 (a writer older than 1.3) has
 * none.
 *
 * The fault bits of flags[] (since 1.4): skind's fault flags of each
 * taxel (stuck, saturated, dead, noisy, diagnostics), written with the
 * rest of the block at every publication of the part, so that a reader
 * sees a taxel's faults with the values they explain.  A writer older
 * than 1.4 leaves those bits 0: with version_minor < 4, 0 says nothing.
 * A fault found during a calibration (too few valid readings) is not
 * among them: the socket's `faults` command lists every flag, with the
 * time it was raised (/usr/share/doc/skin/PROTOCOL.md).
 *
 * Seqlock contract, per part (one writer: skind; any number of readers;
 * the writer never waits for a reader):
 *
 *	writer:  s = seq;
 *	         store(seq, s + 1, relaxed); fence(release);   (odd: writing)
 *	         ... the part's block ...
 *	         store(seq, s + 2, release);                    (even: stable)
 *
 *	reader:  do {
 *	                 s1 = load(seq, acquire);
 *	                 if (s1 & 1) continue;                  (being written)
 *	                 copy what it needs from the block;
 *	                 fence(acquire);
 *	                 s2 = load(seq, relaxed);
 *	         } while (s1 != s2);
 *
 * A copy taken between two equal, even sequence numbers is one consistent
 * publication.  skin_shm_read_part() (skin/client.h) is this reader, with
 * a bound on retries.  seq / 2 is the number of publications of the part.
 */
#ifndef SKIN_SHM_H
#define SKIN_SHM_H

#include <stdint.h>

#include "contact.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SKIN_SHM_MAGIC		0x48534b53u	/* "SKSH", little endian */
#define SKIN_SHM_VERSION_MAJOR	1
#define SKIN_SHM_VERSION_MINOR	4
#define SKIN_SHM_PATH		"/run/skin/skind.shm"
#define SKIN_SHM_NAME_LEN	32
#define SKIN_SHM_ALIGN		64		/* part blocks: a cache line */
#define SKIN_SHM_STALE_BEATS	4		/* heartbeats missed: writer gone */

/* skin_shm_header.state */
#define SKIN_SHM_LIVE		(1u << 0)	/* skind writes this object */
#define SKIN_SHM_RETIRED	(1u << 1)	/* replaced (reload) or skind
						 * stopped: map the name again */

/**
 * struct skin_shm_header - the first bytes of the object
 * @magic: SKIN_SHM_MAGIC
 * @version_major: SKIN_SHM_VERSION_MAJOR; refuse any other
 * @version_minor: SKIN_SHM_VERSION_MINOR; newer only appends
 * @header_size: sizeof(struct skin_shm_header) of the writer
 * @part_desc_size: stride of the part descriptors
 * @contact_size: stride of the contacts
 * @n_parts: number of parts
 * @size: bytes of the whole object
 * @generation: skind's configuration generation (1 at start, +1 a reload)
 * @state: SKIN_SHM_LIVE, SKIN_SHM_RETIRED (written with release order)
 * @pid: skind's process id
 * @created_ns: CLOCK_REALTIME when this object was laid out
 * @period_ms: skind's publishing period (skind.conf [skind] period_ms)
 * @heartbeat_ms: @heartbeat's period (since 1.1; 0: no heartbeat)
 * @instance: random, one per skind process (since 1.1; 0: unknown)
 * @heartbeat: +1 every @heartbeat_ms while skind runs (since 1.1; relaxed
 *	order: a counter, it guards no data)
 * @reserved: 0
 */
struct skin_shm_header {
	uint32_t magic;
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t header_size;
	uint32_t part_desc_size;
	uint32_t contact_size;
	uint32_t n_parts;
	uint64_t size;
	uint64_t generation;
	uint32_t state;
	uint32_t pid;
	uint64_t created_ns;
	uint32_t period_ms;
	uint32_t heartbeat_ms;
	uint64_t instance;
	uint64_t heartbeat;
	uint32_t reserved[2];
};

/**
 * struct skin_shm_part_desc - what a part is and where its block lies
 * @name: part name (skind.conf [part NAME]), NUL-terminated
 * @skin_part: iCub SkinPart (enum skin_part_id of skin/model.h)
 * @body_part: iCub BodyPart
 * @link_number: iCub link number, -1 when none
 * @n_taxels: length of the part's vector (values, raw, flags)
 * @n_patches: boards feeding the part, 192 values each
 * @max_contacts: room in the contacts array
 * @offset: of the part's struct skin_shm_part, from the object's start
 * @size: of the part's block
 * @values_off: of float values[], from the block's start
 * @raw_off: of uint8_t raw[]
 * @flags_off: of uint8_t flags[]
 * @contacts_off: of struct skin_contact_record contacts[]
 * @contact_taxels_off: of uint32_t contact_taxels[] (n_taxels entries)
 * @thresholds_off: of double thresholds[] (n_taxels entries; since 1.2,
 *	0: not provided)
 * @baselines_off: of double baselines[] (n_taxels entries; since 1.3,
 *	0: not provided)
 * @cal_baselines_off: of double cal_baselines[] (n_taxels entries; since
 *	1.3, 0: not provided)
 */
struct skin_shm_part_desc {
	char name[SKIN_SHM_NAME_LEN];
	uint32_t skin_part;
	uint32_t body_part;
	int32_t link_number;
	uint32_t n_taxels;
	uint32_t n_patches;
	uint32_t max_contacts;
	uint64_t offset;
	uint64_t size;
	uint32_t values_off;
	uint32_t raw_off;
	uint32_t flags_off;
	uint32_t contacts_off;
	uint32_t contact_taxels_off;
	uint32_t thresholds_off;
	uint32_t baselines_off;
	uint32_t cal_baselines_off;
};

/* struct skin_shm_part.state */
#define SKIN_SHM_PART_ATTACHED	 (1u << 0) /* every patch is attached */
#define SKIN_SHM_PART_CALIBRATED (1u << 1) /* values are compensated */
#define SKIN_SHM_PART_CALIBRATING (1u << 2) /* calibration in progress */
#define SKIN_SHM_PART_PARTIAL	 (1u << 3) /* the newest frame was partial */
#define SKIN_SHM_PART_THRESHOLDS (1u << 4) /* thresholds[] holds a
					    * calibration's (since 1.2),
					    * cal_baselines[] too (1.3) */

/* flags[taxel] */
#define SKIN_SHM_TAXEL_TOUCHED	(1u << 0) /* above its touch threshold */
#define SKIN_SHM_TAXEL_TACTILE	(1u << 1) /* a pressure cell (model kind) */
#define SKIN_SHM_TAXEL_THERMAL	(1u << 2) /* a thermal pad */
/* its faults (since 1.4; skind's processing, PROCESSING.md c): a faulty
 * taxel is never touched and its value is 0 */
#define SKIN_SHM_TAXEL_STUCK	 (1u << 3) /* raw value unchanged for stuck_s */
#define SKIN_SHM_TAXEL_SATURATED (1u << 4) /* raw at 0 or 255 for
					    * saturated_s, or a baseline that
					    * cannot be recovered */
#define SKIN_SHM_TAXEL_DEAD	 (1u << 5) /* its triangle sent nothing for
					    * dead_s */
#define SKIN_SHM_TAXEL_NOISY	 (1u << 6) /* raw value jumps at most fault
					    * evaluations of noisy_s */
#define SKIN_SHM_TAXEL_DIAG	 (1u << 7) /* the board's diagnostics flag
					    * its channel or triangle */
#define SKIN_SHM_TAXEL_FAULTS	 (SKIN_SHM_TAXEL_STUCK | SKIN_SHM_TAXEL_SATURATED | \
				  SKIN_SHM_TAXEL_DEAD | SKIN_SHM_TAXEL_NOISY | \
				  SKIN_SHM_TAXEL_DIAG)

/**
 * struct skin_shm_part - the head of a part's block; guarded by @seq
 * @seq: the seqlock (odd while skind writes the block)
 * @samples: samples of the part published since skind started; a
 *	publication of a state change alone (a patch attached or detached,
 *	a calibration started) leaves it
 * @frame_ts_ns: CLOCK_MONOTONIC time of the last CAN frame of the newest
 *	board sample (the driver's timestamp)
 * @publish_ns: CLOCK_MONOTONIC time at which skind published the block
 * @lost_frames: board samples skind missed (it fell a ring behind)
 * @state: SKIN_SHM_PART_*
 * @n_contacts: valid entries of contacts[]
 * @n_contact_taxels: valid entries of contact_taxels[]
 * @patches_attached: boards currently attached
 * @reserved: 0
 */
struct skin_shm_part {
	uint64_t seq;
	uint64_t samples;
	uint64_t frame_ts_ns;
	uint64_t publish_ns;
	uint64_t lost_frames;
	uint32_t state;
	uint32_t n_contacts;
	uint32_t n_contact_taxels;
	uint32_t patches_attached;
	uint64_t reserved[2];
};

#ifdef __cplusplus
}
#endif
#endif /* SKIN_SHM_H */
