# The interface is deleted under full-rate traffic and re-created: the
# patch unbinds and rebinds, counting resumes, nothing warns.
. /cases/lib.sh

vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0001
patch_enable lh
cangen vcan0 -I 4E0 -L 8 -D 40F0F0F0F0F0F0F0 -g 0 -n 1000000 2>/dev/null &
g=$!
wait_until "traffic" '[ "$(stat lh rx_head)" -gt 1000 ]'
vcan_del vcan0		# under traffic: the sender loses its interface
wait $g || true
before=$(stat lh rx_head)
[ "$before" -gt 0 ] || fail "nothing counted before the unplug"
expect_eq "unbound" "$(cat /sys/class/skin/lh/bound)" 0

vcan_add vcan0
cangen vcan0 -I 4E0 -L 8 -D 40F0F0F0F0F0F0F0 -g 0 -n 5000
# (what the kernel dropped before the CAN stack: lib.sh, rx_dropped)
d=$(rx_dropped vcan0)
flood_drops "after the replug" 5000 "$d"
expect_eq "counting resumed" "$(( $(stat lh rx_head) - before ))" $((5000 - d))
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
