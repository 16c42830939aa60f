# modules-load.d loads skin.ko (at boot, and here by restarting the unit
# that reads it), and configfs then has the driver's directory.
. "$SKIN_PAYLOAD/lib.sh"

modprobe -r skin 2>/dev/null || true
! grep -q '^skin ' /proc/modules || fail "skin.ko still loaded"
systemctl restart systemd-modules-load.service
grep -q '^skin ' /proc/modules || fail "systemd-modules-load did not load skin.ko"
echo "ok: systemd-modules-load loaded skin.ko"
[ -d "$CFG" ] || fail "no $CFG"
echo "ok: $CFG"
