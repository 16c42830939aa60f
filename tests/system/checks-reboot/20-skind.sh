# skind as systemd runs it, after a boot: skind.socket listens from boot
# and starts skind on its first client; a user outside group skin is
# refused at the socket and starts nothing; the watchdog restarts a hung
# skind; the journal holds its messages with structured fields; a C
# program built with pkg-config skin and the Python client read skind's
# socket and shared memory; the evdev
# devices appear once /dev/uinput is given to skind as docs/INSTALL.md says.
. "$SKIN_PAYLOAD/lib.sh"
users

expect_eq "skind.socket after boot" "$(systemctl is-active skind.socket)" active
expect_eq "skind.service after boot" "$(systemctl is-active skind.service || true)" inactive

# a non-member: refused by the socket's permissions, skind not started
expect_fail "bob's skinctl status" timeout 60 runuser -u bob -- skinctl status
runuser -u bob -- skinctl status 2>&1 | grep -q 'Permission denied' || fail "bob refused for another reason"
expect_eq "skind.service after bob" "$(systemctl is-active skind.service || true)" inactive

# the first client starts skind (socket activation) and gets its answer
timeout 300 runuser -u alice -- skinctl status >/tmp/status ||
	{ systemctl status skind.service --no-pager || true; journalctl -u skind.service --no-pager | tail -n 30; fail "alice's skinctl status"; }
cat /tmp/status
grep -q '^status version ' /tmp/status || fail "no status line"
expect_eq "skind.service after alice" "$(systemctl is-active skind.service)" active
expect_eq "skind runs as" "$(ps -o user= -p "$(unit_prop skind.service MainPID)")" skind
echo "patches skind made: $(ls /sys/kernel/config/skin | tr '\n' ' ')"
[ -n "$(ls /sys/kernel/config/skin)" ] || fail "skind --create-patches made no patch"

# the journal: the daemon's own messages (user skind's, not those of the
# root ExecStartPre), with PRIORITY and its PATCH=/PART= fields
journalctl -u skind.service -o json --no-pager |
	grep '"SYSLOG_IDENTIFIER":"skind"' | grep "\"_UID\":\"$(id -u skind)\"" >/tmp/journal.json ||
	fail "no message of skind (uid $(id -u skind)) in the journal"
head -n 2 /tmp/journal.json | cut -c 1-300
grep -q '"PRIORITY":"[0-7]"' /tmp/journal.json || fail "no skind message with a PRIORITY"
grep -Eq '"(PATCH|PART)":"[^"]+"' /tmp/journal.json || fail "no skind message with a PATCH= or PART= field"
echo "ok: structured fields: $(grep -Eo '"(PATCH|PART)":"[^"]+"' /tmp/journal.json | sort -u | head -n 3 | tr '\n' ' ')"

# robot programs on the installed packages: the C example built with
# skin.pc against libskin, and the Python package (python3-skin), both as
# alice
zcat -f "$(ls /usr/share/doc/skin/examples/skin-example.c* | head -n 1)" >/tmp/skin-example.c
cc -Wall -Wextra -Werror /tmp/skin-example.c $(pkg-config --cflags --libs skin) -o /tmp/skin-example ||
	fail "the C example does not build against the package (pkg-config skin)"
runuser -u alice -- /tmp/skin-example >/tmp/example.out || { cat /tmp/example.out; fail "the C example failed"; }
grep '^status version ' /tmp/example.out || fail "the C example printed no status"
nparts=$(awk '$1 == "status" { for (i = 1; i < NF; i++) if ($i == "parts") print $(i + 1) }' /tmp/example.out)
expect_eq "parts the C example read from the shm" "$(grep -c '^part ' /tmp/example.out)" "$nparts"
runuser -u alice -- python3 -m skin status | grep '^status version ' ||
	fail "python3 -m skin status"
runuser -u alice -- python3 -c '
import skin
with skin.Client() as c, c.shm() as shm:
    for p in shm.parts:
        s = shm.snapshot(p.name)
        print("part", p.name, s.samples, s.values.dtype, s.values.shape[0])
' >/tmp/py.out || { cat /tmp/py.out; fail "the Python package could not read the shm"; }
cat /tmp/py.out
expect_eq "parts the Python package read from the shm" "$(grep -c '^part ' /tmp/py.out)" "$nparts"

# a hung skind (SIGSTOP) misses its watchdog: systemd kills and restarts it
pid=$(unit_prop skind.service MainPID)
restarts=$(unit_prop skind.service NRestarts)
kill -STOP "$pid"
echo "stopped skind ($pid) at $(cut -d' ' -f1 /proc/uptime)s of uptime"
new_skind() {
	p=$(unit_prop skind.service MainPID)
	[ "$p" != 0 ] && [ "$p" != "$pid" ] && [ "$(systemctl is-active skind.service)" = active ]
}
wait_for 180 "skind restarted" new_skind
echo "restarted at $(cut -d' ' -f1 /proc/uptime)s of uptime as $(unit_prop skind.service MainPID)"
expect_eq "restarts" "$(unit_prop skind.service NRestarts)" $((restarts + 1))
journalctl -u skind.service -o cat --no-pager | grep -i 'watchdog' ||
	fail "the journal does not say the watchdog fired"
timeout 120 runuser -u alice -- skinctl status | grep -q '^status version ' ||
	fail "skind does not answer after its restart"
echo "ok: skind answers after its restart"

# evdev: /dev/uinput is root's, so skind ran without devices and said so
journalctl -u skind.service -o cat --no-pager | grep 'no evdev devices: /dev/uinput' ||
	fail "the journal does not say why there are no evdev devices"
# docs/INSTALL.md's recipe, as written there: a udev rule and a drop-in
systemctl stop skind.service
modprobe uinput
# (from the installed documentation; dh_compress may have gzipped it)
doc=$(ls /usr/share/doc/skin*/INSTALL.md* | head -n 1)
zcat -f "$doc" | sed -n 's/^    \(KERNEL=="uinput".*\)/\1/p' >/etc/udev/rules.d/61-skin-uinput.rules
[ -s /etc/udev/rules.d/61-skin-uinput.rules ] || fail "no uinput rule in $doc"
udevadm control --reload
udevadm trigger --action=change --subsystem-match=misc --sysname-match=uinput
udevadm settle
expect_eq "/dev/uinput" "$(stat -c '%G %a' /dev/uinput)" "skind 660"
mkdir -p /etc/systemd/system/skind.service.d
printf '[Service]\nSupplementaryGroups=skind\n' >/etc/systemd/system/skind.service.d/uinput.conf
systemctl daemon-reload
systemctl start skind.service
evdev_devices() {	# the input devices named "skin PART"
	cat /sys/class/input/input*/name 2>/dev/null | grep '^skin '
}
wait_for 120 "evdev devices" evdev_devices
echo "ok: $(evdev_devices | tr '\n' ',' | sed 's/,$//')"
expect_eq "parts with an evdev device" "$(evdev_devices | wc -l)" \
	"$(timeout 60 runuser -u alice -- skinctl status | awk '$1 == "status" { for (i = 1; i < NF; i++) if ($i == "parts") print $(i + 1) }')"

systemctl stop skind.service
rm -r /etc/systemd/system/skind.service.d /etc/udev/rules.d/61-skin-uinput.rules
systemctl daemon-reload
