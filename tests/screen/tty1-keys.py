#!/usr/bin/env python3
# The screen-and-keyboard terminal end to end: type commands on the PS/2 keyboard through QEMU's
# monitor (sendkey) to the shell on /dev/tty1, then read its answer off a screendump, cell by
# cell, with the kernel's own font (check-screen.py's PPM and PSF readers).
# usage: tty1-keys.py NAME MONITOR.sock SERIAL.log SCREEN.ppm FONT.psf BIN_DIR
# BIN_DIR is the ramdisk's /bin as built (build/initrd/bin): what `ls /bin` must list.
# Prints one "ok - ..." / "not ok - ..." line per check; exits 1 if any failed.
import importlib.util
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_screen", os.path.join(HERE,
                                                                         "check-screen.py"))
cs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cs)

PROMPT = "root@faultline:~# "  # /etc/profile's PS1 for root at home, /
MOTD_END = "Leave with `exit`"  # the last line of /etc/motd, which tty1's shell prints first
KEYS = {" ": "spc", "/": "slash", ".": "dot", "-": "minus", "|": "shift-backslash",
        "\n": "ret"}


class Monitor:
    """QEMU's human monitor on a unix socket: one command at a time, up to the next prompt."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.s.settimeout(10)
        self.cmd(None)

    def cmd(self, line):
        if line is not None:
            self.s.sendall(line.encode() + b"\n")
        buf = b""
        while not buf.endswith(b"(qemu) "):
            data = self.s.recv(4096)
            if not data:
                raise OSError("the monitor closed")
            buf += data
        return buf

    def type(self, text):
        for ch in text:
            key = KEYS.get(ch, ch)
            if not (len(key) > 1 or ch.isalnum()):
                raise ValueError(f"no key for {ch!r}")
            self.cmd(f"sendkey {key}")
            time.sleep(0.03)  # sendkey holds each key 100 ms; QEMU queues the events in order


def decode(ppm, font):
    """The screendump as text: each cell is the character whose glyph it shows exactly (the
    cursor's cell also with the cursor drawn), else '?'. Returns (rows, (cursor col, row))."""
    w, h, px = cs.read_ppm(ppm)
    gw, gh, glyphs, cmap = font
    fg, bg = bytes(cs.FG), bytes(cs.BG)
    cells = {}
    for c in range(32, 127):
        rows = [b"".join(fg if bit else bg for bit in row) for row in glyphs[cmap[c]]]
        cells.setdefault(b"".join(rows), (chr(c), False))
        cur = [b"".join(fg if bit or y + cs.CURSOR_ROWS >= gh else bg for bit in row)
               for y, row in enumerate(glyphs[cmap[c]])]
        cells.setdefault(b"".join(cur), (chr(c), True))
    text, cursor = [], None
    for r in range(h // gh):
        line = []
        for c in range(w // gw):
            cell = b"".join(px[((r * gh + y) * w + c * gw) * 3:((r * gh + y) * w + (c + 1) * gw)
                               * 3] for y in range(gh))
            ch, is_cursor = cells.get(cell, ("?", False))
            if is_cursor:
                cursor = (c, r)
            line.append(ch)
        text.append("".join(line).rstrip())
    return text, cursor


def main():
    name, sock, log, ppm, psf, bin_dir = sys.argv[1:]
    n_fail = 0

    def check(ok, what, screen=None):
        nonlocal n_fail
        print(("ok - " if ok else "not ok - ") + f"screen {name}: {what}")
        if not ok and screen:
            print("\n".join("#   |" + r for r in screen if r))
        n_fail += not ok
        return ok

    font = cs.read_psf(psf)
    mon = Monitor(sock)

    def shot(want, timeout):
        """Screendumps until want(rows, cursor) holds or timeout seconds pass: the last one."""
        end = time.time() + timeout
        while True:
            if os.path.exists(ppm):
                os.unlink(ppm)
            mon.cmd(f"screendump {ppm}")
            try:
                text, cursor = decode(ppm, font)
            except (OSError, ValueError, AttributeError):
                text, cursor = [], None
            if want(text, cursor) or time.time() > end:
                return text, cursor
            time.sleep(0.5)

    def at_prompt(text, cursor):
        """The cursor just after a prompt: both shells share the screen, so the console's
        prompt may come first on the same row."""
        return cursor is not None and text[cursor[1]].endswith(PROMPT.rstrip()) and \
            cursor[0] == len(text[cursor[1]]) + 1

    def both_prompts(text, cursor):
        """Both shells wait: the console's prompt is in the serial log (so on the screen too:
        the console writes both at once), tty1's is the second on the screen, after its motd.
        The console's, printed before tty1's motd, is at most ~20 rows up: still on screen."""
        motd = [i for i, r in enumerate(text) if r.startswith(MOTD_END)]
        serial = open(log, encoding="latin-1").read()
        n = sum(r.count(PROMPT.rstrip()) for r in text)
        return PROMPT.rstrip() in serial and n >= 2 and bool(motd) and \
            at_prompt(text, cursor) and cursor[1] > motd[-1]

    text, cursor = shot(both_prompts, 90)
    if not check(both_prompts(text, cursor), f"both shells printed their prompt {PROMPT!r} "
                 "(tty1's after its motd), the cursor after the last", text):
        return 1
    names = sorted(os.listdir(bin_dir))[:3]  # busybox ls sorts in the C locale
    want = []

    def answered(text, cursor):
        """The rows that end at the cursor's (the output may scroll the screen) are want, the
        first after whatever preceded the prompt on its row."""
        rows = text[max(cursor[1] - len(want) + 1, 0):cursor[1] + 1] if cursor else []
        return at_prompt(text, cursor) and len(rows) == len(want) and \
            rows[0].endswith(want[0]) and rows[1:] == want[1:]

    # One command at a time: keys typed while a command runs are echoed among its output,
    # as on any terminal.
    for cmd, out in [("echo fault line", ["fault line"]), ("ls /bin | head -n 3", names)]:
        mon.type(cmd + "\n")
        want = want[:-1] + [PROMPT + cmd] + out + [PROMPT.rstrip()]
        text, cursor = shot(answered, 20)
        ok = answered(text, cursor)
        got = text[max(cursor[1] - len(want) + 1, 0):cursor[1] + 1] if cursor else "no cursor"
        check(ok, f"typed {cmd!r}: the rows above the cursor show it and its output {out} in "
              f"the font, cell for cell, then the next prompt with the cursor after it"
              + ("" if ok else f" (want {want}, got {got})"), text)
    serial = open(log, encoding="latin-1").read()
    # (the serial log is this boot's, with its banner: an empty one proves nothing)
    check("a teaching kernel" in serial and "fault line" not in serial
          and "head -n 3" not in serial,
          "neither the commands nor their output went to the serial console: tty1's own")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
