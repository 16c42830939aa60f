# skind checks its CAN buses through rtnetlink, on a real controller:
# qemu's SJA1000 behind a Kvaser PCI card (tests/vm/run), driven by the
# guest's kvaser_pci as can0, whose bitrate and state are the kernel's
# facts, as on a robot's PC.  Beside it a vcan (virtual: no bitrate) and a
# bus that does not exist.  Each finding is said once, by name, and
# shown by `buses` and `status`; a link that goes down or comes back at
# another bitrate is seen at once (RTNLGRP_LINK); a board on a bus in
# trouble is named silent, with the bus's trouble.
. /cases/lib.sh

if [ ! -d /sys/class/net/can0 ]; then
	echo "no can0: this qemu has no kvaser_pci device, or this kernel no kvaser_pci module"
	exit 77
fi

CONF=/etc/skin/examples/bus-vm.conf
SOCK=/run/skin/skind.sock
cat >$CONF <<EOF
[skind]
calibration_s = 1

[board]
period_ms = 50
no_load = 0xf0
shift = 2

[bus can0]
bitrate = 1000000

[bus vcan1]

[bus skinbus9]

[part left_hand]
skin_part = left_hand
layout = hand_v2_1
geometry = ../icub/positions/left_hand_V2_1.txt
patches = can0:14

[part left_forearm]
skin_part = left_forearm
layout = forearm_v2
geometry = ../icub/positions/left_forearm_V2.txt
patches = vcan1:13 skinbus9:12
EOF

vcan_add vcan1
skin_load
mkdir -p /run/skin /tmp/state
# up, but not at the configured bitrate
ip link set can0 type can bitrate 500000
ip link set can0 up
ip -d link show can0

skind -c $CONF --state-dir /tmp/state -v >/tmp/skind.log 2>&1 &
skind=$!

q() {	# q COMMAND: skind's reply, data lines only
	echo "$1" | socat -t 5 - UNIX-CONNECT:$SOCK | grep -v '^ok'
}

fail_skind() {
	grep -v 'debug: client' /tmp/skind.log | tail -n 30
	q buses || true
	fail "$@"
}

# said: the journal (stderr here) has TEXT, within 30 s (an emulated machine)
said() {
	n=0
	until grep -qF -- "$1" /tmp/skind.log; do
		n=$((n + 1))
		[ $n -lt 300 ] || fail_skind "skind never said: $1"
		sleep 0.1
	done
}

# once TEXT: said exactly once
once() {
	c=$(grep -cF -- "$1" /tmp/skind.log || true)
	[ "$c" -eq 1 ] || fail_skind "said $c times, not once: $1"
}

buses_are() {
	n=0
	until [ "$(q buses 2>/dev/null)" = "$1" ]; do
		n=$((n + 1))
		[ $n -lt 100 ] || { echo "want:"; echo "$1"; fail_skind "buses differ"; }
		sleep 0.1
	done
}

mismatch="bus can0: up at 500000 bit/s, but [bus can0] bitrate is 1000000: its boards cannot be heard"
said "$mismatch"
said "bus vcan1: up (virtual, vcan: no bitrate)"
said "bus skinbus9: no such interface"
buses_are "bus can0 link up bitrate 500000 configured 1000000 state error-active
bus vcan1 link up bitrate 0 configured 1000000 state virtual
bus skinbus9 link missing bitrate 0 configured 1000000 state none"
q status | grep -q ' buses 3 buses_ok 1$' || fail_skind "status: $(q status)"

# the board on can0 gets nothing, and the bus's trouble is named with it
said "board 14 (0x4e0) on can0 is silent: left_hand has had no frame from it for"
grep -F "board 14 (0x4e0) on can0 is silent" /tmp/skind.log | grep -qF "(bus can0: at 500000 bit/s)" ||
	fail_skind "the silent board's line does not name its bus's trouble"
said "board 13 (0x4d0) on vcan1 is silent"

# down: seen from the link's own event
ip link set can0 down
said "bus can0: down; bring it up at 1000000 bit/s"
buses_are "bus can0 link down bitrate 500000 configured 1000000 state stopped
bus vcan1 link up bitrate 0 configured 1000000 state virtual
bus skinbus9 link missing bitrate 0 configured 1000000 state none"

# up at the configured bitrate: said, and the status counts it fine
ip link set can0 type can bitrate 1000000 restart-ms 100
ip link set can0 up
said "bus can0: up at 1000000 bit/s, error-active"
q status | grep -q ' buses 3 buses_ok 2$' || fail_skind "status: $(q status)"

# frames nobody acknowledges: a real SJA1000 goes error-passive; qemu's
# acknowledges every frame itself, so the state is checked when it moves
i=0
while [ $i -lt 20 ]; do
	cansend can0 123#11 2>/dev/null || true
	i=$((i + 1))
done
sleep 2
state=$(ip -d link show can0 | sed -n 's/.*can state \([A-Z-]*\).*/\1/p')
echo "can0 after 20 frames nobody else hears: state $state"
case "$state" in
ERROR-PASSIVE) said "bus can0: up at 1000000 bit/s, error-passive" ;;
ERROR-WARNING) said "bus can0: up at 1000000 bit/s, error-warning" ;;
BUS-OFF) said "bus can0: up at 1000000 bit/s, bus-off" ;;
*) echo "note: qemu's SJA1000 reported no bus error: the error states are not exercised here" ;;
esac

# each said once however many times skind asked (once a second)
sleep 3
once "$mismatch"
once "bus vcan1: up (virtual, vcan: no bitrate)"
once "bus skinbus9: no such interface"
once "board 14 (0x4e0) on can0 is silent"
once "bus can0: down; bring it up at 1000000 bit/s"
grep -E 'bus |board ' /tmp/skind.log

kill $skind
wait $skind || true
ip link set can0 down
vcan_del vcan1
