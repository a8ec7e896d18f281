#!/usr/bin/env python3
"""The disk test's image: make one (each 512-byte sector stamped "SECTOR%08d", dots after),
or check one against what user/disk-rw.c wrote into it. usage: disk-image.py make|check FILE
SECTORS. check prints one reason per mismatch and exits 1 if there is any."""
import sys


def stamp(s):
    return (b"SECTOR%08d" % s).ljust(512, b".")


def expected(sectors):
    """The image after disk-rw: its writes on top of the stamps, as (offset, bytes)."""
    return [(300 * 512, b"WRITTEN-300".ljust(512, b"W")),
            (400 * 512 + 450, b"p" * 600),
            (500 * 512 + 1, b"hello, disk"),
            (sectors * 512 - 2, b"ta")]


def main():
    what, path, sectors = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if what == "make":
        with open(path, "wb") as f:
            f.write(b"".join(stamp(s) for s in range(sectors)))
        return 0
    img = bytearray(b"".join(stamp(s) for s in range(sectors)))
    for off, data in expected(sectors):
        img[off:off + len(data)] = data
    with open(path, "rb") as f:
        got = f.read()
    bad = 0
    if len(got) != len(img):
        print("%s: %d bytes, not %d" % (path, len(got), len(img)))
        return 1
    for s in range(sectors):
        if got[s * 512:(s + 1) * 512] != img[s * 512:(s + 1) * 512]:
            print("%s: sector %d differs: %r" % (path, s, got[s * 512:s * 512 + 40]))
            bad += 1
            if bad > 5:
                break
    return 1 if bad else 0


sys.exit(main())
