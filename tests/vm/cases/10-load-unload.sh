# The module loads with and without its interface present, rejects bad
# parameters, and leaves nothing behind when it unloads.
. /cases/lib.sh

if skin_load ifname=; then fail "empty ifname accepted"; fi
if skin_load ifname=abcdefghijklmnopq; then fail "17-character ifname accepted"; fi
[ ! -e /sys/module/skin ] || fail "failed load left /sys/module/skin"

skin_load ifname=vcan0
expect_eq "bound before vcan0 exists" "$(counter bound)" 0
skin_unload
[ ! -e "$SKIN_SYSFS" ] || fail "$SKIN_SYSFS left behind"

vcan_add vcan0
skin_load ifname=vcan0
expect_eq "bound to existing vcan0" "$(counter bound)" 1
skin_unload
vcan_del vcan0
