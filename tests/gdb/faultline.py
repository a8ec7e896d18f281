# gdb helpers for faultline: walk the kernel's own structures from the debugger.
#
#   vmas [PID]            a process's VMAs (default: current), as /proc/PID/maps plus op, pgoff,
#                         flags
#   pagewalk ADDR [PID]   the four page-table levels for ADDR, read through the direct map
#   pageinfo ADDR [PID]   the struct page of the frame ADDR maps: flags, _count, _mapcount
#   fl-cpus               each CPU: its gdb thread, current task, idle or not, active mm, TLB
#                         state, CR3, a TLB flush it owes, where it is
#   $cpu()                the CPU of the selected gdb thread (its GS base); `current` and the
#                         helpers' default task are that CPU's
#   vmfault [EXPR]        a struct vm_fault (default: the `vmf` of the selected frame), or
#                         VM_FAULT_* bits
#   faults [N]            the last N entries of the kernel's fault ring (mm/fault.h)
#   fl-swp ADDR [PID]     the swap side of ADDR's PTE: a swap entry's type and offset, its slot
#                         on the disk (swap_map count, sectors), the swap cache's page for it
#   user-symbols PROG     add build/user/PROG's symbols (static, non-PIE: addresses are absolute)
#   faultline-connect     attach to `make debug` (localhost:$GDBPORT, else 1234 + uid % 1000)
# and an unwinder that takes `bt` through trap_common/syscall_entry into the interrupted code.
# The signal path's helpers (sigframe, $pt_regs()) are in faultline_signal.py.
# docs/gdb.md shows each with real output.
#
# Loaded by tests/gdb/faultline.gdb (and so by `make gdb` and the repo's .gdbinit). Structure
# layouts come from the kernel's DWARF info (field offsets, never hard-coded); the flag values
# are the #defines of the headers named below, which -g does not put into DWARF. The gdb test
# (tests/gdb/fault_checks.py) checks these tables against the headers, so they cannot drift.
import os
import re

import gdb
import gdb.types
import gdb.unwinder

# ---------------------------------------------------------------- constants (C headers)
PAGE_SHIFT = 12
PAGE_SIZE = 1 << PAGE_SHIFT
PAGE_OFFSET = 0xffff888000000000  # mm/mmu.h: physical X is at PAGE_OFFSET + X
PTE_PFN_MASK = 0x000ffffffffff000  # mm/pgtable.h
FAULT_RING_SIZE = 64  # mm/fault.h
TLBSTATE_OK, TLBSTATE_LAZY = 1, 2  # mm/tlbflush.h

# mm/vma.h: vm_flags
VM_FLAGS = [
    ("VM_READ", 0x00000001), ("VM_WRITE", 0x00000002), ("VM_EXEC", 0x00000004),
    ("VM_SHARED", 0x00000008), ("VM_MAYREAD", 0x00000010), ("VM_MAYWRITE", 0x00000020),
    ("VM_MAYEXEC", 0x00000040), ("VM_MAYSHARE", 0x00000080), ("VM_GROWSDOWN", 0x00000100),
    ("VM_UFFD_MISSING", 0x00000200), ("VM_PFNMAP", 0x00000400), ("VM_LOCKED", 0x00002000),
    ("VM_IO", 0x00004000),
    ("VM_SEQ_READ", 0x00008000), ("VM_RAND_READ", 0x00010000), ("VM_DONTCOPY", 0x00020000),
    ("VM_LOCKONFAULT", 0x00080000), ("VM_ACCOUNT", 0x00100000), ("VM_NORESERVE", 0x00200000),
    ("VM_NONLINEAR", 0x00800000),
    ("VM_WIPEONFORK", 0x02000000), ("VM_CAN_NONLINEAR", 0x08000000),
]
VM = dict(VM_FLAGS)
# mm/vma.h: struct vm_fault's flags and the fault() return bits
FAULT_FLAGS = [("FAULT_FLAG_WRITE", 0x01), ("FAULT_FLAG_NONLINEAR", 0x02),
               ("FAULT_FLAG_ALLOW_RETRY", 0x04), ("FAULT_FLAG_TRIED", 0x20),
               ("FAULT_FLAG_USER", 0x40)]
VM_FAULT_BITS = [
    ("VM_FAULT_OOM", 0x0001), ("VM_FAULT_SIGBUS", 0x0002), ("VM_FAULT_MAJOR", 0x0004),
    ("VM_FAULT_WRITE", 0x0008), ("VM_FAULT_NOPAGE", 0x0100), ("VM_FAULT_LOCKED", 0x0200),
    ("VM_FAULT_RETRY", 0x0400),
]
# mm/pgtable.h: entry bits. Bit 7 is PS in a PUD/PMD entry (a 1 GiB / 2 MiB page) and PAT in a
# PTE; _PAGE_FILE (a software bit, the dirty bit's place) marks a not-present file PTE.
PAGE_BITS = [
    ("P", 1 << 0), ("RW", 1 << 1), ("US", 1 << 2), ("PWT", 1 << 3), ("PCD", 1 << 4),
    ("A", 1 << 5), ("D", 1 << 6), ("PS", 1 << 7), ("G", 1 << 8), ("NX", 1 << 63),
]
_PAGE_PRESENT = 1 << 0
_PAGE_PSE = 1 << 7
_PAGE_FILE = 1 << 6
# mm/swap.h: a swap PTE (not present, not a file PTE, not empty) holds the area's type in bits
# 1..6 and the slot's offset from bit 8 (pte_to_swp_entry); a swp_entry_t keeps the type in its
# top MAX_SWAPFILES_SHIFT bits (swp_entry). Slot N is page N of the area: its sectors start at
# N * (PAGE_SIZE >> SECTOR_SHIFT) (drivers/block/blkdev.h, mm/swap_io.c).
MAX_SWAPFILES_SHIFT = 5
SWAP_MAP_BAD = 0x8000
SECTOR_SHIFT = 9
# kernel/arch/trap.h: the #PF error code, named as pf_bits() in mm/fault.c names them
PF_PROT, PF_WRITE, PF_USER, PF_RSVD, PF_INSTR = 1, 2, 4, 8, 16


