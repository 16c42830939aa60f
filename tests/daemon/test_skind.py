#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Integration tests of skind on ring files: its socket, shm, limits, signals.

Run by tests/daemon/run, which builds the programs (ASan + UBSan) and
passes their paths in the environment: SKIND, RINGFEED, SHMCHECK, SHMWATCH,
FOLLOWCHECK, SKINCTL, SKIN_SOURCE_ROOT.  Prints TAP: one "ok N - name" or
"not ok N - name" per case, and "ok N - name # SKIP why" for a case that
cannot run here (it raises Skip): counted as skipped, not passed, by
tests/daemon/run.  Every case runs against real processes: ringfeed writes ring files
with the driver's own writer, skind reads them, the clients are real
sockets (and the Python package of clients/python).

Usage: test_skind.py [GLOB]     only the cases whose name matches
"""

import fnmatch
import grp
import json
import mmap
import os
import pty
import random
import re
import select
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import xml.etree.ElementTree as ET

import numpy as np

SRC = os.environ.get("SKIN_SOURCE_ROOT",
                     os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# the package of this tree, never an installed one
sys.path.insert(0, os.path.join(SRC, "clients", "python"))
import skin  # noqa: E402

SKIND = os.environ.get("SKIND", os.path.join(SRC, "build/meson/daemon/skind"))
RINGFEED = os.environ.get("RINGFEED", os.path.join(SRC, "build/meson/tests/daemon/ringfeed"))
SHMCHECK = os.environ.get("SHMCHECK", os.path.join(SRC, "build/meson/tests/daemon/shmcheck"))
SHMWATCH = os.environ.get("SHMWATCH", os.path.join(SRC, "build/meson/tests/daemon/shmwatch"))
FOLLOWCHECK = os.environ.get("FOLLOWCHECK", os.path.join(SRC, "build/meson/tests/daemon/followcheck"))
SKINCTL = os.environ.get("SKINCTL", os.path.join(SRC, "build/meson/tools/skinctl/skinctl"))

CONFIG = """\
[skind]
period_ms = 20
calibration_s = {cal}
max_neighbor_dist_m = 0.0065
add_threshold = 7

[bus can0]
[bus can1]

[part pad]
layout = none
geometry = {src}/etc/examples/gripper-pad.urdf
geometry_format = urdf
sensor = pad
patches = can0:1

[part left_forearm]
skin_part = left_forearm
layout = forearm_v2
geometry = {src}/tests/data/icub/positions/left_forearm_V2.txt
patches = can1:13 can1:12
"""

# ring files: the pad on can0:1, the forearm's two boards on can1
PATCHES = ["pad:can0:1", "lf0:can1:13", "lf1:can1:12"]


def wait_for(pred, timeout=5.0, step=0.05):
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > end:
            return v
        time.sleep(step)


class Feed:
    """ringfeed: ring files written with the driver's writer."""

    def __init__(self, rings, patches=PATCHES):
        self.p = subprocess.Popen([RINGFEED, rings] + patches, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        assert self.p.stdout.readline().strip() == "ready"

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            r = self.p.stdout.readline().strip()
            if r == "ok":
                return out
            if not r or r.startswith("error"):
                raise RuntimeError("ringfeed: %s: %s" % (line, r))
            out.append(r)

    def stop(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            pass
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def become(uid, gid, groups=()):
    """In a child forked by a test running as root: that user and group,
    with @groups as its only supplementary groups."""
    os.setgroups(list(groups))
    os.setgid(gid)
    os.setuid(uid)


class Daemon:
    """skind.  side=NAME: a second one beside the suite's, with its own
    directory (socket, shm, state) under the test directory; user=(uid,
    gid): run as that user (the test runs as root); nofile: its
    RLIMIT_NOFILE; shm: another path for its shm object."""

    def __init__(self, env, extra=(), config=None, cal=0.5, side=None, user=None,
                 nofile=None, shm=None):
        self.env = env
        self.dir = env.dir
        if side:
            self.dir = os.path.join(env.dir, side)
            for sub in ("", "run", "state"):
                os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
                if user:
                    os.chown(os.path.join(self.dir, sub), user[0], user[1])
        self.sock = os.path.join(self.dir, "run", "skind.sock")
        self.shm = shm or os.path.join(self.dir, "run", "skind.shm")
        self.config = config or os.path.join(self.dir, "skind.conf")
        if not config:
            with open(self.config, "w") as f:
                f.write(CONFIG.format(src=SRC, cal=cal))
        self.log_path = os.path.join(self.dir, "skind.%d.log" % env.next_log())
        self.args = [SKIND, "-c", self.config, "-r", env.rings, "-s", self.sock,
                     "--shm", self.shm, "--state-dir", os.path.join(self.dir, "state"),
                     "--no-create-patches", "-v"] + list(extra)
        self.logf = open(self.log_path, "w")

        def child():
            if nofile:
                import resource
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
            if user:
                become(user[0], user[1])
        self.p = subprocess.Popen(self.args, stdout=self.logf, stderr=subprocess.STDOUT,
                                  preexec_fn=child if (user or nofile) else None,
                                  env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"))
        if not wait_for(lambda: os.path.exists(self.sock) or self.p.poll() is not None, 10):
            raise RuntimeError("skind did not start: " + self.log())
        if self.p.poll() is not None:
            raise RuntimeError("skind exited %d: %s" % (self.p.returncode, self.log()))

    def log(self):
        if not self.logf.closed:
            self.logf.flush()
        with open(self.log_path) as f:
            return f.read()

    def client(self, timeout=10):
        return skin.Client(self.sock, timeout=timeout)

    def status(self):
        with self.client() as c:
            return skin.parse_event(c.command("status")[0])

    def parts(self):
        with self.client() as c:
            return [skin.parse_event(l) for l in c.command("parts")]

    def ready(self, calibrated=2):
        def ok():
            try:
                s = self.status()
            except skin.NotRunning:
                return False    # a dead skind's socket file, ours not bound yet
            return s["attached"] == s["patches"] and int(s["calibrated"]) >= calibrated
        if not wait_for(ok, 10):
            raise RuntimeError("skind not ready: %s" % self.status())

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.p.poll() is None:
            self.p.send_signal(sig)
            try:
                self.p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                self.logf.close()
                return None
        self.logf.close()
        return self.p.returncode


class Env:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="skind-test.")
        os.chmod(self.dir, 0o755)
        self.rings = os.path.join(self.dir, "rings")
        for d in ("rings", "run", "state"):
            os.mkdir(os.path.join(self.dir, d))
        self.logs = 0
        self.feed = Feed(self.rings)
        self.daemon = None

    def next_log(self):
        self.logs += 1
        return self.logs

    def start(self, *a, **kw):
        self.daemon = Daemon(self, *a, **kw)
        return self.daemon

    def close(self):
        if self.daemon:
            self.daemon.stop(signal.SIGKILL)
        self.feed.stop()


def contacts_of(client, part):
    ev = skin.parse_event(client.command("contacts " + part)[0])
    return sorted(sorted(c.taxels.tolist()) for c in ev["contacts"])


def expect_contacts(d, part, want, timeout=5):
    with d.client() as c:
        got = wait_for(lambda: contacts_of(c, part) == want and contacts_of(c, part), timeout)
        assert got == want, "contacts of %s: want %s, got %s" % (part, want, contacts_of(c, part))


CASES = []


class Skip(Exception):
    """This case cannot run here; the message says why."""


def case(name):
    def reg(fn):
        CASES.append((name, fn))
        return fn
    return reg


# --- the protocol -------------------------------------------------------------

@case("starts, attaches every ring file, calibrates every part")
def t_start(env):
    d = env.daemon
    s = d.status()
    assert s["parts"] == 2 and s["patches"] == 3 and s["attached"] == 3, s
    assert s["calibrated"] == 2, s
    parts = {p["name"]: p for p in d.parts() if p["type"] == "part"}
    assert parts["pad"]["state"] == "running" and int(parts["pad"]["samples"]) > 0
    assert parts["left_forearm"]["taxels"] == 384


@case("help names every command of the protocol")
def t_help(env):
    with env.daemon.client() as c:
        lines = c.command("help")
    names = {l.split()[1] for l in lines}
    for cmd in ("help", "status", "buses", "parts", "contacts", "taxels", "thresholds", "subscribe",
                "calibrate", "get", "set", "format", "shm"):
        assert cmd in names, (cmd, names)


@case("a bad command gets one error line and the connection goes on")
def t_bad_command(env):
    with env.daemon.client() as c:
        c.send("frobnicate now")
        c.send("contacts nosuchpart")
        c.send("subscribe contacts")
        c.send("status")
        lines = [c.read_line() for _ in range(5)]
    assert lines[0].startswith("error unknown-command "), lines
    assert lines[1].startswith("error no-such-part "), lines
    assert lines[2].startswith("error usage "), lines
    assert lines[3].startswith("status ") and lines[4] == "ok", lines
    # the same errors in JSON, byte for byte the same words
    with env.daemon.client() as c:
        assert c.command("format json") == []
        for cmd, bottle in zip(("frobnicate now", "contacts nosuchpart", "subscribe contacts"),
                               lines):
            c.send(cmd)
            line = c.read_line()
            code, msg = bottle.split(" ", 2)[1:]
            assert line == '{"type":"error","code":"%s","message":"%s"}' % (code, msg), (line, bottle)


@case("contacts match the ground truth (one board)")
def t_contacts_pad(env):
    d = env.daemon
    env.feed.cmd("press pad 60 5 6")
    expect_contacts(d, "pad", [[5, 6]])
    env.feed.cmd("release pad")
    env.feed.cmd("press pad 60 0 1 15")
    expect_contacts(d, "pad", [[0, 1], [15]])
    env.feed.cmd("release pad")
    expect_contacts(d, "pad", [])


@case("contacts match the ground truth (two boards of one part)")
def t_contacts_forearm(env):
    d = env.daemon
    env.feed.cmd("press lf0 60 0")
    env.feed.cmd("press lf1 60 0")
    expect_contacts(d, "left_forearm", [[0], [192]])
    env.feed.cmd("release lf0")
    env.feed.cmd("release lf1")
    expect_contacts(d, "left_forearm", [])


@case("json format: every line is a JSON object, contacts as in bottle")
def t_json(env):
    env.feed.cmd("press pad 60 9 10")
    expect_contacts(env.daemon, "pad", [[9, 10]])
    with env.daemon.client() as c:
        c.command("format json")
        for cmd in ("status", "parts", "contacts pad", "get"):
            c.send(cmd)
            while True:
                obj = json.loads(c.read_line())
                if obj["type"] in ("ok", "error"):
                    assert obj["type"] == "ok", obj
                    break
                if obj["type"] == "contacts" and obj["part"] == "pad":
                    assert [sorted(x["taxels"]) for x in obj["contacts"]] == [[9, 10]], obj
        c.send("bogus")
        err = json.loads(c.read_line())
        assert err["type"] == "error" and err["code"] == "unknown-command", err
    env.feed.cmd("release pad")


HAND_CONFIG = """\
[skind]
period_ms = 20
calibration_s = 0.5
add_threshold = 7

[bus can0]

[part left_hand]
skin_part = left_hand
layout = hand_v2_1
geometry = {src}/tests/data/icub/positions/left_hand_V2_1.txt
patches = can0:1
"""


@case("a contact without a position: NaN in shm, nan in bottle, null in JSON")
def t_contact_no_position(env):
    # the hand's fingertips have no position (all-zero rows): slots 3 and
    # 5 of the index fingertip make one contact with nowhere to be
    # (include/skin/contact.h); every output says so the same way
    conf = os.path.join(env.dir, "hand.conf")
    with open(conf, "w") as f:
        f.write(HAND_CONFIG.format(src=SRC))
    d = Daemon(env, config=conf, side="hand")
    try:
        d.ready(calibrated=1)
        env.feed.cmd("press pad 60 3 5")
        expect_contacts(d, "left_hand", [[3, 5]])
        with d.client() as c:
            bottle = skin.parse_event(c.command("contacts left_hand")[0])["contacts"]
            c.command("format json")
            obj = json.loads(c.command("contacts left_hand")[0])
        shm = skin.Shm(d.shm)
        try:
            mapped = shm.snapshot("left_hand").contacts
        finally:
            shm.close()
        assert len(bottle) == len(obj["contacts"]) == len(mapped) == 1
        for name in ("cop", "geo", "normal"):
            assert np.isnan(getattr(mapped[0], name)).all(), ("shm", name, getattr(mapped[0], name))
            assert np.isnan(getattr(bottle[0], name)).all(), ("bottle", name, getattr(bottle[0], name))
            assert obj["contacts"][0][name] == [None] * 3, ("json", name, obj["contacts"][0][name])
        for name in ("force", "moment"):
            assert not getattr(mapped[0], name).any() and not getattr(bottle[0], name).any()
            assert obj["contacts"][0][name] == [0, 0, 0], ("json", name, obj["contacts"][0][name])
    finally:
        env.feed.cmd("release pad")
        d.stop()


@case("get and set processing parameters; bad values refused")
def t_params(env):
    with env.daemon.client() as c:
        names = [l.split()[1] for l in c.command("get")]
        assert "add_threshold" in names and "compensation_gain" in names, names
        assert c.command("get add_threshold") == ["param add_threshold 7"], c.command("get add_threshold")
        assert c.command("set add_threshold 9")[0].split()[2] in ("9", "9.0"), "set"
        assert c.command("get add_threshold")[0].split()[2] in ("9", "9.0")
        for bad, code in (("set nosuch 1", "unknown-param"), ("set add_threshold abc", "bad-value"),
                          ("get nosuch", "unknown-param"), ("set max_neighbor_dist_m 0.1", "read-only")):
            try:
                c.command(bad)
                raise AssertionError("accepted: " + bad)
            except skin.CommandError as e:
                assert e.code == code, (bad, e.line)
        c.command("set add_threshold 7")


@case("compat mode: every part once per [skind] period_ms, as skinManager's cycle; set compat switches")
def t_compat_cycle(env):
    # skinManager reads each part once per period whatever its boards'
    # rate (docs/PROCESSING.md, "skinManager's clock"): here a 50 ms
    # cycle over boards at 20 ms, where skind's own mode publishes a part
    # on every frame of any of its boards (the forearm has two)
    conf = os.path.join(env.dir, "compat.conf")
    with open(conf, "w") as f:
        f.write(CONFIG.format(src=SRC, cal=0.5).replace(
            "period_ms = 20\n", "period_ms = 50\ncompat = true\nbinarization = false\n", 1))
    d = Daemon(env, config=conf, side="compat")

    def rates():
        def samples():
            return {p["name"]: int(p["samples"]) for p in d.parts() if p["type"] == "part"}
        s0, t0 = samples(), time.monotonic()
        time.sleep(1.0)
        s1, t1 = samples(), time.monotonic()
        return {k: (s1[k] - s0[k]) / (t1 - t0) for k in s0}

    try:
        d.ready()
        r = rates()
        assert all(14 <= v <= 24 for v in r.values()), ("cycled at 20 Hz", r)
        with d.client() as c:
            # the calibration counts cycles: trunc(0.5 / 0.05) + 1
            assert c.command("get period_ms") == ["param period_ms 50"], c.command("get period_ms")
            c.command("set compat false")
        r = rates()
        assert r["pad"] >= 35 and r["left_forearm"] >= 70, ("per frame", r)
        with d.client() as c:
            c.command("set compat true")
            assert c.command("get period_ms") == ["param period_ms 50"], c.command("get period_ms")
        r = rates()
        assert all(14 <= v <= 24 for v in r.values()), ("cycled again", r)
        assert d.p.poll() is None
    finally:
        d.stop()


def saved_calibration(path, part):
    """lib/proc's own record of a part's calibration (skin_proc_save(),
    %.17g): {slot: (baseline, threshold)} and the part's kinds string."""
    cal, kinds, cur = {}, None, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "part":
                cur = w[1]
                if cur == part:
                    kinds = w[3]
            elif w[0] != "end" and cur == part and len(w) == 3 and w[0].isdigit():
                cal[int(w[0])] = (float(w[1]), float(w[2]))
    return cal, kinds


@case("thresholds: lib/proc's calibration of the feed, bottle and JSON; skinManager's rule")
def t_thresholds(env):
    d = env.daemon
    with d.client() as c:
        bottle = c.command("thresholds left_forearm")
        assert len(bottle) == 1 and bottle[0].startswith("thresholds left_forearm "), bottle[:1]
        ev = skin.parse_event(bottle[0])
        thr = ev["thresholds"]
        assert len(thr) == 384, len(thr)
        c.command("format json")
        j = json.loads(c.command("thresholds left_forearm")[0])
        assert j["type"] == "thresholds" and j["part"] == "left_forearm", j
        assert j["state"] == "running" and j["thresholds"] == thr.tolist(), (j["state"], j["thresholds"][:8])
        for bad, code in (("thresholds", "usage"), ("thresholds a b", "usage"),
                          ("thresholds nosuch", "no-such-part")):
            c.send(bad)
            o = json.loads(c.read_line())
            assert o["type"] == "error" and o["code"] == code, (bad, o)
    # shm (1.2) holds the same numbers as doubles: the socket's %.9g of them
    shm = skin.Shm(d.shm)
    try:
        snap = shm.snapshot("left_forearm")
        mapped = snap.thresholds
        assert shm.version_minor >= 3 and mapped is not None, shm.version_minor
        assert all(abs(a - b) <= 5e-9 * abs(a) for a, b in zip(mapped, thr)), (mapped[:8], thr[:8])
        assert len(mapped) == len(thr)
        base, cal_base = snap.baselines, snap.cal_baselines
    finally:
        shm.close()
    # the calibration skind saved is lib/proc's (skin_proc_save, %.17g): the
    # socket must give its thresholds slot for slot, 0 where no tactile taxel is
    cal, kinds = saved_calibration(os.path.join(d.dir, "state", "calibration"), "left_forearm")
    assert kinds and len(kinds) == 384 and len(cal) == kinds.count("t") == 240, (kinds, len(cal))
    for k in range(384):
        if k in cal:
            assert abs(thr[k] - cal[k][1]) <= 1e-7 * cal[k][1], (k, thr[k], cal[k])
        elif kinds[k] != "t":
            assert thr[k] == 0, (k, kinds[k], thr[k])
    # skinManager's rule on ringfeed's feed: v = 255 - raw is one of 13..17,
    # threshold = max(1, j - mean) with j the first value whose cumulative
    # count exceeds 95% of the samples, one of those: so threshold + the
    # calibration's mean is a whole 13..17.  The file holds each part's
    # baseline as it is when a part calibrates (skind saves every part
    # then), drift-compensated since its own calibration by a few
    # thousandths of a count (0.003 seen when the parts calibrate seconds
    # apart on a loaded host): whole within 0.02, where a wrong rule is off
    # by tenths.
    off = [(k, cal[k]) for k in cal
           if not (cal[k][1] == 1 or (abs(cal[k][1] + cal[k][0] - round(cal[k][1] + cal[k][0])) < 0.02
                                      and 13 <= round(cal[k][1] + cal[k][0]) <= 17))]
    assert not off, off[:4]
    # shm 1.3: the calibration's baselines are the file's (saved as that
    # calibration ends, drifted by thousandths since: within 0.02, as
    # above); the current ones, which drift compensation moves (by more
    # than a count after the cases before: 14.98 against 16.1 seen), stay
    # within ringfeed's values, v 13..17; 0 where no tactile taxel is, in
    # both
    assert base is not None and cal_base is not None and len(base) == len(cal_base) == 384
    moved = 0
    for k in range(384):
        if k in cal:
            assert 13 <= cal_base[k] <= 17 and abs(cal_base[k] - cal[k][0]) < 0.02, (k, cal_base[k], cal[k])
            assert 13 <= base[k] <= 17, (k, base[k], cal_base[k])
            moved += base[k] != cal_base[k]
        elif kinds[k] != "t":
            assert base[k] == 0 and cal_base[k] == 0, (k, kinds[k], base[k], cal_base[k])
    # the current ones are not the calibration's copied again: the feed's
    # noise has moved most of them since
    assert moved > len(cal) // 2, (moved, len(cal))
    # add_threshold is not in them (skinManager's get touch thr neither)
    with d.client() as c:
        c.command("set add_threshold 20")
        try:
            again = skin.parse_event(c.command("thresholds left_forearm")[0])["thresholds"]
        finally:
            c.command("set add_threshold 7")
    assert np.array_equal(again, thr), "thresholds moved with add_threshold"
    # before its first calibration a part has none: "()", not lib/proc's floor
    d2 = Daemon(env, side="uncalibrated", cal=30)
    try:
        with d2.client() as c:
            line = wait_for(lambda: c.command("thresholds pad")[0], 5)
            assert line.startswith("thresholds pad ") and line.endswith(" ()"), line
        shm = skin.Shm(d2.shm)
        try:
            snap = shm.snapshot("pad")
            assert snap.thresholds is None     # none yet, as "()"
            assert snap.cal_baselines is None and snap.baselines is not None
        finally:
            shm.close()
            assert d2.parts()[0]["state"] == "calibrating", d2.parts()[0]
    finally:
        d2.stop()


# --- taxel faults --------------------------------------------------------------

FAULTS_CONFIG = """\
[board]
period_ms = 50
[skind]
calibration_s = 0.5
persist_calibration = false
stuck_s = 2
saturated_s = 1
dead_s = 0.5
noisy_s = 2
[bus can1]
[part left_forearm]
skin_part = left_forearm
layout = forearm_v2
geometry = {src}/tests/data/icub/positions/left_forearm_V2.txt
patches = can1:13 can1:12
"""

# skinsim's faults, in real time from its start; skind calibrates first.
# can1:13 is the forearm's first board: triangle 10 is taxels 120..131
FAULTS_SCENARIO = """\
config {conf}
seed 3
duration 40s
at {t}s fault stuck left_forearm 40 for {d}s
at {t}s fault noisy left_forearm 50 amplitude 60 for {d}s
at {t}s fault saturate left_forearm 60 for {d}s
at {t}s fault dead can1:13 triangle 10 for {d}s
"""


def fault_events(c, part):
    """The `faults PART` reply as parsed events, the final line checked."""
    lines = c.command("faults " + part)
    return [skin.parse_event(l) for l in lines]


class FaultStack:
    """skinsim writing the forearm's two boards as ring files, in real time
    from its start (t0, CLOCK_MONOTONIC), under @scenario (its {t} the
    time the faults come, {d} how long they last), and a skind of its own
    on them (FAULTS_CONFIG), calibrated a second before the faults."""

    def __init__(self, env, name, scenario, t_fault, t_len=0, extra=()):
        top = os.path.join(env.dir, name)
        rings = os.path.join(top, "rings")
        os.makedirs(rings)
        conf = os.path.join(top, "skind.conf")
        scn = os.path.join(top, "faults.scn")
        with open(conf, "w") as f:
            f.write(FAULTS_CONFIG.format(src=SRC))
        with open(scn, "w") as f:
            f.write(scenario.format(conf=conf, t=t_fault, d=t_len))
        self.d = None
        self.t0 = time.monotonic_ns()
        self.sim = subprocess.Popen([SKINSIM, "--ring", rings, scn], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True)
        try:
            assert wait_for(lambda: len(os.listdir(rings)) == 2 or self.sim.poll() is not None,
                            5), \
                self.sim.stderr.read() if self.sim.poll() is not None else os.listdir(rings)
            self.d = Daemon(env, extra=["-r", rings] + list(extra), config=conf, side=name)
            self.d.ready(calibrated=1)
            assert self.elapsed() < t_fault - 1, \
                "skind took %.1f s to calibrate: the faults come at %d s" % (
                    self.elapsed(), t_fault)
        except BaseException:
            self.stop()
            raise

    def elapsed(self):
        return (time.monotonic_ns() - self.t0) / 1e9

    def stop(self):
        if self.d:
            self.d.stop()
        self.sim.kill()
        self.sim.wait()


@case("faults: skinsim's stuck, noisy, saturated and dead taxels, named in `faults` and shm's flags, and cleared")
def t_faults(env):
    t_fault, t_len = 6, 8
    st = FaultStack(env, "faults", FAULTS_SCENARIO, t_fault, t_len)
    d, t0 = st.d, st.t0
    try:
        shm = skin.Shm(d.shm)
        assert shm.version_minor >= 4, shm.version_minor
        with d.client() as c:
            # healthy: no line, both forms of the arguments checked
            assert fault_events(c, "left_forearm") == []
            assert c.command("faults") == []
            lines = c.command("help")
            assert any(l.startswith("help faults [PART] -- ") for l in lines), lines
            for bad, code in (("faults nosuch", "no-such-part"), ("faults a b", "usage")):
                c.send(bad)
                assert c.read_line().startswith("error %s " % code), bad
            snap = shm.snapshot("left_forearm")
            tactile = snap.flags & skin.TaxelFlag.TACTILE
            assert not (snap.flags & skin.TaxelFlag.FAULTS).any(), snap.flags
            dead = [k for k in range(120, 132) if tactile[k]]
            assert len(dead) >= 8, dead
            want = {40: ["stuck"], 50: ["noisy"], 60: ["saturated", "diagnostics"]}
            want.update({k: ["dead"] for k in dead})
            bits = {"stuck": skin.TaxelFlag.STUCK, "noisy": skin.TaxelFlag.NOISY,
                    "saturated": skin.TaxelFlag.SATURATED, "dead": skin.TaxelFlag.DEAD,
                    "diagnostics": skin.TaxelFlag.DIAG}
            seen = {}

            def all_flagged():
                evs = fault_events(c, "left_forearm")
                seen["socket"] = {e["taxel"]: e["flags"] for e in evs}
                flags = shm.snapshot("left_forearm").flags
                seen["shm"] = {k: int(flags[k]) for k in np.flatnonzero(
                    flags & skin.TaxelFlag.FAULTS)}
                seen["events"] = evs
                return seen["socket"] == want and seen["shm"] == {
                    k: int(flags[k] & ~skin.TaxelFlag.FAULTS) | sum(bits[n] for n in v)
                    for k, v in want.items()}
            # stuck after stuck_s (2 s), noisy within noisy_s (2 s): all
            # four while every fault lasts (8 s)
            assert wait_for(all_flagged, t_fault + 4 - (time.monotonic_ns() - t0) / 1e9, 0.2), \
                (seen.get("socket"), seen.get("shm"))
            # the journal names the first few
            assert wait_for(lambda: "faulty now: taxel 40 stuck, 50 noisy, 60 saturated," in
                            d.log(), 2), d.log()[-2000:]
            now = time.monotonic_ns()
            for e in seen["events"]:
                assert e["part"] == "left_forearm", e
                # raised after the fault began, by skinsim's clock (frames
                # carry CLOCK_MONOTONIC), and not in the future
                assert t0 + (t_fault - 1) * 10**9 < e["since_ns"] <= now, (e, t0, now)
                assert 0 < e["baseline"] < 255, e
            byt = {e["taxel"]: e for e in seen["events"]}
            assert byt[60]["raw"] == 0, byt[60]
            # the dead triangle's and the stuck taxel's raw values stay
            # what they were: the socket says the part's newest raw value
            assert byt[40]["raw"] == int(shm.snapshot("left_forearm").raw[40]), byt[40]
            # JSON: the same lines, flags as a list
            c.command("format json")
            js = [json.loads(l) for l in c.command("faults left_forearm")]
            c.command("format bottle")
            assert {j["taxel"]: j["flags"] for j in js if j["type"] == "fault"} == want, js
            for j in js:
                assert set(j) == {"type", "part", "taxel", "flags", "since_ns", "raw",
                                  "baseline"} and j["type"] == "fault", j
            # every part's list: this one part's here, bottle and JSON
            # lines the same events
            assert {e["taxel"]: e["flags"] for e in map(skin.parse_event, c.command("faults"))} \
                == want
            # (the noisy taxel's raw value moves from one publication to
            # the next; the others' do not, nor does a faulty baseline)
            def same(e):
                return {k: v for k, v in e.items() if k != "raw" or e["taxel"] != 50}
            assert sorted(map(same, map(skin.parse_event, c.command("faults left_forearm"))),
                          key=lambda e: e["taxel"]) == sorted(map(same, js),
                                                              key=lambda e: e["taxel"])
            # faulty taxels are never touched
            assert not (shm.snapshot("left_forearm").flags[list(want)] &
                        skin.TaxelFlag.TOUCHED).any()
            assert (time.monotonic_ns() - t0) / 1e9 < t_fault + t_len, "checked too late"
            # the faults end at t_fault + 8 s: every flag clears (noisy
            # within noisy_s), in both the socket's list and shm
            end = t_fault + t_len + 2 + 3 - (time.monotonic_ns() - t0) / 1e9

            def all_clear():
                seen["socket"] = fault_events(c, "left_forearm")
                seen["shm"] = np.flatnonzero(shm.snapshot("left_forearm").flags &
                                             skin.TaxelFlag.FAULTS).tolist()
                return not seen["socket"] and not seen["shm"]
            assert wait_for(all_clear, end, 0.2), (seen["socket"], seen["shm"])
            assert (time.monotonic_ns() - t0) / 1e9 > t_fault + t_len, "cleared before the faults ended"
        shm.close()
    finally:
        st.stop()


@case("faults: a reply bigger than the connection's queue lists what fits, then error truncated")
def t_faults_truncated(env):
    # 15 of the first board's 16 triangles silent: 150 dead taxels, more
    # lines than --queue-bytes 4096 leaves a reply (half of it)
    scenario = "config {conf}\nseed 3\nduration 30s\n" + "".join(
        "at {t}s fault dead can1:13 triangle %d\n" % tri for tri in range(15))
    st = FaultStack(env, "faults-cut", scenario, 4, extra=["--queue-bytes", "4096"])
    try:
        with st.d.client() as c:
            tactile = skin.Shm(st.d.shm).snapshot("left_forearm").flags & \
                skin.TaxelFlag.TACTILE
            dead = [k for k in range(180) if tactile[k]]
            for fmt in ("bottle", "json"):
                c.command("format " + fmt)
                seen = {}

                def cut():
                    c.send("faults left_forearm")
                    lines = []
                    while True:
                        line = c.read_line()
                        ev = skin.parse_event(line)
                        if ev["type"] in ("ok", "error"):
                            if not line.startswith("{"):    # error CODE TEXT
                                w = line.split(" ", 2) + ["", ""]
                                ev = {"type": w[0], "code": w[1], "message": w[2]}
                            seen["final"], seen["lines"] = ev, lines
                            return ev["type"] == "error"
                        lines.append(ev)
                assert wait_for(cut, 10, 0.2), seen
                final, lines = seen["final"], seen["lines"]
                # the first ones, in order, each whole; the count said
                assert final["code"] == "truncated", final
                assert "%d faulty taxels, %d listed" % (len(dead), len(lines)) in \
                    final["message"], (final, len(dead), len(lines))
                assert 10 < len(lines) < len(dead), len(lines)
                assert [e["taxel"] for e in lines] == dead[:len(lines)], lines
                assert all(e["flags"] == ["dead"] for e in lines), lines
            # the connection goes on
            c.command("format bottle")
            assert skin.parse_event(c.command("status")[0])["parts"] == 1
    finally:
        st.stop()


@case("subscriptions: every publication, or at most RATE per second")
def t_subscribe(env):
    with env.daemon.client() as a, env.daemon.client() as b:
        a.command("subscribe contacts pad 10")
        b.command("subscribe taxels pad")
        t0 = time.monotonic()
        na = nb = 0
        a.sock.settimeout(0.05)
        b.sock.settimeout(0.05)
        while time.monotonic() - t0 < 2.0:
            for cl in (a, b):
                try:
                    line = cl.read_line()
                except socket.timeout:
                    continue
                ev = skin.parse_event(line)
                if cl is a:
                    assert ev["type"] == "contacts" and ev["part"] == "pad", line
                    na += 1
                else:
                    assert ev["type"] == "taxels" and len(ev["values"]) == 192, line[:80]
                    nb += 1
        # rate 10 for 2 s: 21 at most; the part publishes at 50 Hz
        assert 10 <= na <= 21, na
        assert nb > na, (na, nb)
        a.command("unsubscribe")


@case("subscribe samples: a short line per publication, bottle and JSON")
def t_subscribe_samples(env):
    with env.daemon.client() as a, env.daemon.client() as b:
        a.send("subscribe samples pad")
        assert a.read_line() == "ok subscribed samples pad every"
        b.command("format json")
        b.send("subscribe samples all 10")
        assert json.loads(b.read_line()) == {"type": "ok", "message": "subscribed samples all 10"}
        a.sock.settimeout(0.05)
        b.sock.settimeout(0.05)
        got_a, got_b = [], []
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.0:
            for cl, got in ((a, got_a), (b, got_b)):
                try:
                    got.append(cl.read_line())
                except socket.timeout:
                    pass
        a.sock.settimeout(10)
        b.sock.settimeout(10)
        # bottle: "sample PART SAMPLES FRAME_TS_NS PUBLISH_NS", nothing more
        last = 0
        for line in got_a:
            w = line.split(" ")
            assert len(w) == 5 and w[0] == "sample" and w[1] == "pad", line
            ev = skin.parse_event(line)
            assert ev["sample"] > last and 0 < ev["frame_ts_ns"] <= ev["publish_ns"], line
            last = ev["sample"]
        # every publication: the part publishes at 50 Hz
        assert len(got_a) >= 60, len(got_a)
        # JSON, both parts, at most 10 a second each (21 in 2 s)
        objs = [json.loads(l) for l in got_b]
        for o in objs:
            assert set(o) == {"type", "part", "sample", "frame_ts_ns", "publish_ns", "state"}, o
            assert o["type"] == "sample" and o["state"] == "running", o
        for part in ("pad", "left_forearm"):
            n = len([o for o in objs if o["part"] == part])
            assert 10 <= n <= 21, (part, n)
        a.send("unsubscribe samples")
        while True:
            line = a.read_line()
            if line.startswith("ok "):
                break
        assert line == "ok unsubscribed 1", line
        b.send("unsubscribe samples pad")
        while True:
            o = json.loads(b.read_line())
            if o["type"] == "ok":
                break
        assert o["message"] == "unsubscribed 1", o
        b.send("subscribe samples")
        while True:
            o = json.loads(b.read_line())
            if o["type"] in ("ok", "error"):
                break
        assert o["type"] == "error" and o["code"] == "usage" and "samples" in o["message"], o
        lines = a.command("help")
        assert any(l.startswith("help subscribe contacts|taxels|samples ") for l in lines), lines


@case("shared memory by name agrees with the socket")
def t_shm_name(env):
    d = env.daemon
    env.feed.cmd("press pad 60 2 3")
    expect_contacts(d, "pad", [[2, 3]])
    shm = skin.Shm(d.shm)
    try:
        assert [p.name for p in shm.parts] == ["pad", "left_forearm"]
        s = shm.snapshot("pad")
        assert s.touched.tolist() == [2, 3], s.touched
        assert [sorted(c.taxels.tolist()) for c in s.contacts] == [[2, 3]], s.contacts
        assert s.samples > 0 and s.frame_ts_ns > 0 and s.publish_ns >= s.frame_ts_ns
        assert s.state & 3 == 3, s.state     # attached, calibrated
        assert not shm.retired()
    finally:
        shm.close()
    env.feed.cmd("release pad")


@case("shared memory through the socket: a read-only descriptor (SCM_RIGHTS)")
def t_shm_fd(env):
    with env.daemon.client() as c:
        lines = c.command("shm")
        assert lines[0].startswith("shm " + env.daemon.shm + " size "), lines
        assert len(c.fds) == 1, c.fds
        fd = c.fds.pop()
        import fcntl
        assert fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
        size = os.fstat(fd).st_size
        try:
            mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            raise AssertionError("a writable mapping of the passed fd was allowed")
        except PermissionError:
            pass
        shm = skin.Shm(fd=fd)
        assert shm.n_parts == 2 and shm.snapshot("pad").samples > 0
        shm.close()


def recv_fds(sock, fds):
    """One recvmsg: its bytes; the descriptors it carried appended to fds."""
    import array
    data, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            a = array.array("i")
            a.frombytes(payload[: len(payload) - len(payload) % 4])
            fds.extend(a)
    return data


def shm_lines(data):
    """How many `shm` lines data holds (or begins)."""
    return sum(1 for line in data.split(b"\n") if line.startswith(b"shm "))


def shm_replies(sock, n, timeout=10):
    """Read n `shm` replies with recvmsg: [(shm lines so far, descriptors
    it carried)] per recvmsg, and the descriptors."""
    sock.settimeout(timeout)
    data, reads, fds = b"", [], []
    while data.count(b"ok\n") + data.count(b"error ") < n:
        before = len(fds)
        chunk = recv_fds(sock, fds)
        if not chunk:
            raise EOFError("EOF after %r" % data[-200:])
        data += chunk
        reads.append((shm_lines(data), len(fds) - before))
    return data, reads, fds


@case("pipelined shm: one descriptor per reply, each with its own reply")
def t_shm_pipelined(env):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(env.daemon.sock)
    try:
        s.sendall(b"shm\nshm\nshm\n")
        data, reads, fds = shm_replies(s, 3)
        try:
            assert shm_lines(data) == 3 and data.count(b"ok\n") == 3, data
            assert len(fds) == 3, "%d descriptors for 3 replies: %r" % (len(fds), reads)
            # none before its reply's first byte, never two in one read
            k = 0
            for lines, n in reads:
                assert n <= 1, reads
                k += n
                assert k <= lines, ("a descriptor before its reply", reads)
            for fd in fds:
                assert os.fstat(fd).st_size > 0
        finally:
            for fd in fds:
                os.close(fd)
    finally:
        s.close()


def as_uid(uid, fn):
    """fn() in a child running as uid (gid the same, no groups); its
    JSON-able result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            become(uid, uid)
            try:
                out = {"ok": fn()}
            except Exception as e:
                out = {"error": "%s: %s" % (type(e).__name__, e)}
            os.write(w, json.dumps(out).encode())
        finally:
            os._exit(0)
    os.close(w)
    out = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(r)
    return json.loads(out.decode()) if out else {"error": "the child said nothing"}


@case("hostile: shm floods that never read; others still get their descriptor")
def t_shm_flood(env):
    if os.geteuid() != 0:
        raise Skip("needs root to run skind and a client as other users")
    # skind unprivileged, as under systemd, with little RLIMIT_NOFILE: the
    # kernel refuses descriptors in flight past it (ETOOMANYREFS)
    d = Daemon(env, side="flood", user=(65534, 65534), nofile=256)
    try:
        assert wait_for(lambda: int(d.status()["attached"]) == 3, 10), d.log()[-2000:]
        os.chmod(d.sock, 0o666)
        bad = []
        for _ in range(5):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(d.sock)
            s.sendall(b"shm\n" * 1000)      # and never reads
            bad.append(s)

        def well_behaved():
            served, failed = 0, []
            end = time.monotonic() + 6
            while time.monotonic() < end:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(d.sock)
                    s.sendall(b"shm\n")
                    data, _, fds = shm_replies(s, 1, timeout=5)
                    for fd in fds:
                        os.close(fd)
                    if data.startswith(b"shm ") and len(fds) == 1:
                        served += 1
                    else:
                        failed.append((data[:120].decode(errors="replace"), len(fds)))
                except (OSError, EOFError) as e:
                    failed.append(str(e)[:120])
                finally:
                    s.close()
                time.sleep(0.2)
            return served, failed
        out = as_uid(1, well_behaved)
        assert "ok" in out, out
        served, failed = out["ok"]
        st = d.status()
        print("# well-behaved shm: %d served, %d not; skind: shm_refused %s" %
              (served, len(failed), st.get("shm_refused")))
        assert served >= 10 and not failed, (served, failed[:5])
        assert int(st["shm_refused"]) > 0, st
        # the flooders are told, not dropped
        bad[0].settimeout(5)
        text = b""
        while b"error too-many-descriptors" not in text:
            chunk = recv_fds(bad[0], [])
            assert chunk, text[-300:]
            text += chunk
        for s in bad:
            s.close()
    finally:
        assert d.stop() == 0, d.log()[-3000:]


@case("hostile: the kernel refuses skind a descriptor (ETOOMANYREFS); the client is told, then served")
def t_shm_etoomanyrefs(env):
    if os.geteuid() != 0:
        raise Skip("needs root to run skind and another process as its user")
    import array
    import resource
    # Another process of skind's user puts more descriptors in flight than
    # skind's RLIMIT_NOFILE and never lets them be read: the kernel counts
    # them per user (user->unix_inflight) and refuses skind's next sendmsg()
    # of a descriptor with ETOOMANYREFS, while skind's own bounds (per
    # client, per user, in all) are nowhere near.
    d = Daemon(env, side="refs", user=(65534, 65534), nofile=256)
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.close(go_w)
            # the kernel checks the sender's own limit: the hog's is higher
            resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
            become(65534, 65534)
            a, b = socket.socketpair()
            fds = array.array("i", [os.open("/dev/null", os.O_RDONLY) for _ in range(200)])
            for _ in range(3):          # 600 in flight, unread
                a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
            os.write(ready_w, b"r")
            os.read(go_r, 1)            # until told: then all of it is freed
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(go_r)
    try:
        assert os.read(ready_r, 1) == b"r", "the process holding descriptors did not start"
        assert wait_for(lambda: int(d.status()["attached"]) == 3, 10), d.log()[-2000:]
        before = int(d.status()["shm_refused"])

        def one_shm():
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(d.sock)
                s.sendall(b"shm\nstatus\n")
                data, _, fds = shm_replies(s, 2, timeout=5)
                for fd in fds:
                    os.close(fd)
                return data, len(fds)

        data, n = one_shm()
        # the reply at the head of the queue became the error; the
        # connection goes on (the status after it is answered)
        assert data.startswith(b"error too-many-descriptors "), data[:200]
        assert n == 0, n
        assert b"\nstatus " in data and data.endswith(b"ok\n"), data[-200:]
        assert int(d.status()["shm_refused"]) == before + 1, d.status()
        os.write(go_w, b"g")
        os.waitpid(pid, 0)
        pid = 0
        # the budget back: the same request is served, with its descriptor
        # (the kernel frees the hog's descriptors when its sockets close)
        assert wait_for(lambda: one_shm()[1] == 1, 5), one_shm()
    finally:
        if pid:
            os.write(go_w, b"g")
            os.waitpid(pid, 0)
        os.close(go_w)
        os.close(ready_r)
        assert d.stop() == 0, d.log()[-3000:]


@case("calibrate and set: refused without rights, allowed for the admin group")
def t_auth(env):
    if os.geteuid() != 0:
        raise Skip("needs root to connect as other users")
    d = env.daemon
    os.chmod(d.sock, 0o666)
    gid = grp.getgrnam("daemon").gr_gid

    def as_user(groups, cmd):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                become(65534, 65534, groups)
                with d.client() as c:
                    try:
                        c.command(cmd)
                        out = "ok"
                    except skin.CommandError as e:
                        out = e.code
                os.write(w, out.encode())
            finally:
                os._exit(0)
        os.close(w)
        out = os.read(r, 100).decode()
        os.waitpid(pid, 0)
        os.close(r)
        return out

    assert as_user([], "status") == "ok"
    assert as_user([], "calibrate pad") == "permission-denied"
    assert as_user([], "set add_threshold 8") == "permission-denied"
    # the admin group is the daemon's --admin-group (daemon), through SO_PEERGROUPS
    assert as_user([gid], "set add_threshold 7") == "ok"
    os.chmod(d.sock, 0o660)


# hostile text: quotes, backslashes, control bytes, bytes that are no UTF-8
HOSTILE = [b'a"b\\c', b'"}', b'\\', b'x\x01y\x1fz', b'\xff\xfe', b'h\xc3\xa4nd', b'\x7f']


class RawClient:
    """A socket that reads bytes: every line as skind sent it."""

    def __init__(self, path, timeout=10):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""

    def send(self, line):
        self.sock.sendall(line + b"\n")

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("skind closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def close(self):
        self.sock.close()


def json_sweep(d, names, live, bad_words):
    """Every command that writes JSON, with the daemon's part names (live:
    those attached, which publish and calibrate) and hostile words where a
    client's words go: each line must be a JSON object (strict UTF-8,
    json.loads).  Returns the lines that are not."""
    bad = []
    seen = set()
    c = RawClient(d.sock)

    def reply(cmd, until=None):
        c.send(cmd)
        end = time.monotonic() + 10
        while True:
            try:
                if time.monotonic() > end:
                    raise socket.timeout()
                raw = c.line()
            except socket.timeout:
                bad.append((cmd, b"(no reply that parsed within 10 s)"))
                return
            try:
                obj = json.loads(raw.decode("utf-8"))
                assert isinstance(obj, dict) and "type" in obj
            except (ValueError, AssertionError):
                bad.append((cmd, raw))
                continue
            seen.add(obj["type"])
            if until and until(obj):
                return
            if not until and obj["type"] in ("ok", "error"):
                return
    try:
        reply(b"format json")
        for cmd in (b"help", b"status", b"buses", b"parts", b"contacts", b"get", b"get add_threshold",
                    b"set add_threshold 7", b"shm", b"unsubscribe"):
            reply(cmd)
        for n in names:
            for cmd in (b"parts ", b"contacts ", b"taxels ", b"thresholds ",
                        b"subscribe contacts ", b"subscribe taxels ", b"unsubscribe all "):
                reply(cmd + n)
        # events: contacts and taxels of every part, then a calibration
        reply(b"subscribe contacts all 20")
        reply(b"subscribe taxels all 20")
        got = set()
        reply(b"status", until=lambda o: (o["type"] in ("contacts", "taxels") and
                                          got.add((o["type"], o["part"])) or
                                          len(got) >= 2 * len(live)))
        reply(b"unsubscribe")
        for n in live:
            reply(b"calibrate " + n)
            reply(b"status", until=lambda o: o["type"] in ("calibrated", "calibration-failed"))
        for w in bad_words:
            for cmd in (w, b"parts " + w, b"contacts " + w, b"taxels " + w,
                        b"thresholds " + w, b"subscribe contacts " + w, b"subscribe contacts all " + w,
                        b"unsubscribe contacts " + w, b"get " + w, b"set " + w + b" 1",
                        b"set add_threshold " + w, b"calibrate " + w, b"format " + w,
                        b"shm " + w):
                reply(cmd)
        reply(b"quit")
    finally:
        c.close()
    for t in ("ok", "error", "help", "status", "part", "patch", "contacts", "taxels",
              "thresholds", "param", "shm", "calibrated"):
        assert t in seen or bad, "the sweep saw no %s line: %s" % (t, sorted(seen))
    return bad


@case("JSON lines stay JSON whatever a name or a client's words hold")
def t_json_hostile(env):
    # a part name outside the charset: refused with file and line
    conf = CONFIG.format(src=SRC, cal=0.3).replace("[part pad]", '[part a"b\\c]')
    side = os.path.join(env.dir, "hostile")
    os.makedirs(side, exist_ok=True)
    path = os.path.join(side, "skind.conf")
    with open(path, "w") as f:
        f.write(conf)
    failures = []
    try:
        d = Daemon(env, config=path, side="hostile")
    except RuntimeError as e:
        log = str(e)
        assert "skind exited 1" in log, log
        assert re.search(r'skind\.conf:\d+:\d+: \[part a"b\\c\]: the name has a character outside',
                         log), log
    else:
        # accepted: show what it does to JSON, then fail
        try:
            wait_for(lambda: int(d.status()["calibrated"]) >= 2, 10)
            bad = json_sweep(d, [b'a"b\\c', b"left_forearm"], [b'a"b\\c', b"left_forearm"],
                             HOSTILE)
            failures.append("[part a\"b\\c] accepted; %d lines not JSON, e.g. %r"
                            % (len(bad), bad[:3]))
        finally:
            d.stop(signal.SIGKILL)
    # names at the charset's edges, a bus named with quotes and a backslash
    # (an interface name may hold them), a shm path with them, hostile
    # words from the client
    conf = CONFIG.format(src=SRC, cal=0.3)
    conf = conf.replace("[part pad]", "[part a234567890123456789012345678901]")
    conf = conf.replace("[part left_forearm]", "[part -L.f_0]")
    conf += '\n[bus c"a\\b]\n\n[part Z.z]\nlayout = hand_v2_1\npatches = c"a\\b:14\n'
    path = os.path.join(side, "edge.conf")
    with open(path, "w") as f:
        f.write(conf)
    d = Daemon(env, config=path, side="edge",
               shm=os.path.join(env.dir, "edge", "run", 'q"u\\ote.shm'))
    try:
        assert wait_for(lambda: int(d.status()["calibrated"]) >= 2, 10), d.log()[-2000:]
        names = [b"a234567890123456789012345678901", b"-L.f_0", b"Z.z"]
        bad = json_sweep(d, names, names[:2], HOSTILE)
        if bad:
            failures.append("names at the edges: %d lines not JSON, e.g. %r" % (len(bad), bad[:5]))
    finally:
        assert d.stop() == 0, d.log()[-3000:]
    assert not failures, "\n".join(failures)


# --- hostile clients -------------------------------------------------------------

def served(d, within=3.0):
    """A well-behaved client's status reply, timed."""
    t0 = time.monotonic()
    with d.client(timeout=within) as c:
        c.command("status")
    return time.monotonic() - t0


