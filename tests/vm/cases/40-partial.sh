# Partial samples: a half that repeats before completion (a lost frame)
# publishes what is pending; so does the 1.5-period timer.  The longest
# period (a timeout of 382 ms): the frames of one burst must not be split
# by the timer on a slow emulated machine.
. /cases/lib.sh

vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0003 period_ms=255
patch_enable lh
skinctl dump --all -n 3 --timeout 5000 /dev/skin/lh >/tmp/out &
r=$!
opened $r /dev/skin/lh

triangle 14 0 01
queue 4E1#4011121314151617		# triangle 1: head only, tail lost
triangle 14 0 21			# repeat: frame 1, partial
play
sleep 1					# > 382 ms: timeout publishes frame 2
queue 4E1#4031323334353637		# frame 3 is a timeout too
play
wait $r || fail "reader failed"
cat /tmp/out

expect_eq "flags" "$(field 4 </tmp/out | tr '\n' ' ')" "partial,repeat partial,timeout partial,timeout "
expect_eq "refreshed" "$(field 3 </tmp/out | tr '\n' ' ')" "0001 0001 0000 "
# frame 1: triangle 1 has its head values, its tail channels are noLoad
expect_eq "frame 1 values" "$(sed -n 1p /tmp/out | field 6 | cut -c1-48)" \
	"$(values_of 01)11121314151617f0f0f0f0f0"
# frame 3: channels keep their last values
expect_eq "frame 3 values" "$(sed -n 3p /tmp/out | field 6 | cut -c1-48)" \
	"$(values_of 21)31323334353637f0f0f0f0f0"
expect_eq repeats "$(stat lh repeats)" 1
expect_eq timeouts "$(stat lh timeouts)" 2
expect_eq frames_partial "$(stat lh frames_partial)" 3
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
