# The gdb half of tests/gdb/run-fault-gdb-test.sh: sourced by gdb (batch mode) after
# tests/gdb/faultline.gdb has attached to a QEMU paused at reset. FAULT_TEST names the boot:
#   maps       init=/bin/busybox,,cat,,/proc/self/maps: a user fault in handle_mm_fault (bt,
#              vmas, pagewalk before/after), do_anonymous_page, filemap_fault, the fault ring,
#              and vmas against the /proc/self/maps text cat prints (FAULT_TEST_SERIAL)
#   device     init=/bin/dev-kmsgbuf: kmsgbuf_vm_fault, VM_FAULT_NOPAGE, the device frame's
#              PTE
#   nonlinear  init=/bin/nonlinear: do_nonlinear_fault on a file PTE (MAP_NONBLOCK), then
#              filemap_fault with FAULT_FLAG_NONLINEAR
#   cow        init=/bin/vm-cow: do_wp_page copying a page shared after fork (child), then
#              reusing one nobody else maps any more (parent); pageinfo's _count/_mapcount
# Prints "ok - ..." / "not ok - ..." lines, then "FAULT-TEST-DONE"; only hardware breakpoints
# stop the kernel (at most three at a time), the helpers' own output is echoed for the log.
# TRANSCRIPT-* lines mark the parts of the log that are docs/gdb.md's transcripts
# (tests/gdb/transcripts.py cuts them out and compares them with the doc).
import os
import re
import traceback

import gdb
import faultline as fl

SCENARIO = os.environ.get("FAULT_TEST", "maps")
SERIAL = os.environ.get("FAULT_TEST_SERIAL", "")
REPO = fl.repo_root()
results = []


def report(ok, what, detail=""):
    results.append(ok)
    gdb.write("%s - gdb fault %s: %s%s\n" % ("ok" if ok else "not ok", SCENARIO, what,
                                             (" (%s)" % detail) if detail and not ok else ""))


def run(cmd, omit=False):
    """Run a gdb command, echo it and its output into the log, return the output. (What a
    command prints itself, as finish and up do, comes after the echoed prompt.) omit: the
    transcript shows "..." for the output."""
    gdb.write("(gdb) %s\n" % cmd)
    out = gdb.execute(cmd, to_string=True)
    gdb.write(("TRANSCRIPT-OMIT\n%sTRANSCRIPT-RESUME\n" if omit else "%s") % out)
    return out


def transcript(name=None):
    """What gdb prints from here on is docs/gdb.md's transcript NAME (None: the end; "-": a part
    no transcript shows, unless transcript_rename names it once it is clear what it is)."""
    gdb.write("TRANSCRIPT-BEGIN %s\n" % name if name else "TRANSCRIPT-END\n")


def transcript_rename(name):
    gdb.write("TRANSCRIPT-RENAME %s\n" % name)


def comm():
    return fl.cstr(gdb.parse_and_eval("current->comm"))


def frame_names():
    names, f = [], gdb.newest_frame()
    while f is not None and len(names) < 32:
        names.append(f.name() or "??")
        try:
            f = f.older()
        except gdb.error:
            break
    return names


class Stop(gdb.Breakpoint):
    """A hardware breakpoint that stops only for program `prog`, and (from_pf) only inside
    the #PF path, i.e. with do_page_fault on the stack (not exec's copy_to_mm or a prefault)."""

    def __init__(self, spec, prog, from_pf=True):
        # what a student would type for it (the #PF test is this class's own)
        gdb.write('(gdb) hbreak %s if $_streq(current->comm, "%s")\n' % (spec, prog))
        super().__init__(spec, type=gdb.BP_HARDWARE_BREAKPOINT, internal=False)
        self.prog, self.from_pf, self.hits = prog, from_pf, 0

    def want(self):
        """A subclass's further condition."""
        return True

    def stop(self):
        try:
            if comm() != self.prog:
                return False
            if self.from_pf and "do_page_fault" not in frame_names():
                return False
            if not self.want():
                return False
        except gdb.error:
            return False
        self.hits += 1
        return True


