# The last check, after the reboot.  Removal undoes the installation: DKMS
# forgets the module, the kernel's module tree no longer has it, the rules
# and units are gone; the group stays (files may belong to it).
. "$SKIN_PAYLOAD/lib.sh"

modprobe -r skin 2>/dev/null || true
export DEBIAN_FRONTEND=noninteractive
apt-get purge -y skin skin-dkms python3-skin
[ -z "$(dkms status skin)" ] || fail "dkms still has: $(dkms status skin)"
# (for every kernel: DKMS built it for two)
left=$(ls /lib/modules/*/updates/dkms/skin.ko* 2>/dev/null || true)
[ -z "$left" ] || fail "skin.ko left in /lib/modules: $left"
modinfo skin >/dev/null 2>&1 && fail "modinfo still finds skin"
expect_eq "skind.socket after purge" "$(systemctl is-active skind.socket || true)" inactive
expect_eq "skind.service after purge" "$(systemctl is-active skind.service || true)" inactive
for f in /lib/udev/rules.d/60-skin.rules /usr/lib/sysusers.d/skin.conf /usr/bin/skinctl \
	/usr/sbin/skind /lib/systemd/system/skind.socket /run/skin/skind.sock /etc/skin/skind.conf \
	/usr/lib/python3/dist-packages/skin/__init__.py; do
	[ ! -e "$f" ] || fail "$f left after purge"
done
echo "ok: purged"
