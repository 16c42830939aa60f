# skind end to end: skinsim's boards on vcan0 -> skin.ko (patches that
# skind itself creates in configfs) -> skind -> socat, skinctl and evtest.
# The contacts skind reports are those of skinsim's ground truth: while
# one finger presses, one contact whose taxels are all under that finger
# and whose centre of pressure lies within the finger's radius of its
# centre; two fingers, two contacts; none after they lift.  evtest sees
# the touches on the part's multitouch device.
. /cases/lib.sh

CONF=/etc/skin/examples/skind-vm.conf
SOCK=/run/skin/skind.sock
# skinsim's config, with a calibration short enough for an emulated machine
{ cat /etc/skin/examples/sim-vcan.conf; printf '\n[skind]\ncalibration_s = 1\n'; } >$CONF
cat >/tmp/vm.scn <<EOF
config $CONF
seed 5
duration 76s
at 12s press left_forearm taxel 300 radius 10mm force 90 name a
at 28s press left_forearm taxel 37 radius 12mm force 90 name b
at 52s release b
at 64s release a
EOF
# (Each phase lasts 12 s or more: the checks of a phase, a few dozen
# processes, take seconds on an emulated machine and several times that on
# a loaded host, and must end before the scenario moves on.)

vcan_add vcan0
skin_load
mkdir -p /run/skin /tmp/state

# the boards first (silent until the driver starts them), then skind
skinsim -v --config $CONF --truth /tmp/truth /tmp/vm.scn 2>/tmp/sim.err &
sim=$!
sim_ready /tmp/sim.err
skind -c $CONF --state-dir /tmp/state -v >/tmp/skind.log 2>&1 &
skind=$!

# fail, with what skind said
fail_skind() {
	grep -v 'debug: client' /tmp/skind.log | tail -n 25
	q parts || true
	fail "$@"
}

q() {	# q COMMAND: skind's reply, data lines only
	echo "$1" | socat -t 5 - UNIX-CONNECT:$SOCK | grep -v '^ok'
}

i=0
until q status 2>/dev/null | grep -q 'calibrated 2 patches 3 attached 3'; do
	i=$((i + 1))
	if [ $i -gt 60 ]; then
		cat /tmp/skind.log
		q status || true
		fail "skind did not attach and calibrate its 3 patches"
	fi
	sleep 0.5
done
q status
q parts
# skind created the driver's patches itself, named as skinsim says
for name in left_hand left_forearm.0 left_forearm.1; do
	expect_eq "configfs patch $name enabled" "$(cat $CFG/$name/enable)" 1
done
grep -q 'evdev device' /tmp/skind.log || { cat /tmp/skind.log; fail "no evdev device"; }

# the forearm's multitouch device, through evtest
dev=
for d in /sys/class/input/event*; do
	if [ "$(cat "$d/device/name")" = "skin left_forearm" ]; then
		dev=/dev/input/$(basename "$d")
	fi
done
[ -n "$dev" ] || fail "no input device named 'skin left_forearm'"
echo "ok: $dev is 'skin left_forearm'"
evtest "$dev" >/tmp/evtest.log 2>&1 &
evt=$!

# a socket subscriber (socat) and skinctl watching
(echo "subscribe contacts left_forearm"; sleep 300) | socat - UNIX-CONNECT:$SOCK >/tmp/sub.log &
sub=$!
skinctl contacts --watch left_forearm >/tmp/watch.log &
watch=$!

ncontacts() {	# contacts of the forearm's latest publication
	q "contacts left_forearm" | grep -o '((' | wc -l
}
wait_contacts() {	# wait_contacts N SECONDS
	i=0
	until [ "$(ncontacts)" -eq "$1" ]; do
		i=$((i + 1))
		[ $i -le $(($2 * 4)) ] || fail_skind "no $1 contact(s) within $2 s: $(q 'contacts left_forearm')"
		sleep 0.25
	done
}

# the truth's taxels under finger NAME's board(s), with any pressure, and
# its centre and radius
truth_taxels() {
	# (whole lines only: the file's last line may be half written)
	awk '$1 == "taxel" && NF >= 6 && $5 > 0 { print $4 }' /tmp/truth | sort -un
}
truth_centre() {	# X Y Z RADIUS of contact NAME
	awk -v n="$1" '$1 == "contact" && $3 == n && NF >= 13 { print $5, $6, $7, $8; exit }' /tmp/truth
}

