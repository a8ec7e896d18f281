#!/usr/bin/env python3
# The pixels of tests/boot/fbdemo.sh's two screendumps (PPM): DEMO.ppm taken while fbdemo holds
# /dev/fb0 mapped, CONSOLE.ppm after it exited. Prints "demo True|False ..." and
# "console True|False ...". usage: fbdemo.py DEMO.ppm CONSOLE.ppm
import sys


def load(path):
    """width, height and a pixel(x, y) -> (r, g, b) function of a binary PPM (P6)"""
    d = open(path, 'rb').read().split(b'\n', 3)
    w, h = map(int, d[1].split())
    return w, h, lambda x, y: tuple(d[3][(y * w + x) * 3:(y * w + x) * 3 + 3])


# the gradient's corners (black, red, blue) and a point inside the Mandelbrot set (black)
w, h, p = load(sys.argv[1])
ok = (w, h) == (1024, 768) and p(0, 0) == (0, 0, 0) and p(w - 1, 0) == (255, 0, 0) \
    and p(0, h // 4 - 1) == (0, 0, 255) and p(w * 6 // 10, h * 5 // 8) == (0, 0, 0)
print('demo', ok, p(0, 0), p(w - 1, 0), p(0, h // 4 - 1), p(w * 6 // 10, h * 5 // 8))

# the console's background colour (0x102040) on most of a 16-pixel grid
w, h, p = load(sys.argv[2])
back = sum(p(x, y) == (0x10, 0x20, 0x40) for x in range(0, w, 16) for y in range(0, h, 16))
print('console', back > 1000, back)
