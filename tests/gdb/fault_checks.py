# What the gdb fault test verifies while tests/gdb/replay.py types a docs/gdb.md walkthrough:
# after each command, the session's checks look at where the kernel stopped (read only, through
# the Python API: nothing they do shows in the transcript) and print "ok - " / "not ok - ".
# A check is tied to a stop (a function, a finish out of it), not to the doc's wording, so the
# walkthrough's text can change; a check whose stop never came is reported "not ok" at the end.
import os
import re
import signal
import threading

import gdb
import faultline as fl

REPO = fl.repo_root()
SERIAL = os.environ.get("FAULT_TEST_SERIAL", "")
RUNS = ("c", "continue", "finish", "fin", "next", "n", "step", "s", "until", "u", "advance")


def comm():
    return fl.cstr(gdb.parse_and_eval("current->comm"))


def where():
    try:
        return gdb.selected_frame().name()
    except gdb.error:
        return None


def frame_names():
    names, f = [], gdb.newest_frame()
    while f is not None and len(names) < 32:
        names.append(f.name() or "??")
        try:
            f = f.older()
        except gdb.error:
            break
    return names


def quiet(cmd):
    return gdb.execute(cmd, to_string=True)


def quiet_continue(seconds=20):
    """continue, printing nothing; the function it stopped in (None: no stop in time)."""
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        quiet("continue")
    except (gdb.error, KeyboardInterrupt):
        return None
    finally:
        timer.cancel()
    return where()


def run_to_end(seconds=60):
    """After a walkthrough: no breakpoints, every CPU let go, the boot run to its end (or for
    seconds); the serial log then, without its CRs ("" if there is none)."""
    quiet("delete")
    quiet("set scheduler-locking off")
    quiet_continue(seconds)
    if not SERIAL or not os.path.exists(SERIAL):
        return ""
    with open(SERIAL, encoding="latin-1") as f:
        return f.read().replace("\r", "")


def fault_address():
    """The faulting address: CR2 (a fault's handler runs with it; no argument name needed)."""
    return int(gdb.parse_and_eval("$cr2")) & 0xffffffffffffffff


def rb_inorder(mm):
    """The VMAs by an in-order walk of mm->mm_rb: the kernel's second copy of the VMA set."""
    out, stack = [], []
    node = mm["mm_rb"]["rb_node"]
    while stack or int(node):
        while int(node):
            stack.append(node)
            node = node["rb_left"]
        node = stack.pop()
        out.append(int(fl.container_of(node, "struct vm_area_struct", "vm_rb")))
        node = node["rb_right"]
    return out


def vma_of(mm, addr):
    for v in fl.vma_list(mm):
        if int(v["vm_start"]) <= addr < int(v["vm_end"]):
            return v
    return None


def pte_and_page(addr, t):
    """(the PTE, its frame, the struct page's _count and _mapcount) for addr in task t."""
    rows, _ = fl.pagewalk(addr, t)
    pte = rows[-1][3] if len(rows) == 4 else 0
    p = fl.page_of(addr, t)
    return pte, pte & fl.PTE_PFN_MASK, int(p["_count"]) if p else None, \
        int(p["_mapcount"]) if p else None


MAPS_RE = re.compile(r"^([0-9a-f]{8,})-([0-9a-f]{8,}) ([r-][w-][x-][sp]) ([0-9a-f]{8}) "
                     r"[0-9a-f]{2}:[0-9a-f]{2} (\d+)\s*(\S*)$")


