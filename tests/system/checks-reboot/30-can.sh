# The CAN bus comes up as docs/INSTALL.md says, on a real controller
# (qemu's SJA1000 behind a Kvaser PCI card, which udev's modprobe of
# kvaser_pci makes can0; tests/system/run adds the device): the package
# leaves its systemd-networkd file where nothing reads it, so can0 stays
# down and skind, under its hardened unit, says so; the two commands of
# "Bringing the CAN bus up" bring it up at 1 Mbit/s through networkd, and
# skind sees that at once (RTNLGRP_LINK) and says it, with BUS=can0.
. "$SKIN_PAYLOAD/lib.sh"
users

wait_for 60 "can0 (kvaser_pci)" test -d /sys/class/net/can0
[ -f /usr/share/skin/network/80-skin-can0.network ] || fail "no /usr/share/skin/network/80-skin-can0.network"
[ ! -e /etc/systemd/network/80-skin-can0.network ] || fail "the package enabled the .network file"
ip -d link show can0
ip link show can0 | grep -q 'state DOWN' || fail "can0 is up before anybody brought it up"

# skind (socket-activated by a client) sees it down
timeout 300 runuser -u alice -- skinctl status >/tmp/status || fail "skinctl status"
said() {
	journalctl -u skind.service BUS=can0 -o cat --no-pager | grep -qF -- "$1"
}
wait_for 60 "skind says can0 is down" said "bus can0: down; bring it up at 1000000 bit/s"

# docs/INSTALL.md's two commands
cp /usr/share/skin/network/80-skin-can*.network /etc/systemd/network/
systemctl enable --now systemd-networkd
wait_for 60 "networkd brings can0 up" sh -c 'ip link show can0 | grep -q "state UP"'
ip -d link show can0
ip -d link show can0 | grep -q 'bitrate 1000000 ' || fail "can0 is not at 1000000 bit/s"
ip -d link show can0 | grep -q 'restart-ms 100 ' || fail "RestartSec=100ms is not can0's restart-ms"

wait_for 30 "skind says can0 is up at 1 Mbit/s" said "bus can0: up at 1000000 bit/s, error-active"
journalctl -u skind.service BUS=can0 -o cat --no-pager
runuser -u alice -- skinctl status >/tmp/status
grep '^bus ' /tmp/status
grep -qx 'bus can0 link up bitrate 1000000 configured 1000000 state error-active' /tmp/status ||
	fail "skinctl status does not show can0 up"

# as it was: networkd off, its files gone, can0 down
rm -f /etc/systemd/network/80-skin-can*.network
systemctl disable --now systemd-networkd systemd-networkd.socket 2>/dev/null || true
ip link set can0 down
systemctl stop skind.service
