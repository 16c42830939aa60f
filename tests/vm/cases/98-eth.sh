# The ETH boards end to end (docs/ETH.md): skinsim's ETH boards in a
# "robot" network namespace send their ropframes over a veth to the head
# PC (10.0.1.104:12345), where udpsink owns the port as yarprobotinterface
# does; skin-eth taps the datagrams through a packet socket and writes the
# MTB frames onto one vcan per board CAN port; skin.ko's listen-only
# patches (created by skind from a [bus] listen_only = yes) publish them.
# The rings are skinsim's ground truth bit for bit, the process owning the
# port got every datagram, and the driver sent the boards nothing.  Then
# the faults: lost datagrams, a board silent and back, a board restarted,
# every malformed kind, a spoofed source, the gateway killed and
# restarted, the head PC's interface down and up.
. /cases/lib.sh

fail_context() {
	echo "the gateway's counters:"
	cat /run/skin-eth/counters 2>/dev/null
	echo "the gateway said:"
	tail -n 10 /tmp/gw.err 2>/dev/null
	echo "skinsim said:"
	tail -n 10 /tmp/sim.err 2>/dev/null
}

phase() {	# a phase's title, with the guest's uptime
	echo "--- $* (at $(cut -d ' ' -f 1 /proc/uptime) s)"
}

CONF=/tmp/eth.conf
SOCK=/run/skin/skind.sock
BOARDS="--board eb24=10.0.1.24:1 --board eb10=10.0.1.10:1,2"
# Boards every 250 ms, as in 95-sim: what this case checks is values and
# counts, and the emulated machine can stall a sender for more than 1.5
# periods of a real board.
cat >$CONF <<EOF
[skind]
calibration_s = 1

[board]
period_ms = 250
no_load = 0xf0
shift = 2

[bus eb24can1]
listen_only = yes

[bus eb10can2]
listen_only = yes

[part left_hand]
skin_part = left_hand
layout = hand_v2_1
geometry = /etc/skin/icub/positions/left_hand_V2_1.txt
patches = eb24can1:14

[part left_forearm]
skin_part = left_forearm
layout = forearm_v2
geometry = /etc/skin/icub/positions/left_forearm_V2.txt
patches = eb10can2:13 eb10can2:12
EOF
PATCHES="left_hand left_forearm.0 left_forearm.1"

phase "the robot's network, the port's owner, the gateway, skind"
robot_net 10.0.1.24 10.0.1.10 10.0.1.99	# two boards and a spoofer

udpsink 10.0.1.104 12345 /tmp/owner.count 2>/tmp/owner.err &
owner=$!
wait_until "udpsink owning 12345" "[ -s /tmp/owner.count ]"

# the 4 MiB the gateway asks for its packet socket (docs/ETH.md): the
# emulated machine stalls it for longer than the default's 200 kB hold
echo 8388608 >/proc/sys/net/core/rmem_max
skin-eth --setup $BOARDS
for ifname in eb24can1 eb10can1 eb10can2; do
	[ -d /sys/class/net/$ifname ] || fail "skin-eth --setup did not create $ifname"
done
echo "ok: skin-eth --setup created eb24can1 eb10can1 eb10can2"

# gateway GATEWAY_LOG: skin-eth on veth0 in the background (its pid in $gw)
mkdir -p /run/skin-eth
gateway() {
	rm -f /run/skin-eth/counters
	skin-eth --interface veth0 $BOARDS --log "$1" --counters /run/skin-eth/counters \
		2>>/tmp/gw.err &
	gw=$!
	wait_until "skin-eth running" "[ -s /run/skin-eth/counters ]"
}
gateway /tmp/gw1.log

skin_load
mkdir -p /run/skin /tmp/state
skind -c $CONF --state-dir /tmp/state -v >/tmp/skind.log 2>&1 &
skind=$!
q() {	# q COMMAND: skind's reply, data lines only
	echo "$1" | socat -t 5 - UNIX-CONNECT:$SOCK | grep -v '^ok'
}
wait_until "skind attaching 3 patches" "q status 2>/dev/null | grep -q 'patches 3 attached 3'"
for name in $PATCHES; do
	expect_eq "$name listen_only" "$(cat $CFG/$name/listen_only)" 1
	echo "0 0 0" >"/tmp/base.$name"
done

phase "1. skinsim's ETH boards -> skin-eth -> vcan -> skin.ko -> skind"
cat >/tmp/eth.scn <<EOF
config $CONF
seed 28
duration 8s
at 2s press left_forearm taxel 300 radius 10mm force 90 name a
EOF
robot skinsim --eth $BOARDS --head 10.0.1.104 --truth /tmp/truth \
	--pcap /tmp/sent.pcap /tmp/eth.scn 2>/tmp/sim.err ||
	{ cat /tmp/sim.err; fail "skinsim --eth failed"; }
sleep 1
for name in $PATCHES; do
	ring_check "$name" /tmp/truth
	expect_eq "$name board commands sent" "$(stat "$name" tx_commands)" 0
