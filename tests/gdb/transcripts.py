#!/usr/bin/env python3
# docs/gdb.md's walkthroughs as the gdb fault test replays them: the doc is the script. Lists
# each walkthrough's boot and its commands (the "(gdb) " lines of its transcripts, in the doc's
# order), then compares the doc's outputs with a fresh replay's, or rewrites them (make gdb-docs).
#
#   transcripts.py plan     DOC              how many lines "check" prints when all is well
#   transcripts.py sessions DOC              "NAME<TAB>KARGS<TAB>SMP<TAB>MEM<TAB>DISK" per
#                                            walkthrough ("-": make debug's default)
#   transcripts.py commands DOC NAME         its commands, one a line
#   transcripts.py check    DOC LOGDIR       "ok - " / "not ok - " (with a diff) per transcript
#   transcripts.py update   DOC LOGDIR       rewrite DOC's outputs from LOGDIR/gdb-fault-NAME.out
#
# In DOC, "<!-- gdb-session: NAME KARGS='...' -->" starts a walkthrough (its text must tell the
# reader the same `make debug KARGS='...'`; "... KARGS='...' SMP=N -->": a boot with N CPUs,
# `make debug SMP=N KARGS='...'`; "... MEM=32M -->": that much RAM, `make debug MEM=32M
# KARGS='...'`; "... DISK=swap.img -->": a copy of build/swap.img as /dev/sda, the disk make
# debug gives the machine, its text unchanged; "... DISK=disk.img -->": that and a copy of
# build/disk.img as /dev/sdb, make debug's ext2 disk), and each transcript is a fenced block between
# "<!-- transcript: NAME -->" and "<!-- end transcript -->" belonging to the walkthrough above it.
# A line of a transcript wider than WIDTH columns (tabs to the next multiple of 8) is folded in
# DOC: it ends with "\\" and goes on, two spaces in, on the next line (update folds, every mode
# unfolds before reading).
# A command whose output the doc shows as "..." is run but not compared. The comparison is of
# normalised forms (normalise() below): a rebuild that only moves code or frames still matches;
# a renamed function, another call order, other VM_FAULT_* bits or helper output do not.
import difflib
import os
import re
import sys

SESSION = re.compile(r"^<!-- gdb-session: ([\w-]+) KARGS='([^']*)'(?: SMP=(\d+))?"
                     r"(?: MEM=(\w+))?(?: DISK=(swap\.img|disk\.img))? -->$")
BEGIN = re.compile(r"^<!-- transcript: ([\w-]+) -->$")
END = "<!-- end transcript -->"
PROMPT = "(gdb) "
ELLIPSIS = "..."
WIDTH = 100  # the docs' longest line
FOLD, FOLD_INDENT = "\\", "  "

# What legitimately differs from build to build, and nothing else. Each rule is applied to both
# sides, in order:
RULES = [
    # kernel text (a new function anywhere moves them all): 0xffffffff801095d3
    (r"0xffffffff8[0-9a-f]{7}\b", "<ktext>"),
    # kernel data through the direct map and kernel stacks: allocation order, heap layout
    (r"0xffff888[0-9a-f]{9}\b", "<kdata>"),
    (r"0xffffc9[0-9a-f]{10}\b", "<kstack>"),
    # a swap entry's slot: reclaim's choice of which page goes out when, which the timing of
    # kswapd against the program can move (the type, the counts and the words stay)
    (r"= 0x[0-9a-f]{16}(  not present: swap entry type \d+ offset) \d+", r"= <swp pte>\1 <slot>"),
    (r"\b(do_swap_page \(.*\borig_pte=)\d+", r"\1<swp pte>"),
    (r"\b(type \d+ offset) \d+ \(page->private 0x[0-9a-f]+\)", r"\1 <slot> (page->private <e>)"),
    (r"\bslot \d+ is sectors \d+-\d+", "slot <slot> is sectors <sectors>"),
    (r"\bswap_map\[\d+\]", "swap_map[<slot>]"),
    (r"\bsector=(sector@entry=)?\d+", "sector=<sector>"),
    # a file's blocks on its disk: where mke2fs put it, which the image's other files move
    (r"\bblock=(block@entry=)?\d+", "block=<block>"),
    # page-table entries: the frame number (bits 12-51) only; the flag bits are compared
    (r"= 0x([0-9a-f]{3})[0-9a-f]{10}([0-9a-f]{3})\b", r"= 0x\1<pfn>\2"),
    # physical addresses of frames and tables (the page offset, low 12 bits, is kept)
    (r"\b(table|frame|phys) 0x[0-9a-f]*?([0-9a-f]{1,3})\b", r"\1 <phys>\2"),
    # source line numbers, in "file.c:N", "line N", a source line "N\t..." as gdb prints it
    (r"(\.[chS]):\d+", r"\1:N"),
    (r"\bline \d+", "line N"),
    (r"^\d+\t", "N\t"),
    (r"^(0x[0-9a-f]+)\t\d+\t", r"\1\tN\t"),  # stepi's "ADDR<TAB>LINE<TAB>source"
    # where GRUB put the multiboot2 information (it follows the kernel image, whose size moves)
    (r"\binfo_phys=\d+", "info_phys=<phys>"),
    # an offset into a user function (the compiler's), and ramdisk inode numbers (another
    # program in user/ renumbers them) in the maps columns
    (r"\b(\w+) \+ \d+ in section", r"\1 + N in section"),
    (r" ([0-9a-f]{2}:[0-9a-f]{2}) [1-9]\d* +", r" \1 <ino> "),
    # gdb's "x=x@entry=V" (the value at entry, known from the caller) versus "x=V": the
    # compiler's register choices, not the code's meaning
    (r"\b(\w+)=\1@entry=", r"\1="),
    # the checkout's absolute path
    (r"\S*/build/user/", "<repo>/build/user/"),
    (r"\S*/build/faultline\.elf", "<repo>/build/faultline.elf"),
]