class Session:
    """The checks of one walkthrough. EXPECT: every check's key; summary() fails the missing."""
    EXPECT = ()

    def __init__(self, name):
        self.name, self.done, self.stops = name, set(), {}
        self.caller = self.finishing = None  # the frame finish must return to, and its callee
        self.last = None  # the function of the last stop by a run command
        # Set when the machine left the walkthrough's path for a reason of timing (say, a task
        # of the boot still running on a CPU the walkthrough needs idle): the replay stops and
        # the run script boots again (run-fault-gdb-test.sh, at most 3 boots).
        self.retry = None

    def report(self, key, ok, what, detail=""):
        self.done.add(key)
        gdb.write("%s - gdb fault %s: %s%s\n" % ("ok" if ok else "not ok", self.name, what,
                                                 (" (%s)" % detail) if detail and not ok else ""))

    def once(self, key):
        return key not in self.done

    def before(self, cmd):
        """Before a run command: the caller of the selected frame, where finish must land."""
        self.caller = self.finishing = None
        if cmd.split()[0] in ("finish", "fin"):
            try:
                self.finishing = gdb.selected_frame().name()
                self.caller = gdb.selected_frame().older()
            except gdb.error:
                pass

    def after(self, cmd):
        verb = cmd.split()[0]
        try:
            if verb in RUNS:
                fn = where()
                if verb in ("finish", "fin"):
                    self.finished(self.finishing, self.returned())
                elif fn:
                    self.last = fn
                    self.stopped(fn)
            else:
                self.command(verb, cmd)
        except gdb.error as e:
            self.report("error-%s" % cmd, False, "a check after '%s' raised" % cmd, str(e))

    def returned(self):
        """What the finished function returned (%eax, the ABI's place), None if gdb did not get
        back to its caller."""
        try:
            if self.caller is None or gdb.selected_frame() != self.caller:
                return None
            return int(gdb.parse_and_eval("(int)$eax"))
        except gdb.error:
            return None

    def stopped(self, fn):
        pass

    def finished(self, fn, ret):
        pass

    def command(self, verb, cmd):
        pass

    def epilogue(self, interrupted):
        """Checks after the walkthrough, with their own stops (nothing in the transcript); none
        of those stops if the walkthrough was interrupted (the machine is off its path)."""

    def summary(self):
        for key in self.EXPECT:
            if key not in self.done:
                self.report(key, False, "%s: the walkthrough never got there" % key)

    # ---- checks several sessions use
    def from_pf(self, key, fn, prog):
        ok = comm() == prog and "do_page_fault" in frame_names()
        self.report(key, ok, "hbreak %s stops for a #PF of %s" % (fn, prog),
                    "comm %s, frames %s" % (comm(), " <- ".join(frame_names()[:8])))
        return ok

    def check_bt(self, key, top):
        """bt names the top frames in order (gdb adds the -O2 build's inlined frames between
        them), then do_page_fault <- trap_dispatch <- trap_common, then (faultline.py's pt_regs
        unwinder) the user instruction that faulted: the rip of the pt_regs trap_common saved."""
        out = quiet("bt")
        frames = [l for l in out.splitlines() if l.startswith("#")]
        names = [re.sub(r"^#\d+\s+(0x[0-9a-f]+ in )?", "", l).split(" ")[0] for l in frames]
        it = iter(names)
        ok = all(n in it for n in top)
        tail = ["do_page_fault", "trap_dispatch", "trap_common"]
        i = names.index("do_page_fault") if "do_page_fault" in names else -1
        ok = ok and i >= 0 and names[i:i + 3] == tail and len(names) > i + 3
        detail = "got " + " <- ".join(names)
        if ok:
            f = gdb.newest_frame()
            while f.name() != "trap_common":
                f = f.older()
            regs = gdb.Value(int(f.read_register("rsp"))).cast(
                gdb.lookup_type("struct pt_regs").pointer())
            rip, cs = int(regs["rip"]), int(regs["cs"])
            m = re.match(r"#\d+\s+(0x[0-9a-f]+) in ", frames[i + 3])
            ok = m is not None and int(m.group(1), 16) == rip and cs & 3 == 3
            detail = "frame after trap_common: %s; pt_regs rip 0x%x cs 0x%x" % (frames[i + 3],
                                                                               rip, cs)
        self.report(key, ok, "bt: %s <- %s <- the user rip in pt_regs"
                    % (" <- ".join(top), " <- ".join(tail)), detail)

    def check_mapped(self, key, addr, t, what):
        """pagewalk shows a present user PTE, and the frame it names holds what the MMU shows
        at addr."""
        out = quiet("pagewalk 0x%x %d" % (addr, int(t["pid"])))
        rows, phys = fl.pagewalk(addr, t)
        ok = phys is not None and len(rows) == 4 and rows[-1][3] & 1 and rows[-1][3] & 4 and \
            re.search(r"PTE\[\s*%d\] .* P\|" % ((addr >> 12) & 511), out)
        detail = "walk %s" % [(l, i, hex(e)) for l, i, _, e in rows]
        if ok:
            inf = gdb.selected_inferior()
            base = addr & ~63
            via_mmu = bytes(inf.read_memory(base, 64))  # QEMU translates with the CPU's CR3
            via_dm = bytes(inf.read_memory(fl.PAGE_OFFSET + (phys & ~63), 64))
            ok = via_mmu == via_dm
            detail = "bytes at 0x%x differ from the direct map's at phys 0x%x" % (base, phys)
        self.report(key, bool(ok), "pagewalk %s: 4 levels, a present user PTE, and its frame "
                    "holds the bytes the MMU shows at 0x%x" % (what, addr), detail)
        return phys

    def check_vmfault_bits(self, key, ret):
        out = quiet("vmfault %d" % (ret or 0))
        self.report(key, ret is not None and fl.vm_fault_str(ret) in out,
                    "vmfault on an integer names its VM_FAULT_* bits", out.strip())