def cont():
    """continue; the name of the function it stopped in, or None if the target went away."""
    gdb.write("(gdb) continue\n")
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error as e:
        gdb.write("continue: %s\n" % e)
        return None
    try:
        return gdb.selected_frame().name()
    except gdb.error:
        return None


def finish(name=None):
    """finish the selected frame, or the newest real (not inlined) frame of function name;
    its int return value (%eax, where the ABI puts it), or None if gdb did not get back to
    the caller. (finish out of an inlined frame steps instead: avoided.)"""
    if name:
        f = gdb.newest_frame()
        while f is not None and not (f.name() == name and f.type() == gdb.NORMAL_FRAME):
            f = f.older()
        if f is None:
            return None
        f.select()
    before = gdb.selected_frame().older()
    run("finish")
    try:
        if gdb.selected_frame() != before:
            return None
        return int(gdb.parse_and_eval("(int)$eax"))
    except gdb.error:
        return None


def fault_address():
    """The faulting address: the `address` of the selected frame, else CR2."""
    for expr in ("address", "$cr2"):
        try:
            return int(gdb.parse_and_eval(expr)) & 0xffffffffffffffff
        except gdb.error:
            pass
    return None


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


MAPS_RE = re.compile(r"^([0-9a-f]{8,})-([0-9a-f]{8,}) ([r-][w-][x-][sp]) ([0-9a-f]{8}) "
                     r"[0-9a-f]{2}:[0-9a-f]{2} (\d+)\s*(\S*)$")


def parse_maps(text):
    return [m.groups() for m in (MAPS_RE.match(l.strip("\r")) for l in text.splitlines()) if m]


def check_tables():
    """faultline.py's flag tables against the C headers they copy."""
    src = ""
    for h in ("mm/vma.h", "mm/pgtable.h", "mm/mmu.h", "mm/fault.h", "kernel/trap.h"):
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
                 and n not in ("VM_FAULT_ERROR", "VM_FAULT_MINOR")
                 and not n.startswith("VM_FAULT_")}
    bad += sorted(header_vm - {n for n, _ in fl.VM_FLAGS})
    header_vmf = ({n for n in defs if n.startswith("VM_FAULT_")}
                  - {"VM_FAULT_ERROR", "VM_FAULT_MINOR"})
    bad += sorted(header_vmf - {n for n, _ in fl.VM_FAULT_BITS})
    for short, c in (("P", "_PAGE_PRESENT"), ("RW", "_PAGE_RW"), ("US", "_PAGE_USER"),
                     ("PWT", "_PAGE_PWT"), ("PCD", "_PAGE_PCD"), ("A", "_PAGE_ACCESSED"),
                     ("D", "_PAGE_DIRTY"), ("PS", "_PAGE_PSE"), ("G", "_PAGE_GLOBAL"),
                     ("NX", "_PAGE_NX")):
        if dict(fl.PAGE_BITS)[short] != val(c):
            bad.append(c)
    for name, mine in (("PAGE_OFFSET", fl.PAGE_OFFSET), ("FAULT_RING_SIZE", fl.FAULT_RING_SIZE),
                       ("PTE_PFN_MASK", fl.PTE_PFN_MASK), ("PF_PROT", fl.PF_PROT),
                       ("PF_WRITE", fl.PF_WRITE), ("PF_USER", fl.PF_USER), ("PF_RSVD", fl.PF_RSVD),
                       ("PF_INSTR", fl.PF_INSTR)):
        if name not in defs or val(name) != mine:
            bad.append(name)
    if "_PAGE_FILE _PAGE_DIRTY" not in re.sub(r"\s+", " ", src):
        bad.append("_PAGE_FILE")
    report(not bad, "the helpers' flag tables equal the headers' #defines",
           "differ: " + " ".join(bad))


