#!/usr/bin/env python3
"""mapview: turn a faultline fault trace (the `faulttrace` kernel parameter's lines in a serial
log) into an SVG picture of each process's address space: its VMAs as bands coloured by their
fault op (anon, file, device, ...), and every fault as a mark on its VMA, coloured by what came
of it (minor, major, copy-on-write, NOPAGE, SIGBUS, bad access). Address gaps between VMAs are
squeezed so that a stack at 0x7fff... and a program at 0x400000 both show.

usage: python3 tests/mapview.py SERIAL_LOG OUT.svg [PID...]
"""
import html
import re
import sys

LINE = re.compile(r"faulttrace: pid (\d+) \((\S*)\) addr ([0-9a-f]+) pgoff (\d+)"
                  r"(?: \(nonlinear, from the PTE\))? error 0x([0-9a-f]+) \(([^)]*)\) "
                  r"vma ([0-9a-f]+)-([0-9a-f]+) (\S+) -> 0x([0-9a-f]+)(.*)")
OP_COLOURS = {"anon": "#8fb8de", "file": "#a3d9a5", "file-nopage": "#d9d3a3",
              "device": "#e0a3d9", "none": "#dddddd"}
RESULT_COLOURS = [("bad-area", "#d62728"), ("SIGBUS", "#ff7f0e"), ("OOM", "#8c564b"),
                  ("NOPAGE", "#9467bd"), ("WRITE", "#1f77b4"), ("MAJOR", "#2ca02c")]
MINOR_COLOUR = "#555555"
ROW, BAND, WIDTH, LEFT = 70, 26, 1000, 150


def parse(path):
    """{pid: {"comm", "vmas": {(start, end): op}, "faults": [(addr, start, end, kind)]}}"""
    procs = {}
    for text in open(path, errors="replace"):
        m = LINE.search(text)
        if not m:
            continue
        pid, comm = int(m.group(1)), m.group(2)
        addr, start, end = int(m.group(3), 16), int(m.group(7), 16), int(m.group(8), 16)
        op, tail = m.group(9), m.group(11)
        p = procs.setdefault(pid, {"comm": comm, "vmas": {}, "faults": []})
        kind = next((k for k, _ in RESULT_COLOURS if k in tail), "minor")
        if start == end == 0:
            start, end = addr & ~0xfff, (addr & ~0xfff) + 0x1000
        p["vmas"].setdefault((start, end), op)
        p["faults"].append((addr, start, end, kind))
    return procs


def layout(vmas):
    """x position for an address: each VMA gets width by log size, gaps a fixed small step."""
    spans, total = [], 0.0
    for (start, end) in sorted(vmas):
        w = 40 + 20 * max(0, (end - start).bit_length() - 12)
        spans.append((start, end, total, w))
        total += w + 12
    scale = (WIDTH - LEFT - 20) / max(total, 1)
    return [(s, e, LEFT + x * scale, w * scale) for s, e, x, w in spans]


def svg(procs, pids):
    rows = [pid for pid in sorted(procs) if not pids or pid in pids]
    height = 60 + ROW * len(rows) + 40
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="monospace" font-size="11">' % (WIDTH, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">faultline: address spaces and page faults '
           '(VMAs by op, faults by result)</text>']
    for i, pid in enumerate(rows):
        p, y = procs[pid], 50 + ROW * i
        out.append('<text x="10" y="%d">pid %d %s</text>' % (y + 17, pid, html.escape(p["comm"])))
        spans = layout(p["vmas"])
        for start, end, x, w in spans:
            op = p["vmas"][(start, end)]
            out.append('<rect class="vma" x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" '
                       'stroke="#333"><title>%x-%x %s</title></rect>'
                       % (x, y, w, BAND, OP_COLOURS.get(op, "#cccccc"), start, end, op))
            out.append('<text x="%.1f" y="%d" font-size="9">%s %x</text>' % (x + 2, y + BAND + 11,
                                                                             op, start))
        for addr, start, end, kind in p["faults"]:
            for s, e, x, w in spans:
                if (s, e) == (start, end):
                    fx = x + w * (addr - s) / max(e - s, 1)
                    colour = dict(RESULT_COLOURS).get(kind, MINOR_COLOUR)
                    out.append('<line class="fault %s" x1="%.1f" x2="%.1f" y1="%d" y2="%d" '
                               'stroke="%s" stroke-width="1.5"><title>%x %s</title></line>'
                               % (kind, fx, fx, y - 4, y + BAND + 4, colour, addr, kind))
    y = height - 20
    x = 10
    for name, colour in [("minor", MINOR_COLOUR)] + RESULT_COLOURS:
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                   '<text x="%d" y="%d">%s</text>' % (x, x, y - 8, y + 4, colour, x + 5, y, name))
        x += 90
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    procs = parse(sys.argv[1])
    if not procs:
        sys.exit("mapview: no faulttrace lines in %s (boot with the faulttrace parameter)"
                 % sys.argv[1])
    open(sys.argv[2], "w").write(svg(procs, {int(a) for a in sys.argv[3:]}))
    print("mapview: %d processes, %d VMAs, %d faults -> %s"
          % (len(procs), sum(len(p["vmas"]) for p in procs.values()),
             sum(len(p["faults"]) for p in procs.values()), sys.argv[2]))


if __name__ == "__main__":
    main()