def in_transcripts(lines):
    """Whether each line is inside a transcript (between its markers)."""
    inside, out = False, []
    for line in lines:
        if BEGIN.match(line):
            inside = True
        elif line == END:
            inside = False
        out.append(inside)
    return out


def unfold(lines):
    """The doc's lines with every folded transcript line joined again."""
    out, joining = [], False
    for line, inside in zip(lines, in_transcripts(lines)):
        if joining and inside and line.startswith(FOLD_INDENT):
            out[-1] = out[-1][:-len(FOLD)] + line[len(FOLD_INDENT):]
        else:
            out.append(line)
        joining = inside and out[-1].endswith(FOLD)
    return out


def columns(text):
    """How wide text shows, a tab going to the next multiple of 8 (as .clang-format counts)."""
    return len(text.expandtabs(8))


def fold(line):
    """line as lines of at most WIDTH columns, cut after a space where there is one."""
    out = []
    while columns(line) > WIDTH:
        fits = len(line)  # the longest start that leaves room for the FOLD
        while columns(line[:fits]) > WIDTH - len(FOLD):
            fits -= 1
        cut = line.rfind(" ", len(FOLD_INDENT), fits) + 1
        if cut <= len(FOLD_INDENT):
            cut = max(fits, len(FOLD_INDENT) + 1)
        out.append(line[:cut] + FOLD)
        line = FOLD_INDENT + line[cut:]
    return out + [line]


def fold_transcripts(lines):
    out = []
    for line, inside in zip(lines, in_transcripts(lines)):
        out += fold(line) if inside else [line]
    return out


def normalise(line):
    for pat, rep in RULES:
        line = re.sub(pat, rep, line)
    return line.rstrip()


def parse_doc(lines, doc):
    """[{name, kargs, intro, blocks: [(name, first, end)]}]: the walkthroughs, in doc order;
    a block's text is lines[first:end] (the fence excluded)."""
    sessions, i = [], 0
    while i < len(lines):
        m, b = SESSION.match(lines[i]), BEGIN.match(lines[i])
        if m:
            sessions.append({"name": m.group(1), "kargs": m.group(2),
                             "smp": int(m.group(3) or 1), "mem": m.group(4) or "",
                             "disk": m.group(5) or "", "start": i, "blocks": []})
        elif b:
            j = i + 1
            while j < len(lines) and lines[j] != END:
                j += 1
            if j >= len(lines) or not lines[i + 1].startswith("```") or \
                    not lines[j - 1].startswith("```"):
                raise SystemExit("%s: transcript %s: a fenced block must sit between the markers"
                                 % (doc, b.group(1)))
            if not sessions:
                raise SystemExit("%s: transcript %s comes before any gdb-session marker"
                                 % (doc, b.group(1)))
            sessions[-1]["blocks"].append((b.group(1), i + 2, j - 1))
            i = j
        i += 1
    for s in sessions:
        first = s["blocks"][0][1] if s["blocks"] else len(lines)
        s["intro"] = "\n".join(lines[s["start"]:first])
    return sessions


