# SPDX-License-Identifier: LGPL-2.1-or-later
"""The package's exceptions: one base, and one class per thing a program
may want to handle on its own (skind absent, no permission, an error
reply, a busy part).  Those that mean what an OSError subclass means are
that subclass too, so code written for the socket module keeps working."""

from __future__ import annotations

import json


class Error(Exception):
    """Every error of the skin package."""


class NotRunning(Error, ConnectionError):
    """skind is not there: no socket or shm file, or a socket file nobody
    listens on (a skind that died without socket activation)."""

    def __init__(self, path: str, absent: bool = True, shm: bool = False) -> None:
        if absent and shm:
            # the object is made by skind, which skind.socket starts on
            # its first connection, not on an open() of the object
            why = ("skind is not running: no %s (skind.socket starts it on a "
                   "connection: skin.Client().shm() maps the object through it)" % path)
        elif absent:
            why = "skind is not running: no %s (systemctl start skind.socket)" % path
        else:
            why = ("skind is not running: nobody listens on %s "
                   "(systemctl restart skind.socket)" % path)
        super().__init__(why)
        self.path = path


class PermissionDenied(Error, PermissionError):
    """The socket or the shm object exists, but this user may not open it."""

    def __init__(self, path: str) -> None:
        super().__init__("no permission to open %s: skind's clients are the "
                         "members of group skin (adduser $USER skin, then log "
                         "in again)" % path)
        self.path = path


class Disconnected(Error, ConnectionResetError):
    """skind closed the connection (it stopped, or said `quit`'s bye)."""

    def __init__(self) -> None:
        super().__init__("skind closed the connection")


class ProtocolError(Error):
    """What came is not skind's: a reply without its descriptor, an shm
    object of another major version, or out of bounds."""


class Busy(Error, BlockingIOError):
    """The writer kept a part's seqlock odd through every try."""


class CommandError(Error):
    """skind answered a command with "error CODE TEXT" (or its JSON):
    @code is the protocol's error code (docs/PROTOCOL.md), @text its
    explanation, @line the whole line."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line
        self.code = ""
        self.text = ""
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                return
            self.code, self.text = obj.get("code", ""), obj.get("message", "")
        else:
            words = line.split(" ", 2)
            self.code = words[1] if len(words) > 1 else ""
            self.text = words[2] if len(words) > 2 else ""
