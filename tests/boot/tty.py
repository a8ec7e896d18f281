#!/usr/bin/env python3
"""Type at faultline through its serial port (a QEMU unix socket): wait for a text, send
keys one at a time, and keep everything the guest wrote in a log.
usage: tty.py SOCKET LOG  (then lines on stdin: "wait TEXT", "waitline TEXT" (its line ended)
or "type TEXT", Python escapes)"""
import socket
import sys
import time

sock_path, log_path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
for _ in range(300):
    try:
        s.connect(sock_path)
        break
    except OSError:
        time.sleep(0.1)
s.settimeout(0.1)
got = b""
log = open(log_path, "wb")


def pump():
    global got
    try:
        d = s.recv(4096)
    except socket.timeout:
        return True
    if not d:
        return False
    got += d
    log.write(d)
    log.flush()
    return True


def seen(text, whole_line):
    """text is in what came so far; with whole_line, on a line that has ended (so what is
    typed next is not echoed into the middle of it)."""
    at = got.find(text)
    return at >= 0 and (not whole_line or got.find(b"\n", at) >= 0)


def wait(text, timeout=120, whole_line=False):
    end = time.time() + timeout
    while time.time() < end:
        if seen(text, whole_line):
            return True
        if not pump():
            break
    return seen(text, whole_line)


for line in sys.stdin:
    verb, _, arg = line.rstrip("\n").partition(" ")
    data = arg.encode().decode("unicode_escape").encode("latin-1")
    if verb in ("wait", "waitline") and not wait(data, whole_line=verb == "waitline"):
        print(f"tty.py: timed out waiting for {arg}")
        break
    if verb == "type":
        for b in data:
            s.send(bytes([b]))
            time.sleep(0.02)
            pump()
while pump() and b"boot complete" not in got:
    pass
