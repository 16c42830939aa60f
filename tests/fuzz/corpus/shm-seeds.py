#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write tests/fuzz/corpus/shm/*: skind's shm objects as daemon/shm_write.c lays
them out (include/skin/shm.h 1.1), whole, truncated and mid-write."""
import os
import struct

HDR = struct.Struct("<IHHIIIIQQIIQIIQQ2I")
DESC = struct.Struct("<32sIIiIIIQQIIIII3I")
HEAD = struct.Struct("<QQQQQIIIIQQ")
CONTACT = struct.Struct("<Q3d3d3d3d3dd2dII2I")
MAX_CONTACTS = 64


def up(v, a):
    return (v + a - 1) // a * a


def layout(n):
    off = HEAD.size
    values = off; off += up(n * 4, 8)
    raw = off; off += up(n, 8)
    flags = off; off += up(n, 8)
    contacts = off; off += MAX_CONTACTS * CONTACT.size
    ct = off; off += up(n * 4, 8)
    return up(off, 64), values, raw, flags, contacts, ct


def obj(parts, seq=2, state=1):
    descs = up(HDR.size + len(parts) * DESC.size, 64)
    size = descs + sum(layout(n)[0] for _, n in parts)
    b = bytearray(size)
    HDR.pack_into(b, 0, 0x48534B53, 1, 1, HDR.size, DESC.size, CONTACT.size, len(parts),
                  size, 1, state, 1234, 0, 20, 500, 0x0123456789abcdef, 7, 0, 0)
    off = descs
    for i, (name, n) in enumerate(parts):
        psize, values, raw, flags, contacts, ct = layout(n)
        DESC.pack_into(b, HDR.size + i * DESC.size, name.encode(), 2, 1, 3, n, (n + 191) // 192,
                       MAX_CONTACTS, off, psize, values, raw, flags, contacts, ct, 0, 0, 0)
        HEAD.pack_into(b, off, seq, seq // 2, 1000, 2000, 0, 3, 1, 2, 1, 0, 0)
        struct.pack_into("<%df" % n, b, off + values, *[float(k) for k in range(n)])
        CONTACT.pack_into(b, off + contacts, 5, *([0.01] * 15), 10.0, 1.0, 2.0, 0, 2, 0, 0)
        struct.pack_into("<2I", b, off + ct, 0, 1)
        off += psize
    return bytes(b)


d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shm")
os.makedirs(d, exist_ok=True)
full = obj([("pad", 16), ("left_forearm", 384)])
seeds = {
    "two-parts": full,
    "one-part": obj([("pad", 16)]),
    "no-parts": obj([]),
    "mid-write": obj([("pad", 16)], seq=3),
    "retired": obj([("pad", 16)], state=2),
    "truncated-header": full[:60],
    "truncated-descs": full[:200],
    "truncated-block": full[:len(full) - 100],
}
for name, data in seeds.items():
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
