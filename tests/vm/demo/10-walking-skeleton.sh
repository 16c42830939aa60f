# make demo: the walking skeleton, visibly.  A skin board is played on vcan0
# with cansend, skin.ko counts what it receives, then garbage is thrown at
# it and each kind of rejection shows up in its own counter.
. /cases/lib.sh

say() {
	echo
	echo "### $*"
}

say "kernel $(uname -r): creating vcan0 and loading skin.ko"
vcan_add vcan0
skin_load ifname=vcan0
dmesg | grep -E 'skin' | tail -n 2

say "one board (address 14, class 4) streaming 16 triangles, 5 periods; candump shows the first frames"
candump -n 6 vcan0 &
dump=$!
period=0
while [ $period -lt 5 ]; do
	t=0
	while [ $t -lt 16 ]; do
		id=$(printf '4E%X' $t)
		v=$(printf '%02X' $((240 - t)))
		cansend vcan0 "$id#40$v$v$v$v$v$v$v"
		cansend vcan0 "$id#C0$v$v$v$v${v}0000"
		t=$((t + 1))
	done
	period=$((period + 1))
done
wait $dump
say "counters in /sys/kernel/skin after 5 periods x 16 triangles x 2 frames:"
show_counters

say "garbage: short heads, unknown byte 0, remote requests, 29-bit ids, a bus-off error frame"
send_n 3 4E5#40F0EF
send_n 2 4E5#77F0EFEEEDECEBEA
send_n 2 4E5#R
send_n 1 000004E5#40F0EFEEEDECEBEA
send_n 1 20000040#0000000000000000
show_counters

say "unplugging vcan0 while bound, and plugging it back"
vcan_del vcan0
echo "bound: $(counter bound)"
vcan_add vcan0
echo "bound: $(counter bound)"

skin_unload
echo
echo "### skin.ko unloaded; the kernel log is checked for warnings by the harness"
