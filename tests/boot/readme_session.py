#!/usr/bin/env python3
"""The session a newcomer types: every command README.md's "Try:" block and /etc/motd suggest,
as written, in a serial_session.py session file (tests/boot/readme.sh runs it on `make run`).
Each command is one check: it runs, ends with status 0 (or what its line says), prints no
error, and prints what its line says it shows (WHAT below; a new line without an entry is
still typed and held to its status). usage: readme_session.py README MOTD > SESSION"""
import re
import sys

# what each suggestion must show: patterns one of its output lines must match
WHAT = {
    "vm-cow": [r"^vm-cow: ok"],
    "vm-cow -v": [r"^vm-cow -v:   fault at 0x[0-9a-f]+: protection write user, vma anon -> "
                  r"VM_FAULT_MINOR\|VM_FAULT_WRITE$", r"^vm-cow -v:   frame 0x[0-9a-f]+ .* -> "
                  r"0x[0-9a-f]+ .*: a copy ", r"^vm-cow: ok"],
    "faulttrace on; vm-cow; faulttrace off": [r"^faulttrace: pid [0-9]+ \(vm-cow\) addr "],
    "cat /proc/self/maps": [r"\[stack\]$", r" r-xp .* /bin/busybox$"],
    "cat /proc/meminfo; free": [r"^MemTotal: +[0-9]+ kB", r"^Mem: +[0-9]+"],
    "grep pgfault /proc/vmstat": [r"^pgfault [1-9][0-9]*$"],
    "memview self": [r" present pfn 0x[0-9a-f]+ "],
    "ls /bin": [r"vm-cow"],
    "grep cpu /proc/stat": [r"^cpu0 "],
    "cat /proc/swaps; free": [r"^/dev/sda +partition", r"^Swap: +[1-9][0-9]*"],
    "swap-stress 300; grep pswp /proc/vmstat": [r"^swap-stress: ok", r"^pswpin [1-9]",
                                                r"^pswpout [1-9]"],
    "vm-cow; vm-lazy; vm-zero": [r"^vm-cow: ok", r"^vm-lazy: ok", r"^vm-zero: ok"],
    "vm-zero -v": [r"^vm-zero -v:   kinds \(/proc/vmstat\): 6 zero page; ",
                   r"^vm-zero -v:   fault at 0x[0-9a-f]+: protection write user, vma anon -> "
                   r"VM_FAULT_MINOR\|VM_FAULT_WRITE$", r"^vm-zero: ok"],
    "sig-fault -v; shm-anon -v": [r"^sig-fault -v:   signal SIGSEGV, si_code 1 SEGV_MAPERR ",
                                  r"^sig-fault: ok", r"^shm-anon -v:   frame none -> .*; "
                                  r"the frame step [0-9]+ \(pid [0-9]+\) ended with$",
                                  r"^shm-anon: ok"],
    "file-mmap; file-major": [r"^file-mmap: ok", r"^file-major: ok"],
    "faulttrace on; vm-lazy": [r"^faulttrace: pid [0-9]+ \(vm-lazy\) addr "],
    "memview $$": [r" present pfn 0x[0-9a-f]+ "],
    "ls -l /mnt; cat /mnt/README": [r" README$", r" numbers\.txt$",
                                    r"^This is faultline's second disk: /dev/sdb"],
    "echo hi >/mnt/hi; sync; ls -l /mnt/hi": [r" 3 .* /mnt/hi$"],
}
# interactive ones: the keys a person presses, the status the shell then reports
KEYS = {
    "sleep 30": (["sleep 1", "key z", "wait", "~ Stopped", "! fg", "sleep 1", "key c",
                  "wait"], 130),
    "top": (["sleep 3", "$ q", r"~ PID +PPID USER"], 0),
}
ERRORS = r"([Nn]ot found|No such file|FAIL|Segmentation|Killed|[Uu]sage:)"


def readme_commands(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.endswith("Try:"))
    out = []
    for l in lines[start + 2:]:
        if not l.startswith("    "):
            break
        out.append(re.split(r" {2,}# ", l.strip())[0].strip())
    return out


def motd_commands(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.endswith("Things to try:"))
    out = []
    for l in lines[start + 1:]:
        if not l.startswith("  ") or l.startswith("   "):
            continue  # the text around the list; a description's second line
        out.append(re.split(r" {2,}", l.strip())[0])
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print("prompt root@faultline:[^\\n]*# ")
    print("check make run: the motd, then the shell's prompt\nwait\n~ ^Welcome to faultline")
    for where, cmds in (("README", readme_commands(sys.argv[1])),
                        ("motd", motd_commands(sys.argv[2]))):
        for c in cmds:
            print("check %s: %s" % (where, c))
            keys, status = KEYS.get(c, (None, 0))
            if keys:
                print("! " + c)
                print("\n".join(keys))
            else:
                print("$ " + c)
                for p in WHAT.get(c, []):
                    print("~ " + p)
            print("no " + ERRORS)
            print("$ echo status=$?\n= status=%d" % status)
    print("check exit: the boot ends, QEMU with faultline's success, make with status 0")
    print("! exit\neof\n~ faultline reported success\nstatus 0")


if __name__ == "__main__":
    main()
