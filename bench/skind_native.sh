#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# skind's hop to its clients natively, on ring files (docs/PERFORMANCE.md,
# "skind", "Natively, on ring files"): tests/daemon/ringfeed writes one board's ring
# file every PERIOD_MS, skind (build/meson, not sanitised) reads it, and
# bench/skind_bench --ifname none measures, in one process and one run,
# from each publication's PUBLISH_NS to a socket subscriber (`taxels`), a
# seqlock poller (every 20 us) and a follower (skin/follow.h).  Prints
# "BENCH ..." lines; asserts nothing.
#
# Usage, from the repository root: bench/skind_native.sh [SECONDS [PERIOD_MS]]
set -eu
seconds=${1:-20}
period=${2:-10}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build/meson
ninja -C "$build" daemon/skind tests/daemon/ringfeed bench/skind_bench >/dev/null
dir=$(mktemp -d /tmp/skind-native.XXXXXX)
feed=
skind=
cleanup() {
	[ -n "$skind" ] && kill "$skind" 2>/dev/null && wait "$skind" 2>/dev/null
	[ -n "$feed" ] && kill "$feed" 2>/dev/null && wait "$feed" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
mkdir "$dir/rings" "$dir/state"
cat >"$dir/skind.conf" <<CFG
[skind]
calibration_s = 0.5

[bus can0]

[part pad]
layout = none
geometry = $top/etc/examples/gripper-pad.urdf
geometry_format = urdf
sensor = pad
patches = can0:1
CFG
# ringfeed writes while its stdin is open: a FIFO held by this shell
mkfifo "$dir/feed.in"
"$build/tests/daemon/ringfeed" "$dir/rings" "pad:can0:1:$period" <"$dir/feed.in" >/dev/null &
feed=$!
exec 3>"$dir/feed.in"
"$build/daemon/skind" -c "$dir/skind.conf" -r "$dir/rings" -s "$dir/skind.sock" \
	--shm "$dir/skind.shm" --state-dir "$dir/state" --no-create-patches \
	>"$dir/skind.log" 2>&1 &
skind=$!
i=0
until [ -S "$dir/skind.sock" ] && [ -e "$dir/skind.shm" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat "$dir/skind.log"; exit 1; }
	sleep 0.1
done
sleep 1				# calibrated (0.5 s)
echo "BENCH setup native ring files, one board, period_ms=$period seconds=$seconds"
"$build/bench/skind_bench" --ifname none --seconds "$seconds" --from publish \
	--part pad --pid "$skind" --socket "$dir/skind.sock" --shm "$dir/skind.shm"
echo "BENCH skind $(printf 'status\n' | timeout 5 python3 -c '
import sys; sys.path.insert(0, "'"$top"'/clients/python"); import skin_client as s
c = s.Client(sys.argv[1]); print(c.command("status")[0])' "$dir/skind.sock")"
exec 3>&-
