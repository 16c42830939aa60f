# SKIN_IOC_START says when the board's commands could not be sent: a queue
# that drops every frame (pfifo of limit 0) makes can_send() fail for real
# with ENOBUFS, and the ioctl returns it (skinctl start prints it).  With
# the interface down, starting is deferred: the ioctl returns 0 and the
# commands go out when the interface comes up.
. /cases/lib.sh

vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0001
patch_enable lh
tx_commands lh 4
expect_eq "nothing refused yet" "$(stat lh tx_failed)" 0

tc qdisc add dev vcan0 root pfifo limit 0
expect_error "start on a queue that drops" "No buffer space available" \
	skinctl start /dev/skin/lh
# the first refusal ends the start: no further command, no SET_TXMODE(on)
expect_eq "refused" "$(stat lh tx_failed)" 1
sleep 0.7	# SET_TXMODE(on) would follow 500 ms after the others
expect_eq "nothing sent" "$(stat lh tx_commands)" 4

tc qdisc del dev vcan0 root
skinctl start /dev/skin/lh
tx_commands lh 8
expect_eq "still 1 refused" "$(stat lh tx_failed)" 1

# interface down: deferred, 0; sent when it comes up
ip link set dev vcan0 down
skinctl start /dev/skin/lh
skinctl stats /dev/skin/lh | grep -qx '  state bound,streaming' ||
	fail "not bound,streaming while down"
expect_eq "nothing sent while down" "$(stat lh tx_commands)" 8
expect_eq "nothing refused while down" "$(stat lh tx_failed)" 1
ip link set dev vcan0 up
tx_commands lh 12

# interface absent: deferred as well; sent when it is back and up
vcan_del vcan0
skinctl start /dev/skin/lh
skinctl stats /dev/skin/lh | grep -qx '  state unbound,streaming' ||
	fail "not unbound,streaming while absent"
vcan_add vcan0
tx_commands lh 16
expect_eq "refused in all" "$(stat lh tx_failed)" 1
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