def bits_str(value, table, strip=""):
    """'A|B' for the bits of value named in table (prefix strip removed), unknown bits in hex."""
    names, rest = [], value
    for name, bit in table:
        if value & bit:
            names.append(name[len(strip):] if strip and name.startswith(strip) else name)
            rest &= ~bit
    if rest:
        names.append("0x%x" % rest)
    return "|".join(names) if names else "0"


def vm_fault_str(ret):
    """The VM_FAULT_* bits of a fault() or handle_mm_fault() result ('MINOR' for 0)."""
    ret = int(ret)
    if ret < 0:
        return "bad-area (%d: signal or oops, no handler ran)" % ret
    if ret == 0:
        return "MINOR"
    return bits_str(ret, VM_FAULT_BITS, "VM_FAULT_")


def pf_error_str(e):
    """The #PF error code in the words of the kernel's pf_bits()."""
    return "%s %s %s%s%s" % ("protection" if e & PF_PROT else "not-present",
                             "write" if e & PF_WRITE else "read",
                             "user" if e & PF_USER else "kernel",
                             " reserved-bit" if e & PF_RSVD else "",
                             " fetch" if e & PF_INSTR else "")


# ---------------------------------------------------------------- reading the kernel
def _type(name):
    return gdb.lookup_type(name)


def field_offset(struct_name, member):
    """Byte offset of member in struct_name, from the DWARF info."""
    t = gdb.types.get_basic_type(_type(struct_name))
    for f in t.fields():
        if f.name == member:
            return f.bitpos // 8
    raise gdb.GdbError("%s has no field %s" % (struct_name, member))


def container_of(ptr, struct_name, member):
    """The struct_name * that holds the list_head (or other member) at ptr."""
    addr = int(ptr) - field_offset(struct_name, member)
    return gdb.Value(addr).cast(_type(struct_name).pointer())


def list_for_each_entry(head, struct_name, member):
    """Yield each struct_name * on the list whose sentinel is the list_head head (a value)."""
    head_addr = int(head.address)
    node = head["next"]
    seen = 0
    while int(node) != head_addr:
        yield container_of(node, struct_name, member)
        node = node["next"]
        seen += 1
        if seen > 100000:
            raise gdb.GdbError("list at 0x%x does not come back to its head" % head_addr)


def read_u64(addr):
    return int.from_bytes(bytes(gdb.selected_inferior().read_memory(addr, 8)), "little")


def cstr(value):
    """A char array or char * as a Python string (up to the first NUL)."""
    try:
        if value.type.strip_typedefs().code == gdb.TYPE_CODE_ARRAY:
            n = value.type.strip_typedefs().sizeof
            raw = bytes(gdb.selected_inferior().read_memory(int(value.address), n))
        else:
            if int(value) == 0:
                return ""
            raw = bytes(gdb.selected_inferior().read_memory(int(value), 64))
    except gdb.MemoryError:
        return "?"
    return raw.split(b"\0", 1)[0].decode("latin-1")


def tasks():
    """Every struct task_struct * on all_tasks (kernel/sched/sched.c), in creation order."""
    return list_for_each_entry(gdb.parse_and_eval("all_tasks"), "struct task_struct", "tasks")


# ---------------------------------------------------------------- CPUs (kernel/arch/percpu.h)
# Each CPU is a gdb thread. Which CPU a thread is comes from its GS base: kernel mode keeps
# &cpu_data[cpu] there, ring 3 in KERNEL_GS_BASE (the entries swapgs), and QEMU shows both
# registers (gs_base, k_gs_base). Only before the CPU set its GS base (early boot) does the
# thread's number decide: QEMU shows CPU N as thread N + 1.
class _Selected(object):
    """Select thread (and its newest frame) for a with-block, then the previous selection."""

    def __init__(self, thread):
        self.thread = thread

    def __enter__(self):
        self.old = gdb.selected_thread()
        try:
            self.frame = gdb.selected_frame()
        except gdb.error:
            self.frame = None
        if self.thread is not None and self.thread != self.old:
            self.thread.switch()
        return self.thread

    def __exit__(self, *exc):
        if self.old is not None and self.old.is_valid() and self.old != gdb.selected_thread():
            self.old.switch()
        if self.frame is not None and self.frame.is_valid():
            self.frame.select()
        return False


def _register(name):
    try:
        return int(gdb.newest_frame().read_register(name)) & 0xffffffffffffffff
    except (gdb.error, ValueError):
        return None


def cpu_of_thread(thread=None):
    """(cpu, how) for a gdb thread (default: the selected one): how is "gs_base", "k_gs_base"
    or "thread" (no GS base set yet)."""
    with _Selected(thread):
        cd = gdb.parse_and_eval("cpu_data")
        base, size = int(cd.address), cd[0].type.sizeof
        n = cd.type.sizeof // size
        for reg in ("gs_base", "k_gs_base"):
            v = _register(reg)
            if v is not None and base <= v < base + n * size and (v - base) % size == 0:
                return (v - base) // size, reg
        num = gdb.selected_thread().num if gdb.selected_thread() is not None else 1
        return max(num - 1, 0), "thread"


