# The interface goes away and comes back (a USB adapter unplugged and back)
# while a reader waits: the patch rebinds by name, re-sends the board's
# start-up, and frames flow again to the same reader.  Interface down/up.
# The module cannot be unloaded while a reader has the device open.
. /cases/lib.sh

vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0001
patch_enable lh
tx_commands lh 4	# the start-up, SET_TXMODE(on) included, is over
skinctl dump --all -n 3 --timeout 10000 /dev/skin/lh >/tmp/out &
r=$!
opened $r /dev/skin/lh
triangle 14 0 01			# frame 1
play

# "any" follows interfaces that appear later
candump_bg /tmp/cmds any,200:700
vcan_del vcan0
expect_eq "unbound" "$(cat /sys/class/skin/lh/bound)" 0
vcan_add vcan0
expect_eq "bound again" "$(cat /sys/class/skin/lh/bound)" 1
lines /tmp/cmds 4
kill $dump
expect_eq "start-up re-sent" "$(awk '{ print $3 }' /tmp/cmds | tr '\n' ' ')" \
	"20E#4D0032F0 20E#50000002010022 20E#50010F02000022 20E#0700 "
triangle 14 0 11			# frame 2
play

ip link set dev vcan0 down
ip link set dev vcan0 up
triangle 14 0 21			# frame 3
play
wait $r || fail "reader failed"
expect_eq "frames across re-creation" "$(field 1 </tmp/out | tr '\n' ' ')" "1 2 3 "
expect_eq "frame 3 values" "$(sed -n 3p /tmp/out | field 6 | cut -c1-24)" "$(values_of 21)"

# a reader holds the device: rmmod is refused, removal ends the reader
skinctl dump /dev/skin/lh >/dev/null 2>/tmp/err &
r=$!
opened $r /dev/skin/lh
expect_fail "rmmod with a reader" rmmod skin
rmdir "$CFG/lh"
wait $r || fail "reader did not end cleanly on removal"
grep -q 'the patch was removed' /tmp/err || fail "reader not told of the removal"
echo "ok: reader saw POLLHUP"
skin_unload
vcan_del vcan0
