# Unloading and reloading while frames stream at full rate from two senders
# is clean (the harness checks the kernel log for any warning).
. /cases/lib.sh

vcan_add vcan0
cangen vcan0 -I 4E5 -L 8 -D 40F0F0F0F0F0F0F0 -g 0 -n 200000 &
g1=$!
cangen vcan0 -I 3A0 -L 6 -D C0F0F0F0F0F0 -g 0 -n 200000 &
g2=$!
i=0
while [ $i -lt 20 ]; do
	skin_load ifname=vcan0
	skin_unload
	i=$((i + 1))
done
skin_load ifname=vcan0
sleep 1
[ "$(counter rx_head)" -gt 0 ] || fail "no head frames counted while streaming"
[ "$(counter rx_tail)" -gt 0 ] || fail "no tail frames counted while streaming"
vcan_del vcan0		# the interface vanishes under the senders
skin_unload
kill $g1 $g2 2>/dev/null || true
wait $g1 $g2 2>/dev/null || true
echo "ok: 21 load/unload cycles under load"
