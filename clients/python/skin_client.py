#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""skind's socket and shared memory from Python, with the standard library only.

    import skin_client
    c = skin_client.Client()                      # /run/skin/skind.sock or $SKIN_SOCKET
    print(c.command("status"))                    # data lines of the reply
    c.command("subscribe contacts left_hand 50")
    for line in c.lines():                        # events
        ...
    shm = c.shm()                                 # the fd skind passes (SCM_RIGHTS)
    # or: shm = skin_client.Shm()                 # by name, /run/skin/skind.shm
    snap = shm.read_part("left_hand")             # one consistent publication
    snap["values"][10], snap["contacts"]

As a program:  skin_client.py [--socket PATH] [--json] COMMAND...
               skin_client.py shm [PART]          the shared memory, by name
               skin_client.py watch PART [RATE]   contacts as they come

The formats are docs/PROTOCOL.md and include/skin/shm.h.
"""

import array
import json
import mmap
import os
import socket
import struct
import sys
import time

SOCKET_PATH = "/run/skin/skind.sock"
SHM_PATH = "/run/skin/skind.shm"

# include/skin/shm.h, little endian, natural alignment (sizes checked in C)
SHM_MAGIC = 0x48534B53
SHM_VERSION_MAJOR = 1
HEADER = struct.Struct("<IHHIIIIQQIIQIIQQ2I")       # 88 bytes (1.1)
PART_DESC = struct.Struct("<32sIIiIIIQQIIIII3I")    # 104 bytes
PART_HEAD = struct.Struct("<QQQQQIIIIQQ")           # 72 bytes
CONTACT = struct.Struct("<Q3d3d3d3d3dd2dII2I")      # 168 bytes
SHM_RETIRED = 1 << 1
SHM_STALE_BEATS = 4
TAXEL_TOUCHED = 1 << 0


class SkindError(Exception):
    """skind answered "error CODE TEXT"."""

    def __init__(self, line):
        super().__init__(line)
        self.line = line
        if line.startswith("{"):
            obj = json.loads(line)
            self.code, self.text = obj.get("code"), obj.get("message")
        else:
            words = line.split(" ", 2)
            self.code = words[1] if len(words) > 1 else ""
            self.text = words[2] if len(words) > 2 else ""


def _final(line):
    """1 for an ok line, -1 for an error line, 0 for data."""
    if line == "ok" or line.startswith("ok ") or line.startswith('{"type":"ok"'):
        return 1
    if line.startswith("error ") or line.startswith('{"type":"error"'):
        return -1
    return 0


class Client:
    """A connection to skind's socket."""

    def __init__(self, path=None, timeout=None):
        path = path or os.environ.get("SKIN_SOCKET") or SOCKET_PATH
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.fds = []

    def close(self):
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, cmd):
        self.sock.sendall(cmd.encode() + b"\n")

    def _receive(self):
        fdsize = array.array("i").itemsize
        data, anc, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(4 * fdsize))
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(payload[: len(payload) - len(payload) % fdsize])
                self.fds.extend(fds)
        if not data:
            raise ConnectionResetError("skind closed the connection")
        self.buf += data

    def read_line(self):
        """The next line skind sends (a reply's or an event)."""
        while b"\n" not in self.buf:
            self._receive()
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace").rstrip("\r")

    def lines(self):
        while True:
            yield self.read_line()

    def command(self, cmd):
        """Send a command; return the data lines of its reply.  Raises
        SkindError for an error reply."""
        self.send(cmd)
        data = []
        while True:
            line = self.read_line()
            f = _final(line)
            if f > 0:
                return data
            if f < 0:
                raise SkindError(line)
            data.append(line)

    def shm(self):
        """The shared memory object through the socket (a read-only fd)."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.command("shm")
        if not self.fds:
            raise SkindError("error protocol skind passed no descriptor")
        fd = self.fds.pop()
        return Shm(fd=fd)


def parse_contacts_bottle(text):
    """The skinContactList bottle of a "contacts" line, as a list of dicts."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    stack = [[]]
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(float(t) if ("." in t or "e" in t or "n" in t) else int(t))
    top = stack[0][0] if stack[0] else []
    out = []
    for c in top:
        ident, cop, force, moment, geo, normal, taxels, pressure = c
        out.append({"id": ident[0], "body_part": ident[1], "link": ident[2],
                    "skin_part": ident[3], "cop": cop, "force": force,
                    "moment": moment, "geo": geo, "normal": normal,
                    "taxels": taxels, "pressure": pressure})
    return out


def parse_event(line):
    """A data or event line as a dict: {"type": ..., ...}."""
    if line.startswith("{"):
        return json.loads(line)
    words = line.split(" ", 5)
    if words[0] == "sample" and len(words) == 5:
        return {"type": "sample", "part": words[1], "sample": int(words[2]),
                "frame_ts_ns": int(words[3]), "publish_ns": int(words[4])}
    if words[0] in ("contacts", "taxels", "thresholds") and len(words) == 6:
        ev = {"type": words[0], "part": words[1], "sample": int(words[2]),
              "frame_ts_ns": int(words[3]), "publish_ns": int(words[4])}
        if words[0] == "contacts":
            ev["contacts"] = parse_contacts_bottle(words[5])
        elif words[0] == "thresholds":
            ev["thresholds"] = [float(v) for v in words[5].strip("() ").split()]
        else:
            rest = words[5]
            values, _, touched = rest.partition(") (")
            ev["values"] = [float(v) for v in values.strip("() ").split()]
            ev["touched"] = [int(v) for v in touched.strip("() ").split()]
        return ev
    ev = {"type": words[0]}
    rest = line.split()[1:]
    if words[0] in ("status", "part", "patch", "bus"):
        if words[0] in ("part", "bus"):
            ev["name"], rest = rest[0], rest[1:]
        elif words[0] == "patch":
            ev["part"], ev["name"], rest = rest[0], rest[1], rest[2:]
        i = 0
        while i < len(rest):
            if words[0] == "patch" and rest[i] in ("attached", "detached"):
                ev["attached"] = rest[i] == "attached"
                i += 1
                continue
            ev[rest[i]] = rest[i + 1] if i + 1 < len(rest) else None
            i += 2
    else:
        ev["words"] = rest
    return ev


