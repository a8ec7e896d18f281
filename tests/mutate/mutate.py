#!/usr/bin/env python3
# make mutate: break one invariant at a time (tests/mutate/mutants.txt) in a scratch copy of the
# tree, build it, run the small test that must notice, and print a table of who caught what.
# usage: tests/mutate/mutate.py [--list FILE] [--check] [NAME...] (docs/testing.md, "Mutation
# testing"); --check only checks that every mutant's anchors are found.
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.path.join(TOP, "build", "mutate")
TREE = os.path.join(WORK, "tree")  # the scratch copy: the working tree is never written
LOGS = os.path.join(WORK, "logs")
EXTRA = os.path.join(WORK, "extra")  # INITRD_EXTRA: the ring-3 tests' runlists
KINDS = ("host", "ktest", "ring3", "script")
TIMEOUT = int(os.environ.get("MUTATE_TIMEOUT", "150"))  # QEMU's limit per boot
RING3_LISTS = ("user/expect.txt", "tests/ring3-host.txt", "tests/ring3-faultline.txt")
FRAMES = re.compile(r"^frames: (\d+) free or cached before, (\d+) after$", re.M)


class Skipped(Exception):
    """A test that skipped a check: no verdict either way."""


class Mutant:
    def __init__(self, name, lineno):
        self.name, self.lineno = name, lineno
        self.breaks = self.file = self.test = None
        self.subs = []  # (from, to) pairs, applied in order, each anchor found exactly once


def unescape(s):
    return s.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")


def parse(path):
    """The mutants of path: blocks of "key: value" lines, each opening with "mutant: NAME"."""
    mutants, cur, errors = [], None, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            key, sep, val = line.partition(":")
            val = val[1:] if val.startswith(" ") else val
            if not sep or key not in ("mutant", "breaks", "file", "from", "to", "test"):
                errors.append("%s:%d: not a 'key: value' line" % (path, n))
            elif key == "mutant":
                cur = Mutant(val.strip(), n)
                mutants.append(cur)
            elif cur is None:
                errors.append("%s:%d: %s before the first mutant:" % (path, n, key))
            elif key == "from":
                cur.subs.append([unescape(val), None])
            elif key == "to":
                if not cur.subs or cur.subs[-1][1] is not None:
                    errors.append("%s:%d: to: without its from:" % (path, n))
                else:
                    cur.subs[-1][1] = unescape(val)
            else:
                setattr(cur, key, val.strip())
    names = set()
    for m in mutants:
        where = "%s:%d: mutant %s" % (path, m.lineno, m.name)
        if m.name in names:
            errors.append("%s: a second mutant of that name" % where)
        names.add(m.name)
        for key in ("breaks", "file", "test"):
            if not getattr(m, key):
                errors.append("%s: no %s: line" % (where, key))
        if not m.subs or any(t is None for _, t in m.subs):
            errors.append("%s: needs from:/to: pairs" % where)
        if m.test and m.test.split()[0] not in KINDS:
            errors.append("%s: test kind not one of %s" % (where, ", ".join(KINDS)))
    return mutants, errors


def sh(cmd, log, cwd=TREE, timeout=None):
    """Run cmd (a list) with its output in log; its exit status (124 when it timed out)."""
    with open(log, "a") as out:
        out.write("$ %s\n" % " ".join(shlex.quote(c) for c in cmd))
        out.flush()
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            out.write("(timed out after %d s)\n" % timeout)
            return 124


