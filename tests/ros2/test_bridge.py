#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""End to end: skinsim -> skind -> skin-ros2-bridge -> a ROS 2 subscriber.

Run by tests/ros2/run, which builds the programs (ASan + UBSan) and passes
their paths: SKIND, SKINSIM, BRIDGE, ROS2SUB, SKIN_SOURCE_ROOT.  Prints
TAP.  Everything is real: skinsim writes ring files through the driver's
core, skind reads them, the bridge follows skind and writes DDS, and
ros2sub (tests/ros2/ros2sub.c) reads with the ROS names and types and a
default-profile and a sensor_data-profile reader each.  What it receives
is compared with what skind's socket says of the same samples (matched by
their time) and with skinsim's ground truth (--truth).

Every run uses its own DDS domain and ROS namespace (from the pid), so
parallel runs on one machine and network never see each other.

Usage: test_bridge.py [GLOB]     only the cases whose name matches
"""

import fnmatch
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

SRC = os.environ.get("SKIN_SOURCE_ROOT",
                     os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# the package of this tree, never an installed one
sys.path.insert(0, os.path.join(SRC, "clients", "python"))
import skin  # noqa: E402

BUILD = os.path.join(SRC, "build/meson")
SKIND = os.environ.get("SKIND", os.path.join(BUILD, "daemon/skind"))
SKINSIM = os.environ.get("SKINSIM", os.path.join(BUILD, "tools/skinsim/skinsim"))
BRIDGE = os.environ.get("BRIDGE", os.path.join(BUILD, "bridges/ros2/skin-ros2-bridge"))
ROS2SUB = os.environ.get("ROS2SUB", os.path.join(BUILD, "tests/ros2/ros2sub"))
# Fast DDS's subscriber (tests/ros2/fastsub.cpp); "" where Fast DDS is not
FASTSUB = os.environ.get("FASTSUB", "")

DOMAIN = 100 + os.getpid() % 100
NS = "/t%d/skin" % os.getpid()
PARTS = ("left_hand", "left_forearm")
FRAMES = {"left_hand": "l_hand_dh_frame", "left_forearm": "l_forearm_dh_frame"}


def wait_for(pred, timeout=5.0, step=0.05):
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)


def skind_conf(path, parts=PARTS):
    """etc/examples/demo.conf with absolute paths, only @parts."""
    with open(os.path.join(SRC, "etc/examples/demo.conf")) as f:
        text = f.read().replace("../icub/", os.path.join(SRC, "etc/icub") + "/")
    out, keep = [], True
    for line in text.splitlines():
        m = re.match(r"\[part (\S+)\]", line)
        if m:
            keep = m.group(1) in parts
        elif line.startswith("["):
            keep = True
        if keep:
            out.append(line)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def topics(part):
    return ["%s/%s/values:state" % (NS, part), "%s/%s/raw:state" % (NS, part),
            "%s/%s/contacts:contacts" % (NS, part)]


class Proc:
    """A process of the stack, its output in a log file."""

    def __init__(self, d, name, args, netns=None, env=None):
        self.log_path = os.path.join(d, "%s.%d.log" % (name, time.monotonic_ns()))
        self.logf = open(self.log_path, "w")
        if netns:
            args = ["ip", "netns", "exec", netns] + args
        self.p = subprocess.Popen(args, stdout=self.logf, stderr=subprocess.STDOUT,
                                  env=dict(os.environ, **(env or {})))

    def log(self):
        if not self.logf.closed:
            self.logf.flush()
        with open(self.log_path) as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            self.p.send_signal(sig)
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.logf.close()
        return self.p.returncode


class Sub:
    """ros2sub (Cyclone DDS), or @program with its interface (fastsub: Fast
    DDS): its lines, parsed, as they come."""

    def __init__(self, d, parts=PARTS, netns=None, seconds=120, program=None):
        args = [program or ROS2SUB, "-d", str(DOMAIN), "-t", str(seconds)]
        for p in parts:
            args += topics(p)
        if netns:
            args = ["ip", "netns", "exec", netns] + args
        self.err = open(os.path.join(d, "ros2sub.%d.err" % time.monotonic_ns()), "w")
        # (Fast DDS 2.9 frees with a mismatched size, and leaks, at exit:
        # its own code, built without ASan)
        env = dict(os.environ, ASAN_OPTIONS="new_delete_type_mismatch=0:detect_leaks=0") \
            if program else None
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1, env=env)
        self.lines = []
        self.lock = threading.Lock()
        line = self.p.stdout.readline().strip()
        if line != "ready":
            self.err.flush()
            with open(self.err.name) as f:
                raise AssertionError("%s did not start: %r %s" % (args[0], line, f.read()[-2000:]))
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stdout:
            w = line.split()
            with self.lock:
                self.lines.append((time.monotonic(), w))

    def samples(self, profile=None, topic=None, since=0.0):
        with self.lock:
            return [w for t, w in self.lines if t >= since and w[0] != "matched"
                    and (profile is None or w[0] == profile)
                    and (topic is None or w[1] == topic)]

    def stamps(self, profile, topic, since=0.0):
        """(time received, stamp in ns) of each sample"""
        with self.lock:
            return [(t, int(w[3]) * 10**9 + int(w[4])) for t, w in self.lines
                    if t >= since and w[0] == profile and w[1] == topic]

    def unmatched_at(self, profile, topic, since):
        """When the reader said it had no writer left, after @since"""
        with self.lock:
            t = [t for t, w in self.lines if t >= since and w[0] == "matched"
                 and w[1] == profile and w[2] == topic and w[3] == "0"]
        return t[0] if t else None

    def matched(self, profile, topic):
        """The last matched count said for the reader, or None."""
        with self.lock:
            n = [int(w[3]) for _, w in self.lines
                 if w[0] == "matched" and w[1] == profile and w[2] == topic]
        return n[-1] if n else None

    def matched_history(self, profile, topic):
        with self.lock:
            return [int(w[3]) for _, w in self.lines
                    if w[0] == "matched" and w[1] == profile and w[2] == topic]

    def stop(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.t.join(timeout=5)
        self.err.close()


def parse_state(w):
    # PROFILE TOPIC state SEC NSEC FRAME NSENSORS NAME N V...
    assert w[2] == "state", w
    stamp = int(w[3]) * 10**9 + int(w[4])
    nsens = int(w[6])
    assert nsens == 1, w[:8]
    n = int(w[8])
    return {"stamp": stamp, "frame": w[5], "name": w[7],
            "values": [float(v) for v in w[9:9 + n]]}


def parse_contacts(w):
    # PROFILE TOPIC contacts N [NAME FRAME SEC NSEC P3 N3 F3 T3] ...
    assert w[2] == "contacts", w
    n = int(w[3])
    out, i = [], 4
    for _ in range(n):
        v = [float(x) for x in w[i + 4:i + 16]]
        out.append({"name": w[i], "frame": w[i + 1],
                    "stamp": int(w[i + 2]) * 10**9 + int(w[i + 3]),
                    "cop": v[0:3], "normal": v[3:6], "force": v[6:9], "moment": v[9:12]})
        i += 16
    return out


def mono_to_real():
    r1 = time.clock_gettime_ns(time.CLOCK_REALTIME)
    m = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    r2 = time.clock_gettime_ns(time.CLOCK_REALTIME)
    return (r1 + r2) // 2 - m


class Stack:
    """skinsim on ring files, skind on them, the bridge following skind."""

    def __init__(self, scenario=None, truth=None, netns=None):
        self.dir = tempfile.mkdtemp(prefix="ros2-test.")
        os.chmod(self.dir, 0o755)
        for d in ("rings", "state"):
            os.mkdir(os.path.join(self.dir, d))
        self.sock = os.path.join(self.dir, "skind.sock")
        self.conf = os.path.join(self.dir, "skind.conf")
        skind_conf(self.conf)
        self.bconf = os.path.join(self.dir, "bridge.conf")
        with open(self.bconf, "w") as f:
            f.write("[bridge]\ndomain_id = %d\nnamespace = %s\n" % (DOMAIN, NS))
        self.netns = netns
        self.sim = self.skind = self.bridge = None
        try:
            self._start(scenario, truth)
        except BaseException:
            self.close()
            raise

    def _start(self, scenario, truth):
        args = [SKINSIM, "--ring", os.path.join(self.dir, "rings"), "-c", self.conf]
        if truth:
            args += ["--truth", truth]
        if scenario:
            args.append(scenario)
        self.sim = Proc(self.dir, "skinsim", args)
        if not wait_for(lambda: len(os.listdir(os.path.join(self.dir, "rings"))) >= 3, 10):
            raise RuntimeError("skinsim wrote no rings: " + self.sim.log())
        self.start_skind()
        self.start_bridge()

    def start_skind(self):
        try:
            os.unlink(self.sock)
        except FileNotFoundError:
            pass
        self.skind = Proc(self.dir, "skind", [
            SKIND, "-c", self.conf, "--rings", os.path.join(self.dir, "rings"),
            "--socket", self.sock, "--shm", os.path.join(self.dir, "skind.shm"),
            "--state-dir", os.path.join(self.dir, "state"), "--no-evdev",
            "--no-create-patches"])
        if not wait_for(lambda: os.path.exists(self.sock) or self.skind.p.poll() is not None, 10) \
                or self.skind.p.poll() is not None:
            raise RuntimeError("skind did not start: " + self.skind.log())

    def start_bridge(self, conf=None):
        self.bridge = Proc(self.dir, "bridge", [BRIDGE, "-c", conf or self.bconf],
                           netns=self.netns, env={"SKIN_SOCKET": self.sock})
        return self.bridge

    def client(self):
        return skin.Client(self.sock, timeout=10)

    def calibrated(self, n=2, timeout=15):
        def ok():
            try:
                with self.client() as c:
                    s = skin.parse_event(c.command("status")[0])
                return int(s["calibrated"]) >= n
            except OSError:
                return False
        if not wait_for(ok, timeout, 0.1):
            raise RuntimeError("skind not calibrated: " + self.skind.log())

    def close(self):
        for p in (self.bridge, self.skind, self.sim):
            if p:
                p.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class SocketLog:
    """skind's socket, subscribed to every publication of taxels and
    contacts of @parts, in a thread."""

    def __init__(self, stack, parts=PARTS):
        self.c = stack.client()
        self.c.command("format json")
        for p in parts:
            self.c.command("subscribe taxels " + p)
            self.c.command("subscribe contacts " + p)
        self.events = []
        self.stopped = False
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        try:
            while not self.stopped:
                line = self.c.read_line()
                if line is None:
                    break
                ev = skin.parse_event(line)
                if ev.get("type") in ("taxels", "contacts"):
                    self.events.append(ev)
        except (OSError, ValueError):
            pass

    def stop(self):
        self.stopped = True
        self.c.close()
        self.t.join(timeout=5)


CASES = []


class Skip(Exception):
    """A case that cannot run here (ok # SKIP)"""


def case(name, session):
    def reg(fn):
        CASES.append((name, session, fn))
        return fn
    return reg


def close(a, b, rel):
    """Equal to what skind printed with @rel's precision (%.4g: 5e-4,
    %.9g: 5e-9)."""
    if math.isnan(b):
        return math.isnan(a)
    return abs(a - b) <= rel * abs(b) + 1e-300


def by_stamp(events, kind, part, offset):
    """skind's socket events of @kind for @part, by their frame time moved
    to CLOCK_REALTIME, rounded to the ms (samples are >= 20 ms apart)."""
    return {(e["frame_ts_ns"] + offset + 500000) // 1000000: e
            for e in events if e["type"] == kind and e["part"] == part}


# --- session "demo": etc/scenarios/demo.scn, one run ----------------------

class Demo:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ros2-demo.")
        self.truth = os.path.join(self.dir, "truth")
        # demo.scn, and an index fingertip taxel (no position: an
        # all-zero row) stuck pressed while the palm is: a contact with
        # nowhere to be, which every output must say the same way
        scn = os.path.join(self.dir, "demo.scn")
        with open(os.path.join(SRC, "etc/scenarios/demo.scn")) as f:
            text = f.read().replace("config ../examples/demo.conf",
                                    "config " + os.path.join(SRC, "etc/examples/demo.conf"))
        with open(scn, "w") as f:
            f.write(text + "at 17s fault stuck left_hand 3 value 150 for 4s\n")
        self.stack = Stack(scenario=scn, truth=self.truth)
        self.sub = Sub(self.dir)
        self.stack.calibrated()
        self.sock = SocketLog(self.stack)
        self.offset = mono_to_real()
        # the scenario lasts 24 s from skinsim's start; its last release is
        # at 22 s
        wait_for(lambda: self.stack.sim.p.poll() is not None, 40, 0.2)
        time.sleep(1.0)
        self.sock.stop()
        self.sub.stop()

    def close(self):
        if self.stack:
            self.stack.close()
        if getattr(self, "sub", None):
            self.sub.stop()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)