@case("hostile: hundreds of connections; the limit refuses, others are served")
def t_many(env):
    d = env.daemon
    good = d.client()
    socks = []
    try:
        for _ in range(300):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(d.sock)
            socks.append(s)
        ln = skin.parse_event(good.command("status")[0])
        assert int(ln["refused"]) + int(ln.get("refused_user", 0)) > 0, ln
        assert int(ln["clients"]) <= 64, ln
        # a refused connection got one line saying why
        refused = 0
        for s in socks[-20:]:
            s.settimeout(2)
            if s.recv(200).startswith(b"error too-many-clients"):
                refused += 1
        assert refused == 20, refused
    finally:
        for s in socks:
            s.close()
    def settled():
        try:
            return int(d.status()["clients"]) <= 2
        except skin.CommandError:
            return False        # still full: refused
    assert wait_for(settled, 5)
    assert good.command("status")
    good.close()


@case("hostile: slowloris clients of one user; another user gets in, idle ones are closed")
def t_slowloris(env):
    if os.geteuid() != 0:
        raise Skip("needs root to connect as another user")
    d = Daemon(env, side="slow")
    try:
        assert wait_for(lambda: int(d.status()["attached"]) == 3, 10), d.log()[-2000:]
        os.chmod(d.sock, 0o666)
        quiet = d.client()              # completed a command, then idle: stays
        quiet.command("status")
        t0 = time.monotonic()
        slow = []
        for _ in range(64):             # every slot of --max-clients 64
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(d.sock)
            s.send(b"s")                # a command that never ends
            slow.append(s)

        def another_user():
            out = []
            for _ in range(5):
                try:
                    with skin.Client(d.sock, timeout=3) as c:
                        out.append(c.command("status")[0].split()[0])
                except Exception as e:
                    out.append("%s: %s" % (type(e).__name__, e))
                time.sleep(0.1)
            return out
        out = as_uid(1, another_user)
        assert out.get("ok") == ["status"] * 5, out
        st = skin.parse_event(quiet.command("status")[0])
        print("# uid 1 served 5 of 5; status: clients %s refused %s refused_user %s" %
              (st["clients"], st["refused"], st.get("refused_user")))
        assert int(st["refused_user"]) > 0, st
        # the slow ones still in are closed after the idle timeout, told why
        closed = 0
        for s in slow:
            # the idle timeout is 10 s; 40 s leaves a loaded machine room
            s.settimeout(max(1, 40 - (time.monotonic() - t0)))
            data = b""
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except (socket.timeout, ConnectionResetError):
                pass
            if data.startswith(b"error timeout ") or data.startswith(b"error too-many-clients "):
                closed += 1
        took = time.monotonic() - t0
        st = skin.parse_event(quiet.command("status")[0])
        print("# %d of 64 closed within %.1f s; timeouts %s" % (closed, took, st.get("timeouts")))
        assert closed == 64, closed
        assert 10 <= took < 40 and int(st["timeouts"]) > 0, (took, st)
        assert int(st["clients"]) == 1, st     # quiet is still there
        quiet.close()
        for s in slow:
            s.close()
    finally:
        assert d.stop() == 0, d.log()[-3000:]


@case("hostile: a 1 MB line gets one error, the connection goes on")
def t_long_line(env):
    d = env.daemon
    with d.client() as bad, d.client() as good:
        bad.sock.sendall(b"x" * (1 << 20) + b"\nstatus\n")
        assert good.command("status")
        lines = [bad.read_line() for _ in range(3)]
        assert lines[0].startswith("error line-too-long "), lines[0]
        assert lines[1].startswith("status ") and lines[2] == "ok", lines


@case("hostile: garbage bytes; errors only for that client, the others served")
def t_garbage(env):
    d = env.daemon
    rnd = random.Random(7)
    with d.client() as bad, d.client() as good:
        junk = bytes(rnd.randrange(256) for _ in range(65536))
        bad.sock.sendall(junk + b"\nstatus\n")
        assert good.command("status")
        # whatever it said, it ends with our status reply
        bad.sock.settimeout(10)
        seen_status = False
        for _ in range(10000):
            line = bad.read_line()
            assert line.startswith(("error ", "status ", "ok")), line[:100]
            if line.startswith("status "):
                seen_status = True
            if seen_status and line == "ok":
                break
        assert seen_status
    assert d.p.poll() is None


@case("hostile: a half-closed client gets its replies, then EOF")
def t_half_closed(env):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(env.daemon.sock)
    s.sendall(b"status\nparts")      # the last line without a newline
    s.shutdown(socket.SHUT_WR)
    s.settimeout(5)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    lines = data.decode().splitlines()
    assert lines[0].startswith("status ") and lines[1] == "ok", lines
    assert lines[2].startswith("part ") and lines[-1] == "ok", lines


@case("hostile: a subscriber that never reads loses events, nobody else waits")
def t_stuck(env):
    d = env.daemon
    stuck = d.client()
    stuck.command("subscribe taxels all")
    before = skin.Shm(d.shm)
    s0 = before.snapshot("pad").samples
    # its socket buffer, then its queue fill up: events are dropped
    assert wait_for(lambda: int(d.status()["drops"]) > 0, 20), d.status()
    # the pipeline went on at its rate, the others were served
    time.sleep(1)
    s1 = before.snapshot("pad").samples
    before.close()
    assert s1 - s0 > 50, (s0, s1)
    assert served(d) < 3
    # the stuck one, reading at last, is told how much it missed
    stuck.sock.settimeout(5)
    for _ in range(100000):
        line = stuck.read_line()
        if line.startswith("dropped "):
            assert int(line.split()[1]) > 0, line
            break
    else:
        raise AssertionError("no dropped line")
    stuck.close()


@case("shm readers never see torn data with the writer at full rate")
def fast_feed(env):
    """A fresh daemon on 1 ms rings, ringfeed writing uniform frames (all
    192 values of a board's frame equal) back to back."""
    env.daemon.stop()
    env.feed.stop()
    for f in os.listdir(env.rings):
        os.unlink(os.path.join(env.rings, f))
    env.feed = Feed(env.rings, [p + ":1" for p in PATCHES])
    d = env.start()
    d.ready()
    env.feed.cmd("uniform on")
    env.feed.cmd("full on")
    return d


def slow_feed(env):
    """Back to the suite's daemon and rings."""
    env.feed.cmd("full off")
    env.feed.cmd("uniform off")
    env.feed.stop()
    env.daemon.stop()
    for f in os.listdir(env.rings):
        os.unlink(os.path.join(env.rings, f))
    env.feed = Feed(env.rings)
    env.start(["--admin-group", "daemon"]).ready()


def t_torn(env):
    d = fast_feed(env)
    try:
        res = subprocess.run([SHMCHECK, d.shm, "pad", "3", "2"], capture_output=True,
                             env=dict(os.environ, SHMCHECK_DUMP="1"), text=True, timeout=30)
        if res.stderr:
            print("# " + res.stderr.strip()[:2000].replace("\n", "\n# "))
        out = res.stdout.split()
        r = dict(zip(out[0::2], map(int, out[1::2])))
        print("# locked readers: %s" % r)
        assert r["reads"] > 1000 and r["publications"] > 100, r
        assert r["torn"] == 0 and r["backwards"] == 0, r
        out = subprocess.run([SHMCHECK, d.shm, "left_forearm", "2", "2", "unlocked"],
                             capture_output=True, text=True, timeout=30).stdout
        print("# the same without the seqlock (shows the check can see tearing): %s" % out.strip())
        assert served(d) < 5
    finally:
        slow_feed(env)


def torn_slices(raw):
    """How many 192-value slices (a board's frame) of @raw are not uniform."""
    b = raw.reshape(-1, 192)
    return int(np.count_nonzero((b != b[:, :1]).any(axis=1)))


@case("the Python package: no torn snapshot while skind publishes at full rate")
def t_python_torn(env):
    d = fast_feed(env)
    try:
        with skin.Shm(d.shm) as shm:
            reads = torn = backwards = unarmed = 0
            seqs, last = set(), 0
            # skind publishes every period_ms (20): 150 in 3 s; a loaded
            # host slows the reader, not the check: read until 100
            # publications were seen, for at most 20 s
            start = time.monotonic()
            while time.monotonic() < start + 3.0 or (
                    len(seqs) <= 100 and time.monotonic() < start + 20.0):
                snap = shm.snapshot("left_forearm")
                if snap.samples < last:
                    backwards += 1
                last = snap.samples
                if not reads and torn_slices(snap.raw):
                    unarmed += 1        # frames from before "uniform on"
                    continue
                reads += 1
                seqs.add(snap.seq)
                torn += torn_slices(snap.raw) > 0
            # the same from the live view, without the seqlock: shows
            # whether a Python reader can see tearing here at all
            live, loose = shm.view("left_forearm"), 0
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                loose += torn_slices(live.raw.copy()) > 0
            del live
        print("# python: reads %d torn %d backwards %d publications %d unarmed %d; "
              "unlocked torn %d" % (reads, torn, backwards, len(seqs), unarmed, loose))
        assert reads > 500 and len(seqs) > 100, (reads, len(seqs))
        assert torn == 0 and backwards == 0, (torn, backwards)
    finally:
        slow_feed(env)