done

# the port's owner got every datagram skinsim sent, byte for byte
skin-eth --replay /tmp/sent.pcap $BOARDS --log /tmp/want.log 2>/tmp/want.err
cat /tmp/want.err
sent=$(awk '$1 == "capture:" && $2 == "packets" { print $3 }' /tmp/want.err)
[ "${sent:-0}" -gt 1000 ] || fail "skinsim sent only '$sent' datagrams"
# (what its own full buffer dropped, which the emulated machine can
# cause, never reached it whoever else reads the wire: counted apart)
got=$(awk '$1 == "all" { print $2 }' /tmp/owner.count)
dropped=$(awk '$1 == "dropped" { print $2 }' /tmp/owner.count)
[ "$dropped" -eq 0 ] || echo "note: the owner's own socket buffer dropped $dropped datagrams"
expect_eq "datagrams the port's owner received or dropped itself" "$((got + dropped))" "$sent"

# the gateway's frames are the frames of the capture, interface for
# interface, in order (the times are the wire's, not the capture's)
cut -d ' ' -f 2- /tmp/want.log >/tmp/want.frames
cut -d ' ' -f 2- /tmp/gw1.log >/tmp/got.frames
if ! cmp -s /tmp/want.frames /tmp/got.frames; then
	diff /tmp/want.frames /tmp/got.frames | head -n 20
	fail "the gateway's frames differ from those of skinsim's capture"
fi
echo "ok: $(wc -l </tmp/got.frames) frames, the capture's, in order"

# skind saw the press: a contact on the forearm, its taxels pressed in
# the truth
pressed=$(awk '$1 == "taxel" && NF >= 6 && $5 > 0 { print $4 }' /tmp/truth | sort -un | wc -l)
[ "$pressed" -gt 0 ] || fail "the truth has no pressed taxel"
q "parts" | grep -q 'listen_only 1' || { q parts; fail "skind does not say its patches are listen-only"; }
echo "ok: skind: $(q status)"

phase "2. faults"
# A long run for the faults; the rings are no longer compared with the
# truth, the counters are.
cat >/tmp/long.scn <<EOF
config $CONF
seed 29
duration 300s
EOF
counter() {	# counter KIND NAME KEY: the gateway's counter, from its file
	awk -v c="$1" -v b="$2" -v k="$3" '$1 == c && $2 == b {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' \
		/run/skin-eth/counters
}
sim_start() {	# ($! is skinsim's pid: ip netns exec execs it, a function would not)
	/usr/bin/ip netns exec robot skinsim --eth $BOARDS --head 10.0.1.104 /tmp/long.scn \
		2>>/tmp/sim.err &
	sim=$!
}
sim_start
wait_until "left_hand streaming" "[ \$(stat left_hand frames) -gt $(stat left_hand frames) ]"

phase "2a. lost datagrams"
# lost datagrams: the network drops a fifth of them for 2 s
lost0=$(counter board eb24 lost)
robot /usr/bin/tc qdisc add dev veth1 root netem loss 20%
sleep 2
robot /usr/bin/tc qdisc del dev veth1 root
wait_until "eb24's lost datagrams counted" "[ \$(counter board eb24 lost) -gt $lost0 ]"
echo "ok: eb24 lost $(( $(counter board eb24 lost) - lost0 )) datagrams, counted"

phase "2b. a board silent and back"
# a board silent for 2 s (every datagram lost), then back
t0=$(stat left_hand timeouts)
f0=$(stat left_hand frames)
robot /usr/bin/tc qdisc add dev veth1 root netem loss 100%
sleep 2
wait_until "skind saying left_hand is silent" "q 'parts left_hand' | grep -q 'silent 1'"
robot /usr/bin/tc qdisc del dev veth1 root
f1=$(stat left_hand frames)
wait_until "left_hand back" "[ \$(stat left_hand frames) -gt $((f1 + 2)) ]"
wait_until "skind saying left_hand is live" "q 'parts left_hand' | grep -q 'silent 0'"
echo "ok: left_hand silent and back (frames $f0 -> $f1 -> $(stat left_hand frames), timeouts $t0 -> $(stat left_hand timeouts))"

phase "2c. a board restarted"
# a board restarted: its sequence number starts again
reset0=$(counter board eb24 resets)
kill $sim
wait $sim 2>/dev/null || true
sim_start
wait_until "the restart counted" "[ \$(counter board eb24 resets) -gt $reset0 ]"
echo "ok: skinsim restarted: eb24 reset counted"
kill $sim
wait $sim 2>/dev/null || true