def check_bt(top, prog):
    """bt names the top frames in order (gdb adds the -O2 build's inlined frames between them),
    then do_page_fault <- trap_dispatch <- trap_common, then (faultline.py's pt_regs unwinder)
    the user instruction that faulted: the rip of the struct pt_regs trap_common saved."""
    out = run("bt")
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
        detail = "frame after trap_common: %s; pt_regs rip 0x%x cs 0x%x" % (frames[i + 3], rip, cs)
    report(ok, "bt: %s <- %s <- the user rip in pt_regs" % (" <- ".join(top), " <- ".join(tail)),
           detail)


def vma_of(mm, addr):
    for v in fl.vma_list(mm):
        if int(v["vm_start"]) <= addr < int(v["vm_end"]):
            return v
    return None


def check_vmas_walk(t):
    out = run("vmas")
    mm = fl.task_mm(t)
    lst = [int(v) for v in fl.vma_list(mm)]
    infos = [fl.vma_info(mm, v) for v in fl.vma_list(mm)]
    ordered = all(a["end"] <= b["start"] for a, b in zip(infos, infos[1:])) and \
        all(i["start"] < i["end"] for i in infos)
    report(lst == rb_inorder(mm) and len(lst) == int(mm["map_count"]) and ordered,
           "vmas: the mmap list (%d VMAs) is sorted and equals the mm_rb tree's in-order walk"
           % len(lst),
           "list %s tree %s map_count %d"
           % ([hex(x) for x in lst], [hex(x) for x in rb_inorder(mm)], int(mm["map_count"])))
    lines = [l for l in out.splitlines()[1:] if l.strip()]
    report(len(lines) == len(lst), "vmas prints one line per VMA", "%d lines" % len(lines))
    return out


def check_pagewalk_mapped(addr, t, what):
    """pagewalk shows a present user PTE, and the frame it names holds what the MMU shows at
    addr."""
    out = run("pagewalk 0x%x" % addr)
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
    report(bool(ok), "pagewalk %s: 4 levels, a present user PTE, and its frame holds the bytes the "
           "MMU shows at 0x%x" % (what, addr), detail)
    return phys


def check_cr3(t):
    mm = fl.task_mm(t)
    cr3 = int(gdb.parse_and_eval("$cr3")) & fl.PTE_PFN_MASK
    report(cr3 == int(mm["pgd"]) - fl.PAGE_OFFSET,
           "CR3 is the faulting process's mm->pgd through the direct map",
           "cr3 0x%x pgd 0x%x" % (cr3, int(mm["pgd"])))


