# SPDX-License-Identifier: LGPL-2.1-or-later
"""skind's shared memory (include/skin/shm.h), mapped read-only.

Two ways to read a part:

- Shm.snapshot(part): one consistent publication, copied under the
  part's seqlock (the reader of shm.h, as skin_shm_read_part() does);
  its arrays are numpy views of that copy.
- Shm.view(part): numpy arrays that are views of the mapping itself, no
  copy.  skind rewrites them while they are read, so they belong to no
  one publication; PartView.copy_values() copies the values alone under
  the seqlock, into an array it reuses.

The checks on the header and the descriptors are lib/client/shm_read.c's:
whatever the object holds, nothing read here lies outside the mapping.

CPython issues no memory fences.  The sequence numbers, the copy and the
second sequence number are loaded in program order by separate
interpreter operations; x86-64 keeps loads in order (TSO), which is what
the seqlock's reader needs.  On weakly ordered CPUs (arm64) that order
is not promised by the architecture: there, use the C library for
guarantees, or compare two snapshots.
"""

from __future__ import annotations

import enum
import mmap
import os
import struct
import time
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Union

import numpy as np

from ._errors import Busy, NotRunning, PermissionDenied, ProtocolError

SHM_PATH = "/run/skin/skind.shm"

MAGIC = 0x48534B53
VERSION_MAJOR = 1
STALE_BEATS = 4
_HEADER = struct.Struct("<IHHIIIIQQIIQIIQQ2I")       # 88 bytes (1.1)
_PART_DESC = struct.Struct("<32sIIiIIIQQIIIIIIII")    # 104 bytes (1.3)
_PART_HEAD = struct.Struct("<QQQQQIIIIQQ")           # 72 bytes
_CONTACT_SIZE = 168
_STATE_RETIRED = 1 << 1

_CONTACT_FIELDS = [("id", "<u8"), ("cop", "<f8", (3,)), ("force", "<f8", (3,)),
                   ("moment", "<f8", (3,)), ("geo", "<f8", (3,)),
                   ("normal", "<f8", (3,)), ("pressure", "<f8"),
                   ("flat", "<f8", (2,)), ("first_taxel", "<u4"),
                   ("n_taxels", "<u4")]


def _contact_dtype(stride: int) -> np.dtype:
    """struct skin_shm_contact with the writer's stride (newer minor
    versions append fields)."""
    base = np.dtype(_CONTACT_FIELDS)
    names = list(base.names)
    return np.dtype({"names": names,
                     "formats": [base.fields[n][0] for n in names],
                     "offsets": [base.fields[n][1] for n in names],
                     "itemsize": stride})


class PartState(enum.IntFlag):
    """struct skin_shm_part.state (SKIN_SHM_PART_*)."""
    ATTACHED = 1 << 0       # every patch is attached
    CALIBRATED = 1 << 1     # values are compensated
    CALIBRATING = 1 << 2    # calibration in progress
    PARTIAL = 1 << 3        # the newest frame was partial
    THRESHOLDS = 1 << 4     # thresholds (1.2), cal_baselines (1.3) hold a calibration's


class TaxelFlag(enum.IntFlag):
    """flags[taxel] (SKIN_SHM_TAXEL_*)."""
    TOUCHED = 1 << 0        # above its touch threshold
    TACTILE = 1 << 1        # a pressure cell
    THERMAL = 1 << 2        # a thermal pad
    # its faults (shm 1.4; 0 from an older skind): never touched meanwhile
    STUCK = 1 << 3          # raw value unchanged for stuck_s
    SATURATED = 1 << 4      # raw at 0 or 255 for saturated_s
    DEAD = 1 << 5           # its triangle sent nothing for dead_s
    NOISY = 1 << 6          # raw value jumps at most evaluations of noisy_s
    DIAG = 1 << 7           # the board's diagnostics flag it
    FAULTS = STUCK | SATURATED | DEAD | NOISY | DIAG


class Liveness(enum.Enum):
    """What the object says of its writer (skin_shm_check())."""
    LIVE = "live"
    RETIRED = "retired"     # replaced (reload) or skind stopped: map again
    STALLED = "stalled"     # no heartbeat for STALE_BEATS beats: data is old