@case("both ROS profiles receive every topic of every part, named and framed", "demo")
def t_profiles(s):
    for part in PARTS:
        for leaf in ("values", "raw", "contacts"):
            topic = "%s/%s/%s" % (NS, part, leaf)
            for prof in ("default", "sensor"):
                got = s.sub.samples(prof, topic)
                if leaf == "contacts" and part == "left_hand":
                    assert got, "%s %s: nothing" % (prof, topic)
                    continue
                assert len(got) > 50, "%s %s: %d samples" % (prof, topic, len(got))
                if leaf != "contacts":
                    st = parse_state(got[-1])
                    assert st["frame"] == FRAMES[part] and st["name"] == part, st
                    assert len(st["values"]) == (192 if part == "left_hand" else 384)


@case("values equal skind's socket, sample for sample, stamped in ROS time", "demo")
def t_values(s):
    for part in PARTS:
        sock = by_stamp(s.sock.events, "taxels", part, s.offset)
        assert len(sock) > 100, "socket: %d taxels events of %s" % (len(sock), part)
        dds = [parse_state(w) for w in s.sub.samples("default", "%s/%s/values" % (NS, part))]
        matched = 0
        for st in dds:
            e = sock.get((st["stamp"] + 500000) // 1000000)
            if e is None:
                continue
            matched += 1
            assert len(e["values"]) == len(st["values"])
            for a, b in zip(st["values"], e["values"]):
                assert close(a, b, 6e-4), "%s: %g over DDS, %g on the socket" % (part, a, b)
        lo = min(sock)
        hi = max(sock)
        in_window = [k for k in sock if lo <= k <= hi]
        assert matched >= 0.9 * len(in_window), \
            "%s: %d of %d socket samples seen over DDS" % (part, matched, len(in_window))


@case("raw values equal skinsim's ground truth (the boards' bytes)", "demo")
def t_raw(s):
    frames = set()
    with open(s.truth) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "frame" and w[1] == "left_hand":
                frames.add(tuple(int(w[-1][i:i + 2], 16) for i in range(0, len(w[-1]), 2)))
    assert len(frames) > 100, "truth: %d frames of left_hand" % len(frames)
    got = s.sub.samples("default", "%s/left_hand/raw" % NS)
    assert len(got) > 100
    for w in got:
        v = tuple(int(x) for x in parse_state(w)["values"])
        assert v in frames, "a raw sample that skinsim never sent: %s..." % (v[:8],)


@case("contacts equal skind's socket: names, CoP, normal, wrench", "demo")
def t_contacts(s):
    sock = by_stamp(s.sock.events, "contacts", "left_forearm", s.offset)
    got = [parse_contacts(w) for w in s.sub.samples("default", "%s/left_forearm/contacts" % NS)]
    nonempty = [c for c in got if c]
    assert len(nonempty) > 20, "%d messages with contacts" % len(nonempty)
    matched = turning = 0
    for cs in nonempty:
        e = sock.get((cs[0]["stamp"] + 500000) // 1000000)
        if e is None:
            continue
        matched += 1
        want = {"contact_%d" % k.id: k for k in e["contacts"]}
        assert sorted(want) == sorted(c["name"] for c in cs), (sorted(want), [c["name"] for c in cs])
        for c in cs:
            k = want[c["name"]]
            assert c["frame"] == "l_forearm_dh_frame"
            for ours, theirs in (("cop", "cop"), ("normal", "normal"), ("force", "force"),
                                 ("moment", "moment")):
                for a, b in zip(c[ours], getattr(k, theirs)):
                    assert close(a, b, 1e-8), "%s %s: %r vs %r" % (c["name"], ours, c[ours],
                                                                   getattr(k, theirs))
            # wrench.torque is the force's moment about the link's origin,
            # CoP x force (docs/ROS2.md), not skinManager's 0
            p, f = c["cop"], c["force"]
            if any(math.isnan(x) for x in p):
                continue    # a contact without a position: no lever arm
            cross = (p[1] * f[2] - p[2] * f[1], p[2] * f[0] - p[0] * f[2], p[0] * f[1] - p[1] * f[0])
            scale = math.sqrt(sum(x * x for x in p) * sum(x * x for x in f))
            for a, b in zip(c["moment"], cross):
                assert abs(a - b) <= 1e-9 * scale, "%s torque %r, CoP x force %r" % (c["name"], c["moment"], cross)
            turning += any(c["moment"])
    assert matched >= 0.9 * len(nonempty), "%d of %d matched" % (matched, len(nonempty))
    assert turning, "every contact's torque is 0"


@case("a contact without a position: NaN over DDS, as nan on the socket", "demo")
def t_contacts_no_position(s):
    sock = by_stamp(s.sock.events, "contacts", "left_hand", s.offset)
    got = [parse_contacts(w) for w in s.sub.samples("default", "%s/left_hand/contacts" % NS)]
    seen = 0
    for cs in got:
        e = sock.get((cs[0]["stamp"] + 500000) // 1000000) if cs else None
        if e is None:
            continue
        want = {"contact_%d" % k.id: k for k in e["contacts"]}
        for c in cs:
            k = want.get(c["name"])
            if k is None or not math.isnan(c["cop"][0]):
                continue
            # DDS says NaN, so must the socket (it said 0.0); force 0
            for ours, theirs in (("cop", "cop"), ("normal", "normal"), ("force", "force"),
                                 ("moment", "moment")):
                for a, b in zip(c[ours], getattr(k, theirs)):
                    assert close(a, b, 1e-8), "%s %s: %r vs %r" % (c["name"], ours, c[ours],
                                                                   getattr(k, theirs))
            assert all(math.isnan(x) for x in c["cop"]) and not any(c["force"]), c
            seen += 1
    assert seen > 10, "%d contacts without a position matched" % seen


@case("contacts lie where skinsim pressed (ground truth, 15 mm)", "demo")
def t_contacts_truth(s):
    centres = []
    with open(s.truth) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "contact" and w[3] == "left_forearm" and int(w[9]) > 0:
                centres.append(tuple(float(x) for x in w[10:13]))
    assert centres, "truth: no contact on the forearm"
    got = [parse_contacts(w) for w in s.sub.samples("default", "%s/left_forearm/contacts" % NS)]
    n = 0
    for cs in got:
        for c in cs:
            if any(math.isnan(x) for x in c["cop"]):
                continue
            d = min(math.dist(c["cop"], p) for p in centres)
            assert d < 0.015, "%s at %s: %.1f mm from every pressed centre" % (c["name"], c["cop"], d * 1e3)
            n += 1
    assert n > 20


@case("a release publishes one empty TactileContacts, then silence", "demo")
def t_release(s):
    for prof in ("default", "sensor"):
        for part in PARTS:
            got = [parse_contacts(w) for w in s.sub.samples(prof, "%s/%s/contacts" % (NS, part))]
            assert got and got[0], "%s %s: starts with an empty message" % (prof, part)
            if prof == "default":
                assert got[-1] == [], "%s %s: the last message is not the release" % (prof, part)
                for a, b in zip(got, got[1:]):
                    assert a or b, "%s %s: two empty messages in a row" % (prof, part)


# --- session "faults": noise only, the stack disturbed ----------------------

class Faults:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ros2-faults.")
        self.stack = Stack()
        self.stack.calibrated()

    def close(self):
        if self.stack:
            self.stack.close()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def values_topic(part):
    return "%s/%s/values" % (NS, part)


def flowing(sub, part, since, n=5, timeout=10):
    return wait_for(lambda: len(sub.samples("default", values_topic(part), since)) >= n, timeout, 0.1)


@case("a subscriber that joins late gets the stream", "faults")
def t_late(s):
    time.sleep(1.0)
    sub = Sub(s.dir)
    try:
        assert flowing(sub, "left_hand", 0), "no sample within 10 s"
        assert flowing(sub, "left_forearm", 0)
    finally:
        sub.stop()


@case("skind killed (-9) and restarted: the bridge follows, its writers stay", "faults")
def t_skind_kill(s):
    sub = Sub(s.dir)
    try:
        assert flowing(sub, "left_hand", 0)
        bridge_pid = s.stack.bridge.p.pid
        s.stack.skind.stop(signal.SIGKILL)
        time.sleep(1.0)
        s.stack.start_skind()
        s.stack.calibrated()
        t = time.monotonic()
        assert flowing(sub, "left_hand", t), "nothing after skind's restart: " + s.stack.bridge.log()
        assert s.stack.bridge.p.poll() is None and s.stack.bridge.p.pid == bridge_pid
        assert sub.matched_history("default", values_topic("left_hand")) == [1], \
            sub.matched_history("default", values_topic("left_hand"))
    finally:
        sub.stop()


@case("the bridge killed (-9) and restarted: subscribers see it go and come back", "faults")
def t_bridge_kill(s):
    sub = Sub(s.dir)
    try:
        assert flowing(sub, "left_forearm", 0)
        s.stack.bridge.stop(signal.SIGKILL)
        # the writer's lease (DDS default: a participant's 10 s... or the
        # SPDP dispose Cyclone sends is lost with -9): wait for it
        assert wait_for(lambda: sub.matched("default", values_topic("left_forearm")) == 0, 30, 0.2), \
            "the killed bridge's writers never unmatched"
        s.stack.start_bridge()
        t = time.monotonic()
        assert flowing(sub, "left_forearm", t), "nothing from the new bridge: " + s.stack.bridge.log()
        assert sub.matched("default", values_topic("left_forearm")) == 1
        assert s.stack.skind.p.poll() is None, "skind died"
    finally:
        sub.stop()


@case("a part removed by a reload loses its topics; the others flow on", "faults")
def t_reload(s):
    sub = Sub(s.dir)
    try:
        assert flowing(sub, "left_hand", 0)
        skind_conf(s.stack.conf, parts=("left_forearm",))
        s.stack.skind.p.send_signal(signal.SIGHUP)
        assert wait_for(lambda: sub.matched("default", values_topic("left_hand")) == 0, 15, 0.1), \
            "left_hand still matched: " + s.stack.bridge.log()
        t = time.monotonic()
        assert flowing(sub, "left_forearm", t), s.stack.bridge.log()
        assert "part left_hand: gone from skind" in s.stack.bridge.log()
        time.sleep(0.5)
        assert not sub.samples("default", values_topic("left_hand"), time.monotonic() - 0.4)
    finally:
        sub.stop()
        skind_conf(s.stack.conf)
        s.stack.skind.p.send_signal(signal.SIGHUP)


@case("a bad bridge configuration is refused with FILE:LINE:COL, skind untouched", "faults")
def t_bad_config(s):
    bad = os.path.join(s.dir, "bad.conf")
    with open(bad, "w") as f:
        f.write("[bridge]\nnamespace = /ok\ndomain_id = 999\n")
    r = subprocess.run([BRIDGE, "-c", bad], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "%s:3:13: domain_id = '999': expected an integer 0..232" % bad in r.stderr, r.stderr
    r = subprocess.run([BRIDGE, "-c", os.path.join(s.dir, "missing.conf")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "missing.conf: cannot open" in r.stderr, r.stderr
    r = subprocess.run([BRIDGE, "-c", s.stack.bconf, "--check"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert s.stack.skind.p.poll() is None


def figure(text):
    """A measured figure, in the TAP output (docs/ROS2.md quotes them)"""
    print("# figure: " + text, flush=True)


def stop_bridge(s, subs):
    """SIGTERM: the bridge's exit, and when each reader of @subs saw its
    writers go (seconds after the signal; None: not within 12 s, a lease
    of 10 s expired or not)"""
    topic = values_topic("left_hand")
    t = time.monotonic()
    rc = s.stack.bridge.stop()
    took = time.monotonic() - t
    assert rc == 0, "exit %s: %s" % (rc, s.stack.bridge.log())
    assert "did not shut down in time" not in s.stack.bridge.log(), s.stack.bridge.log()
    gone = []
    for sub in subs:
        wait_for(lambda: sub.unmatched_at("default", topic, t) is not None, 12, 0.05)
        u = sub.unmatched_at("default", topic, t)
        gone.append(None if u is None else u - t)
    return took, gone


@case("SIGTERM stops the bridge within a second (exit 0); a Cyclone reader sees its writers go within a second", "faults")
def t_stop(s):
    sub = Sub(s.dir)
    try:
        assert flowing(sub, "left_hand", 0)
        took, (gone,) = stop_bridge(s, [sub])
        figure("SIGTERM to exit %.3f s; a Cyclone reader unmatched after %s s"
               % (took, "%.3f" % gone if gone is not None else "> 12"))
        assert took < 1.0, "took %.2f s to stop" % took
        # the writers' and the participant's deletions are announced: no
        # lease to wait out
        assert gone is not None and gone < 1.0, "unmatched after %s s" % gone
    finally:
        sub.stop()
        s.stack.start_bridge()


@case("SIGTERM while skind is away stops the bridge within a second", "faults")
def t_stop_waiting(s):
    bridge = Proc(s.dir, "bridge", [BRIDGE, "-c", s.stack.bconf, "-s",
                                     os.path.join(s.dir, "nobody.sock")])
    try:
        assert wait_for(lambda: "following skind" in bridge.log(), 10, 0.05), bridge.log()
        time.sleep(0.3)
        t = time.monotonic()
        rc = bridge.stop()
        took = time.monotonic() - t
        assert rc == 0, "exit %s: %s" % (rc, bridge.log())
        assert took < 1.0, "took %.2f s to stop" % took
    finally:
        bridge.stop(signal.SIGKILL)


def need_fastdds():
    if not FASTSUB:
        raise Skip("Fast DDS not found (libfastrtps-dev)")


@case("SIGTERM: a Fast DDS reader sees the bridge's writers go within a second", "faults")
def t_stop_fastdds(s):
    need_fastdds()
    cy, fd = Sub(s.dir), Sub(s.dir, program=FASTSUB)
    try:
        assert flowing(cy, "left_hand", 0) and flowing(fd, "left_hand", 0, 5, 15), \
            "the Fast DDS reader got nothing"
        took, (gone_cy, gone_fd) = stop_bridge(s, [cy, fd])
        figure("SIGTERM to exit %.3f s; unmatched after: Cyclone %s s, Fast DDS %s s"
               % (took, *["%.3f" % g if g is not None else "> 12" for g in (gone_cy, gone_fd)]))
        assert gone_fd is not None and gone_fd < 1.0, \
            "Fast DDS unmatched after %s s (a lease's end)" % gone_fd
    finally:
        cy.stop()
        fd.stop()
        s.stack.start_bridge()


@case("a graceful restart: Cyclone and Fast DDS readers resume with the new bridge", "faults")
def t_restart(s, netns=None):
    need_fastdds()
    topic = values_topic("left_hand")
    cy, fd = Sub(s.dir, netns=netns), Sub(s.dir, netns=netns, program=FASTSUB)
    try:
        assert flowing(cy, "left_hand", 0) and flowing(fd, "left_hand", 0, 5, 15)
        s.stack.bridge.stop()
        time.sleep(0.5)
        t = time.monotonic()
        s.stack.start_bridge()
        assert flowing(cy, "left_hand", t) and flowing(fd, "left_hand", t, 5, 15), \
            s.stack.bridge.log()
        time.sleep(2.0)
        first = [sub.stamps("default", topic, t)[0][1] for sub in (cy, fd)]
        n = [len(sub.stamps("default", topic, t)) for sub in (cy, fd)]
        late = (first[1] - first[0]) / 1e9
        figure(("over veth: " if netns else "") + "restart: the Fast DDS reader's first sample %.3f s after the Cyclone reader's; "
               "samples in the next 2 s: Cyclone %d, Fast DDS %d" % (late, n[0], n[1]))
        # Fast DDS takes longer to discover a new participant than Cyclone:
        # measured 0 to 0.05 s on one host, 0.3 to 0.7 s over veth
        # (docs/ROS2.md); a lease's 10 s would be a defect
        assert late < 1.5, "the Fast DDS reader missed %.3f s of the new bridge" % late
    finally:
        cy.stop()
        fd.stop()


@case("a late joiner: Cyclone and Fast DDS readers get no sample written before they joined", "faults")
def t_late_history(s, netns=None):
    need_fastdds()
    topic = values_topic("left_hand")
    assert wait_for(lambda: "parts published" in s.stack.bridge.log(), 10, 0.1)
    worst = {}
    # each alone (no other reader acknowledging the writers' history)
    for name, program in (("Cyclone", None), ("Fast DDS", FASTSUB)) * 4:
        time.sleep(0.7)
        joined = time.clock_gettime_ns(time.CLOCK_REALTIME)
        sub = Sub(s.dir, netns=netns, program=program)
        try:
            assert wait_for(lambda: sub.stamps("default", topic), 15, 0.05), name
            # (20 ms: a frame stamped just before, published after)
            old = [st for _, st in sub.stamps("default", topic) if st < joined - 20000000]
            age = (joined - min(old)) / 1e9 if old else 0.0
            w = worst.setdefault(name, [0, 0.0])
            w[0] = max(w[0], len(old))
            w[1] = max(w[1], age)
        finally:
            sub.stop()
    figure(("over veth: " if netns else "") + "late joiners (4 joins each), samples stamped before the join: "
           + ", ".join("%s at most %d, up to %.3f s old" % (k, v[0], v[1]) for k, v in worst.items()))
    # History is what this catches (the issue saw 9 samples up to 0.4 s
    # old): one sample of the board period just before the join may still
    # be in flight to the writer on a loaded host (skind and the bridge
    # behind by 20 ms or more), never two, never 0.1 s
    for name, (n, age) in worst.items():
        assert n <= 1 and age < 0.1, \
            "%s: %d samples from before it joined, up to %.3f s old" % (name, n, age)


# --- session "netns": the subscriber on another (virtual) machine --------

NETNS = ("skinros2a%d" % os.getpid(), "skinros2b%d" % os.getpid())


# --- session "silent": the hand's board sends nothing for its first 10 s ------

SILENT_S = 10


class Silent:
    """skind attaches the hand's ring before its first frame: it publishes
    the part (attached, calibrating) with no sample in it, the raw values
    at noLoad as placeholders.  The bridge must not send those on."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ros2-silent.")
        self.truth = os.path.join(self.dir, "truth")
        scn = os.path.join(self.dir, "silent.scn")
        with open(scn, "w") as f:
            f.write("seed 3\nduration %ds\n" % (SILENT_S + 4))
            for t in range(16):
                f.write("at 0s fault dead vcan0:14 triangle %d for %ds\n" % (t, SILENT_S))
        self.stack = Stack(scenario=scn, truth=self.truth)
        self.sub = Sub(self.dir, parts=("left_hand",))

    def close(self):
        if getattr(self, "sub", None):
            self.sub.stop()
        if self.stack:
            self.stack.close()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def hand_samples(stack):
    with stack.client() as c:
        for line in c.command("parts"):
            ev = skin.parse_event(line)
            if ev.get("type") == "part" and ev["name"] == "left_hand":
                return int(ev["samples"])
    raise AssertionError("skind has no part left_hand")


@case("a part with no sample yet (attached, calibrating) publishes nothing; then the board's own bytes", "silent")
def t_silent(s):
    for leaf in ("values", "raw"):
        topic = "%s/left_hand/%s" % (NS, leaf)
        assert wait_for(lambda: s.sub.matched("default", topic) == 1, 15, 0.1), \
            "%s never matched: %s" % (topic, s.stack.bridge.log())
    # skind publishes the part again, still without a sample
    with s.stack.client() as c:
        reply = c.command("calibrate left_hand")
    time.sleep(1.0)
    assert hand_samples(s.stack) == 0, \
        "the board spoke before the check (a machine slower than %d s allows)" % SILENT_S
    got = s.sub.samples(None, "%s/left_hand/raw" % NS) + s.sub.samples(None, values_topic("left_hand"))
    assert not got, "published with no sample from the board (%s): %s" % (reply, [w[:12] for w in got[:2]])
    assert wait_for(lambda: s.stack.sim.p.poll() is not None, SILENT_S + 20, 0.2), "skinsim still runs"
    time.sleep(0.5)
    frames = set()
    with open(s.truth) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "frame" and w[1] == "left_hand" and w[5] != "0000":
                frames.add(tuple(int(w[-1][i:i + 2], 16) for i in range(0, len(w[-1]), 2)))
    got = s.sub.samples("default", "%s/left_hand/raw" % NS)
    assert len(got) > 20, "%d raw samples once the board spoke" % len(got)
    for w in got:
        v = tuple(int(x) for x in parse_state(w)["values"])
        assert v in frames, "a raw sample that the board never sent: %s..." % (v[:8],)


VETH = ("r2va%d" % os.getpid(), "r2vb%d" % os.getpid())


def netns_run(*c):
    subprocess.run(c, check=True, capture_output=True)


class Netns:
    """Two network namespaces joined by a veth pair: the bridge in the
    first, the subscriber in the second, DDS discovery by multicast over
    the link (Cyclone's default).  With @carrier_late the subscriber's end
    stays down, so the bridge's end has no carrier when the bridge starts
    (a robot PC booted before the robot), and no address: systemd-networkd
    and NetworkManager configure one only once a link has carrier.  The
    test brings the link up as they would."""

    def __init__(self, carrier_late=False):
        a, b = NETNS
        self.made = []
        for n in NETNS:
            netns_run("ip", "netns", "add", n)
            self.made.append(n)
        netns_run("ip", "link", "add", VETH[0], "netns", a, "type", "veth",
                  "peer", "name", VETH[1], "netns", b)
        for n, dev, ip in ((a, VETH[0], "10.217.0.1/24"), (b, VETH[1], "10.217.0.2/24")):
            if n == b or not carrier_late:
                netns_run("ip", "-n", n, "addr", "add", ip, "dev", dev)
            if n == a or not carrier_late:
                netns_run("ip", "-n", n, "link", "set", dev, "up")
            netns_run("ip", "-n", n, "link", "set", "lo", "up")
        self.dir = tempfile.mkdtemp(prefix="ros2-netns.")
        self.stack = Stack(netns=a)
        self.stack.calibrated()

    def close(self):
        if self.stack:
            self.stack.close()
        for n in getattr(self, "made", ()):
            subprocess.run(["ip", "netns", "del", n], capture_output=True)
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)


@case("another network namespace over veth: discovery, values and both profiles", "netns")
def t_netns(s):
    sub = Sub(s.dir, netns=NETNS[1])
    try:
        for part in PARTS:
            assert flowing(sub, part, 0, 20, 20), \
                "%s: nothing across the veth: %s" % (part, s.stack.bridge.log())
            got = sub.samples("sensor", values_topic(part))
            assert len(got) >= 10, "sensor_data reader: %d" % len(got)
            st = parse_state(got[-1])
            assert st["frame"] == FRAMES[part]
        # the bridge and the subscriber really are apart: all DDS traffic
        # between them crossed the veth pair
        for proc, ns in ((s.stack.bridge.p, NETNS[0]), (sub.p, NETNS[1])):
            r = subprocess.run(["ip", "netns", "identify", str(proc.pid)],
                               capture_output=True, text=True)
            assert r.stdout.strip() == ns, (proc.pid, r.stdout, r.stderr)
        r = subprocess.run(["ip", "-n", NETNS[1], "-s", "link", "show", VETH[1]],
                           capture_output=True, text=True, check=True)
        rx = int(r.stdout.split("RX:")[1].splitlines()[1].split()[0])
        assert rx > 100000, "only %d bytes came over the veth" % rx
    finally:
        sub.stop()


@case("over veth: a graceful restart, Cyclone and Fast DDS readers", "netns")
def t_netns_restart(s):
    t_restart(s, NETNS[1])


@case("over veth: late joiners, Cyclone and Fast DDS readers", "netns")
def t_netns_late_history(s):
    t_late_history(s, NETNS[1])


class LateLink(Netns):
    def __init__(self):
        Netns.__init__(self, carrier_late=True)


@case("a link that gets carrier after the bridge started carries its topics", "latelink")
def t_late_link(s):
    assert wait_for(lambda: "parts published" in s.stack.bridge.log(), 15, 0.1), \
        s.stack.bridge.log()
    r = subprocess.run(["ip", "-n", NETNS[0], "link", "show", VETH[0]],
                       capture_output=True, text=True, check=True)
    assert "NO-CARRIER" in r.stdout, r.stdout
    time.sleep(1.0)
    # the robot is switched on; the bridge's end gets carrier, then its
    # address
    netns_run("ip", "-n", NETNS[1], "link", "set", VETH[1], "up")
    assert wait_for(lambda: "NO-CARRIER" not in subprocess.run(
        ["ip", "-n", NETNS[0], "link", "show", VETH[0]], capture_output=True, text=True).stdout, 5)
    netns_run("ip", "-n", NETNS[0], "addr", "add", "10.217.0.1/24", "dev", VETH[0])
    t = time.monotonic()
    sub = Sub(s.dir, netns=NETNS[1])
    try:
        for part in PARTS:
            assert flowing(sub, part, 0, 20, 20), \
                "%s: nothing 20 s after carrier: %s" % (part, s.stack.bridge.log())
        first = sub.stamps("default", values_topic(PARTS[0]))[0][0]
        figure("late link: the first sample across it %.3f s after its address" % (first - t))
        assert "network changed" in s.stack.bridge.log(), s.stack.bridge.log()
        assert flowing(sub, PARTS[0], 0, 10, 5) and sub.samples("sensor", values_topic(PARTS[0]))
    finally:
        sub.stop()


SESSIONS = {"demo": Demo, "faults": Faults, "silent": Silent, "netns": Netns,
            "latelink": LateLink}


def main():
    glob = sys.argv[1] if len(sys.argv) > 1 else "*"
    cases = [c for c in CASES if fnmatch.fnmatch(c[0], glob)]
    print("1..%d" % len(cases), flush=True)
    n = 0
    for sname, cls in SESSIONS.items():
        mine = [c for c in cases if c[1] == sname]
        if not mine:
            continue
        if issubclass(cls, Netns) and (os.geteuid() != 0 or not shutil.which("ip")):
            for name, _, _ in mine:
                n += 1
                print("ok %d - %s # SKIP needs root and ip(8)" % (n, name), flush=True)
            continue
        sess = cls.__new__(cls)
        sess.stack = None
        sess.dir = None
        try:
            sess.__init__()
            why = None
        except Exception:
            why = traceback.format_exc()
            try:
                sess.close()
            except Exception:
                traceback.print_exc()
            sess = None
        for name, _, fn in mine:
            n += 1
            if sess is None:
                print("not ok %d - %s" % (n, name))
                print("# [during %s setup]\n# %s" % (sname, why.replace("\n", "\n# ")), flush=True)
                continue
            try:
                fn(sess)
                print("ok %d - %s" % (n, name), flush=True)
            except Skip as e:
                print("ok %d - %s # SKIP %s" % (n, name, e), flush=True)
            except Exception:
                print("not ok %d - %s" % (n, name))
                print("# " + traceback.format_exc().replace("\n", "\n# "), flush=True)
        if sess is not None:
            try:
                sess.close()
            except Exception:
                traceback.print_exc()


if __name__ == "__main__":
    main()
