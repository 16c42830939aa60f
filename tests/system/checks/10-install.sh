# The packages install as a user installs them: apt, from the files, with
# nothing but what a Debian 12 system with dkms and the kernel headers has
# (the guest has no network).  skin-dkms's postinst builds the module.
. "$SKIN_PAYLOAD/lib.sh"

export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "$SKIN_PAYLOAD"/debs/*.deb
for p in skin skin-dkms; do
	expect_eq "$p installed" "$(dpkg-query -W -f='${Status}' $p)" "install ok installed"
done