def selected_cpu():
    return cpu_of_thread()[0]


class CpuFunction(gdb.Function):
    """$cpu(): the logical CPU of gdb's selected thread, from its GS base (kernel/arch/percpu.h)."""

    def __init__(self):
        super().__init__("cpu")

    def invoke(self):
        return gdb.Value(selected_cpu()).cast(gdb.lookup_type("int"))


def online_cpus():
    mask = int(gdb.parse_and_eval("cpu_online_mask"))
    return [c for c in range(64) if mask >> c & 1]


def cpu_threads():
    """{cpu: gdb thread} over the inferior's threads."""
    out = {}
    for th in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
        out.setdefault(cpu_of_thread(th)[0], th)
    return out


def current_task(cpu=None):
    """The task running on cpu (default: the selected thread's CPU): cpu_data[cpu].current_task,
    as the kernel's `current` reads it through %gs."""
    return gdb.parse_and_eval("cpu_data[%d].current_task"
                              % (selected_cpu() if cpu is None else cpu))


def find_task(pid=None):
    if pid is None:
        return current_task()
    for t in tasks():
        if int(t["pid"]) == pid:
            return t
    raise gdb.GdbError("no task with pid %d on all_tasks" % pid)


def task_label(t):
    return "pid %d (%s)" % (int(t["pid"]), cstr(t["comm"]))


def running_cpu(t):
    """The CPU whose current task t is, or None."""
    for c in online_cpus():
        if int(gdb.parse_and_eval("cpu_data[%d].current_task" % c)) == int(t):
            return c
    return None


def task_mm(t):
    """t's mm; for a kernel thread (no mm of its own) running on a CPU, the mm that CPU's CR3
    still holds (cpu_tlbstate[cpu].active_mm: lazy TLB), as the MMU sees it there."""
    mm = t["mm"]
    if int(mm) == 0:
        cpu = running_cpu(t)
        if cpu is not None:
            am = gdb.parse_and_eval("cpu_tlbstate[%d].active_mm" % cpu)
            if int(am):
                return am
        raise gdb.GdbError("%s is a kernel thread: no mm, no user address space" % task_label(t))
    return mm


def mm_label(t):
    """task_label, and whose mm a kernel thread's walk uses (task_mm)."""
    if int(t["mm"]):
        return task_label(t)
    return "%s, a kernel thread on CPU %s's active_mm" % (task_label(t), running_cpu(t))


def vma_list(mm):
    return list_for_each_entry(mm["mmap"], "struct vm_area_struct", "vm_list")


def dentry_path(d):
    """The absolute path of a name (struct dentry), mount points crossed, as
    kernel/fs/namei.c's d_path (without its " (deleted)")."""
    parts = []
    for _ in range(64):
        if int(d) == 0:
            break
        ino = d["d_inode"]
        sb = ino["i_sb"]
        while int(sb) and int(ino) == int(sb["s_root"]) and int(sb["s_mountpoint"]):
            ino = sb["s_mountpoint"]
            sb = ino["i_sb"]
            d = ino["i_dentry"].address
        if int(d["d_parent"]) == int(ino):
            break
        parts.append(cstr(d["d_name"]))
        d = d["d_parent"]["i_dentry"].address
    return "".join("/" + p for p in reversed(parts))


def inode_path(ino):
    """The absolute path of an inode by its first name."""
    return dentry_path(ino["i_dentry"].address) if int(ino) else ""


def vma_info(mm, vma):
    """A dict of what a VMA is: the fields /proc/self/maps shows and those it does not."""
    flags = int(vma["vm_flags"])
    start, end = int(vma["vm_start"]), int(vma["vm_end"])
    f = vma["vm_file"]
    ino = f["f_inode"] if int(f) else None
    ops = vma["vm_ops"]
    s_dev = int(ino["i_sb"]["s_dev"]) if ino is not None else 0
    if ino is not None:
        name = dentry_path(f["f_dentry"])  # the name it was opened by, as /proc/PID/maps
    elif (start <= int(mm["start_brk"]) and end >= int(mm["brk"])
          and int(mm["brk"]) > int(mm["start_brk"])):
        name = "[heap]"
    elif flags & VM["VM_GROWSDOWN"]:
        name = "[stack]"
    else:
        name = ""
    perms = "%s%s%s%s" % ("r" if flags & VM["VM_READ"] else "-",
                          "w" if flags & VM["VM_WRITE"] else "-",
                          "x" if flags & VM["VM_EXEC"] else "-",
                          "s" if flags & VM["VM_MAYSHARE"] else "p")
    other = flags & ~(VM["VM_READ"] | VM["VM_WRITE"] | VM["VM_EXEC"])
    return {
        "vma": int(vma), "start": start, "end": end, "perms": perms, "flags": flags,
        "other": bits_str(other, VM_FLAGS, "VM_") if other else "-",
        "pgoff": int(vma["vm_pgoff"]),
        "offset": (int(vma["vm_pgoff"]) << PAGE_SHIFT) if ino is not None else 0,
        "ino": int(ino["i_ino"]) if ino is not None else 0,
        # st_dev of the file's file system, major:minor as the kernel keeps it (20 bits minor)
        "dev": "%02x:%02x" % (s_dev >> 20, s_dev & 0xfffff),
        "name": name,
        "op": cstr(ops["name"]) if int(ops) else "anon",
    }


def parse_int(arg):
    return int(gdb.parse_and_eval(arg))


