# A board streams on vcan0: enabling the patch sends the start-up commands
# byte for byte; complete samples arrive through mmap and read() with exact
# values, mask, flags, order and timestamps; disabling stops the board.
. /cases/lib.sh

vcan_add vcan0
skin_load
candump_bg /tmp/cmds vcan0,200:700
patch_create lh interface=vcan0 address=14 triangles=0x0003 period_ms=100
patch_enable lh
expect_eq bound "$(cat /sys/class/skin/lh/bound)" 1
tx_commands lh 4	# the board settles for 500 ms before SET_TXMODE(on)

# (--all: from the patch's first frame, however late the reader starts)
skinctl dump --all -n 2 --timeout 5000 /dev/skin/lh >/tmp/mmap.out &
r1=$!
skinctl dump --read -n 2 --timeout 5000 /dev/skin/lh >/tmp/read.out &
r2=$!
opened $r1 /dev/skin/lh
opened $r2 /dev/skin/lh
t0=$(( $(now_ns) - 10000000 ))
triangle 14 0 01
triangle 14 1 11
triangle 14 1 21	# order within a period does not matter
triangle 14 0 31
play
wait $r1 || fail "mmap reader failed"
wait $r2 || fail "read() reader failed"
t1=$(( $(now_ns) + 10000000 ))
cat /tmp/mmap.out

nl=$(repeat_str f0 168)
expect_eq "frames through mmap" "$(wc -l </tmp/mmap.out)" 2
expect_eq "mmap = read()" "$(cat /tmp/mmap.out)" "$(cat /tmp/read.out)"
expect_eq "seq" "$(field 1 </tmp/mmap.out | tr '\n' ' ')" "1 2 "
expect_eq "refreshed" "$(field 3 </tmp/mmap.out | tr '\n' ' ')" "0003 0003 "
expect_eq "flags" "$(field 4 </tmp/mmap.out | tr '\n' ' ')" "- - "
expect_eq "frame 1 values" "$(sed -n 1p /tmp/mmap.out | field 6)" "$(values_of 01 11)$nl"
expect_eq "frame 2 values" "$(sed -n 2p /tmp/mmap.out | field 6)" "$(values_of 31 21)$nl"
ts1=$(sed -n 1p /tmp/mmap.out | field 2)
ts2=$(sed -n 2p /tmp/mmap.out | field 2)
[ "$ts1" -gt "$t0" ] && [ "$ts1" -lt "$ts2" ] && [ "$ts2" -lt "$t1" ] ||
	fail "timestamps $ts1 $ts2 not within ($t0, $t1) and increasing"
echo "ok: CLOCK_MONOTONIC timestamps in order"

expect_eq rx_head "$(stat lh rx_head)" 4
expect_eq rx_tail "$(stat lh rx_tail)" 4
expect_eq frames "$(stat lh frames)" 2
expect_eq frames_partial "$(stat lh frames_partial)" 0
expect_eq "rx total" "$(rx_total lh)" 8

patch_disable lh
lines /tmp/cmds 5
kill $dump
# the host's commands, in order: configuration, triangles 0-1 on, 2-15
# off, streaming on; then off
cmds=$(awk '{ print $3 }' /tmp/cmds | tr '\n' ' ')
expect_eq "board commands" "$cmds" "20E#4D0064F0 20E#50000102010022 20E#50020F02000022 20E#0700 20E#0701 "
expect_eq tx_commands "$(cat /tmp/cmds | wc -l)" 5
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
