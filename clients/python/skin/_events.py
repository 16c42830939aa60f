# SPDX-License-Identifier: LGPL-2.1-or-later
"""The socket's data and event lines (docs/PROTOCOL.md), bottle or JSON,
as dicts of typed values: numbers as int or float, a part's state as
RunState, taxel values as numpy arrays, contacts as Contact."""

from __future__ import annotations

import enum
import json
from typing import Any, Dict, List

import numpy as np

from ._shm import Contact


class RunState(str, enum.Enum):
    """A part's state word in `part`, `contacts`, `sample` ... lines.
    A str: it compares equal to the word ("running")."""
    UNCALIBRATED = "uncalibrated"
    CALIBRATING = "calibrating"
    RUNNING = "running"

    def __str__(self) -> str:
        return self.value


def _number(word: str) -> Any:
    """An int or a float when the word is one, else the word."""
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word)
    except ValueError:
        return word


def _state(word: Any) -> Any:
    try:
        return RunState(word)
    except ValueError:
        return word             # a state a newer skind added


def _vec(v: Any) -> np.ndarray:
    return np.array(v, dtype=np.float64)


def _contact(c: Dict[str, Any]) -> Contact:
    return Contact(id=int(c["id"]), cop=_vec(c["cop"]), force=_vec(c["force"]),
                   moment=_vec(c["moment"]), geo=_vec(c["geo"]),
                   normal=_vec(c["normal"]), pressure=float(c["pressure"]),
                   taxels=np.array(c["taxels"], dtype=np.uint32),
                   body_part=int(c["body_part"]), link=int(c["link"]),
                   skin_part=int(c["skin_part"]))


def parse_contacts_bottle(text: str) -> List[Contact]:
    """The skinContactList bottle of a `contacts` line."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    stack: List[list] = [[]]
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(_number(t))
    top = stack[0][0] if stack[0] else []
    out = []
    for c in top:
        ident, cop, force, moment, geo, normal, taxels, pressure = c
        out.append(_contact({"id": ident[0], "body_part": ident[1], "link": ident[2],
                             "skin_part": ident[3], "cop": cop, "force": force,
                             "moment": moment, "geo": geo, "normal": normal,
                             "taxels": taxels, "pressure": pressure}))
    return out


def _typed(ev: Dict[str, Any]) -> Dict[str, Any]:
    """The arrays, contacts and state of an event as the package's types."""
    if "state" in ev and ev.get("type") != "bus":    # (a bus's is the CAN state's word)
        ev["state"] = _state(ev["state"])
    if ev.get("type") == "contacts" and isinstance(ev.get("contacts"), list):
        ev["contacts"] = [c if isinstance(c, Contact) else _contact(c)
                          for c in ev["contacts"]]
    if "values" in ev:
        ev["values"] = np.array(ev["values"], dtype=np.float64)
    if "touched" in ev:
        ev["touched"] = np.array(ev["touched"], dtype=np.intp)
    if "thresholds" in ev:
        ev["thresholds"] = np.array(ev["thresholds"], dtype=np.float64)
    return ev


def parse_event(line: str) -> Dict[str, Any]:
    """A data or event line as a dict: {"type": ..., ...}.  Bottle lines
    get the field names of the JSON format."""
    if line.startswith("{"):
        return _typed(json.loads(line))
    words = line.split(" ", 5)
    if words[0] == "sample" and len(words) == 5:
        return {"type": "sample", "part": words[1], "sample": int(words[2]),
                "frame_ts_ns": int(words[3]), "publish_ns": int(words[4])}
    if words[0] in ("contacts", "taxels", "thresholds") and len(words) == 6:
        ev: Dict[str, Any] = {"type": words[0], "part": words[1],
                              "sample": int(words[2]), "frame_ts_ns": int(words[3]),
                              "publish_ns": int(words[4])}
        if words[0] == "contacts":
            ev["contacts"] = parse_contacts_bottle(words[5])
        elif words[0] == "thresholds":
            ev["thresholds"] = [float(v) for v in words[5].strip("() ").split()]
        else:
            values, _, touched = words[5].partition(") (")
            ev["values"] = [float(v) for v in values.strip("() ").split()]
            ev["touched"] = [int(v) for v in touched.strip("() ").split()]
        return _typed(ev)
    if words[0] == "fault":
        # fault PART TAXEL FLAGS SINCE_NS raw R baseline B
        w = line.split()
        if len(w) == 9 and w[5] == "raw" and w[7] == "baseline":
            return {"type": "fault", "part": w[1], "taxel": int(w[2]),
                    "flags": w[3].split(","), "since_ns": int(w[4]),
                    "raw": int(w[6]), "baseline": float(w[8])}
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
            value = rest[i + 1] if i + 1 < len(rest) else None
            # names stay words: a bus named "0" is still a name
            if value is not None and rest[i] not in ("version", "bus", "name"):
                value = _number(value)
            ev[rest[i]] = value
            i += 2
        return _typed(ev)
    ev["words"] = rest
    return ev