# ---------------------------------------------------------------- vmas
class Vmas(gdb.Command):
    ("List a process's VMAs: vmas [PID] (default: current): range, perms, offset, inode, name, "
     "op, pgoff, VM_* flags.")

    def __init__(self):
        super().__init__("vmas", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        t = find_task(parse_int(argv[0]) if argv else None)
        gdb.write(vmas_text(t))


def vmas_text(t):
    mm = task_mm(t)
    vl = [vma_info(mm, v) for v in vma_list(mm)]
    out = ["%s: mm 0x%x, %d VMAs (map_count %d), pgd 0x%x (phys 0x%x)\n"
           % (mm_label(t), int(mm), len(vl), int(mm["map_count"]), int(mm["pgd"]),
              int(mm["pgd"]) - PAGE_OFFSET)]
    # The first six columns are /proc/self/maps' (kernel/fs/proc/task_mmu.c), then what
    # maps leaves out.
    for v in vl:
        out.append("%08x-%08x %s %08x %s %-10d %-16s op=%-6s pgoff=0x%x %s\n"
                   % (v["start"], v["end"], v["perms"], v["offset"], v["dev"], v["ino"],
                      v["name"] or "-",
                      v["op"], v["pgoff"], v["other"]))
    return "".join(out)


# ---------------------------------------------------------------- pagewalk
LEVELS = [("PGD", 39), ("PUD", 30), ("PMD", 21), ("PTE", 12)]


def entry_bits(e, level):
    table = PAGE_BITS if level in ("PUD", "PMD") else \
        [(n if n != "PS" else ("PAT" if level == "PTE" else "PS"), b) for n, b in PAGE_BITS]
    return bits_str(e & ~PTE_PFN_MASK, table)


def zero_pfn():
    try:
        zp = gdb.parse_and_eval("zero_page")
        mem_map = gdb.parse_and_eval("mem_map")
        return int(zp - mem_map)
    except gdb.error:
        return None


class Pagewalk(gdb.Command):
    ("Walk the page tables for an address: pagewalk ADDR [PID]: each level's index, entry and "
     "bits, through the direct map.")

    def __init__(self):
        super().__init__("pagewalk", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv:
            raise gdb.GdbError("usage: pagewalk ADDR [PID]")
        addr = parse_int(argv[0]) & 0xffffffffffffffff
        t = find_task(parse_int(argv[1]) if len(argv) > 1 else None)
        gdb.write(pagewalk_text(addr, t))


def pagewalk(addr, t):
    """[(level, index, entry_address, entry)], and the physical address addr maps to or None."""
    mm = task_mm(t)
    table_phys = int(mm["pgd"]) - PAGE_OFFSET
    rows = []
    for level, shift in LEVELS:
        idx = (addr >> shift) & 511
        ea = PAGE_OFFSET + table_phys + idx * 8
        e = read_u64(ea)
        rows.append((level, idx, ea, e))
        if not e & _PAGE_PRESENT:
            return rows, None
        if level in ("PUD", "PMD") and e & _PAGE_PSE:
            size = 1 << shift
            return rows, (e & PTE_PFN_MASK & ~(size - 1)) + (addr & (size - 1))
        table_phys = e & PTE_PFN_MASK
    return rows, table_phys + (addr & (PAGE_SIZE - 1))


def pagewalk_text(addr, t):
    rows, phys = pagewalk(addr, t)
    mm = task_mm(t)
    out = ["pagewalk 0x%x in %s: pgd 0x%x (phys 0x%x)\n"
           % (addr, mm_label(t), int(mm["pgd"]), int(mm["pgd"]) - PAGE_OFFSET)]
    zpfn = zero_pfn()
    for level, idx, ea, e in rows:
        line = "  %s[%3d] @0x%x = 0x%016x  " % (level, idx, ea, e)
        if e == 0:
            line += "empty (nothing mapped)"
        elif not e & _PAGE_PRESENT:
            if level == "PTE" and e & _PAGE_FILE:
                line += "not present: file PTE pgoff %d" % ((e & PTE_PFN_MASK) >> PAGE_SHIFT)
            elif level == "PTE" and is_swap_pte(e):
                line += "not present: swap entry type %d offset %d" % swp_type_offset(e)
            else:
                line += "not present (0x%x)" % e
        else:
            line += entry_bits(e, level)
            if level == "PTE" or e & _PAGE_PSE:
                pfn = (e & PTE_PFN_MASK) >> PAGE_SHIFT
                line += " -> frame 0x%x" % (e & PTE_PFN_MASK)
                if zpfn is not None and pfn == zpfn and level == "PTE":
                    line += " (the zero page)"
            else:
                line += " -> table 0x%x" % (e & PTE_PFN_MASK)
        out.append(line + "\n")
    if phys is None:
        out.append("  0x%x is not mapped\n" % addr)
    else:
        out.append("  0x%x -> phys 0x%x (direct map 0x%x)\n" % (addr, phys, PAGE_OFFSET + phys))
    return "".join(out)


def page_flags_str(flags):
    """page->flags by the names of enum pageflags, read from the DWARF info (not copied)."""
    table = [(f.name, 1 << f.enumval) for f in gdb.lookup_type("enum pageflags").fields()
             if f.name != "NR_PAGEFLAGS"]
    return bits_str(flags, table, "PG_")


def page_of(addr, t):
    """The struct page * of the frame addr maps in task t, or None (not mapped, not RAM)."""
    rows, phys = pagewalk(addr, t)
    if phys is None or (phys >> PAGE_SHIFT) >= int(gdb.parse_and_eval("max_pfn")):
        return None
    return gdb.parse_and_eval("mem_map") + (phys >> PAGE_SHIFT)


class Pageinfo(gdb.Command):
    ("The struct page of the frame an address maps: pageinfo ADDR [PID]: flags, _count, "
     "_mapcount.")

    def __init__(self):
        super().__init__("pageinfo", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv:
            raise gdb.GdbError("usage: pageinfo ADDR [PID]")
        addr = parse_int(argv[0]) & 0xffffffffffffffff
        t = find_task(parse_int(argv[1]) if len(argv) > 1 else None)
        p = page_of(addr, t)
        if p is None:
            gdb.write("pageinfo 0x%x in %s: no struct page (not mapped, or not RAM)\n"
                      % (addr, mm_label(t)))
            return
        pfn = int(p - gdb.parse_and_eval("mem_map"))
        mc = int(p["_mapcount"])
        gdb.write("pageinfo 0x%x in %s: frame 0x%x, struct page 0x%x\n  flags %s, _count %d, "
                  "_mapcount %d (%s)\n" % (addr, mm_label(t), pfn << PAGE_SHIFT, int(p),
                                          page_flags_str(int(p["flags"])), int(p["_count"]), mc,
                                          "1 PTE maps it" if mc == 0
                                          else "%d PTEs map it" % (mc + 1)))


# ---------------------------------------------------------------- fl-swp
def is_swap_pte(pte):
    """mm/swap.h's is_swap_pte: not empty, not present, not a file PTE."""
    return pte != 0 and not pte & _PAGE_PRESENT and not pte & _PAGE_FILE


def swp_type_offset(pte):
    """(type, offset) of a swap PTE, as pte_to_swp_entry decodes it."""
    return (pte >> 1) & 0x3f, pte >> 8


def swp_entry_val(swp_type, offset):
    """The swp_entry_t value (swp_entry): the type in the top bits, page->private's form."""
    shift = 64 - MAX_SWAPFILES_SHIFT
    return (swp_type << shift) | (offset & ((1 << shift) - 1))


def swp_entry_split(val):
    shift = 64 - MAX_SWAPFILES_SHIFT
    return val >> shift, val & ((1 << shift) - 1)


def swap_cache_page(val):
    """The struct page * the swap cache holds for entry val, or None: a walk of every chain of
    swap_hash (mm/swap_state.c), so the hash function is not copied here."""
    table = gdb.parse_and_eval("swap_hash")
    n = table.type.strip_typedefs().sizeof // table[0].type.sizeof
    for i in range(n):
        p = table[i]
        seen = 0
        while int(p) and seen < 100000:
            if int(p["private"]) == val and int(p["flags"]) >> PG("PG_swapcache") & 1:
                return p
            p = p["next_hash"]
            seen += 1
    return None


def PG(name):
    """A page flag's bit number, from the DWARF info of enum pageflags."""
    for f in gdb.lookup_type("enum pageflags").fields():
        if f.name == name:
            return f.enumval
    raise gdb.GdbError("no %s in enum pageflags" % name)


def swap_slot(swp_type, offset):
    """What the kernel keeps about a slot: a dict, or None if type is no area in use."""
    if swp_type >= 1 << MAX_SWAPFILES_SHIFT:
        return None
    si = gdb.parse_and_eval("swap_info[%d]" % swp_type)
    if not int(si["flags"]) & 1 or not int(si["swap_map"]):  # SWP_USED
        return None
    out = {"name": cstr(si["name"]), "max": int(si["max"]), "pages": int(si["pages"]),
           "disk": cstr(si["bdev"]["disk_name"]) if int(si["bdev"]) else "?"}
    out["count"] = int(si["swap_map"][offset]) if offset < out["max"] else None
    return out


def swp_state(addr, t):
    """fl-swp's findings for addr in task t, as a dict (the tests use it too)."""
    rows, phys = pagewalk(addr, t)
    st = {"rows": rows, "pte": rows[-1][3] if len(rows) == 4 else None, "kind": "none",
          "type": None, "offset": None, "page": None}
    pte = st["pte"]
    if pte is None:
        st["kind"] = "no PTE table"
    elif pte & _PAGE_PRESENT:
        st["kind"] = "present"
        page = page_of(addr, t)
        if page is not None and int(page["flags"]) >> PG("PG_swapcache") & 1:
            st["type"], st["offset"] = swp_entry_split(int(page["private"]))
            st["page"] = page
    elif is_swap_pte(pte):
        st["kind"] = "swap"
        st["type"], st["offset"] = swp_type_offset(pte)
        st["page"] = swap_cache_page(swp_entry_val(st["type"], st["offset"]))
    if st["type"] is not None:
        st["slot"] = swap_slot(st["type"], st["offset"])
    return st


def _page_line(p):
    pfn = int(p - gdb.parse_and_eval("mem_map"))
    mc = int(p["_mapcount"])
    return ("page 0x%x, frame 0x%x, flags %s, _count %d, _mapcount %d (%s)"
            % (int(p), pfn << PAGE_SHIFT, page_flags_str(int(p["flags"])), int(p["_count"]),
               mc, "no PTE maps it" if mc < 0 else
               "1 PTE maps it" if mc == 0 else "%d PTEs map it" % (mc + 1)))


def swp_text(addr, t):
    st = swp_state(addr, t)
    pte = st["pte"]
    out = ["fl-swp 0x%x in %s: " % (addr, mm_label(t))]
    if pte is None:
        out.append("no PTE table for it: nothing mapped, nothing swapped\n")
        return "".join(out), st
    pte_ea = st["rows"][-1][2]
    out.append("PTE @0x%x = 0x%016x  " % (pte_ea, pte))
    if st["kind"] == "present":
        out.append("present: frame 0x%x\n" % (pte & PTE_PFN_MASK))
        if st["page"] is None:
            out.append("  the page is not in the swap cache: no slot keeps a copy of it\n")
            return "".join(out), st
        out.append("  the page is in the swap cache as type %d offset %d (page->private 0x%x)\n"
                   % (st["type"], st["offset"], int(st["page"]["private"])))
    elif st["kind"] == "swap":
        out.append("not present: swap entry type %d offset %d\n" % (st["type"], st["offset"]))
    else:
        out.append("%s: not a swap entry\n" % ("empty" if pte == 0 else
                                               "a file PTE" if pte & _PAGE_FILE else "?"))
        return "".join(out), st
    gdb.set_convenience_variable("swp_type", st["type"])
    gdb.set_convenience_variable("swp_offset", st["offset"])
    slot = st["slot"]
    if slot is None:
        out.append("  swap_info[%d] is no swap area in use\n" % st["type"])
        return "".join(out), st
    spp = PAGE_SIZE >> SECTOR_SHIFT
    out.append("  swap_info[%d]: %s (disk %s); slot %d is sectors %d-%d (offset * %d)\n"
               % (st["type"], slot["name"], slot["disk"], st["offset"], st["offset"] * spp,
                  st["offset"] * spp + spp - 1, spp))
    c = slot["count"]
    if c is None:
        out.append("  offset %d is beyond the area's %d slots\n" % (st["offset"], slot["max"]))
    else:
        what = ("bad (the header, or a bad page)" if c & SWAP_MAP_BAD else
                "free" if c == 0 else "its users: PTEs holding the entry, and the swap cache")
        out.append("  swap_map[%d] = %d: %s\n" % (st["offset"], c, what))
    if st["kind"] == "swap":
        if st["page"] is None:
            out.append("  swap cache: no page for the entry: a fault reads the slot from the "
                       "disk\n")
        else:
            out.append("  swap cache: %s\n" % _page_line(st["page"]))
    else:
        out.append("  %s\n" % _page_line(st["page"]))
    return "".join(out), st


class Swp(gdb.Command):
    ("The swap side of an address: fl-swp ADDR [PID]: a swap PTE's type and offset, the slot "
     "(its swap_map count and sectors) and the swap cache's page; for a present page, whether "
     "the swap cache holds it. Sets $swp_type and $swp_offset.")

    def __init__(self):
        super().__init__("fl-swp", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if not argv:
            raise gdb.GdbError("usage: fl-swp ADDR [PID]")
        addr = parse_int(argv[0]) & 0xffffffffffffffff
        t = find_task(parse_int(argv[1]) if len(argv) > 1 else None)
        gdb.write(swp_text(addr, t)[0])


# ---------------------------------------------------------------- fl-cpus
def cpu_rows():
    """One dict per online CPU: what fl-cpus prints, for the tests too."""
    threads = cpu_threads()
    sel = selected_cpu()
    fmask = int(gdb.parse_and_eval("flush_cpumask"))
    kpgd = int(gdb.parse_and_eval("kernel_pgd")) - PAGE_OFFSET
    rows = []
    for c in online_cpus():
        pc = gdb.parse_and_eval("cpu_data[%d]" % c)
        t, idle = pc["current_task"], pc["idle"]
        ts = gdb.parse_and_eval("cpu_tlbstate[%d]" % c)
        am = int(ts["active_mm"])
        th = threads.get(c)
        cr3 = where = None
        if th is not None:
            with _Selected(th):
                cr3 = _register("cr3")
                try:
                    where = gdb.newest_frame().name()
                except gdb.error:
                    pass
        if cr3 is None:
            cr3_s = "?"
        elif cr3 & PTE_PFN_MASK == kpgd:
            cr3_s = "kernel_pgd"
        elif am and cr3 & PTE_PFN_MASK == int(ts["active_mm"]["pgd"]) - PAGE_OFFSET:
            cr3_s = "active_mm"
        else:
            cr3_s = "0x%x" % cr3
        rows.append({
            "cpu": c, "selected": c == sel, "thread": th.num if th is not None else None,
            "apic_id": int(pc["apic_id"]), "task": t, "pid": int(t["pid"]) if int(t) else None,
            "comm": cstr(t["comm"]) if int(t) else "", "idle": int(t) == int(idle),
            "mm": int(t["mm"]) if int(t) else 0, "active_mm": am, "state": int(ts["state"]),
            "in_mask": bool(am) and bool(int(ts["active_mm"]["cpu_vm_mask"]) >> c & 1),
            "cr3": cr3, "cr3_s": cr3_s, "owes_flush": bool(fmask >> c & 1), "where": where,
        })
    return rows


class Cpus(gdb.Command):
    ("Each CPU: fl-cpus: its gdb thread, current task (idle or not), active mm and TLB state, "
     "CR3, whether it owes a TLB flush (flush_cpumask), where it is. * marks the selected CPU.")

    def __init__(self):
        super().__init__("fl-cpus", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        gdb.write(cpus_text())


def cpus_text():
    rows = cpu_rows()
    fmask = int(gdb.parse_and_eval("flush_cpumask"))
    fmm = int(gdb.parse_and_eval("flush_mm"))
    out = ["%d CPUs online (cpu_online_mask 0x%x); flush_cpumask 0x%x%s\n"
           % (len(rows), int(gdb.parse_and_eval("cpu_online_mask")), fmask,
              (", flush_mm 0x%x" % fmm) if fmask and fmm else
              (", kernel mappings" if fmask else "")),
           "  CPU thread  current                   mm                  active_mm           "
           "tlbstate   cr3         flush  where\n"]
    for r in rows:
        task = "pid %d (%s)%s" % (r["pid"], r["comm"], " idle" if r["idle"] else "") \
            if r["pid"] is not None else "-"
        state = "-" if not r["active_mm"] else {TLBSTATE_OK: "OK", TLBSTATE_LAZY: "LAZY"}.get(
            r["state"], str(r["state"]))
        if r["active_mm"] and not r["in_mask"]:
            state += "!mask"  # not in active_mm->cpu_vm_mask: flushes would miss it
        out.append("%s %-3d %-7s %-25s %-19s %-19s %-10s %-11s %-6s %s\n"
                   % ("*" if r["selected"] else " ", r["cpu"],
                      r["thread"] if r["thread"] is not None else "-", task,
                      ("0x%x" % r["mm"]) if r["mm"] else "-",
                      ("0x%x" % r["active_mm"]) if r["active_mm"] else "-", state, r["cr3_s"],
                      "owed" if r["owes_flush"] else "-", r["where"] or "?"))
    return "".join(out)


# ---------------------------------------------------------------- vmfault
class Vmfault(gdb.Command):
    ("Show a struct vm_fault with flag names: vmfault [EXPR] (default: vmf in the selected "
     "frame); an integer EXPR: its VM_FAULT_* bits.")

    def __init__(self):
        super().__init__("vmfault", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        gdb.write(vmfault_text(arg.strip() or "vmf"))


def vmfault_text(expr):
    try:
        v = gdb.parse_and_eval(expr)
    except gdb.error as e:
        raise gdb.GdbError("vmfault: cannot evaluate '%s' here: %s" % (expr, e))
    t = v.type.strip_typedefs()
    if t.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_BOOL):
        return "%s = 0x%x: %s\n" % (expr, int(v) & 0xffffffff, vm_fault_str(int(v)))
    if t.code == gdb.TYPE_CODE_PTR:
        if int(v) == 0:
            return "%s = NULL\n" % expr
        v = v.dereference()
        t = v.type.strip_typedefs()
    if t.tag != "vm_fault":
        raise gdb.GdbError("vmfault: '%s' is a %s, not a struct vm_fault or an integer"
                           % (expr, v.type))
    flags = int(v["flags"])
    page = int(v["page"])
    where = ("at 0x%x" % int(v.address)) if v.address is not None else "(in registers)"
    out = ["struct vm_fault %s %s:\n" % (expr, where),
           "  flags           = 0x%x (%s)\n" % (flags, bits_str(flags, FAULT_FLAGS, "FAULT_FLAG_")
                                               if flags else "read, linear"),
           "  pgoff           = %d (0x%x)\n" % (int(v["pgoff"]), int(v["pgoff"])),
           "  virtual_address = 0x%x\n" % int(v["virtual_address"])]
    if page:
        try:
            pfn = int(v["page"] - gdb.parse_and_eval("mem_map"))
            out.append("  page            = 0x%x (pfn 0x%x, phys 0x%x)\n"
                       % (page, pfn, pfn << PAGE_SHIFT))
        except gdb.error:
            out.append("  page            = 0x%x\n" % page)
    else:
        out.append("  page            = NULL (not found yet, or VM_FAULT_NOPAGE)\n")
    return "".join(out)


# ---------------------------------------------------------------- faults
class Faults(gdb.Command):
    ("Show the last N page faults from the kernel's fault ring: faults [N] (default 10, at "
     "most 64).")

    def __init__(self):
        super().__init__("faults", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        gdb.write(faults_text(parse_int(argv[0]) if argv else 10))


def fault_records(n):
    """The last n fault_ring entries, oldest first, as dicts."""
    ring = gdb.parse_and_eval("fault_ring")
    nxt = int(gdb.parse_and_eval("fault_ring_next"))
    n = max(0, min(n, FAULT_RING_SIZE, nxt))
    comms = {}
    try:
        for t in tasks():
            comms[int(t["pid"])] = cstr(t["comm"])
    except gdb.error:
        pass
    recs = []
    for seq in range(nxt - n, nxt):
        r = ring[seq % FAULT_RING_SIZE]
        recs.append({
            "seq": int(r["seq"]), "pid": int(r["pid"]), "comm": comms.get(int(r["pid"]), "gone"),
            "address": int(r["address"]), "pgoff": int(r["pgoff"]), "error": int(r["error"]),
            "vm_start": int(r["vm_start"]), "vm_end": int(r["vm_end"]),
            "result": int(r["result"]), "nonlinear": bool(r["nonlinear"]), "op": cstr(r["op"]),
        })
    return recs, nxt


def faults_text(n):
    recs, nxt = fault_records(n)
    out = ["%d faults since boot; the last %d (oldest first):\n" % (nxt, len(recs)),
           "%6s %4s %-12s %-16s %11s  %-36s %-25s %-6s %s\n"
           % ("seq", "pid", "comm", "address", "pgoff", "error", "vma", "op", "result")]
    for r in recs:
        err = "0x%x %s" % (r["error"], pf_error_str(r["error"]))
        vma = "%x-%x" % (r["vm_start"], r["vm_end"])
        pgoff = "%d%s" % (r["pgoff"], "nl" if r["nonlinear"] else "")
        res = ("0x%x %s" % (r["result"], vm_fault_str(r["result"]))) if r["result"] >= 0 \
            else "-1 bad-area"
        out.append("%6d %4d %-12s %016x %11s  %-36s %-25s %-6s %s\n"
                   % (r["seq"], r["pid"], r["comm"][:12], r["address"], pgoff, err, vma, r["op"],
                      res))
    out.append("(pgoff 'nl': taken from a nonlinear file PTE)\n"
               if any(r["nonlinear"] for r in recs) else "")
    return "".join(out)


# ---------------------------------------------------------------- unwinding through a trap
# trap_common (kernel/arch/entry.S) and syscall_entry (kernel/arch/syscall.S) leave %rsp pointing
# at a struct pt_regs and call C. Their CFI (.cfi_signal_frame, .cfi_undefined rip) lands in an
# .eh_frame that linker.ld merges into .rodata, so gdb never sees it and guesses frames past
# them from garbage. This unwinder reads the pt_regs instead: bt continues into the code the
# trap interrupted (ring 3: the user program; `user-symbols PROG` names its functions).
ENTRY_FUNCS = ("trap_common", "syscall_entry")
_entry_cache = {}


def _entry_name(pc):
    if pc not in _entry_cache:
        name = None
        try:
            out = gdb.execute("info symbol 0x%x" % pc, to_string=True)
            m = re.match(r"(\w+) ", out)
            if m and m.group(1) in ENTRY_FUNCS + ("trap_return",):
                name = "trap_common" if m.group(1) == "trap_return" else m.group(1)
        except gdb.error:
            pass
        _entry_cache[pc] = name
    return _entry_cache[pc]


class _FrameId(object):
    """What create_unwind_info wants (gdb 14 has gdb.unwinder.FrameId): gdb.Values sp, pc."""

    def __init__(self, sp, pc):
        u64 = gdb.lookup_type("unsigned long")
        self.sp, self.pc = gdb.Value(sp).cast(u64), gdb.Value(pc).cast(u64)


class TrapUnwinder(gdb.unwinder.Unwinder):
    def __init__(self):
        super().__init__("faultline-pt_regs")

    def __call__(self, pending):
        try:
            if pending.level() == 0:
                return None  # inside the stub itself: %rsp may not point at pt_regs yet
            pc = int(pending.read_register("rip"))
            if _entry_name(pc) is None:
                return None
            regs_addr = int(pending.read_register("rsp"))
            ptr = gdb.lookup_type("struct pt_regs").pointer()
            regs = gdb.Value(regs_addr).cast(ptr).dereference()
            rip = int(regs["rip"])
            if int(regs["vector"]) > 255 and int(regs["vector"]) != 0xffffffffffffffff:
                return None
            if not (rip < 0x0000800000000000 or rip >= 0xffff800000000000):
                return None
            u64 = gdb.lookup_type("unsigned long")
            info = pending.create_unwind_info(_FrameId(regs_addr + ptr.target().sizeof, pc))
            for r in ("rip", "rsp", "rbp", "rbx", "r12", "r13", "r14", "r15", "rax", "rcx", "rdx",
                      "rsi", "rdi", "r8", "r9", "r10", "r11"):
                info.add_saved_register(r, gdb.Value(int(regs[r])).cast(u64))
            return info
        except (gdb.error, RuntimeError, ValueError) as e:
            if os.environ.get("FAULTLINE_DEBUG"):
                gdb.write("faultline-pt_regs unwinder: %s\n" % e)
            return None


def _register_unwinder():
    try:
        gdb.unwinder.register_unwinder(None, TrapUnwinder(), replace=True)
    except (RuntimeError, TypeError):
        pass


# ---------------------------------------------------------------- user-symbols, connecting
def repo_root():
    """The checkout this file is in (tests/gdb/faultline.py)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_user_symbols = []


class UserSymbols(gdb.Command):
    ("Load a ring-3 program's symbols: user-symbols PROG (build/user/PROG; replaces the previous "
     "program's).")

    def __init__(self):
        super().__init__("user-symbols", gdb.COMMAND_FILES, gdb.COMPLETE_FILENAME)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if len(argv) != 1:
            raise gdb.GdbError("usage: user-symbols PROG (a file in build/user/, e.g. vm-cow)")
        path = argv[0]
        if not os.path.exists(path):
            path = os.path.join(repo_root(), "build", "user", os.path.basename(argv[0]))
        if not os.path.exists(path):
            raise gdb.GdbError("user-symbols: no %s (run 'make user')" % path)
        # Every program is linked at the same addresses: only one set of user symbols at a time.
        while _user_symbols:
            old = _user_symbols.pop()
            try:
                gdb.execute("remove-symbol-file %s" % old, to_string=True)
            except gdb.error:
                pass
        # Static, non-PIE: the ELF's own section addresses are the run-time ones.
        gdb.execute("add-symbol-file %s" % path, from_tty=False)
        _user_symbols.append(path)


def default_port():
    """make debug's port: $GDBPORT, else 1234 + uid % 1000 (the Makefile's rule)."""
    p = os.environ.get("GDBPORT", "")
    return int(p) if p.isdigit() else 1234 + os.getuid() % 1000


class Connect(gdb.Command):
    ("Attach to make debug's QEMU: faultline-connect [PORT] (default $GDBPORT or 1234 + uid "
     "% 1000).")

    def __init__(self):
        super().__init__("faultline-connect", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        port = int(arg) if arg.strip() else default_port()
        if gdb.selected_inferior().pid:
            gdb.write("faultline: already attached\n")
            return
        try:
            gdb.execute("target remote localhost:%d" % port)
        except gdb.error as e:
            gdb.write("faultline: cannot attach to localhost:%d (%s): start 'make debug' first, "
                      "then 'faultline-connect' (or: target remote localhost:%d)\n"
                      % (port, e, port))


Vmas()
Pagewalk()
Cpus()
CpuFunction()
Pageinfo()
Swp()
Vmfault()
Faults()
UserSymbols()
Connect()
_register_unwinder()