def sync_tree():
    """Make the scratch tree's sources those of the working tree (tracked and untracked files
    git does not ignore). Only files whose contents differ are written, so that the scratch
    build stays incremental; a mutant left behind by an interrupted run is undone here. A file
    the working tree no longer has goes from the scratch tree too: the build takes every .c of
    a folder, so a file moved elsewhere would otherwise be built twice."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=TOP,
                           check=True, capture_output=True).stdout.decode().split("\0")
    keep = set(filter(None, files))
    for root, dirs, names in os.walk(TREE):
        if root == TREE:
            dirs[:] = [d for d in dirs if d != "build"]  # the scratch build's own output
        for name in names:
            rel = os.path.relpath(os.path.join(root, name), TREE)
            if rel not in keep:
                os.remove(os.path.join(root, name))
    for rel in filter(None, files):
        src, dst = os.path.join(TOP, rel), os.path.join(TREE, rel)
        if not os.path.isfile(src):
            continue  # deleted in the working tree, not yet in the index
        with open(src, "rb") as f:
            data = f.read()
        try:
            with open(dst, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(data)
            shutil.copymode(src, dst)


def mutated(m):
    """The mutant's file with its substitutions applied, or why it cannot be made."""
    with open(os.path.join(TOP, m.file)) as f:
        text = f.read()
    for old, new in m.subs:
        n = text.count(old)
        if n != 1:
            what = "anchor not found" if n == 0 else "anchor found %d times" % n
            return None, "mutant %s: %s in %s: %r" % (m.name, what, m.file, old[:60])
        text = text.replace(old, new)
    return text, None


def expectations():
    """The expected result of each ring-3 program line, from the suite's lists."""
    want = {}
    for rel in RING3_LISTS:
        with open(os.path.join(TREE, rel)) as f:
            for line in f:
                if line.startswith("#") or "|" not in line:
                    continue
                result, _, prog = line.partition("|")
                want[prog.strip()] = result.strip()
    return want


