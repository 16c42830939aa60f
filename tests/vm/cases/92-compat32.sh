# A 32-bit (i386) program reads a patch as a 64-bit one does: every ioctl
# (through compat_ptr_ioctl) and the mapped ring (lib/ring's reader, whose
# 64-bit loads of head and seq are atomic on i386), and read().  skin32
# (tests/vm/skin32.c) also checks the ABI's layout when it is compiled.
. /cases/lib.sh

[ -x /usr/bin/skin32 ] || fail "no skin32 in the image (gcc -m32: gcc-multilib)"
vcan_add vcan0
skin_load
patch_create lh interface=vcan0 address=14 triangles=0x0003 skin_part=1 \
	ring_frames=16 period_ms=255
patch_enable lh
tx_commands lh 4

skin32 info /dev/skin/lh >/tmp/info
cat /tmp/info
expect_eq "info" "$(cat /tmp/info | tr '\n' ' ')" \
"name lh interface vcan0 class 4 address 14 skin_part 1 \
triangles 0x0003 period_ms 255 no_load 240 shift 2 cdc_offset 0x2200 \
abi 1 frame_size 256 frames 16 flags 0x7 head 0 "

send_n 2 4E0#40F0			# 2 counted as rx_bad_dlc
wait_until "2 bad DLC" '[ "$(stat lh rx_bad_dlc)" -ge 2 ]'
skin32 stats /dev/skin/lh >/tmp/stats32
skinctl stats /dev/skin/lh | sed -n '/^  rx_head /,$p' >/tmp/stats64
cat /tmp/stats32
cmp /tmp/stats32 /tmp/stats64 || fail "32-bit and 64-bit counters differ"
grep -qx '  rx_bad_dlc 2' /tmp/stats32 || fail "rx_bad_dlc 2 not seen"
expect_eq "wakeup" "$(skin32 wakeup /dev/skin/lh)" "wakeup 4 20000 0 0"

# frames through the mapping and through read(), both at once
skin32 mapread 2 /dev/skin/lh >/tmp/map &
m=$!
skin32 read 2 /dev/skin/lh >/tmp/read &
r=$!
mapped $m /dev/skin/lh
opened $r /dev/skin/lh
triangle 14 0 01
triangle 14 1 11
triangle 14 0 21
triangle 14 1 31
play
wait $m || fail "mapped reader failed"
wait $r || fail "read() reader failed"
expect_eq "mapped" "$(cat /tmp/map | tr '\n' ' ')" \
	"1 0x0 0x0003 $(values_of 01 11) 2 0x0 0x0003 $(values_of 21 31) lost 0 "
expect_eq "read" "$(cat /tmp/read | tr '\n' ' ')" \
	"1 0x0 0x0003 $(values_of 01 11) 2 0x0 0x0003 $(values_of 21 31) "

skin32 start /dev/skin/lh
tx_commands lh 8
rmdir "$CFG/lh"
skin_unload
vcan_del vcan0
