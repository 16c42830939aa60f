# The module loads and unloads cleanly, and cannot be unloaded while a
# patch exists (each configfs item holds a module reference).
. /cases/lib.sh

skin_load
[ -d "$CFG" ] || fail "$CFG missing"
[ -d /sys/class/skin ] || fail "/sys/class/skin missing"
skin_unload
[ ! -e "$CFG" ] || fail "$CFG left behind"
[ ! -e /sys/class/skin ] || fail "/sys/class/skin left behind"

skin_load
patch_create p0
expect_fail "rmmod with a patch" rmmod skin
rmdir "$CFG/p0"
skin_unload
echo "ok: unloaded after rmdir"