def split_block(text):
    """[(command, [output lines])] of a transcript block's lines."""
    out = []
    for line in text:
        if line.startswith(PROMPT):
            out.append((line[len(PROMPT):], []))
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise SystemExit("a transcript must start with a '(gdb) ' line: %r" % line)
    return out


def commands(session, lines):
    return [c for _, a, b in session["blocks"] for c, _ in split_block(lines[a:b])]


def from_log(path):
    """[(command, [output lines])] as the replay typed and gdb answered (tests/gdb/replay.py)."""
    out, cur = [], None
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f.read().replace("\r", "").splitlines():
            if line.startswith("REPLAY-CMD "):
                cur = None
                out.append([None, []])
            elif out and out[-1][0] is None and line.startswith(PROMPT):
                out[-1][0] = line[len(PROMPT):]
                cur = out[-1][1]
            elif line in ("REPLAY-QUIET", "REPLAY-END"):
                cur = None
            elif cur is not None and not re.match(r"(not )?ok - ", line):
                cur.append(line.rstrip())
    return [(c, o) for c, o in out if c is not None]


NEVER_RAN = "(the replay never ran this command: see the gdb log)"


def fresh_block(doc_block, replay, k):
    """The block as the replay printed it, from its command number k; "..." outputs kept."""
    text = []
    for i, (cmd, want) in enumerate(doc_block):
        text.append(PROMPT + cmd)
        if want == [ELLIPSIS]:
            text.append(ELLIPSIS)
        elif k + i < len(replay) and replay[k + i][0] == cmd:
            text += replay[k + i][1]
        else:
            text.append(NEVER_RAN)
    return text


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("plan", "sessions", "commands", "check",
                                                 "update"):
        raise SystemExit("usage: transcripts.py plan|sessions|commands|check|update DOC "
                         "[NAME|LOGDIR]")
    mode, doc = sys.argv[1], sys.argv[2]
    with open(doc, encoding="utf-8") as f:
        lines = unfold(f.read().splitlines())
    sessions = parse_doc(lines, doc)
    if mode == "plan":
        # the checks "check" prints: each walkthrough's KARGS line, each of its transcripts and
        # whether the replay ran all its commands
        print(sum(2 + len(s["blocks"]) for s in sessions))
        return 0
    if mode == "sessions":
        for s in sessions:
            print("%s\t%s\t%d\t%s\t%s" % (s["name"], s["kargs"], s["smp"], s["mem"] or "-",
                                          s["disk"] or "-"))
        return 0
    if mode == "commands":
        for s in sessions:
            if s["name"] == sys.argv[3]:
                print("\n".join(commands(s, lines)))
        return 0
    logdir, edits = sys.argv[3], []
    for s in sessions:
        log = os.path.join(logdir, "gdb-fault-%s.out" % s["name"])
        replay, k = from_log(log), 0
        if mode == "check":
            said = ("SMP=%d " % s["smp"] if s["smp"] != 1 else "") + \
                ("MEM=%s " % s["mem"] if s["mem"] else "") + "KARGS='%s'" % s["kargs"]
            print("%s - %s walkthrough %s: its text says %s" % (
                "ok" if "make debug " + said in s["intro"] else "not ok", doc, s["name"], said))
        for name, a, b in s["blocks"]:
            block = split_block(lines[a:b])
            fresh = fresh_block(block, replay, k)
            k += len(block)
            if mode == "update":
                if NEVER_RAN in fresh:
                    print("transcripts: %s left as it was: the replay of walkthrough %s stopped "
                          "before its end (%s)" % (name, s["name"], log))
                else:
                    edits.append((a, b, fresh))
                continue
            want = [normalise(l) for l in lines[a:b]]
            got = [normalise(l) for l in fresh]
            if want == got:
                print("ok - %s transcript %s: the doc's commands, replayed in order, print it"
                      % (doc, name))
            else:
                print("not ok - %s transcript %s differs from a replay of the doc's commands "
                      "('make gdb-docs' rewrites it; normalised diff, doc then replay):"
                      % (doc, name))
                for d in difflib.unified_diff(want, got, "doc", "replay", n=1, lineterm=""):
                    print("#   " + d)
        if mode == "check":
            print("%s - %s walkthrough %s: the replay ran %d of its %d commands (%s)"
                  % ("ok" if len(replay) == k else "not ok", doc, s["name"], len(replay), k,
                     log))
    if mode == "update":
        for a, b, fresh in reversed(edits):
            lines[a:b] = fresh
        with open(doc, "w", encoding="utf-8") as f:
            f.write("\n".join(fold_transcripts(lines)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