@dataclass(frozen=True, eq=False)
class Contact:
    """One contact: connected touched taxels (struct skin_shm_contact, or
    a contact of the socket's `contacts` line).  Positions in metres in
    the link frame; @flat is the shm's position in the flattened layout
    (None from the socket); @taxels are part-local indices."""
    id: int
    cop: np.ndarray
    force: np.ndarray
    moment: np.ndarray
    geo: np.ndarray
    normal: np.ndarray
    pressure: float
    taxels: np.ndarray
    body_part: int
    link: int
    skin_part: int
    flat: Optional[np.ndarray] = None

    def to_dict(self) -> dict:
        d = {"id": self.id, "body_part": self.body_part, "link": self.link,
             "skin_part": self.skin_part, "cop": self.cop.tolist(),
             "force": self.force.tolist(), "moment": self.moment.tolist(),
             "geo": self.geo.tolist(), "normal": self.normal.tolist(),
             "pressure": self.pressure, "taxels": self.taxels.tolist()}
        if self.flat is not None:
            d["flat"] = self.flat.tolist()
        return d


@dataclass(frozen=True)
class PartInfo:
    """A part's descriptor (struct skin_shm_part_desc)."""
    index: int
    name: str
    skin_part: int
    body_part: int
    link: int
    n_taxels: int
    n_patches: int
    max_contacts: int
    offset: int
    size: int
    values_off: int
    raw_off: int
    flags_off: int
    contacts_off: int
    contact_taxels_off: int
    thresholds_off: int     # 0: the writer publishes none (before 1.2)
    baselines_off: int      # 0: the writer publishes none (before 1.3)
    cal_baselines_off: int  # 0: the writer publishes none (before 1.3)


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One consistent publication of a part.  The arrays are read-only
    numpy views of the snapshot's own copy: they stay as they are."""
    part: PartInfo
    seq: int
    samples: int            # samples published since skind started
    frame_ts_ns: int        # CLOCK_MONOTONIC of the newest CAN frame
    publish_ns: int         # CLOCK_MONOTONIC of the publication
    lost_frames: int
    state: PartState
    patches_attached: int
    values: np.ndarray      # float32[n_taxels], compensated (0: no pressure)
    raw: np.ndarray         # uint8[n_taxels], as the boards sent them
    flags: np.ndarray       # uint8[n_taxels], TaxelFlag bits
    contacts: List[Contact] = field(default_factory=list)
    # float64[n_taxels], the touch thresholds (the socket's `thresholds
    # PART`); None before the part's first calibration, or from a writer
    # older than 1.2
    thresholds: Optional[np.ndarray] = None
    # float64[n_taxels], counts of v = 255 - raw: each taxel's current
    # baseline, and the one the part's last calibration left (so
    # baselines - cal_baselines is the drift compensated since); None from
    # a writer older than 1.3, cal_baselines None before the first
    # calibration too
    baselines: Optional[np.ndarray] = None
    cal_baselines: Optional[np.ndarray] = None

    @property
    def touched(self) -> np.ndarray:
        """Indices of the taxels above their touch threshold."""
        return np.flatnonzero(self.flags & TaxelFlag.TOUCHED)

    def to_dict(self) -> dict:
        """Plain Python values (json.dumps takes it)."""
        return {"part": self.part.name, "seq": self.seq, "samples": self.samples,
                "frame_ts_ns": self.frame_ts_ns, "publish_ns": self.publish_ns,
                "lost_frames": self.lost_frames,
                "state": [s.name.lower() for s in PartState if s in self.state],
                "patches_attached": self.patches_attached,
                "values": self.values.tolist(), "touched": self.touched.tolist(),
                "contacts": [c.to_dict() for c in self.contacts]}


def _header_ok(h: tuple, size: int) -> bool:
    (magic, vmaj, _vmin, header_size, desc_size, contact_size, n_parts,
     total) = h[:8]
    if size < _HEADER.size or magic != MAGIC or vmaj != VERSION_MAJOR:
        return False
    if (header_size < _HEADER.size or header_size % 8
            or desc_size < _PART_DESC.size or desc_size % 8
            or contact_size < _CONTACT_SIZE or contact_size % 8 or total > size):
        return False
    return header_size + n_parts * desc_size <= size


def _part_ok(p: PartInfo, contact_size: int, size: int) -> bool:
    n = p.n_taxels
    return (p.offset <= size and p.size <= size - p.offset and p.offset % 8 == 0
            and p.size >= _PART_HEAD.size and p.values_off % 4 == 0
            and p.contacts_off % 8 == 0 and p.contact_taxels_off % 4 == 0
            and p.values_off + n * 4 <= p.size and p.raw_off + n <= p.size
            and p.flags_off + n <= p.size
            and p.contacts_off + p.max_contacts * contact_size <= p.size
            and p.contact_taxels_off + n * 4 <= p.size
            and all(off % 8 == 0 and off + n * 8 <= p.size
                    for off in (p.thresholds_off, p.baselines_off, p.cal_baselines_off)))


PartKey = Union[int, str, PartInfo]


