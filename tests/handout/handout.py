#!/usr/bin/env python3
# The labs' handout for an instructor (docs/exercises.md, "For instructors: the handout"): a
# student's repository without the answers, the answers put back, and a whole class graded.
# usage: tests/handout/handout.py labs | handout DIR | solutions DIR | leaks DIR |
#        grade-class SUBMISSIONS OUT [JOBS]   (make handout, make solutions, make grade-class)
# The labs come from one table, docs/exercises.md's (lab, function, file; the stub is
# exercises/LAB.c beside the file); every answer is found in its file by the function's name,
# never by line numbers.
import concurrent.futures
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = "docs/exercises.md"
MARKER = "HANDOUT"  # a handout's top holds it: the Makefile and tests/run.sh read it
MUTANTS = "tests/mutate/mutants.txt"
ROW = re.compile(r"^\| `(\w+)` \| `(\w+)`, `([^`]+)`")
MARKER_TEXT = """\
A handout of faultline's labs (docs/exercises.md, "For instructors: the handout"): no lab's
answer is in this tree. Each lab's code is its stub file (NAME.c in an exercises/ folder:
mm/exercises/, kernel/fs/ext2/exercises/, user/exercises/), which every build links here unless
EXERCISE= names fewer; `make grade` scores them, and `make test` is the student's suite.
"""


class Error(Exception):
    pass


class Lab:
    def __init__(self, name, stub, func, path):
        self.name, self.stub, self.func, self.path = name, stub, func, path


def labs(top=TOP):
    """The labs of docs/exercises.md's table, each checked against its stub file."""
    found = []
    with open(os.path.join(top, TABLE)) as f:
        for line in f:
            m = ROW.match(line)
            if m:  # the stub: exercises/LAB.c beside the file it replaces
                name, func, path = m.groups()
                stub = os.path.join(os.path.dirname(path), "exercises", name + ".c")
                found.append(Lab(name, stub, func, path))
    if not found:
        raise Error("%s: no table of labs (| `lab` | `function`, `file` |)" % TABLE)
    stubs = sorted(os.path.relpath(os.path.join(d, f), top)
                   for sub in ("mm", "kernel", "user")
                   for d, _, names in os.walk(os.path.join(top, sub))
                   if os.path.basename(d) == "exercises"
                   for f in names if f.endswith(".c"))
    if sorted(lab.stub for lab in found) != stubs:
        raise Error("%s's table names the stubs %s, the tree has %s" % (
            TABLE, " ".join(sorted(lab.stub for lab in found)), " ".join(stubs)))
    return found


# ---------------------------------------------------------------- C definitions by name

def _match_brace(text, i):
    """The offset just past the brace closing the one at text[i], comments, strings and
    character constants skipped."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            i = text.index("*/", i + 2) + 2
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if c in "\"'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Error("unbalanced braces")


class Def:
    """A function's definition in a file's text: [start, end) from its leading comment (if one
    ends on the line above) to the newline after its closing brace; sig the signature's text,
    body from its opening brace on."""

    def __init__(self, text, start, sig_start, brace, end):
        self.start, self.sig_start, self.brace, self.end = start, sig_start, brace, end
        self.sig, self.body = text[sig_start:brace], text[brace:end]
        self.text = text[start:end]


def find_defs(text, name):
    """Every definition of function name in text, in kernel style: its signature opens at
    column 0, the body's brace closes it (a line ending in ';' first: a declaration)."""
    defs = []
    call = re.compile(r"(^|[\s*])%s\s*\(" % re.escape(name))
    lines = text.splitlines(keepends=True)
    offs = [0]
    for line in lines:
        offs.append(offs[-1] + len(line))
    i = 0
    while i < len(lines):
        line = lines[i]
        if line[:1] in ("", " ", "\t", "#", "/", "*", "}", "\n") or not call.search(line):
            i += 1
            continue
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j == len(lines) or lines[j].rstrip().endswith(";"):
            i = j + 1
            continue
        brace = offs[j] + lines[j].rindex("{")
        end = _match_brace(text, brace)
        nl = text.find("\n", end)
        end = len(text) if nl < 0 else nl + 1
        start = offs[i]
        k = i - 1
        if k >= 0 and lines[k].rstrip().endswith("*/"):
            while k >= 0 and not lines[k].startswith("/*"):
                k -= 1
            if k >= 0:
                start = offs[k]
        defs.append(Def(text, start, offs[i], brace, end))
        i = text.count("\n", 0, end)
    return defs