def check_tables(s):
    """faultline.py's flag tables against the C headers they copy."""
    src = ""
    for h in ("mm/vma.h", "mm/pgtable.h", "mm/mmu.h", "mm/fault.h", "kernel/arch/trap.h",
              "mm/tlbflush.h", "mm/swap.h", "drivers/block/blkdev.h"):
        if os.path.exists(os.path.join(REPO, h)):
            with open(os.path.join(REPO, h)) as f:
                src += f.read()
    defs = dict(re.findall(r"#define\s+(\w+)\s+\(?(1U?L? << \d+|1u << \d+|0x[0-9a-fA-F]+|\d+)",
                           src))

    def val(name):
        v = defs[name].replace("UL", "").replace("u", "").replace("L", "")
        return eval(v)
    bad = []
    for table in (fl.VM_FLAGS, fl.FAULT_FLAGS, fl.VM_FAULT_BITS):
        for name, bit in table:
            if name not in defs or val(name) != bit:
                bad.append(name)
    header_vm = {n for n in defs if re.match(r"VM_[A-Z_]+$", n)
                 and not n.startswith("VM_FAULT_")}
    bad += sorted(header_vm - {n for n, _ in fl.VM_FLAGS})
    header_vmf = ({n for n in defs if n.startswith("VM_FAULT_")}
                  - {"VM_FAULT_ERROR", "VM_FAULT_MINOR"})
    bad += sorted(header_vmf - {n for n, _ in fl.VM_FAULT_BITS})
    for short, c in (("P", "_PAGE_PRESENT"), ("RW", "_PAGE_RW"), ("US", "_PAGE_USER"),
                     ("PWT", "_PAGE_PWT"), ("PCD", "_PAGE_PCD"), ("A", "_PAGE_ACCESSED"),
                     ("D", "_PAGE_DIRTY"), ("PS", "_PAGE_PSE"), ("G", "_PAGE_GLOBAL"),
                     ("NX", "_PAGE_NX")):
        if c not in defs or dict(fl.PAGE_BITS)[short] != val(c):
            bad.append(c)
    for name, mine in (("PAGE_OFFSET", fl.PAGE_OFFSET), ("FAULT_RING_SIZE", fl.FAULT_RING_SIZE),
                       ("PTE_PFN_MASK", fl.PTE_PFN_MASK), ("PF_PROT", fl.PF_PROT),
                       ("PF_WRITE", fl.PF_WRITE), ("PF_USER", fl.PF_USER),
                       ("PF_RSVD", fl.PF_RSVD), ("PF_INSTR", fl.PF_INSTR),
                       ("TLBSTATE_OK", fl.TLBSTATE_OK), ("TLBSTATE_LAZY", fl.TLBSTATE_LAZY),
                       ("MAX_SWAPFILES_SHIFT", fl.MAX_SWAPFILES_SHIFT),
                       ("SWAP_MAP_BAD", fl.SWAP_MAP_BAD), ("SECTOR_SHIFT", fl.SECTOR_SHIFT)):
        if name not in defs or val(name) != mine:
            bad.append(name)
    if "_PAGE_FILE _PAGE_DIRTY" not in re.sub(r"\s+", " ", src):
        bad.append("_PAGE_FILE")
    s.report("tables", not bad, "the helpers' flag tables equal the headers' #defines",
             "differ: " + " ".join(bad))


def for_session(name):
    import fault_sessions
    return fault_sessions.SESSIONS[name](name)
