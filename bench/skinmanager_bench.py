#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""skind and skin-yarp against iCub's real skinManager, on the same
simulated skin in the same run (docs/PERFORMANCE.md, "skind against
iCub's skinManager").  Run by bench/skinmanager-bench.

The yarp layer's stack (tests/yarp/test_yarp.py, one copy): skinsim plays
a skind.conf on ring files, skind on them, a yarpserver of its own,
skin-yarp, and the real skinManager (unmodified) with a skinManAll.ini
whose inputPorts are skin-yarp's raw ports, one per part
(start_skin_manager()).

  1. cost: for the upper body (etc/skind.conf: 7 parts, 18 boards) and
     the full body (etc/skind-full-body.conf: 13 parts, 44 boards), skind
     in its own mode and in compat mode, two held touches, all calibrated:
     over the same BENCH_SECS window, each process's CPU (utime + stime,
     % of one core), RSS, PSS and private memory (smaps_rollup) and
     threads; BENCH_REPS repetitions, the configurations interleaved.
     skinManager reads skin-yarp's raw ports, so skin-yarp runs in every
     configuration and its cost is not in skinManager's: the ratios are
     skinManager / skind and skinManager / (skind + skin-yarp).
  2. agreement: the full body, skind in compat mode with skinManager's
     period, calibration and parameters, one taxel per board stepping
     (left out of the comparison: with the simulator's noise and drift at
     0 a calibration where nothing moves is refused), a press held on
     every part, in two runs (BENCH_AGREE): the noise and drift at 0
     ("0"), then the simulator's own ("sim", both recalibrated at once
     first, and their touch thresholds compared after): for each part, nothing pressed and
     pressed, binarization on and off, skinManager's _comp vectors against
     skind's (compare_window(): vectors and values equal within 0.006).
Prints BENCH lines and a summary; asserts nothing.
"""
import os
import re
import statistics
import subprocess
import sys
import time

TOP = os.environ["SKIN_SOURCE_ROOT"]
sys.path.insert(0, os.path.join(TOP, "tests/yarp"))
import test_yarp as ty  # noqa: E402  (the yarp layer's stack, one copy)

SECS = float(os.environ.get("BENCH_SECS", "30"))
REPS = int(os.environ.get("BENCH_REPS", "3"))
MODES = os.environ.get("BENCH_MODES", "default,compat").split(",")
BODIES = (("upper", "etc/skind.conf"), ("full", "etc/skind-full-body.conf"))
# held from TOUCH_AT (simulator's time) on, after both calibrations
TOUCHES = ("left_forearm taxel 37 radius 12mm force 80", "torso taxel 100 radius 15mm force 60")
TOUCH_AT = 30.0
PROCS = ("skind", "skin-yarp", "skinManager", "yarpserver")
TICK = os.sysconf("SC_CLK_TCK")
SKINSIM = os.environ["SKINSIM"]


def cpu_s(path):
    """utime + stime of /proc/.../stat, in seconds"""
    f = open(path).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


def proc_cpu(pid):
    """(the process's CPU seconds, {thread id: (its name, CPU seconds)})"""
    tasks = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            comm = open("/proc/%d/task/%s/comm" % (pid, tid)).read().strip()
            tasks[tid] = (comm, cpu_s("/proc/%d/task/%s/stat" % (pid, tid)))
        except OSError:
            pass		# ended meanwhile
    return cpu_s("/proc/%d/stat" % pid), tasks


def proc_memory(pid):
    """smaps_rollup's Rss, Pss, Private_Clean + Private_Dirty (kB) and
    the threads"""
    m = dict(re.findall(r"^(\w+):\s+(\d+) kB", open("/proc/%d/smaps_rollup" % pid).read(),
                        re.M))
    threads = int(re.search(r"^Threads:\s+(\d+)", open("/proc/%d/status" % pid).read(),
                            re.M).group(1))
    return {"rss": int(m["Rss"]), "pss": int(m["Pss"]),
            "private": int(m["Private_Clean"]) + int(m["Private_Dirty"]), "threads": threads}


def stack():
    """the yarp layer's Stack, its skinsim at nice -10: playing the full
    body on ring files takes skinsim about 0.6 of a core (the driver's
    work, mostly system time), and on a loaded host it would fall behind
    the boards' 50 ms (3x slower at a load of 12), giving skind,
    skin-yarp and skinManager fewer samples than a robot's skin and the
    scenario's times late; each run prints the boards' rate it had"""
    S = ty.Stack()
    ty.S = S
    wrapper = os.path.join(S.tmp, "skinsim")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec nice -n -10 %s \"$@\"\n" % SKINSIM)
    os.chmod(wrapper, 0o755)
    ty.ENV["SKINSIM"] = wrapper
    return S


