#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""skin-yarp's cost and latency against skind's own socket, in one run
(docs/PERFORMANCE.md, "skin-yarp").  Run by bench/yarp-bench.

The whole iCub (etc/skind-full-body.conf, 13 parts, 44 patches) played by
skinsim on ring files, skind on them, a real yarpserver, skin-yarp:

  1. skin-yarp's CPU per full-body sample (a publication of every part)
     with no YARP reader, and with a `yarp read` on each of its 27 ports,
     as a ratio to skind's own CPU per full-body sample over the same
     seconds (the baseline);
  2. latency of one part's samples, at the same time, to
     - a skind socket subscriber (`subscribe taxels PART`): when the line
       arrives - the sample's frame time (FRAME_TS_NS) and - skind's
       publication time (PUBLISH_NS);
     - `yarp read /lat /icub/skin/PART_comp envelope`: when its line
       arrives - the envelope's time (the same frame time, on the
       realtime clock: skin-yarp has no publication time to send);
     both readers are Python threads of this process reading a pipe or a
     socket, so their own overheads are alike.
Prints BENCH lines; asserts nothing.
"""
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

TOP = os.environ["SKIN_SOURCE_ROOT"]
sys.path.insert(0, os.path.join(TOP, "tests/yarp"))
import test_yarp as ty  # noqa: E402  (the yarp layer's stack, one copy)

PART = "left_forearm"
SECS = float(os.environ.get("BENCH_SECS", "15"))
# skin-yarp.conf's raw_period_ms (unset: its default, 20; 0: a raw message
# per publication, as before the wrapper's period)
RAW_PERIOD_MS = os.environ.get("BENCH_RAW_PERIOD_MS")


def cpu(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def full_body_samples(S):
    """publications of every part / parts: full-body samples so far"""
    out = ty.skind_cmd("parts")
    n = [int(m) for m in re.findall(r"^part \S+ .* samples (\d+)", out, re.M)]
    return sum(n) / len(n)


def measure(S, secs):
    b0, k0, s0, t0 = cpu(S.bridge.pid), cpu(S.skind.pid), full_body_samples(S), time.monotonic()
    time.sleep(secs)
    b1, k1, s1, t1 = cpu(S.bridge.pid), cpu(S.skind.pid), full_body_samples(S), time.monotonic()
    n = s1 - s0
    return {"samples": n, "rate": n / (t1 - t0),
            "bridge_us": (b1 - b0) * 1e6 / n, "skind_us": (k1 - k0) * 1e6 / n,
            "bridge_cpu": (b1 - b0) / (t1 - t0) * 100}


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def main():
    S = ty.Stack()
    ty.S = S
    readers = []
    try:
        S.start_yarpserver()
        S.start_skin(conf="etc/skind-full-body.conf",
                     touches=("left_forearm taxel 37 radius 12mm force 80",
                              "torso taxel 100 radius 15mm force 60"), at="8s")
        S.start_bridge("raw_period_ms = %s\n" % RAW_PERIOD_MS if RAW_PERIOD_MS else "")
        time.sleep(6)		# the touches begin at 8 s
        alone = measure(S, SECS)
        print("BENCH raw_period_ms=%s" % (RAW_PERIOD_MS or "default"))
        print("BENCH phase=alone full_body_samples_per_s=%.1f bridge_us_per_sample=%.0f "
              "skind_us_per_sample=%.0f ratio=%.3f bridge_cpu_pct=%.1f" %
              (alone["rate"], alone["bridge_us"], alone["skind_us"],
               alone["bridge_us"] / alone["skind_us"], alone["bridge_cpu"]))

        ports = [l.split()[2] for l in S.yarp("name", "list").stdout.splitlines()
                 if l.startswith("registration name /icub/skin/") or
                 "skin_events" in l]
        for i, port in enumerate(ports):
            readers.append(subprocess.Popen(
                [ty.YARP, "read", "/bench_r%d" % i, port], env=S.env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        sock_lat, sock_pub, yarp_lat = [], [], []
        sock_seen, yarp_seen = {}, {}		# sample -> (arrival, publish_ns)
        stop = [False]

        def socket_reader():
            s = socket.socket(socket.AF_UNIX)
            s.connect(S.env["SKIN_SOCKET"])
            s.sendall(b"subscribe taxels %s\n" % PART.encode())
            f = s.makefile("r")
            while not stop[0]:
                line = f.readline()
                now = time.monotonic_ns()
                m = re.match(r"taxels \S+ (\d+) (\d+) (\d+) ", line)
                if m:
                    sock_lat.append((now - int(m.group(2))) / 1e6)
                    sock_pub.append((now - int(m.group(3))) / 1e6)
                    sock_seen[int(m.group(1))] = (now, int(m.group(3)))
            s.close()

        lat = subprocess.Popen([ty.YARP, "read", "/bench_lat",
                                "/icub/skin/%s_comp" % PART, "envelope"], env=S.env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        readers.append(lat)

        def yarp_reader():
            while not stop[0]:
                line = lat.stdout.readline()
                now, mono = time.time(), time.monotonic_ns()
                if not line:
                    break
                w = line.split()
                if len(w) > 2 and not line.startswith("["):
                    yarp_lat.append((now - float(w[1])) * 1e3)
                    yarp_seen[int(w[0])] = mono

        th = [threading.Thread(target=socket_reader, daemon=True),
              threading.Thread(target=yarp_reader, daemon=True)]
        for t in th:
            t.start()
        time.sleep(3)
        del sock_lat[:], sock_pub[:], yarp_lat[:]
        sock_seen.clear()
        yarp_seen.clear()
        read = measure(S, SECS)
        stop[0] = True
        print("BENCH phase=%d_yarp_readers full_body_samples_per_s=%.1f bridge_us_per_sample=%.0f "
              "skind_us_per_sample=%.0f ratio=%.3f bridge_cpu_pct=%.1f" %
              (len(ports) + 1, read["rate"], read["bridge_us"], read["skind_us"],
               read["bridge_us"] / read["skind_us"], read["bridge_cpu"]))
        for name, v in (("socket_from_frame", sock_lat), ("socket_from_publish", sock_pub),
                        ("yarp_read_from_frame", yarp_lat)):
            print("BENCH latency=%s samples=%d median_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f" %
                  (name, len(v), statistics.median(v) if v else float("nan"),
                   pct(v, 0.9), pct(v, 0.99), max(v) if v else float("nan")))
        # the same samples seen by both: the envelope's count is skind's
        # sample number, so each yarp arrival has its publication time
        both = [k for k in yarp_seen if k in sock_seen]
        ypub = [(yarp_seen[k] - sock_seen[k][1]) / 1e6 for k in both]
        spub = [(sock_seen[k][0] - sock_seen[k][1]) / 1e6 for k in both]
        for name, v in (("socket_from_publish_matched", spub),
                        ("yarp_read_from_publish_matched", ypub)):
            print("BENCH latency=%s samples=%d median_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f" %
                  (name, len(v), statistics.median(v) if v else float("nan"),
                   pct(v, 0.9), pct(v, 0.99), max(v) if v else float("nan")))
        if ypub and spub:
            print("BENCH latency_ratio_yarp_to_socket_median=%.2f" %
                  (statistics.median(ypub) / statistics.median(spub)))
    finally:
        for p in readers:
            if p.stdout:
                p.stdout.close()
            p.terminate()
        for p in readers:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        S.close()


if __name__ == "__main__":
    main()
