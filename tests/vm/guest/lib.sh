# Helpers for the VM test cases (sourced; busybox sh).  A case is a shell
# script run with "sh -e": any failing command or check fails the case.

CFG=/sys/kernel/config/skin

# Debian's busybox-static prefers its own applets to PATH, and its ip knows
# no vcan, its tc no "root": use iproute2's.
ip() {
	/usr/bin/ip "$@"
}

tc() {
	/usr/bin/tc "$@"
}

# now_ns: CLOCK_BOOTTIME (= CLOCK_MONOTONIC without suspend) in ns, 10 ms
# resolution; shell arithmetic, as busybox awk's %d stops at 2^31
now_ns() {
	read -r up _ </proc/uptime
	# "1" prefixed, 100 subtracted: "08" is not octal to the shell then
	echo $(( ${up%.*} * 1000000000 + (1${up#*.} - 100) * 10000000 ))
}

# (a case may define fail_context, to show what explains a failure)
fail() {
	echo "FAIL: $*"
	if command -v fail_context >/dev/null 2>&1; then
		fail_context
	fi
	exit 1
}

# sim_ready LOG: wait until a `skinsim -v` writing its messages to LOG has
# its boards listening (before the driver sends them their configuration)
sim_ready() {
	n=0
	until grep -q 'waiting for SET_TXMODE' "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 100 ] || fail "skinsim never got ready ($1)"
		sleep 0.1
	done
}

# Waits on events rather than fixed sleeps: on a loaded host the emulated
# machine can take seconds where it usually takes milliseconds.

# wait_until WHAT CODE: until the shell code CODE (evaluated again each
# time) succeeds, 10 s at most
wait_until() {
	n=0
	until eval "$2"; do
		n=$((n + 1))
		[ $n -lt 100 ] || fail "$1: not within 10 s"
		sleep 0.1
	done
}

# the CAN_RAW sockets in the kernel's receive lists
raw_sockets() {
	cat /proc/net/can/rcvlist_* 2>/dev/null | grep -c ' raw$' || true
}

# candump_bg FILE ARGS...: `candump -L ARGS` into FILE in the background
# (its pid in $dump), returning once its filter is registered
candump_bg() {
	out=$1
	shift
	before=$(raw_sockets)
	candump -L "$@" >"$out" &
	dump=$!
	wait_until "candump $* listening" '[ "$(raw_sockets)" -gt "$before" ]'
}

# lines FILE N: wait until FILE has N lines, and 0.3 s more for a line too
# many to show
lines() {
	wait_until "$2 lines in $1" "[ \$(wc -l <'$1') -ge $2 ]"
	sleep 0.3
}

# tx_commands PATCH N: wait until the driver has sent PATCH's board N
# commands in all (SET_TXMODE(on) goes 500 ms after the others)
tx_commands() {
	wait_until "$1: $2 board commands" "[ \$(stat '$1' tx_commands) -ge $2 ]"
}

# opened PID PATH: wait until process PID has PATH open (a reader's
# position is set by open(): frames sent after this reach it)
opened() {
	wait_until "$1 opening $2" "ls -l /proc/$1/fd 2>/dev/null | grep -q ' -> $2\$'"
}

# mapped PID PATH: wait until process PID has mapped PATH (a reader of the
# mapping starts at the head it sees then)
mapped() {
	wait_until "$1 mapping $2" "grep -q ' $2\$' /proc/$1/maps 2>/dev/null"
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
	if "$@" 2>/dev/null; then
		fail "$what: succeeded, expected a failure"
	fi
	echo "ok: $what fails"
}

# expect_error WHAT TEXT COMMAND...: the command must fail and say TEXT
# (the words of strerror(), e.g. "out of range" for ERANGE) on stderr
expect_error() {
	what=$1 text=$2
	shift 2
	if "$@" 2>/tmp/expect_error; then
		fail "$what: succeeded, expected '$text'"
	fi
	grep -q "$text" /tmp/expect_error ||
		fail "$what: failed with '$(cat /tmp/expect_error)', expected '$text'"
	echo "ok: $what fails: $text"
}

# stat PATCH COUNTER: a counter of a live patch, from sysfs
stat() {
	cat "/sys/class/skin/$1/stats/$2"
}

show_stats() {
	for f in /sys/class/skin/"$1"/stats/*; do
		echo "  $(basename "$f") $(cat "$f")"
	done
}

# sum of the decoder verdict counters: every frame delivered gets one
rx_total() {
	t=0
	for f in /sys/class/skin/"$1"/stats/rx_*; do
		t=$((t + $(cat "$f")))
	done
	echo $t
}

# rx_dropped IF: frames the kernel dropped on IF's receive side before any
# CAN receiver saw them.  A flood from user space (cangen -g 0) can fill
# netif_rx()'s backlog (netdev_max_backlog frames) faster than softirq
# drains it: seen on Ubuntu's 5.15 under TCG (most likely because 5.15
# leaves the backlog to ksoftirqd once that runs, 4cd13c21b207, reverted
# in 6.5 by d15121be7485), never on 6.1 or later here.  Not the driver's
# loss, and counted: the flood cases account for it.
rx_dropped() {
	cat "/sys/class/net/$1/statistics/rx_dropped"
}

# flood_drops WHAT SENT DROPPED: say what the kernel dropped of a flood,
# and fail when so much was dropped that the flood tested little
flood_drops() {
	[ "$3" -eq 0 ] && return
	echo "note: $1: the kernel dropped $3 of $2 frames before the CAN stack (rx_dropped)"
	[ $(($3 * 2)) -lt "$2" ] || fail "$1: the kernel dropped $3 of $2 frames: the flood tests too little"
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

# patch_create NAME [ATTR=VALUE...]: a patch, configured, not enabled
patch_create() {
	name=$1
	shift
	mkdir "$CFG/$name"
	for kv in "$@"; do
		echo "${kv#*=}" >"$CFG/$name/${kv%%=*}"
	done
}

patch_enable() {
	echo 1 >"$CFG/$1/enable"
}

patch_disable() {
	echo 0 >"$CFG/$1/enable"
}

# send_n COUNT ID#DATA: send one frame COUNT times on $IF (default vcan0)
send_n() {
	n=$1
	while [ "$n" -gt 0 ]; do
		cansend "${IF:-vcan0}" "$2"
		n=$((n - 1))
	done
}

# triangle BOARD TRI BASE: queue a triangle's head and tail (class 4,
# channel c carrying BASE + c, BASE in hex, diagnostics 0) for play().
# A cansend per frame would take longer than a board period in the VM.
triangle() {
	id=$(printf '4%X%X' "$1" "$2")
	c=0
	while [ $c -lt 12 ]; do
		eval "v$c=$(printf '%02X' $((0x$3 + c)))"
		c=$((c + 1))
	done
	echo "(0.000000) ${IF:-vcan0} $id#40$v0$v1$v2$v3$v4$v5$v6" >>/tmp/play.log
	echo "(0.000000) ${IF:-vcan0} $id#C0$v7$v8$v9$v10${v11}0000" >>/tmp/play.log
}

# queue ID#DATA: queue any frame for play()
queue() {
	echo "(0.000000) ${IF:-vcan0} $1" >>/tmp/play.log
}

# play: send what was queued, back to back, from one CPU: vcan loops each
# frame back through the sending CPU's backlog, so a sender that migrates
# between two frames can have them received out of order (a bus, and a
# board's driver, cannot)
play() {
	taskset 1 canplayer -t -I /tmp/play.log
	rm -f /tmp/play.log
}

# patch_set NAME ATTR=VALUE...: configure an existing patch
patch_set() {
	name=$1
	shift
	for kv in "$@"; do
		echo "${kv#*=}" >"$CFG/$name/${kv%%=*}"
	done
}

# values_of BASE...: the 24 hex digits of triangles filled by triangle()
values_of() {
	out=""
	for base in "$@"; do
		c=0
		while [ $c -lt 12 ]; do
			out="$out$(printf '%02x' $((0x$base + c)))"
			c=$((c + 1))
		done
	done
	echo "$out"
}

# repeat_str STR N
repeat_str() {
	r=""
	i=0
	while [ $i -lt "$2" ]; do
		r="$r$1"
		i=$((i + 1))
	done
	echo "$r"
}

# field N: the Nth field of each line on stdin
field() {
	awk -v n="$1" '{ print $n }'
}

# popcount of the hex masks of field N, summed over stdin
popsum() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < 16; i++) { b = 0; v = i;
		while (v) { b += v % 2; v = int(v / 2) } bits[substr("0123456789abcdef", i + 1, 1)] = b } }
		{ for (i = 1; i <= length($n); i++) s += bits[substr($n, i, 1)] }
		END { print s + 0 }'
}

# ring_snapshot NAME...: each patch's frames, rx_head and rx_tail, for
# ring_check
ring_snapshot() {
	for name in "$@"; do
		echo "$(stat "$name" frames) $(stat "$name" rx_head) $(stat "$name" rx_tail)" >"/tmp/base.$name"
	done
}

# ring_check NAME TRUTH: the frames of /dev/skin/NAME since the snapshot
# (or since the patch was enabled, after `echo "0 0 0" >/tmp/base.NAME`)
# are the samples of NAME in skinsim's ground truth TRUTH, value for
# value; the counters grew by as much as the truth says was sent
ring_check() {
	name=$1 truth=$2
	read -r skip hbase tbase <"/tmp/base.$name"
	awk -v p="$name" '$1 == "frame" && $2 == p' "$truth" >/tmp/want.all
	n=$(wc -l </tmp/want.all)
	[ "$n" -ge 10 ] || fail "$name: only $n samples in $truth"
	awk '{ print $5, "-", $9 }' /tmp/want.all >/tmp/want
	skinctl dump --all -n $((skip + n)) --timeout 3000 "/dev/skin/$name" |
		tail -n "$n" | awk '{ print $3, $4, $6 }' >/tmp/got
	if ! cmp -s /tmp/want /tmp/got; then
		diff /tmp/want /tmp/got | head -n 24 | cut -c 1-72
		skinctl dump --all -n $((skip + n)) --timeout 3000 "/dev/skin/$name" |
			tail -n $((n + 2)) | cut -c 1-72
		show_stats "$name"
		fail "$name: the ring differs from the ground truth"
	fi
	echo "ok: $name: $n samples = the ground truth, bit for bit"
	expect_eq "$name frames" "$(stat "$name" frames)" $((skip + n))
	heads=$(popsum 6 </tmp/want.all)
	tails=$(popsum 7 </tmp/want.all)
	expect_eq "$name rx_head" "$(stat "$name" rx_head)" $((hbase + heads))
	expect_eq "$name rx_tail" "$(stat "$name" rx_tail)" $((tbase + tails))
	expect_eq "$name partial" "$(stat "$name" frames_partial)" 0
	expect_eq "$name rejected" "$(( $(rx_total "$name") - $(stat "$name" rx_head) - $(stat "$name" rx_tail) ))" 0
}

# robot COMMAND...: run it in the robot's network namespace (iproute2's ip
# and tc by path there: busybox's own applets would shadow them)
robot() {
	/usr/bin/ip netns exec robot "$@"
}

# robot_net ADDRESS...: an ETH robot's network: namespace "robot" with the
# boards' ADDRESSes on veth1, joined by a veth to the head PC's veth0,
# 10.0.1.104/24 (robots-configuration's pc104.xml)
robot_net() {
	ip netns add robot
	ip link add veth0 type veth peer name veth1
	ip link set veth1 netns robot
	ip addr add 10.0.1.104/24 dev veth0
	ip link set veth0 up
	robot /usr/bin/ip link set lo up
	for a in "$@"; do
		robot /usr/bin/ip addr add "$a/24" dev veth1
	done
	robot /usr/bin/ip link set veth1 up
}
