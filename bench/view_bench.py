#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""skin-view's cost and latency against skind's own socket, in one run
(docs/PERFORMANCE.md, "skin-view").  Run by bench/view-bench.

etc/skind.conf's body (7 parts, 18 boards at their 50 ms period) played by
skinsim on ring files with two held touches, skind on them; then, per
phase, a skin-view of its own with N WebSocket clients (1, 10, 50), each
subscribed to every part's /skin/PART/values, or /skin/PART/state with
BENCH_TOPIC=state, what the page draws from (Foxglove's protocol on raw
sockets: the handshake, one subscribe, then every frame read):

  1. skin-view's CPU (utime + stime) per full-body sample (a publication
     of every part) and in % of a core, against skind's own over the same
     seconds (the baseline); its memory at the end of the phase (VmRSS,
     Private_Dirty); the frames it sent and those a newer sample replaced
     unsent (its exit log);
  2. latency from skind's publication (the part's publish_ns,
     CLOCK_MONOTONIC) to
     - a skind socket subscriber (`subscribe samples all`): when its line
       arrives;
     - client 0: when the WebSocket frame of the same sample has arrived
       whole (matched by part and frame time: the Message Data timestamp
       is the frame time on the realtime clock);
     both readers are threads of this process reading a socket, so their
     own overheads are alike; both clocks CLOCK_MONOTONIC.
