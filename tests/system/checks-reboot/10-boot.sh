# After a power cycle the installation holds: systemd-modules-load loaded
# the DKMS-built skin.ko during boot, configfs has its directory, and udevd
# read the rules without a complaint.
. "$SKIN_PAYLOAD/lib.sh"

systemctl is-active systemd-modules-load.service
grep -q '^skin ' /proc/modules || fail "skin.ko was not loaded at boot"
echo "ok: skin.ko loaded at boot"
case "$(modinfo -n skin)" in
/lib/modules/$(uname -r)/updates/dkms/*) echo "ok: the DKMS build" ;;
*) fail "skin.ko from $(modinfo -n skin)" ;;
esac
[ -d "$CFG" ] || fail "no $CFG"
# (messages only: the host is called skin-system)
if journalctl -b -u systemd-udevd.service --no-pager -o cat | grep -i 'skin'; then
	fail "udevd said something about the skin rules (above)"
fi
echo "ok: udevd has nothing to say about 60-skin.rules"
