#!/usr/bin/env python3
"""What crosses between kernel/, mm/ and drivers/ (docs/layout.md, "Between `kernel/`, `mm/`
and `drivers/`"): the #include lines from one folder to another, the circles among them, and
the headers each side may reach of the other.

usage: tests/docs/includes.py [show|matrix|check] [BUILD_DIR]
  show    (default) the matrix, the circles, each header included across folders and by
          whom, and every header that declares what another folder defines
  matrix  the matrix alone (the block docs/layout.md shows, kept by tests/docs/figures.sh)
  check   the checks make test runs (TAP lines, a plan first)

A module is a .c file with the header of the same name (kernel/arch/trap.c and .h); a circle is
two modules of different folders that include each other's header. A header that declares a
function or variable another folder defines would hide a circle from that count: the
declarations are checked against the symbols of BUILD_DIR's objects (default build/).
"""
import os
import re
import subprocess
import sys

TOPS = ("kernel", "mm", "drivers")
# The circle that stays: a trap enters through kernel/arch/trap.c, which hands a page fault to
# mm/fault.c; mm/fault.c reads the trap's registers (struct pt_regs) and, for a kernel fault
# it cannot resolve, asks the trap code's catcher (fault_catch_handle).
ALLOWED_CIRCLES = {("kernel/arch/trap", "mm/fault")}
LAYOUT = "docs/layout.md"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def top(path):
    return path.split("/")[0]


def module(path):
    return os.path.splitext(path)[0]


def sources():
    """Every C, header and assembly file of kernel/, mm/ and drivers/, sorted."""
    out = []
    for t in TOPS:
        for d, _, files in os.walk(t):
            out += [os.path.join(d, f) for f in files if f.endswith((".c", ".h", ".S"))]
    return sorted(out)


def includes(files):
    """(file, header) for each #include of a header in kernel/, mm/ or drivers/."""
    out = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                m = INCLUDE.match(line)
                if m and top(m.group(1)) in TOPS:
                    out.append((f, m.group(1)))
    return out


def matrix(incs):
    count = {(a, b): 0 for a in TOPS for b in TOPS}
    for f, h in incs:
        count[(top(f), top(h))] += 1
    lines = ["%-16s" % "#include from" + "".join("%12s" % ("to " + b) for b in TOPS)]
    for a in TOPS:
        lines.append("%-16s" % a + "".join(
            "%12s" % ("-" if a == b else count[(a, b)]) for b in TOPS))
    return lines


def circles(incs):
    """Pairs of modules of different folders that include each other's header."""
    edges = {}
    for f, h in incs:
        if module(f) != module(h):
            edges.setdefault(module(f), set()).add(module(h))
    out = set()
    for a, bs in edges.items():
        for b in bs:
            if top(a) != top(b) and a in edges.get(b, ()):
                out.add(tuple(sorted((a, b))))
    return sorted(out)


