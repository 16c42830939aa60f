# DKMS built skin.ko for the running kernel and installed it where modprobe
# finds it; its source and dkms.conf are where DKMS expects them.
. "$SKIN_PAYLOAD/lib.sh"

kver=$(uname -r)
version=$(dpkg-query -W -f='${Version}' skin-dkms)
dkms status skin
# (not grep -q: dkms would complain about the closed pipe)
dkms status -m skin -v "$version" -k "$kver" | grep ': installed' >/dev/null ||
	fail "dkms: skin/$version not installed for $kver"
ko=$(modinfo -n skin)
echo "modinfo -n skin: $ko"
case "$ko" in
/lib/modules/$kver/updates/dkms/skin.ko*) ;;
*) fail "skin.ko not from DKMS: $ko" ;;
esac
expect_eq "vermagic's kernel" "$(modinfo -F vermagic skin | cut -d' ' -f1)" "$kver"
[ -f "/usr/src/skin-$version/dkms.conf" ] || fail "no /usr/src/skin-$version/dkms.conf"
# how long the build took (make.log: the start on its second line, the end
# its last write)
log=/var/lib/dkms/skin/$version/$kver/x86_64/log/make.log
[ -f "$log" ] || fail "no $log"
echo "DKMS's make for $kver: $(( $(stat -c %Y "$log") - $(date -d "$(sed -n 2p "$log")" +%s) ))s"