class Shm:
    """skind's shared memory, mapped read-only (include/skin/shm.h)."""

    def __init__(self, path=None, fd=None):
        if fd is None:
            fd = os.open(path or SHM_PATH, os.O_RDONLY | os.O_CLOEXEC)
        try:
            size = os.fstat(fd).st_size
            self.mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ)
        finally:
            os.close(fd)
        h = HEADER.unpack_from(self.mm, 0)
        (magic, vmaj, self.version_minor, self.header_size, self.desc_size,
         self.contact_size, self.n_parts, self.size, self.generation, _state,
         self.pid, self.created_ns, self.period_ms, self.heartbeat_ms,
         self.instance) = h[:15]
        if magic != SHM_MAGIC or vmaj != SHM_VERSION_MAJOR or self.size > size:
            raise ValueError("not a skind shm object of version %d" % SHM_VERSION_MAJOR)
        self.parts = []
        for i in range(self.n_parts):
            d = PART_DESC.unpack_from(self.mm, self.header_size + i * self.desc_size)
            self.parts.append({
                "name": d[0].split(b"\0", 1)[0].decode(), "skin_part": d[1],
                "body_part": d[2], "link": d[3], "n_taxels": d[4],
                "n_patches": d[5], "max_contacts": d[6], "offset": d[7],
                "size": d[8], "values_off": d[9], "raw_off": d[10],
                "flags_off": d[11], "contacts_off": d[12],
                "contact_taxels_off": d[13]})

    def close(self):
        self.mm.close()

    def retired(self):
        """skind replaced this object (reload) or stopped: map it again."""
        return bool(HEADER.unpack_from(self.mm, 0)[9] & SHM_RETIRED)

    def heartbeat(self):
        """skind adds 1 every heartbeat_ms while it runs (0 ms: no heartbeat);
        unchanged for SHM_STALE_BEATS beats: skind is dead or hung."""
        return HEADER.unpack_from(self.mm, 0)[15]

    def part_index(self, name):
        for i, p in enumerate(self.parts):
            if p["name"] == name:
                return i
        raise KeyError(name)

    def read_part(self, part, tries=1000):
        """One consistent publication of a part (its seqlock), as a dict."""
        p = self.parts[part if isinstance(part, int) else self.part_index(part)]
        off, size = p["offset"], p["size"]
        for _ in range(tries):
            s1 = struct.unpack_from("<Q", self.mm, off)[0]
            if s1 & 1:
                time.sleep(0)
                continue
            block = self.mm[off:off + size]
            s2 = struct.unpack_from("<Q", self.mm, off)[0]
            if s1 == s2:
                return self._decode(p, block)
        raise BlockingIOError("the writer kept part %s busy" % p["name"])

    def _decode(self, p, b):
        h = PART_HEAD.unpack_from(b, 0)
        n = p["n_taxels"]
        values = array.array("f")
        values.frombytes(b[p["values_off"]:p["values_off"] + 4 * n])
        taxel_ids = array.array("I")
        taxel_ids.frombytes(b[p["contact_taxels_off"]:p["contact_taxels_off"] + 4 * h[7]])
        contacts = []
        for i in range(h[6]):
            c = CONTACT.unpack_from(b, p["contacts_off"] + i * self.contact_size)
            first, count = c[19], c[20]
            contacts.append({"id": c[0], "cop": c[1:4], "force": c[4:7],
                             "moment": c[7:10], "geo": c[10:13],
                             "normal": c[13:16], "pressure": c[16],
                             "flat": c[17:19],
                             "taxels": list(taxel_ids[first:first + count])})
        flags = b[p["flags_off"]:p["flags_off"] + n]
        return {"part": p["name"], "seq": h[0], "samples": h[1],
                "frame_ts_ns": h[2], "publish_ns": h[3], "lost_frames": h[4],
                "state": h[5], "patches_attached": h[8],
                "values": list(values), "raw": list(b[p["raw_off"]:p["raw_off"] + n]),
                "flags": list(flags),
                "touched": [i for i in range(n) if flags[i] & TAXEL_TOUCHED],
                "contacts": contacts}


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description="talk to skind")
    ap.add_argument("--socket", default=None)
    ap.add_argument("--shm-path", default=None)
    ap.add_argument("--json", action="store_true", help="format json first")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args(argv)
    if a.command[0] == "shm":
        shm = Shm(a.shm_path)
        names = a.command[1:] or [p["name"] for p in shm.parts]
        for name in names:
            s = shm.read_part(name)
            print(json.dumps({k: s[k] for k in ("part", "samples", "frame_ts_ns",
                                                "publish_ns", "state", "touched",
                                                "contacts")}))
        return 0
    with Client(a.socket) as c:
        if a.json:
            c.command("format json")
        if a.command[0] == "watch":
            rate = " " + a.command[2] if len(a.command) > 2 else ""
            c.command("subscribe contacts %s%s" % (a.command[1], rate))
            for line in c.lines():
                print(line, flush=True)
        try:
            for line in c.command(" ".join(a.command)):
                print(line)
        except SkindError as e:
            print(e.line, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
