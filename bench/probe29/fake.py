#!/usr/bin/env python3
"""Fake MySQL servers on 127.0.0.1 for probe29.sh.

usage: fake.py MODE PORTFILE
MODE: garbage (random bytes, then hold), silent (accept, say nothing),
trunc (half a valid greeting, then hold), errgreet (an ERR packet as the
greeting whose message holds terminal escapes, CR/LF and 3 KB).
Binds port 0, writes the port to PORTFILE, serves until killed or 90 s.
"""
import os
import socket
import struct
import sys
import threading
import time

MODE, PORTFILE = sys.argv[1], sys.argv[2]


def packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


def greeting():
    p = bytes([10]) + b"5.5.5-10.11.99-MariaDB-fake\0" + struct.pack("<I", 7)
    p += b"abcdefgh\0" + struct.pack("<H", 0xF7FF) + bytes([33]) + struct.pack("<H", 2)
    p += struct.pack("<H", 0x81BF) + bytes([21]) + b"\0" * 10 + b"ijklmnopqrst\0"
    p += b"mysql_native_password\0"
    return packet(0, p)


ERR_MSG = (b"\x1b]0;pwned-title\x07\x1b[2J\x1b[31mRED-ESCAPE\r\nFAKE-INJECTED-LINE "
           + b"A" * 3000 + b" END-OF-3KB")


def serve(c):
    try:
        if MODE == "garbage":
            c.sendall(os.urandom(300))
        elif MODE == "trunc":
            g = greeting()
            c.sendall(g[: len(g) // 2])
        elif MODE == "errgreet":
            c.sendall(packet(0, b"\xff" + struct.pack("<H", 1040) + ERR_MSG))
            time.sleep(0.5)
            c.close()
            return
        time.sleep(60)
    except OSError:
        pass
    finally:
        try:
            c.close()
        except OSError:
            pass


def main():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(PORTFILE + ".tmp", PORTFILE)
    s.settimeout(1.0)
    end = time.time() + 90
    while time.time() < end:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(c,), daemon=True).start()


main()