# ---------------------------------------------------------------- the boots
def scenario_maps():
    check_tables()
    prog = "busybox"
    transcript("first-stop")
    b = Stop("handle_mm_fault", prog)
    where = cont()
    report(where == "handle_mm_fault" and b.hits == 1,
           "hbreak handle_mm_fault stops for a fault of %s" % prog,
           "stopped in %s, comm %s" % (where, where and comm()))
    if where != "handle_mm_fault":
        return
    t = fl.current_task()
    addr = fault_address()
    transcript("first-bt")
    check_bt(["handle_mm_fault"], prog)
    check_cr3(t)
    transcript("first-vmas")
    check_vmas_walk(t)
    transcript("first-pagewalk")
    before = run("pagewalk 0x%x" % addr)
    rows, phys = fl.pagewalk(addr, t)
    report(phys is None and "not mapped" in before,
           "pagewalk before the fault: 0x%x is not mapped" % addr,
           before.strip().splitlines()[-1])
    transcript("first-finish")
    b.enabled = False
    ret = finish("handle_mm_fault")
    report(ret is not None and ret >= 0 and not ret & 3, "finish: handle_mm_fault returned %s (%s)"
           % (ret, fl.vm_fault_str(ret or 0)), "returned %s" % ret)
    out = run("vmfault $")
    report(fl.vm_fault_str(ret or 0) in out, "vmfault on an integer names its VM_FAULT_* bits",
           out.strip())
    check_pagewalk_mapped(addr, t, "after the fault")
    transcript()
    b.delete()
    first_pid, first_addr, first_ret = int(t["pid"]), addr, ret

    transcript("-")
    anon = Stop("do_anonymous_page", prog)
    filem = Stop("filemap_fault", prog)
    seen = set()
    for _ in range(200):
        where = cont()
        if where is None:
            break
        if where == "filemap_fault" and "filemap_fault" not in seen:
            seen.add(where)
            filem.enabled = False
            transcript_rename("file")
            check_bt(["filemap_fault", "__do_fault", "handle_mm_fault"], prog)
            out = run("vmfault")
            vma = gdb.parse_and_eval("vma")
            vaddr = int(gdb.parse_and_eval("vmf->virtual_address"))
            pgoff = ((vaddr - int(vma["vm_start"])) >> 12) + int(vma["vm_pgoff"])
            report(re.search(r"pgoff += %d " % pgoff, out) is not None
                   and "virtual_address = 0x%x" % vaddr in out,
                   "vmfault in filemap_fault: pgoff %d = (address - vm_start) / 4096 + vm_pgoff"
                   % pgoff, out.strip())
            run("up")
            out = run("vmfault")
            report("pgoff           = %d" % pgoff in out and "(in registers)" not in out,
                   "vmfault in __do_fault (the struct on its stack) shows the same fault",
                   out.strip())
            transcript("first-faults")
            recs, _ = fl.fault_records(64)
            run("faults 5")
            rec = [r for r in recs if r["pid"] == first_pid and r["address"] == first_addr]
            report(bool(rec) and rec[0]["result"] == first_ret and rec[0]["op"] in ("file", "anon"),
                   "faults: the fault ring holds the first fault (0x%x, result 0x%x)"
                   % (first_addr, first_ret or 0),
                   "records %s" % rec)
            transcript("-")
        elif where == "do_anonymous_page" and where not in seen:
            seen.add(where)
            anon.enabled = False
            transcript_rename("anon")
            check_bt(["do_anonymous_page", "handle_mm_fault"], prog)
            addr = fault_address()
            mm = fl.task_mm(fl.current_task())
            v = vma_of(mm, addr)
            info = fl.vma_info(mm, v) if v is not None else {}
            out = run("vmas", omit=True)
            report(info.get("op") == "anon"
                   and re.search(r"^%08x-%08x .* op=anon " % (info["start"], info["end"]),
                                 out, re.M) is not None,
                   "do_anonymous_page: the faulting address is in an anon VMA (%x-%x)"
                   % (info.get("start", 0), info.get("end", 0)), "vma %s" % info)
            run("finish")
            check_pagewalk_mapped(addr, fl.current_task(), "after do_anonymous_page")
            transcript("-")
        if seen == {"filemap_fault", "do_anonymous_page"}:
            break
    transcript()
    report("filemap_fault" in seen, "stopped in filemap_fault (a file fault)")
    report("do_anonymous_page" in seen, "stopped in do_anonymous_page (an anonymous fault)")
    anon.delete()
    filem.delete()

    # /proc/self/maps: the kernel builds its text from the same list vmas walks
    pm = Stop("maps_open", prog, from_pf=False)
    where = cont()
    if where != "maps_open":
        report(False, "stopped in maps_open", "stopped in %s" % where)
        return
    mine = fl.vmas_text(fl.current_task())
    gdb.write(mine)
    pm.delete()
    ex = Stop("do_exit", prog, from_pf=False)
    where = cont()
    got = []
    if SERIAL and os.path.exists(SERIAL):
        with open(SERIAL, encoding="latin-1") as f:
            got = parse_maps(f.read())
    ours = [m.groups()[:5] + (m.group(6) if m.group(6) != "-" else "",)
            for m in (re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]{8}) "
                               r"[0-9a-f]{2}:[0-9a-f]{2} (\d+)\s+(\S+)", l)
                      for l in mine.splitlines()[1:]) if m]
    report(where == "do_exit" and got and got == ours,
           "vmas equals the /proc/self/maps text cat printed (%d lines)" % len(got),
           "serial %s vs vmas %s" % (got, ours))
    run("faults 4")
    ex.delete()


