# skin-view as installed, on the real driver: skind reads skinsim's boards
# through skin.ko on vcan0 (the installed example configuration), and
# skin-view serves its page and, over Foxglove's WebSocket protocol, the
# health of every patch with the driver's own counters from sysfs
# (/sys/class/skin/NAME/stats), the numbers the daemon layer can only
# give from a fake directory.
. "$SKIN_PAYLOAD/lib.sh"

CONF=/etc/skin/examples/sim-vcan.conf
D=/tmp/view
mkdir -p $D
modprobe skin
vcan

skinsim --config $CONF --duration 120s 2>$D/sim.err &
sim=$!
skind --config $CONF --socket $D/skind.sock --shm $D/skind.shm \
	--state-dir $D --no-evdev 2>$D/skind.err &
skind=$!
cat >$D/skin-view.conf <<EOF
[view]
port = 8765
socket = $D/skind.sock
skind_config = $CONF
EOF
skin-view -c $D/skin-view.conf 2>$D/view.err &
view=$!
stop() {
	kill $view $skind $sim 2>/dev/null || true
	wait $view $skind $sim 2>/dev/null || true
	# the patches skind made stay after it (the unit makes them once,
	# ExecStartPre): taken away, as 65-stream takes its own
	for p in "$CFG"/*/; do
		[ -d "$p" ] || continue
		echo 0 >"$p/enable" || true
		rmdir "$p" || true
	done
}
trap stop EXIT

wait_for 30 "skind serves its socket" test -S $D/skind.sock

# the page's files, from the package's data directory
python3 - <<'EOF' || { cat $D/view.err; fail "skin-view's page"; }
import time, urllib.request
for i in range(30):
    try:
        page = urllib.request.urlopen("http://127.0.0.1:8765/", timeout=5).read().decode()
        break
    except OSError:
        time.sleep(1)
else:
    raise SystemExit("no answer on 127.0.0.1:8765")
assert "page.js" in page, page[:300]
js = urllib.request.urlopen("http://127.0.0.1:8765/page.js", timeout=5)
assert js.headers["Content-Type"].startswith("text/javascript"), js.headers["Content-Type"]
print("ok: skin-view serves its page and scripts")
EOF

# /skin/health over Foxglove's protocol (a WebSocket client of the
# standard library: the image has no npm): every patch of the example
# with the driver's counters, frames counting
python3 - <<'EOF' || { tail -20 $D/view.err; tail -20 $D/skind.err; fail "skin-view's health"; }
import base64, json, os, socket, struct, time

s = socket.create_connection(("127.0.0.1", 8765), timeout=10)
key = base64.b64encode(os.urandom(16)).decode()
s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nUpgrade: websocket\r\n"
           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
           "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n" % key).encode())
buf = b""
while b"\r\n\r\n" not in buf:
    buf += s.recv(4096)
head, buf = buf.split(b"\r\n\r\n", 1)
assert head.startswith(b"HTTP/1.1 101"), head

def read_exact(n):
    global buf
    while len(buf) < n:
        chunk = s.recv(65536)
        if not chunk:
            raise SystemExit("skin-view closed the connection")
        buf += chunk
    out, buf = buf[:n], buf[n:]
    return out

def message():
    data, first = b"", None
    while True:
        b0, b1 = read_exact(2)
        n = b1 & 0x7f
        if n == 126:
            n = struct.unpack(">H", read_exact(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", read_exact(8))[0]
        payload = read_exact(n)
        op = b0 & 0x0f
        if op in (1, 2):
            first = op
        elif op != 0:
            continue                    # ping, pong, close: not a message
        data += payload
        if b0 & 0x80:
            return first, data

def send(obj):
    data = json.dumps(obj).encode()
    mask = os.urandom(4)
    n = len(data)
    hdr = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(hdr + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(data)))

channels, deadline = {}, time.monotonic() + 60
while "/skin/health" not in channels and time.monotonic() < deadline:
    op, data = message()
    if op == 1:
        m = json.loads(data)
        if m.get("op") == "advertise":
            channels.update({c["topic"]: c["id"] for c in m["channels"]})
assert "/skin/health" in channels, channels
send({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": channels["/skin/health"]}]})
want = {"left_hand", "left_forearm"}
last = None
while time.monotonic() < deadline:
    op, data = message()
    if op != 2 or data[0] != 1:
        continue
    h = json.loads(data[1 + 4 + 8:])
    parts = {p["name"]: p for p in h["parts"]}
    if set(parts) != want:
        last = "parts %s" % sorted(parts)
        continue
    patches = [q for p in parts.values() for q in p["patches"]]
    drv = [q.get("driver") for q in patches]
    if not all(drv) or not all(d.get("frames", 0) > 0 for d in drv):
        last = "driver counters %s" % [(q["name"], q.get("driver")) for q in patches]
        continue
    for q in patches:
        assert q["attached"] and not q["silent"], q
        assert len(q["driver"]) >= 20, q["driver"]     # every file of stats/
    print("ok: /skin/health: %d patches attached, the driver's frames %s" %
          (len(patches), [d["frames"] for d in drv]))
    break
else:
    raise SystemExit("no health with every patch's driver counters within 60 s: %s" % last)
EOF