phase "2d. malformed and foreign datagrams"
# every malformed kind, from a board's own address while it is quiet, and
# a sound datagram from an address that is no board
hexsend() {	# hexsend FROM HEX: one datagram of those bytes from FROM
	printf "$(echo "$2" | sed 's/../\\x&/g')" >/tmp/dgram
	robot socat -u FILE:/tmp/dgram UDP4-SENDTO:10.0.1.104:12345,bind="$1"
}
# the header of a datagram of ROP bytes B (LE16 hex) and count C
hdr() {
	echo "78563412${1}${2}0000000000000000${3:-6400000000000000}"
}
end=21436587
# a skin ROP: say, endpoint 3, patch 0, tag 2, one item (id 0x4E0, length 8)
rop_ok=0002 rop_sz=0e00 rop_id=02000003 item=e0840102030405060708 arr=180a0100
good_rop="${rop_ok}${rop_sz}${rop_id}${arr}${item}0000"
good=$(hdr 1800 0100 0a00000000000000)${good_rop}${end}
sums() { for v in truncated bad_start bad_size bad_end bad_rop_size bad_rop_code bad_item_len foreign; do
	echo "$v $(counter board "$1" "$v")"; done; }
sums eb24 >/tmp/before
hexsend 10.0.1.24 "785634120000"					# truncated
hexsend 10.0.1.24 "$(echo "$good" | sed 's/^78563412/11223344/')"	# bad_start
hexsend 10.0.1.24 "${good}00000000"					# bad_size
hexsend 10.0.1.24 "$(echo "$good" | sed 's/21436587$/21436500/')"	# bad_end
hexsend 10.0.1.24 "$(hdr 1800 0100 0b00000000000000)0002f000${rop_id}${arr}${item}0000${end}"	# bad_rop_size
hexsend 10.0.1.24 "$(hdr 1800 0100 0c00000000000000)0009${rop_sz}${rop_id}${arr}${item}0000${end}"	# bad_rop_code
hexsend 10.0.1.24 "$(hdr 1800 0100 0d00000000000000)${rop_ok}${rop_sz}${rop_id}${arr}e09401020304050607080000${end}" # bad_item_len
sleep 1
sums eb24 >/tmp/after
cat /tmp/after
for v in truncated bad_start bad_size bad_end bad_rop_size bad_rop_code bad_item_len; do
	expect_eq "eb24 $v" "$(awk -v v=$v '$1 == v { print $2 }' /tmp/after)" \
		"$(( $(awk -v v=$v '$1 == v { print $2 }' /tmp/before) + 1 ))"
done
f0=$(stat left_hand frames)
frames0=$(grep -c . /tmp/gw1.log)
# (kept out by the kernel's filter, and counted there: docs/ETH.md)
f1=$(counter capture - foreign_filtered)
hexsend 10.0.1.99 "$good"		# a spoofed source: not a board
wait_until "the spoofed datagram counted" "[ \$(counter capture - foreign_filtered) -gt $f1 ]"
sleep 0.5
expect_eq "frames published from bad datagrams" "$(grep -c . /tmp/gw1.log)" "$frames0"
expect_eq "left_hand samples from bad datagrams" "$(stat left_hand frames)" "$f0"

phase "2e. the gateway killed and restarted, veth0 down and up"
# the gateway killed and restarted; the head PC's interface down and up
sim_start
kill -9 $gw
wait $gw 2>/dev/null || true
# the port's owner does not depend on the gateway
n=$(awk '$1 == "all" { print $2 }' /tmp/owner.count)
wait_until "datagrams to the owner with no gateway" \
	"[ \$(awk '\$1 == \"all\" { print \$2 }' /tmp/owner.count) -gt $((n + 100)) ]"
gateway /tmp/gw2.log
wait_until "frames through the new gateway" "[ -s /tmp/gw2.log ]"
ip link set veth0 down
sleep 1
n=$(wc -l </tmp/gw2.log)
ip link set veth0 up
wait_until "frames after veth0 is up again" "[ \$(wc -l </tmp/gw2.log) -gt $((n + 10)) ]"
kill -0 $gw || fail "the gateway did not survive its interface going down"
echo "ok: the gateway restarted, and survived veth0 down and up"
# a board's CAN interface down: its frames dropped, counted; then up
d0=$(counter interface eb24can1 dropped)
ip link set eb24can1 down
wait_until "eb24can1's frames dropped" "[ \$(counter interface eb24can1 dropped) -gt $d0 ]"
ip link set eb24can1 up
f0=$(counter interface eb24can1 frames)
wait_until "eb24can1's frames again" "[ \$(counter interface eb24can1 frames) -gt $f0 ]"
kill -0 $gw || fail "the gateway did not survive eb24can1 going down"
echo "ok: eb24can1 down and up: $(( $(counter interface eb24can1 dropped) - d0 )) frames dropped, counted"

kill $sim
wait $sim 2>/dev/null || true
kill $gw $skind $owner
wait $gw $skind $owner 2>/dev/null || true
cat /tmp/gw.err
for name in $PATCHES; do
	expect_eq "$name board commands sent" "$(stat "$name" tx_commands)" 0
done
for name in $PATCHES; do
	[ -d "$CFG/$name" ] && rmdir "$CFG/$name"
done
skin_unload
for ifname in eb24can1 eb10can1 eb10can2; do
	vcan_del $ifname
done
ip netns del robot