def scenario_device():
    prog = "dev-kmsgbuf"
    transcript("device")
    b = Stop("kmsgbuf_vm_fault", prog)
    where = cont()
    report(where == "kmsgbuf_vm_fault", "hbreak kmsgbuf_vm_fault stops for %s" % prog,
           "stopped in %s" % where)
    if where != "kmsgbuf_vm_fault":
        return
    b.enabled = False
    t = fl.current_task()
    check_bt(["kmsgbuf_vm_fault", "__do_fault", "handle_mm_fault"], prog)
    out = run("vmfault")
    vaddr = int(gdb.parse_and_eval("vmf->virtual_address"))
    pgoff = int(gdb.parse_and_eval("vmf->pgoff"))
    report("(WRITE)" in out and "pgoff           = %d" % pgoff in out,
           "vmfault in kmsgbuf_vm_fault: a write (FAULT_FLAG_WRITE), pgoff %d" % pgoff,
           out.strip())
    mm = fl.task_mm(t)
    info = fl.vma_info(mm, vma_of(mm, vaddr))
    out = run("vmas")
    report(info["op"] == "device" and "PFNMAP" in info["other"] and "IO" in info["other"].split("|")
           and info["name"] == "/dev/kmsgbuf"
           and re.search(r"/dev/kmsgbuf +op=device .*PFNMAP", out) is not None,
           "vmas: the VMA is /dev/kmsgbuf, op device, VM_PFNMAP|VM_IO", "vma %s" % info)
    out = run("pagewalk 0x%x" % vaddr)
    report("not mapped" in out and "empty (nothing mapped)" in out,
           "pagewalk before: the device page is not mapped yet", out.strip().splitlines()[-1])
    # kmsgbuf's frames: page_to_pfn(frames), the struct page's index in mem_map
    first_pfn = int(gdb.parse_and_eval("frames - mem_map"))
    frame_want = (first_pfn + pgoff) * 4096
    cache = int(gdb.parse_and_eval("vma->vm_page_prot")) & 0x18
    ret = finish()
    out = run("vmfault $")
    report(ret == 0x100 and "NOPAGE" in out,
           "finish: kmsgbuf_vm_fault returned VM_FAULT_NOPAGE (it installed the PTE)",
           "returned %s" % ret)
    try:
        run("user-symbols %s" % prog)
        run("frame function do_page_fault")
        out = run("info symbol regs->rip")
        report(re.match(r"\w+ (\+ \d+ )?in section \.text", out) is not None
               and "No symbol" not in out,
               "user-symbols %s: the faulting user rip is in %s" % (prog, out.split()[0]),
               out.strip())
        func = out.split()[0]
        out = run("bt")
        report(re.search(r"^#\d+\s+0x[0-9a-f]+ in %s \(" % func, out, re.M) is not None,
               "bt with the user symbols goes on from trap_common into %s" % func,
               out.strip().splitlines()[-1])
    except gdb.error as e:
        report(False, "user-symbols %s" % prog, str(e))
    phys = check_pagewalk_mapped(vaddr, t, "after kmsgbuf_vm_fault")
    rows, _ = fl.pagewalk(vaddr, t)
    pte = rows[-1][3]
    report(phys is not None and (pte & fl.PTE_PFN_MASK) == frame_want and (pte & 0x18) == cache,
           "the PTE maps the device frame (phys 0x%x = (pfn of frames + pgoff) * 4096) with "
           "the VMA's cache bits 0x%x" % (frame_want, cache), "pte 0x%x" % pte)
    transcript()
    b.delete()


