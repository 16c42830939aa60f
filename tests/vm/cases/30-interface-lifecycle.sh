# The module follows its interface by name: created after the module,
# deleted and re-created (a USB adapter unplugged and back), renamed.
. /cases/lib.sh

skin_load ifname=vcan0
vcan_add vcan0
expect_eq "bound after vcan0 appears" "$(counter bound)" 1
send_n 2 4E5#40F0EFEEEDECEBEA

vcan_del vcan0
expect_eq "unbound after vcan0 is deleted" "$(counter bound)" 0

vcan_add vcan0
expect_eq "bound again" "$(counter bound)" 1
send_n 3 4E5#40F0EFEEEDECEBEA
expect_eq "counts survive the re-creation" "$(counter rx_head)" 5

# renamed away: frames on it are no longer ours
ip link set dev vcan0 down
ip link set dev vcan0 name vcan9
ip link set dev vcan9 up
expect_eq "unbound after rename away" "$(counter bound)" 0
IF=vcan9 send_n 2 4E5#40F0EFEEEDECEBEA
expect_eq "frames on the renamed interface ignored" "$(counter rx_head)" 5

# another interface renamed to the name: ours
vcan_add vcan1
ip link set dev vcan1 down
ip link set dev vcan1 name vcan0
ip link set dev vcan0 up
expect_eq "bound after rename to vcan0" "$(counter bound)" 1
send_n 1 4E5#40F0EFEEEDECEBEA
expect_eq rx_head "$(counter rx_head)" 6

skin_unload
vcan_del vcan0
vcan_del vcan9
