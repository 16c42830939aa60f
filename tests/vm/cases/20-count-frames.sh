# Frames sent with cansend and cangen on vcan0 are counted exactly, by
# decoder verdict; other classes are not delivered to the module at all.
. /cases/lib.sh

vcan_add vcan0
skin_load ifname=vcan0

send_n 5 4E5#40F0EFEEEDECEBEA		# head, class 4, board 14, triangle 5
send_n 3 4E5#C0F0EFEEEDEC		# tail without diagnostics
send_n 2 3A0#C0F0EFEEEDEC0000		# tail with diagnostics, class 3
send_n 4 4E5#40F0EF			# head too short
send_n 1 4E5#C0F0EFEEEDECEB		# tail of 7 bytes
send_n 2 4E5#80F0EFEEEDECEBEA		# unknown byte 0
send_n 3 4E5#R				# remote request
send_n 1 000004E5#40F0EFEEEDECEBEA	# 29-bit id with class-4 bits
send_n 6 5E5#40F0EFEEEDECEBEA		# class 5: not skin, never delivered
send_n 6 200#4D00320F			# host command: never delivered
send_n 2 20000040#0000000000000000	# error frame: bus-off

# a burst at full speed
cangen vcan0 -I 4E5 -L 8 -D 40F0F0F0F0F0F0F0 -g 0 -n 2000

show_counters
expect_eq rx_head "$(counter rx_head)" 2005
expect_eq rx_tail "$(counter rx_tail)" 5
expect_eq rx_bad_dlc "$(counter rx_bad_dlc)" 5
expect_eq rx_bad_byte0 "$(counter rx_bad_byte0)" 2
expect_eq rx_bad_rtr "$(counter rx_bad_rtr)" 3
expect_eq rx_bad_eff "$(counter rx_bad_eff)" 1
expect_eq rx_bad_class "$(counter rx_bad_class)" 0
expect_eq rx_bad_fd "$(counter rx_bad_fd)" 0
expect_eq rx_error_frames "$(counter rx_error_frames)" 2

skin_unload
vcan_del vcan0
