#!/usr/bin/env python3
"""Type at faultline through its serial port (a QEMU unix socket): wait for a text, send
keys one at a time, and keep everything the guest wrote in a log.
usage: tty.py SOCKET LOG  (then lines on stdin: "wait TEXT" or "type TEXT", Python escapes)"""
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


def wait(text, timeout=120):
    end = time.time() + timeout
    while time.time() < end:
        if text in got:
            return True
        if not pump():
            break
    return text in got


for line in sys.stdin:
    verb, _, arg = line.rstrip("\n").partition(" ")
    data = arg.encode().decode("unicode_escape").encode("latin-1")
    if verb == "wait" and not wait(data):
        print(f"tty.py: timed out waiting for {arg}")
        break
    if verb == "type":
        for b in data:
            s.send(bytes([b]))
            time.sleep(0.02)
            pump()
while pump() and b"boot complete" not in got:
    pass
