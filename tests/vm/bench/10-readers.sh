# The VM benchmark of docs/PERFORMANCE.md: CPU per delivered sample for
# (a) readers of the mmap rings and (b) the same samples assembled in user
# space from CAN_RAW sockets with the same filters, at 1 and 8 buses
# saturated by skin_flood (9,000 frames/s each, one 16-triangle board).
# Prints "BENCH ..." lines of key=value pairs; scripts/bench-vm collects
# them.  Not a test: nothing here asserts a time.
. /cases/lib.sh

secs=${BENCH_SECONDS:-5}
skin_load

# Frames the kernel dropped before any protocol saw them: the second
# column of /proc/net/softnet_stat (hex, one line per CPU) is the
# netif_rx() backlog overflows, where vcan's loopback queues its frames.
softnet_dropped() {
	d=0
	while read -r _ drop _; do
		d=$((d + 0x$drop))
	done </proc/net/softnet_stat
	echo $d
}

run() {
	n=$1
	side=$2
	i=0
	while [ $i -lt "$n" ]; do
		skin_flood --rate 9000 --duration $((secs + 1)) --board 14 "vcan$i" >"/tmp/flood$i" &
		i=$((i + 1))
	done
	sleep 0.5
	drop0=$(softnet_dropped)
	# a: the rings, woken by each new sample; b: CAN_RAW, one recvmsg()
	# per frame, as most users write it; c: recvmmsg() of up to 32 frames,
	# the most a user could batch.  ta, tc: a and c waking every 10 ms
	# (a 100 Hz control loop) instead of on every sample or frame.  wa: a
	# with wakeup moderation, woken once per 4 samples per ring, bounded
	# at 20 ms (5.6 sample periods of 3.6 ms, so the batch fills first).
	mode=
	case $side in
	t*) mode="--tick 10" ;;
	w*) mode="--wakeup 4,20000" ;;
	esac
	if [ "$side" = a ] || [ "$side" = ta ] || [ "$side" = wa ]; then
		devs=""
		i=0
		while [ $i -lt "$n" ]; do devs="$devs /dev/skin/b$i"; i=$((i + 1)); done
		out=$(ring_reader --duration "$secs" $mode $devs | tail -n 1)
	else
		batch=1
		[ "$side" != b ] && batch=32
		ifs=""
		i=0
		while [ $i -lt "$n" ]; do ifs="$ifs vcan$i"; i=$((i + 1)); done
		out=$(raw_reader --duration "$secs" --board 14 --batch $batch $mode $ifs | tail -n 1)
	fi
	wait
	backlog_dropped=$(($(softnet_dropped) - drop0))
	sent=0
	i=0
	while [ $i -lt "$n" ]; do
		s=$(tr ' ' '\n' <"/tmp/flood$i" | sed -n 's/^sent=//p')
		sent=$((sent + ${s:-0}))
		i=$((i + 1))
	done
	echo "BENCH buses=$n side=$side flood_sent=$sent backlog_dropped=$backlog_dropped $out"
}

for n in 1 8; do
	i=0
	while [ $i -lt $n ]; do
		vcan_add "vcan$i"
		patch_create "b$i" interface="vcan$i" address=14 ring_frames=1024
		patch_enable "b$i"
		i=$((i + 1))
	done
	sleep 0.6		# the boards' start-up
	run $n a
	# the driver's own account: frames it received and samples it made
	rx=0
	fr=0
	i=0
	while [ $i -lt $n ]; do
		rx=$((rx + $(stat "b$i" rx_head) + $(stat "b$i" rx_tail)))
		fr=$((fr + $(stat "b$i" frames)))
		i=$((i + 1))
	done
	echo "BENCH buses=$n side=driver rx_frames=$rx samples=$fr"
	run $n b
	run $n c
	run $n ta
	run $n tc
	run $n wa
	i=0
	while [ $i -lt $n ]; do
		rmdir "$CFG/b$i"
		vcan_del "vcan$i"
		i=$((i + 1))
	done
done
skin_unload