def board_frames(S):
    """the ring samples skind has read, summed over the boards, and the
    boards"""
    n = [int(m) for m in re.findall(r"^patch .* frames (\d+) ", ty.skind_cmd("parts"), re.M)]
    return sum(n), len(n)


def sim_time(S):
    """the simulator's time as skind has read it: its boards' samples, a
    mean, at the boards' 50 ms (skinsim may run behind the wall clock)"""
    frames, boards = board_frames(S)
    return frames / boards * 0.05


def start_skin_manager(S, conf, **kw):
    """the real skinManager on every part of CONF, once the bridge has
    registered all their raw ports (start_skin_manager() takes those
    registered when it starts)"""
    ports = ["/icub/skin/%s/rpc:i" % p for p in ty.skind_geometry(conf)]
    S.wait_for(lambda: all(p in S.yarp("name", "list").stdout for p in ports),
               "the bridge's raw ports", 60)
    return ty.start_skin_manager(conf=conf, **kw)


def at_sim(S, t):
    """wait for the simulator's time T; -> the wall time it was seen"""
    while sim_time(S) < t:
        time.sleep(0.2)
    return time.time()


def cost_run(body, conf, mode):
    """one configuration: {process: {cpu (% of a core), rss, pss,
    private (kB), threads, top: the busiest threads}}"""
    S = stack()
    sm = None
    try:
        if mode == "compat":
            path = os.path.join(S.tmp, "compat.conf")
            ty.compat_conf(path, conf)
            conf = path
        S.start_yarpserver()
        S.start_skin(conf=conf, touches=TOUCHES, at="%gs" % TOUCH_AT)
        S.start_bridge()
        sm, ports = start_skin_manager(S, conf)
        S.wait_for(lambda: all(c in S.yarp("name", "list").stdout
                               for c in ports["comp"].values()), "skinManager's ports", 60)
        ready = sim_time(S)
        if ready + 5 > TOUCH_AT:
            print("# %s %s: skinManager ready at %.0f s, its calibration (5 s) may hold "
                  "the touches at %.0f s" % (body, mode, ready, TOUCH_AT))
        time.sleep(8)		# its calibration, 251 cycles of 20 ms
        at_sim(S, TOUCH_AT + 2)	# the touches held
        pids = {"skind": S.skind.pid, "skin-yarp": S.bridge.pid, "skinManager": sm.pid,
                "yarpserver": S.yarpserver.pid}
        f0, boards = board_frames(S)
        t0 = time.monotonic()
        before = {k: proc_cpu(pid) for k, pid in pids.items()}
        time.sleep(SECS)
        after = {k: proc_cpu(pid) for k, pid in pids.items()}
        dt = time.monotonic() - t0
        f1 = board_frames(S)[0]
        assert sm.poll() is None, "skinManager exited"
        out = {}
        for k, pid in pids.items():
            r = proc_memory(pid)
            r["cpu"] = (after[k][0] - before[k][0]) / dt * 100
            busy = sorted(((c - before[k][1].get(tid, (n, 0.0))[1], n)
                           for tid, (n, c) in after[k][1].items()), reverse=True)
            r["top"] = [(n, c / dt * 100) for c, n in busy[:3]]
            out[k] = r
        out["parts"] = len(ports["comp"])
        out["boards"] = boards
        out["rate"] = (f1 - f0) / boards / dt
        return out
    finally:
        if sm is not None:
            ty.stop_skin_manager(sm)
        S.close()