class PartView:
    """A part's arrays as views of the mapping: no copy, read-only, and
    live: skind rewrites them as they are read, so they may mix two
    publications.  A single value read from them is one skind wrote."""

    def __init__(self, shm: "Shm", part: PartInfo) -> None:
        self.part = part
        mm = shm._mm
        n, off = part.n_taxels, part.offset
        self._seq = np.frombuffer(mm, dtype="<u8", count=1, offset=off)
        self.values = np.frombuffer(mm, dtype="<f4", count=n, offset=off + part.values_off)
        self.raw = np.frombuffer(mm, dtype=np.uint8, count=n, offset=off + part.raw_off)
        self.flags = np.frombuffer(mm, dtype=np.uint8, count=n, offset=off + part.flags_off)

    def seq(self) -> int:
        """The part's sequence number now (odd: being written)."""
        return int(self._seq[0])

    def copy_values(self, out: Optional[np.ndarray] = None,
                    tries: int = 1000) -> "tuple[int, np.ndarray]":
        """The values of one publication, copied under the seqlock into
        @out (a float32 array of n_taxels, allocated when None), and the
        sequence number they belong to.  Raises Busy after @tries."""
        if out is None:
            out = np.empty(self.part.n_taxels, dtype=np.float32)
        for _ in range(tries):
            s1 = int(self._seq[0])
            if s1 & 1:
                time.sleep(0)       # the writer is in the middle
                continue
            np.copyto(out, self.values)
            if int(self._seq[0]) == s1:
                return s1, out
        raise Busy("skind kept part %s busy for %d tries" % (self.part.name, tries))


