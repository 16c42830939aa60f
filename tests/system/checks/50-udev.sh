# udevd gives every patch's device to group skin, mode 0660, and links it
# by skin part and by board from its sysfs attributes; the links go with
# the device.
. "$SKIN_PAYLOAD/lib.sh"

modprobe skin
vcan
patch lh 1 14
patch torso 7 9
udevadm settle
ls -lR /dev/skin
for d in lh torso; do
	[ -c /dev/skin/$d ] || fail "/dev/skin/$d is not a character device"
	expect_eq "/dev/skin/$d owner, group, mode" "$(stat -c '%U %G %a' /dev/skin/$d)" "root skin 660"
done
expect_eq "by-part link" "$(readlink -f /dev/skin/by-part/left_hand/lh)" /dev/skin/lh
expect_eq "by-part link" "$(readlink -f /dev/skin/by-part/front_torso/torso)" /dev/skin/torso
expect_eq "by-board link" "$(readlink -f /dev/skin/by-board/vcan0-4-14)" /dev/skin/lh
expect_eq "by-board link" "$(readlink -f /dev/skin/by-board/vcan0-4-9)" /dev/skin/torso
expect_eq "systemd sees the device" "$(systemctl is-active dev-skin-lh.device)" active

# skinctl stats, all devices: the link directories are not devices
skinctl stats >/tmp/stats
expect_eq "devices skinctl stats lists" "$(grep -c '^/dev/skin/[a-z]*:' /tmp/stats)" 2

echo 0 >"$CFG/lh/enable"
udevadm settle
[ ! -e /dev/skin/lh ] || fail "/dev/skin/lh left after disable"
[ ! -e /dev/skin/by-part/left_hand/lh ] || fail "by-part link left after disable"
[ ! -e /dev/skin/by-board/vcan0-4-14 ] || fail "by-board link left after disable"
echo "ok: the links went with the device"
rmdir "$CFG/lh" "$CFG/torso"
