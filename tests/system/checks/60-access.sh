# A member of group skin opens a patch's device for reading and for
# writing; a user outside the group is refused both.
. "$SKIN_PAYLOAD/lib.sh"

users
modprobe skin
vcan
patch lh 1 14
udevadm settle

runuser -u alice -- skinctl stats /dev/skin/lh >/tmp/alice || fail "alice cannot read /dev/skin/lh"
grep -q 'skin_part 1' /tmp/alice || fail "alice's stats: $(cat /tmp/alice)"
echo "ok: alice (group skin) reads /dev/skin/lh"
runuser -u alice -- skinctl reset /dev/skin/lh || fail "alice cannot open /dev/skin/lh for writing"
echo "ok: alice (group skin) writes /dev/skin/lh"

runuser -u bob -- skinctl stats /dev/skin/lh >/tmp/bob 2>&1 && fail "bob read /dev/skin/lh"
cat /tmp/bob
grep -q 'Permission denied' /tmp/bob || fail "bob refused for another reason"
runuser -u bob -- skinctl reset /dev/skin/lh >/tmp/bob 2>&1 && fail "bob wrote /dev/skin/lh"
grep -q 'Permission denied' /tmp/bob || fail "bob refused for another reason: $(cat /tmp/bob)"
echo "ok: bob (not in group skin) refused"
rmdir "$CFG/lh"
