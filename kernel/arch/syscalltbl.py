#!/usr/bin/env python3
# Reads kernel/arch/syscall_64.tbl (its first lines say its form) and writes what is made
# from it. usage: syscalltbl.py header|doc|gaps TBL
#   header: the rows __SYSCALL(nr, name, entry, (args)) of build/gen/syscalls_64.h
#   doc:    docs/syscalls.md's generated block: each call, its file, and the gaps
#   gaps:   make syscalls: the numbers below the highest one that are -ENOSYS, named as this
#           host's <asm/unistd_64.h> names them
import os
import re
import sys

NI = "sys_ni_syscall"  # -ENOSYS without the console line (kernel/syscall.c)
MAX_NR = 511  # the dispatch table is an array indexed by number: keep it small
SOURCES = ("kernel", "mm", "drivers")  # where the entry points are defined
HOST_UNISTD = ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h")


def fail(where, why):
    sys.exit("%s: %s" % (where, why))


def parse(path):
    """The table's calls in order: (nr, name, entry, [C declarations of the arguments])."""
    records = []  # [line number, text] with the continuation lines joined
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].rstrip()
            if not line:
                continue
            if line[0] in " \t":
                if not records or not records[-1][1].endswith(","):
                    fail("%s:%d" % (path, n), "an indented line continues no line")
                records[-1][1] += " " + line.strip()
            else:
                records.append([n, line])
    calls, entries, names = [], {}, set()
    for n, text in records:
        where = "%s:%d" % (path, n)
        fields = text.split(None, 3)
        if len(fields) < 3 or not fields[0].isdigit():
            fail(where, "not <number> <name> <entry point> <arguments>")
        nr, name, entry = int(fields[0]), fields[1], fields[2]
        if calls and nr <= calls[-1][0]:
            fail(where, "%d is not after %d: the table is in number order" % (nr, calls[-1][0]))
        if nr > MAX_NR:
            fail(where, "%d is above %d" % (nr, MAX_NR))
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or name in names:
            fail(where, "the name %r is not a new C identifier" % name)
        if not re.fullmatch(r"sys_[a-z0-9_]+", entry):
            fail(where, "the entry point %r is not sys_something" % entry)
        args = []
        for a in (fields[3].split(",") if len(fields) > 3 else []):
            a = " ".join(a.split())
            if not re.fullmatch(r"([a-z_][a-z0-9_]*\s)*[a-z_][a-z0-9_]*", a):
                fail(where, "the argument %r is not a name or a C type and a name" % a)
            args.append(a if " " in a else "uint64_t " + a)
        if len(args) > 6:
            fail(where, "more than the 6 arguments a system call has")
        if entries.setdefault(entry, args) != args:
            fail(where, "%s takes other arguments on an earlier line" % entry)
        names.add(name)
        calls.append((nr, name, entry, args))
    if not calls:
        fail(path, "no system call")
    return calls


def prototype_args(args):
    return "(%s)" % (", ".join(args) or "void")


def header(path, calls):
    print("/* Made by kernel/arch/syscalltbl.py from %s: edit that, not this. */" % path)
    for nr, name, entry, args in calls:
        print("__SYSCALL(%d, %s, %s, %s)" % (nr, name, entry, prototype_args(args)))


def gaps(calls):
    """The numbers below the highest one that dispatch to -ENOSYS, each with the name the
    table gives it (a sys_ni_syscall line) or None."""
    named = {nr: (name if entry == NI else False) for nr, name, entry, _ in calls}
    return [(nr, named.get(nr)) for nr in range(calls[-1][0]) if named.get(nr) is not False]


def ranges(numbers):
    """[1, 2, 3, 7] as "1-3, 7"."""
    out = []
    for n in numbers:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in out)


def definitions():
    """Each sys_* function's defining file, from the sources (the labs' stubs left out)."""
    where = {}
    for top in SOURCES:
        for d, subdirs, files in os.walk(top):
            subdirs[:] = sorted(s for s in subdirs if os.path.join(d, s) != "mm/exercises")
            for f in sorted(files):
                if f.endswith(".c"):
                    p = os.path.join(d, f)
                    with open(p) as src:
                        for m in re.finditer(r"^long (sys_\w+)\(", src.read(), re.M):
                            where.setdefault(m.group(1), []).append(p)
    return where


def wrap(text, width=100):
    lines, cur = [], ""
    for w in text.split():
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = cur + " " + w if cur else w
    return "\n".join(lines + [cur])


def doc(path, calls):
    where = definitions()
    print("| number | call | defined in |")
    print("|--:|---|---|")
    for nr, name, entry, _ in calls:
        if entry == NI:
            continue
        files = where.get(entry, [])
        if len(files) != 1:
            fail(path, "%s is defined in %s, not in one file" % (entry, files or "no file"))
        call = "`%s`" % name
        if entry != "sys_" + name:
            call += " (`%s`)" % entry
        print("| %d | %s | `%s` |" % (nr, call, files[0]))
    g = gaps(calls)
    loud = [nr for nr, name in g if not name]
    quiet = ["%d (`%s`)" % (nr, name) for nr, name in g if name]
    print()
    print(wrap("%d calls. The numbers below %d without one (-ENOSYS, and a console line): %s."
               % (len(calls) - len(quiet), calls[-1][0], ranges(loud))))
    if quiet:
        print(wrap("-ENOSYS without the line (`%s`): %s." % (NI, ", ".join(quiet))))


def host_names():
    for p in HOST_UNISTD:
        if os.path.exists(p):
            with open(p) as f:
                return p, {int(m.group(2)): m.group(1) for m in
                           re.finditer(r"^#define __NR_(\w+) (\d+)$", f.read(), re.M)}
    return None, {}


def print_gaps(path, calls):
    hpath, host = host_names()
    ni = [nr for nr, _, entry, _ in calls if entry == NI]
    print("%s: %d system calls, the highest %d (%s)" % (path, len(calls) - len(ni),
                                                       calls[-1][0], calls[-1][1]))
    for nr, name, entry, _ in calls:
        if nr in host and host[nr] != name:
            print("  note: %d is %s here, %s in %s" % (nr, name, host[nr], hpath))
    print("-ENOSYS below %d%s" % (calls[-1][0], ", with Linux's names from " + hpath
                                  if hpath else "") + ("\n(* %s: without a console line)" % NI
                                                       if ni else "") + ":")
    cells, unnamed = [], []
    for nr, name in gaps(calls) + [(None, None)]:
        if nr is not None and name is None and nr not in host:
            unnamed.append(nr)
            continue
        if unnamed:
            cells.append("%s none" % ranges(unnamed))
            unnamed = []
        if nr is not None:
            cells.append("%3d %s%s" % (nr, name or host[nr], "*" if name else ""))
    width = max(len(c) for c in cells) + 2
    for i in range(0, len(cells), 3):
        print("  " + "".join(c.ljust(width) for c in cells[i:i + 3]).rstrip())
    if hpath:
        print("(none: no call has the number in Linux's table, as this host's headers give it)")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("header", "doc", "gaps"):
        sys.exit("usage: syscalltbl.py header|doc|gaps TBL")
    path = sys.argv[2]
    calls = parse(path)
    {"header": header, "doc": doc, "gaps": print_gaps}[sys.argv[1]](path, calls)


if __name__ == "__main__":
    main()