class Test:
    """One test of the list: "KIND [--option VALUE]... ARGS". For ring3, ARGS are runlist
    lines separated by ';'; --swap MIB adds a swap disk of MIB MiB."""

    def __init__(self, spec, key):
        words = spec.split()
        self.spec, self.kind, self.key = spec, words[0], key
        self.opts, rest = {}, words[1:]
        while self.kind in ("ktest", "ring3") and rest and rest[0].startswith("--"):
            self.opts[rest[0][2:]] = rest[1]
            rest = rest[2:]
        self.args = " ".join(rest)
        # runlist lines: "PROG ARGS" (expected as the suite's lists say) or "RESULT | PROG"
        self.lines, self.want = [], {}
        for p in filter(None, (p.strip() for p in self.args.split(";"))):
            if "|" in p:
                result, _, p = p.partition("|")
                self.want[p.strip()] = result.strip()
            self.lines.append(p.strip())

    def make_target(self):
        return ["build/host/" + self.args] if self.kind == "host" else ["iso"]

    def write_list(self):
        if self.kind != "ring3":
            return
        lines = self.lines
        if "swap" in self.opts:  # the swap in use before and after each program
            used = "timeout=20 /bin/sh /etc/swap-used.sh"
            lines = [used] + [x for p in lines for x in (p, used)]
        os.makedirs(os.path.join(EXTRA, "etc", "mutate"), exist_ok=True)
        with open(os.path.join(EXTRA, "etc", "mutate", self.key + ".list"), "w") as f:
            f.write("".join(x + "\n" for x in lines))

    def boot(self, kargs, log):
        serial = log + ".serial"
        if os.path.exists(serial):
            os.remove(serial)
        cmd = ["sh", "tests/lib/qemu.sh", "--iso", "build/faultline.iso", "--serial", serial,
               "--timeout", str(TIMEOUT), "--mem", self.opts.get("mem", "256M"),
               "--kargs", (kargs + " " + self.opts.get("kargs", "")).strip()]
        for opt in ("smp", "cpu", "machine"):
            if opt in self.opts:
                cmd += ["--" + opt, self.opts[opt]]
        if "swap" in self.opts:
            img = os.path.join(WORK, "swap.img")
            mkswap = os.environ.get("MKSWAP", "/sbin/mkswap")
            if os.path.exists(img):
                os.remove(img)
            with open(img, "wb") as f:
                f.truncate(int(self.opts["swap"]) << 20)
            if sh([mkswap, img], log) != 0:
                return None, "mkswap failed"
            cmd += ["--disk", img]
        rc = sh(cmd, log, timeout=TIMEOUT + 30)
        try:
            with open(serial, errors="replace") as f:
                text = f.read().replace("\r", "")
        except OSError:
            text = ""
        return rc, text

    def run(self, log):
        """None if the test passes, else a one-line reason it failed."""
        if self.kind == "host":
            rc = sh(["build/host/" + self.args], log)
            with open(log, errors="replace") as f:
                nok = re.search(r"^not ok - .*", f.read(), re.M)
            return nok.group(0) if nok else ("exit %d" % rc if rc else None)
        if self.kind == "script":
            rc = sh(["sh"] + shlex.split(self.args), log, timeout=TIMEOUT * 4)
            with open(log, errors="replace") as f:
                out = f.read()
            nok = re.search(r"^(not ok - |FAIL ).*", out, re.M)
            skip = re.search(r"^ok - .*# SKIP.*", out, re.M)
            if skip and not nok:  # a check that did not run neither passes nor catches
                raise Skipped(skip.group(0))
            return nok.group(0) if nok else ("exit %d" % rc if rc else None)
        if self.kind == "ktest":
            rc, text = self.boot("ktest=" + self.args, log)
            nok = re.search(r"^not ok \d+ - .*", text, re.M)
            if nok:
                return nok.group(0)
            # a KTEST_SMP test on too few CPUs skips (and the runner exits as a failure)
            skip = re.search(r"^ok \d+ - .*# SKIP.*", text, re.M)
            if skip:
                raise Skipped(skip.group(0))
            return None if rc == 33 else "QEMU exit status %s, not 33" % rc
        return self.run_ring3(log)

    def run_ring3(self, log):
        want = dict(expectations(), **self.want)
        rc, text = self.boot("runlist=/etc/mutate/%s.list runstats kcheck" % self.key, log)
        if rc is None:
            return text
        if "run: done" not in text:
            return "no 'run: done' (QEMU exit status %d)" % rc
        for line in self.lines:
            got = re.search(r"^run: %s: (.*)$" % re.escape(line), text, re.M)
            got = got.group(1) if got else "no result line"
            if got != want[line]:
                return "%s: %s, expected %s" % (line, got, want[line])
        frames = FRAMES.findall(text)
        bad = [f for f in frames if f[0] != f[1]]
        if bad or not frames:
            return "frames (before, after): %s" % (bad[:1] or "none printed")
        clean = len(re.findall(r"^kcheck: .* checked: 0 mismatches$", text, re.M))
        if clean != len(frames):
            return "kcheck clean after %d of %d programs" % (clean, len(frames))
        if "swap" in self.opts:
            free = re.findall(r"^SwapTotal: +(\d+).*\n(?:.*\n)*?SwapFree: +(\d+)", text, re.M)
            used = re.findall(r"^/dev/sda\s+partition\s+\d+\s+(\d+)", text, re.M)
            if not free or not used or any(t != f for t, f in free) or \
                    any(u != "0" for u in used):
                return "swap in use after a program: %s, Used %s" % (free, used)
        return None


def check_test(t, want):
    """Why test t cannot be run here, or None."""
    if t.kind == "ring3":
        missing = [x for x in t.lines if x not in want and x not in t.want]
        if missing:
            return "no expectation for %s in %s" % (missing[0], " ".join(RING3_LISTS))
    if t.kind == "host" and not os.path.exists(os.path.join(TREE, "tests/host",
                                                            t.args + ".c")):
        return "no tests/host/%s.c" % t.args
    return None


def build(targets, log):
    return sh(["make", "-j2", "INITRD_EXTRA=" + EXTRA] + targets, log)


