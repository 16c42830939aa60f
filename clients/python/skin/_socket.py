# SPDX-License-Identifier: LGPL-2.1-or-later
"""skind's socket (docs/PROTOCOL.md), as lib/client/client.c speaks it:
one command a line, a reply of data lines ending with "ok ..." or
"error CODE TEXT", events between replies, and a descriptor (the `shm`
reply's, SCM_RIGHTS) collected from whichever read brings it."""

from __future__ import annotations

import array
import os
import socket
from typing import Any, Dict, Iterator, List, Optional

from ._errors import (CommandError, Disconnected, NotRunning, PermissionDenied,
                      ProtocolError)
from ._events import parse_event
from ._shm import Shm

SOCKET_PATH = "/run/skin/skind.sock"

_FD_SIZE = array.array("i").itemsize
_RECV_FLAGS = getattr(socket, "MSG_CMSG_CLOEXEC", 0)


def _final(line: str) -> int:
    """1 for an ok line, -1 for an error line, 0 for data."""
    if line == "ok" or line.startswith("ok ") or line.startswith('{"type":"ok"'):
        return 1
    if line.startswith("error ") or line.startswith('{"type":"error"'):
        return -1
    return 0


class Client:
    """A connection to skind's socket: $SKIN_SOCKET, else
    /run/skin/skind.sock, unless @path says.  @timeout: seconds any read
    or write may wait (None: no limit), then socket.timeout.

    Raises NotRunning when skind is not there, PermissionDenied when this
    user may not connect.  A context manager: the connection (and any
    descriptor received and not taken) closes at the end of `with`.
    """

    def __init__(self, path: Optional[str] = None, timeout: Optional[float] = None) -> None:
        self.path = path or os.environ.get("SKIN_SOCKET") or SOCKET_PATH
        self.buf = b""
        self.fds: List[int] = []        # received, not taken yet
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(self.path)
        except FileNotFoundError:
            self.sock.close()
            raise NotRunning(self.path) from None
        except ConnectionRefusedError:
            self.sock.close()
            raise NotRunning(self.path, absent=False) from None
        except PermissionError:
            self.sock.close()
            raise PermissionDenied(self.path) from None
        except BaseException:
            self.sock.close()
            raise

    @property
    def closed(self) -> bool:
        return self.sock.fileno() < 0

    def fileno(self) -> int:
        """The socket's descriptor, for select() and poll()."""
        return self.sock.fileno()

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, cmd: str) -> None:
        """Send a command line without reading its reply (pipelining)."""
        self.sock.sendall(cmd.encode() + b"\n")

    def _receive(self) -> None:
        data, anc, _, _ = self.sock.recvmsg(65536, socket.CMSG_SPACE(4 * _FD_SIZE),
                                            _RECV_FLAGS)
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(payload[: len(payload) - len(payload) % _FD_SIZE])
                self.fds.extend(fds)
        if not data:
            raise Disconnected()
        self.buf += data

    def read_line(self) -> str:
        """The next line skind sends (a reply's or an event), without its
        newline.  Disconnected when skind closed the connection."""
        while b"\n" not in self.buf:
            self._receive()
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode(errors="replace").rstrip("\r")

    def lines(self) -> Iterator[str]:
        """Every line from now on (events, once subscribed)."""
        while True:
            yield self.read_line()

    def events(self) -> Iterator[Dict[str, Any]]:
        """Every line from now on, parsed (parse_event())."""
        for line in self.lines():
            yield parse_event(line)

    def command(self, cmd: str) -> List[str]:
        """Send a command; return the data lines of its reply.  Raises
        CommandError for an error reply.  Event lines that arrive
        meanwhile (the connection has subscriptions) come with the data
        lines, as in skin_client_command()."""
        self.send(cmd)
        data = []
        while True:
            line = self.read_line()
            f = _final(line)
            if f > 0:
                return data
            if f < 0:
                raise CommandError(line)
            data.append(line)

    def status(self) -> Dict[str, Any]:
        """The `status` line, parsed."""
        return parse_event(self.command("status")[0])

    def parts(self) -> List[Dict[str, Any]]:
        """The `part` and `patch` lines of `parts`, parsed."""
        return [parse_event(line) for line in self.command("parts")]

    def subscribe(self, kind: str, part: str = "all", rate: Optional[int] = None) -> None:
        """`subscribe KIND PART [RATE]`: events come with lines() and
        events() (and among the data lines of later commands)."""
        self.command("subscribe %s %s%s" % (kind, part, "" if rate is None else " %d" % rate))

    def take_fd(self) -> Optional[int]:
        """The newest descriptor received, now the caller's; None."""
        if not self.fds:
            return None
        fd = self.fds.pop()
        for old in self.fds:
            os.close(old)
        self.fds = []
        return fd

    def shm(self) -> Shm:
        """The shared memory object through the socket (`shm`: skind
        passes a read-only descriptor), mapped."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []
        self.command("shm")
        fd = self.take_fd()
        if fd is None:
            raise ProtocolError("skind passed no descriptor with its shm reply")
        return Shm(fd=fd)
