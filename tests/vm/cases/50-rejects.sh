# Every malformed frame is rejected and counted by kind, exactly, also in a
# flood at full rate; frames of other boards never reach the patch.
. /cases/lib.sh

vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0003
patch_enable lh

send_n 3 4E0#40F0EF			# head of 3 bytes
send_n 1 4E0#C0F0EFEEEDECEB		# tail of 7 bytes
send_n 2 4E0#80F0EFEEEDECEBEA		# unknown byte 0
send_n 2 4E0#R				# remote request
send_n 1 000004E0#40F0EFEEEDECEBEA	# 29-bit id
send_n 2 4E5#40F0EFEEEDECEBEA		# triangle 5 is not enabled
send_n 1 20000040#0000000000000000	# error frame: bus-off
send_n 1 20000004#0000000000000000	# error frame: controller problem
send_n 4 4D0#40F0EFEEEDECEBEA		# board 13: not ours
send_n 4 3E0#40F0EFEEEDECEBEA		# class 3: not ours
show_stats lh
expect_eq rx_bad_dlc "$(stat lh rx_bad_dlc)" 4
expect_eq rx_bad_byte0 "$(stat lh rx_bad_byte0)" 2
expect_eq rx_bad_rtr "$(stat lh rx_bad_rtr)" 2
expect_eq rx_bad_eff "$(stat lh rx_bad_eff)" 1
expect_eq rx_bad_triangle "$(stat lh rx_bad_triangle)" 2
expect_eq rx_error_frames "$(stat lh rx_error_frames)" 2
expect_eq bus_off "$(stat lh bus_off)" 1
expect_eq bus_errors "$(stat lh bus_errors)" 1
expect_eq rx_bad_board "$(stat lh rx_bad_board)" 0
expect_eq rx_bad_class "$(stat lh rx_bad_class)" 0
expect_eq frames "$(stat lh frames)" 0
expect_eq "rx total" "$(rx_total lh)" 13

# a flood at full rate: random payloads on our id, short frames on another
# triangle; every one the kernel delivers counted exactly once (what it
# drops before the CAN stack, rx_dropped, is accounted for: lib.sh)
before=$(rx_total lh)
d0=$(rx_dropped vcan0)
cangen vcan0 -I 4E0 -L 8 -D r -g 0 -n 20000
d1=$(( $(rx_dropped vcan0) - d0 ))
cangen vcan0 -I 4E1 -L 3 -D 400102 -g 0 -n 10000
d2=$(( $(rx_dropped vcan0) - d0 - d1 ))
flood_drops "random payloads" 20000 "$d1"
flood_drops "short frames" 10000 "$d2"
expect_eq "flood counted" "$(( $(rx_total lh) - before ))" $((30000 - d1 - d2))
expect_eq "rx_bad_dlc after the flood" "$(stat lh rx_bad_dlc)" $((10004 - d2))
# random payloads: heads, tails, or an unknown byte 0, nothing else
h=$(stat lh rx_head)
t=$(stat lh rx_tail)
b=$(stat lh rx_bad_byte0)
expect_eq "random payloads sorted" "$((h + t + b))" $((20002 - d1))
# and random identifiers, standard and extended, for good measure
cangen vcan0 -I r -L r -g 0 -n 10000
cangen vcan0 -I r -L 8 -e -g 0 -n 10000
show_stats lh
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