# --- life cycle -------------------------------------------------------------------

@case("a patch that vanishes and comes back is re-attached")
def t_reattach(env):
    d = env.daemon

    def patch(name):
        return [p for p in d.parts() if p["type"] == "patch" and p["name"] == name][0]
    env.feed.cmd("remove lf0")
    assert wait_for(lambda: not patch("left_forearm.0")["attached"], 5), patch("left_forearm.0")
    env.feed.cmd("restore lf0")
    assert wait_for(lambda: patch("left_forearm.0")["attached"], 5)
    f0 = int(patch("left_forearm.0")["frames"])
    assert wait_for(lambda: int(patch("left_forearm.0")["frames"]) > f0 + 10, 5)
    assert "detached: its ring was removed or replaced" in d.log()


@case("a board that sends nothing is named once, by address and bus, and again when heard")
def t_silent(env):
    d = env.daemon
    silent = "board 12 (0x4c0) on can1 is silent: left_forearm has had no frame from it"
    heard = "board 12 (0x4c0) on can1 is heard again after"

    def patch(name):
        return [p for p in d.parts() if p["type"] == "patch" and p["name"] == name][0]
    assert patch("left_forearm.1")["silent"] == 0
    env.feed.cmd("mute lf1")
    try:
        assert wait_for(lambda: silent in d.log(), 5), d.log()[-800:]
        assert patch("left_forearm.1")["silent"] == 1
        time.sleep(2.5)     # still silent: not said again
        assert d.log().count(silent) == 1, d.log()[-800:]
        assert " is silent" not in d.log().replace(silent, ""), "only the muted board"
        if not os.path.exists("/sys/class/net/can1"):
            line = [l for l in d.log().splitlines() if silent in l][0]
            assert line.endswith("(bus can1: missing)"), line
    finally:
        env.feed.cmd("unmute lf1")
    assert wait_for(lambda: heard in d.log(), 5), d.log()[-800:]
    assert patch("left_forearm.1")["silent"] == 0
    time.sleep(1.5)
    assert d.log().count(heard) == 1 and d.log().count(silent) == 1, d.log()[-800:]


@case("the ring directory missing: said once, again after 10 s, and found when it comes")
def t_ring_dir_backoff(env):
    missing = os.path.join(env.dir, "no-rings-yet")
    d = Daemon(env, extra=["-r", missing], side="nodir")
    first = missing + ": No such file or directory: the skin module is not loaded"
    again = missing + ": still missing after "
    try:
        time.sleep(6)
        assert d.p.poll() is None, d.log()
        # the rescan looks every second; the journal hears it once
        assert d.log().count(first) == 1 and again not in d.log(), d.log()
        assert wait_for(lambda: again in d.log(), 9), d.log()
        time.sleep(2)
        assert d.log().count(first) == 1 and d.log().count(again) == 1, d.log()
        os.mkdir(missing)
        assert wait_for(lambda: re.search(re.escape(missing) + r": found after 1\d s", d.log()), 5), \
            d.log()
    finally:
        d.stop()


@case("the buses: a missing interface and one that is no CAN are said once, by name; status and buses show them; parts says which patches are listen-only")
def t_bus(env):
    rings = os.path.join(env.dir, "bus-rings")
    os.mkdir(rings)
    feed = Feed(rings, ["pad:lo:1", "lf0:skintest9:13", "lf1:skintest9:12"])
    config = os.path.join(env.dir, "bus.conf")
    with open(config, "w") as f:
        f.write(CONFIG.format(src=SRC, cal=0.5)
                .replace("[bus can0]", "[bus lo]\nbitrate = 500000\nlisten_only = yes")
                .replace("[bus can1]", "[bus skintest9]")
                .replace("can0:", "lo:").replace("can1:", "skintest9:"))
    d = Daemon(env, extra=["-r", rings], config=config, side="bus")
    missing = "bus skintest9: no such interface"
    not_can = "bus lo: not a CAN interface"
    try:
        assert wait_for(lambda: missing in d.log() and not_can in d.log(), 5), d.log()
        time.sleep(2.5)     # asked again every second: said once all the same
        assert d.log().count(missing) == 1 and d.log().count(not_can) == 1, d.log()
        st = d.status()
        assert st["buses"] == 2 and st["buses_ok"] == 0, st
        with d.client() as c:
            lines = c.command("buses")
            buses = {e["name"]: e for e in map(skin.parse_event, lines)}
            assert len(lines) == 2 and len(buses) == 2, lines
            assert buses["lo"] == {"type": "bus", "name": "lo", "link": "not-can", "bitrate": 0,
                                   "configured": 500000, "state": "none"}, buses
            assert buses["skintest9"]["link"] == "missing", buses
            assert buses["skintest9"]["configured"] == 1000000, buses
            c.command("format json")
            js = [json.loads(l) for l in c.command("buses")]
            assert {"type": "bus", "name": "skintest9", "link": "missing", "bitrate": 0,
                    "configured": 1000000, "state": "none"} in js, js
            # a tapped bus's patches are listen-only, in both formats
            pj = {e["name"]: e for e in map(json.loads, c.command("parts"))
                  if e["type"] == "patch"}
            assert pj["pad"]["listen_only"] is True, pj
            assert pj["left_forearm.0"]["listen_only"] is False, pj
            c.command("format bottle")
            pt = {e["name"]: e for e in map(skin.parse_event, c.command("parts"))
                  if e["type"] == "patch"}
            assert pt["pad"]["listen_only"] == 1, pt
            assert pt["left_forearm.1"]["listen_only"] == 0, pt
        # a reload keeps what was said
        d.p.send_signal(signal.SIGHUP)
        assert wait_for(lambda: "reloaded:" in d.log(), 5), d.log()
        time.sleep(1.5)
        assert d.log().count(missing) == 1, d.log()
    finally:
        d.stop()
        feed.stop()


@case("SIGHUP reloads the configuration without dropping clients")
def t_reload(env):
    d = env.daemon
    sub = d.client()
    sub.command("subscribe contacts pad")
    old = skin.Shm(d.shm)
    with open(d.config) as f:
        text = f.read()
    with open(d.config, "w") as f:
        f.write(text.replace("add_threshold = 7", "add_threshold = 8"))
    jsub = d.client()
    assert jsub.command("format json") == []
    jsub.command("subscribe contacts pad")
    d.p.send_signal(signal.SIGHUP)
    for _ in range(1000):
        line = sub.read_line()
        if line.startswith("reload "):
            assert line == "reload generation 2", line
            break
    for _ in range(1000):
        line = jsub.read_line()
        if '"reload"' in line:
            assert line == '{"type":"reload","generation":2}', line
            break
    jsub.close()
    assert sub.read_line().startswith("contacts pad "), "events after the reload"
    assert d.status()["generation"] == 2
    with d.client() as c:
        assert c.command("get add_threshold")[0].split()[2] in ("8", "8.0")
    assert old.retired()
    old.close()
    new = skin.Shm(d.shm)
    assert new.generation == 2 and not new.retired()
    new.close()
    sub.close()


@case("a broken configuration on SIGHUP keeps the running one")
def t_reload_bad(env):
    d = env.daemon
    with open(d.config) as f:
        good = f.read()
    with open(d.config, "w") as f:
        f.write(good + "\n[part broken]\npatches = nosuchbus:3\n")
    gen = d.status()["generation"]
    d.p.send_signal(signal.SIGHUP)
    assert wait_for(lambda: "keeping the running configuration" in d.log(), 5), d.log()[-500:]
    assert re.search(r"skind.conf:\d+", d.log()), "the error names file and line"
    assert d.status()["generation"] == gen
    with open(d.config, "w") as f:
        f.write(good)