Prints BENCH lines; asserts nothing.
"""
import json
import os
import re
import select
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.environ["SKIN_SOURCE_ROOT"]
SECS = float(os.environ.get("BENCH_SECS", "15"))
CLIENTS = [int(x) for x in os.environ.get("BENCH_CLIENTS", "1 10 50").split()]
# the channel every client subscribes of each part: values (a Foxglove
# plot), or state (what the page draws a part from: raw, values, flags,
# baselines, thresholds, contacts)
TOPIC = os.environ.get("BENCH_TOPIC", "values")
CONF = os.path.join(TOP, "etc/skind.conf")


def cpu(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid):
    rss = int(re.search(r"VmRSS:\s+(\d+)", open("/proc/%d/status" % pid).read()).group(1))
    dirty = int(re.search(r"Private_Dirty:\s+(\d+)",
                          open("/proc/%d/smaps_rollup" % pid).read()).group(1))
    return rss, dirty


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


class Stack:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="view-bench-")
        self.sock = os.path.join(self.tmp, "skind.sock")
        self.procs = []

    def spawn(self, argv, log):
        p = subprocess.Popen(argv, stdout=open(os.path.join(self.tmp, log), "w"),
                             stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def cmd(self, line):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(5)
        s.connect(self.sock)
        s.sendall(line.encode() + b"\n")
        f = s.makefile("r")
        out = []
        while True:
            l = f.readline()
            if not l or l.startswith("ok") or l.startswith("error"):
                break
            out.append(l)
        s.close()
        return "".join(out)

    def start(self):
        scn = os.path.join(self.tmp, "bench.scn")
        with open(scn, "w") as f:
            f.write("config %s\nseed 7\nduration 3600s\n" % CONF)
            f.write("at 8s press left_forearm taxel 37 radius 12mm force 80 name t0\n")
            f.write("at 8s press torso taxel 100 radius 15mm force 60 name t1\n")
        rings = os.path.join(self.tmp, "rings")
        os.makedirs(rings)
        os.makedirs(os.path.join(self.tmp, "state"))
        self.skinsim = self.spawn([os.environ["SKINSIM"], "--ring", rings, scn], "skinsim.log")
        time.sleep(0.3)
        self.skind = self.spawn([os.environ["SKIND"], "-c", CONF, "--rings", rings,
                                 "--socket", self.sock,
                                 "--shm", os.path.join(self.tmp, "skind.shm"),
                                 "--state-dir", os.path.join(self.tmp, "state"),
                                 "--no-evdev", "--no-create-patches"], "skind.log")
        t = time.monotonic()
        while time.monotonic() - t < 60:
            try:
                m = re.search(r" parts (\d+) calibrated (\d+) ", self.cmd("status"))
                if m and m.group(1) == m.group(2):
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("skind did not calibrate")

    def full_body_samples(self):
        n = [int(m) for m in re.findall(r"^part \S+ .* samples (\d+)", self.cmd("parts"), re.M)]
        return sum(n) / len(n)

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


class View:
    def __init__(self, S, n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.conf = os.path.join(S.tmp, "view.conf")
        with open(self.conf, "w") as f:
            f.write("[view]\naddress = 127.0.0.1\nport = %d\nsocket = %s\ndata_dir = %s\n"
                    "skind_config = %s\nmax_clients = %d\nmax_per_address = %d\n"
                    % (self.port, S.sock, os.path.join(TOP, "bridges/view/www"), CONF,
                       n + 8, n + 8))
        self.log = os.path.join(S.tmp, "view.%d.log" % n)
        self.p = subprocess.Popen([os.environ["SKIN_VIEW"], "-c", self.conf],
                                  stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        t = time.monotonic()
        while "parts served" not in open(self.log).read():
            if time.monotonic() - t > 20 or self.p.poll() is not None:
                raise RuntimeError("skin-view did not start: " + open(self.log).read())
            time.sleep(0.1)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(timeout=15)
        return open(self.log).read()


class Client:
    """A Foxglove client on a raw socket: subscribed to every part's TOPIC"""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                       b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       b"Sec-WebSocket-Version: 13\r\n"
                       b"Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n")
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self.buf += self.s.recv(4096)
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        self.subs = {}			# subscription id -> part
        while not self.subs:
            op, p = self.frame()
            if op == 1:
                m = json.loads(p)
                if m["op"] == "advertise":
                    chans = [(c["id"], c["topic"].split("/")[2]) for c in m["channels"]
                             if c["topic"].endswith("/" + TOPIC)]
                    self.subs = {i + 1: part for i, (_, part) in enumerate(chans)}
                    self.send(json.dumps({"op": "subscribe", "subscriptions": [
                        {"id": i + 1, "channelId": cid} for i, (cid, _) in enumerate(chans)]}))
        self.s.setblocking(False)

    def send(self, text):
        p = text.encode()
        n = len(p)
        hdr = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack(">H", n))
        mask = os.urandom(4)
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(p)))

    def parse(self):
        """(opcode, payload) of a whole frame at the buffer's head, or None"""
        b = self.buf
        if len(b) < 2:
            return None
        n, at = b[1] & 0x7f, 2
        if n == 126:
            if len(b) < 4:
                return None
            n, at = struct.unpack(">H", b[2:4])[0], 4
        elif n == 127:
            if len(b) < 10:
                return None
            n, at = struct.unpack(">Q", b[2:10])[0], 10
        if len(b) < at + n:
            return None
        self.buf = b[at + n:]
        return b[0] & 0x0f, b[at:at + n]

    def frame(self):
        while True:
            f = self.parse()
            if f:
                return f
            d = self.s.recv(65536)
            if not d:
                raise EOFError("closed")
            self.buf += d


