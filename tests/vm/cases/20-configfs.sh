# Patches are created, validated, enabled and removed through configfs;
# every invalid value is refused, every refusal to enable is explained in
# the kernel log.
. /cases/lib.sh

skin_load
expect_fail "name with a space" mkdir "$CFG/a b"
expect_fail "name of 32 characters" mkdir "$CFG/a2345678901234567890123456789012"
# udev's link directories in /dev/skin
expect_fail "name by-part" mkdir "$CFG/by-part"
expect_fail "name by-board" mkdir "$CFG/by-board"
mkdir "$CFG/a234567890123456789012345678901"
rmdir "$CFG/a234567890123456789012345678901"

mkdir "$CFG/lh"
expect_eq "default class" "$(cat $CFG/lh/cls)" 4
expect_eq "default address" "$(cat $CFG/lh/address)" 0
expect_eq "default triangles" "$(cat $CFG/lh/triangles)" 0xffff
expect_eq "default period" "$(cat $CFG/lh/period_ms)" 50
expect_eq "default noLoad" "$(cat $CFG/lh/no_load)" 240
expect_eq "default shift" "$(cat $CFG/lh/shift)" 2
expect_eq "default cdcOffset" "$(cat $CFG/lh/cdc_offset)" 0x2200
expect_eq "default ring" "$(cat $CFG/lh/ring_frames)" 256
expect_eq "not enabled" "$(cat $CFG/lh/enable)" 0

expect_fail "address 16" sh -c "echo 16 > $CFG/lh/address"
expect_fail "address x" sh -c "echo x > $CFG/lh/address"
expect_fail "triangles 0x10000" sh -c "echo 0x10000 > $CFG/lh/triangles"
expect_fail "ring of 3 frames" sh -c "echo 3 > $CFG/lh/ring_frames"
expect_fail "ring of 131072 frames" sh -c "echo 131072 > $CFG/lh/ring_frames"
expect_fail "ring of 1 frame" sh -c "echo 1 > $CFG/lh/ring_frames"
# the board period is 1..255 ms: 0 is refused where it is written
expect_error "period 0" "out of range" sh -c "echo 0 > $CFG/lh/period_ms"
expect_eq "period unchanged by 0" "$(cat $CFG/lh/period_ms)" 50
expect_error "period 256" "out of range" sh -c "echo 256 > $CFG/lh/period_ms"
echo 1 >"$CFG/lh/period_ms"
expect_eq "period 1" "$(cat $CFG/lh/period_ms)" 1
echo 255 >"$CFG/lh/period_ms"
expect_eq "period 255" "$(cat $CFG/lh/period_ms)" 255
expect_error "address 16: out of range" "out of range" sh -c "echo 16 > $CFG/lh/address"
expect_fail "interface a/b" sh -c "echo a/b > $CFG/lh/interface"
expect_fail "interface of 16 characters" sh -c "echo abcdefghijklmnop > $CFG/lh/interface"

expect_fail "enable without interface" patch_enable lh
dmesg | grep -q 'lh: cannot enable: no interface' || fail "no reason logged"
echo vcan0 >"$CFG/lh/interface"
echo 5 >"$CFG/lh/cls"
expect_fail "enable class 5" patch_enable lh
dmesg | grep -q 'lh: cannot enable: class must be 3 or 4' || fail "no reason logged"

# a valid patch: the device appears, with its sysfs attributes
patch_set lh cls=4 address=14 triangles=0x0003 skin_part=1 ring_frames=16
patch_enable lh
expect_eq "enabled" "$(cat $CFG/lh/enable)" 1
[ -c /dev/skin/lh ] || fail "/dev/skin/lh missing"
expect_eq "sysfs address" "$(cat /sys/class/skin/lh/address)" 14
expect_eq "sysfs interface" "$(cat /sys/class/skin/lh/interface)" vcan0
expect_eq "sysfs class" "$(cat /sys/class/skin/lh/can_class)" 4
expect_eq "sysfs skin part" "$(cat /sys/class/skin/lh/skin_part)" 1
expect_eq "sysfs triangles" "$(cat /sys/class/skin/lh/triangles)" 0x0003
expect_eq "not bound: no vcan0" "$(cat /sys/class/skin/lh/bound)" 0
expect_fail "change while enabled" sh -c "echo 13 > $CFG/lh/address"

# the same board twice is refused; another class on it is another board
patch_create dup interface=vcan0 address=14
expect_fail "same board twice" patch_enable dup
echo 3 >"$CFG/dup/cls"
patch_enable dup
[ -c /dev/skin/dup ] || fail "/dev/skin/dup missing"

patch_disable lh
[ ! -e /dev/skin/lh ] || fail "/dev/skin/lh left after disable"
patch_enable lh
[ -c /dev/skin/lh ] || fail "/dev/skin/lh missing after re-enable"
rmdir "$CFG/lh"		# removal of an enabled patch
rmdir "$CFG/dup"
[ ! -e /dev/skin/lh ] && [ ! -e /dev/skin/dup ] || fail "device left after rmdir"
skin_unload