def scenario_nonlinear():
    prog = "nonlinear"
    transcript("nonlinear")
    b = Stop("do_nonlinear_fault", prog)
    where = cont()
    report(where == "do_nonlinear_fault", "hbreak do_nonlinear_fault stops for a #PF of %s" % prog,
           "stopped in %s" % where)
    if where != "do_nonlinear_fault":
        return
    b.enabled = False
    t = fl.current_task()
    addr = fault_address()
    check_bt(["do_nonlinear_fault", "handle_mm_fault"], prog)
    out = run("pagewalk 0x%x" % addr)
    rows, _ = fl.pagewalk(addr, t)
    pte = rows[-1][3] if len(rows) == 4 else 0
    pgoff = (pte & fl.PTE_PFN_MASK) >> 12
    report(len(rows) == 4 and not pte & 1 and pte & (1 << 6) and "file PTE pgoff %d" % pgoff in out,
           "pagewalk: a not-present file PTE, pgoff %d" % pgoff, out.strip())
    mm = fl.task_mm(t)
    info = fl.vma_info(mm, vma_of(mm, addr))
    linear = ((addr & ~0xfff) - info["start"]) // 4096 + info["pgoff"]
    out = run("vmas")
    report("NONLINEAR" in info["other"].split("|") and info["op"] == "file"
           and info["perms"][3] == "s",
           "vmas: the VMA is shared, op file, VM_NONLINEAR (linear pgoff would be %d)" % linear,
           "vma %s" % info)
    f = Stop("filemap_fault", prog)
    where = cont()
    report(where == "filemap_fault", "then filemap_fault for the same fault",
           "stopped in %s" % where)
    if where == "filemap_fault":
        out = run("vmfault")
        report("NONLINEAR" in out and "pgoff           = %d " % pgoff in out and pgoff != linear,
               "vmfault: FAULT_FLAG_NONLINEAR, pgoff %d from the PTE (not %d from the address)"
               % (pgoff, linear),
               out.strip())
        f.enabled = False
        ret = finish("handle_mm_fault")
        report(ret is not None and not ret & 3,
               "handle_mm_fault returned %s (%s)" % (ret, fl.vm_fault_str(ret or 0)),
               "returned %s" % ret)
        check_pagewalk_mapped(addr, t, "after the nonlinear fault")
        # do_page_fault records the fault after handle_mm_fault returns: look at the next exit
        # (the child that touches a page truncated away, SIGBUS) for both in the ring.
        f.delete()
        ex = Stop("do_exit", prog, from_pf=False)
        where = cont()
        out = run("faults 6")
        recs, _ = fl.fault_records(64)
        rec = [r for r in recs if r["address"] == addr and r["pid"] == int(t["pid"])]
        report(where == "do_exit" and bool(rec) and rec[0]["nonlinear"] and rec[0]["pgoff"] == pgoff
               and rec[0]["result"] == ret and " %dnl " % pgoff in out,
               "faults: the ring records the fault as nonlinear, pgoff %d, result %s"
               % (pgoff, ret),
               "stopped in %s, records %s" % (where, rec))
        ex.delete()
    transcript()
    if f.is_valid():
        f.delete()
    b.delete()


class CowStop(Stop):
    """do_wp_page for a write into vm-cow's 64-page anonymous mapping (mem), whose page is mapped
    by more than one PTE (shared: want_shared) or by this one only (pid: that process's)."""

    def __init__(self, prog, want_shared, pid=None):
        super().__init__("do_wp_page", prog)
        self.want_shared, self.pid = want_shared, pid

    def want(self):
        t = fl.current_task()
        addr = fault_address()
        v = vma_of(fl.task_mm(t), addr)
        if v is None or int(v["vm_file"]) or int(v["vm_end"]) - int(v["vm_start"]) != 64 * 4096:
            return False
        p = fl.page_of(addr, t)
        if p is None or (self.pid is not None and int(t["pid"]) != self.pid):
            return False
        return (int(p["_mapcount"]) > 0) == self.want_shared


def pte_and_page(addr, t):
    """(the PTE, its frame, the struct page's _count and _mapcount) for addr in task t."""
    rows, _ = fl.pagewalk(addr, t)
    pte = rows[-1][3] if len(rows) == 4 else 0
    p = fl.page_of(addr, t)
    return pte, pte & fl.PTE_PFN_MASK, int(p["_count"]) if p else None, \
        int(p["_mapcount"]) if p else None


