# The installed stack end to end: skinsim's boards (the installed example
# configuration, on vcan0) are started by the driver when a patch is
# enabled, and a member of group skin reads the samples through the
# by-part link; a user outside the group reads nothing.
. "$SKIN_PAYLOAD/lib.sh"

CONF=/etc/skin/examples/sim-vcan.conf
users
modprobe skin
vcan
skinsim --list --config $CONF >/tmp/boards
cat /tmp/boards
line=$(awk '$1 == "left_hand"' /tmp/boards)
[ -n "$line" ] || fail "no left_hand board in $CONF"
set -- $line	# NAME BUS ADDRESS PART ORDER PRESENT

skinsim --config $CONF --duration 120s -v 2>/tmp/sim.err &
sim=$!
sleep 1
mkdir "$CFG/left_hand"
echo "$2" >"$CFG/left_hand/interface"
echo "$3" >"$CFG/left_hand/address"
echo 1 >"$CFG/left_hand/skin_part"
echo "0x$6" >"$CFG/left_hand/triangles"
echo 1 >"$CFG/left_hand/enable"
udevadm settle

runuser -u alice -- skinctl dump -n 10 --timeout 10000 /dev/skin/by-part/left_hand/left_hand >/tmp/dump ||
	{ cat /tmp/sim.err; fail "alice's skinctl dump failed"; }
cut -c 1-60 /tmp/dump
expect_eq "frames alice read" "$(grep -c '^[0-9]' /tmp/dump)" 10
grep -q '^skinsim: left_hand: SET_TXMODE(on)' /tmp/sim.err || fail "the driver did not start the board"
echo "ok: the driver started skinsim's board"
expect_fail "bob's skinctl dump" runuser -u bob -- skinctl dump -n 1 --timeout 2000 /dev/skin/left_hand

kill $sim
wait $sim || true
echo 0 >"$CFG/left_hand/enable"
rmdir "$CFG/left_hand"
