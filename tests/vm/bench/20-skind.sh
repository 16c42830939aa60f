# skind's latency and fan-out (docs/DAEMON.md, docs/PERFORMANCE.md): in one
# run, a sample's last CAN frame to (a) a process reading CAN_RAW itself,
# (b) a subscriber of skind's socket, (c) a reader of skind's shared
# memory; then skind's CPU with 64 more subscribers and 64 more shm
# readers; then each path again with no other measured reader.  Prints
# "BENCH ..." lines; asserts nothing.
. /cases/lib.sh

samples=${BENCH_SAMPLES:-1000}
CONF=/tmp/bench-skind.conf
cat >$CONF <<CFG
[skind]
calibration_s = 0.5

[board]
period_ms = 10

[bus vcan0]

[part left_hand]
layout = hand_v2_1
patches = vcan0:14
CFG

vcan_add vcan0
skin_load
mkdir -p /run/skin /tmp/bench-state
# the 64 + 2 clients are all root's: over the default per-user share (64)
skind -c $CONF --state-dir /tmp/bench-state --no-evdev --max-clients 256 \
	--max-user-clients 256 >/tmp/skind.log 2>&1 &
skind=$!
i=0
until [ -e /sys/class/skin/left_hand/triangles ] && [ -S /run/skin/skind.sock ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat /tmp/skind.log; fail "skind did not start"; }
	sleep 0.1
done
tri=$(cat /sys/class/skin/left_hand/triangles)
echo "BENCH setup board=14 triangles=$tri period_ms=10 samples=$samples"
skind_bench --ifname vcan0 --board 14 --triangles "$tri" --part left_hand \
	--pid $skind --samples "$samples" --period-ms 10 --fanout 64
# each path with no other measured reader: on one CPU (scripts/bench-vm
# --icount) the readers of the run above wait for each other's work
for only in raw socket shm follow; do
	skind_bench --ifname vcan0 --board 14 --triangles "$tri" --part left_hand \
		--pid $skind --samples "$samples" --period-ms 10 --fanout 0 --only $only |
		sed -n "s/^BENCH phase=alone \(path=\($only\|skind_hop\|${only}_from_publish\) n=[1-9]\)/BENCH phase=only-$only \1/p"
done
echo "BENCH skind $(echo status | socat -t 5 - UNIX-CONNECT:/run/skin/skind.sock | head -n 1)"
kill $skind
wait $skind || true
rmdir "$CFG/left_hand"
skin_unload
vcan_del vcan0
