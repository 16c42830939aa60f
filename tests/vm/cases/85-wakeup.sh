# Wakeup moderation (SKIN_IOC_SET_WAKEUP): a reader woken once per N
# frames (epoll on the mapping, or blocking read()) gets about samples/N
# wakeups and every frame; the last frames of a
# stream that stops mid-batch arrive when their time bound runs out;
# settings that make no sense are EINVAL; unplugging the interface or
# removing the patch reaches a moderated reader at once, not after its
# bound.  ring_reader (bench/) is the reader: it sets the moderation with
# lib/ring and counts wakeups, samples, lost ones and their latency.
. /cases/lib.sh

# key=value from ring_reader's last line
kv() {
	tail -n 1 "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

vcan_add vcan0
skin_load
# the longest period: a stall of the emulator between two halves must not
# look like a board that went quiet (1.5 periods)
patch_create lh interface=vcan0 address=14 ring_frames=256 period_ms=255
patch_enable lh
sleep 0.6		# the board's start-up commands

# moderated_stream HOW FRAMES MIN: skin_flood sends FRAMES CAN frames (16
# triangles, 32 frames a sample, 100 samples/s) while ring_reader reads
# them one wakeup per 4 frames (bound 100 ms, 10 sample periods), HOW
# "mmap" (epoll on the mapping) or "read" (blocking read()s); at least MIN
# samples must be published, every one read, none lost
moderated_stream() {
	f0=$(stat lh frames)
	if [ "$1" = read ]; then
		ring_reader --duration 10 --read --wakeup 4,100000 /dev/skin/lh >/tmp/mod.out 2>/tmp/mod.err &
		r=$!
		opened $r /dev/skin/lh
	else
		ring_reader --duration 10 --wakeup 4,100000 /dev/skin/lh >/tmp/mod.out 2>/tmp/mod.err &
		r=$!
		mapped $r /dev/skin/lh
	fi
	taskset 1 skin_flood --rate 3200 --frames "$2" --board 14 vcan0 >/dev/null
	wait $r || fail "$1 reader failed: $(cat /tmp/mod.err)"
	cat /tmp/mod.out
	published=$(( $(stat lh frames) - f0 ))
	samples=$(kv /tmp/mod.out samples)
	wakeups=$(kv /tmp/mod.out wakeups)
	[ "$published" -ge "$3" ] || fail "only $published samples published"
	expect_eq "samples read ($1)" "$samples" "$published"
	expect_eq "samples lost ($1; sequence contiguous)" "$(kv /tmp/mod.out lost)" 0
	# ideal samples/4; the emulator's stalls only make batches larger, the
	# ends of the stream (and a bound that ran out) smaller
	[ "$wakeups" -ge 1 ] && [ $((wakeups * 3)) -le "$samples" ] ||
		fail "$1: $wakeups wakeups for $samples samples with N=4"
	echo "ok: $1: $wakeups wakeups for $samples samples (N=4)"
}

# 1. A stream of 300 samples read through the mapping, then 101 through
# read() (so that the last one comes by the bound)
moderated_stream mmap 9600 200
moderated_stream read 3232 60

# 2. The stream stops mid-batch: 6 samples with N=4 and a 500 ms bound.
# The first 4 make a batch; the last 2, half a second later, arrive when
# the bound runs out, so they waited at least 500 ms (and not forever).
patch_set_triangle() {
	patch_disable lh
	patch_set lh triangles=0x0001
	patch_enable lh
	sleep 0.6
}
patch_set_triangle
# (queued before: triangle() takes the emulator the better part of a second)
for base in 10 20 30 40; do
	triangle 14 0 $base
done
mv /tmp/play.log /tmp/batch.log
triangle 14 0 50
triangle 14 0 60
mv /tmp/play.log /tmp/rest.log
f0=$(stat lh frames)
ring_reader --duration 6 --wakeup 4,500000 /dev/skin/lh >/tmp/tail.out 2>/tmp/tail.err &
r=$!
mapped $r /dev/skin/lh
sleep 0.3		# and set its moderation, the next system call
taskset 1 canplayer -t -I /tmp/batch.log
sleep 0.5		# the reader drains the batch
taskset 1 canplayer -t -I /tmp/rest.log
wait $r || fail "moderated reader failed: $(cat /tmp/tail.err)"
cat /tmp/tail.out
expect_eq "published" "$(( $(stat lh frames) - f0 ))" 6
expect_eq "samples read, the last 2 by the time bound" "$(kv /tmp/tail.out samples)" 6
expect_eq "lost" "$(kv /tmp/tail.out lost)" 0
lat=$(kv /tmp/tail.out latency_max_us)
[ "$lat" -ge 490000 ] && [ "$lat" -lt 2500000 ] ||
	fail "the last frames waited $lat us, bound 500000 us"
echo "ok: the last frames waited $lat us (bound 500000 us)"
w=$(kv /tmp/tail.out wakeups)
[ "$w" -ge 2 ] && [ "$w" -le 3 ] || fail "$w wakeups for 6 samples with N=4"
echo "ok: $w wakeups for 6 samples"

# 3. Settings refused: EINVAL, and the file keeps working
ring_reader --duration 0 --wakeup 2,1000 /dev/skin/lh >/dev/null ||
	fail "a valid setting was refused"
echo "ok: 2 frames, 1000 us accepted"
for bad in 0,1000 2,0 129,1000 2,1000,1; do
	if ring_reader --duration 0 --wakeup $bad /dev/skin/lh >/dev/null 2>/tmp/bad.err; then
		fail "wakeup $bad accepted"
	fi
	grep -q "Invalid argument" /tmp/bad.err || fail "wakeup $bad: $(cat /tmp/bad.err)"
	echo "ok: wakeup $bad refused: $(cat /tmp/bad.err)"
done

# 4. Unplug while a moderated reader waits with frames pending (fewer than
# N, a bound of 20 s): POLLERR at once, with the pending frames.
ring_reader --duration 30 --wakeup 8,20000000 /dev/skin/lh >/tmp/unplug.out 2>/tmp/unplug.err &
r=$!
mapped $r /dev/skin/lh
for base in 10 20 30; do
	triangle 14 0 $base
done
play
sleep 0.5
t0=$(now_ns)
vcan_del vcan0
wait $r || fail "reader failed: $(cat /tmp/unplug.err)"
t1=$(now_ns)
cat /tmp/unplug.out /tmp/unplug.err
grep -q "CAN interface gone" /tmp/unplug.err || fail "no POLLERR"
[ $((t1 - t0)) -lt 5000000000 ] || fail "POLLERR took $(((t1 - t0) / 1000000)) ms"
echo "ok: POLLERR after $(((t1 - t0) / 1000000)) ms"
expect_eq "pending samples" "$(kv /tmp/unplug.out samples)" 3

# 5. The patch removed while a moderated reader waits: woken at once (ending
# a patch unbinds it first, so the reader may see POLLERR before POLLHUP);
# the module unloads once it closed (its timer is gone with the file).
vcan_add vcan0
sleep 0.6
ring_reader --duration 30 --wakeup 8,20000000 /dev/skin/lh >/tmp/hup.out 2>/tmp/hup.err &
r=$!
mapped $r /dev/skin/lh
triangle 14 0 70
play
sleep 0.3
t0=$(now_ns)
rmdir "$CFG/lh"
wait $r || fail "reader failed: $(cat /tmp/hup.err)"
t1=$(now_ns)
cat /tmp/hup.out /tmp/hup.err
grep -qE "patch removed|CAN interface gone" /tmp/hup.err || fail "no POLLHUP or POLLERR"
[ $((t1 - t0)) -lt 5000000000 ] || fail "woken after $(((t1 - t0) / 1000000)) ms"
echo "ok: woken by the removal after $(((t1 - t0) / 1000000)) ms"
expect_eq "pending sample" "$(kv /tmp/hup.out samples)" 1
skin_unload
vcan_del vcan0
