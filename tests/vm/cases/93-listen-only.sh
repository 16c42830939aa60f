# A listen-only patch (a tapped bus: another program configures the
# boards) sends nothing, ever: candump on the bus sees only the frames
# played in, across enable, the delayed start, streaming, a silence, the
# start and stop ioctls, the interface down and up, and disable; each
# command it would have sent is counted in tx_withheld, none in
# tx_commands.  It still publishes, detects a repeated half and a silence
# (the 1.5-period timer) as any patch does, and says what it is.  skind
# creates listen-only patches for a [bus] with listen_only = yes, with
# each board's own [board BUS:ADDRESS] values.
. /cases/lib.sh

vcan_add vcan0
skin_load
# (bound to any interface: a socket bound to vcan0 ends when it goes down)
candump_bg /tmp/bus any
patch_create lh interface=vcan0 address=14 triangles=0x0003 period_ms=100 listen_only=1
expect_eq "configfs listen_only" "$(cat "$CFG/lh/listen_only")" 1
expect_error "listen_only 2" "out of range" sh -c "echo 2 >$CFG/lh/listen_only"
patch_enable lh
expect_error "listen_only while enabled" "busy" sh -c "echo 0 >$CFG/lh/listen_only"
expect_eq "sysfs listen_only" "$(cat /sys/class/skin/lh/listen_only)" 1
# start-up: SET_BRD_CFG, 2 x SET_TRIANG_CFG, SET_TXMODE(on) 500 ms later
wait_until "4 commands withheld" '[ "$(stat lh tx_withheld)" -ge 4 ]'
skinctl stats /dev/skin/lh >/tmp/stats
cat /tmp/stats
grep -qx '  state bound,up,streaming,listen-only' /tmp/stats ||
	fail "skinctl stats: state not bound,up,streaming,listen-only"
grep -qx '  tx_withheld 4' /tmp/stats || fail "skinctl stats: no tx_withheld 4"

# streaming, as the boards do when another program started them
skinctl dump --all -n 4 --timeout 5000 /dev/skin/lh >/tmp/out &
r=$!
opened $r /dev/skin/lh
triangle 14 0 01
triangle 14 1 11			# frame 1: complete
triangle 14 0 21
queue 4E1#4031323334353637		# triangle 1: head only, tail lost
triangle 14 0 41			# repeat: frame 2, partial
play
sleep 1					# > 150 ms: timeout publishes frame 3
triangle 14 1 51			# then silence again: frame 4, timeout
play
wait $r || fail "reader failed"
cat /tmp/out
expect_eq "flags" "$(field 4 </tmp/out | tr '\n' ' ')" \
	"- partial,repeat partial,timeout partial,timeout "
expect_eq "frame 1 values" "$(sed -n 1p /tmp/out | field 6 | cut -c1-48)" \
	"$(values_of 01 11)"
expect_eq frames "$(stat lh frames)" 4
expect_eq repeats "$(stat lh repeats)" 1
expect_eq timeouts "$(stat lh timeouts)" 2

# the ioctls and a restart of the interface withhold their commands too
skinctl stop /dev/skin/lh
skinctl stats /dev/skin/lh | grep -qx '  state bound,up,listen-only' ||
	fail "still started after stop"
skinctl start /dev/skin/lh
wait_until "start: 4 more withheld" '[ "$(stat lh tx_withheld)" -ge 9 ]'
ip link set dev vcan0 down
ip link set dev vcan0 up
wait_until "restart: 4 more withheld" '[ "$(stat lh tx_withheld)" -ge 13 ]'
sleep 0.3				# a command too many would show
expect_eq tx_withheld "$(stat lh tx_withheld)" 13
expect_eq tx_commands "$(stat lh tx_commands)" 0
expect_eq tx_failed "$(stat lh tx_failed)" 0
patch_disable lh			# SET_TXMODE(off), withheld
sleep 0.5				# a frame sent late would reach candump
kill -0 $dump || fail "candump ended (the interface went down and up)"

kill $dump
# the 11 frames played in, nothing else
awk '{ print $3 }' /tmp/bus >/tmp/ids
cat /tmp/ids
expect_eq "frames on the bus" "$(wc -l </tmp/ids)" 11
expect_eq "frames of the driver" "$(grep -vc '^4E[01]#' /tmp/ids || true)" 0
echo 0 >"$CFG/lh/listen_only"
expect_eq "configfs listen_only cleared" "$(cat "$CFG/lh/listen_only")" 0
rmdir "$CFG/lh"

# skind writes a tapped bus's listen_only, and each board's own values
# ([board BUS:ADDRESS] over [board]), into the patches it creates
cat >/tmp/lo.conf <<EOF
[board]
skin_type = 8
[board vcan0:14]
skin_type = 1
cdc_offset = 0x2000
[bus vcan0]
listen_only = yes
[bus vcan1]
[part left_hand]
layout = hand_v2_1
patches = vcan0:14
[part right_hand]
layout = hand_v2_1
patches = vcan1:14
EOF
candump_bg /tmp/bus any
skind -c /tmp/lo.conf --create-patches >/tmp/skind.log 2>&1 ||
	{ cat /tmp/skind.log; fail "skind --create-patches"; }
cat /tmp/skind.log
expect_eq "left_hand enabled" "$(cat $CFG/left_hand/enable)" 1
expect_eq "left_hand listen_only" "$(cat $CFG/left_hand/listen_only)" 1
expect_eq "left_hand skin_type" "$(cat $CFG/left_hand/skin_type)" 1
expect_eq "left_hand cdc_offset" "$(cat $CFG/left_hand/cdc_offset)" 0x2000
expect_eq "right_hand listen_only" "$(cat $CFG/right_hand/listen_only)" 0
expect_eq "right_hand skin_type" "$(cat $CFG/right_hand/skin_type)" 8
expect_eq "right_hand cdc_offset" "$(cat $CFG/right_hand/cdc_offset)" 0x2200
wait_until "left_hand: 4 commands withheld" \
	'[ "$(stat left_hand tx_withheld)" -ge 4 ]'
expect_eq "left_hand tx_commands" "$(stat left_hand tx_commands)" 0
rmdir "$CFG/left_hand" "$CFG/right_hand"
sleep 0.3
kill $dump
expect_eq "frames on vcan0 from skind's patch" "$(grep -c ' vcan0 ' /tmp/bus || true)" 0
skin_unload
vcan_del vcan0
