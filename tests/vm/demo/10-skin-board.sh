# make demo: a skin board on vcan0, seen through /dev/skin.  A patch is
# configured through configfs, the driver starts the board (the commands
# show on the bus), the board's frames become samples in the mmap ring,
# a touch presses three taxels, garbage is rejected and counted, and the
# interface is unplugged and plugged back.
. /cases/lib.sh

say() {
	echo
	echo "### $*"
}

say "kernel $(uname -r): vcan0 and skin.ko"
vcan_add vcan0
skin_load

say "configfs: patch 'left_hand' = board 14 on vcan0, triangles 0-3, 100 ms period"
candump -L vcan0,200:700 >/tmp/cmds &
cmdlog=$!
sleep 0.2
patch_create left_hand interface=vcan0 address=14 triangles=0x000f period_ms=100 skin_part=1
patch_enable left_hand
ls -l /dev/skin/
sleep 0.8
kill $cmdlog
echo "board start-up sent by the driver (SET_BRD_CFG, SET_TRIANG_CFG x2, SET_TXMODE on):"
awk '{ print "  " $2 " " $3 }' /tmp/cmds

say "the board streams 6 periods; a finger presses triangle 1 in periods 3-4"
skinctl dump -n 6 --timeout 5000 /dev/skin/left_hand >/tmp/frames &
reader=$!
sleep 0.3
period=0
while [ $period -lt 6 ]; do
	t=0
	while [ $t -lt 4 ]; do
		base=F0
		if [ $t -eq 1 ] && [ $period -ge 2 ] && [ $period -le 3 ]; then
			base=60		# pressed: values drop from noLoad
		fi
		triangle 14 $t $base
		t=$((t + 1))
	done
	period=$((period + 1))
done
play
wait $reader
echo "seq  flags    refreshed  triangle 0 | triangle 1 (12 channels each, hex)"
awk '{ printf "%-4s %-8s %-10s %s | %s\n", $1, $4, $3, substr($6, 1, 24), substr($6, 25, 24) }' /tmp/frames

say "garbage on the bus: short heads, unknown byte 0, remote requests, 29-bit ids, a bus-off"
send_n 3 4E0#40F0EF
send_n 2 4E0#77F0EFEEEDECEBEA
send_n 2 4E0#R
send_n 1 000004E0#40F0EFEEEDECEBEA
send_n 1 20000040#0000000000000000
skinctl stats /dev/skin/left_hand

say "unplugging vcan0 and plugging it back: the patch rebinds by name"
vcan_del vcan0
echo "bound: $(cat /sys/class/skin/left_hand/bound)"
vcan_add vcan0
echo "bound: $(cat /sys/class/skin/left_hand/bound)"

rmdir "$CFG/left_hand"
skin_unload
echo
echo "### done; the harness checks the kernel log for warnings"
