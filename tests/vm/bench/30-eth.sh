# The ETH gateway's cost (docs/PERFORMANCE.md, "The ETH gateway"), in
# one run: (1) the latency a sample's datagram takes through skin-eth to
# the driver's ring, against its frames written straight to the vcan
# (bench/eth_latency); (2) the CPU of a full-body robot's ETH traffic:
# etc/skind.conf's 7 parts (18 MTB boards) on three ETH boards as on an
# iCub (eb24 left arm, eb27 right arm, eb22 torso) and 17 boards of
# motion control only, every board a datagram every ms.  Phases of
# BENCH_SECONDS each, the traffic the same: no gateway; the gateway with
# no CAN output; the gateway onto vcan; each with the port's owner
# (udpsink) reading every datagram.  Prints "BENCH ..." lines; asserts
# nothing.
. /cases/lib.sh

seconds=${BENCH_SECONDS:-20}
SKIN="--board eb24=10.0.1.24:1 --board eb27=10.0.1.27:1 --board eb22=10.0.1.22:1"
MC=
mc_addrs=
for n in 1 2 3 4 5 6 7 8 9 12 13 14 15 16 17 18 19; do
	MC="$MC --board eb$n=10.0.1.$n:1"
	mc_addrs="$mc_addrs 10.0.1.$n"
done

robot_net 10.0.1.24 10.0.1.27 10.0.1.22 $mc_addrs
udpsink 10.0.1.104 12345 /tmp/owner.count &
owner=$!
skin-eth --setup $SKIN
skin_load

# tick PID: its utime + stime, in clock ticks
ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
# busy: the machine's busy ticks, every CPU (not idle, iowait, steal)
busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}
hz=100	# USER_HZ: the ticks of /proc/PID/stat and /proc/stat

echo "--- 1. latency: one sample, its datagram through the gateway vs its frames on vcan"
patch_create lh interface=eb24can1 address=14 triangles=0x0001 period_ms=255 \
	ring_frames=1024 listen_only=1
patch_enable lh
mkdir -p /run/skin-eth
# gateway ARGS...: skin-eth on veth0 in the background, its pid in $gw
gateway() {
	rm -f /run/skin-eth/counters
	skin-eth --interface veth0 $SKIN --counters /run/skin-eth/counters "$@" 2>>/tmp/gw.err &
	gw=$!
	wait_until "skin-eth running" "[ -s /run/skin-eth/counters ]"
}
for mode in each-packet ring-ms-1; do
	if [ $mode = each-packet ]; then gateway; else gateway --ring-ms 1; fi
	echo "BENCH eth_latency mode=$mode"
	eth_latency --ifname eb24can1 --board 14 --device /dev/skin/lh --netns /run/netns/robot \
		--from 10.0.1.24 --head 10.0.1.104 --samples "${BENCH_SAMPLES:-1000}" --period-ms 10
	kill $gw
	wait $gw || true
done
patch_disable lh
rmdir $CFG/lh

echo "--- 2. CPU: a full-body robot's traffic, $seconds s a phase"
sed 's/\bcan0\b/eb24can1/g; s/\bcan1\b/eb27can1/g; s/\bcan2\b/eb22can1/g;
     s#^geometry = #geometry = /etc/skin/#' /etc/skin/skind.conf >/tmp/body.conf
printf 'config /tmp/body.conf\nseed 30\n' >/tmp/body.scn
/usr/bin/ip netns exec robot skinsim --eth $SKIN $MC --head 10.0.1.104 /tmp/body.scn 2>/tmp/sim.err &
sim=$!
sleep 2
for phase in none no-can vcan; do
	case $phase in
	none) gw= ;;
	no-can) gateway --no-can ;;
	vcan) gateway ;;
	esac
	d0=$(awk '$1 == "all" { print $2 }' /tmp/owner.count)
	b0=$(busy) o0=$(ticks $owner) s0=$(ticks $sim) g0=${gw:+$(ticks $gw)}
	sleep "$seconds"
	d1=$(awk '$1 == "all" { print $2 }' /tmp/owner.count)
	b1=$(busy) o1=$(ticks $owner) s1=$(ticks $sim) g1=${gw:+$(ticks $gw)}
	echo "BENCH eth_cpu phase=$phase seconds=$seconds datagrams=$((d1 - d0))" \
		"busy_ticks=$((b1 - b0)) owner_ticks=$((o1 - o0)) sim_ticks=$((s1 - s0))" \
		"gateway_ticks=${gw:+$((g1 - g0))} hz=$hz"
	if [ -n "$gw" ]; then
		kill $gw
		wait $gw || true
		grep -E '^(capture|board eb2[247]|interface)' /run/skin-eth/counters | sed 's/^/BENCH eth_counters /'
	fi
done
kill $sim $owner
wait $sim $owner || true
skin_unload
for ifname in eb24can1 eb27can1 eb22can1; do
	vcan_del $ifname
done
ip netns del robot
