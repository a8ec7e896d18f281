#!/usr/bin/env python3
# docs/gdb.md's gdb transcripts, kept equal to what the gdb fault test prints: cuts each one out
# of the test's logs (the TRANSCRIPT-* lines tests/gdb/fault-test.py writes) and compares it
# with the doc's block, or rewrites the doc's blocks (make gdb-docs).
#
#   transcripts.py check  DOC LOG...   "ok - " / "not ok - " (with a diff) per transcript
#   transcripts.py update DOC LOG...   rewrite DOC's blocks from the logs
#
# In DOC a transcript is a fenced block between "<!-- transcript: NAME -->" and
# "<!-- end transcript -->". The doc shows a real run; check compares the normalised forms of
# both sides (normalise() below), so a rebuild that only moves code or frames still matches, and
# a renamed function, another call order, other VM_FAULT_* bits or helper output do not.
import difflib
import re
import sys

BEGIN = re.compile(r"^<!-- transcript: ([\w-]+) -->$")
END = "<!-- end transcript -->"

# What legitimately differs from build to build, and nothing else. Each rule is applied to both
# sides, in order:
RULES = [
    # kernel text (a new function anywhere moves them all): 0xffffffff801095d3
    (r"0xffffffff8[0-9a-f]{7}\b", "<ktext>"),
    # kernel data through the direct map and kernel stacks: allocation order, heap layout
    (r"0xffff888[0-9a-f]{9}\b", "<kdata>"),
    (r"0xffffc9[0-9a-f]{10}\b", "<kstack>"),
    # page-table entries: the frame number (bits 12-51) only; the flag bits are compared
    (r"= 0x([0-9a-f]{3})[0-9a-f]{10}([0-9a-f]{3})\b", r"= 0x\1<pfn>\2"),
    # physical addresses of frames and tables (the page offset, low 12 bits, is kept)
    (r"\b(table|frame|phys) 0x[0-9a-f]*?([0-9a-f]{1,3})\b", r"\1 <phys>\2"),
    # source line numbers, in "file.c:N", "line N", a breakpoint's source line "N\t..."
    (r"(\.[chS]):\d+", r"\1:N"),
    (r"\bline \d+", "line N"),
    (r"^\d+\t", "N\t"),
    # an offset into a user function (the compiler's), and ramdisk inode numbers (another
    # program in user/ renumbers them) in the maps columns
    (r"\b(\w+) \+ \d+ in section", r"\1 + N in section"),
    (r" 00:00 [1-9]\d* +", " 00:00 <ino> "),
    # gdb's "x=x@entry=V" (the value at entry, known from the caller) versus "x=V": the
    # compiler's register choices, not the code's meaning
    (r"\b(\w+)=\1@entry=", r"\1="),
    # the checkout's absolute path
    (r"\S*/build/user/", "<repo>/build/user/"),
]


def normalise(line):
    for pat, rep in RULES:
        line = re.sub(pat, rep, line)
    return line.rstrip()


def from_logs(paths):
    """{name: [lines]} of every transcript in the gdb fault test's logs."""
    out, name, omitting = {}, None, False
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f.read().replace("\r", "").splitlines():
                if line.startswith("TRANSCRIPT-BEGIN "):
                    name = line.split()[1]
                    out[name] = []
                elif line.startswith("TRANSCRIPT-RENAME "):
                    out[line.split()[1]] = out.pop(name)
                    name = line.split()[1]
                elif line == "TRANSCRIPT-END":
                    name = None
                elif line == "TRANSCRIPT-OMIT":
                    omitting = True
                    if name is not None:
                        out[name].append("...")
                elif line == "TRANSCRIPT-RESUME":
                    omitting = False
                elif name is not None and not omitting and \
                        not re.match(r"(not )?ok - ", line) and \
                        not line.startswith("FAULT-TEST-DONE"):
                    out[name].append(line.rstrip())
        name, omitting = None, False
    out.pop("-", None)
    return out


def doc_blocks(lines):
    """[(name, first line of the block's text, end)]: DOC's transcripts, the fence excluded."""
    blocks, i = [], 0
    while i < len(lines):
        m = BEGIN.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and lines[j] != END:
                j += 1
            if j >= len(lines) or not lines[i + 1].startswith("```") or \
                    not lines[j - 1].startswith("```"):
                raise SystemExit("%s: transcript %s: a fenced block must sit between the markers"
                                 % (sys.argv[2], m.group(1)))
            blocks.append((m.group(1), i + 2, j - 1))
            i = j
        i += 1
    return blocks


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("check", "update"):
        raise SystemExit("usage: transcripts.py check|update DOC LOG...")
    mode, doc = sys.argv[1], sys.argv[2]
    fresh = from_logs(sys.argv[3:])
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    blocks = doc_blocks(lines)
    names = [b[0] for b in blocks]
    if mode == "update":
        for name, start, end in reversed(blocks):
            if name in fresh:
                lines[start:end] = fresh[name]
            else:
                print("transcripts: no transcript %s in the logs: left as it was" % name)
        with open(doc, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        for name in sorted(set(fresh) - set(names)):
            print("transcripts: the run has transcript %s, %s has no block for it" % (name, doc))
        return 0
    for name, start, end in blocks:
        if name not in fresh:
            print("not ok - %s transcript %s: the gdb run printed none "
                  "(see tests/gdb/fault-test.py)" % (doc, name))
            continue
        want = [normalise(l) for l in lines[start:end]]
        got = [normalise(l) for l in fresh[name]]
        if want == got:
            print("ok - %s transcript %s matches a fresh gdb run" % (doc, name))
        else:
            print("not ok - %s transcript %s differs from a fresh gdb run ('make gdb-docs' "
                  "rewrites it; normalised diff, doc then run):" % (doc, name))
            for d in difflib.unified_diff(want, got, "doc", "run", n=1, lineterm=""):
                print("#   " + d)
    for name in sorted(set(fresh) - set(names)):
        print("not ok - %s has no block for transcript %s" % (doc, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
