#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot one taxel's compensated value over time, from skind's shared memory.

    plot_taxel.py PART TAXEL [--seconds S] [--out FILE.png] [--socket PATH]

It subscribes to the part's `sample` events (one wakeup per publication),
takes a snapshot of the part from the shared memory at each, and keeps
the taxel's value with the publication's time.  With matplotlib it plots
them (in a window, or into FILE.png with --out); without it, or with
--print, it prints "SECONDS VALUE" lines instead.
"""

import argparse
import socket
import sys
import time

import skin


def collect(args):
    """[(seconds since the first sample, value, touched)] of the taxel."""
    with skin.Client(args.socket, timeout=1.0) as c, c.shm() as shm:
        try:
            part = shm.part(args.part)
        except KeyError:
            raise skin.Error("no part %r; skind has: %s" % (
                args.part, " ".join(p.name for p in shm.parts))) from None
        if not 0 <= args.taxel < part.n_taxels:
            raise skin.Error("part %s has taxels 0..%d" % (part.name, part.n_taxels - 1))
        c.subscribe("samples", part.name)
        points, last, t0 = [], 0, None
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            try:
                line = c.read_line()    # a wakeup: the snapshot has the newest
            except socket.timeout:
                continue                # no publication within the second
            if line.startswith("reload "):
                raise skin.Error("skind reloaded its configuration: start again")
            snap = shm.snapshot(part)
            if snap.samples == last:
                continue            # a state change alone, no new sample
            last = snap.samples
            t0 = snap.publish_ns if t0 is None else t0
            points.append(((snap.publish_ns - t0) / 1e9, float(snap.values[args.taxel]),
                           bool(snap.flags[args.taxel] & skin.TaxelFlag.TOUCHED)))
        return part, points


def plot(args, part, points):
    import matplotlib
    if args.out:
        matplotlib.use("Agg")       # a file: no display needed
    import matplotlib.pyplot as plt

    t = [p[0] for p in points]
    v = [p[1] for p in points]
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.plot(t, v, lw=1)
    ax.fill_between(t, 0, max(v + [1.0]), where=[p[2] for p in points],
                    alpha=0.2, label="touched", step="mid")
    ax.set_xlabel("s")
    ax.set_ylabel("compensated value")
    ax.set_title("%s taxel %d (%d samples)" % (part.name, args.taxel, len(points)))
    ax.legend(loc="upper right")
    fig.tight_layout()
    if args.out:
        fig.savefig(args.out, dpi=100)
        print("%s: %d samples" % (args.out, len(points)))
    else:
        plt.show()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("part")
    ap.add_argument("taxel", type=int)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--out", help="write a PNG there instead of opening a window")
    ap.add_argument("--print", action="store_true", help="print the values, plot nothing")
    ap.add_argument("--socket", help="skind's socket ($SKIN_SOCKET)")
    args = ap.parse_args()
    try:
        part, points = collect(args)
    except skin.Error as e:
        print("plot_taxel: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    if not points:
        print("plot_taxel: no sample of %s in %g s (is a patch attached?)"
              % (part.name, args.seconds), file=sys.stderr)
        return 1
    if not args.print:
        try:
            plot(args, part, points)
            return 0
        except ImportError:
            if args.out:
                print("plot_taxel: --out needs matplotlib (python3-matplotlib)",
                      file=sys.stderr)
                return 1
            print("# no matplotlib: the values instead", file=sys.stderr)
    for t, v, touched in points:
        print("%.6f %g%s" % (t, v, " touched" if touched else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