def defined_symbols(build):
    """{symbol: source file} for the global symbols build's objects define; None without them."""
    objs = []
    for t in TOPS:
        for d, dirs, files in os.walk(os.path.join(build, t)):
            dirs[:] = [x for x in dirs if x != "exercises"]  # the labs' stubs replace symbols
            objs += [os.path.join(d, f) for f in files if f.endswith(".o")]
    if not objs:
        return None
    out = {}
    nm = subprocess.run(["nm", "--defined-only", "-g", "-A"] + sorted(objs),
                        capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        obj, _, rest = line.partition(":")
        fields = rest.split()
        if len(fields) == 3:
            out.setdefault(fields[2], os.path.relpath(obj, build)[:-len(".o")])
    return out


def declared_names(header):
    """The functions and variables a header declares at file scope (not its static inlines,
    types or macros): the name before the first parenthesis of a prototype, the names of an
    extern line."""
    with open(header, encoding="utf-8") as fh:
        text = fh.read()
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    names, depth, cont = [], 0, False
    for line in text.split("\n"):
        starts = depth == 0 and not cont and line[:1] not in ("", " ", "\t", "#", "}")
        cont = line.rstrip().endswith("\\")
        if starts and not re.match(r"(static|typedef|struct|union|enum)\b", line):
            if line.startswith("extern") and "(" not in line:
                names += re.findall(r"(\w+)\s*(?:\[[^\]]*\])?\s*[,;]", line)
            else:
                m = re.search(r"(\w+)\s*\(", line)
                if m:
                    names.append(m.group(1))
        depth += line.count("{") - line.count("}")
    return names


def misplaced(files, defs):
    """(header, name, defining file) for each declaration of what another folder defines."""
    out = []
    for h in files:
        if h.endswith(".h"):
            for n in declared_names(h):
                if n in defs and top(defs[n]) != top(h):
                    out.append((h, n, defs[n]))
    return out


def layout_list(title):
    """The headers (backticked paths) of docs/layout.md's paragraph that starts with title."""
    with open(LAYOUT, encoding="utf-8") as fh:
        paras = fh.read().split("\n\n")
    for p in paras:
        if p.startswith(title):
            return set(re.findall(r"`([a-z_/0-9-]+\.h)`", p))
    return None


def crossing(incs, src_tops, dst_tops):
    """{header: [files]} for the includes from src_tops of headers in dst_tops."""
    out = {}
    for f, h in incs:
        if top(f) in src_tops and top(h) in dst_tops:
            out.setdefault(h, []).append(f)
    return out


DRIVERS_MAY = "Headers of `kernel/` and `mm/` meant for drivers"
KERNEL_MAY = "What `kernel/` and `mm/` include of `drivers/`"
KMAIN_MAY = "`kernel/main.c` alone"


def show(files, incs, build):
    print("\n".join(matrix(incs)))
    print("\ncircles (modules of two folders that include each other's header):")
    for a, b in circles(incs):
        print("  %s <-> %s%s" % (a, b, "  (allowed)" if (a, b) in ALLOWED_CIRCLES else ""))
    for title, src, dst in (("drivers/ includes", ("drivers",), ("kernel", "mm")),
                            ("kernel/ and mm/ include", ("kernel", "mm"), ("drivers",))):
        print("\n%s:" % title)
        for h, fs in sorted(crossing(incs, src, dst).items()):
            print("  %-28s %s" % (h, " ".join(sorted(fs))))
    defs = defined_symbols(build)
    if defs is None:
        print("\n(no objects in %s/: build first to check the declarations)" % build)
        return
    print("\nheaders that declare what another folder defines:")
    for h, n, d in misplaced(files, defs):
        print("  %s: %s (%s)" % (h, n, d))


def check(files, incs, build):
    results = []

    def result(good, what, bad):
        results.append(("ok - " if good else "not ok - ") + what +
                        ("" if good else ": " + "; ".join(bad)))

    found = circles(incs)
    new = [a + " <-> " + b for a, b in found if (a, b) not in ALLOWED_CIRCLES]
    # the circle that stays is the proof that the search sees one
    gone = ["%s <-> %s is not found" % c for c in sorted(ALLOWED_CIRCLES) if c not in found]
    result(not new and not gone, "includes: no circle between folders but"
           " kernel/arch/trap <-> mm/fault, which is found", new + gone)
    defs = defined_symbols(build)
    if defs is None:
        results.append("ok - includes: every header declares only what its folder defines"
                       " # SKIP no objects in %s/ (make)" % build)
    else:
        bad = ["%s declares %s (%s)" % m for m in misplaced(files, defs)]
        # and the declarations are seen: each folder's headers declare what it defines
        seen = {top(h) for h in files if h.endswith(".h")
                for n in declared_names(h) if n in defs and top(defs[n]) == top(h)}
        bad += ["no header of %s/ is seen declaring what %s/ defines" % (t, t)
                for t in TOPS if t not in seen]
        result(not bad, "includes: every header declares only what its folder defines", bad)
    may = layout_list(DRIVERS_MAY)
    bad = ["%s (%s)" % (h, " ".join(fs)) for h, fs in
           sorted(crossing(incs, ("drivers",), ("kernel", "mm")).items())
           if may is None or h not in may]
    result(may and not bad, "includes: drivers/ includes of kernel/ and mm/ only the headers"
           " docs/layout.md lists for drivers", bad or ["docs/layout.md has no such list"])
    may, kmain = layout_list(KERNEL_MAY), layout_list(KMAIN_MAY)
    bad = []
    for h, fs in sorted(crossing(incs, ("kernel", "mm"), ("drivers",)).items()):
        fs = [f for f in fs if not (f == "kernel/main.c" and kmain and h in kmain)]
        if fs and (may is None or h not in may):
            bad.append("%s (%s)" % (h, " ".join(fs)))
    result(may and kmain and not bad, "includes: kernel/ and mm/ include of drivers/ only the"
           " interfaces docs/layout.md lists", bad or ["docs/layout.md has no such lists"])
    print("1..%d" % len(results))
    print("\n".join(results))


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "show"
    build = sys.argv[2] if len(sys.argv) > 2 else "build"
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    files = sources()
    incs = includes(files)
    if mode == "show":
        show(files, incs, build)
    elif mode == "matrix":
        print("\n".join(matrix(incs)))
    elif mode == "check":
        check(files, incs, build)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
