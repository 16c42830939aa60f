# The package enabled and started skind.socket, not skind.service: the
# daemon starts on its first client.  The socket is skind's, group skin,
# 0660, in /run/skin.
. "$SKIN_PAYLOAD/lib.sh"

expect_eq "skind.socket enabled" "$(systemctl is-enabled skind.socket)" enabled
expect_eq "skind.socket active" "$(systemctl is-active skind.socket)" active
expect_eq "skind.service enabled" "$(systemctl is-enabled skind.service || true)" disabled
expect_eq "skind.service active" "$(systemctl is-active skind.service || true)" inactive
expect_eq "/run/skin/skind.sock" "$(stat -c '%F %U %G %a' /run/skin/skind.sock)" "socket skind skin 660"