def scenario_cow():
    prog = "vm-cow"
    # 1. a child's first write to a page it shares with its parent: a copy
    transcript("cow-copy")
    b = CowStop(prog, True)
    where = cont()
    report(where == "do_wp_page",
           "hbreak do_wp_page (noinline) stops for a write of %s to a page shared "
           "after fork" % prog, "stopped in %s" % where)
    if where != "do_wp_page":
        return
    b.enabled = False
    t = fl.current_task()
    addr = fault_address() & ~0xfff
    parent = int(t["parent"]["pid"])
    check_bt(["do_wp_page", "handle_mm_fault"], prog)
    run("vmas", omit=True)
    run("pagewalk 0x%x" % addr)
    run("pageinfo 0x%x" % addr)
    pte, old, count, mapcount = pte_and_page(addr, t)
    report(pte & 1 and not pte & 2 and mapcount >= 1 and count >= mapcount + 1,
           "before: the PTE is present and read-only, the page mapped by %s PTEs" % (mapcount + 1),
           "pte 0x%x _count %s _mapcount %s" % (pte, count, mapcount))
    ret = finish("do_wp_page")
    out = run("vmfault $")
    report(ret == 0x8 and "WRITE" in out, "finish: do_wp_page returned VM_FAULT_WRITE",
           "returned %s" % ret)
    check_pagewalk_mapped(addr, t, "after the copy")
    run("pageinfo 0x%x" % addr)
    run("pageinfo 0x%x %d" % (addr, parent))
    pte2, new, count2, mapcount2 = pte_and_page(addr, t)
    _, pold, pcount, pmapcount = pte_and_page(addr, fl.find_task(parent))
    report(pte2 & 2 and new != old and count2 == 1 and mapcount2 == 0 and pold == old
           and pmapcount == mapcount - 1,
           "after: the child's PTE is writable, a new frame mapped once; the parent keeps the old "
           "frame, mapped by one PTE fewer",
           "pte 0x%x frame 0x%x (was 0x%x) _count %s _mapcount %s; parent's frame 0x%x _mapcount %s"
           % (pte2, new, old, count2, mapcount2, pold, pmapcount))
    transcript()
    b.delete()

    # 2. the parent, its children gone, writes a page nobody else maps any more: reused
    transcript("cow-reuse")
    b = CowStop(prog, False, parent)
    where = cont()
    report(where == "do_wp_page" and int(fl.current_task()["pid"]) == parent,
           "do_wp_page again for the parent's write once its children are gone",
           "stopped in %s" % where)
    if where != "do_wp_page":
        return
    b.enabled = False
    t = fl.current_task()
    addr = fault_address() & ~0xfff
    run("pagewalk 0x%x" % addr)
    run("pageinfo 0x%x" % addr)
    pte, old, count, mapcount = pte_and_page(addr, t)
    ret = finish("do_wp_page")
    run("vmfault $")
    out = run("pagewalk 0x%x" % addr)
    pte2, new, _, _ = pte_and_page(addr, t)
    report(not pte & 2 and mapcount == 0 and ret == 0x8 and pte2 & 2 and pte2 & 0x40 and new == old,
           "a page mapped once is reused: the same frame, now writable and dirty, VM_FAULT_WRITE",
           "pte 0x%x -> 0x%x, _mapcount %s, returned %s" % (pte, pte2, mapcount, ret))
    transcript()
    b.delete()


try:
    gdb.execute("delete")  # faultline.gdb's hbreak kmain: not needed here
    {"maps": scenario_maps, "device": scenario_device, "nonlinear": scenario_nonlinear,
     "cow": scenario_cow}[SCENARIO]()
except Exception as e:  # a helper that throws is a failed test, not a hung gdb
    gdb.write(traceback.format_exc())
    report(False, "the test itself raised %s: %s" % (type(e).__name__, e))
gdb.write("FAULT-TEST-DONE %s: %d passed, %d failed\n"
          % (SCENARIO, results.count(True), results.count(False)))
