#!/usr/bin/env python3
# Check a QEMU screendump of the framebuffer console (drivers/fbcon.c) pixel by pixel against
# what the serial log says was printed, drawn with the same PSF font file the kernel embeds.
# usage: check-screen.py [--banner|--scrolled] NAME SCREEN.ppm SERIAL.log FONT.psf
# Prints one "ok - ..." / "not ok - ..." line per check; exits 1 if any failed.
import re
import sys

FG = (0xd0, 0xd0, 0xd0)  # FBCON_FG in drivers/fb.h
BG = (0x10, 0x20, 0x40)  # FBCON_BG
WIDTH, HEIGHT = 1024, 768  # what boot/boot.S asks GRUB for
CURSOR_ROWS = 2  # the cursor: the bottom rows of its cell in the foreground colour
MAX_COLS, MAX_ROWS = 256, 128  # fbcon.c's limits


def read_ppm(path):
    """Return (width, height, RGB bytes) of a binary PPM (P6, maxval 255) as QEMU writes it."""
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        m = re.compile(rb"\s*(#[^\n]*\n\s*)*(\S+)").match(data, pos)
        fields.append(m.group(2))
        pos = m.end()
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("not a P6 PPM with maxval 255")
    w, h = int(fields[1]), int(fields[2])
    return w, h, data[pos + 1:pos + 1 + w * h * 3]


def read_psf(path):
    """Parse a PSF1 or PSF2 font as fbcon.c does: (width, height, glyph bitmaps, byte->glyph)."""
    f = open(path, "rb").read()
    if f[:2] == b"\x36\x04":
        count, width, height, gbytes = 512 if f[2] & 1 else 256, 8, f[3], f[3]
        hdr, table, version = 4, bool(f[2] & 2), 1
    elif int.from_bytes(f[:4], "little") == 0x864AB572:
        hdr, flags, count, gbytes, height, width = (
            int.from_bytes(f[i:i + 4], "little") for i in range(8, 32, 4))
        table, version = bool(flags & 1), 2
    else:
        raise ValueError("not a PSF1 or PSF2 font")
    row_bytes = (width + 7) // 8
    glyphs = []
    for g in range(count):
        b = f[hdr + g * gbytes:hdr + (g + 1) * gbytes]
        rows = []
        for y in range(height):
            bits = int.from_bytes(b[y * row_bytes:(y + 1) * row_bytes], "big")
            rows.append([(bits >> (row_bytes * 8 - 1 - x)) & 1 for x in range(width)])
        glyphs.append(rows)
    cmap = {}
    if table:
        t = f[hdr + count * gbytes:]
        if version == 1:  # 16-bit code points; 0xffff ends a glyph, 0xfffe starts sequences
            vals = [int.from_bytes(t[i:i + 2], "little") for i in range(0, len(t) - 1, 2)]
            g, seq = 0, False
            for v in vals:
                if v == 0xFFFF:
                    g, seq = g + 1, False
                elif v == 0xFFFE:
                    seq = True
                elif not seq and g < count:
                    cmap.setdefault(v, g)
        else:
            for g, entry in enumerate(t.split(b"\xff")[:count]):
                for ch in entry.split(b"\xfe")[0].decode("utf-8", "replace"):
                    cmap.setdefault(ord(ch), g)
    else:
        cmap = {c: c for c in range(min(256, count))}
    fallback = cmap.get(ord("?"), 0)
    return width, height, glyphs, [cmap.get(c, fallback) for c in range(256)]


