# SPDX-License-Identifier: LGPL-2.1-or-later
"""skind from Python: its socket and its shared memory, values as numpy
arrays.

    import skin

    with skin.Client() as c:                  # $SKIN_SOCKET or /run/skin/skind.sock
        print(c.status()["parts"])
        with c.shm() as shm:                  # the descriptor skind passes
            snap = shm.snapshot("left_hand")  # one consistent publication
            snap.values[10], snap.touched, snap.contacts
            skin.PartState.CALIBRATED in snap.state
        c.subscribe("contacts", "left_hand", 50)
        for ev in c.events():
            ev["contacts"]                    # [skin.Contact, ...]

    with skin.Shm() as shm:                   # by name: /run/skin/skind.shm
        live = shm.view("left_hand")          # numpy views of the mapping
        seq, values = live.copy_values()      # one publication's values

Errors are skin.Error's: skin.NotRunning when skind is not there,
skin.PermissionDenied outside group skin, skin.CommandError for an
"error CODE TEXT" reply.  As a program: python3 -m skin --help.  The
formats are docs/PROTOCOL.md and include/skin/shm.h.
"""

from ._errors import (Busy, CommandError, Disconnected, Error, NotRunning,
                      PermissionDenied, ProtocolError)
from ._events import RunState, parse_contacts_bottle, parse_event
from ._shm import (SHM_PATH, Contact, Liveness, PartInfo, PartState, PartView,
                   Shm, Snapshot, TaxelFlag)
from ._socket import SOCKET_PATH, Client

__version__ = "0.1.0"

__all__ = [
    "Busy", "Client", "CommandError", "Contact", "Disconnected", "Error",
    "Liveness", "NotRunning", "PartInfo", "PartState", "PartView",
    "PermissionDenied", "ProtocolError", "RunState", "SHM_PATH",
    "SOCKET_PATH", "Shm", "Snapshot", "TaxelFlag", "parse_contacts_bottle",
    "parse_event",
]
