#!/usr/bin/env python3
"""Slowloris against qpslab ui on 127.0.0.1:PORT, for probe29.sh.

Two connections at once: 'trickle' sends a request line and then one
header line a second and never the blank line; 'idle' connects and sends
nothing. Prints how many seconds each was held open before the server
closed it (LIMIT if still open after LIMIT seconds): trickle=S idle=S.
"""
import socket
import sys
import time

PORT, LIMIT = int(sys.argv[1]), float(sys.argv[2])


def closed(s):
    try:
        s.setblocking(False)
        d = s.recv(4096)
        return d == b"" or len(d) > 0  # EOF, or an error response: cut
    except BlockingIOError:
        return False
    except OSError:
        return True


t0 = time.time()
trickle = socket.create_connection(("127.0.0.1", PORT))
idle = socket.create_connection(("127.0.0.1", PORT))
trickle.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % PORT)
done = {}
i = 0
while time.time() - t0 < LIMIT and len(done) < 2:
    time.sleep(0.5)
    i += 1
    if "trickle" not in done:
        if closed(trickle):
            done["trickle"] = time.time() - t0
        elif i % 2 == 0:
            try:
                trickle.setblocking(True)
                trickle.sendall(b"X-Slow-%d: y\r\n" % i)
            except OSError:
                done["trickle"] = time.time() - t0
    if "idle" not in done and closed(idle):
        done["idle"] = time.time() - t0
print("trickle=%.1f idle=%.1f" % (done.get("trickle", LIMIT), done.get("idle", LIMIT)))
