#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# skind's CPU per publication alone and with N socket subscribers (taxels of
# every part, every publication) and N shm readers (100 Hz), natively on ring
# files (docs/PERFORMANCE.md, "skind").  Usage, from the repository root:
#   skind_fanout.py SOCKET SHM SKIND_PID N
import os, sys, time, select, socket, threading
sys.path.insert(0, 'clients/python')
import skin_client as sc
sockp, shmp, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def cpu():
    f = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')
def samples():
    c = sc.Client(sockp); p = [sc.parse_event(l) for l in c.command('parts') if l.startswith('part ')]; c.close()
    return sum(int(x['samples']) for x in p)
def measure(secs):
    c0, s0, t0 = cpu(), samples(), time.monotonic()
    time.sleep(secs)
    c1, s1, t1 = cpu(), samples(), time.monotonic()
    return (c1 - c0) / (t1 - t0) * 100, (c1 - c0) * 1e6 / (s1 - s0), (s1 - s0) / (t1 - t0)
print("alone: cpu %.1f%%, %.1f us/publication, %.0f publications/s" % measure(10))
stop = False
clients = []
for i in range(n):
    c = sc.Client(sockp); c.command('subscribe taxels all'); clients.append(c)
lines = [0]
def reader():
    socks = {c.sock: c for c in clients}
    while not stop:
        r, _, _ = select.select(list(socks), [], [], 0.2)
        for s in r:
            d = s.recv(1 << 20); lines[0] += d.count(b'\n')
def shm_reader():
    m = sc.Shm(shmp)
    while not stop:
        for p in m.parts: m.read_part(p['name'])
        time.sleep(0.01)
ths = [threading.Thread(target=reader)] + [threading.Thread(target=shm_reader) for _ in range(n)]
for t in ths: t.start()
time.sleep(1)
print("with %d subscribers (taxels, every publication) and %d shm readers (100 Hz): cpu %.1f%%, %.1f us/publication, %.0f publications/s" % ((n, n) + measure(10)))
stop = True
for t in ths: t.join()
print("lines read by the subscribers: %d" % lines[0])
