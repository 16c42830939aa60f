# Heads of one triangle at full rate: each one after the first repeats the
# pending half and publishes a frame.  A reader of a small ring and a
# read() reader each account for every frame: read or counted as lost.
. /cases/lib.sh

vcan_add vcan0
skin_load
# (the longest period: a stall of the loaded emulator between two frames
# must not look like a board that went quiet for 1.5 periods)
patch_create lh interface=vcan0 address=14 triangles=0x0001 ring_frames=16 period_ms=255
patch_enable lh
# --all: from the patch's first frame, so that a reader the loaded emulator
# starts late still accounts for every frame (read or lost)
skinctl dump --all --timeout 3000 /dev/skin/lh >/tmp/mmap.out 2>/dev/null &
r1=$!
skinctl dump --all --timeout 3000 /dev/skin/lh >/tmp/mmap2.out 2>/dev/null &
r2=$!
opened $r1 /dev/skin/lh
opened $r2 /dev/skin/lh
d0=$(rx_dropped vcan0)
cangen vcan0 -I 4E0 -L 8 -D 40F0F0F0F0F0F0F0 -g 0 -n 20000
sleep 0.2				# the timer publishes the last one
wait $r1 || true			# (they end on the timeout)
wait $r2 || true
# (what the kernel dropped before the CAN stack: lib.sh, rx_dropped)
d=$(( $(rx_dropped vcan0) - d0 ))
flood_drops "heads" 20000 "$d"
n=$((20000 - d))

expect_eq rx_head "$(stat lh rx_head)" "$n"
expect_eq repeats "$(stat lh repeats)" $((n - 1))
expect_eq timeouts "$(stat lh timeouts)" 1
expect_eq frames "$(stat lh frames)" "$n"
for out in /tmp/mmap.out /tmp/mmap2.out; do
	got=$(grep -vc '^#' "$out" || true)
	lost=$(awk '/^# lost/ { n += $3 } END { print n + 0 }' "$out")
	expect_eq "$out: frames read + lost" "$((got + lost))" "$n"
	# in order, no duplicates
	awk '!/^#/ { if ($1 <= last) { print "out of order: " $1 " after " last; exit 1 } last = $1 }' "$out" ||
		fail "$out: frames out of order"
done
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
