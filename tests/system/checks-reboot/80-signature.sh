# Secure Boot as docs/INSTALL.md tells it: DKMS signed skin.ko with the
# machine's own key (/var/lib/dkms/mok.pub, made at its first build), and a
# kernel that enforces signatures refuses it while that key is not enrolled:
# "Key was rejected by service", "Loading of module with unavailable key is
# rejected" in the kernel log.  Under Secure Boot Debian's kernel enforces
# them (its IMA arch policy); here module.sig_enforce, which root can turn
# on (not off) at run time, takes the same path in the kernel.  It stays on
# for the rest of this boot: only 90-remove, which loads nothing, follows.
. "$SKIN_PAYLOAD/lib.sh"

cert=/var/lib/dkms/mok.pub
[ -f /var/lib/dkms/mok.key ] && [ -f "$cert" ] || fail "no DKMS signing key in /var/lib/dkms"
expect_eq "skin.ko's signer" "$(modinfo -F signer skin)" "DKMS module signing key"
# the serial in the module's signature is the certificate's
# (hexadecimal, without leading zeros)
hex() { tr -d ':\n' | tr a-f A-F | sed 's/^0*//'; }
expect_eq "skin.ko's signing key" "$(modinfo -F sig_key skin | hex)" \
	"$(openssl x509 -inform DER -in "$cert" -noout -serial | sed 's/^serial=//' | hex)"

modprobe -r skin || fail "skin.ko does not unload"
echo 1 >/sys/module/module/parameters/sig_enforce
expect_eq "sig_enforce" "$(cat /sys/module/module/parameters/sig_enforce)" Y
dmesg -C
if modprobe skin >/tmp/modprobe.out 2>&1; then
	fail "skin.ko loaded though its key is not enrolled"
fi
cat /tmp/modprobe.out
expect_eq "modprobe skin" "$(cat /tmp/modprobe.out)" \
	"modprobe: ERROR: could not insert 'skin': Key was rejected by service"
dmesg | grep 'Loading of module with unavailable key is rejected' ||
	fail "the kernel log does not say why: $(dmesg | tail -n 5)"
