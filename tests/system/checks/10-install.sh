# The packages install as a user installs them: apt, from the files, with
# nothing but what a Debian 12 system with dkms and the kernel headers has
# (the guest has no network).  skin-dkms's postinst builds the module.
. "$SKIN_PAYLOAD/lib.sh"

export DEBIAN_FRONTEND=noninteractive
# each line with the seconds of uptime it came at: where the time goes
# (dpkg, DKMS's build for each kernel, depmod, the units); dpkg without
# apt's pseudo-terminal, whose output apt would hand on only at its end,
# and mawk reading each line as it comes (-W interactive), not by blocks
rm -f /tmp/apt.status
{
	st=0
	apt-get install -y --no-install-recommends -o Dpkg::Use-Pty=0 \
		"$SKIN_PAYLOAD"/debs/*.deb || st=$?
	echo $st >/tmp/apt.status
} 2>&1 | awk -W interactive '{ getline u <"/proc/uptime"; close("/proc/uptime"); split(u, t, " ")
	printf "[%6.1f] %s\n", t[1], $0; fflush() }'
expect_eq "apt-get install's exit status" "$(cat /tmp/apt.status)" 0
for p in skin skin-dkms python3-skin; do
	expect_eq "$p installed" "$(dpkg-query -W -f='${Status}' $p)" "install ok installed"
done
