# skinsim's boards on vcan0, configured by the driver: the samples in
# /dev/skin/* are skinsim's ground truth bit for bit (values, refreshed
# masks, counts); a board is silent until SET_TXMODE(on) and stops on
# SET_TXMODE(off); a log skinsim wrote plays through canplayer and through
# skinsim --replay (back to back) to the samples of its own ground truth.
. /cases/lib.sh

CONF=/etc/skin/examples/sim-vcan.conf
SCN=/etc/skin/scenarios/single-touch.scn

vcan_add vcan0
skin_load
skinsim --list --config $CONF | grep -v '^#' >/tmp/boards
cat /tmp/boards
expect_eq boards "$(wc -l </tmp/boards)" 3

# The driver's patches: one per board, with the triangles the skin has.
# Boards every 250 ms (real ones: 50): the driver times a sample out at
# 1.5 periods, and the emulated machine, loaded, has stalled a sender for
# 290 ms in the middle of a period; what this case checks is values,
# masks and counts, not timing.
while read -r name bus addr _ _ present; do
	patch_create "$name" interface="$bus" address="$addr" \
		triangles="0x$present" period_ms=250 ring_frames=1024
done </tmp/boards

echo "--- 1. the driver starts skinsim's boards; the rings are the truth"
# The senders run on one CPU: vcan hands a frame to the backlog of the CPU
# that sent it, so a sender that migrates between two periods can have the
# later period processed first when the earlier CPU's softirq is deferred
# to ksoftirqd (seen under TCG: two samples swapped, none partial).  A real
# controller delivers from one interrupt, in order.
taskset 1 skinsim --config $CONF --truth /tmp/truth --can --log /tmp/sent.log \
	--duration 4s -v $SCN 2>/tmp/sim.err &
sim=$!
# the boards must be listening before the driver configures them
sim_ready /tmp/sim.err
while read -r name _; do
	patch_enable "$name"
	echo "0 0 0" >"/tmp/base.$name"		# a new patch counts from 0
done </tmp/boards
wait $sim || { cat /tmp/sim.err; fail "skinsim failed"; }
grep -v 'SET_' /tmp/sim.err || true
# every board was told its configuration and to stream, exactly once
for name in $(field 1 </tmp/boards); do
	expect_eq "$name start-up" "$(grep -c "^skinsim: $name: SET_TXMODE(on)" /tmp/sim.err)" 1
	expect_eq "$name malformed" "$(grep -c "^skinsim: $name: malformed" /tmp/sim.err)" 0
done
sleep 0.3
while read -r name _; do
	ring_check "$name" /tmp/truth
done </tmp/boards
# what skinsim recorded sending: every frame of the truth, as candump -l
expect_eq "frames recorded" "$(grep -c '^([0-9]*\.[0-9]\{6\}) vcan0 4[CDE][0-9A-F]#[4C]0[0-9A-F]\{14\}$' /tmp/sent.log)" \
	"$(( $(awk '$1 == "frame"' /tmp/truth | popsum 6) + $(awk '$1 == "frame"' /tmp/truth | popsum 7) ))"
pressed=$(awk '$1 == "taxel" && $2 == "left_forearm.0" && $6 < 200' /tmp/truth | wc -l)
[ "$pressed" -gt 0 ] || fail "the touch pressed no taxel below 200"
echo "ok: the touch reached the ring ($pressed pressed taxel samples)"

echo "--- 2. silent until SET_TXMODE(on), silent again after SET_TXMODE(off)"
skinsim --config $CONF -v 2>/tmp/sim2.err &
sim=$!
sim_ready /tmp/sim2.err
f0=$(stat left_hand frames)
g0=$(stat left_forearm.0 frames)
sleep 1
expect_eq "no samples before SET_TXMODE(on)" "$(stat left_hand frames)" "$f0"
skinctl start /dev/skin/left_hand
sleep 2
f1=$(stat left_hand frames)
[ "$f1" -ge $((f0 + 4)) ] || fail "left_hand: $f0 -> $f1 frames after SET_TXMODE(on)"
echo "ok: streaming after SET_TXMODE(on): $f0 -> $f1"
skinctl stop /dev/skin/left_hand
# (once the board has heard it, and its last frames have arrived)
wait_until "SET_TXMODE(off) heard" "grep -q 'left_hand: SET_TXMODE(off)' /tmp/sim2.err"
sleep 0.5
f2=$(stat left_hand frames)
sleep 1
expect_eq "no samples after SET_TXMODE(off)" "$(stat left_hand frames)" "$f2"
expect_eq "the boards not started stayed silent" "$(stat left_forearm.0 frames)" "$g0"
expect_eq "partial samples" "$(stat left_hand frames_partial)" 0
kill $sim
wait $sim || true
cat /tmp/sim2.err
expect_eq "SET_TXMODE(on) seen" "$(grep -c 'left_hand: SET_TXMODE(on)' /tmp/sim2.err)" 1
expect_eq "SET_TXMODE(off) seen" "$(grep -c 'left_hand: SET_TXMODE(off)' /tmp/sim2.err)" 1

echo "--- 3. a skinsim log through canplayer and through skinsim --replay"
cat >/tmp/touch.scn <<EOF
config $CONF
seed 99
duration 1s
at 0.2s press left_forearm taxel 300 radius 12mm force 90 name f
at 0.6s move f to taxel 290 over 0.3s
EOF
skinsim --log /tmp/touch.log --truth /tmp/touch.truth --fast --epoch 1000 /tmp/touch.scn
head -n 2 /tmp/touch.log
# Played back to back, and the patches' period at its maximum (a timeout
# of 382 ms): this part checks values, masks and order, not timing, and
# the emulated machine (TCG, the RT kernel above all) can stall a sender
# for longer than 1.5 board periods in the middle of a sample.
while read -r name _; do
	patch_disable "$name"
	patch_set "$name" period_ms=255
	patch_enable "$name"
done </tmp/boards
for player in canplayer skinsim; do
	ring_snapshot $(field 1 </tmp/boards)
	if [ $player = canplayer ]; then
		taskset 1 canplayer -t -I /tmp/touch.log
	else
		taskset 1 skinsim --replay /tmp/touch.log --fast
	fi
	sleep 0.3
	while read -r name _; do
		ring_check "$name" /tmp/touch.truth
	done </tmp/boards
	echo "ok: $player"
done

# a damaged log: the bad line is named, the rest still played
sed '3s/#/:/' /tmp/touch.log >/tmp/bad.log
if skinsim --replay /tmp/bad.log --fast 2>/tmp/bad.err; then
	fail "a damaged log replayed without complaint"
fi
cat /tmp/bad.err
grep -q '^skinsim: /tmp/bad.log:3:' /tmp/bad.err || fail "the bad line is not named"

while read -r name _; do
	rmdir "$CFG/$name"
done </tmp/boards
skin_unload
vcan_del vcan0
