# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3 -m skin: skind's socket and shared memory from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from . import Client, CommandError, Error, Shm

USAGE = """\
  python3 -m skin [--socket PATH] [--json] COMMAND...   a command, its reply
  python3 -m skin [--shm-path PATH] shm [PART...]       the shared memory, by name
  python3 -m skin watch PART [RATE]                     contacts as they come"""


def run(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m skin", usage=USAGE,
                                 description="talk to skind (docs/PROTOCOL.md)")
    ap.add_argument("--socket", default=None, help="skind's socket ($SKIN_SOCKET)")
    ap.add_argument("--shm-path", default=None, help="skind's shm object")
    ap.add_argument("--json", action="store_true", help="replies in JSON (format json)")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args(argv)
    if a.command[0] == "shm":
        with Shm(a.shm_path) as shm:
            for name in a.command[1:] or [p.name for p in shm.parts]:
                try:
                    d = shm.snapshot(name).to_dict()
                except KeyError:
                    raise Error("no part %r in the shm (%s)" % (
                        name, " ".join(p.name for p in shm.parts))) from None
                del d["values"]
                print(json.dumps(d))
        return 0
    with Client(a.socket) as c:
        if a.json:
            c.command("format json")
        if a.command[0] == "watch" and len(a.command) in (2, 3):
            c.subscribe("contacts", a.command[1],
                        int(a.command[2]) if len(a.command) > 2 else None)
            for line in c.lines():
                print(line, flush=True)
        try:
            for line in c.command(" ".join(a.command)):
                print(line)
        except CommandError as e:
            print(e.line, file=sys.stderr)
            return 1
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except (Error, OSError, ValueError) as e:
        print("skin: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