def cost():
    runs = {}
    for rep in range(1, REPS + 1):
        for mode in MODES:
            for body, conf in BODIES:
                r = cost_run(body, conf, mode)
                runs.setdefault((body, mode), []).append(r)
                print("BENCH cost body=%s mode=%s rep=%d parts=%d boards=%d "
                      "board_samples_per_s=%.1f window_s=%.0f" % (
                          body, mode, rep, r["parts"], r["boards"], r["rate"], SECS))
                for k in PROCS:
                    p = r[k]
                    print("BENCH cost body=%s mode=%s rep=%d proc=%s cpu_pct=%.2f rss_kb=%d "
                          "pss_kb=%d private_kb=%d threads=%d busiest=%s" % (
                              body, mode, rep, k, p["cpu"], p["rss"], p["pss"], p["private"],
                              p["threads"], ",".join("%s:%.2f" % t for t in p["top"])))
                sys.stdout.flush()
    print("# medians of %d runs of %.0f s; skin-yarp serves skinManager's inputs (its raw "
          "ports) in every run, so it is not in skinManager's figures" % (REPS, SECS))
    for (body, mode), rs in runs.items():
        med = {k: {f: statistics.median(r[k][f] for r in rs)
                   for f in ("cpu", "rss", "pss", "private", "threads")} for k in PROCS}
        for f in ("cpu", "rss", "pss", "private", "threads"):
            sm, sk, yb = med["skinManager"][f], med["skind"][f], med["skin-yarp"][f]
            ratios = [r["skinManager"][f] / r["skind"][f] for r in rs]
            ratios_all = [r["skinManager"][f] / (r["skind"][f] + r["skin-yarp"][f]) for r in rs]
            print("BENCH summary body=%s mode=%s parts=%d figure=%s skinManager=%.6g skind=%.6g "
                  "skin_yarp=%.6g yarpserver=%.6g ratio_skind=%.2f (%.2f-%.2f) "
                  "ratio_skind_skin_yarp=%.2f (%.2f-%.2f)" % (
                      body, mode, rs[0]["parts"], f, sm, sk, yb, med["yarpserver"][f],
                      statistics.median(ratios), min(ratios), max(ratios),
                      statistics.median(ratios_all), min(ratios_all), max(ratios_all)))


# the agreement run's clock, in the simulator's seconds as skind reads
# them: the quiet windows begin QUIET after skinManager's ports are up
# and its readers connected (both calibrated, their smooth start over),
# the presses land at PRESS (the set-up takes 10-60 s on a loaded host)
AGREE_QUIET, AGREE_PRESS, AGREE_WINDOW_S = 12.0, 90.0, 5.0


def positioned_taxels(geometry):
    """the taxels of a positions file with a position (its [calibration]
    rows, one per slot, not all zero)"""
    rows = open(geometry).read().split("[calibration]", 1)[1].split("\n")
    rows = [r.split() for r in rows if r.strip()]
    return [i for i, r in enumerate(rows) if any(float(x) for x in r[:3])]


def conf_parts(conf):
    """[(skind's part name, its geometry file, its number of boards)]"""
    out, part = [], None
    conf = os.path.join(TOP, conf)
    for line in open(conf):
        line = line.split("#")[0].strip()
        if line.startswith("["):
            m = re.match(r"\[part (\S+)\]", line)
            part = [m.group(1), None, 0] if m else None
            if part:
                out.append(part)
            continue
        m = re.match(r"(geometry|patches)\s*=\s*(.*)", line)
        if part and m and m.group(1) == "geometry":
            part[1] = os.path.normpath(os.path.join(os.path.dirname(conf), m.group(2)))
        elif part and m:
            part[2] = len(m.group(2).split())
    return out