def find_def(text, name, where):
    defs = find_defs(text, name)
    if len(defs) != 1:
        raise Error("%s: %d definitions of %s, expected one" % (where, len(defs), name))
    return defs[0]


STATIC = re.compile(r"^static\b(?:[^;(]|__attribute__\(\([^;]*?\)\))*?\b(?!__attribute__\b)(\w+)\(",
                    re.M)


def unused_statics(before, after):
    """The static functions of after that before used and after no longer does (the answer's
    helpers): their names, found again until none is left."""
    gone = []
    while True:
        new = []
        for m in STATIC.finditer(after):
            name = m.group(1)
            defs = find_defs(after, name)
            if len(defs) != 1:
                continue
            d = defs[0]
            rest = after[:d.start] + after[d.end:]
            was = find_defs(before, name)
            used_before = was and re.search(r"\b%s\b" % name,
                                            before[:was[0].start] + before[was[0].end:])
            if used_before and not re.search(r"\b%s\b" % name, rest):
                new.append(name)
        if not new:
            return gone, after
        for name in new:
            d = find_def(after, name, "helper")
            end = d.end + (1 if after[d.end:d.end + 1] == "\n" else 0)
            after = after[:d.start] + after[end:]
            gone.append(name)


# ---------------------------------------------------------------- the handout's transform

def comment(lab):
    words = ("The lab %s's stub (docs/exercises.md): a handout holds no answer. Your code goes "
             "in %s, which replaces this copy of the stub." % (lab.name, lab.stub))
    lines = textwrap.wrap(words, 96)
    return "/* " + "\n * ".join(lines) + " */\n"


def transform(files, all_labs):
    """The handout's versions of the files the answers are in (files: path -> text of the
    instructor's tree): each answer replaced by its stub's body under the answer's own
    signature, the helpers only the answer used removed, and the mutants of make mutate that
    name the answers' code dropped. Returns (path -> text, lab name -> answer code)."""
    out, answers = {}, {}
    for lab in all_labs:
        text = out.get(lab.path, files[lab.path])
        real = find_def(text, lab.func, lab.path)
        stub = find_def(files[lab.stub], lab.func, lab.stub)
        new = text[:real.start] + comment(lab) + real.sig + stub.body + text[real.end:]
        helpers, new = unused_statics(text, new)
        # (the signature stays: the answer is its body and the helpers)
        answers[lab.name] = [real.body] + [find_def(text, h, lab.path).text for h in helpers]
        out[lab.path] = new
    if MUTANTS in files:
        out[MUTANTS] = drop_mutants(files[MUTANTS], lambda p: out.get(p) or files.get(p) or
                                    read(TOP, p))
    return out, answers


def drop_mutants(text, source):
    """text (tests/mutate/mutants.txt) without the mutants whose anchor (from:) is not in
    their file as source(path) gives it: those mutate an answer."""
    blocks = re.split(r"\n(?=mutant: )", text)
    keep = [blocks[0]]
    for b in blocks[1:]:
        path = re.search(r"^file: (.*)$", b, re.M).group(1).strip()
        anchors = [a.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
                   for a in re.findall(r"^from: (.*)$", b, re.M)]
        if all(source(path).count(a) == 1 for a in anchors):
            keep.append(b)
    return "\n".join(keep)