def main():
    args = sys.argv[1:]
    path = os.path.join(TOP, "tests/mutate/mutants.txt")
    if args[:1] == ["--list"]:
        path, args = args[1], args[2:]
    check_only = "--check" in args
    args = [a for a in args if a != "--check"]
    only = set(" ".join(args).replace(",", " ").split())
    mutants, errors = parse(path)
    if errors:
        print("\n".join(errors))
        return 2
    unknown = only - {m.name for m in mutants}
    if unknown:
        print("mutate: no mutant called %s (in %s)" % (", ".join(sorted(unknown)), path))
        return 2
    if only:
        mutants = [m for m in mutants if m.name in only]
    if check_only:
        errors = [e for e in (mutated(m)[1] for m in mutants) if e]
        print("\n".join(errors) or "mutate: the anchors of %d mutants found" % len(mutants))
        return 1 if errors else 0
    # Ctrl-C or a kill: the running mutant is undone (finally:) and its test's child ended
    # (subprocess.run kills it on the way out); a kill -9 leaves it to the next run's sync.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    t0 = time.time()
    os.makedirs(LOGS, exist_ok=True)
    os.makedirs(TREE, exist_ok=True)
    sync_tree()
    want = expectations()
    tests, results = {}, {}
    for m in mutants:
        if m.test not in tests:
            tests[m.test] = Test(m.test, "t%d" % len(tests))
            tests[m.test].write_list()
    # Every mutant's anchors first: a list that no longer matches the code fails loudly.
    texts = {}
    for m in mutants:
        texts[m.name], err = mutated(m)
        err = err or check_test(tests[m.test], want)
        if err:
            results[m.name] = ("ERROR", err)
            print(err if err.startswith("mutant ") else "mutant %s: %s" % (m.name, err))
    # The positive control: every test must pass on the tree as it is.
    baseline = {}
    log = os.path.join(LOGS, "baseline.log")
    open(log, "w").close()
    targets = sorted({x for t in tests.values() for x in t.make_target()})
    if build(targets, log) != 0:
        print("mutate: the unmutated tree does not build (%s)" % log)
        return 2
    for spec, t in tests.items():
        tlog = os.path.join(LOGS, "baseline-%s.log" % t.key)
        open(tlog, "w").close()
        try:
            baseline[spec] = t.run(tlog)
        except Skipped as e:
            baseline[spec] = "skipped: %s" % e
        state = "fails: " + baseline[spec] if baseline[spec] else "passes"
        print("baseline: %s %s (%s)" % (spec, state, os.path.relpath(tlog, TOP)))
    for m in mutants:
        if m.name in results:
            continue
        t = tests[m.test]
        if baseline[m.test]:
            results[m.name] = ("ERROR", "its test fails without the mutant")
            continue
        mlog = os.path.join(LOGS, m.name + ".log")
        open(mlog, "w").close()
        dst = os.path.join(TREE, m.file)
        try:
            with open(dst, "w") as f:
                f.write(texts[m.name])
            t1 = time.time()
            if build(t.make_target(), mlog) != 0:
                results[m.name] = ("ERROR", "does not build")
            else:
                why = t.run(mlog)
                results[m.name] = ("CAUGHT", why) if why else ("SURVIVED", "")
        except Skipped as e:
            results[m.name] = ("ERROR", "its test skipped: %s" % e)
        finally:
            shutil.copyfile(os.path.join(TOP, m.file), dst)  # a new mtime: rebuilt next time
        print("mutant %s: %s %s(%d s, %s)" % (m.name, results[m.name][0],
                                               results[m.name][1] + " " if results[m.name][1]
                                               else "", time.time() - t1,
                                               os.path.relpath(mlog, TOP)), flush=True)
    # Leave the scratch build unmutated, so that the next run starts from there.
    build(targets, os.path.join(LOGS, "restore.log"))
    # The table, two lines a mutant (so that a row fits 100 columns), also in table.txt
    rows = ["%-24s %-9s %s" % ("mutant", "result", "test run"), "  the invariant it breaks"]
    for m in mutants:
        rows += ["%-24s %-9s %s" % (m.name, results[m.name][0], m.test), "  " + m.breaks]
    counts = {r: sum(1 for v in results.values() if v[0] == r)
              for r in ("CAUGHT", "SURVIVED", "ERROR")}
    rows += ["", "%d mutants: %d caught, %d survived, %d errors in %d s" %
             (len(mutants), counts["CAUGHT"], counts["SURVIVED"], counts["ERROR"],
              time.time() - t0)]
    with open(os.path.join(WORK, "table.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n" + "\n".join(rows))
    return 1 if counts["SURVIVED"] or counts["ERROR"] else 0


if __name__ == "__main__":
    sys.exit(main())
