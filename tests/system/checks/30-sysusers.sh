# sysusers made the group skin and the daemon's user, a member of it, with
# no login.
. "$SKIN_PAYLOAD/lib.sh"

getent group skin || fail "no group skin"
getent group skin-admin || fail "no group skin-admin (skind's --admin-group)"
getent passwd skind || fail "no user skind"
id skind
id -nG skind | tr ' ' '\n' | grep -qx skin || fail "skind is not in group skin"
shell=$(getent passwd skind | cut -d: -f7)
case "$shell" in
*/nologin|*/false) echo "ok: skind's shell is $shell" ;;
*) fail "skind can log in: $shell" ;;
esac
