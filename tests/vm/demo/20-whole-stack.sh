# make demo, part 2: the whole stack.  skinsim plays three boards of a left
# arm on vcan0 (etc/scenarios/demo.scn); skind creates the driver's
# patches, the driver starts the boards, skind calibrates and turns the
# samples into contacts; skinctl shows them as a user would.
. /cases/lib.sh

say() {
	echo
	echo "### $*"
}

CONF=/etc/skin/examples/demo.conf
SOCK=/run/skin/skind.sock
VIEW="--config $CONF --once --no-color --size 78x18"

say "skinsim: three boards on vcan0, silent until the driver starts them"
vcan_add vcan0
skin_load
mkdir -p /run/skin /tmp/state
skinsim -v /etc/skin/scenarios/demo.scn 2>/tmp/sim.err &
sim=$!
sim_ready /tmp/sim.err
cat /tmp/sim.err

say "skind: creates its patches in configfs, reads /dev/skin, calibrates"
skind -c $CONF --state-dir /tmp/state >/tmp/skind.log 2>&1 &
skind=$!
i=0
until skinctl status 2>/dev/null | grep -q 'calibrated 2 '; do
	i=$((i + 1))
	[ $i -lt 120 ] || { cat /tmp/skind.log; fail "skind did not calibrate"; }
	sleep 0.25
done
ls -l /dev/skin/
grep -v 'debug:' /tmp/skind.log
skinctl status

# what a user would look at, every 2 s of the scenario
show() {
	say "$1"
	skinctl view "$2" $VIEW | sed 's/ *$//'
	skinctl contacts "$2" | cut -c 1-150
}
# the scenario's clock, in the hand's samples (one per 50 ms period)
at() {
	n=0
	until [ "$(skinctl status | awk '$1 == "part" && $2 == "left_hand" { for (i = 3; i < NF; i++) if ($i == "samples") print $(i + 1) }')" -ge "$1" ]; do
		n=$((n + 1))
		[ $n -lt 600 ] || fail "skind stopped publishing"
		sleep 0.1
	done
}
at 110; show "one finger on the forearm (5.5 s)" left_forearm
at 170; show "it slides (8.5 s)" left_forearm
at 230; show "a second finger (11.5 s)" left_forearm
at 310; show "both lifted (15.5 s)" left_forearm
at 380; show "a palm press on the hand (19 s)" left_hand

say "the same contacts as skinManager's bottle and as JSON, over the socket"
printf 'contacts left_hand\nformat json\ncontacts left_hand\n' |
	socat -t 2 - UNIX-CONNECT:$SOCK | cut -c 1-200

wait $sim
say "the end: skind's counters"
skinctl status
kill $skind
wait $skind || true
for p in $(ls $CFG); do
	rmdir "$CFG/$p"
done
skin_unload
vcan_del vcan0
