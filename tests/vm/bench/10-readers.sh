# The VM benchmark of docs/PERFORMANCE.md: CPU per delivered sample for
# (a) readers of the mmap rings and (b) the same samples assembled in user
# space from CAN_RAW sockets with the same filters, at 1 and 8 buses
# saturated by skin_flood (9,000 frames/s each, one 16-triangle board).
# Prints "BENCH ..." lines of key=value pairs; scripts/bench-vm collects
# them.  Not a test: nothing here asserts a time.
. /cases/lib.sh

secs=${BENCH_SECONDS:-5}
skin_load

run() {
	n=$1
	side=$2
	i=0
	while [ $i -lt "$n" ]; do
		skin_flood --rate 9000 --duration $((secs + 1)) --board 14 "vcan$i" >"/tmp/flood$i" &
		i=$((i + 1))
	done
	sleep 0.5
	if [ "$side" = a ]; then
		devs=""
		i=0
		while [ $i -lt "$n" ]; do devs="$devs /dev/skin/b$i"; i=$((i + 1)); done
		out=$(ring_reader --duration "$secs" $devs | tail -n 1)
	else
		ifs=""
		i=0
		while [ $i -lt "$n" ]; do ifs="$ifs vcan$i"; i=$((i + 1)); done
		out=$(raw_reader --duration "$secs" --board 14 $ifs | tail -n 1)
	fi
	wait
	sent=0
	i=0
	while [ $i -lt "$n" ]; do
		s=$(tr ' ' '\n' <"/tmp/flood$i" | sed -n 's/^sent=//p')
		sent=$((sent + ${s:-0}))
		i=$((i + 1))
	done
	echo "BENCH buses=$n side=$side flood_sent=$sent $out"
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
	i=0
	while [ $i -lt $n ]; do
		rmdir "$CFG/b$i"
		vcan_del "vcan$i"
		i=$((i + 1))
	done
done
skin_unload