def agreement(noise, conf="etc/skind-full-body.conf"):
    """NOISE "0": the simulator's noise and drift at 0; "sim": its own"""
    S = stack()
    sm, procs, socks = None, [], []
    try:
        path = os.path.join(S.tmp, "compat.conf")
        ty.compat_conf(path, conf)
        # one taxel per board steps (stuck at 150 for 0.5 s every 2 s);
        # a press in the middle of every part's positioned taxels
        stepping, steps = {}, ["noise 0", "drift 0 120s"] if noise == "0" else []
        for part, geometry, boards in conf_parts(conf):
            have = positioned_taxels(geometry)
            stepping[part] = [next(i for i in have if b * 192 <= i < (b + 1) * 192)
                              for b in range(boards)]
            for k in range(int(AGREE_PRESS + 30) // 2):
                steps += ["at %.1fs fault stuck %s %d value 150 for 500ms" % (1 + 2 * k, part, i)
                          for i in stepping[part]]
            steps.append("at %gs press %s taxel %d radius 15mm force 60 name p_%s ramp 1ms" % (
                AGREE_PRESS, part, have[len(have) // 2], part))
        S.start_yarpserver()
        S.start_skin(conf=path, touches=(), scenario=steps)
        S.start_bridge()
        sm, ports = start_skin_manager(S, path, binarization=True)
        S.wait_for(lambda: all(c in S.yarp("name", "list").stdout
                               for c in ports["comp"].values()), "skinManager's ports", 60)
        names = ty.skin_manager_names()
        skind_name = {port: p for p, port in names.items()}
        skip = {names[p]: set(t) for p, t in stepping.items()}
        ready = sim_time(S)
        print("# skinManager ready at %.1f s of the simulator's (%.1f s since it started); "
              "parts %s" % (ready, time.time() - S.sim_start, " ".join(ports["comp"])))
        quiet = ready + AGREE_QUIET
        recording, seen = [False], set()

        def line_if_recording_skind(line):
            return line if recording[0] else None

        def line_if_recording(line, part):
            if part not in seen and ty.sm_vector(line) is not None:
                seen.add(part)		# its calibration over (not YARP's messages)
            return line if recording[0] else None
        rec = {}
        for part, comp in ports["comp"].items():
            r = subprocess.Popen([ty.YARP, "read", "/r_agree_" + part, comp], env=S.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            procs.append(r)
            s = ty.socket.socket(ty.socket.AF_UNIX)
            s.connect(S.env["SKIN_SOCKET"])
            s.sendall(("subscribe taxels %s\n" % skind_name[part]).encode())
            socks.append(s)
            rec[part] = (ty.Recorder(r.stdout, lambda l, p=part: line_if_recording(l, p)),
                         ty.Recorder(s.makefile("r"), line_if_recording_skind))
        S.wait_for(lambda: len(seen) == len(rec), "skinManager's outputs read", 90)
        if noise != "0":
            # with noise, two calibrations over different seconds differ
            # (each taxel's mean, its 95th percentile): both again at once
            ty.skind_cmd("calibrate")
            S.yarp("rpc", ports["rpc"], input="calib\n", timeout=15)
            time.sleep(6)		# 5 s and skind's reply
        quiet = max(quiet, sim_time(S) + 3)	# its smooth start over
        windows = (("quiet, binarized", quiet, True),
                   ("quiet, not binarized", quiet, False),
                   ("pressed, not binarized", AGREE_PRESS + 1, False),
                   ("pressed, binarized", AGREE_PRESS + 1, True))
        assert quiet + 2 * (AGREE_WINDOW_S + 3) < AGREE_PRESS, "the set-up took too long"
        spans, press = [], None
        fa, boards = board_frames(S)
        ta = time.monotonic()
        for name, start, on in windows:
            if start > AGREE_PRESS and press is None:
                press = at_sim(S, AGREE_PRESS)
            at_sim(S, start)
            word = "on" if on else "off"
            assert S.yarp("rpc", ports["rpc"], input="set binarization %s\n" % word,
                          timeout=15).returncode == 0
            reply = ty.skind_cmd("set binarization %s" % word)
            assert reply.startswith("param binarization"), reply
            recording[0] = True
            time.sleep(1)
            t0 = time.time()
            time.sleep(AGREE_WINDOW_S)
            spans.append((name, t0, time.time()))
            assert sim_time(S) < AGREE_PRESS or start > AGREE_PRESS, \
                "the quiet windows ran into the press: the set-up took too long"
        time.sleep(1)
        recording[0] = False
        print("BENCH agree noise=%s boards=%d board_samples_per_s=%.1f" % (
            noise, boards, (board_frames(S)[0] - fa) / boards / (time.monotonic() - ta)))
        assert sm.poll() is None, "skinManager exited"
        # the two calibrations' touch thresholds, skinManager's in its
        # ports' order
        reply = S.yarp("rpc", ports["rpc"], input="get touch thr\n", timeout=15).stdout
        sm_thr = [float(x) for x in re.search(r"Response: (.*)", reply).group(1).split()]
        thr = {}
        for part in ports["comp"]:
            line = ty.skind_cmd("thresholds " + skind_name[part]).splitlines()[0]
            sk_thr = [float(x) for x in line[line.index("(") + 1:line.rindex(")")].split()]
            thr[part] = (sm_thr[:len(sk_thr)], sk_thr)
            sm_thr = sm_thr[len(sk_thr):]
        for r in procs:
            ty.stop(r)
        procs = []
        totals = {}
        for part, (smr, skr) in rec.items():
            for name, t0, t1 in spans:
                smw = [(t, v) for t, v in ((t, ty.sm_vector(l)) for t, l in smr.window(t0, t1))
                       if v is not None]
                skw = [(t, v) for t, v in ((t, ty.skind_vector(skind_name[part], l))
                                           for t, l in skr.window(*ty.skind_span(
                                               t0, t1, press)))
                       if v is not None]
                if not smw or not skw:
                    print("BENCH agree noise=%s part=%s window=\"%s\" skinManager_vectors=%d "
                          "skind_vectors=%d: nothing to compare" % (noise, part, name, len(smw), len(skw)))
                    continue
                n_vec, eq_vec, n, agree, lags, worst = ty.compare_window(smw, skw, skip[part])
                lags.sort()
                # what was compared: the taxels above 0 and the largest
                # value in skinManager's vectors
                keep = [k for k in range(len(smw[0][1])) if k not in skip[part]]
                touched = max(sum(v[k] > 0 for k in keep) for _, v in smw)
                top = max(max(v[k] for k in keep) for _, v in smw)
                # the means over the same seconds: a rate or a gain that
                # differs shows as a ratio, a phase does not
                same = [(t, v) for t, v in skw if t0 <= t < t1]
                means = [sum(sum(v[k] for k in keep) for _, v in w) / (len(w) * len(keep))
                         for w in (smw, same)]
                print("BENCH agree noise=%s part=%s boards=%d window=\"%s\" skinManager_vectors=%d "
                      "skind_vectors=%d vectors_equal=%.4f values=%d values_equal=%.6f "
                      "taxels_above_0=%d max=%.2f mean_skinManager=%.4f mean_skind=%.4f "
                      "lag_median_s=%+.2f%s" % (
                          noise, part, len(skip[part]), name, n_vec, len(skw), eq_vec / n_vec, n,
                          agree / n, touched, top, means[0], means[1],
                          lags[len(lags) // 2] if lags else float("nan"),
                          " worst=%.4g@%s(%s,%s)" % worst if worst[1] is not None else ""))
                t = totals.setdefault(name, [0, 0, 0, 0])
                t[0] += n_vec
                t[1] += eq_vec
                t[2] += n
                t[3] += agree
                sys.stdout.flush()
            smr.rows, skr.rows = [], []		# their memory
            a, b = thr[part]
            keep = [k for k in range(len(b)) if k not in skip[part] and b[k] > 0]
            print("BENCH agree noise=%s part=%s thresholds=%d thresholds_equal=%.4f "
                  "mean_abs_difference=%.3f mean_skinManager=%.3f mean_skind=%.3f" % (
                      noise, part, len(keep),
                      sum(abs(a[k] - b[k]) <= 0.006 for k in keep) / len(keep),
                      sum(abs(a[k] - b[k]) for k in keep) / len(keep),
                      sum(a[k] for k in keep) / len(keep), sum(b[k] for k in keep) / len(keep)))
        for name, (n_vec, eq_vec, n, agree) in totals.items():
            print("BENCH agree noise=%s part=all window=\"%s\" skinManager_vectors=%d "
                  "vectors_equal=%.4f values=%d values_equal=%.6f" % (noise, name, n_vec, eq_vec / n_vec, n, agree / n))
    finally:
        for r in procs:
            ty.stop(r)
        for s in socks:
            s.close()
        if sm is not None:
            ty.stop_skin_manager(sm)
        S.close()


def main():
    print("# load average %s" % open("/proc/loadavg").read().split()[:3])
    if REPS > 0:
        cost()
    for noise in filter(None, os.environ.get("BENCH_AGREE", "0,sim").split(",")):
        agreement(noise)
    print("# load average %s" % open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