def tracked(top):
    """The tracked files of top that exist in its working tree (their contents as on disk)."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=top, check=True,
                         capture_output=True).stdout.decode()
    return [p for p in out.split("\0") if p and os.path.isfile(os.path.join(top, p))]


def read(top, path):
    with open(os.path.join(top, path)) as f:
        return f.read()


def instructor():
    """The instructor's tree: its labs, the files they touch, the handout's versions."""
    if os.path.exists(os.path.join(TOP, MARKER)):
        raise Error("%s is a handout itself: run this in the instructor's tree" % TOP)
    all_labs = labs()
    paths = {p for lab in all_labs for p in (lab.path, lab.stub)} | {MUTANTS}
    files = {p: read(TOP, p) for p in paths if os.path.exists(os.path.join(TOP, p))}
    handout_files, answers = transform(files, all_labs)
    return all_labs, files, handout_files, answers


def make_handout(dest):
    dest = os.path.abspath(dest)
    if os.path.exists(dest) and (not os.path.isdir(dest) or os.listdir(dest)):
        raise Error("%s exists and is not an empty directory: give a new one" % dest)
    all_labs, _, handout_files, _ = instructor()
    os.makedirs(dest, exist_ok=True)
    for rel in tracked(TOP):
        dst = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if rel in handout_files:
            with open(dst, "w") as f:
                f.write(handout_files[rel])
            shutil.copymode(os.path.join(TOP, rel), dst)
        else:
            shutil.copy2(os.path.join(TOP, rel), dst, follow_symlinks=False)
    with open(os.path.join(dest, MARKER), "w") as f:
        f.write(MARKER_TEXT)
    git = ["git", "-c", "user.name=faultline handout", "-c", "user.email=handout@faultline",
           "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]
    for cmd in (["init", "-q"], ["add", "-A"],
                ["commit", "-q", "-m", "faultline: the labs' handout (%d labs)" % len(all_labs)]):
        subprocess.run(git + cmd, cwd=dest, check=True)
    print("handout: %s: %d labs, each answer replaced by its stub" % (dest, len(all_labs)))


def solutions(dest):
    """The answers back in dest (a handout or a student's submission): each file the handout
    changed becomes the instructor's again; edits made to it since are merged in (git
    merge-file) or, if they conflict, kept beside it as FILE.orig. The stubs stay as they are
    (a student's work is not touched)."""
    dest = os.path.abspath(dest)
    if not os.path.exists(os.path.join(dest, MARKER)):
        raise Error("%s is not a handout (no %s file): nothing to put back" % (dest, MARKER))
    _, files, handout_files, _ = instructor()
    for rel, ho in sorted(handout_files.items()):
        path = os.path.join(dest, rel)
        have = read(dest, rel) if os.path.exists(path) else ho
        text = files[rel]
        if have != ho:
            text, clean = merge(have, ho, files[rel])
            if not clean:
                shutil.copy2(path, path + ".orig")
                text = files[rel]
                print("solutions: %s: its edits conflict with the answer's: the instructor's "
                      "file written, the edited one kept as %s.orig" % (rel, rel))
        with open(path, "w") as f:
            f.write(text)
    os.remove(os.path.join(dest, MARKER))
    print("solutions: the answers are back in %s (%s)" % (
        dest, ", ".join(sorted(handout_files))))


def merge(ours, base, theirs):
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for n, t in (("ours", ours), ("base", base), ("theirs", theirs)):
            names.append(os.path.join(tmp, n))
            with open(names[-1], "w") as f:
                f.write(t)
        r = subprocess.run(["git", "merge-file", "-p"] + names, capture_output=True)
        return r.stdout.decode(), r.returncode == 0


def answer_lines(answers, files):
    """lab -> the lines of its answer (helpers included) found nowhere else in the instructor's
    tree: code lines of 16 characters or more, stripped, that no other line contains."""
    elsewhere = []
    spans = {t for texts in answers.values() for t in texts}
    for rel in tracked(TOP):
        try:
            text = files.get(rel) or read(TOP, rel)
        except UnicodeDecodeError:
            continue
        for t in spans:
            text = text.replace(t, "")
        elsewhere.append(text)
    rest = "\n".join(elsewhere)
    out = {}
    for lab, texts in answers.items():
        seen = []
        for t in texts:
            for line in t.splitlines():
                s = line.strip()
                if len(s) >= 16 and not s.startswith(("/*", "*", "//")) and s not in rest \
                        and s not in seen:
                    seen.append(s)
        out[lab] = seen
    return out


def leaks(dest):
    """For each lab: how many of its answer's lines there are, and those found in dest."""
    all_labs, files, _, answers = instructor()
    lines = answer_lines(answers, files)
    texts = []
    for root, dirs, names in os.walk(dest):
        dirs[:] = [d for d in dirs if not (root == dest and d in (".git", "build"))]
        for n in names:
            try:
                with open(os.path.join(root, n)) as f:
                    texts.append(f.read())
            except (UnicodeDecodeError, OSError):
                pass
    if os.path.isdir(os.path.join(dest, ".git")):  # every version git holds, history included
        r = subprocess.run(["git", "log", "--all", "-p", "--format=%H"], cwd=dest,
                           capture_output=True)
        texts.append(r.stdout.decode(errors="replace"))
    blob = "\n".join(texts)
    for lab in all_labs:
        found = [s for s in lines[lab.name] if s in blob]
        print("%s %d %d%s" % (lab.name, len(lines[lab.name]), len(found),
                              "".join("\n  " + s for s in found)))


# ---------------------------------------------------------------- grading a class

def grade_one(sub, out, all_labs):
    """One submission: its kernel built in its own tree (its own Makefile: a handout links
    the stubs, the student's code), then every lab graded by this tree's tests/grade.sh on
    that ISO (so a submission's edits to the tests change nothing); results.json in out."""
    os.makedirs(out, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "EXERCISE", "LABS", "GRADE", "ISO",
                        "ELF", "LOGS")}
    with open(os.path.join(out, "build.log"), "w") as log:
        built = subprocess.run(["make", "-s", "iso"], cwd=sub, env=env, stdout=log,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
    if built != 0:
        with open(os.path.join(out, "build.log")) as f:
            tail = "".join(f.readlines()[-30:])
        tests = [{"name": lab.name, "score": 0, "max_score": 1,
                  "output": "the kernel did not build:\n" + tail} for lab in all_labs]
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump({"tests": tests, "score": 0}, f, indent=2)
            f.write("\n")
        return
    env.update(ISO=os.path.join(sub, "build", "faultline.iso"), GRADE=out,
               LOGS=os.path.join(out, "logs"))
    with open(os.path.join(out, "grade.out"), "w") as log:
        subprocess.run(["sh", os.path.join(TOP, "tests", "grade.sh")] +
                       [lab.name for lab in all_labs], cwd=TOP, env=env, stdout=log,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def grade_class(subs_dir, top, jobs):
    """Every submission of subs_dir (a directory each), jobs at a time: top/class/NAME/ (its
    results.json, the build's and the grading's output) and the table top/class.csv."""
    all_labs = labs()
    subs_dir, top = os.path.abspath(subs_dir), os.path.abspath(top)
    if not os.path.isdir(subs_dir):
        raise Error("%s: no such directory" % subs_dir)
    names = sorted(n for n in os.listdir(subs_dir) if os.path.isdir(os.path.join(subs_dir, n)))
    if not names:
        raise Error("%s holds no submission (one directory per student)" % subs_dir)
    os.makedirs(os.path.join(top, "class"), exist_ok=True)
    print("grade-class: %d submission(s) of %s, %d at a time" % (len(names), subs_dir, jobs))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        runs = {pool.submit(grade_one, os.path.join(subs_dir, n),
                            os.path.join(top, "class", n), all_labs): n for n in names}
        for r in concurrent.futures.as_completed(runs):
            r.result()
    rows = []
    for n in names:
        path = os.path.join(top, "class", n, "results.json")
        try:
            with open(path) as f:
                scores = {t["name"]: t["score"] for t in json.load(f)["tests"]}
        except (OSError, ValueError, KeyError):
            scores = {}
        row = [n] + [scores.get(lab.name, 0) for lab in all_labs]
        rows.append(row + [sum(row[1:])])
        print("%-20s %d/%d%s" % (n, rows[-1][-1], len(all_labs),
                                 "" if scores else " (no results: %s)" % path))
    with open(os.path.join(top, "class.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student"] + [lab.name for lab in all_labs] + ["total"])
        w.writerows(rows)
    where = os.path.relpath(top) if top.startswith(os.getcwd() + os.sep) else top
    print("grade-class: the table %s/class.csv, each one's %s/class/NAME/results.json" % (
        where, where))


def main(argv):
    cmd, args = (argv[0], argv[1:]) if argv else ("", [])
    try:
        if cmd == "labs" and not args:
            for lab in labs():
                print(lab.name, lab.stub, lab.func, lab.path)
        elif cmd == "handout" and len(args) == 1 and args[0]:
            make_handout(args[0])
        elif cmd == "solutions" and len(args) == 1 and args[0]:
            solutions(args[0])
        elif cmd == "leaks" and len(args) == 1:
            leaks(os.path.abspath(args[0]))
        elif cmd == "grade-class" and len(args) in (2, 3) and args[0]:
            grade_class(args[0], args[1], int(args[2]) if len(args) == 3 else
                        os.cpu_count() or 1)
        else:
            print("usage: %s labs | handout DIR | solutions DIR | leaks DIR | "
                  "grade-class SUBMISSIONS OUT [JOBS]" % sys.argv[0], file=sys.stderr)
            return 2
    except Error as e:
        print("%s: %s" % (cmd, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