class Shm:
    """skind's shared memory object, mapped read-only.

    Shm() maps /run/skin/skind.shm; Shm(path) another path; Shm(fd=FD) a
    descriptor (Client.shm() passes skind's), which the object owns from
    then on.  A context manager: `with skin.Shm() as shm: ...`.
    """

    def __init__(self, path: Optional[str] = None, fd: Optional[int] = None) -> None:
        self._mm: Optional[mmap.mmap] = None
        self.path = path or (SHM_PATH if fd is None else "skind's shm descriptor")
        if fd is None:
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                raise NotRunning(self.path, shm=True) from None
            except PermissionError:
                raise PermissionDenied(self.path) from None
        try:
            size = os.fstat(fd).st_size
            if size < _HEADER.size:
                raise ProtocolError("%s is no skind shm object (%d bytes)" % (self.path, size))
            self._mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
        finally:
            os.close(fd)
        # checked on a copy and used from the copy, as lib/client/shm_read.c:
        # a writer changing them later cannot lead a read out of bounds
        h = _HEADER.unpack_from(self._mm, 0)
        if not _header_ok(h, size):
            self.close()
            raise ProtocolError("%s is no skind shm object of version %d.x"
                                % (self.path, VERSION_MAJOR))
        (_m, self.version_major, self.version_minor, self._header_size,
         self._desc_size, self.contact_size, n_parts, self.size,
         self.generation, _state, self.pid, self.created_ns, self.period_ms,
         self.heartbeat_ms, self.instance) = h[:15]
        self.parts: List[PartInfo] = []
        for i in range(n_parts):
            d = _PART_DESC.unpack_from(self._mm, self._header_size + i * self._desc_size)
            p = PartInfo(i, d[0].split(b"\0", 1)[0].decode(errors="replace"),
                         *d[1:17])
            if not _part_ok(p, self.contact_size, size):
                self.close()
                raise ProtocolError("%s: part %d lies out of bounds" % (self.path, i))
            self.parts.append(p)
        self._contact_dtype = _contact_dtype(self.contact_size)
        self._beat = 0
        self._beat_ns = 0

    @property
    def n_parts(self) -> int:
        return len(self.parts)

    @property
    def closed(self) -> bool:
        return self._mm is None

    def close(self) -> None:
        """Unmap (once the last view of it is gone: numpy views made by
        view() keep the mapping alive while they live)."""
        if self._mm is None:
            return
        try:
            self._mm.close()
        except BufferError:
            pass                    # views exported: unmapped with the last
        self._mm = None

    def __enter__(self) -> "Shm":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[PartInfo]:
        return iter(self.parts)

    def _live(self) -> mmap.mmap:
        if self._mm is None:
            raise ValueError("the Shm is closed")
        return self._mm

    def part(self, key: PartKey) -> PartInfo:
        """A part by index, name, or PartInfo (KeyError for no such part)."""
        if isinstance(key, PartInfo):
            return self.parts[key.index]
        if isinstance(key, int):
            if not 0 <= key < len(self.parts):
                raise KeyError(key)
            return self.parts[key]
        for p in self.parts:
            if p.name == key:
                return p
        raise KeyError(key)

    def _state(self) -> int:
        return struct.unpack_from("<I", self._live(), 40)[0]

    def retired(self) -> bool:
        """skind replaced this object (reload) or stopped: map it again."""
        return bool(self._state() & _STATE_RETIRED)

    @property
    def heartbeat(self) -> int:
        """+1 every heartbeat_ms while skind runs (0 ms: no heartbeat)."""
        return struct.unpack_from("<Q", self._live(), 72)[0]

    def check(self) -> Liveness:
        """skin_shm_check(): RETIRED, STALLED when the heartbeat has not
        moved for STALE_BEATS beats by this process's clock (the data is
        old: keep the mapping and keep checking), else LIVE.  Call it
        every so often: it notes when the heartbeat last moved."""
        if self.retired():
            return Liveness.RETIRED
        if self.version_minor < 1 or not self.heartbeat_ms:
            return Liveness.LIVE
        beat, now = self.heartbeat, time.monotonic_ns()
        if beat != self._beat or not self._beat_ns:
            self._beat, self._beat_ns = beat, now
            return Liveness.LIVE
        if now - self._beat_ns > STALE_BEATS * self.heartbeat_ms * 1000000:
            return Liveness.STALLED
        return Liveness.LIVE

    def seq(self, part: PartKey) -> int:
        """The part's sequence number now, without copying (odd: being
        written; seq // 2 publications): whether a snapshot is due."""
        p = self.part(part)
        return struct.unpack_from("<Q", self._live(), p.offset)[0]

    def view(self, part: PartKey) -> PartView:
        """The part's arrays as live views of the mapping (no copy)."""
        self._live()
        return PartView(self, self.part(part))

    def snapshot(self, part: PartKey, tries: int = 1000) -> Snapshot:
        """One consistent publication of the part, copied under its
        seqlock; Busy when the writer kept it busy @tries times."""
        p = self.part(part)
        mm = self._live()
        off, size = p.offset, p.size
        for _ in range(tries):
            s1 = struct.unpack_from("<Q", mm, off)[0]
            if s1 & 1:
                time.sleep(0)       # the writer is in the middle
                continue
            block = mm[off:off + size]
            if struct.unpack_from("<Q", mm, off)[0] == s1:
                return self._decode(p, block)
        raise Busy("skind kept part %s busy for %d tries" % (p.name, tries))

    def snapshots(self) -> List[Snapshot]:
        """A snapshot of every part (each consistent on its own)."""
        return [self.snapshot(p) for p in self.parts]

    def _decode(self, p: PartInfo, b: bytes) -> Snapshot:
        h = _PART_HEAD.unpack_from(b, 0)
        n = p.n_taxels
        values = np.frombuffer(b, dtype="<f4", count=n, offset=p.values_off)
        raw = np.frombuffer(b, dtype=np.uint8, count=n, offset=p.raw_off)
        flags = np.frombuffer(b, dtype=np.uint8, count=n, offset=p.flags_off)
        taxel_ids = np.frombuffer(b, dtype="<u4", count=n, offset=p.contact_taxels_off)
        # the counts are the writer's: bounded by what the part has room for
        n_contacts = min(h[6], p.max_contacts)
        n_ct = min(h[7], n)
        cs = np.ndarray((n_contacts,), dtype=self._contact_dtype, buffer=b,
                        offset=p.contacts_off)
        contacts = []
        for c in cs:
            first, count = int(c["first_taxel"]), int(c["n_taxels"])
            if first > n_ct or count > n_ct - first:
                first, count = 0, 0
            contacts.append(Contact(
                id=int(c["id"]), cop=c["cop"].copy(), force=c["force"].copy(),
                moment=c["moment"].copy(), geo=c["geo"].copy(),
                normal=c["normal"].copy(), pressure=float(c["pressure"]),
                taxels=taxel_ids[first:first + count],
                body_part=p.body_part, link=p.link, skin_part=p.skin_part,
                flat=c["flat"].copy()))
        thr = None
        if p.thresholds_off and h[5] & PartState.THRESHOLDS:
            thr = np.frombuffer(b, dtype="<f8", count=n, offset=p.thresholds_off)
        base = cal = None
        if p.baselines_off:
            base = np.frombuffer(b, dtype="<f8", count=n, offset=p.baselines_off)
        if p.cal_baselines_off and h[5] & PartState.THRESHOLDS:
            cal = np.frombuffer(b, dtype="<f8", count=n, offset=p.cal_baselines_off)
        return Snapshot(part=p, seq=h[0], samples=h[1], frame_ts_ns=h[2],
                        publish_ns=h[3], lost_frames=h[4], state=PartState(h[5]),
                        patches_attached=h[8], values=values, raw=raw, flags=flags,
                        contacts=contacts, thresholds=thr, baselines=base,
                        cal_baselines=cal)