def console_text(serial, cols, rows):
    """Replay what the kernel printed from its banner on, by fbcon.c's rules.
    Returns (list of row strings, cursor column, cursor row, rows scrolled off the top)."""
    starts = [m.start() for m in re.finditer(r"\r?\nfaultline [0-9.]+: a teaching kernel", serial)]
    if not starts:
        raise ValueError("no kernel banner in the serial log")
    s = serial[starts[-1]:].replace("\r\n", "\n")  # the serial driver adds the \r
    grid = [[" "] * cols for _ in range(rows)]
    x = y = esc = scrolled = 0

    def newline():
        nonlocal x, y, scrolled
        x, y = 0, y + 1
        if y >= rows:
            grid.pop(0)
            grid.append([" "] * cols)
            y, scrolled = rows - 1, scrolled + 1

    for ch in s:
        c = ord(ch)
        if esc == 1:
            esc = 2 if ch == "[" else 0
        elif esc == 2:
            esc = 0 if 0x40 <= c <= 0x7E else 2
        elif c == 0x1B:
            esc = 1
        elif ch == "\n":
            newline()
        elif ch == "\r":
            x = 0
        elif ch == "\t":
            x = (x + 8) & ~7
            if x >= cols:
                newline()
        elif ch == "\b":
            x = max(x - 1, 0)
        elif c >= 0x20 and c != 0x7F:
            grid[y][x] = chr(c & 0xFF)
            x += 1
            if x >= cols:
                newline()
    return ["".join(r) for r in grid], x, y, scrolled


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args[0].startswith("--") else ""
    name, ppm, log, psf = args
    n_fail = 0

    def check(ok, what):
        nonlocal n_fail
        print(("ok - " if ok else "not ok - ") + f"screen {name}: {what}")
        n_fail += not ok
        return ok

    try:
        w, h, px = read_ppm(ppm)
    except (OSError, ValueError, AttributeError) as e:
        check(False, f"no usable screendump {ppm}: {e}")
        return 1
    if not check((w, h) == (WIDTH, HEIGHT), f"the screen is {w}x{h} (want {WIDTH}x{HEIGHT})"):
        return 1

    def pixel(x, y):
        i = (y * w + x) * 3
        return tuple(px[i:i + 3])

    fg, bg = bytes(FG), bytes(BG)
    n_bg = sum(px[i:i + 3] == bg for i in range(0, len(px), 3))
    check(n_bg * 2 > w * h, f"the background is #{BG[0]:02x}{BG[1]:02x}{BG[2]:02x} "
          f"({100 * n_bg // (w * h)}% of the pixels)")

    gw, gh, glyphs, cmap = read_psf(psf)
    cols, rows = min(w // gw, MAX_COLS), min(h // gh, MAX_ROWS)
    top = px[:4 * gh * w * 3]
    n_fg = sum(top[i:i + 3] == fg for i in range(0, len(top), 3))
    check(n_fg >= 20, f"the first 4 text rows have {n_fg} foreground pixels "
          f"#{FG[0]:02x}{FG[1]:02x}{FG[2]:02x} (text was drawn)")

    # One cell as the kernel draws it: the glyph's pixel rows as RGB bytes.
    def cell_bytes(ch, cursor=False):
        g = glyphs[cmap[ord(ch)]]
        return [b"".join(fg if bit or (cursor and y + CURSOR_ROWS >= gh) else bg for bit in row)
                for y, row in enumerate(g)]

    def screen_cell(col, row):
        return [px[((row * gh + y) * w + col * gw) * 3:((row * gh + y) * w + (col + 1) * gw) * 3]
                for y in range(gh)]

    def looks_like(col, row):
        got = screen_cell(col, row)
        for c in range(32, 127):
            if cell_bytes(chr(c)) == got:
                return repr(chr(c))
        return "no ASCII glyph"

    try:
        text, cx, cy, scrolled = console_text(open(log, encoding="latin-1").read(), cols, rows)
    except (OSError, ValueError) as e:
        check(False, f"cannot replay the serial log: {e}")
        return 1
    if mode == "--banner" and scrolled:
        # A boot longer than the screen (UEFI's memory map, the PCI devices, the CPUs) has
        # pushed the banner off: the first character still on the screen, checked the same way
        r, c = next(((r, c) for r in range(rows) for c in range(cols) if text[r][c] != " "),
                    (0, 0))
        check(screen_cell(c, r) == cell_bytes(text[r][c]),
              f"the banner scrolled {scrolled} rows off a {rows}-row screen; the first "
              f"character left, {text[r][c]!r} at row {r}, column {c}, is the font's glyph "
              f"(the cell shows {looks_like(c, r)})")
    elif mode == "--banner":
        # kmain prints "\nfaultline ...": the banner's 'f' is the first cell of row 1.
        check(screen_cell(0, 1) == cell_bytes("f"),
              "the banner's 'f' at row 1, column 0 is the font's glyph for 'f' "
              f"(the cell shows {looks_like(0, 1)})")
    if mode == "--scrolled":
        check(scrolled > 0, f"the text scrolled by {scrolled} rows")
    bad = [(r, c) for r in range(rows) for c in range(cols)
           if screen_cell(c, r) != cell_bytes(text[r][c], (c, r) == (cx, cy))]
    detail = "; ".join(f"row {r} col {c}: want {text[r][c]!r}, shows {looks_like(c, r)}"
                       for r, c in bad[:3])
    check(not bad, f"all {cols}x{rows} cells show the serial log's last lines in the font, "
          f"cursor at row {cy} column {cx}" + (f" ({len(bad)} differ: {detail})" if bad else ""))
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