def run_skind(env, config, extra=(), timeout=15):
    """skind run to its end (a start that fails); a hang fails the case
    instead of blocking the layer."""
    try:
        return subprocess.run([SKIND, "-c", config, "-r", env.rings,
                               "-s", os.path.join(env.dir, "x.sock"),
                               "--shm", os.path.join(env.dir, "x.shm"),
                               "--state-dir", os.path.join(env.dir, "x-state"),
                               "--no-create-patches"] + list(extra),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError("skind -c %s hung for %d s" % (config, timeout))


@case("a FIFO, a directory or a device as configuration: refused at start, named, no hang")
def t_config_not_regular(env):
    fifo = os.path.join(env.dir, "f.conf")
    os.mkfifo(fifo)
    try:
        for path, what in ((fifo, "is a FIFO"), (env.rings, "is a directory"),
                           ("/dev/null", "is a character device")):
            p = run_skind(env, path)
            assert p.returncode == 1, p
            assert "%s: %s, not a regular file" % (path, what) in p.stderr, p.stderr
    finally:
        os.unlink(fifo)


@case("an empty configuration is refused, naming the file")
def t_config_empty(env):
    empty = os.path.join(env.dir, "empty.conf")
    for text in ("", "# nothing\n", "[skind]\nperiod_ms = 20\n"):
        with open(empty, "w") as f:
            f.write(text)
        p = run_skind(env, empty)
        assert p.returncode == 1, p
        assert empty + ": no [part NAME] section" in p.stderr, p.stderr


@case("a configuration naming itself as geometry on SIGHUP: refused and named, skind keeps running")
def t_reload_self_geometry(env):
    # issue 25, defect 1: this recursed until skind overflowed its stack
    d = env.daemon
    with open(d.config) as f:
        good = f.read()
    with open(d.config, "w") as f:
        f.write(good + "\n[part loop]\ngeometry = %s\npatches = can0:9\n"
                % os.path.basename(d.config))
    gen = d.status()["generation"]
    start = len(d.log())
    log = lambda: d.log()[start:]  # noqa: E731
    try:
        d.p.send_signal(signal.SIGHUP)
        assert wait_for(lambda: "keeping the running configuration" in log(), 10), \
            "no verdict on the reload: " + log()[-500:]
        assert d.config + ": a skind.conf, not a geometry file" in log(), log()[-500:]
        assert d.p.poll() is None, "skind died: %s" % d.p.returncode
        assert d.status()["generation"] == gen
        # skinctl layout on the same file: refused, not a stack overflow
        r = subprocess.run([SKINCTL, "layout", d.config], capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 1, (r.returncode, r.stderr[-500:])
        assert d.config + ": a skind.conf, not a geometry file" in r.stderr, r.stderr
    finally:
        with open(d.config, "w") as f:
            f.write(good)


@case("a FIFO geometry on SIGHUP: refused and named, skind keeps answering")
def t_reload_fifo(env):
    d = env.daemon
    fifo = os.path.join(env.dir, "forearm-fifo.txt")
    os.mkfifo(fifo)
    with open(d.config) as f:
        good = f.read()
    with open(d.config, "w") as f:
        f.write(re.sub(r"geometry = \S*left_forearm_V2.txt", "geometry = " + fifo, good))
    gen = d.status()["generation"]
    start = len(d.log())
    log = lambda: d.log()[start:]  # noqa: E731
    d.p.send_signal(signal.SIGHUP)
    try:
        assert wait_for(lambda: "keeping the running configuration" in log(), 10), \
            "no verdict on the reload: " + log()[-500:]
        assert fifo + ": is a FIFO, not a regular file" in log(), log()[-500:]
        with d.client(timeout=3) as c:
            s = skin.parse_event(c.command("status")[0])
        assert s["generation"] == gen, s
    except Exception:
        d.stop(signal.SIGKILL)     # stuck in open(): the next case starts a new one
        env.daemon = None
        raise
    finally:
        with open(d.config, "w") as f:
            f.write(good)
        os.unlink(fifo)


@case("a FIFO as the saved calibration: a warning naming it, then a calibration")
def t_calibration_fifo(env):
    state = os.path.join(env.dir, "fifo-state")
    os.mkdir(state)
    os.mkfifo(os.path.join(state, "calibration"))
    d = env.daemon
    d.stop(signal.SIGTERM)     # (no stale socket file for the next start)
    env.daemon = None
    try:
        d2 = env.start(["--admin-group", "daemon", "--state-dir", state])
    except RuntimeError as e:
        raise AssertionError("skind did not start on a FIFO calibration: %s" % e)
    try:
        assert wait_for(lambda: "saved calibration not used: %s/calibration: is a FIFO, not a regular file"
                        % state in d2.log(), 10), d2.log()[-800:]
        d2.ready()
    finally:
        d2.stop(signal.SIGTERM)
        env.daemon = None


def inotify_names(path, mask=0x100 | 0x80):
    """Watch directory @path; returns a function that gives the (mask, name)
    events so far (@mask: IN_CREATE, IN_MOVED_TO)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    assert fd >= 0
    assert libc.inotify_add_watch(fd, path.encode(), mask) >= 0

    def events():
        out = []
        while True:
            try:
                buf = os.read(fd, 65536)
            except BlockingIOError:
                return out
            i = 0
            while i < len(buf):
                _wd, mask, _cookie, n = struct.unpack_from("iIII", buf, i)
                out.append((mask, buf[i + 16:i + 16 + n].rstrip(b"\0").decode()))
                i += 16 + n
    return events


@case("the socket's path appears only once skind listens (renamed into place)")
def t_socket_atomic(env):
    # A client that sees the path must be able to connect: the file is
    # bound under another name and renamed once it listens, never
    # created under its own name (between bind and listen a connect gets
    # ECONNREFUSED).  Also over a stale file of a killed skind.
    d = Daemon(env, side="atomic")
    run = os.path.dirname(d.sock)
    for stale in (False, True):
        d.stop(signal.SIGKILL if stale else signal.SIGTERM)
        events = inotify_names(run)
        d = Daemon(env, side="atomic")
        d.ready()
        names = [(m, n) for m, n in events() if n == "skind.sock"]
        assert names and all(m & 0x80 for m, n in names), \
            "skind.sock created in place (IN_CREATE=0x100, IN_MOVED_TO=0x80): %s" % names
        assert not [n for n in os.listdir(run) if n.startswith("skind.sock.")], os.listdir(run)
    d.stop()


@case("the shm object is named only when whole: nothing left by a kill -9 mid-build")
def t_shm_unnamed(env):
    # skind builds the object unnamed (O_TMPFILE) and links it to its
    # temporary name only once it is written, then renames it over the
    # name: the temporary name is never created empty and then sized
    # (IN_MODIFY on it), so a skind killed while it builds leaves no file.
    # At start and at a reload (SIGHUP).
    d = Daemon(env, side="unnamed")
    run = os.path.dirname(d.shm)
    d.stop()
    events = inotify_names(run, 0x100 | 0x80 | 0x2)
    d = Daemon(env, side="unnamed")
    d.ready()
    gen = d.status()["generation"]
    d.p.send_signal(signal.SIGHUP)
    assert wait_for(lambda: d.status()["generation"] != gen, 10), d.log()
    seen = [(m, n) for m, n in events() if n.startswith("skind.shm")]
    temp = [(m, n) for m, n in seen if n.startswith("skind.shm.")]
    print("# shm names: %s" % sorted(set((hex(m), n) for m, n in seen)))
    assert len([1 for m, n in seen if n == "skind.shm" and m & 0x80]) == 2, seen
    assert temp and not [1 for m, n in temp if m & 0x2], \
        "a temporary name written after it was made (IN_MODIFY=0x2): %s" % temp
    assert not [n for n in os.listdir(run) if n.startswith("skind.shm.")], os.listdir(run)
    d.stop()


@case("kill -9 and restart: the saved calibration is restored")
def t_kill9(env):
    d = env.daemon
    assert os.path.exists(os.path.join(env.dir, "state", "calibration"))
    d.stop(signal.SIGKILL)
    # the socket and shm files of the dead daemon are still there
    assert os.path.exists(d.sock) and os.path.exists(d.shm)
    d2 = env.start(["--admin-group", "daemon"], cal=30)
    log = lambda: d2.log()  # noqa: E731
    assert wait_for(lambda: "calibration restored" in log(), 5), log()
    assert "pad: using the saved calibration" in log()
    assert "calibrating" not in log(), log()
    # running at once, although a calibration would take 30 s
    d2.ready()
    assert d2.status()["calibrated"] == 2


class Lines:
    """A child's output, read without blocking: lines (a pipe) or bytes (a pty)."""

    def __init__(self, fd):
        self.fd = fd
        self.out = b""

    def read_until(self, pred, timeout=10, since=0):
        end = time.monotonic() + timeout
        while not pred(self.out[since:]) and time.monotonic() < end:
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    b = os.read(self.fd, 65536)
                except OSError:
                    break
                if not b:
                    break
                self.out += b
        return pred(self.out[since:])

    def lines(self, since=0):
        return self.out[since:].decode(errors="replace").splitlines()


@case("kill -9 and restart: shm readers (shm.h's, skinctl view --shm) follow")
def t_kill9_shm(env):
    d = env.daemon
    env.feed.cmd("release pad")
    expect_contacts(d, "pad", [])
    # a reader that follows include/skin/shm.h to the letter
    w = subprocess.Popen([SHMWATCH, d.shm, "pad", "60"], stdout=subprocess.PIPE)
    wl = Lines(w.stdout.fileno())
    # skinctl view --shm on a terminal
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SKINCTL, [SKINCTL, "view", "pad", "--config", d.config, "--shm", d.shm,
                            "--rate", "50"], dict(os.environ, TERM="xterm-256color"))
    vl = Lines(fd)
    try:
        assert wl.read_until(lambda o: b"mapped" in o), wl.out
        first = [l for l in wl.lines() if l.startswith("mapped pid %d generation 1 instance " % d.p.pid)]
        assert len(first) == 1 and not first[0].endswith(" 0000000000000000"), wl.out
        assert vl.read_until(lambda o: b"contacts 0" in o), vl.out[-2000:]
        # a live skind is never taken for dead
        time.sleep(3)
        wl.read_until(lambda o: False, 0.1)
        assert b"stale" not in wl.out and b"not responding" not in vl.out, wl.out
        d.stop(signal.SIGKILL)
        env.daemon = None
        t0 = time.monotonic()
        # no successor yet: the heartbeat stops (skin/shm.h: 4 x 500 ms)
        wmark, vmark = len(wl.out), len(vl.out)
        assert wl.read_until(lambda o: b"stale" in o, 5, wmark), wl.out[wmark:]
        print("# shm.h reader saw the heartbeat stop in %.2f s" % (time.monotonic() - t0))
        assert vl.read_until(lambda o: b"[skind not responding]" in o, 5, vmark), \
            vl.out[vmark:][-2000:]
        assert b"retired" not in wl.out[wmark:], wl.out[wmark:]
        wmark, vmark = len(wl.out), len(vl.out)
        d2 = env.start(["--admin-group", "daemon"])
        t0 = time.monotonic()
        want = ("mapped pid %d generation 1 instance " % d2.p.pid).encode()
        # within a bounded time of the new skind's start, not "never"
        assert wl.read_until(lambda o: want in o, 5, wmark), wl.out[wmark:]
        # generations start at 1 again; the instance tells the objects apart
        wl.read_until(lambda o: o.endswith(b"\n"), 1, wmark)
        second = [l for l in wl.lines(wmark) if l.startswith(want.decode())]
        assert second and second[0].split()[-1] != first[0].split()[-1], (first, second)
        print("# shm.h reader followed the restart in %.2f s" % (time.monotonic() - t0))
        assert b"retired" in wl.out[wmark:], wl.out[wmark:]
        d2.ready()
        env.feed.cmd("press pad 60 9")
        assert vl.read_until(lambda o: b"contacts 1" in o, 5, vmark), vl.out[vmark:][-2000:]
        print("# skinctl view --shm followed the restart in %.2f s" % (time.monotonic() - t0))
        env.feed.cmd("release pad")
        assert pid_alive(pid)
        os.write(fd, b"q")
        vl.read_until(lambda o: b"\x1b[?1049l" in o)
        _, st = os.waitpid(pid, 0)
        assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, st
    finally:
        os.close(fd)
        w.kill()
        w.wait()
        w.stdout.close()


# --- the follower (skin/follow.h) ---------------------------------------------

class Follower:
    """followcheck: a follower of skind printing its events (its header
    says what).  stop() ends it with SIGTERM, so that ASan sees its exit."""

    def __init__(self, sock, part=None, seconds=300, raw=False):
        self.p = subprocess.Popen([FOLLOWCHECK, sock, str(seconds)] + ([part] if part else []) +
                                  (["raw"] if raw else []),
                                  stdout=subprocess.PIPE)
        self.out = Lines(self.p.stdout.fileno())

    def mark(self):
        self.out.read_until(lambda o: False, 0.05)
        return len(self.out.out)

    def wait(self, regex, since=0, timeout=10):
        """The first line since @since matching @regex, or AssertionError."""
        rx = re.compile(regex.encode(), re.M)
        self.out.read_until(lambda o: rx.search(o) or b"\nerror " in o, timeout, since)
        m = rx.search(self.out.out[since:])
        assert m, "followcheck: no /%s/ in %s s: %s" % (regex, timeout, self.out.out[since:][-1500:])
        end = self.out.out.find(b"\n", since + m.start())
        self.after = end + 1 if end >= 0 else len(self.out.out)   # where the line ends
        return self.out.out[since + m.start():end if end >= 0 else None].decode()

    def lines(self, since=0):
        return self.out.lines(since)

    def following(self, d):
        """Attached to skind @d and copying: where its output is now."""
        self.wait(r"^attached pid %d " % d.p.pid)
        self.wait(r"^sample pad ", self.after)
        return self.mark()

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.out.read_until(lambda o: False, 0.2)
        self.p.stdout.close()
        errors = [l for l in self.lines() if l.startswith("error")]
        assert not errors, errors
        assert self.p.returncode == 0, (self.p.returncode, self.out.out[-1500:])
        assert b"end samples" in self.out.out


def collect(sock, kinds, part, seconds):
    """The socket's event lines of @kinds for @part over @seconds, by kind
    and publication number."""
    got = {k: {} for k in kinds}
    with skin.Client(sock, timeout=10) as c:
        for k in kinds:
            c.command("subscribe %s %s" % (k, part))
        c.sock.settimeout(0.1)
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            try:
                line = c.read_line()
            except socket.timeout:
                continue
            w = line.split(" ", 3)
            if w[0] in got:
                got[w[0]][int(w[2])] = line
    return got


@case("follower: every copy equals the socket's line of the same publication")
def t_follow_equal(env):
    d = env.daemon
    f = Follower(d.sock, "pad")
    try:
        att = f.wait(r"^attached pid %d generation \d+ instance [0-9a-f]{16} parts pad,left_forearm$" % d.p.pid)
        assert not att.endswith(" 0000000000000000")
        env.feed.cmd("press pad 60 5 6")
        env.feed.cmd("press lf0 60 0")
        mark = f.mark()
        got = collect(d.sock, ("taxels", "contacts"), "pad", 2.0)
        env.feed.cmd("release pad")
        env.feed.cmd("release lf0")
        f.out.read_until(lambda o: False, 0.5)
        mine = {"taxels": {}, "contacts": {}}
        for line in f.lines(mark):
            w = line.split(" ", 3)
            if w[0] in mine and w[1] == "pad":
                mine[w[0]][int(w[2])] = line
        both = sorted(set(got["taxels"]) & set(mine["taxels"]))
        # the socket sends every publication (50 Hz), the follower copies
        # the newest at each wakeup: most of them (17 of 100 at a load of
        # 13, with both readers starved)
        assert len(both) >= 10, (len(got["taxels"]), len(mine["taxels"]), len(both))
        for n in both:
            assert got["taxels"][n] == mine["taxels"][n], (n, got["taxels"][n][:200], mine["taxels"][n][:200])
        touched = [n for n in both if got["taxels"][n].endswith(" (5 6)")]
        assert touched, "the press was seen"
        cboth = sorted(set(got["contacts"]) & set(mine["contacts"]))
        assert len(cboth) >= 10, len(cboth)
        for n in cboth:
            ev = skin.parse_event(got["contacts"][n])
            want = sorted(sorted(c.taxels.tolist()) for c in ev["contacts"])
            have = sorted(sorted(int(t) for t in g.split()) for g in
                          re.findall(r"\(([^)]*)\)", mine["contacts"][n]))
            assert want == have, (n, want, have)
        assert [n for n in cboth if "(5 6)" in mine["contacts"][n]], "a contact was seen"
        # every part is followed: the forearm's samples come too
        assert any(l.startswith("sample left_forearm ") for l in f.lines(mark))
    finally:
        f.stop()


@case("follower: kill -9 and restart: DETACHED ECONNRESET, then ATTACHED, samples again")
def t_follow_kill9(env):
    d = env.daemon
    f = Follower(d.sock)
    try:
        mark = f.following(d)
        t0 = time.monotonic()
        d.stop(signal.SIGKILL)
        env.daemon = None
        f.wait(r"^detached ", mark, 5)
        print("# follower: DETACHED %.2f s after kill -9" % (time.monotonic() - t0))
        time.sleep(1)              # it retries, skind still away: nothing to say
        # (samples in flight at the kill may come before)
        seen = [l for l in f.lines(mark) if not l.startswith("sample ")]
        assert seen == ["detached ECONNRESET"], f.lines(mark)
        assert f.lines(mark)[-1] == "detached ECONNRESET", f.lines(mark)
        mark = f.mark()
        d2 = env.start(["--admin-group", "daemon"])
        t0 = time.monotonic()
        f.wait(r"^attached pid %d generation 1 " % d2.p.pid, mark, 5)
        print("# follower: ATTACHED %.2f s after the new skind started" % (time.monotonic() - t0))
        f.wait(r"^sample pad ", f.after, 5)
        # (a follower attached before skind's patches are says their
        # state as each attaches)
        events = [l.split()[0] for l in f.lines(mark)
                  if not l.startswith(("sample ", "state "))]
        assert events == ["attached"], f.lines(mark)[:5]
        d2.ready()
    finally:
        f.stop()


@case("follower: SIGHUP with another part list: DETACHED ESTALE, ATTACHED with the new parts")
def t_follow_reload(env):
    d = env.daemon
    with open(d.config) as fh:
        good = fh.read()
    f = Follower(d.sock)
    try:
        g = int(d.status()["generation"])
        f.wait(r"^attached pid %d generation %d .* parts pad,left_forearm$" % (d.p.pid, g))
        mark = f.mark()
        # without the forearm
        with open(d.config, "w") as fh:
            fh.write(good[:good.index("[part left_forearm]")])
        d.p.send_signal(signal.SIGHUP)
        f.wait(r"^attached pid %d generation %d .* parts pad$" % (d.p.pid, g + 1), mark, 10)
        seen = [l for l in f.lines(mark) if not l.startswith(("sample", "state"))]
        assert seen[:2] == ["detached ESTALE", seen[1]] and seen[1].startswith("attached"), seen
        f.wait(r"^sample pad ", f.after, 5)
        # and back, the forearm after the pad
        mark = f.mark()
        with open(d.config, "w") as fh:
            fh.write(good)
        d.p.send_signal(signal.SIGHUP)
        f.wait(r"^attached pid %d generation %d .* parts pad,left_forearm$" % (d.p.pid, g + 2), mark, 10)
        seen = [l for l in f.lines(mark) if not l.startswith(("sample", "state"))]
        assert seen[0] == "detached ESTALE" and len(seen) == 2, seen
        f.wait(r"^sample left_forearm ", f.after, 5)
        # the new object's parts come as a STATE each before their first
        # sample (skind publishes them attached): followcheck fails a
        # SAMPLE with no sample in it
    finally:
        with open(d.config, "w") as fh:
            fh.write(good)
        f.stop()
    d.ready()


@case("follower: SIGSTOP: DETACHED ETIMEDOUT; SIGCONT: ATTACHED, samples again")
def t_follow_stop(env):
    d = env.daemon
    f = Follower(d.sock)
    try:
        mark = f.following(d)
        d.p.send_signal(signal.SIGSTOP)
        t0 = time.monotonic()
        try:
            # four heartbeats of 500 ms, then the next check
            f.wait(r"^detached ", mark, 6)
            print("# follower: DETACHED %.2f s after SIGSTOP" % (time.monotonic() - t0))
            seen = [l for l in f.lines(mark) if not l.startswith("sample")]
            assert seen == ["detached ETIMEDOUT"], seen
            assert time.monotonic() - t0 >= 1.5, "not before the heartbeats are missed"
            mark = f.mark()
        finally:
            d.p.send_signal(signal.SIGCONT)
        t0 = time.monotonic()
        f.wait(r"^attached pid %d generation %s " % (d.p.pid, d.status()["generation"]), mark, 5)
        print("# follower: ATTACHED %.2f s after SIGCONT" % (time.monotonic() - t0))
        f.wait(r"^sample pad ", f.after, 5)
        # (followcheck fails a sample delivered twice: none of those
        # before the stall comes again)
        seen = [l for l in f.lines(mark) if not l.startswith(("sample", "state"))]
        assert seen[0].startswith("attached ") and len(seen) == 1, seen
    finally:
        f.stop()


@case("follower: one that did not dispatch for 2 s gets the newest publication, nothing in between")
def t_follow_coalesce(env):
    d = env.daemon
    f = Follower(d.sock)
    try:
        f.following(d)
        f.p.send_signal(signal.SIGSTOP)     # the bridge is busy elsewhere
        time.sleep(2.0)
        mark = f.mark()
        f.p.send_signal(signal.SIGCONT)
        f.wait(r"^sample pad ", mark, 5)
        before = [int(l.split()[2]) for l in f.out.out[:mark].decode().splitlines()
                  if l.startswith("sample pad ")]
        after = f.lines(mark)
        first = int([l for l in after if l.startswith("sample pad ")][0].split()[2])
        # 2 s at 50 Hz: about 100 publications, delivered as one copy
        assert first - before[-1] >= 50, (before[-1], first)
        # its own clock jumped 2 s, the heartbeat moved meanwhile: no DETACHED
        assert not [l for l in after if not l.startswith("sample ")], after[:5]
    finally:
        f.stop()


@case("follower: a publication without a new sample (detach, attach, calibrate) is a STATE, never a SAMPLE")
def t_follow_state(env):
    d = env.daemon
    f = Follower(d.sock, "pad")
    removed = False
    try:
        f.following(d)
        env.feed.cmd("pause")
        # what skind drained after the pause comes as samples; then quiet
        n = -1
        while n != f.mark():
            n = f.mark()
            time.sleep(0.3)
        last = [int(l.split()[2]) for l in f.lines() if l.startswith("sample pad ")][-1]
        mark = f.mark()
        env.feed.cmd("remove pad")
        removed = True
        f.wait(r"^state pad %d state 0x[0-9a-f]+ attached 0$" % last, mark, 5)
        with d.client() as c:
            reply = c.command("calibrate pad")
        calibrating = f.wait(r"^state pad %d state 0x[0-9a-f]*[4-7cdef] attached 0$" % last,
                             f.after, 5)
        env.feed.cmd("restore pad")
        removed = False
        f.wait(r"^state pad %d state 0x[0-9a-f]+ attached 1$" % last, f.after, 5)
        # nothing new from the board: its state moved, no sample came
        assert not [l for l in f.lines(mark) if l.startswith(("sample pad ", "taxels pad "))], \
            (reply, calibrating, f.lines(mark))
        env.feed.cmd("resume")
        first = f.wait(r"^sample pad ", f.after, 5)
        assert int(first.split()[2]) > last, (last, first)
    finally:
        env.feed.cmd("resume")
        if removed:
            env.feed.cmd("restore pad")
        f.stop()
    d.ready()


@case("follower: skind absent at start, then SIGTERM: attaches when it appears, DETACHED ESTALE")
def t_follow_absent(env):
    d = env.daemon
    d.stop()
    env.daemon = None
    f = Follower(d.sock)
    try:
        time.sleep(1.0)
        assert f.mark() == 0, f.out.out     # nothing to say while skind is away
        d2 = env.start(["--admin-group", "daemon"])
        t0 = time.monotonic()
        f.wait(r"^attached pid %d generation 1 " % d2.p.pid, 0, 5)
        print("# follower: ATTACHED %.2f s after skind started" % (time.monotonic() - t0))
        f.wait(r"^sample pad ", f.after, 5)
        d2.ready()
        mark = f.mark()
        assert d2.stop() == 0
        env.daemon = None
        # a stop retires the object before it closes the sockets
        f.wait(r"^detached ", mark, 5)
        seen = [l for l in f.lines(mark) if not l.startswith("sample")]
        assert seen == ["detached ESTALE"], seen
    finally:
        f.stop()


@case("systemd: READY, STATUS and WATCHDOG through $NOTIFY_SOCKET")
def t_notify(env):
    d = env.daemon
    d.stop()
    path = os.path.join(env.dir, "notify")
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(path)
    ns.settimeout(10)
    os.environ.update(NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
    try:
        env.start(["--admin-group", "daemon"])
    finally:
        for k in ("NOTIFY_SOCKET", "WATCHDOG_USEC"):
            os.environ.pop(k, None)
    got = []
    end = time.monotonic() + 5
    while time.monotonic() < end and not (any("WATCHDOG=1" in g for g in got) and
                                          any("READY=1" in g for g in got)):
        got.append(ns.recv(4096).decode())
    ns.close()
    text = "\n".join(got)
    assert "READY=1" in text and "STATUS=" in text and "WATCHDOG=1" in text, text
    env.daemon.ready()


@case("systemd: socket activation (sd_listen_fds)")
def t_activation(env):
    act = shutil.which("systemd-socket-activate")
    if not act:
        raise Skip("no systemd-socket-activate")
    sock = os.path.join(env.dir, "act.sock")
    logp = os.path.join(env.dir, "act.log")
    args = [act, "-l", sock, SKIND, "-c", env.daemon.config, "-r", env.rings,
            "--shm", os.path.join(env.dir, "act.shm"), "--state-dir",
            os.path.join(env.dir, "state"), "--no-create-patches", "-v"]
    with open(logp, "w") as lf:
        p = subprocess.Popen(args, stdout=lf, stderr=subprocess.STDOUT)
        try:
            assert wait_for(lambda: os.path.exists(sock), 5)
            with skin.Client(sock, timeout=10) as c:
                assert c.command("status")[0].startswith("status ")
            assert "listening on the socket systemd passed" in open(logp).read()
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=10)
    assert p.returncode == 0, open(logp).read()


@case("skinctl status, contacts and calibrate")
def t_skinctl(env):
    d = env.daemon
    e = dict(os.environ, SKIN_SOCKET=d.sock)
    r = subprocess.run([SKINCTL, "status"], env=e, capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and r.stdout.startswith("status version "), r
    assert "patch left_forearm left_forearm.1 bus can1 address 12 attached" in r.stdout, r.stdout
    env.feed.cmd("press pad 60 7")
    expect_contacts(d, "pad", [[7]])
    r = subprocess.run([SKINCTL, "contacts", "--json", "pad"], env=e, capture_output=True,
                       text=True, timeout=10)
    ev = json.loads(r.stdout.splitlines()[0])
    assert [c["taxels"] for c in ev["contacts"]] == [[7]], r.stdout
    env.feed.cmd("release pad")
    r = subprocess.run([SKINCTL, "contacts", "--watch", "--rate", "5", "pad"], env=e,
                       capture_output=True, text=True, timeout=1.5) if False else None
    p = subprocess.Popen([SKINCTL, "contacts", "--watch", "--rate", "5", "pad"], env=e,
                         stdout=subprocess.PIPE, text=True)
    lines = [p.stdout.readline() for _ in range(3)]
    p.terminate()
    p.wait()
    assert all(l.startswith("contacts pad ") for l in lines), lines
    r = subprocess.run([SKINCTL, "calibrate", "--wait", "left_forearm"], env=e,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and "calibrated left_forearm" in r.stdout, r
    r = subprocess.run([SKINCTL, "calibrate", "nosuch"], env=e, capture_output=True,
                       text=True, timeout=10)
    assert r.returncode == 1 and "no-such-part" in r.stderr, r


def pid_alive(pid):
    return os.waitpid(pid, os.WNOHANG) == (0, 0)


@case("skinctl view and snapshot on the live shm")
def t_view(env):
    d = env.daemon
    e = dict(os.environ, SKIN_SOCKET=d.sock)
    env.feed.cmd("press pad 60 5 6")
    expect_contacts(d, "pad", [[5, 6]])
    with d.client() as c:
        cid = skin.parse_event(c.command("contacts pad")[0])["contacts"][0].id
    # through the socket's descriptor
    r = subprocess.run([SKINCTL, "view", "pad", "--config", d.config, "--once", "--no-color",
                        "--size", "100x16"], env=e, capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r
    lines = r.stdout.split("\n")
    assert len(lines) == 17 and lines[-1] == "", lines      # 16 lines
    assert re.match(r"pad  sample \d+  t [\d.]+ s  contacts 1 #%d  max 100$" % cid, lines[0]), lines
    assert lines[15].startswith("3D positions projected on their best-fit plane | skind shm (socket "), lines
    grid = "\n".join(lines[1:15])
    assert grid.count("X") == 1 and ("X%d" % cid) in grid, grid
    # 16 taxels, each in its cell: 14 idle dots, 2 pressed ('+' at 100)
    # less what the X and its label cover
    assert grid.count(".") + grid.count("+") + 1 + len(str(cid)) >= 16, grid
    assert grid.count(".") <= 14 and grid.count("+") <= 2, grid
    # by name, as SVG
    svg = os.path.join(env.dir, "pad.svg")
    r = subprocess.run([SKINCTL, "snapshot", "pad", "--config", d.config, "--shm", d.shm,
                        "--svg", svg], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(svg).getroot()
    circles = root.findall(".//s:circle", ns)
    assert len(circles) == 16, len(circles)
    touched = sorted(c.get("id") for c in circles if c.get("class") == "tactile touched")
    assert touched == ["t5", "t6"], touched
    g = root.findall(".//s:g[@class='contact']", ns)
    assert len(g) == 1 and g[0].get("id") == "c%d" % cid, [x.attrib for x in g]
    assert g[0].find("s:text", ns).text == "#%d" % cid
    env.feed.cmd("release pad")
    expect_contacts(d, "pad", [])
    # live, on a terminal: the alternate screen, q quits and restores it
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SKINCTL, [SKINCTL, "view", "pad", "--config", d.config, "--rate", "50"],
                  dict(e, TERM="xterm-256color"))
    out = b""
    def read_until(marker, timeout=10, since=0):
        nonlocal out
        end = time.monotonic() + timeout
        while marker not in out[since:] and time.monotonic() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
        return marker in out[since:]
    try:
        assert read_until(b"contacts 0"), out[-2000:]
        assert out.startswith(b"\x1b[?1049h"), out[:40]
        env.feed.cmd("press pad 60 9")
        assert read_until(b"contacts 1"), out[-2000:]
        env.feed.cmd("release pad")
        # skind stops: the last picture stays, the view waits for it
        assert d.stop(signal.SIGTERM) == 0
        env.daemon = None
        assert read_until(b"[waiting for skind]"), out[-2000:]
        mark = len(out)
        env.start(["--admin-group", "daemon"]).ready()
        assert read_until(b"contacts 0", since=mark), out[-2000:]
        assert b"pad  sample" in out[mark:] and pid_alive(pid)
        os.write(fd, b"q")
        read_until(b"\x1b[?1049l")
        _, st = os.waitpid(pid, 0)
        assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, st
        assert out.rstrip(b"\r\n").endswith(b"\x1b[0m\x1b[?25h\x1b[?1049l"), out[-80:]
    finally:
        os.close(fd)
    # and SIGTERM restores the terminal as well
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SKINCTL, [SKINCTL, "view", "pad", "--config", d.config],
                  dict(e, SKIN_SOCKET=env.daemon.sock))
    out = b""
    try:
        assert read_until(b"pad  sample"), out[-2000:]
        os.kill(pid, signal.SIGTERM)
        read_until(b"\x1b[?1049l")
        _, st = os.waitpid(pid, 0)
        assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, st
        assert b"\x1b[?1049l" in out
    finally:
        os.close(fd)


@case("skind flattens each part as skinctl view draws it (where its evdev touches go)")
def t_flatten(env):
    d = env.daemon
    log = d.log()
    # the sentence of skinctl view's caption, from the same flattening
    want = {"pad": r"3D positions projected on their best-fit plane",
            "left_forearm": r"3D positions unrolled from their best-fit cylinder \(radius \d+ mm\)"}
    e = dict(os.environ, SKIN_SOCKET=d.sock)
    for part, how in want.items():
        m = re.search(r"%s: taxels placed by (%s)$" % (re.escape(part), how), log, re.M)
        assert m, log
        r = subprocess.run([SKINCTL, "view", part, "--config", d.config, "--once", "--no-color",
                            "--size", "120x16"], env=e, capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, r
        caption = r.stdout.split("\n")[15]
        assert caption.startswith(m.group(1) + " | skind shm") or \
            caption.startswith(m.group(1) + ", "), (caption, m.group(1))


def py_env():
    """The environment of a Python child: the package of this tree."""
    tree = os.path.join(SRC, "clients", "python")
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=tree + (os.pathsep + path if path else ""))


def py_run(args, timeout=20, **kw):
    return subprocess.run([sys.executable] + args, env=py_env(), capture_output=True,
                          text=True, timeout=timeout, **kw)


def no_traceback(r, what):
    """A clear error: exit status 1, one line on stderr, no traceback."""
    assert r.returncode == 1, (what, r)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, (what, r.stderr)


def as_taxels_line(snap):
    """A snapshot as the socket's `taxels` line (docs/PROTOCOL.md), %.4g."""
    return "taxels %s %d %d %d (%s) (%s)" % (
        snap.part.name, snap.samples, snap.frame_ts_ns, snap.publish_ns,
        " ".join("%.4g" % v for v in snap.values.tolist()),
        " ".join(str(t) for t in snap.touched.tolist()))


@case("the Python package: python3 -m skin, socket and shm")
def t_python(env):
    d = env.daemon
    r = py_run(["-m", "skin", "--socket", d.sock, "parts"])
    assert r.returncode == 0 and r.stdout.startswith("part pad "), r
    r = py_run(["-m", "skin", "--shm-path", d.shm, "shm", "pad"])
    assert r.returncode == 0 and json.loads(r.stdout)["part"] == "pad", r
    assert set(json.loads(r.stdout)["state"]) >= {"attached", "calibrated"}, r.stdout
    r = py_run(["-m", "skin", "--socket", d.sock, "bogus"])
    assert r.returncode == 1 and r.stderr.startswith("error unknown-command "), r
    # imported from the tree, not from an installed copy
    r = py_run(["-c", "import skin; print(skin.__file__)"])
    assert r.stdout.strip() == os.path.join(SRC, "clients", "python", "skin", "__init__.py"), r


@case("the Python package: snapshots equal the socket's lines of the same sample")
def t_python_equal(env):
    d = env.daemon
    env.feed.cmd("press pad 60 5 6")
    expect_contacts(d, "pad", [[5, 6]])
    got, mine, contacts = {}, {}, {}
    with d.client() as c, c.shm() as shm:
        c.subscribe("taxels", "pad")
        c.subscribe("contacts", "pad")
        c.sock.settimeout(0.002)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.0:
            snap = shm.snapshot("pad")
            mine[snap.samples] = snap
            try:
                while True:
                    line = c.read_line()
                    w = line.split(" ", 3)
                    if w[0] == "taxels":
                        got[int(w[2])] = line
                    elif w[0] == "contacts":
                        contacts[int(w[2])] = skin.parse_event(line)
            except socket.timeout:
                pass
    env.feed.cmd("release pad")
    both = sorted(set(got) & set(mine))
    # the socket has every publication (50 Hz), the loop the newest at
    # each turn: most of them, on a loaded machine too
    assert len(both) >= 20, (len(got), len(mine), len(both))
    for n in both:
        assert as_taxels_line(mine[n]) == got[n], (n, as_taxels_line(mine[n])[:200], got[n][:200])
        assert mine[n].values.dtype == np.float32 and mine[n].values.shape == (mine[n].part.n_taxels,)
    pressed = [n for n in both if mine[n].touched.tolist() == [5, 6]]
    assert pressed, "the press was seen"
    cboth = sorted(set(contacts) & set(mine))
    assert len(cboth) >= 20, len(cboth)
    for n in cboth:
        want = sorted((c.id, sorted(c.taxels.tolist())) for c in contacts[n]["contacts"])
        have = sorted((c.id, sorted(c.taxels.tolist())) for c in mine[n].contacts)
        assert want == have, (n, want, have)
        for a, b in zip(sorted(contacts[n]["contacts"], key=lambda c: c.id),
                        sorted(mine[n].contacts, key=lambda c: c.id)):
            assert np.allclose(a.geo, b.geo, rtol=1e-3, atol=1e-6), (a.geo, b.geo)
            assert (a.body_part, a.skin_part, a.link) == (b.body_part, b.skin_part, b.link)
    assert [n for n in cboth if mine[n].contacts], "a contact was seen"


@case("the Python package: live views of the mapping, copy_values() under the seqlock")
def t_python_view(env):
    d = env.daemon
    with skin.Shm(d.shm) as shm:
        live = shm.view("pad")
        assert not live.values.flags.writeable and live.values.dtype == np.float32
        # one publication's values: equal to a snapshot of the same sequence
        for _ in range(200):
            seq, vals = live.copy_values()
            snap = shm.snapshot("pad")
            if snap.seq == seq:
                break
        assert snap.seq == seq and seq % 2 == 0, (snap.seq, seq)
        assert np.array_equal(vals, snap.values)
        out = np.empty(shm.part("pad").n_taxels, dtype=np.float32)
        assert live.copy_values(out)[1] is out
        # the same array object follows skind's publications: a view
        env.feed.cmd("press pad 60 9")
        assert wait_for(lambda: live.values[9] > 0 and live.flags[9] & skin.TaxelFlag.TOUCHED), \
            live.values[9]
        env.feed.cmd("release pad")
        assert wait_for(lambda: live.values[9] == 0), live.values[9]
    # closing with views alive: they keep the mapping, the Shm is closed
    assert shm.closed and live.seq() % 2 == 0


@case("the Python package: enums, context managers, its own clear errors")
def t_python_api(env):
    d = env.daemon
    with d.client() as c:
        parts = [p for p in c.parts() if p["type"] == "part"]
        assert parts[0]["state"] is skin.RunState.RUNNING and parts[0]["state"] == "running", parts
        with c.shm() as shm:
            snap = shm.snapshot("left_forearm")
            assert isinstance(snap.state, skin.PartState), snap.state
            assert skin.PartState.ATTACHED in snap.state and skin.PartState.CALIBRATED in snap.state
            assert skin.PartState.CALIBRATING not in snap.state, snap.state
            assert shm.check() is skin.Liveness.LIVE
            assert shm.part("left_forearm").n_taxels == 384 and len(snap.values) == 384
            try:
                shm.snapshot("nosuch")
                raise AssertionError("a snapshot of no part")
            except KeyError:
                pass
        assert shm.closed
        try:
            c.command("bogus")
            raise AssertionError("no CommandError")
        except skin.CommandError as e:
            assert e.code == "unknown-command" and isinstance(e, skin.Error), e
        assert c.command("status")[0].startswith("status ")
    assert c.closed and c.fileno() == -1
    # skind absent: no socket, or nobody listening on it
    gone = os.path.join(env.dir, "absent.sock")
    try:
        skin.Client(gone)
        raise AssertionError("connected to nothing")
    except skin.NotRunning as e:
        assert str(e) == "skind is not running: no %s (systemctl start skind.socket)" % gone, e
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.path.join(env.dir, "dead.sock"))     # bound, never listening
    try:
        skin.Client(os.path.join(env.dir, "dead.sock"))
        raise AssertionError("connected to a socket nobody listens on")
    except skin.NotRunning as e:
        assert "nobody listens on" in str(e), e
    finally:
        dead.close()
        os.unlink(os.path.join(env.dir, "dead.sock"))
    try:
        skin.Shm(os.path.join(env.dir, "absent.shm"))
        raise AssertionError("mapped nothing")
    except skin.NotRunning as e:
        assert "absent.shm" in str(e), e
    for args in (["-m", "skin", "--socket", gone, "status"],
                 ["-m", "skin", "--shm-path", os.path.join(env.dir, "absent.shm"), "shm"],
                 [os.path.join(SRC, "clients/python/examples/plot_taxel.py"), "--socket", gone,
                  "pad", "3"]):
        r = py_run(args)
        no_traceback(r, args)
        assert "skind is not running: no " in r.stderr, r.stderr
    # a user outside the socket's group: told so, in one line
    closed = os.path.join(env.dir, "closed")
    os.mkdir(closed)
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(os.path.join(closed, "s.sock"))
    lsock.listen(1)
    os.chmod(os.path.join(closed, "s.sock"), 0o600)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:        # the package is imported already: no file to read
        try:
            os.close(rfd)
            become(65534, 65534)
            try:
                skin.Client(os.path.join(closed, "s.sock"))
                msg = "connected"
            except skin.PermissionDenied as e:
                msg = "PermissionDenied " + str(e)
            except BaseException as e:
                msg = repr(e)
            os.write(wfd, msg.encode())
        finally:
            os._exit(0)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as f:
        msg = f.read().decode()
    os.waitpid(pid, 0)
    lsock.close()
    assert msg == ("PermissionDenied no permission to open %s: skind's clients are the members "
                   "of group skin (adduser $USER skin, then log in again)"
                   % os.path.join(closed, "s.sock")), msg


@case("the Python package: the example plots a taxel over time")
def t_python_example(env):
    d = env.daemon
    example = os.path.join(SRC, "clients/python/examples/plot_taxel.py")
    env.feed.cmd("press pad 60 4")
    expect_contacts(d, "pad", [[4]])
    r = py_run([example, "--socket", d.sock, "--seconds", "1.5", "--print", "pad", "4"])
    env.feed.cmd("release pad")
    assert r.returncode == 0, r
    rows = [l.split() for l in r.stdout.splitlines()]
    # 50 Hz for 1.5 s: most of the 75 samples, on a loaded machine too
    assert len(rows) >= 30, r.stdout
    times = [float(w[0]) for w in rows]
    assert times == sorted(times) and times[0] == 0.0, times
    assert all(float(w[1]) > 0 and w[2:] == ["touched"] for w in rows[:5]), rows[:5]
    r = py_run([example, "--socket", d.sock, "--seconds", "0.5", "pad", "999"])
    no_traceback(r, "taxel out of range")
    assert "part pad has taxels 0.." in r.stderr, r.stderr
    if py_run(["-c", "import matplotlib"]).returncode != 0:
        png = os.path.join(env.dir, "taxel.png")
        r = py_run([example, "--socket", d.sock, "--seconds", "0.5", "--out", png, "pad", "4"])
        no_traceback(r, "--out without matplotlib")
        assert "needs matplotlib" in r.stderr and not os.path.exists(png), r.stderr


@case("the Python package: the example draws the taxel into a PNG (matplotlib)")
def t_python_png(env):
    d = env.daemon
    if py_run(["-c", "import matplotlib"]).returncode != 0:
        raise Skip("no matplotlib for %s (python3-matplotlib)" % sys.executable)
    example = os.path.join(SRC, "clients/python/examples/plot_taxel.py")
    png = os.path.join(env.dir, "taxel.png")
    env.feed.cmd("press pad 60 4")
    expect_contacts(d, "pad", [[4]])
    r = py_run([example, "--socket", d.sock, "--seconds", "1", "--out", png, "pad", "4"])
    env.feed.cmd("release pad")
    assert r.returncode == 0 and re.match(r"^%s: \d+ samples$" % re.escape(png), r.stdout), r
    with open(png, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", head
    width, height = struct.unpack(">II", head[16:24])
    assert (width, height) == (800, 300), (width, height)


@case("--log-prefix: <N> priorities on stderr")
def t_prefix(env):
    p = subprocess.run([SKIND, "-c", "/nonexistent/skind.conf", "--log-prefix",
                        "-s", os.path.join(env.dir, "x.sock"), "--shm",
                        os.path.join(env.dir, "x.shm")], capture_output=True, text=True,
                       timeout=10)
    assert p.returncode == 1, p
    assert re.match(r"<3>/nonexistent/skind.conf", p.stderr), p.stderr


@case("SIGTERM: clean exit, the socket and the shm name removed")
def t_sigterm(env):
    d = env.daemon
    with d.client() as c:
        c.command("subscribe contacts all")
        rc = d.stop(signal.SIGTERM)
        assert rc == 0, (rc, d.log()[-2000:])
        c.sock.settimeout(5)
        try:
            while True:
                c.read_line()
        except ConnectionResetError:
            pass
    assert not os.path.exists(d.sock) and not os.path.exists(d.shm)
    env.daemon = None


# --- the command line: every program, completion, terminals ------------------

SKINSIM = os.environ.get("SKINSIM", os.path.join(SRC, "build/meson/tools/skinsim/skinsim"))
SKIN_YARP = os.environ.get("SKIN_YARP", os.path.join(SRC, "build/meson/bridges/yarp/skin-yarp"))
SKIN_ETH = os.environ.get("SKIN_ETH", os.path.join(SRC, "build/meson/bridges/eth/skin-eth"))
SKIN_VIEW = os.environ.get("SKIN_VIEW", os.path.join(SRC, "build/meson/bridges/view/skin-view"))
# empty: not built here (no Cyclone DDS)
SKIN_ROS2_BRIDGE = os.environ.get("SKIN_ROS2_BRIDGE",
                                  os.path.join(SRC, "build/meson/bridges/ros2/skin-ros2-bridge"))
SKIN_BUILD = os.environ.get("SKIN_BUILD", os.path.join(SRC, "build/meson"))


def meson_version():
    with open(os.path.join(SRC, "meson.build")) as f:
        m = re.search(r"^\s*version\s*:\s*'([^']*)'", f.read(), re.M)
    assert m, "no version in meson.build"
    return m.group(1)


def long_options(text):
    """The --long options a usage text names."""
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))


def skinctl_commands():
    r = subprocess.run([SKINCTL, "--help"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r
    cmds = re.findall(r"^  ([a-z]+) ", r.stdout.split("commands:", 1)[1], re.M)
    assert len(cmds) >= 10, r.stdout
    return cmds


@case("every program: --help on stdout, --version, usage and 2 for an unknown option")
def t_cli_help_version(env):
    version = meson_version()
    progs = [("skind", SKIND), ("skinctl", SKINCTL), ("skinsim", SKINSIM),
             ("skin-yarp", SKIN_YARP), ("skin-eth", SKIN_ETH), ("skin-view", SKIN_VIEW)]
    if SKIN_ROS2_BRIDGE:
        progs.append(("skin-ros2-bridge", SKIN_ROS2_BRIDGE))
    else:
        print("# skin-ros2-bridge not built here (no Cyclone DDS): not checked")
    for name, path in progs:
        r = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10)
        assert r.returncode == 0 and r.stderr == "", (name, r)
        assert re.match(r"(?i)usage: %s " % re.escape(name), r.stdout), (name, r.stdout[:200])
        assert "--help" in r.stdout and "--version" in r.stdout, (name, r.stdout)
        r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
        assert r.returncode == 0 and r.stderr == "", (name, r)
        assert r.stdout == "%s %s\n" % (name, version), (name, r.stdout)
        r = subprocess.run([path, "--no-such-option"], capture_output=True, text=True,
                           timeout=10)
        assert r.returncode == 2 and r.stdout == "", (name, r)
        assert re.search(r"(?i)usage: %s " % re.escape(name), r.stderr), (name, r.stderr)
    # skind reports the same version on its socket
    assert env.daemon.status()["version"] == version
    # skinctl: help COMMAND and COMMAND --help, for every command
    for cmd in skinctl_commands():
        a = subprocess.run([SKINCTL, "help", cmd], capture_output=True, text=True, timeout=10)
        b = subprocess.run([SKINCTL, cmd, "--help"], capture_output=True, text=True,
                           timeout=10)
        for r in (a, b):
            assert r.returncode == 0 and r.stderr == "", (cmd, r)
            assert r.stdout.startswith("usage: skinctl %s" % cmd), (cmd, r.stdout)
        assert a.stdout == b.stdout, (cmd, a.stdout, b.stdout)
    r = subprocess.run([SKINCTL, "help", "nosuch"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and "no command 'nosuch'" in r.stderr, r


BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
COMPLETE = r'''
. %(bc)s
. %(file)s
set -- %(line)s
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
_%(fn)s "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%%s\n' "${COMPREPLY[@]}"
'''


def complete(prog, words, cwd=None, extra_env=None, wrap=()):
    """COMPREPLY of completion/PROG (bash-completion's own helpers) for the
    command line @words, the last one being completed ("" for a new word)."""
    line = " ".join(shlex.quote(w) for w in words)
    fn = prog.replace("-", "_")
    script = COMPLETE % {"bc": BASH_COMPLETION, "file": os.path.join(SRC, "completion", prog),
                         "line": line, "fn": fn}
    r = subprocess.run(list(wrap) + ["bash", "--norc", "--noprofile", "-c", script],
                       capture_output=True, text=True, timeout=30, cwd=cwd,
                       env=dict(os.environ, **(extra_env or {})))
    assert r.returncode == 0, (words, r)
    return sorted(x for x in r.stdout.split("\n") if x)


@case("bash completion: skinctl's commands, options and parts; skind's and skinsim's options")
def t_completion(env):
    if not os.path.exists(BASH_COMPLETION):
        raise Skip("bash-completion is not installed (scripts/install-deps test)")
    d = env.daemon
    e = {"SKIN_SOCKET": d.sock}
    cmds = skinctl_commands()
    # the commands, as skinctl --help lists them (and help)
    assert complete("skinctl", [SKINCTL, ""]) == sorted(cmds + ["help"])
    assert complete("skinctl", [SKINCTL, "ca"]) == ["calibrate"]
    assert complete("skinctl", [SKINCTL, "--"]) == ["--help", "--version"]
    assert complete("skinctl", [SKINCTL, "help", "sn"]) == ["snapshot"]
    # each command's options: every one its usage names, completed
    for cmd in cmds:
        r = subprocess.run([SKINCTL, cmd, "--help"], capture_output=True, text=True,
                           timeout=10)
        want = long_options(r.stdout) | {"--help"}
        got = set(complete("skinctl", [SKINCTL, cmd, "--"]))
        assert want <= got, (cmd, sorted(want - got))
    # option values
    assert complete("skinctl", [SKINCTL, "view", "pad", "--projection", ""]) == \
        ["auto", "cylinder", "plane"]
    assert complete("skinctl", [SKINCTL, "view", "--color", "t"]) == ["truecolor"]
    assert complete("skinctl", [SKINCTL, "process", "--format", ""]) == ["bottle", "json"]
    assert complete("skinctl", [SKINCTL, "convert", "--to", "sk"]) == ["skingui", "skinware"]
    # skind's parts, from skind itself ($SKIN_SOCKET, or --socket)
    assert complete("skinctl", [SKINCTL, "view", ""], extra_env=e) == ["left_forearm", "pad"]
    assert complete("skinctl", [SKINCTL, "calibrate", "--wait", "le"], extra_env=e) == \
        ["left_forearm"]
    assert complete("skinctl", [SKINCTL, "contacts", "--socket", d.sock, "p"]) == ["pad"]
    assert complete("skinctl", [SKINCTL, "view", ""],
                    extra_env={"SKIN_SOCKET": "/nonexistent"}) == []
    # files where an option takes one
    assert complete("skinctl", [SKINCTL, "view", "pad", "--config", "skind.c"],
                    cwd=d.dir) == ["skind.conf"]
    # /dev/skin: in a mount namespace of its own with a /dev of our making
    if shutil.which("unshare"):
        wrap = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount -t tmpfs skin /dev && mknod -m 666 /dev/null c 1 3 && "
                "mkdir /dev/skin && touch /dev/skin/left_hand /dev/skin/pad && exec \"$@\"",
                "sh"]
        probe = subprocess.run(wrap + ["true"], capture_output=True, timeout=10)
        if probe.returncode == 0:
            assert complete("skinctl", [SKINCTL, "dump", "/dev/skin/"], wrap=wrap) == \
                ["/dev/skin/left_hand", "/dev/skin/pad"]
            assert complete("skinctl", [SKINCTL, "start", "/dev/skin/l"], wrap=wrap) == \
                ["/dev/skin/left_hand"]
        else:
            print("# no mount namespace here: /dev/skin completion not checked")
    # skind and skinsim: every option their --help names
    for prog, path in (("skind", SKIND), ("skinsim", SKINSIM)):
        r = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10)
        want = long_options(r.stdout)
        assert {"--help", "--version", "--config"} <= want, (prog, want)
        got = set(complete(prog, [path, "--"]))
        assert want == got, (prog, sorted(want - got), sorted(got - want))
    assert complete("skind", [SKIND, "--config", "skind.c"], cwd=d.dir) == ["skind.conf"]
    assert complete("skind", [SKIND, "--rings", "ri"], cwd=env.dir) == ["rings/"] or \
        complete("skind", [SKIND, "--rings", "ri"], cwd=env.dir) == ["rings"]
    assert complete("skinsim", [SKINSIM, "--class", ""]) == ["3", "4"]
    assert complete("skinsim", [SKINSIM, "de"], cwd=os.path.join(SRC, "etc/scenarios")) == \
        ["demo.scn"]


# The boards' owners' Wireshark dissector, read where this tree sits
# (../shared/third-party/embobj: docs/ETH.md), never copied into it
DISSECTOR = os.path.join(os.path.dirname(SRC), "shared", "third-party", "embobj",
                         "icub-firmware-shared", "eth", "embobj_wireshark.lua")


def dissector_for(tshark, dirname):
    """The dissector as this tshark's Lua takes it: the owners' file when
    its Lua is 5.3 or later; under 5.2 (Debian 12's) a copy in dirname
    with its three uses of Lua 5.3's `&` written with Lua 5.2's bit32."""
    r = subprocess.run([tshark, "-v"], capture_output=True, text=True, timeout=60)
    m = re.search(r"Lua\s+(\d+)\.(\d+)", r.stdout)	# (-v wraps its lines)
    if not m:
        raise Skip("this tshark has no Lua: it cannot run the owners' dissector")
    if (int(m.group(1)), int(m.group(2))) >= (5, 3):
        return DISSECTOR
    with open(DISSECTOR, encoding="utf-8") as f:
        text = f.read()
    text, n = re.subn(r"bit\.rshift\((id32_le,\s*\d+)\)\s*&\s*0xFF",
                      r"bit32.band(bit32.rshift(\1), 0xFF)", text)
    assert n == 3, "the dissector changed: %d uses of '&' where 3 were" % n
    assert "&" not in text, "another '&' in the dissector"
    patched = os.path.join(dirname, "embobj_wireshark.lua")
    with open(patched, "w", encoding="utf-8") as f:
        f.write(text)
    return patched


def pdml_fields(packet):
    """A PDML packet's items in order: (name, show, value, pos, size),
    a text item (the dissector's "Data (N B)") with the name '' and its
    label as show (tshark 4.0 names a Lua text item _ws.lua.text, with the
    label in showname, show and value empty)."""
    out = []
    for el in packet.iter():
        if el.tag in ("proto", "field"):
            name = el.get("name", "")
            show = el.get("show", "")
            if name in ("", "_ws.lua.text"):
                name, show = "", show or el.get("showname", "")
            out.append((name, show, el.get("value"),
                        int(el.get("pos", "0")), int(el.get("size", "0"))))
    return out


def pcap_payloads(path):
    """The packets of a pcap file (microseconds, this host's order), raw."""
    with open(path, "rb") as f:
        data = f.read()
    assert struct.unpack_from("=I", data, 0)[0] == 0xa1b2c3d4
    off, pkts = 24, []
    while off < len(data):
        _, _, caplen, _ = struct.unpack_from("=IIII", data, off)
        pkts.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return pkts


@case("the owners' Wireshark dissector under tshark reads skinsim's ETH capture as skinsim sent it")
def t_eth_dissector(env):
    tshark = shutil.which("tshark")
    if not tshark:
        raise Skip("tshark is not installed (scripts/install-deps test)")
    if not os.path.exists(DISSECTOR):
        raise Skip("no %s (the owners' files beside this tree)" % DISSECTOR)
    d = tempfile.mkdtemp(prefix="eth-dissector-", dir=env.dir)
    lua = dissector_for(tshark, d)
    cap, log = os.path.join(d, "eth.pcap"), os.path.join(d, "can.log")
    # two boards: eb24 with both CAN ports, eb10 with one patch on CAN2;
    # the ROPs without signature or time, as the boards send them, so the
    # dissector's placing of those before the data changes nothing
    boards = {"10.0.1.24": ("eb24", ["eb24can1", "eb24can2"]),
              "10.0.1.10": ("eb10", ["eb10can2"])}
    args = ["-c", os.path.join(SRC, "etc/skind.conf"), "-d", "300ms", "--fast",
            "--epoch", "1700000000", "-s", "3", "--bus", "can0=eb24can1",
            "--bus", "can1=eb24can2", "--bus", "can2=eb10can2"]
    r = subprocess.run([SKINSIM] + args + ["--board", "10.0.1.24", "--board", "10.0.1.10:2",
                                           "--pcap", cap, "--log", log],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r
    r = subprocess.run([tshark, "-n", "-X", "lua_script:" + lua, "-r", cap, "-T", "pdml"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, HOME=d))
    assert r.returncode == 0 and "Lua: Error" not in r.stderr, (r.returncode, r.stderr[-2000:])
    packets = ET.fromstring(r.stdout).findall("packet")
    raw = pcap_payloads(cap)
    assert len(packets) == len(raw) and len(raw) >= 2 * 300, (len(packets), len(raw))

    seen = {a: 0 for a in boards}
    frames = {i: [] for _, ifs in boards.values() for i in ifs}
    for k, pkt in enumerate(packets):
        f = pdml_fields(pkt)
        src = next(show for name, show, _, _, _ in f if name == "ip.src")
        udp_len = next(int(show) for name, show, _, _, _ in f if name == "udp.length")
        hdr = {name: int(show) for name, show, _, _, _ in f
               if name in ("embobj_rop.ropsize", "embobj_rop.nrops", "embobj_rop.age",
                           "embobj_rop.seq")}
        assert len(hdr) == 4, ("packet %d: the dissector did not decode it" % (k + 1),
                               r.stderr[-2000:])
        name, ifs = boards[src]
        seen[src] += 1
        seq = seen[src]
        # the header: what skinsim means (docs/ETH.md): sequence from 1,
        # age in us, 3 ROPs for each of 4 joints, a skin ROP per patch
        # and a management ROP in the first of each thousand
        assert hdr["embobj_rop.seq"] == seq, (src, hdr, seq)
        assert hdr["embobj_rop.age"] == seq * 1000, (src, hdr)
        assert hdr["embobj_rop.nrops"] == 12 + len(ifs) + (seq % 1000 == 1), (src, hdr)
        assert hdr["embobj_rop.ropsize"] == udp_len - 8 - 28, (src, hdr, udp_len)
        # each ROP: its id32's parts, its data size, its "Data (N B)"
        rops, cur = [], None
        for fname, show, value, pos, size in f:
            if fname == "embobj_rop.dsize":
                cur = {"dsize": int(show)}
                rops.append(cur)
            elif fname.startswith("embobj_rop.id32.") and cur is not None:
                cur[fname.rsplit(".", 1)[1]] = int(show, 0)
            elif not fname and re.match(r"Data \(\d+ B\)$", show) and cur is not None:
                data = bytes.fromhex(value) if value else raw[k][pos:pos + size]
                assert len(data) == size == cur["dsize"], (show, len(data), cur)
                cur["data"] = data
        assert len(rops) == hdr["embobj_rop.nrops"], (src, seq, rops)
        skin = [x for x in rops if x["ep"] == 3]
        mc = [x for x in rops if x["ep"] == 1]
        mn = [x for x in rops if x["ep"] == 0]
        assert len(mc) == 12 and len(mn) == (seq % 1000 == 1), rops
        assert sorted((x["ent"], x["idx"], x["tag"], x["dsize"]) for x in mc) == \
            sorted([(0, j, 10, 40) for j in range(4)] + [(0, j, 15, 12) for j in range(4)] +
                   [(1, j, 9, 24) for j in range(4)]), mc
        assert all((x["ent"], x["idx"], x["tag"], x["dsize"]) == (2, 0, 3, 72) for x in mn), mn
        assert [(x["ent"], x["idx"], x["tag"], x["dsize"]) for x in skin] == \
            [(0, p, 2, 244) for p in range(len(ifs))], skin
        # the skin's array of CAN frames, as the dissector delimits it
        for x in skin:
            cap_, isz, count = x["data"][0], x["data"][1], x["data"][2]
            assert (cap_, isz) == (24, 10) and count <= 24, x["data"][:4]
            for i in range(count):
                info, = struct.unpack_from("<H", x["data"], 4 + 10 * i)
                n = info >> 12
                body = x["data"][6 + 10 * i:6 + 10 * i + n]
                frames[ifs[x["idx"]]].append("%03X#%s" % (info & 0x7ff, body.hex().upper()))
    assert seen["10.0.1.24"] == seen["10.0.1.10"] >= 300, seen
    # the frames equal skinsim's CAN log of the same run, per interface
    want = {i: [] for i in frames}
    with open(log) as f:
        for line in f:
            _, ifname, frame = line.split()
            want[ifname].append(frame)
    for i in frames:
        assert len(want[i]) > 100, (i, len(want[i]))
        diff = [(k, a, b) for k, (a, b) in enumerate(zip(frames[i], want[i])) if a != b]
        assert frames[i] == want[i], (i, len(frames[i]), len(want[i]), diff[:3])
    print("# tshark: %d datagrams, %s frames decoded by the owners' dissector (%s)"
          % (len(packets), sum(len(v) for v in frames.values()),
             "patched for Lua 5.2" if lua != DISSECTOR else "as it is"))


# The head PC's stand-in for yarprobotinterface: bound to the boards' port,
# it writes (source, length, sequence number) of every datagram it got
# when SIGTERM comes
ETH_PORT_OWNER = r"""
import signal, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.bind(("0.0.0.0", 12345))
got = []
def stop(*_):
    with open(sys.argv[1], "w") as f:
        f.writelines("%s %d %d\n" % g for g in got)
    sys.exit(0)
signal.signal(signal.SIGTERM, stop)
open(sys.argv[1] + ".ready", "w").close()
while True:
    d, a = s.recvfrom(65536)
    got.append((a[0], len(d), struct.unpack_from("<Q", d, 16)[0] if len(d) >= 24 else 0))
"""


def eth_counters(path):
    """skin-eth's counters file: {(kind, name): {key: value}} (docs/ETH.md)."""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            out[(w[0], w[1])] = {k: (int(v) if v.isdigit() else v)
                                 for k, v in (x.split("=", 1) for x in w[2:])}
    return out


def candump_frames(text):
    """A candump -L log's lines without their times: 'IF ID#DATA'."""
    return [line.split(" ", 1)[1] for line in text.splitlines() if line]


@case("skin-eth live beside the port's owner: every datagram still reaches it, the log is the replay's, bad input counted, link down and restart survived")
def t_eth_live(env):
    if os.geteuid() != 0 or not shutil.which("ip"):
        raise Skip("needs root and ip(8) for two network namespaces")
    tag = "%d" % os.getpid()
    robot, head = "skinr" + tag, "skinh" + tag
    d = tempfile.mkdtemp(prefix="eth-live-", dir=env.dir)
    boards = ["--board", "10.0.1.24", "--board", "10.0.1.10:2"]
    sim = [SKINSIM, "-c", os.path.join(SRC, "etc/skind.conf"), "-d", "700ms", "-s", "5",
           "--bus", "can0=eb24can1", "--bus", "can1=eb24can2", "--bus", "can2=eb10can2",
           "--eth"] + boards

    def ns(name, *cmd, **kw):
        return subprocess.run(["ip", "netns", "exec", name] + list(cmd), capture_output=True,
                              text=True, timeout=kw.get("timeout", 60))

    def sh(*cmd):
        r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, (cmd, r.stderr)

    if subprocess.run(["ip", "netns", "add", robot], capture_output=True).returncode:
        raise Skip("no network namespaces here (ip netns add)")
    procs, reading = [], [False]
    try:
        sh("ip", "netns", "add", head)
        sh("ip", "link", "add", "r0", "netns", robot, "type", "veth", "peer", "name", "h0",
           "netns", head)
        for a in ("10.0.1.24/24", "10.0.1.10/24", "10.0.1.99/24"):
            sh("ip", "-n", robot, "addr", "add", a, "dev", "r0")
        sh("ip", "-n", head, "addr", "add", "10.0.1.104/24", "dev", "h0")
        for n, i in ((robot, "r0"), (head, "h0"), (robot, "lo"), (head, "lo")):
            sh("ip", "-n", n, "link", "set", i, "up")

        owner_out = os.path.join(d, "owner.txt")
        owner = subprocess.Popen(["ip", "netns", "exec", head, sys.executable, "-c",
                                  ETH_PORT_OWNER, owner_out])
        procs.append(owner)
        assert wait_for(lambda: os.path.exists(owner_out + ".ready"), 30)

        def gateway(n, extra=(), notify=None):
            log, cnt, err = (os.path.join(d, "gw%d.%s" % (n, x)) for x in ("log", "cnt", "err"))
            e = dict(os.environ)
            if notify:
                e.update(NOTIFY_SOCKET=notify, WATCHDOG_USEC="400000")
            p = subprocess.Popen(["ip", "netns", "exec", head, SKIN_ETH, "--no-can",
                                  "--interface", "h0", "--log", log, "--counters", cnt] + boards +
                                 list(extra), env=e,
                                 stderr=open(err, "w"))
            procs.append(p)
            assert wait_for(lambda: os.path.exists(cnt) or p.poll() is not None, 30)
            assert p.poll() is None, open(err).read()
            return p, log, cnt, err

        def send(n):
            """skinsim's boards for a while: what they sent (pcap) and its replay."""
            pcap = os.path.join(d, "sent%d.pcap" % n)
            r = ns(robot, *(sim + ["--pcap", pcap]), timeout=120)
            assert r.returncode == 0, r.stderr
            r = subprocess.run([SKIN_ETH, "--replay", pcap] + boards, capture_output=True,
                               text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            return pcap_payloads(pcap), candump_frames(r.stdout)

        def settle(cnt, packets):
            """Wait until the gateway's counters say it took @packets packets."""
            assert wait_for(lambda: eth_counters(cnt)[("capture", "-")]["packets"] >= packets,
                            60), (eth_counters(cnt), packets)
            return eth_counters(cnt)

        gw, log, cnt, err = gateway(1)
        sent1, want1 = send(1)
        c = settle(cnt, len(sent1))
        # SIGUSR1: every counter on stderr, the gateway going on
        gw.send_signal(signal.SIGUSR1)
        said_usr1 = "capture: packets %d " % c[("capture", "-")]["packets"]
        assert wait_for(lambda: said_usr1 in open(err).read() and
                        "eb10 10.0.1.10: datagrams " in open(err).read(), 30), open(err).read()
        assert gw.poll() is None
        # bad input from the robot side, after skinsim's run: malformed
        # datagrams of a board (framing broken, so its sequence is not
        # followed), a valid one from an address that is no board, one on
        # another port (the kernel's filter keeps it from the gateway),
        # and one too large for the link (IP fragments)
        good = sent1[0][42:]
        bad = [good[:8],                                   # truncated
               b"\x00" + good[1:],                         # bad_start
               good + b"\x00\x00\x00\x00",                 # bad_size
               good[:-4] + b"\x00\x00\x00\x00"]            # bad_end
        sender = ("import socket, sys\n"
                  "def send(src, sport, dport, data):\n"
                  "    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                  "    s.bind((src, sport)); s.sendto(data, ('10.0.1.104', dport)); s.close()\n"
                  "bad = [bytes.fromhex(x) for x in sys.argv[2:]]\n"
                  "good = bytes.fromhex(sys.argv[1])\n"
                  "for b in bad: send('10.0.1.24', 12345, 12345, b)\n"
                  "send('10.0.1.99', 12345, 12345, good)\n"
                  "send('10.0.1.24', 40000, 40000, good)\n"
                  "send('10.0.1.24', 12345, 12345, good * 6)\n")
        r = ns(robot, sys.executable, "-c", sender, good.hex(), *[b.hex() for b in bad])
        assert r.returncode == 0, r.stderr
        c = settle(cnt, len(sent1) + len(bad) + 1)
        time.sleep(1.5)     # the counters file once more, and the log flushed
        c = eth_counters(cnt)
        pk = c[("capture", "-")]
        eb24, eb10 = c[("board", "eb24")], c[("board", "eb10")]
        # the sent datagrams, the 4 malformed and the first fragment (the
        # only one with the UDP header) went in; the spoofed one was
        # counted by the kernel's filter and kept out, and the foreign
        # port was not even counted
        assert pk["packets"] == len(sent1) + len(bad) + 1, (pk, len(sent1))
        assert pk["ip_fragment"] == 1 and pk["other_port"] == 0, pk
        assert (eb24["truncated"], eb24["bad_start"], eb24["bad_size"], eb24["bad_end"]) == \
            (1, 1, 1, 1), eb24
        assert pk["foreign_filtered"] == 1, pk
        assert c[("foreign", "-")]["datagrams"] == 0, c[("foreign", "-")]
        drops = pk["socket_drops"]
        assert eb24["lost"] + eb10["lost"] == drops, (eb24, eb10, pk)
        assert eb24["published"] + eb10["published"] + drops == len(sent1), (eb24, eb10)
        got1 = candump_frames(open(log).read())
        if not drops:
            assert got1 == want1, (len(got1), len(want1))
        else:       # a loaded host: what the kernel kept, in order
            it = iter(want1)
            assert all(x in it for x in got1), "the log is not the replay's, in order"
            print("# the kernel dropped %d datagrams for the gateway (loaded host)" % drops)

        # the head PC's link down and up: the gateway lives on and resumes
        sh("ip", "-n", head, "link", "set", "h0", "down")
        time.sleep(0.5)
        sh("ip", "-n", head, "link", "set", "h0", "up")
        assert wait_for(lambda: "state UP" in subprocess.run(
            ["ip", "-n", head, "link", "show", "h0"], capture_output=True,
            text=True).stdout, 30)
        sent2, want2 = send(2)
        c = settle(cnt, pk["packets"] + len(sent2))
        assert gw.poll() is None, open(err).read()
        gw.send_signal(signal.SIGTERM)
        assert gw.wait(timeout=30) == 0, open(err).read()
        c = eth_counters(cnt)
        drops = c[("capture", "-")]["socket_drops"]
        got = candump_frames(open(log).read())
        assert got[:len(got1)] == got1
        if not drops:
            assert got[len(got1):] == want2, (len(got) - len(got1), len(want2))
        e = open(err).read()
        assert "eb24 10.0.1.24: datagrams" in e and "foreign_filtered 1" in e, e

        # killed, and started again: the new one reads the boards anew,
        # this time through the receive ring (--ring-ms), the same frames
        gw, log, cnt, err = gateway(2)
        gw.kill()
        gw.wait(timeout=30)
        # ... under systemd's eye: READY=1, the watchdog, a STATUS= line
        # that counts the run, STOPPING=1
        # (read all along, as systemd does: a full queue, 10 datagrams
        # here, would block the gateway's next notification)
        notify = os.path.join(d, "notify")
        nsock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        nsock.bind(notify)
        nsock.settimeout(0.2)
        said, reading = [], [True]

        def read_notify():
            while reading[0]:
                try:
                    said.extend(nsock.recv(4096).decode().split("\n"))
                except socket.timeout:
                    pass
        reader = threading.Thread(target=read_notify)
        reader.start()
        gw, log, cnt, err = gateway(3, ["--ring-ms", "2"], notify)
        # the link down and up under the ring too: the socket's error is
        # taken (read without recv(), epoll would report it for ever: a
        # gateway spinning on it takes a whole core, an idle one nothing)
        sh("ip", "-n", head, "link", "set", "h0", "down")
        sh("ip", "-n", head, "link", "set", "h0", "up")
        assert wait_for(lambda: "state UP" in subprocess.run(
            ["ip", "-n", head, "link", "show", "h0"], capture_output=True,
            text=True).stdout, 30)

        def cpu_s(pid):
            f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
            return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
        c0, t0 = cpu_s(gw.pid), time.monotonic()
        time.sleep(2)
        busy = (cpu_s(gw.pid) - c0) / (time.monotonic() - t0)
        assert busy < 0.5, "the gateway spins after the link went down: %.0f%% of a core" % (
            100 * busy)
        sent3, want3 = send(3)
        c = settle(cnt, len(sent3))
        status = "STATUS=datagrams %d frames %d rejected 0 lost 0" % (
            len(sent3), c[("board", "eb24")]["frames"] + c[("board", "eb10")]["frames"])
        assert wait_for(lambda: status in said, 30), (status, said)
        assert "READY=1" in said and "WATCHDOG=1" in said and status in said, (status, said)
        time.sleep(1.5)
        drops = eth_counters(cnt)[("capture", "-")]["socket_drops"]
        if not drops:
            assert candump_frames(open(log).read()) == want3
        else:
            print("# the ring's run not compared: the kernel dropped %d datagrams" % drops)
        gw.send_signal(signal.SIGTERM)
        assert gw.wait(timeout=30) == 0, open(err).read()
        assert wait_for(lambda: "STOPPING=1" in said, 10), said
        reading[0] = False
        reader.join()
        nsock.close()

        # the port's owner got every datagram skinsim sent, but those its
        # own kernel dropped for a full buffer (counted there)
        owner.send_signal(signal.SIGTERM)
        assert owner.wait(timeout=30) == 0
        got = {tuple(x.split()) for x in open(owner_out)}
        snmp = ns(head, "cat", "/proc/net/snmp").stdout.split("\n")
        udp = [x.split() for x in snmp if x.startswith("Udp: ")]
        rcvbuf_errors = int(udp[1][udp[0].index("RcvbufErrors")])
        missing = 0
        for pkts in (sent1, sent2, sent3):
            for p in pkts:
                src = socket.inet_ntoa(p[26:30])
                key = (src, str(len(p) - 42), str(struct.unpack_from("<Q", p, 42 + 16)[0]))
                missing += key not in got
        assert missing <= rcvbuf_errors, (missing, rcvbuf_errors)
        print("# %d datagrams sent in three runs; the port's owner got them all%s"
              % (len(sent1) + len(sent2) + len(sent3),
                 "" if not missing else " but %d its kernel dropped" % missing))
    finally:
        reading[0] = False
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.run(["ip", "netns", "del", robot], capture_output=True)
        subprocess.run(["ip", "netns", "del", head], capture_output=True)


def tmux(sock, *args, check=True):
    r = subprocess.run(["tmux", "-S", sock] + list(args), capture_output=True, text=True,
                       timeout=10)
    assert not check or r.returncode == 0, (args, r)
    return r.stdout


def pane_rows(sock):
    """The pane's rows as they are on the screen (no trailing blanks)."""
    return tmux(sock, "capture-pane", "-p", "-t", "t").split("\n")[:-1]


def proc_pids(root):
    """(pid, name) of every process under @root."""
    return [(p, n) for p, n, _ in proc_tree(root)]


def proc_states(root):
    """(name, state: R, S, T...) of every process under @root."""
    return [(n, st) for _, n, st in proc_tree(root)]


def proc_tree(root):
    kids = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/stat" % pid) as f:
                    st = f.read()
            except OSError:
                continue
            name = st[st.index("(") + 1:st.rindex(")")]
            fields = st[st.rindex(")") + 2:].split()
            kids.setdefault(int(fields[1]), []).append((int(pid), name, fields[0]))
    out, todo = [], [root]
    while todo:
        for pid, name, state in kids.get(todo.pop(), []):
            out.append((pid, name, state))
            todo.append(pid)
    return out


def tmux_session(env, cmd, e, cols=80, rows=24):
    if not shutil.which("tmux"):
        raise Skip("tmux is not installed (scripts/install-deps test)")
    sock = os.path.join(env.dir, "tmux.%d" % env.next_log())
    tmux(sock, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", str(cols),
         "-y", str(rows), "-e", "TERM=xterm-256color",
         *sum((["-e", "%s=%s" % kv] for kv in e.items()), []), cmd)
    tmux(sock, "set-option", "-t", "t", "remain-on-exit", "on")
    return sock


@case("skinctl view in a tmux pane: the status line stays on the top row")
def t_view_tmux(env):
    d = env.daemon
    status = os.path.join(env.dir, "view.status")
    sock = tmux_session(env, "%s view pad --config %s --rate 50; echo $? >%s"
                        % (SKINCTL, d.config, status), {"SKIN_SOCKET": d.sock})
    try:
        ok = wait_for(lambda: pane_rows(sock)[0].startswith("pad  sample "), 10)
        rows = pane_rows(sock)
        assert ok, rows
        env.feed.cmd("press pad 60 5 6")
        assert wait_for(lambda: "contacts 1" in pane_rows(sock)[0], 10), pane_rows(sock)
        # redrawn many times over: the frame fills the pane and has not
        # scrolled it (status line on the top row, caption on the bottom)
        time.sleep(0.5)
        rows = pane_rows(sock)
        assert len(rows) == 24, rows
        assert rows[0].startswith("pad  sample "), rows
        assert rows[23].startswith("3D positions projected on their best-fit plane | "), rows
        env.feed.cmd("release pad")
        tmux(sock, "send-keys", "-t", "t", "q")
        assert wait_for(lambda: os.path.exists(status), 10), pane_rows(sock)
        time.sleep(0.1)
        with open(status) as f:
            assert f.read() == "0\n", pane_rows(sock)
    finally:
        tmux(sock, "kill-server", check=False)
        expect_contacts(d, "pad", [])


@case("scripts/demo --native in a tmux pane: its live views draw and keep their status line")
def t_demo_tmux(env):
    for prog in ("skinsim", "skind", "skinctl"):
        assert os.path.exists({"skinsim": SKINSIM, "skind": SKIND, "skinctl": SKINCTL}[prog])
    # the demo starts skinsim and a skind of its own (its socket in its
    # temporary directory), from the programs this layer built
    # (its exit status through a file: tmux 3.3a sometimes marks the pane
    # dead without ever giving its status)
    status = os.path.join(env.dir, "demo.status")
    sock = tmux_session(env, "%s/scripts/demo --native; echo $? >%s" % (SRC, status),
                        {"SKIN_DEMO_BUILD": SKIN_BUILD})
    pid = int(tmux(sock, "display-message", "-p", "-t", "t", "#{pane_pid}").strip())
    try:
        for part in ("left_forearm", "left_hand"):
            ok = wait_for(lambda: pane_rows(sock)[0].startswith(part + "  sample "), 40, 0.2)
            rows = pane_rows(sock)
            states = proc_states(pid)
            assert ok, (rows, states)
            assert rows[23].startswith("3D positions "), rows     # the caption
            # the view runs (not stopped by the terminal: state T)
            views = [s for n, s in states if n == "skinctl"]
            assert views and "T" not in views, states
            time.sleep(0.5)
            assert pane_rows(sock)[0].startswith(part + "  sample "), pane_rows(sock)
            tmux(sock, "send-keys", "-t", "t", "q")
        assert wait_for(lambda: os.path.exists(status), 40), (proc_states(pid), pane_rows(sock))
        time.sleep(0.1)
        with open(status) as f:
            assert f.read() == "0\n", pane_rows(sock)
        out = tmux(sock, "capture-pane", "-p", "-S", "-200", "-t", "t")
        assert "### the end: skind's counters" in out, out
    finally:
        # a demo that did not end: Ctrl-C, which its trap answers by
        # stopping its skinsim and skind; whatever is left under the pane
        # (a view the terminal stopped) is killed
        if tmux(sock, "display-message", "-p", "-t", "t", "#{pane_dead}",
                check=False).strip() == "0":
            tmux(sock, "send-keys", "-t", "t", "C-c", check=False)
            wait_for(lambda: all(n != "skind" for n, _ in proc_states(pid)), 10)
            for p, _ in proc_pids(pid):
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        tmux(sock, "kill-server", check=False)


@case("skinctl calibrate --wait: progress on a terminal, the same lines otherwise")
def t_calibrate_progress(env):
    d = env.daemon
    e = dict(os.environ, SKIN_SOCKET=d.sock)
    # not a terminal: the event line only, nothing on stderr
    r = subprocess.run([SKINCTL, "calibrate", "--wait", "pad"], env=e, capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and r.stdout == "calibrated pad\n" and r.stderr == "", r
    r = subprocess.run([SKINCTL, "calibrate", "pad"], env=e, capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r
    d.ready()
    # lib/proc's count: calibration_s of samples at period_ms (skind's
    # period_ms is the boards' period of the configuration)
    with d.client() as c:
        cal_s = float(c.command("get calibration_s")[0].split()[2])
        period = float(c.command("get period_ms")[0].split()[2])
    assert cal_s == 0.5, cal_s
    needed = round(cal_s * 1000 / period)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SKINCTL, [SKINCTL, "calibrate", "--wait"], e)
    out = b""
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    b = os.read(fd, 65536)
                except OSError:
                    break
                if not b:
                    break
                out += b
        _, st = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, (st, out)
    text = out.decode()
    shown = re.findall(r"\rcalibrating 2 parts, (\d) done: (\d+) of (\d+) samples, ([\d.]+) s "
                       r"\(do not touch the skin\)\x1b\[K", text)
    assert shown, text
    assert all(int(n) == needed for _, _, n, _ in shown), shown
    # it moves: fewer samples first, more later (and never past what is needed)
    got = [int(g) for _, g, _, _ in shown]
    assert got[0] < needed and max(got) > got[0] and max(got) <= needed, got
    # the final lines stay, the progress line is cleared before each
    final = [l for l in re.sub(r"\r\x1b\[K", "", re.sub(r"\rcalibrating[^\x1b]*\x1b\[K", "",
                                                            text)).splitlines() if l.strip()]
    assert sorted(final) == ["calibrated left_forearm", "calibrated pad"], (final, text)
    # on a terminal without --wait: what skind does, said once
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SKINCTL, [SKINCTL, "calibrate", "pad"], e)
    out = b""
    try:
        while True:
            try:
                b = os.read(fd, 65536)
            except OSError:
                break
            if not b:
                break
            out += b
        _, st = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0, (st, out)
    assert re.match(rb"skinctl calibrate: skind: calibrating pad 0.5 s \(do not touch", out), out
    d.ready()


# --- skin-view: HTTP, Foxglove's WebSocket protocol, hostile clients ----------

# node_modules with @foxglove/ws-protocol, @foxglove/cdr and ws
# (scripts/node-tree); empty: the Foxglove client cases are skipped
NODE_MODULES = os.environ.get("SKIN_NODE_MODULES", "")
VIEWCLIENT = os.path.join(SRC, "tests/daemon/viewclient.cjs")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class View:
    """skin-view on the suite's skind, serving a copy of the page's files
    (env.dir/www: a file beside it must never be served)."""

    def __init__(self, env, daemon=None, argv=None, ready="parts served", extra="", **keys):
        self.dir = os.path.join(env.dir, "view%d" % env.next_log())
        www = os.path.join(self.dir, "www")
        shutil.copytree(os.path.join(SRC, "bridges/view/www"), www)
        with open(os.path.join(self.dir, "secret.txt"), "w") as f:
            f.write("SECRET-NOT-TO-BE-SERVED\n")
        self.port = free_port()
        conf = dict(address="127.0.0.1", port=self.port, data_dir=www,
                    socket=(daemon or env.daemon).sock,
                    skind_config=(daemon or env.daemon).config)
        conf.update(keys)
        self.conf = os.path.join(self.dir, "skin-view.conf")
        with open(self.conf, "w") as f:
            f.write("[view]\n" + "".join("%s = %s\n" % kv for kv in conf.items()) + extra)
        os.chmod(self.conf, 0o640)      # one with a token others may read is refused
        self.log_path = os.path.join(self.dir, "skin-view.log")
        self.logf = open(self.log_path, "w")
        cmd = [SKIN_VIEW, "-c", self.conf] + (argv or [])
        self.p = subprocess.Popen(cmd, stdout=self.logf,
                                  stderr=subprocess.STDOUT,
                                  env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1"))
        if not wait_for(lambda: ready in self.log() or self.p.poll() is not None, 15):
            raise RuntimeError("skin-view did not attach: " + self.log())
        assert self.p.poll() is None, self.log()

    def log(self):
        if not self.logf.closed:
            self.logf.flush()
        with open(self.log_path) as f:
            return f.read()

    def url(self):
        return "ws://127.0.0.1:%d/" % self.port

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.logf.close()
        assert self.p.returncode == 0, (self.p.returncode, self.log()[-3000:])
        return self.log()


def http_get(port, path, src="127.0.0.1"):
    """(status, headers, body) of one GET of @path, sent as it is."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(src, 0))
    try:
        s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                   % path).encode())
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        headers[k.strip().lower()] = v.strip()
    return status, headers, body


class WS:
    """A WebSocket client of skin-view on a raw socket: handshake, frames
    sent masked as a client must, frames read, and nothing else, so that
    a test does to the server what a hostile client would."""

    def __init__(self, port, src="127.0.0.1", protocol="foxglove.websocket.v1", rcvbuf=None):
        self.s = socket.socket()
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.settimeout(10)
        self.s.bind((src, 0))
        self.s.connect(("127.0.0.1", port))
        self.s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        "Sec-WebSocket-Version: 13\r\n%s\r\n"
                        % ("Sec-WebSocket-Protocol: %s\r\n" % protocol if protocol else "")).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            b = self.s.recv(4096)
            assert b, "closed during the handshake: %r" % self.buf
            self.buf += b
        head, _, self.buf = self.buf.partition(b"\r\n\r\n")
        self.head = head.decode("latin-1")
        assert self.head.startswith("HTTP/1.1 101"), self.head

    def send(self, payload, opcode=1, fin=True):
        if isinstance(payload, str):
            payload = payload.encode()
        n = len(payload)
        hdr = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            hdr += bytes([0x80 | n])
        elif n < 65536:
            hdr += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            hdr += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _need(self, n):
        while len(self.buf) < n:
            b = self.s.recv(65536)
            if not b:
                raise EOFError("closed")
            self.buf += b

    def recv(self):
        """(opcode, payload) of the next frame"""
        self._need(2)
        op, n = self.buf[0] & 0x0f, self.buf[1] & 0x7f
        at = 2
        if n == 126:
            self._need(4)
            n, at = struct.unpack(">H", self.buf[2:4])[0], 4
        elif n == 127:
            self._need(10)
            n, at = struct.unpack(">Q", self.buf[2:10])[0], 10
        self._need(at + n)
        payload, self.buf = self.buf[at:at + n], self.buf[at + n:]
        return op, payload

    def json(self):
        """The next text message, binary ones skipped"""
        while True:
            op, p = self.recv()
            if op == 1:
                return json.loads(p)
            if op == 8:
                raise EOFError("closed: %r" % p)

    def closed(self, timeout=10):
        """The close frame's (code, reason), binary and text frames skipped"""
        self.s.settimeout(timeout)
        while True:
            op, p = self.recv()
            if op == 8:
                return (struct.unpack(">H", p[:2])[0] if len(p) >= 2 else None,
                        p[2:].decode(errors="replace"))

    def close(self):
        self.s.close()


class ViewClient:
    """viewclient.cjs (npm's Foxglove client) on @topics, collecting for
    @seconds from its first sample; its JSON lines in a file"""

    def __init__(self, view, seconds, topics):
        if not NODE_MODULES:
            raise Skip("no npm Foxglove client (scripts/node-tree found no node or npm)")
        self.seconds = seconds
        self.path = os.path.join(view.dir, "client.%d.jsonl" % time.monotonic_ns())
        self.err = self.path + ".err"
        with open(self.path, "w") as out, open(self.err, "w") as err:
            self.p = subprocess.Popen(["node", VIEWCLIENT, view.url(), str(seconds)] + topics,
                                      stdout=out, stderr=err,
                                      env=dict(os.environ, SKIN_NODE_MODULES=NODE_MODULES))

    def text(self):
        with open(self.path) as f:
            return f.read()

    def streaming(self, timeout=30):
        """Once its first sample came (its window starts there)"""
        assert wait_for(lambda: '"ev":"state"' in self.text() or '"ev":"partstate"' in self.text()
                        or self.p.poll() is not None,
                        timeout, 0.1), "no sample in %d s: %s" % (timeout, self.text()[-2000:])

    def events(self):
        self.p.wait(timeout=self.seconds + 90)
        out = self.text()
        with open(self.err) as f:
            err = f.read()
        assert self.p.returncode == 0, (self.p.returncode, out[-2000:], err[-2000:])
        evs = [json.loads(l) for l in out.splitlines() if l]
        assert evs and evs[-1]["ev"] == "end", (out[-2000:], err[-2000:])
        return evs


def mono_to_real():
    return time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def follow_taxels(f, part, since=0):
    """followcheck's taxels lines of @part (skind's shared memory), by
    frame time"""
    got = {}
    for l in f.lines(since):
        w = l.split(" ", 5)
        if w[0] == "taxels" and w[1] == part:
            vals = [float(x) for x in w[5].split(")")[0].strip("(").split()]
            got[int(w[3])] = (int(w[2]), vals)
    return got


class Drain:
    """A thread reading followcheck's output while a case runs (its pipe
    must not fill: a follower that cannot print stops following); stop()
    ends followcheck, reads it to its end and checks it (Follower.stop())"""

    def __init__(self, f):
        self.f = f
        self.done = threading.Event()
        self.t = threading.Thread(target=f.out.read_until,
                                  args=(lambda o: self.done.is_set(), 600))
        self.t.start()

    def stop(self):
        if self.f.p.poll() is None:
            self.f.p.send_signal(signal.SIGTERM)
        wait_for(lambda: self.f.p.poll() is not None, 10)
        self.done.set()
        self.t.join()
        self.f.stop()


def press_pad(env, p):
    """ViewClient @p's events around a press of pad (from 0.5 s after
    its stream starts, held 1.5 s), and 0.5 s more for skind's own
    outputs of the release to be followed"""
    p.streaming()
    time.sleep(0.5)
    env.feed.cmd("press pad 60 5 6")
    time.sleep(1.5)
    env.feed.cmd("release pad")
    evs = p.events()
    time.sleep(0.5)
    return evs


def close_to(a, b):
    """@a (a float32) equal to @b as followcheck printed it (%.4g)"""
    if a == "NaN" or b != b:
        return a == "NaN" and b != b
    return abs(a - b) <= 6e-4 * abs(b) + 1e-6


@case("skin-view: the page's files with their content types, nothing outside the data directory")
def t_view_http(env):
    v = View(env)
    try:
        www = os.path.join(v.dir, "www")
        for path, ctype, name in (("/", "text/html", "index.html"),
                                  ("/index.html", "text/html", "index.html"),
                                  ("/page.js", "text/javascript", "page.js"),
                                  ("/cdr.js", "text/javascript", "cdr.js"),
                                  ("/view.css", "text/css", "view.css")):
            st, h, body = http_get(v.port, path)
            assert st == 200, (path, st, h)
            assert h["content-type"].split(";")[0] == ctype, (path, h)
            with open(os.path.join(www, name), "rb") as f:
                assert body == f.read(), path
            # a page that loads nothing from elsewhere, said to the browser
            assert "default-src 'none'" in h.get("content-security-policy", ""), h
        st, _, _ = http_get(v.port, "/nosuch.html")
        assert st == 404, st
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt",
                     "/%2e%2e%2fsecret.txt", "/page.js/../../secret.txt",
                     "/./../secret.txt", "/..\\secret.txt", "//../secret.txt",
                     "/" + "../" * 12 + "etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                     v.dir + "/secret.txt", "/www/../secret.txt"):
            st, h, body = http_get(v.port, path)
            assert b"SECRET-NOT-TO-BE-SERVED" not in body and b"root:" not in body, \
                (path, st, body[:200])
            assert st != 200, (path, st, h)
        # the page's files still served after all that
        assert http_get(v.port, "/page.js")[0] == 200
        # both subprotocols are Foxglove's, the one asked for is chosen
        for proto in ("foxglove.websocket.v1", "foxglove.sdk.v1"):
            ws = WS(v.port, protocol=proto)
            assert re.search(r"(?im)^sec-websocket-protocol: %s$" % re.escape(proto), ws.head), ws.head
            assert ws.json()["op"] == "serverInfo"
            assert ws.json()["op"] == "advertise"
            ws.close()
        # a WebSocket without a subprotocol: closed, 1002
        ws = WS(v.port, protocol=None)
        code, why = ws.closed()
        assert code == 1002 and "foxglove.websocket.v1" in why, (code, why)
        ws.close()
        # one naming only another: no WebSocket at all
        try:
            ws = WS(v.port, protocol="chat")
            code, _ = ws.closed()
            raise RuntimeError("a WebSocket of subprotocol chat: closed %s" % code)
        except (AssertionError, EOFError, OSError) as e:
            assert "HTTP/1.1 101" not in str(e), e
    finally:
        v.stop()


@case("skin-view: npm's Foxglove client gets serverInfo and every part's channels, and decodes TactileState values equal to skind's shared memory for the same sample")
def t_view_foxglove(env):
    if not NODE_MODULES:
        raise Skip("no npm Foxglove client (scripts/node-tree found no node or npm)")
    d = env.daemon
    v = View(env)
    f = Follower(d.sock, "pad")
    reader = None
    try:
        f.following(d)
        mark = f.mark()
        offset = mono_to_real()
        seconds = 6
        topics = ["/skin/pad/values", "/skin/pad/raw", "/skin/pad/contacts",
                  "/skin/left_forearm/values"]
        p = ViewClient(v, seconds, topics)
        reader = Drain(f)
        evs = press_pad(env, p)
        shm = follow_taxels(f, "pad", mark)

        info = [e for e in evs if e["ev"] == "serverInfo"]
        assert len(info) == 1 and info[0]["name"].startswith("skin-view "), info
        assert info[0]["capabilities"] == [], info
        chans = [c for e in evs if e["ev"] == "advertise" for c in e["channels"]]
        want = {"/skin/%s/%s" % (p_, k) for p_ in ("pad", "left_forearm")
                for k in ("values", "raw", "contacts", "state")}
        want |= {"/skin/layout", "/skin/health"}
        assert {c["topic"] for c in chans} == want, chans
        for c in chans:
            if c["topic"] in ("/skin/layout", "/skin/health"):
                assert c["encoding"] == "json" and c["schemaEncoding"] == "jsonschema", c
                assert c["schemaName"] == ("skin.Layout" if c["topic"] == "/skin/layout"
                                           else "skin.Health"), c
                json.loads(c["schema"])
                continue
            assert c["encoding"] == "cdr" and c["schemaEncoding"] == "ros2msg", c
            assert c["schemaName"] == ("tactile_msgs/msg/TactileContacts" if
                                       c["topic"].endswith("/contacts") else
                                       "skin_msgs/msg/PartState" if
                                       c["topic"].endswith("/state") else
                                       "tactile_msgs/msg/TactileState"), c
        assert not [e for e in evs if e["ev"] in ("error", "status")], \
            [e for e in evs if e["ev"] in ("error", "status")][:5]
        counts = evs[-1]["counts"]
        states = [e for e in evs if e["ev"] == "state" and e["topic"] == "/skin/pad/values"]
        assert len(states) >= 20, counts
        matched = touched = 0
        for st in states:
            assert st["name"] == "pad" and st["frame"], st
            assert len(st["values"]) == 192
            # the Message Data timestamp is the message's stamp
            assert int(st["ts"]) == int(st["stamp"]), st
            hit = [k for k in shm if abs(k + offset - int(st["stamp"])) < 1000000]
            if not hit:
                continue
            matched += 1
            _, vals = shm[hit[0]]
            for a, b in zip(st["values"], vals):
                assert close_to(a, b), (a, b)
            touched += vals[5] > 0 and vals[6] > 0
        assert matched >= 10, (matched, len(states), len(shm))
        assert touched, "the press was seen"
        raws = [e for e in evs if e["ev"] == "state" and e["topic"] == "/skin/pad/raw"]
        assert raws and all(0 <= x <= 255 and x == int(x) for x in raws[-1]["values"])
        lf = [e for e in evs if e["ev"] == "state" and e["topic"] == "/skin/left_forearm/values"]
        assert lf and len(lf[-1]["values"]) == 384
        cs = [e for e in evs if e["ev"] == "contacts"]
        assert [c for c in cs if c["contacts"]], "a contact came"
        names = {k["name"] for c in cs for k in c["contacts"]}
        assert names and all(re.match(r"^contact_\d+$", n) for n in names), names
        # the release: one empty message after the last contact
        assert cs[-1]["contacts"] == [], cs[-1]
    finally:
        reader.stop() if reader else f.stop()
        log = v.stop()
    assert "samples sent" in log, log[-2000:]


def follow_rest(f, part, since=0):
    """followcheck's raw, flags, baselines and thresholds lines of @part
    (Follower(raw=True)), by sample number: {N: {"raw": [...], ...}}"""
    got = {}
    for l in f.lines(since):
        w = l.split(" ", 3)
        if w[0] in ("raw", "flags", "baselines", "thresholds") and w[1] == part:
            nums = w[3] if w[0] != "raw" else w[3].split(" ", 1)[1]
            got.setdefault(int(w[2]), {})[w[0]] = [float(x) for x in nums.strip("()").split()]
    return got


@case("skin-view: /skin/layout places every tactile taxel of every part; /skin/PART/state carries skind's shared memory of the same sample (raw, values, flags, baselines, thresholds, contacts)")
def t_view_state(env):
    d = env.daemon
    v = View(env)
    f = Follower(d.sock, "pad", raw=True)
    reader = None
    try:
        f.following(d)
        mark = f.mark()
        p = ViewClient(v, 5, ["/skin/layout", "/skin/pad/state", "/skin/left_forearm/state"])
        reader = Drain(f)
        evs = press_pad(env, p)
        taxels = follow_taxels(f, "pad", mark)
        rest = follow_rest(f, "pad", mark)
        add = float(d.client().command("get add_threshold")[0].split()[2])
    finally:
        reader.stop() if reader else f.stop()
        log = v.stop()
    assert not [e for e in evs if e["ev"] in ("error", "status")], evs[:5]
    parts = {p_["name"]: p_ for p_ in d.parts() if p_["type"] == "part"}

    # the layout: one message (no reload), every part of skind's
    layouts = [e["message"] for e in evs if e["ev"] == "json" and e["topic"] == "/skin/layout"]
    assert len(layouts) == 1, len(layouts)
    lay = layouts[0]
    assert lay["generation"] == d.status()["generation"], lay["generation"]
    assert [q["name"] for q in lay["parts"]] == list(parts), [q["name"] for q in lay["parts"]]
    states = [e for e in evs if e["ev"] == "partstate"]
    for q in lay["parts"]:
        n = int(parts[q["name"]]["taxels"])
        assert q["n"] == n and len(q["x"]) == n and len(q["kind"]) == n, (q["name"], q["n"])
        # the kinds are skind's: its shared memory's taxel flags
        flags = [s_["flags"] for s_ in states if s_["topic"] == "/skin/%s/state" % q["name"]][-1]
        for i in range(n):
            k = "t" if flags[i] & 2 else "h" if flags[i] & 4 else "-"
            assert q["kind"][i] == k, (q["name"], i, q["kind"][i], flags[i])
            if k == "t":
                assert isinstance(q["x"][i], (int, float)) and isinstance(q["y"][i], (int, float)), \
                    (q["name"], i, q["source"])
            if k != "-":
                assert q["triangle"][i] == i % 192 // 12 and q["channel"][i] == i % 12
        assert q["source"].startswith("flattening: "), q["source"]
        assert q["unit"] == "m" and q["radius"] > 0 and q["outlines"], q["name"]
    pad = [q for q in lay["parts"] if q["name"] == "pad"][0]
    assert [b for b in pad["board"] if b >= 0] and all(b in (-1, 1) for b in pad["board"])
    assert pad["patches"] == [{"name": "pad", "bus": "can0", "address": 1}], pad["patches"]

    # the states, matched with the shared memory's copies by sample number
    pads = [s_ for s_ in states if s_["topic"] == "/skin/pad/state"]
    assert len(pads) >= 20, len(pads)
    matched = touched = contacts = 0
    for st in pads:
        n = int(st["sample"])
        assert len(st["raw"]) == len(st["values"]) == len(st["flags"]) == pad["n"]
        if n not in rest or "raw" not in rest[n]:
            continue
        shm = rest[n]
        frame = [k for k, (num, _) in taxels.items() if num == n]
        assert frame, n
        assert int(st["stamp"]) == int(st["ts"])
        assert st["raw"] == [int(x) for x in shm["raw"]], (st["raw"], shm["raw"])
        assert st["flags"] == [int(x) for x in shm["flags"]], (st["flags"], shm["flags"])
        for a, b in zip(st["values"], taxels[frame[0]][1]):
            assert close_to(a, b), (a, b)
        if "baselines" in shm:
            for a, b in zip(st["baselines"], shm["baselines"]):
                assert abs(a - b) <= 1e-5 * abs(b) + 1e-6, (a, b)
        if "thresholds" in shm:
            for a, b in zip(st["thresholds"], shm["thresholds"]):
                assert abs(a - (b + add if b else 0)) <= 1e-5 * abs(b) + 1e-5, (a, b, add)
        matched += 1
        touched += any(f_ & 1 for f_ in st["flags"])
        for c in st["contacts"]:
            contacts += 1
            assert c["taxels"] and all(0 <= t < pad["n"] for t in c["taxels"]), c
            assert all(st["flags"][t] & 1 for t in c["taxels"]), c
            # cop2d: the centroid of its taxels in the layout, inside it
            xs = [pad["x"][t] for t in c["taxels"]]
            ys = [pad["y"][t] for t in c["taxels"]]
            assert min(xs) - 1e-6 <= c["cop2d"][0] <= max(xs) + 1e-6, (c, xs)
            assert min(ys) - 1e-6 <= c["cop2d"][1] <= max(ys) + 1e-6, (c, ys)
    assert matched >= 10, (matched, len(pads), len(rest))
    assert touched and contacts, (touched, contacts)
    lf = [s_ for s_ in states if s_["topic"] == "/skin/left_forearm/state"]
    assert lf and len(lf[-1]["raw"]) == 384
    enc = re.search(r"encoded (\d+) part samples, ([\d.]+) us each", log)
    assert enc and int(enc.group(1)) > 0, log[-2000:]
    print("# skin-view encoded %s part samples, %s us each (four channels, this build)"
          % enc.groups(), flush=True)


ETH_COUNTERS = """\
capture - packets=50000 udp=50000 other_port=0 to_boards=0 socket_drops=0 outgoing=0 recv_errors=0
board eb24 addr=10.0.1.24 datagrams=10000 published=10000 frames=27200 lost=3 resets=0 bad_rop_code=1
board eb10 addr=10.0.1.10 datagrams=9000 published=9000 frames=24000 lost=0 resets=1 bad_rop_code=0
foreign - datagrams=2 published=0 frames=0 lost=0
interface eb24can1 board=eb24 bound=1 frames=27200 dropped=0 rebinds=0
"""


@case("skin-view: /skin/health has skind's status, every part and patch with their counters, faults when skind lists them, skin-eth's counters, once a second and on change")
def t_view_health(env):
    d = env.daemon
    eth = os.path.join(env.dir, "eth-counters.%d" % env.next_log())
    with open(eth, "w") as f:
        f.write(ETH_COUNTERS)
    v = View(env, eth_counters=eth)
    muted = False
    try:
        p = ViewClient(v, 7, ["/skin/health", "/skin/pad/state"])
        p.streaming()
        time.sleep(1.5)
        t_mute = time.clock_gettime_ns(time.CLOCK_REALTIME)
        env.feed.cmd("mute lf1")
        muted = True
        time.sleep(3)
        env.feed.cmd("unmute lf1")
        muted = False
        evs = p.events()
    finally:
        if muted:
            env.feed.cmd("unmute lf1")
        log = v.stop()
    assert not [e for e in evs if e["ev"] in ("error", "status")], evs[:5]
    hs = [e["message"] for e in evs if e["ev"] == "json" and e["topic"] == "/skin/health"]
    # once a second at least (7 s of the client's window, on a loaded machine)
    assert len(hs) >= 4, len(hs)
    status = d.status()
    lines = d.parts()
    parts = [l for l in lines if l["type"] == "part"]
    for h in hs:
        assert h["skind"]["connected"] is True, h["skind"]
        assert h["skind"]["generation"] == status["generation"]
        assert h["skind"]["status"]["pid"] == status["pid"], h["skind"]["status"]
        assert [q["name"] for q in h["parts"]] == [q["name"] for q in parts]
        for q in h["parts"]:
            want = [(l["name"], l["bus"], int(l["address"])) for l in lines
                    if l["type"] == "patch" and l["part"] == q["name"]]
            assert [(t["name"], t["bus"], t["address"]) for t in q["patches"]] == want, q
            for t in q["patches"]:
                assert set(t) >= {"attached", "silent", "listen_only", "frames", "lost",
                                  "partial", "skipped", "driver"}, t
                # no driver on this host: skind reads ring files
                assert t["driver"] is None, t["driver"]
            if h["skind"]["faults"]:
                for flt in q["faults"]:
                    assert 0 <= flt["taxel"] < q["taxels"] and flt["flags"], flt
            else:
                assert q["faults"] == [], q
        e = h["eth"]
        assert e["file"] == eth and e["age_s"] >= 0, e
        assert e["capture"]["packets"] == 50000 and e["foreign"]["datagrams"] == 2, e
        assert [b["name"] for b in e["boards"]] == ["eb24", "eb10"], e["boards"]
        assert e["boards"][0]["addr"] == "10.0.1.24" and e["boards"][0]["lost"] == 3
        assert e["interfaces"] == [{"name": "eb24can1", "board": "eb24", "bound": 1, "frames": 27200,
                                    "dropped": 0, "rebinds": 0}], e["interfaces"]
    # the silent board: flagged while muted, cleared after
    def lf1(h):
        lf = [q for q in h["parts"] if q["name"] == "left_forearm"][0]
        return [t for t in lf["patches"] if t["name"] == "left_forearm.1"][0]
    silent = [h for h in hs if lf1(h)["silent"]]
    assert silent, [lf1(h) for h in hs]
    assert silent[0]["time_ns"] - t_mute < 4e9, (silent[0]["time_ns"] - t_mute)
    assert not lf1(hs[-1])["silent"], lf1(hs[-1])
    # frames of the muted board stood still while it was silent
    assert len({lf1(h)["frames"] for h in silent}) <= 2, [lf1(h)["frames"] for h in silent]
    # (the fault list: "skin-view: skinsim's stuck, saturated and dead taxels ...")
    assert "health: skind's socket" not in log, log[-2000:]


# the taxel-fault cases' forearm and short limits (FAULTS_CONFIG, above)
VIEW_FAULTS_CONFIG = FAULTS_CONFIG

# can1:13 is the forearm's first board: triangle 10 is slots 120..131
VIEW_FAULTS_SCENARIO = """\
config {conf}
seed 3
duration 40s
at {t}s fault stuck left_forearm 40 for {d}s
at {t}s fault saturate left_forearm 60 for {d}s
at {t}s fault dead can1:13 triangle 10 for {d}s
"""


@case("skin-view: skinsim's stuck, saturated and dead taxels in /skin/health's faults and /skin/PART/state's flags, on the layout's board and triangle")
def t_view_faults(env):
    top = os.path.join(env.dir, "view-faults")
    rings = os.path.join(top, "rings")
    os.makedirs(rings)
    conf = os.path.join(top, "skind.conf")
    scn = os.path.join(top, "faults.scn")
    t_fault, t_len = 6, 8
    with open(conf, "w") as f:
        f.write(VIEW_FAULTS_CONFIG.format(src=SRC))
    with open(scn, "w") as f:
        f.write(VIEW_FAULTS_SCENARIO.format(conf=conf, t=t_fault, d=t_len))
    if not NODE_MODULES:
        raise Skip("no npm Foxglove client (scripts/node-tree found no node or npm)")
    t0 = time.monotonic_ns()
    sim = subprocess.Popen([SKINSIM, "--ring", rings, scn], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    d = v = None
    try:
        assert wait_for(lambda: len(os.listdir(rings)) == 2 or sim.poll() is not None, 5), \
            sim.stderr.read() if sim.poll() is not None else os.listdir(rings)
        d = Daemon(env, extra=["-r", rings], config=conf, side="view-faults")
        d.ready(calibrated=1)
        with d.client() as c:
            try:
                c.command("faults")
            except skin.CommandError as e:
                raise Skip("skind lists no faulty taxels (%s): /skin/health's fault list "
                           "is checked against a fake skind (tests/unit/test_view_health.c)" % e)
        v = View(env, daemon=d)
        left = t_fault + 4 - (time.monotonic_ns() - t0) / 1e9
        p = ViewClient(v, max(left, 2), ["/skin/health", "/skin/layout",
                                         "/skin/left_forearm/state"])
        evs = p.events()
    finally:
        if v:
            v.stop()
        if d:
            d.stop()
        sim.kill()
        sim.wait()
    lay = [e["message"] for e in evs if e["ev"] == "json" and e["topic"] == "/skin/layout"][-1]
    lf = lay["parts"][0]
    hs = [e["message"] for e in evs if e["ev"] == "json" and e["topic"] == "/skin/health"]
    states = [e for e in evs if e["ev"] == "partstate"]
    h = hs[-1]
    assert h["skind"]["faults"] is True, h["skind"]
    faults = {f_["taxel"]: f_ for f_ in h["parts"][0]["faults"]}
    # which board, which triangle, what is wrong, since when
    dead = [k for k in range(120, 132) if lf["kind"][k] == "t"]
    assert faults[40]["flags"] == ["stuck"], faults.get(40)
    assert "saturated" in faults[60]["flags"] and faults[60]["raw"] == 0, faults.get(60)
    for k in dead:
        assert faults[k]["flags"] == ["dead"], faults.get(k)
        assert lf["board"][k] == 13 and lf["triangle"][k] == 10, (k, lf["board"][k])
    assert all(t0 < f_["since_ns"] for f_ in faults.values()), faults
    # the same taxels' fault bits in the PartState (shm 1.4: stuck 3,
    # saturated 4, dead 5)
    flags = states[-1]["flags"]
    assert flags[40] & (1 << 3) and flags[60] & (1 << 4), (flags[40], flags[60])
    assert all(flags[k] & (1 << 5) for k in dead), [flags[k] for k in dead]
    assert not [k for k in range(len(flags)) if flags[k] & 0xf8 and k not in faults], \
        [(k, flags[k]) for k in range(len(flags)) if flags[k] & 0xf8 and k not in faults]


def next_layout(ws, after):
    """The next /skin/layout message of subscription 1 on @ws of a
    generation past @after (text frames skipped)"""
    while True:
        op, p = ws.recv()
        if op == 2 and p[0] == 1 and struct.unpack("<I", p[1:5])[0] == 1:
            m = json.loads(p[13:])
            if m["generation"] > after:
                return m


VIEWCTL = os.path.join(SRC, "tests/daemon/viewctl.cjs")
VIEW_TOKEN = "h4-0123456789abcdef-token"


def viewctl(view, steps, timeout=120):
    """viewctl.cjs's steps on @view: its JSON lines"""
    if not NODE_MODULES:
        raise Skip("no npm Foxglove client (scripts/node-tree found no node or npm)")
    r = subprocess.run(["node", VIEWCTL, view.url(), json.dumps(steps)], capture_output=True,
                       text=True, timeout=timeout,
                       env=dict(os.environ, SKIN_NODE_MODULES=NODE_MODULES))
    evs = [json.loads(l) for l in r.stdout.splitlines() if l]
    assert r.returncode == 0 and evs and evs[-1]["ev"] == "end", \
        (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    return evs


def answers(evs):
    """The service calls' answers, in order: ("response", {...}) or ("failure", message)"""
    return [(e["ev"], e["response"] if e["ev"] == "response" else e["message"])
            for e in evs if e["ev"] in ("response", "failure")]


def skind_param(d, name):
    with d.client() as c:
        return float(c.command("get " + name)[0].split()[2])


@case("skin-view: actions: without the token or with a wrong one refused, counted and skind unchanged; with it, set and calibrate reach skind; repeated failures are refused for a while")
def t_view_actions(env):
    d = env.daemon
    before = skind_param(d, "add_threshold")
    v = View(env, token=VIEW_TOKEN)
    try:
        wrong = VIEW_TOKEN[:-1] + "X"
        evs = viewctl(v, [
            {"call": "/skin/get", "request": {"param": "add_threshold"}},
            {"call": "/skin/set", "request": {"param": "add_threshold", "value": "11"}},
            {"call": "/skin/set", "request": {"token": wrong, "param": "add_threshold", "value": "11"}},
            {"call": "/skin/calibrate", "request": {"token": "", "part": "pad"}},
            {"call": "/skin/set", "request": {"token": VIEW_TOKEN,
                                              "param": "add_threshold\ncalibrate", "value": "1"}},
        ])
        info = [e for e in evs if e["ev"] == "serverInfo"][0]
        assert info["capabilities"] == ["services"] and info["supportedEncodings"] == ["json"], info
        names = {s["name"] for e in evs if e["ev"] == "services" for s in e["services"]}
        assert names == {"/skin/calibrate", "/skin/set", "/skin/get"}, names
        a = answers(evs)
        assert a[0][0] == "response" and float(a[0][1]["params"]["add_threshold"]) == before, a
        assert a[1:4] == [("failure", "not authorised")] * 3, a
        assert a[4][0] == "failure" and "param" in a[4][1], a
        assert skind_param(d, "add_threshold") == before
        log = v.log()
        assert log.count("not authorised") == 3 and "from 127.0.0.1" in log, log[-2000:]

        evs = viewctl(v, [
            {"call": "/skin/set", "request": {"token": VIEW_TOKEN, "param": "add_threshold",
                                              "value": "11"}},
            {"call": "/skin/get", "request": {}},
            {"call": "/skin/set", "request": {"token": VIEW_TOKEN, "param": "nosuch", "value": "1"}},
            {"call": "/skin/calibrate", "request": {"token": VIEW_TOKEN, "part": "pad"}},
        ])
        a = answers(evs)
        assert a[0] == ("response", {"ok": True, "param": "add_threshold", "value": a[0][1]["value"]}) \
            and float(a[0][1]["value"]) == 11, a
        assert float(a[1][1]["params"]["add_threshold"]) == 11 and len(a[1][1]["params"]) > 5, a
        assert a[2][0] == "failure" and "unknown-param" in a[2][1], a
        assert a[3][0] == "response" and a[3][1]["ok"] and "calibrating pad" in a[3][1]["message"], a
        # skind's own word: the parameter, and the part calibrating, then calibrated
        assert skind_param(d, "add_threshold") == 11
        assert wait_for(lambda: "skind: calibrated pad" in v.log(), 60, 0.2), v.log()[-2000:]
        with d.client() as c:
            assert " state running " in c.command("parts pad")[0], c.command("parts pad")

        # a guesser: past 5 failures in 10 s (with the first run's, or
        # alone when its window has passed), even the token is refused
        evs = viewctl(v, [{"call": "/skin/set", "request": {"token": wrong, "param": "add_threshold",
                                                            "value": "12"}}] * 6 +
                      [{"call": "/skin/set", "request": {"token": VIEW_TOKEN, "param": "add_threshold",
                                                         "value": "12"}}])
        a = answers(evs)
        limited = "not authorised: too many failures, try again later"
        assert len(a) == 7 and all(x == "failure" for x, _ in a), a
        n = sum(m == "not authorised" for _, m in a)
        assert 2 <= n <= 5 and [m for _, m in a] == ["not authorised"] * n + [limited] * (7 - n), a
        assert skind_param(d, "add_threshold") == 11

        # the binary side: a call of no service, of another encoding,
        # then a request shorter than its header says (malformed: closed,
        # 1003)
        ws = WS(v.port)
        try:
            call = lambda sv, enc, body: struct.pack("<BIII", 2, sv, 77, len(enc)) + enc + body
            ws.send(call(99, b"json", b"{}"), opcode=2)
            ws.send(call(3, b"cbor", b"{}"), opcode=2)
            got = []
            while len(got) < 2:
                m = ws.json()
                if m["op"] == "serviceCallFailure":
                    got.append((m["serviceId"], m["callId"], m["message"]))
            assert got == [(99, 77, "no such service"), (3, 77, "encoding: json only")], got
            ws.send(struct.pack("<BIII", 2, 3, 78, 200) + b"json", opcode=2)
            assert ws.closed()[0] == 1003
        finally:
            ws.close()
    finally:
        with d.client() as c:
            c.command("set add_threshold %g" % before)
        log = v.stop()
    m = re.search(r"actions: (\d+) calls, 5 sent to skind, 1 failed there; (\d+) not authorised, "
                  r"(\d+) refused over the failure limit, 1 malformed", log)
    assert m and int(m.group(1)) == 16 and int(m.group(2)) + int(m.group(3)) == 10, log[-1500:]


def press_log(env, name, seconds=11, press=(7, 9)):
    """skinsim's candump -l log of etc/skind.conf's boards: rest, a press of
    left_forearm's taxel 37 from press[0] to press[1] s, rest"""
    d = os.path.join(env.dir, name)
    os.makedirs(d, exist_ok=True)
    scn, log = os.path.join(d, "press.scn"), os.path.join(d, "press.log")
    with open(scn, "w") as f:
        f.write("config %s\nseed 1\nduration %ds\nat %gs press left_forearm taxel 37 radius 12mm "
                "force 80 name finger\nat %gs release finger\n"
                % (os.path.join(SRC, "etc/skind.conf"), seconds, press[0], press[1]))
    r = subprocess.run([SKINSIM, "--log", log, "--fast", "--epoch", "1700000000", scn],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r
    return log


@case("skin-view --replay: a recorded press served as skind would; seek before and after it, pause, speed")
def t_view_replay(env):
    log = press_log(env, "replay")
    conf = os.path.join(SRC, "etc/skind.conf")
    v = View(env, argv=["--replay", log, "--skind-config", conf], ready="replaying")
    pressed = lambda e: e["ev"] == "state" and e["topic"] == "/skin/left_forearm/values" \
        and e["values"][37] > 0
    try:
        evs = viewctl(v, [
            {"subscribe": ["/skin/replay", "/skin/layout", "/skin/left_forearm/values",
                           "/skin/left_forearm/state", "/skin/left_hand/values"]},
            {"call": "/skin/replay", "request": {"op": "pause"}},
            {"call": "/skin/replay", "request": {"op": "seek", "t_s": 6.5}},
            {"wait": 1},
            {"mark": "after"},
            {"call": "/skin/replay", "request": {"op": "seek", "t_s": 8}},
            {"wait": 1},
            {"mark": "paused"},
            {"wait": 1.5},
            {"mark": "back"},
            {"call": "/skin/replay", "request": {"op": "seek", "t_s": 6}},
            {"wait": 1},
            {"mark": "speed"},
            {"call": "/skin/replay", "request": {"op": "speed", "speed": 0.5}},
            {"call": "/skin/replay", "request": {"op": "play"}},
            {"wait": 2},
            {"call": "/skin/replay", "request": {"op": "speed", "speed": 20}},
            {"call": "/skin/replay", "request": {"op": "seek", "t_s": -1}},
            {"call": "/skin/replay", "request": {"op": "rewind"}},
        ])
        marks = {e["label"]: i for i, e in enumerate(evs) if e["ev"] == "mark"}
        a = answers(evs)
        assert [x[0] for x in a] == ["response"] * 6 + ["failure"] * 3, a
        assert a[0][1]["playing"] is False and 10.5 < a[0][1]["duration_s"] < 11.5, a
        assert a[0][1]["file"] == "press.log"
        assert abs(a[1][1]["t_s"] - 6.5) < 1e-3 and abs(a[2][1]["t_s"] - 8) < 1e-3, a
        assert abs(a[3][1]["t_s"] - 6) < 1e-3, a
        assert a[4][1]["speed"] == 0.5 and a[4][1]["playing"] is False, a
        assert a[5][1]["speed"] == 0.5 and a[5][1]["playing"] is True, a
        assert "0.1 to 10" in a[6][1] and "t_s" in a[7][1] and "op:" in a[8][1], a
        states = lambda i, j, part="left_forearm": [
            e for e in evs[i:j] if e["ev"] == "state" and e["topic"] == "/skin/%s/values" % part]
        stamp = lambda e: (int(e["stamp"]) - 1700000000 * 10**9) / 1e9
        # 6.5 s: at rest (calibrated at 5 s), every part's newest state published at once
        rest = states(0, marks["after"])
        assert rest and not any(pressed(e) for e in rest) and max(rest[-1]["values"]) == 0, rest[-1:]
        assert 6.3 < stamp(rest[-1]) <= 6.5, stamp(rest[-1])
        assert states(0, marks["after"], "left_hand"), "every part after a seek"
        # 8 s: the press, around taxel 37 only
        at8 = states(marks["after"], marks["paused"])
        assert at8 and pressed(at8[-1]) and 7.8 < stamp(at8[-1]) <= 8, at8[-1:]
        hot = [i for i, x in enumerate(at8[-1]["values"]) if x > 0]
        assert 37 in hot and len(hot) < 30, hot
        # the same sample on /skin/PART/state: touched, in a contact
        # placed in the layout of the recording's skind.conf
        st8 = [e for e in evs[marks["after"]:marks["paused"]]
               if e["ev"] == "partstate" and e["topic"] == "/skin/left_forearm/state"]
        assert st8 and st8[-1]["stamp"] == at8[-1]["stamp"], (st8[-1:], at8[-1]["stamp"])
        assert st8[-1]["values"] == at8[-1]["values"] and st8[-1]["state"] & 2, st8[-1]["state"]
        assert st8[-1]["flags"][37] & 1 and st8[-1]["thresholds"][37] > 0, st8[-1]["flags"][37]
        lays = [e for e in evs if e["ev"] == "replay" and e["topic"] == "/skin/layout"]
        assert len(lays) == 1 and lays[0]["generation"] == 1, lays
        lf = [q for q in lays[0]["parts"] if q["name"] == "left_forearm"][0]
        assert lf["n"] == len(st8[-1]["raw"]) and lf["kind"][37] == "t", lf["n"]
        c37 = [c for c in st8[-1]["contacts"] if 37 in c["taxels"]]
        assert c37 and all(st8[-1]["flags"][t] & 1 for t in c37[0]["taxels"]), st8[-1]["contacts"]
        assert min(lf["x"][t] for t in c37[0]["taxels"]) - 1e-6 <= c37[0]["cop2d"][0] <= \
            max(lf["x"][t] for t in c37[0]["taxels"]) + 1e-6, c37[0]
        # paused: nothing new, the replay's own messages say so
        assert not states(marks["paused"], marks["back"]), states(marks["paused"], marks["back"])[:3]
        reps = [e for e in evs[marks["paused"]:marks["back"]] if e["ev"] == "replay"]
        assert reps and all(not e["playing"] and abs(e["t_s"] - 8) < 1e-3 for e in reps), reps
        # back to 6 s: processed again from the start, at rest again
        back = states(marks["back"], marks["speed"])
        assert back and not pressed(back[-1]) and 5.8 < stamp(back[-1]) <= 6, back[-1:]
        # half speed for 2 s: about 1 s of the recording, in order
        played = states(marks["speed"], len(evs))
        t = [stamp(e) for e in played]
        assert t == sorted(t) and len(t) >= 10, t
        assert 0.5 < t[-1] - t[0] < 1.6, (t[0], t[-1])
    finally:
        log_text = v.stop()
    assert "replay: at 6.000 s" in log_text, log_text[-2000:]


@case("skin-view --replay of an ETH capture: the boards' frames through lib/eth, the same values as the candump log of the same traffic")
def t_view_replay_eth(env):
    d = os.path.join(env.dir, "replay-eth")
    os.makedirs(d, exist_ok=True)
    # etc/skind.conf's buses named after two ETH boards' CAN ports, as an
    # ETH robot's skind.conf names skin-eth's interfaces
    conf = os.path.join(d, "skind.conf")
    text = open(os.path.join(SRC, "etc/skind.conf")).read()
    for bus, port in (("can0", "eb24can1"), ("can1", "eb24can2"), ("can2", "eb10can2")):
        text = re.sub(r"\b%s\b" % bus, port, text)
    text = re.sub(r"(?m)^geometry = ", "geometry = %s/" % os.path.join(SRC, "etc"), text)
    with open(conf, "w") as f:
        f.write(text)
    scn, cap, log = (os.path.join(d, n) for n in ("press.scn", "press.pcap", "press.log"))
    with open(scn, "w") as f:
        f.write("config %s\nseed 1\nduration 10s\nat 7s press left_forearm taxel 37 radius 12mm "
                "force 80 name finger\nat 9s release finger\n" % conf)
    boards = ["--board", "10.0.1.24", "--board", "10.0.1.10:2"]
    r = subprocess.run([SKINSIM] + boards + ["--pcap", cap, "--log", log, "--fast",
                                             "--epoch", "1700000000", scn],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r
    seen = {}
    for name, argv in (("log", ["--replay", log, "--skind-config", conf]),
                       ("capture", ["--replay", cap, "--skind-config", conf] + boards)):
        v = View(env, argv=argv, ready="replaying")
        try:
            evs = viewctl(v, [{"call": "/skin/replay", "request": {"op": "pause"}},
                              {"subscribe": ["/skin/left_forearm/values", "/skin/torso/values"]},
                              {"call": "/skin/replay", "request": {"op": "seek", "t_s": 8}},
                              {"wait": 1}])
        finally:
            v.stop()
        assert answers(evs)[1][1]["file"] == os.path.basename(argv[1]), answers(evs)
        seen[name] = {e["topic"]: e["values"] for e in evs if e["ev"] == "state"}
    lf = seen["capture"]["/skin/left_forearm/values"]
    assert lf[37] > 0 and len([x for x in lf if x > 0]) < 30, lf
    assert seen["capture"] == seen["log"], "the capture's values are the log's"


@case("skin-view: a reload that removes a part unadvertises its channels, one that brings it back advertises new ones; the layout follows each generation")
def t_view_reload(env):
    d = Daemon(env, side="view-reload")
    v = None
    try:
        d.ready()
        v = View(env, daemon=d)
        ws = WS(v.port)
        assert ws.json()["op"] == "serverInfo"
        adv = ws.json()
        assert adv["op"] == "advertise", adv
        ids = {c["topic"]: c["id"] for c in adv["channels"]}
        lf = sorted(i for t, i in ids.items() if t.startswith("/skin/left_forearm/"))
        # four per part, and /skin/layout and /skin/health
        assert len(lf) == 4 and len(ids) == 10, ids
        # the layout: a second client, subscribed to it alone
        wl = WS(v.port)
        wl.json()
        wl.json()
        wl.send(json.dumps({"op": "subscribe", "subscriptions": [
            {"id": 1, "channelId": ids["/skin/layout"]}]}))
        lay = next_layout(wl, 0)
        assert [q["name"] for q in lay["parts"]] == ["pad", "left_forearm"], lay["parts"]
        with open(d.config) as f:
            text = f.read()
        with open(d.config, "w") as f:
            f.write(text.split("[part left_forearm]")[0])
        d.p.send_signal(signal.SIGHUP)
        m = ws.json()
        assert m == {"op": "unadvertise", "channelIds": [lf[0]]}, m
        gone = [m["channelIds"][0]] + [ws.json()["channelIds"][0] for _ in range(3)]
        assert sorted(gone) == lf, (gone, lf)
        # skind.conf read again: the new generation's parts
        lay2 = next_layout(wl, lay["generation"])
        assert [q["name"] for q in lay2["parts"]] == ["pad"], lay2
        assert lay2["generation"] == skin.parse_event(d.client().command("status")[0])["generation"]
        with open(d.config, "w") as f:
            f.write(text)
        d.p.send_signal(signal.SIGHUP)
        new = [ws.json() for _ in range(4)]
        chans = [c for m in new for c in m["channels"]]
        assert all(m["op"] == "advertise" for m in new), new
        assert sorted(c["topic"] for c in chans) == sorted(t for t in ids if "left_forearm" in t)
        # ids are not reused: a channel's id names one advertisement
        assert not set(c["id"] for c in chans) & set(ids.values()), chans
        values = [c["id"] for c in chans if c["topic"].endswith("/values")][0]
        ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": 9, "channelId": values}]}))
        op, p = ws.recv()
        while op != 2:
            op, p = ws.recv()
        assert p[0] == 1 and struct.unpack("<I", p[1:5])[0] == 9
        ws.close()
        lay3 = next_layout(wl, lay2["generation"])
        assert [q["name"] for q in lay3["parts"]] == ["pad", "left_forearm"], lay3
        assert lay3["parts"][1] == dict(lay["parts"][1]), "the same part, drawn the same"
        wl.close()
    finally:
        if v:
            v.stop()
        d.stop()


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1))


@case("skin-view: 500 idle connections, malformed and oversized frames, a client that stops reading, the caps; a good client keeps its rate")
def t_view_hostile(env):
    if not NODE_MODULES:
        raise Skip("no npm Foxglove client (scripts/node-tree found no node or npm)")
    d = env.daemon
    idle_s = 6
    v = View(env, idle_timeout_s=idle_s, max_clients=40, max_per_address=8,
             max_connections_per_address=60, max_frame=4096, queue_bytes=65536)
    f = Follower(d.sock, "pad")
    socks, wss = [], []
    reader = None
    try:
        f.following(d)
        # 500 connections that say nothing, 50 from each of 10 addresses
        for i in range(500):
            s = socket.socket()
            s.bind(("127.0.0.%d" % (10 + i % 10), 0))
            s.connect(("127.0.0.1", v.port))
            socks.append(s)
        # and 80 from one address: 60 held, the others hung up at once
        flood = []
        for _ in range(80):
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.connect(("127.0.0.1", v.port))
            flood.append(s)
        socks += flood

        def hung_up(s):
            s.settimeout(0.05)
            try:
                return s.recv(1) == b""
            except socket.timeout:
                return False
            except OSError:
                return True
        assert wait_for(lambda: sum(hung_up(s) for s in flood) >= 20, 10, 0.2), \
            sum(hung_up(s) for s in flood)
        # a client that subscribes to every channel and stops reading
        stuck = WS(v.port, src="127.0.0.4", rcvbuf=4096)
        adv = stuck.json()
        while adv.get("op") != "advertise":
            adv = stuck.json()
        stuck.send(json.dumps({"op": "subscribe", "subscriptions": [
            {"id": i, "channelId": c["id"]} for i, c in enumerate(adv["channels"])]}))
        rss0 = rss_kib(v.p.pid)

        mark = f.mark()
        seconds = 8
        good = ViewClient(v, seconds, ["/skin/pad/values"])
        reader = Drain(f)
        good.streaming()
        env.feed.cmd("press pad 60 5 6")

        # malformed: not JSON (1007), binary (1003), oversized (1009)
        for payload, opcode, code in (("not json", 1, 1007), ("[1,2,3]", 1, 1007),
                                      (b"\x01\x00\x00\x00\x00", 2, 1003),
                                      ("x" * 5000, 1, 1009)):
            w = WS(v.port, src="127.0.0.5")
            w.send(payload, opcode)
            got, why = w.closed()
            assert got == code, (payload[:20], got, why)
            assert why, "a reason is given"
            w.close()
        # a message over max_frame in fragments: 1009 too
        w = WS(v.port, src="127.0.0.5")
        for _ in range(3):
            w.send("y" * 2000, 1 if _ == 0 else 0, fin=False)
        assert w.closed()[0] == 1009
        w.close()
        # bad requests: an error status each, and the connection stays
        w = WS(v.port, src="127.0.0.6")
        for req, words in (({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": 999999}]},
                            "no channel 999999"),
                           ({"op": "subscribe"}, "subscriptions"),
                           ({"op": "setParameters", "parameters": []}, "not offered"),
                           ({"op": "unsubscribe", "subscriptionIds": [77]}, "no subscription 77")):
            w.send(json.dumps(req))
            m = w.json()
            while m["op"] != "status":
                m = w.json()
            assert words in m["message"] and m["level"] in (1, 2), (req, m)
        w.send(json.dumps({"op": "subscribe", "subscriptions": [
            {"id": 5, "channelId": adv["channels"][0]["id"]}]}))
        op, p = w.recv()
        while op != 2:
            op, p = w.recv()
        assert p[0] == 1 and struct.unpack("<I", p[1:5])[0] == 5, p[:13]
        wss.append(w)
        # the cap per address: 8 from 127.0.0.3, the 9th refused (1013)
        for _ in range(8):
            w = WS(v.port, src="127.0.0.3")
            assert w.json()["op"] == "serverInfo"
            wss.append(w)
        w = WS(v.port, src="127.0.0.3")
        code, why = w.closed()
        assert code == 1013, (code, why)
        w.close()

        evs = good.events()
        env.feed.cmd("release pad")
        time.sleep(0.5)
        shm = follow_taxels(f, "pad", mark)
        offset = mono_to_real()
        stamps = [int(e["stamp"]) for e in evs if e["ev"] == "state"]
        assert len(stamps) > 20, evs[-1]
        lo, hi = min(stamps), max(stamps)
        ref = [k for k in shm if lo - 1000000 <= k + offset <= hi + 1000000]
        # the good client got most of what skind published meanwhile: a
        # ratio of two counts in one window, not a time
        assert len(set(stamps)) >= 0.5 * len(ref), (len(set(stamps)), len(ref))
        print("# the good client beside the hostile ones: %d of the %d samples skind "
              "published in its window" % (len(set(stamps)), len(ref)), flush=True)
        assert not [e for e in evs if e["ev"] in ("error", "close")], evs[-5:]

        # the stuck client costs at most what it holds: no growth with
        # the samples it did not take (one pending per subscription)
        rss1 = rss_kib(v.p.pid)
        assert rss1 - rss0 < 32 * 1024, (rss0, rss1)
        print("# skin-view's RSS with a client that stopped reading: %d KiB, then %d KiB"
              % (rss0, rss1), flush=True)
        # ... and it is dropped, as the 500 silent ones are closed, within
        # the idle timeout and a few checks
        def gone(s):
            s.setblocking(False)
            try:
                return s.recv(1) == b""
            except BlockingIOError:
                return False
            except OSError:
                return True
        assert wait_for(lambda: all(gone(s) for s in socks), idle_s * 4, 0.2), \
            sum(not gone(s) for s in socks)
        # their places are given back once they are closed (the server
        # holds a descriptor until its peer's end too): the flood's address
        # is served again
        for s in socks:
            s.close()

        def served_again():
            try:
                return http_get(v.port, "/page.js", src="127.0.0.2")[0] == 200
            except (OSError, IndexError):
                return False    # hung up: no reply
        assert wait_for(served_again, 15, 0.5), "127.0.0.2 still refused"

        # (its socket is not read until the server says it dropped it:
        # reading would be progress)
        assert wait_for(lambda: "client 127.0.0.4: dropped" in v.log(), idle_s * 4, 0.2), \
            v.log()[-2000:]
        stuck.s.settimeout(10)
        try:
            while stuck.s.recv(65536):
                pass
        except ConnectionResetError:
            pass
    finally:
        for s in socks:
            s.close()
        for w in wss:
            w.close()
        reader.stop() if reader else f.stop()
        log = v.stop()
    m = re.search(r"served (\d+) clients \((\d+) refused over a cap\), (\d+) samples sent, "
                  r"(\d+) replaced unsent; closed: (\d+) idle, (\d+) stalled, (\d+) malformed, "
                  r"(\d+) oversized, \d+ queue full; (\d+) connections hung up over the cap "
                  r"per address", log)
    assert m, log[-2000:]
    refused, replaced, idle, stalled, malformed, oversized, hung = (
        int(m.group(i)) for i in (2, 4, 5, 6, 7, 8, 9))
    # 20 of the flood's 80 (and what came before its places were back)
    assert hung >= 20, m.group(0)
    assert refused >= 1 and stalled >= 1 and malformed == 3 and oversized == 2, m.group(0)
    assert replaced > 0, m.group(0)
    # the 8 quiet clients from 127.0.0.3 subscribed to nothing: idle
    assert idle >= 8, m.group(0)


# --- skin-view's page in a browser (headless Chromium, playwright-core) -------

BROWSER = os.path.join(SRC, "tests/daemon/browser.cjs")
CHROMIUM = os.environ.get("SKIN_CHROMIUM", "/usr/bin/chromium")
# the page's screenshots in docs/images, written by the cases when set
SHOTS = os.environ.get("SKIN_VIEW_SHOTS", "")


class Browser:
    """browser.cjs: skin-view's page in headless Chromium, one JSON
    command a line"""

    def __init__(self, view, hash_="#/"):
        if not NODE_MODULES or not os.path.isdir(os.path.join(NODE_MODULES, "playwright-core")):
            raise Skip("no npm playwright-core (scripts/node-tree found no node or npm)")
        if not os.access(CHROMIUM, os.X_OK):
            raise Skip("no Chromium at %s (the chromium package)" % CHROMIUM)
        self.err = os.path.join(view.dir, "browser.%d.err" % time.monotonic_ns())
        self.p = subprocess.Popen(["node", BROWSER, "http://127.0.0.1:%d/" % view.port],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(self.err, "w"), text=True, bufsize=1,
                                  env=dict(os.environ, SKIN_NODE_MODULES=NODE_MODULES,
                                           SKIN_CHROMIUM=CHROMIUM))
        self.goto(hash_)

    def cmd(self, wait_s=60, **c):
        self.p.stdin.write(json.dumps(c) + "\n")
        self.p.stdin.flush()
        r, _, _ = select.select([self.p.stdout], [], [], wait_s)
        line = self.p.stdout.readline() if r else ""
        if not line:
            with open(self.err) as f:
                raise RuntimeError("browser.cjs: no answer to %s: %s" % (c, f.read()[-2000:]))
        ans = json.loads(line)
        if not ans["ok"]:
            raise AssertionError("browser: %s: %s" % (c, ans["error"]))
        return ans

    def goto(self, hash_):
        self.cmd(op="goto", hash=hash_)

    def hash(self, hash_):
        self.cmd(op="hash", hash=hash_)

    def eval(self, expr):
        return self.cmd(op="eval", expr=expr).get("value")

    def wait(self, expr, timeout=20):
        """the value of @expr in the page once it is truthy"""
        return self.cmd(wait_s=timeout + 30, op="wait", expr=expr, timeout=timeout).get("value")

    def ready(self, timeout=30):
        return self.wait("window.skinView && window.skinView.ready", timeout)

    def shot(self, path, selector=None, full=False):
        self.cmd(op="shot", path=path, selector=selector, full=full)

    def problems(self):
        p = self.cmd(op="problems")
        return {k: p[k] for k in ("console", "failed", "pageerrors")}

    def close(self):
        if self.p.poll() is None:
            try:
                self.p.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.p.stdin.flush()
                self.p.wait(timeout=20)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.p.kill()
                self.p.wait()


def no_problems(b):
    """nothing went wrong in the page: no console error or warning, no
    failed request, no exception, no message it could not decode"""
    p = b.problems()
    assert p == {"console": [], "failed": [], "pageerrors": []}, p
    assert b.eval("window.skinView.errors") == 0


@case("skin-view: the page in headless Chromium loads with no console error or failed request and draws every part, whole body and each part")
def t_view_page(env):
    v = View(env)
    b = None
    try:
        b = Browser(v)
        b.ready()
        parts = b.eval("Object.keys(window.skinView.parts)")
        assert sorted(parts) == ["left_forearm", "pad"], parts
        # the whole body: a card per part, its canvas drawn from a sample,
        # and a health badge
        for name in parts:
            assert b.wait("document.querySelector('canvas.small[data-part=\"%s\"]')"
                          ".dataset.sample !== ''" % name)
            assert b.eval("document.querySelector('[data-part-badge=\"%s\"]').dataset.level"
                          % name) in ("0", "1", "2")
        # a click opens the part
        b.eval("document.querySelector('a.card[data-part=\"pad\"]').click()")
        b.wait("window.skinView.route.part === 'pad' && window.skinView.ready")
        assert b.eval("document.getElementById('part-canvas').dataset.part") == "pad"
        for name in parts:
            b.goto("#/part/" + name)
            b.ready()
            n = b.eval("window.skinView.parts['%s'].layout.n" % name)
            t = b.eval("window.skinView.taxelAt('%s', 0)" % name)
            assert t["id"] == 0 and t["port"] == 1 and t["raw"] is not None, t
            assert n == {"pad": 192, "left_forearm": 384}[name], n
        no_problems(b)
    finally:
        if b:
            b.close()
        v.stop()


def layout_sections():
    """the [layout PART] sections of the tree's skin-view.conf, their
    files made absolute (relative ones are under /etc/skin, which is etc/
    here); none when this skin-view.conf names no layout file"""
    with open(os.path.join(SRC, "bridges/view/skin-view.conf")) as f:
        text = f.read()
    out, keep = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("["):
            keep = s.startswith("[layout ")
        if not keep:
            continue
        m = re.match(r"^(\s*file\s*=\s*)(\S.*)$", line)
        if m and not m.group(2).startswith("/"):
            line = m.group(1) + os.path.join(SRC, "etc", m.group(2))
        out.append(line)
    return "\n".join(out) + "\n" if out else ""


class SimRobot:
    """The full body of etc/skind.conf simulated: skinsim writing ring
    files (its scenario @scenario), a skind of its own on them (a short
    calibration, fault limits of seconds), and skin-view on that skind
    with the package's layouts.  t0: when skinsim started (its scenario's
    clock, near enough)."""

    def __init__(self, env, scenario, truth=False, **skind_keys):
        self.dir = tempfile.mkdtemp(prefix="sim-", dir=env.dir)
        for sub in ("rings", "run", "state"):
            os.mkdir(os.path.join(self.dir, sub))
        with open(os.path.join(SRC, "etc/skind.conf")) as f:
            conf = f.read()
        conf = re.sub(r"(?m)^geometry = (?!/)", "geometry = %s/etc/" % SRC, conf)
        keys = dict(calibration_s=1, stuck_s=2, saturated_s=2, dead_s=1, noisy_s=2)
        keys.update(skind_keys)
        for k, v in keys.items():
            conf = re.sub(r"(?m)^%s\s*=.*\n" % k, "", conf)
        conf = conf.replace("[skind]\n", "[skind]\n" + "".join("%s = %s\n" % kv for kv in keys.items()), 1)
        self.config = os.path.join(self.dir, "skind.conf")
        with open(self.config, "w") as f:
            f.write(conf)
        scn = os.path.join(self.dir, "scenario.scn")
        with open(scn, "w") as f:
            f.write(scenario)
        self.truth = os.path.join(self.dir, "truth.txt") if truth else None
        self.procs = []
        self.sim_err = open(os.path.join(self.dir, "skinsim.err"), "w")
        self.t0 = time.monotonic()
        self.sim = subprocess.Popen([SKINSIM, "-c", self.config, "--ring", os.path.join(self.dir, "rings")] +
                                    (["--truth", self.truth] if truth else []) + [scn],
                                    stdout=subprocess.DEVNULL, stderr=self.sim_err)
        self.procs.append(self.sim)
        self.sock = os.path.join(self.dir, "run", "skind.sock")
        self.log_path = os.path.join(self.dir, "skind.log")
        self.logf = open(self.log_path, "w")
        # (skind waits for the ring files skinsim creates)
        assert wait_for(lambda: len(os.listdir(os.path.join(self.dir, "rings"))) >= 18 or
                        self.sim.poll() is not None, 20), self.sim_log()
        assert self.sim.poll() is None, self.sim_log()
        self.skind = subprocess.Popen([SKIND, "-c", self.config, "-r", os.path.join(self.dir, "rings"),
                                       "-s", self.sock, "--shm", os.path.join(self.dir, "run", "skind.shm"),
                                       "--state-dir", os.path.join(self.dir, "state"),
                                       "--no-create-patches", "--no-evdev"],
                                      stdout=self.logf, stderr=subprocess.STDOUT,
                                      env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"))
        self.procs.append(self.skind)
        assert wait_for(lambda: os.path.exists(self.sock) or self.skind.poll() is not None, 20), self.log()
        assert self.skind.poll() is None, self.log()
        self.view = None
        self.view = View(env, daemon=self, extra=layout_sections())

    def sim_log(self):
        self.sim_err.flush()
        with open(self.sim_err.name) as f:
            return f.read()[-2000:]

    def log(self):
        self.logf.flush()
        with open(self.log_path) as f:
            return f.read()[-3000:]

    def elapsed(self):
        return time.monotonic() - self.t0

    def stop(self):
        log = self.view.stop() if self.view else ""
        for p in (self.skind, self.sim):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.logf.close()
        self.sim_err.close()
        return log


def png_size(data):
    """(width, height) of PNG @data, checked: its signature, its IHDR
    first, and every chunk's CRC"""
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    at, size, chunks = 8, None, []
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        crc, = struct.unpack(">I", data[at + 8 + n:at + 12 + n])
        assert zlib.crc32(kind + body) == crc, kind
        if not chunks:
            assert kind == b"IHDR", kind
            size = struct.unpack(">II", body[:8])
        chunks.append(kind)
        at += 12 + n
    assert chunks[-1] == b"IEND" and b"IDAT" in chunks, chunks
    # the pixels inflate to the size IHDR says (8-bit RGBA or RGB)
    raw = zlib.decompress(b"".join(data[a + 8:a + 8 + struct.unpack(">I", data[a:a + 4])[0]]
                                   for a in png_chunks(data, b"IDAT")))
    assert len(raw) in (size[1] * (1 + 4 * size[0]), size[1] * (1 + 3 * size[0])), (len(raw), size)
    return size


def png_chunks(data, kind):
    at = 8
    while at < len(data):
        n, k = struct.unpack(">I4s", data[at:at + 8])
        if k == kind:
            yield at
        at += 12 + n


def data_url(url, mime):
    import base64
    head, _, b64 = url.partition(",")
    assert head == "data:%s;base64" % mime, head
    return base64.b64decode(b64)


@case("skin-view: the page's CDR reader decodes every field of PartStates npm's @foxglove/cdr writes, and refuses cut ones")
def t_view_page_cdr(env):
    if not NODE_MODULES:
        raise Skip("no npm @foxglove/cdr (scripts/node-tree found no node or npm)")
    r = subprocess.run(["node", os.path.join(SRC, "tests/daemon/cdrcheck.cjs"), "400"],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, SKIN_NODE_MODULES=NODE_MODULES))
    assert r.returncode == 0, (r.stdout, r.stderr[-2000:])
    m = re.match(r"cdrcheck: 400 messages, (\d+) truncations refused", r.stdout)
    assert m and int(m.group(1)) > 300, r.stdout


# every part of etc/skind.conf
FULL_BODY = ["left_forearm", "left_hand", "left_upper_arm", "right_forearm", "right_hand",
             "right_upper_arm", "torso"]


def shot(b, name, selector=None, full=False):
    """a screenshot for docs/images when SKIN_VIEW_SHOTS names a directory"""
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        path = os.path.join(SHOTS, name)
        b.shot(path, selector, full)
        try:    # small for the repository: a palette of 256 colours
            from PIL import Image
            Image.open(path).convert("RGB").quantize(256, method=2).save(path, optimize=True)
        except ImportError:
            pass


@case("skin-view: the page shows the whole simulated body, every part drawn and a health badge each, opens a part; its PNG and SVG export are the drawing")
def t_view_page_body(env):
    r = SimRobot(env, "seed 3\nduration 120s\n")
    b = None
    try:
        b = Browser(r.view)
        b.ready(60)
        parts = b.eval("Object.keys(window.skinView.parts).sort()")
        assert parts == FULL_BODY, parts
        for name in parts:
            # drawn from a sample of its own, with its layout's taxels
            assert b.wait("document.querySelector('canvas.small[data-part=\"%s\"]')"
                          ".dataset.sample !== ''" % name)
            lp = b.eval("(() => { const l = window.skinView.parts['%s'].layout; "
                        "return { n: l.n, placed: l.x.filter((x) => x !== null).length, "
                        "outlines: l.outlines.length }; })()" % name)
            assert lp["placed"] > 0 and lp["outlines"] > 0, (name, lp)
            assert b.wait("document.querySelector('[data-part-badge=\"%s\"]').dataset.level >= 0"
                          % name)
        shot(b, "view-body.png", selector="#body-view")
        # the whole body's PNG and SVG: every part's drawing
        w, h = png_size(data_url(b.eval("window.skinView.exportPNG()"), "image/png"))
        assert w >= 4 * 260 and h >= 2 * 190, (w, h)
        placed = b.eval("Object.values(window.skinView.parts).reduce((a, p) => "
                        "a + p.layout.x.filter((x) => x !== null).length, 0)")
        svg = ET.fromstring(b.eval("window.skinView.exportSVG()"))
        assert len([e for e in svg.iter() if e.get("data-taxel") is not None]) == placed, placed
        # a click opens a part; its PNG is the canvas, its SVG one shape
        # per drawn taxel
        b.eval("document.querySelector('a.card[data-part=\"left_hand\"]').click()")
        b.wait("window.skinView.route.part === 'left_hand' && window.skinView.ready")
        size = b.eval("[document.getElementById('part-canvas').width, "
                      "document.getElementById('part-canvas').height]")
        w, h = png_size(data_url(b.eval("window.skinView.exportPNG()"), "image/png"))
        assert [w, h] == size, (w, h, size)
        placed = b.eval("window.skinView.parts.left_hand.layout.x.filter((x) => x !== null).length")
        svg = ET.fromstring(b.eval("window.skinView.exportSVG()"))
        assert svg.tag == "{http://www.w3.org/2000/svg}svg", svg.tag
        assert [int(svg.get("width")), int(svg.get("height"))] == size, svg.attrib
        taxels = {int(e.get("data-taxel")) for e in svg.iter() if e.get("data-taxel") is not None}
        assert len(taxels) == placed, (len(taxels), placed)
        no_problems(b)
    finally:
        if b:
            b.close()
        r.stop()


def truth_pressed(path, part):
    """the taxels of @part skinsim pressed at some time (its ground truth)"""
    patches, got = set(), set()
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "patch" and w[4] == part:
                patches.add(w[1])
            elif w and w[0] == "taxel" and w[1] in patches and float(w[4]) > 0:
                got.add(int(w[3]))
    return got


# every taxel of the shown part as the page has it: [touched, compensated, color]
ALL_TAXELS = """(() => { const p = '%s', n = window.skinView.parts[p].layout.n, o = {};
    for (let i = 0; i < n; i++) { const t = window.skinView.taxelAt(p, i);
      if (t.x !== null) o[i] = [t.touched, t.compensated, t.color]; }
    return o; })()"""


@case("skin-view: a press skinsim makes appears in the page on the taxels it pressed and no other; the taxel under the pointer and its last 30 s")
def t_view_page_press(env):
    press_s = 30
    r = SimRobot(env, "seed 3\nduration 300s\n"
                 "at %ds press left_forearm taxel 37 radius 12mm force 80 name finger\n"
                 "at 120s release finger\n" % press_s, truth=True)
    b = None
    try:
        b = Browser(r.view, "#/part/left_forearm")
        b.ready(60)
        # a fixed range: a colour says a value
        b.eval("window.skinView.setMode('compensated', false, 0, 100)")
        time.sleep(0.5)
        if r.elapsed() > press_s - 2:
            raise AssertionError("the page was ready only %.1f s into the scenario, after its press"
                                 % r.elapsed())
        before = b.eval(ALL_TAXELS % "left_forearm")
        assert not [i for i, t in before.items() if t[0]], "touched before the press"
        b.wait("window.skinView.taxelAt('left_forearm', 37).touched", press_s + 30)
        time.sleep(1.5)
        after = b.eval(ALL_TAXELS % "left_forearm")
        pressed = truth_pressed(r.truth, "left_forearm")
        touched = {int(i) for i, t in after.items() if t[0]}
        assert 37 in touched and touched <= pressed, (sorted(touched), sorted(pressed))
        changed = {int(i) for i in after if after[i][2] != before[i][2]}
        assert touched <= changed, (sorted(touched), sorted(changed))
        # every taxel skinsim did not press keeps its colour
        assert changed <= pressed, (sorted(changed - pressed), sorted(pressed))
        print("# pressed %d taxels (truth %d): %s" % (len(touched), len(pressed), sorted(touched)),
              flush=True)
        # the taxel under the pointer
        at = b.eval("window.skinView.pixelOf(37)")
        b.cmd(op="hover", selector="#part-canvas", x=at["x"], y=at["y"])
        b.wait("document.getElementById('taxel').dataset.taxel === '37'", 10)
        text = b.eval("document.getElementById('taxel-text').textContent")
        assert "37 (port position 38)" in text, text
        lp = b.eval("window.skinView.taxelAt('left_forearm', 37)")
        for k in ("board", "triangle", "channel"):
            assert ("%s%d" % (k, lp[k])) in text, (k, lp, text)
        # its last 30 s: the CSV of the ring, before and during the press
        csv = b.eval("window.skinView.exportCSV('left_forearm')").splitlines()
        head = csv[0].split(",")
        assert head[0] == "time_s" and "taxel_37" in head, head[:5]
        col = head.index("taxel_37")
        rows = [l.split(",") for l in csv[1:]]
        assert len(rows) > 100, len(rows)
        times = [float(x[0]) for x in rows]
        assert times == sorted(times) and times[-1] - times[0] > 3, (times[0], times[-1])
        vals = [float(x[col]) for x in rows]
        assert min(vals) < 1 and max(vals) > 50, (min(vals), max(vals))
        for i in set(range(1, len(head))) - {head.index("taxel_%d" % k) for k in pressed
                                             if "taxel_%d" % k in head}:
            assert all(float(x[i]) < 50 for x in rows), head[i]
        shot(b, "view-part-press.png", selector="#part-view")
        no_problems(b)
    finally:
        if b:
            b.close()
        r.stop()


def flagged(b):
    """what the page flags: the health table's rows and the layout's faulty
    taxels, per part"""
    return b.eval("""(() => {
        const rows = [...document.querySelectorAll('#health-table tbody tr[data-part]')].map((tr) =>
            ({ part: tr.dataset.part, taxel: tr.dataset.taxel === undefined ? null : Number(tr.dataset.taxel),
               taxels: (tr.dataset.taxels || '').split(' ').filter((x) => x).map(Number),
               board: tr.dataset.board === undefined ? null : tr.dataset.board, fault: tr.dataset.fault }));
        const drawn = {};
        for (const [name, p] of Object.entries(window.skinView.parts)) {
            drawn[name] = { silent: p.silent, taxels: {} };
            for (let i = 0; i < p.layout.n; i++) {
                const t = window.skinView.taxelAt(name, i);
                if (t.fault || (p.silent.length && p.silent.includes(t.board) && t.x !== null))
                    drawn[name].taxels[i] = { fault: t.fault, outline: t.outline, color: t.color,
                                              board: t.board, triangle: t.triangle };
            }
        }
        return { rows, drawn };
    })()""")


FAULT_COLORS = {"dead": "#111111", "saturated": "#e6194b", "stuck": "#b04cff", "noisy": "#ff8c00"}


@case("skin-view: the taxels skinsim makes stuck, saturated, dead and noisy, and the board it silences, are flagged in the page's table and on its layout within seconds")
def t_view_page_faults(env):
    fault_s = 12
    r = SimRobot(env, "seed 5\nduration 300s\n"
                 "at 10s press left_forearm taxel 37 radius 12mm force 80 name finger\n"
                 "at {t}s fault stuck left_forearm 40 value 200\n"
                 "at {t}s fault saturate left_forearm 44\n"
                 "at {t}s fault dead can0:12 triangle 3\n"
                 "at {t}s fault noisy left_hand 110 amplitude 40\n"
                 "at {t}s fault drop 1 board can1:14\n".format(t=fault_s))
    b = None
    try:
        b = Browser(r.view, "#/")
        b.ready(60)
        lf = b.eval("window.skinView.parts.left_forearm.layout")
        dead = {i for i in range(lf["n"]) if lf["board"][i] == 12 and lf["triangle"][i] == 3
                and lf["kind"][i] == "t"}
        # (its thermal pads may be flagged dead too)
        dead_all = {i for i in range(lf["n"]) if lf["board"][i] == 12 and lf["triangle"][i] == 3}
        assert dead, "no taxel of board 12 triangle 3 in the layout"
        want = {("left_forearm", 40): "stuck", ("left_forearm", 44): "saturated",
                ("left_hand", 110): "noisy"}
        want.update({("left_forearm", i): "dead" for i in dead})
        seen = {}
        silent_at = None
        end = time.monotonic() + 60
        while time.monotonic() < end:
            f = flagged(b)
            now = r.elapsed() - fault_s
            # (a row per board, triangle and faults: its taxels listed)
            rows = {(x["part"], t): x["fault"] for x in f["rows"] for t in x["taxels"]}
            for k, fault in want.items():
                t = f["drawn"][k[0]]["taxels"].get(str(k[1]))
                if k not in seen and rows.get(k) == fault and t and t["fault"] == fault:
                    assert t["outline"] == FAULT_COLORS[fault], (k, t)
                    seen[k] = now
            silent = [x for x in f["rows"] if x["part"] == "right_hand" and x["fault"] == "silent"]
            if silent_at is None and silent and 14 in f["drawn"]["right_hand"]["silent"]:
                greyed = f["drawn"]["right_hand"]["taxels"]
                assert greyed and all(t["color"] == "#9a9a9a" for t in greyed.values()), greyed
                silent_at = now
            if len(seen) == len(want) and silent_at is not None:
                break
            time.sleep(0.5)
        missing = sorted(set(want) - set(seen))
        assert not missing and silent_at is not None, \
            ("not flagged in 60 s", [(k, want[k]) for k in missing], silent_at, f["rows"])
        # nothing else is flagged: no taxel of another part or board
        extra = [(x["part"], t) for x in f["rows"] for t in x["taxels"]
                 if (x["part"], t) not in want and
                 not (x["part"] == "left_forearm" and t in dead_all)]
        assert not extra, extra
        print("# flagged after the fault: %s; the silent board after %.1f s"
              % (", ".join("%s %.1f s" % (want[k], t) for k, t in sorted(seen.items())
                           if k[1] not in dead or k[1] == min(dead)), silent_at), flush=True)
        # the seconds they took: the limits set (stuck_s, saturated_s 2,
        # dead_s 1; noisy_s skind's) plus the page's second of health
        assert max(seen.values()) < 30 and silent_at < 30, (seen, silent_at)
        shot(b, "view-body-faults.png", selector="#body-view")
        shot(b, "view-health.png", selector="#health")
        b.hash("#/part/left_forearm")
        b.ready(30)
        time.sleep(1)
        shot(b, "view-part-faults.png", selector="#part-view")
        no_problems(b)
    finally:
        if b:
            b.close()
        r.stop()


@case("skin-view: the page's replay timeline plays, pauses, seeks and sets the speed of a recorded press (skin-view --replay)")
def t_view_page_replay(env):
    # skinsim's candump log of the full body: rest, a press of
    # left_forearm's taxel 37 from 7 to 9 s, rest (spec C: the recording
    # served through the same stack as skind, with /skin/replay)
    d = tempfile.mkdtemp(prefix="replay-", dir=env.dir)
    scn, log = os.path.join(d, "press.scn"), os.path.join(d, "press.log")
    conf = os.path.join(SRC, "etc/skind.conf")
    with open(scn, "w") as f:
        f.write("config %s\nseed 1\nduration 11s\nat 7s press left_forearm taxel 37 radius 12mm "
                "force 80 name finger\nat 9s release finger\n" % conf)
    r = subprocess.run([SKINSIM, "--log", log, "--fast", "--epoch", "1700000000", scn],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r
    v = View(env, argv=["--replay", log, "--skind-config", conf], ready="replaying",
             extra=layout_sections(), skind_config=conf)
    b = None
    try:
        b = Browser(v, "#/part/left_forearm")
        b.ready(60)
        # the timeline, shown because the server advertises /skin/replay
        b.wait("!document.getElementById('replay').hidden && window.skinView.replay")
        rep = b.eval("window.skinView.replay")
        assert 10 <= rep["duration_s"] <= 12 and rep["file"], rep
        touched = "window.skinView.taxelAt('left_forearm', 37).touched"
        # pause, with the button
        if b.eval("window.skinView.replay.playing"):
            b.eval("document.getElementById('replay-play').click()")
        b.wait("window.skinView.replay && !window.skinView.replay.playing", 10)
        # seek into the press, then before it, with the slider
        seek = ("(() => { const s = document.getElementById('replay-seek'); s.value = %g; "
                "s.dispatchEvent(new Event('change')); return true; })()")
        b.eval(seek % 8)
        b.wait("Math.abs(window.skinView.replay.t_s - 8) < 0.5", 10)
        b.wait(touched, 10)
        assert not b.eval("window.skinView.replay.playing")
        shot(b, "view-replay.png", selector="body")
        b.eval(seek % 4)
        b.wait("Math.abs(window.skinView.replay.t_s - 4) < 0.5", 10)
        b.wait("!" + touched, 10)
        # the speed, with its list; then play again
        b.eval("(() => { const s = document.getElementById('replay-speed'); s.value = '2'; "
               "s.dispatchEvent(new Event('change')); return true; })()")
        b.wait("window.skinView.replay.speed === 2", 10)
        b.eval("document.getElementById('replay-play').click()")
        b.wait("window.skinView.replay.playing && window.skinView.replay.t_s > 4.5", 10)
        # it plays on into the press
        b.wait(touched, 20)
        no_problems(b)
    finally:
        if b:
            b.close()
        v.stop()


@case("skin-view: the page's actions, with the token only: a wrong one refused, calibrate and set add_threshold reach skind")
def t_view_page_actions(env):
    d = env.daemon
    v = View(env, token="page-test-token-0123")
    b = None
    try:
        b = Browser(v, "#/part/pad")
        b.ready()
        # shown because the server advertises the services; the value of
        # the parameter is skind's (get, no token)
        b.wait("!document.getElementById('actions').hidden", 10)
        assert b.wait("document.getElementById('act-value').value", 10) in ("7", "7.0")
        act = ("(() => { document.getElementById('act-token').value = '%s'; "
               "document.getElementById('%s').click(); return true; })()")
        msg = "document.getElementById('act-msg').textContent"
        b.eval(act % ("wrong", "act-calibrate"))
        assert "not authorised" in b.wait("/not authorised|done|calibrat/.test(%s) && %s" % (msg, msg))
        b.eval(act % ("page-test-token-0123", "act-calibrate"))
        assert "calibrat" in b.wait("/calibrat|done/.test(%s) && %s" % (msg, msg)), msg
        d.ready()
        b.eval("document.getElementById('act-value').value = '9'")
        b.eval(act % ("page-test-token-0123", "act-set-go"))
        b.wait("/add_threshold = 9(\\.0)?$/.test(%s)" % msg)
        with d.client() as c:
            assert c.command("get add_threshold")[0].split()[2] in ("9", "9.0")
        b.eval("document.getElementById('act-value').value = '7'")
        b.eval(act % ("page-test-token-0123", "act-set-go"))
        b.wait("/add_threshold = 7(\\.0)?$/.test(%s)" % msg)
        # the refusal is the server's answer, not a page error
        p = b.problems()
        assert p["failed"] == [] and p["pageerrors"] == [], p
    finally:
        if b:
            b.close()
        v.stop()
        with d.client() as c:
            c.command("set add_threshold 7")


def main():
    glob = sys.argv[1] if len(sys.argv) > 1 else "*"
    cases = [(n, f) for n, f in CASES if fnmatch.fnmatch(n, glob) or fnmatch.fnmatch(f.__name__, glob)]
    print("1..%d" % len(cases), flush=True)
    env = Env()
    failed = 0
    try:
        env.start(["--admin-group", "daemon"]).ready()
        for i, (name, fn) in enumerate(cases, 1):
            try:
                if env.daemon is None:
                    env.start(["--admin-group", "daemon"]).ready()
                fn(env)
                print("ok %d - %s" % (i, name), flush=True)
            except Skip as why:
                print("ok %d - %s # SKIP %s" % (i, name, why), flush=True)
            except Exception:
                failed += 1
                print("not ok %d - %s" % (i, name))
                for line in traceback.format_exc().splitlines():
                    print("# " + line)
                if env.daemon:
                    for line in env.daemon.log().splitlines()[-15:]:
                        print("#   skind: " + line)
                sys.stdout.flush()
                if env.daemon and env.daemon.p.poll() is not None:
                    print("# skind died (%d); starting a new one" % env.daemon.p.returncode)
                    env.daemon = None
    finally:
        env.close()
        if not failed:
            shutil.rmtree(env.dir, ignore_errors=True)
        else:
            print("# left for inspection: %s" % env.dir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