# check_contacts NAMES...: each contact skind reports lies under one of
# the named fingers: its taxels pressed in the truth, its CoP within the
# finger's radius of the finger's centre
check_contacts() {
	# skinsim writes its truth through a stdio buffer: wait for the fingers
	for n in "$@"; do
		i=0
		until [ -n "$(truth_centre "$n")" ]; do
			i=$((i + 1))
			[ $i -lt 50 ] || fail "finger $n is not in the truth"
			sleep 0.2
		done
	done
	sleep 0.5	# and for its taxels
	q "contacts left_forearm" | sed 's/^contacts [^ ]* [0-9]* [0-9]* [0-9]* //' >/tmp/now
	truth_taxels >/tmp/pressed
	echo "format json
contacts left_forearm" | socat -t 5 - UNIX-CONNECT:$SOCK | grep '"type":"contacts"' >/tmp/now.json
	grep -o '"taxels":\[[0-9,]*\]' /tmp/now.json | sed 's/.*\[//; s/\]//' | tr ',' '\n' |
		sort -un >/tmp/mine
	[ -s /tmp/mine ] || fail "no taxels in $(cat /tmp/now.json)"
	extra=$(awk 'NR == FNR { p[$1] = 1; next } !($1 in p)' /tmp/pressed /tmp/mine | tr '\n' ' ')
	[ -z "$extra" ] || fail "skind's taxels not pressed in the truth: $extra"
	echo "ok: $(wc -l </tmp/mine) touched taxels, all under a finger of the truth"
	grep -o '"cop":\[[^]]*\]' /tmp/now.json | sed 's/.*\[//; s/\]//; s/,/ /g' >/tmp/cops
	while read -r x y z; do
		best=
		for n in "$@"; do
			set -- $(truth_centre "$n") "$@"
			d=$(awk -v x="$x" -v y="$y" -v z="$z" -v cx="$1" -v cy="$2" -v cz="$3" -v r="$4" \
				'BEGIN { d = (x-cx)*(x-cx) + (y-cy)*(y-cy) + (z-cz)*(z-cz); print (d <= r*r) ? "in" : "out" }')
			shift 4
			[ "$d" = in ] && best=$n
		done
		[ -n "$best" ] || fail "a contact's CoP ($x $y $z) is under no finger of the truth"
		echo "ok: a CoP ($x $y $z) under finger $best"
	done </tmp/cops
}

echo "--- one finger"
wait_contacts 1 60
check_contacts a
echo "--- two fingers"
wait_contacts 2 60
check_contacts a b
n=$(ncontacts)
[ "$n" -eq 2 ] || fail_skind "contacts while two fingers press: $n: $(q 'contacts left_forearm')"
echo "--- one lifts, then the other"
wait_contacts 1 60
wait_contacts 0 60
q status

# evtest flushes its output on SIGTERM (its handler); no wait: a
# pipeline's other members may linger until the case ends
kill $evt $watch $sub 2>/dev/null || true
sleep 1

# the subscriber and skinctl saw all of it, one line per publication
for f in /tmp/sub.log /tmp/watch.log; do
	one=$(grep -c '^contacts left_forearm [0-9 ]*(((' $f || true)
	two=$(grep '^contacts left_forearm' $f | grep -c ') ((' || true)
	none=$(grep -c '^contacts left_forearm [0-9 ]*()$' $f || true)
	echo "$f: $(wc -l <$f) lines, $one with contacts, $two with two, $none with none"
	[ "$one" -gt 10 ] && [ "$two" -gt 5 ] && [ "$none" -ge 1 ] ||
		fail "$f: the touches did not all reach the subscriber"
done
# latency on this (emulated) machine: CAN frame to skind's publication
awk '$1 == "contacts" { d = ($5 - $4) / 1e6; s += d; n++; if (d > m) m = d }
	END { printf "frame -> publication: mean %.3f ms, max %.3f ms over %d\n", s / n, m, n }' /tmp/sub.log

# evtest saw the fingers land and lift, with tracking ids and pressure
grep -q 'ABS_MT_TRACKING_ID), value [0-9]' /tmp/evtest.log || { head -40 /tmp/evtest.log; fail "evtest: no touch"; }
grep -q 'ABS_MT_TRACKING_ID), value -1' /tmp/evtest.log || fail "evtest: no lift"
# (the first finger may land before evtest starts; the last lift is after)
grep -q 'BTN_TOUCH), value 0' /tmp/evtest.log || {
	grep -m 12 'BTN_TOUCH\|Event: time' /tmp/evtest.log
	fail "evtest: no BTN_TOUCH"
}
grep -q 'ABS_MT_PRESSURE), value [1-9]' /tmp/evtest.log || fail "evtest: no pressure"
ids=$(grep -o 'ABS_MT_TRACKING_ID), value [0-9]*' /tmp/evtest.log | sort -u | wc -l)
echo "ok: evtest: $ids tracking ids, touches and lifts"
[ "$ids" -ge 2 ] || fail "evtest: two fingers should have two tracking ids"

echo "--- a patch disabled and enabled again is re-attached"
attached() {	# attached PATCH: yes or no, from skind's parts
	q parts | awk -v p="$1" '$1 == "patch" && $3 == p { print ($8 == "attached") ? "yes" : "no" }'
}
wait_attached() {	# wait_attached yes|no WHY: left_hand's state, 20 s at most
	i=0
	until [ "$(attached left_hand)" = "$1" ]; do
		i=$((i + 1))
		[ $i -lt 80 ] || fail_skind "left_hand: attached is not '$1' 20 s after $2"
		sleep 0.25
	done
}
echo 0 >$CFG/left_hand/enable
wait_attached no "its patch was disabled"
echo "ok: detached (POLLHUP)"
echo 1 >$CFG/left_hand/enable
wait_attached yes "its patch was enabled again"
echo "ok: attached again"

kill $skind
wait $skind || { tail -20 /tmp/skind.log; fail "skind exited non-zero"; }
[ ! -e $SOCK ] || fail "the socket is left behind"
kill $sim 2>/dev/null || true
wait $sim 2>/dev/null || true
grep -c 'detached\|overloaded' /tmp/skind.log || true

for name in left_hand left_forearm.0 left_forearm.1; do
	rmdir "$CFG/$name"
done
skin_unload
vcan_del vcan0