def phase(S, n):
    view = View(S, n)
    clients = [Client(view.port) for _ in range(n)]
    stop = [False]
    ws_seen, sock_seen = [], {}		# (part, stamp_ns, arrival) / (part, frame_ts) -> (publish, arrival)
    off = [0]
    lat_client = clients[0]

    def drain():
        socks = {c.s: c for c in clients}
        while not stop[0]:
            r, _, _ = select.select(list(socks), [], [], 0.2)
            for s in r:
                c = socks[s]
                try:
                    d = s.recv(1 << 20)
                except BlockingIOError:
                    continue
                now = time.monotonic_ns()
                if c is not lat_client:
                    continue
                c.buf += d
                while True:
                    f = c.parse()
                    if not f:
                        break
                    op, p = f
                    if op == 2 and p[0] == 1:
                        sub, ns = struct.unpack_from("<IQ", p, 1)
                        ws_seen.append((c.subs.get(sub), ns, now))

    def subscriber():
        s = socket.socket(socket.AF_UNIX)
        s.connect(S.sock)
        s.sendall(b"subscribe samples all\n")
        f = s.makefile("r")
        while not stop[0]:
            line = f.readline()
            now = time.monotonic_ns()
            m = re.match(r"sample (\S+) \d+ (\d+) (\d+)", line)
            if m:
                sock_seen[(m.group(1), int(m.group(2)))] = (int(m.group(3)), now)
        s.close()

    th = [threading.Thread(target=drain, daemon=True),
          threading.Thread(target=subscriber, daemon=True)]
    for t in th:
        t.start()
    time.sleep(3)
    del ws_seen[:]
    sock_seen.clear()
    off[0] = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.monotonic_ns()
    v0, k0, s0, t0 = cpu(view.p.pid), cpu(S.skind.pid), S.full_body_samples(), time.monotonic()
    time.sleep(SECS)
    v1, k1, s1, t1 = cpu(view.p.pid), cpu(S.skind.pid), S.full_body_samples(), time.monotonic()
    rss, dirty = memory(view.p.pid)
    stop[0] = True
    for t in th:
        t.join(timeout=5)
    for c in clients:
        c.s.close()
    log = view.stop()
    samples = s1 - s0
    print("BENCH clients=%d full_body_samples_per_s=%.1f view_us_per_sample=%.0f "
          "skind_us_per_sample=%.0f ratio=%.2f view_cpu_pct=%.2f skind_cpu_pct=%.2f "
          "view_rss_kib=%d view_private_dirty_kib=%d"
          % (n, samples / (t1 - t0), (v1 - v0) * 1e6 / samples, (k1 - k0) * 1e6 / samples,
             (v1 - v0) / (k1 - k0) if k1 > k0 else float("nan"),
             (v1 - v0) / (t1 - t0) * 100, (k1 - k0) / (t1 - t0) * 100, rss, dirty))
    m = re.search(r"(\d+) samples sent, (\d+) replaced unsent", log)
    if m:
        print("BENCH clients=%d frames_sent=%s replaced_unsent=%s" % (n, m.group(1), m.group(2)))
    print("BENCH clients=%d skind_publications_per_s=%.0f client0_frames_per_s=%.0f"
          % (n, len(sock_seen) / SECS, len(ws_seen) / SECS))
    # the WebSocket frames matched to skind's publications: by part and
    # frame time (the stamp is frame_ts + skin-view's realtime offset,
    # which differs from ours by microseconds)
    by_part = {}
    for (part, fts), v in sock_seen.items():
        by_part.setdefault(part, []).append((fts, v))
    ws_lat, sock_lat = [], []
    for part, ns, arrival in ws_seen:
        cands = by_part.get(part, [])
        if not cands:
            continue
        want = ns - off[0]
        fts, (pub, sarr) = min(cands, key=lambda c: abs(c[0] - want))
        if abs(fts - want) > 200000:
            continue
        ws_lat.append((arrival - pub) / 1e3)
        sock_lat.append((sarr - pub) / 1e3)
    for name, v in (("socket_subscriber", sock_lat), ("websocket_client0", ws_lat)):
        print("BENCH clients=%d latency=%s matched=%d median_us=%.0f p90_us=%.0f p99_us=%.0f"
              % (n, name, len(v), statistics.median(v) if v else float("nan"),
                 pct(v, 0.9), pct(v, 0.99)))
    if ws_lat and sock_lat:
        print("BENCH clients=%d latency_ratio_ws_to_socket_median=%.2f "
              "latency_difference_median_us=%.0f"
              % (n, statistics.median(ws_lat) / statistics.median(sock_lat),
                 statistics.median([w - s for w, s in zip(ws_lat, sock_lat)])))
    sys.stdout.flush()


def main():
    S = Stack()
    try:
        S.start()
        time.sleep(max(0.0, 9 - 5))	# the touches begin at 8 s
        print("BENCH config=etc/skind.conf secs=%g" % SECS)
        for n in CLIENTS:
            phase(S, n)
    finally:
        S.close()


if __name__ == "__main__":
    main()
