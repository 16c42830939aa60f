# A bind that fails reaches whoever can hear of it.  A team device takes
# its port's type: with a vcan port it is ARPHRD_CAN without the CAN core's
# per-device receive lists, and can_rx_register() refuses it (ENODEV) for
# real, as it would on ENOMEM.
#   Enabling a patch on it: the write to enable fails with ENODEV, the
#   patch stays disabled, nothing of it is left.
#   A patch waiting for a name that such a device takes later (a rename):
#   nobody is writing then, so bind_failed counts it (sysfs, skinctl).
. /cases/lib.sh

skin_filters() {
	cat /proc/net/can/rcvlist_* 2>/dev/null | grep -c ' skin$' || true
}

ip link add dev vcan1 type vcan		# down: a team's port must be
ip link add name skteam type team
ip link set dev vcan1 master skteam
expect_eq "team of a vcan is ARPHRD_CAN" "$(cat /sys/class/net/skteam/type)" 280
skin_load
patch_create lh interface=skteam address=14 triangles=0x0001
expect_error "enable on a CAN device without receive lists" "No such device" \
	patch_enable lh
expect_eq "not enabled" "$(cat $CFG/lh/enable)" 0
[ ! -e /dev/skin/lh ] || fail "/dev/skin/lh left behind"
[ ! -e /sys/class/skin/lh ] || fail "/sys/class/skin/lh left behind"
expect_eq "no receive filter left" "$(skin_filters)" 0
dmesg | grep -q 'lh: cannot receive from skteam: error -19' ||
	fail "failure not logged"

# the same later, by a rename: counted
patch_set lh interface=vcan9
patch_enable lh
expect_eq "waiting" "$(cat /sys/class/skin/lh/bound)" 0
expect_eq "no failure yet" "$(stat lh bind_failed)" 0
ip link set dev skteam name vcan9
expect_eq "not bound" "$(cat /sys/class/skin/lh/bound)" 0
expect_eq "bind failure counted" "$(stat lh bind_failed)" 1
skinctl stats /dev/skin/lh >/tmp/stats
grep -qx '  bind_failed 1' /tmp/stats || fail "skinctl stats: no bind_failed 1"
grep -qx '  state unbound,streaming' /tmp/stats || fail "not unbound,streaming"
expect_eq "no receive filter" "$(skin_filters)" 0

# renamed away, and a real CAN interface takes the name: bound
ip link set dev vcan9 name skteam
vcan_add vcan9
expect_eq "bound" "$(cat /sys/class/skin/lh/bound)" 1
tx_commands lh 4
expect_eq "receive filters" "$(skin_filters)" 2
expect_eq "still 1 failure" "$(stat lh bind_failed)" 1
rmdir "$CFG/lh"
skin_unload
ip link del dev skteam
vcan_del vcan1
vcan_del vcan9
