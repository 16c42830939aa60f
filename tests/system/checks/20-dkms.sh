# DKMS built skin.ko for the running kernel and installed it where modprobe
# finds it; its source and dkms.conf are where DKMS expects them.
. "$SKIN_PAYLOAD/lib.sh"

kver=$(uname -r)
version=$(dpkg-query -W -f='${Version}' skin-dkms)
dkms status skin
dkms status -m skin -v "$version" -k "$kver" | grep -q ': installed' ||
	fail "dkms: skin/$version not installed for $kver"
ko=$(modinfo -n skin)
echo "modinfo -n skin: $ko"
case "$ko" in
/lib/modules/$kver/updates/dkms/skin.ko*) ;;
*) fail "skin.ko not from DKMS: $ko" ;;
esac
expect_eq "vermagic's kernel" "$(modinfo -F vermagic skin | cut -d' ' -f1)" "$kver"
[ -f "/usr/src/skin-$version/dkms.conf" ] || fail "no /usr/src/skin-$version/dkms.conf"
