#!/usr/bin/env python3
# Prints a TCP port on 127.0.0.1 that nobody listens on, from a random start: the gdb tests'
# QEMU stubs (several test runs and helpers share one machine, so no fixed or pid-derived port).
import random
import socket

start = random.randrange(20000, 60000)
for port in range(start, start + 1000):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
