# skinctl stats, start, stop and reset: the ioctls, seen on the bus and in
# the counters.
. /cases/lib.sh

vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0001 skin_part=1
patch_enable lh
tx_commands lh 4
skinctl stats /dev/skin/lh >/tmp/stats
cat /tmp/stats
grep -qx '  state bound,up,streaming' /tmp/stats || fail "state not bound,up,streaming"
grep -qx '  address 14' /tmp/stats || fail "address not shown"
grep -qx '  tx_commands 4' /tmp/stats || fail "4 commands not counted"

candump_bg /tmp/cmds vcan0,200:700
skinctl stop /dev/skin/lh
skinctl stats /dev/skin/lh | grep -qx '  state bound,up' || fail "still streaming after stop"
skinctl start /dev/skin/lh
lines /tmp/cmds 5
kill $dump
expect_eq "stop, then start" "$(awk '{ print $3 }' /tmp/cmds | tr '\n' ' ')" \
	"20E#0701 20E#4D0032F0 20E#50000002010022 20E#50010F02000022 20E#0700 "

send_n 2 4E0#40F0
expect_eq "bad dlc counted" "$(stat lh rx_bad_dlc)" 2
skinctl reset /dev/skin/lh
expect_eq "reset" "$(stat lh rx_bad_dlc)" 0
expect_eq "reset tx" "$(stat lh tx_commands)" 0
rmdir "$CFG/lh"
expect_fail "stats of a removed device" skinctl stats /dev/skin/lh
skin_unload
vcan_del vcan0
