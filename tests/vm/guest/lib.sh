# Helpers for the VM test cases (sourced; busybox sh).  A case is a shell
# script run with "sh -e": any failing command or check fails the case.

SKIN_SYSFS=/sys/kernel/skin

# Debian's busybox-static prefers its own applets to PATH, and its ip knows
# no vcan: use iproute2's.
ip() {
	/usr/bin/ip "$@"
}

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
	if [ "$2" != "$3" ]; then
		fail "$1: got '$2', expected '$3'"
	fi
	echo "ok: $1 = $3"
}

# show_counters: every skin counter, for the log of a case
show_counters() {
	for f in "$SKIN_SYSFS"/*; do
		echo "$(basename "$f") $(cat "$f")"
	done
}

# counter NAME: a skin counter from sysfs
counter() {
	cat "$SKIN_SYSFS/$1"
}

vcan_add() {
	ip link add dev "$1" type vcan
	ip link set dev "$1" up
}

vcan_del() {
	ip link del dev "$1"
}

skin_load() {
	insmod /lib/modules/skin.ko "$@"
}

skin_unload() {
	rmmod skin
}

# send_n COUNT ID#DATA: send one frame COUNT times on $IF (default vcan0)
send_n() {
	n=$1
	while [ "$n" -gt 0 ]; do
		cansend "${IF:-vcan0}" "$2"
		n=$((n - 1))
	done
}
