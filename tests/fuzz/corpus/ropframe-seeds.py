#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write tests/fuzz/corpus/ropframe/*: the ETH boards' datagrams as the
owners' headers lay them out (docs/ETH.md), as UDP payloads, as packets
and in capture files, each behind fuzz_ropframe's mode byte."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ropframe")


def pad4(b):
    return b + bytes(-len(b) % 4)


def rop(ctrl, opc, ep, ent, idx, tag, data=b"", sign=None, time=None):
    has_data = not (ctrl & 3) and opc in (2, 3, 4)
    out = struct.pack("<BBHI", ctrl, opc, len(data), ep << 24 | ent << 16 | idx << 8 | tag)
    if has_data:
        out += pad4(data)
    if ctrl & 8:
        out += struct.pack("<I", sign)
    if ctrl & 4:
        out += struct.pack("<Q", time)
    return out


def skin(patch, frames, ctrl=0, full=True, sign=0, time=0):
    items = b"".join(struct.pack("<H", (ln << 12) | cid) + bytes(d).ljust(8, b"\0")
                     for cid, ln, d in frames)
    array = struct.pack("<BBBB", 24, 10, len(frames), 0) + items
    if full:
        array = array.ljust(244, b"\0")
    return rop(ctrl, 4, 3, 0, patch, 2, array, sign, time)


def frame(seq, rops, age=1000):
    body = b"".join(rops)
    return struct.pack("<IHHQQ", 0x12345678, len(body), len(rops), age, seq) + body + \
        struct.pack("<I", 0x87654321)


def eth_udp(src, dst, payload, sport=12345, dport=12345):
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(payload), 1, 0x4000, 64, 17, 0,
                     bytes(src), bytes(dst))
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0)
    return bytes([2, 0, *dst, 2, 0, *src]) + b"\x08\x00" + ip + udp + payload


def pcap(packets):
    out = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1)
    for i, p in enumerate(packets):
        out += struct.pack("<IIII", 1700000000, i * 1000, len(p), len(p)) + p
    return out


def pcapng(packets):
    def block(t, body):
        body = pad4(body)
        return struct.pack("<II", t, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    out = block(0x0a0d0d0a, struct.pack("<IHHq", 0x1a2b3c4d, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 1, 0, 262144) + struct.pack("<HHB3x", 9, 1, 9) +
                 struct.pack("<HH", 0, 0))
    for i, p in enumerate(packets):
        ts = 1700000000 * 10**9 + i * 10**6
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xffffffff, len(p), len(p)) + p)
    return out


BOARD = (10, 0, 1, 24)
PC = (10, 0, 1, 104)
HEAD = [(0x4e0, 8, [0x40, 1, 2, 3, 4, 5, 6, 7]), (0x4e1, 8, [0xc0, 1, 2, 3, 4, 5, 0, 0])]

golden = frame(7, [
    rop(0, 4, 0, 1, 0, 3, bytes([0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff])),
    skin(0, HEAD, full=False),
    rop(0x0c, 4, 1, 0, 2, 10, bytes([1, 2, 3, 4]), 0xdeadbeef, 0x0102030405060708),
    skin(1, [(0x3a5, 3, [0x40, 0xaa, 0xbb])], ctrl=0x0c, full=False, sign=1, time=2),
    rop(2, 3, 0, 0, 0, 1),
    rop(0, 4, 9, 0, 0, 0, bytes([1, 2, 3, 4])),
])
full = frame(1, [skin(0, [(0x400 | i, i % 9, [i] * 8) for i in range(24)])])
mixed = frame(2, [rop(0, 4, 1, 0, j, 10, bytes(24)) for j in range(4)] +
              [skin(0, HEAD), skin(1, HEAD[:1], ctrl=0x0c, sign=5, time=6)])
empty = frame(3, [])

seeds = {
    "golden": b"\x00" + golden,
    "full-array": b"\x00" + full,
    "mixed": b"\x00" + mixed,
    "empty": b"\x00" + empty,
    "foreign": b"\x01" + golden,
    "packet-ethernet": b"\x80" + eth_udp(BOARD, PC, golden),
    "packet-raw": b"\x83" + eth_udp(BOARD, PC, mixed)[14:],
    "pcap": b"\xc0" + pcap([eth_udp(BOARD, PC, golden), eth_udp(PC, BOARD, empty),
                            eth_udp(BOARD, PC, frame(9, [skin(0, HEAD)]))]),
    "pcapng": b"\xc0" + pcapng([eth_udp(BOARD, PC, full), eth_udp(BOARD, PC, golden)]),
}

os.makedirs(OUT, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
