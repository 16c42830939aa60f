# Helpers for the system layer's checks (sourced; dash, sh -e).

CFG=/sys/kernel/config/skin

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

# expect_fail WHAT COMMAND...: the command must fail
expect_fail() {
	what=$1
	shift
	if "$@" 2>&1; then
		fail "$what: succeeded, expected a failure"
	fi
	echo "ok: $what fails"
}

# patch NAME PART ADDRESS: a class 4 patch on vcan0, enabled
patch() {
	mkdir "$CFG/$1"
	echo vcan0 >"$CFG/$1/interface"
	echo 4 >"$CFG/$1/cls"
	echo "$3" >"$CFG/$1/address"
	echo "$2" >"$CFG/$1/skin_part"
	echo 1 >"$CFG/$1/enable"
}

vcan() {
	modprobe vcan
	ip link show vcan0 >/dev/null 2>&1 || ip link add dev vcan0 type vcan
	ip link set dev vcan0 up
}

# alice is in group skin, bob is not
users() {
	id alice >/dev/null 2>&1 || useradd --groups skin alice
	id bob >/dev/null 2>&1 || useradd bob
}

# unit_prop UNIT PROPERTY: one property's value
unit_prop() {
	systemctl show -p "$2" --value "$1"
}

# wait_for SECONDS WHAT COMMAND...: until the command succeeds
wait_for() {
	t=$1 what=$2
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || fail "$what: not within the time"
		sleep 1
	done
	echo "ok: $what"
}
