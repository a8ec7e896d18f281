# The checks of each docs/gdb.md walkthrough (tests/gdb/fault_checks.py has the machinery):
#   maps       busybox cat /proc/self/maps: the first fault in handle_mm_fault, an anonymous
#              fault, a file fault, the fault ring; vmas against the maps text cat prints
#   device     dev-kmsgbuf: kmsgbuf_vm_fault, VM_FAULT_NOPAGE, the device frame's PTE,
#              user-symbols
#   nonlinear  nonlinear: do_nonlinear_fault on a file PTE, filemap_fault with its pgoff
#   cow        vm-cow: do_wp_page copies a page shared after fork, later reuses one
#   sigpath    uf-pager: a fault no fault() can serve, as a signal: force_sig_fault,
#              setup_rt_frame, the handler, rt_sigreturn, the restart (fault_sigpath.py)
#   shootdown  ktest=tlb_shootdown_munmap on 2 CPUs: flush_tlb_others on CPU 0, the IPI,
#              invalidate_interrupt on CPU 1, the wait on flush_cpumask; per-CPU helpers
#   swapin     swap-in: do_swap_page reads the slot (blk_rw), then finds the swap cache's page
#   ext2       fsread on an ext2 disk: read-around, the sleep in lock_page, the disk's
#              interrupt on the other CPU (fault_ext2.py)
import os
import re

import gdb
import faultline as fl
import fault_ext2
import fault_sigpath
from fault_checks import (SERIAL, MAPS_RE, Session, check_tables, comm, fault_address,
                          frame_names, quiet, quiet_continue, rb_inorder, run_to_end, vma_of,
                          pte_and_page, where)


class CommStop(gdb.Breakpoint):
    """A hardware breakpoint for the epilogue's own stops: only for program prog."""

    def __init__(self, spec, prog):
        super().__init__(spec, type=gdb.BP_HARDWARE_BREAKPOINT, internal=True)
        self.prog = prog

    def stop(self):
        try:
            return comm() == self.prog
        except gdb.error:
            return False


class Maps(Session):
    PROG = "busybox"
    EXPECT = ("tables", "first-stop", "first-bt", "cr3", "vmas-walk", "vmas-lines",
              "first-unmapped", "first-ret", "vmfault-bits", "first-mapped", "ring",
              "anon-stop", "anon-bt", "anon-vma", "anon-mapped", "file-stop", "file-bt",
              "file-vmfault", "do-fault-vmfault", "maps-text")

    def stopped(self, fn):
        if fn == "handle_mm_fault" and self.once("first-stop"):
            self.from_pf("first-stop", fn, self.PROG)
            self.t, self.addr = fl.current_task(), fault_address()
            self.check_bt("first-bt", ["handle_mm_fault"])
            mm = fl.task_mm(self.t)
            cr3 = int(gdb.parse_and_eval("$cr3")) & fl.PTE_PFN_MASK
            self.report("cr3", cr3 == int(mm["pgd"]) - fl.PAGE_OFFSET,
                        "CR3 is the faulting process's mm->pgd through the direct map",
                        "cr3 0x%x pgd 0x%x" % (cr3, int(mm["pgd"])))
            lst = [int(v) for v in fl.vma_list(mm)]
            infos = [fl.vma_info(mm, v) for v in fl.vma_list(mm)]
            ordered = all(a["end"] <= b["start"] for a, b in zip(infos, infos[1:])) and \
                all(i["start"] < i["end"] for i in infos)
            self.report("vmas-walk", lst == rb_inorder(mm) and len(lst) == int(mm["map_count"])
                        and ordered, "vmas: the mmap list (%d VMAs) is sorted and equals the "
                        "mm_rb tree's in-order walk" % len(lst),
                        "list %s tree %s"
                        % ([hex(x) for x in lst], [hex(x) for x in rb_inorder(mm)]))
            lines = [l for l in quiet("vmas").splitlines()[1:] if l.strip()]
            self.report("vmas-lines", len(lines) == len(lst), "vmas prints one line per VMA",
                        "%d lines" % len(lines))
            out = quiet("pagewalk 0x%x" % self.addr)
            _, phys = fl.pagewalk(self.addr, self.t)
            self.report("first-unmapped", phys is None and "not mapped" in out,
                        "pagewalk before the fault: 0x%x is not mapped" % self.addr,
                        out.strip().splitlines()[-1])
        elif fn == "do_anonymous_page" and self.once("anon-stop"):
            self.from_pf("anon-stop", fn, self.PROG)
            self.check_bt("anon-bt", ["do_anonymous_page", "handle_mm_fault"])
            self.anon = fault_address()
            mm = fl.task_mm(fl.current_task())
            v = vma_of(mm, self.anon)
            info = fl.vma_info(mm, v) if v is not None else {}
            out = quiet("vmas")
            self.report("anon-vma", info.get("op") == "anon" and re.search(
                r"^%08x-%08x .* op=anon " % (info["start"], info["end"]), out, re.M) is not None,
                "do_anonymous_page: the faulting address is in an anon VMA (%x-%x)"
                % (info.get("start", 0), info.get("end", 0)), "vma %s" % info)
        elif fn == "filemap_fault" and self.once("file-stop"):
            self.from_pf("file-stop", fn, self.PROG)
            self.check_bt("file-bt", ["filemap_fault", "__do_fault", "handle_mm_fault"])
            out = quiet("vmfault")
            vma = gdb.parse_and_eval("vma")
            vaddr = int(gdb.parse_and_eval("vmf->virtual_address"))
            pgoff = ((vaddr - int(vma["vm_start"])) >> 12) + int(vma["vm_pgoff"])
            self.report("file-vmfault", re.search(r"pgoff += %d " % pgoff, out) is not None
                        and "virtual_address = 0x%x" % vaddr in out,
                        "vmfault in filemap_fault: pgoff %d = (address - vm_start) / 4096 + "
                        "vm_pgoff" % pgoff, out.strip())
            sel = gdb.selected_frame()
            gdb.newest_frame().older().select()
            out = quiet("vmfault")
            sel.select()
            self.report("do-fault-vmfault", "pgoff           = %d" % pgoff in out
                        and "(in registers)" not in out,
                        "vmfault in __do_fault (the struct on its stack) shows the same fault",
                        out.strip())

    def finished(self, fn, ret):
        if fn == "handle_mm_fault" and self.once("first-ret"):
            self.ret = ret
            self.report("first-ret", ret is not None and ret >= 0 and not ret & 3,
                        "finish: handle_mm_fault returned %s (%s)"
                        % (ret, fl.vm_fault_str(ret or 0)), "returned %s" % ret)
            self.check_vmfault_bits("vmfault-bits", ret)
            self.check_mapped("first-mapped", self.addr, self.t, "after the fault")
        elif fn == "do_anonymous_page" and self.once("anon-mapped"):
            self.check_mapped("anon-mapped", self.anon, fl.current_task(),
                              "after do_anonymous_page")

    def command(self, verb, cmd):
        if verb == "faults" and "first-ret" in self.done and self.once("ring"):
            recs, _ = fl.fault_records(64)
            rec = [r for r in recs if r["pid"] == int(self.t["pid"]) and r["address"] == self.addr]
            self.report("ring", bool(rec) and rec[0]["result"] == self.ret
                        and rec[0]["op"] in ("file", "anon"),
                        "faults: the fault ring holds the first fault (0x%x, result 0x%x)"
                        % (self.addr, self.ret or 0), "records %s" % rec)

    def epilogue(self, interrupted):
        # /proc/self/maps: the kernel builds its text from the same list vmas walks
        check_tables(self)
        if interrupted:
            return
        quiet("delete")
        pm = CommStop("maps_open", self.PROG)
        fn = quiet_continue()
        if fn != "maps_open":
            self.report("maps-text", False, "stopped in maps_open", "stopped in %s" % fn)
            return
        mine = fl.vmas_text(fl.current_task())
        pm.delete()
        CommStop("do_exit", self.PROG)
        fn = quiet_continue()
        got = []
        if SERIAL and os.path.exists(SERIAL):
            with open(SERIAL, encoding="latin-1") as f:
                got = [m.groups() for m in (MAPS_RE.match(l.strip("\r"))
                                            for l in f.read().splitlines()) if m]
        ours = [m.groups()[:5] + (m.group(6) if m.group(6) != "-" else "",)
                for m in (re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]{8}) "
                                   r"[0-9a-f]{2}:[0-9a-f]{2} (\d+)\s+(\S+)", l)
                          for l in mine.splitlines()[1:]) if m]
        self.report("maps-text", fn == "do_exit" and got and got == ours,
                    "vmas equals the /proc/self/maps text cat printed (%d lines)" % len(got),
                    "serial %s vs vmas %s" % (got, ours))


class Device(Session):
    PROG = "dev-kmsgbuf"
    EXPECT = ("stop", "bt", "vmfault", "vma", "unmapped", "nopage", "user-symbols", "user-bt",
              "mapped", "device-frame")

    def stopped(self, fn):
        if fn != "kmsgbuf_vm_fault" or not self.once("stop"):
            return
        self.from_pf("stop", fn, self.PROG)
        self.t = fl.current_task()
        self.check_bt("bt", ["kmsgbuf_vm_fault", "__do_fault", "handle_mm_fault"])
        out = quiet("vmfault")
        self.vaddr = int(gdb.parse_and_eval("vmf->virtual_address"))
        pgoff = int(gdb.parse_and_eval("vmf->pgoff"))
        self.report("vmfault", re.search(r"flags += 0x\w+ \((\w+\|)*WRITE[|)]", out) is not None
                    and "pgoff           = %d" % pgoff in out,
                    "vmfault in kmsgbuf_vm_fault: a write (FAULT_FLAG_WRITE), pgoff %d" % pgoff,
                    out.strip())
        mm = fl.task_mm(self.t)
        info = fl.vma_info(mm, vma_of(mm, self.vaddr))
        out = quiet("vmas")
        self.report("vma", info["op"] == "device" and "PFNMAP" in info["other"]
                    and "IO" in info["other"].split("|") and info["name"] == "/dev/kmsgbuf"
                    and re.search(r"/dev/kmsgbuf +op=device .*PFNMAP", out) is not None,
                    "vmas: the VMA is /dev/kmsgbuf, op device, VM_PFNMAP|VM_IO", "vma %s" % info)
        out = quiet("pagewalk 0x%x" % self.vaddr)
        self.report("unmapped", "not mapped" in out and "empty (nothing mapped)" in out,
                    "pagewalk before: the device page is not mapped yet",
                    out.strip().splitlines()[-1])
        # the driver's frames: page_to_pfn(frames) is the struct page's index in mem_map
        first_pfn = int(gdb.parse_and_eval("frames - mem_map"))
        self.frame_want = (first_pfn + pgoff) * 4096
        self.cache = int(gdb.parse_and_eval("vma->vm_page_prot")) & 0x18

    def finished(self, fn, ret):
        if fn != "kmsgbuf_vm_fault" or not self.once("nopage"):
            return
        out = quiet("vmfault %d" % (ret or 0))
        self.report("nopage", ret == 0x100 and "NOPAGE" in out,
                    "finish: kmsgbuf_vm_fault returned VM_FAULT_NOPAGE (it installed the PTE)",
                    "returned %s" % ret)
        phys = self.check_mapped("mapped", self.vaddr, self.t, "after kmsgbuf_vm_fault")
        rows, _ = fl.pagewalk(self.vaddr, self.t)
        pte = rows[-1][3]
        self.report("device-frame", phys is not None and (pte & fl.PTE_PFN_MASK) ==
                    self.frame_want and (pte & 0x18) == self.cache,
                    "the PTE maps the device frame (phys 0x%x = (pfn of frames + pgoff) * 4096) "
                    "with the VMA's cache bits 0x%x" % (self.frame_want, self.cache),
                    "pte 0x%x" % pte)

    def command(self, verb, cmd):
        if not cmd.startswith("info symbol") or not self.once("user-symbols"):
            return
        out = quiet(cmd)
        self.report("user-symbols", re.match(r"\w+ (\+ \d+ )?in section \.text", out) is not None
                    and "No symbol" not in out,
                    "user-symbols %s: the faulting user rip is in %s" % (self.PROG,
                                                                         out.split()[0]),
                    out.strip())
        func = out.split()[0]
        out = quiet("bt")
        self.report("user-bt", re.search(r"^#\d+\s+0x[0-9a-f]+ in %s \(" % func, out, re.M)
                    is not None, "bt with the user symbols goes on from trap_common into %s"
                    % func, out.strip().splitlines()[-1])


class Nonlinear(Session):
    PROG = "nonlinear"
    EXPECT = ("stop", "bt", "file-pte", "vma", "filemap-stop", "vmfault", "locked", "ret",
              "mapped", "ring")

    def stopped(self, fn):
        if fn == "do_nonlinear_fault" and self.once("stop"):
            self.from_pf("stop", fn, self.PROG)
            self.t, self.addr = fl.current_task(), fault_address()
            self.check_bt("bt", ["do_nonlinear_fault", "handle_mm_fault"])
            out = quiet("pagewalk 0x%x" % self.addr)
            rows, _ = fl.pagewalk(self.addr, self.t)
            pte = rows[-1][3] if len(rows) == 4 else 0
            self.pgoff = (pte & fl.PTE_PFN_MASK) >> 12
            self.report("file-pte", len(rows) == 4 and not pte & 1 and pte & (1 << 6)
                        and "file PTE pgoff %d" % self.pgoff in out,
                        "pagewalk: a not-present file PTE, pgoff %d" % self.pgoff, out.strip())
            mm = fl.task_mm(self.t)
            info = fl.vma_info(mm, vma_of(mm, self.addr))
            self.linear = ((self.addr & ~0xfff) - info["start"]) // 4096 + info["pgoff"]
            self.report("vma", "NONLINEAR" in info["other"].split("|") and info["op"] == "file"
                        and info["perms"][3] == "s", "vmas: the VMA is shared, op file, "
                        "VM_NONLINEAR (linear pgoff would be %d)" % self.linear, "vma %s" % info)
        elif fn == "filemap_fault" and "stop" in self.done and self.once("filemap-stop"):
            self.report("filemap-stop", fault_address() == self.addr,
                        "then filemap_fault for the same fault", "cr2 0x%x" % fault_address())
            out = quiet("vmfault")
            self.report("vmfault", "NONLINEAR" in out and "pgoff           = %d " % self.pgoff
                        in out and self.pgoff != self.linear,
                        "vmfault: FAULT_FLAG_NONLINEAR, pgoff %d from the PTE (not %d from the "
                        "address)" % (self.pgoff, self.linear), out.strip())
        elif fn == "do_exit" and "ret" in self.done and self.once("ring"):
            recs, _ = fl.fault_records(64)
            rec = [r for r in recs if r["address"] == self.addr and r["pid"] == int(self.t["pid"])]
            out = quiet("faults 64")
            self.report("ring", bool(rec) and rec[0]["nonlinear"] and rec[0]["pgoff"] == self.pgoff
                        and rec[0]["result"] == self.ret and " %dnl " % self.pgoff in out,
                        "faults: the ring records the fault as nonlinear, pgoff %d, result %s"
                        % (self.pgoff, self.ret), "records %s" % rec)

    def finished(self, fn, ret):
        """finish out of filemap_fault (the page comes back locked), then out of __do_fault (the
        PTE is in, the lock dropped): what do_nonlinear_fault and handle_mm_fault return."""
        if fn == "filemap_fault" and "filemap-stop" in self.done and self.once("locked"):
            self.report("locked", ret is not None and ret & 0x200 and not ret & 3,
                        "finish: filemap_fault returned VM_FAULT_LOCKED (%s)"
                        % fl.vm_fault_str(ret or 0), "returned %s" % ret)
        elif fn == "__do_fault" and "locked" in self.done and self.once("ret"):
            self.ret = ret
            self.report("ret", ret is not None and not ret & 0x203, "finish: __do_fault returned "
                        "%s (%s): the page unlocked" % (ret, fl.vm_fault_str(ret or 0)),
                        "returned %s" % ret)
            self.check_mapped("mapped", self.addr, self.t, "after the nonlinear fault")


class Cow(Session):
    """do_wp_page for a write into vm-cow's 64-page anonymous mapping: first a page mapped by
    more than one PTE (a child's write: copied), then, the children gone, one the parent alone
    maps (reused)."""
    PROG = "vm-cow"
    EXPECT = ("copy-stop", "copy-bt", "before", "copy-ret", "copy-mapped", "after", "reuse-stop",
              "reuse")

    def in_mapping(self):
        t = fl.current_task()
        addr = fault_address() & ~0xfff
        v = vma_of(fl.task_mm(t), addr)
        ok = comm() == self.PROG and v is not None and not int(v["vm_file"]) and \
            int(v["vm_end"]) - int(v["vm_start"]) == 64 * 4096
        return t, addr, ok

    def stopped(self, fn):
        if fn != "do_wp_page":
            return
        if self.once("copy-stop"):
            self.t, self.addr, ok = self.in_mapping()
            self.pte, self.old, count, self.mapcount = pte_and_page(self.addr, self.t)
            self.report("copy-stop", ok and self.mapcount is not None and self.mapcount >= 1,
                        "hbreak do_wp_page (noinline) stops for a write of %s to a page of its "
                        "64-page mapping shared after fork" % self.PROG,
                        "addr 0x%x _mapcount %s" % (self.addr, self.mapcount))
            self.check_bt("copy-bt", ["do_wp_page", "handle_mm_fault"])
            self.report("before", self.pte & 1 and not self.pte & 2 and self.mapcount >= 1
                        and count >= self.mapcount + 1, "before: the PTE is present and "
                        "read-only, the page mapped by %s PTEs" % (self.mapcount + 1),
                        "pte 0x%x _count %s _mapcount %s" % (self.pte, count, self.mapcount))
        elif "copy-ret" in self.done and self.once("reuse-stop"):
            t, addr, ok = self.in_mapping()
            parent = int(self.t["parent"]["pid"])
            self.rt, self.raddr = t, addr
            self.rpte, self.rold, _, rmap = pte_and_page(addr, t)
            self.report("reuse-stop", ok and int(t["pid"]) == parent and rmap == 0,
                        "do_wp_page again for the parent's write once its children are gone",
                        "pid %d (parent %d) _mapcount %s" % (int(t["pid"]), parent, rmap))

    def finished(self, fn, ret):
        if fn != "do_wp_page":
            return
        if "reuse-stop" in self.done and self.once("reuse"):
            pte2, new, _, _ = pte_and_page(self.raddr, self.rt)
            self.report("reuse", not self.rpte & 2 and ret == 0x8 and pte2 & 2 and pte2 & 0x40
                        and new == self.rold, "a page mapped once is reused: the same frame, now "
                        "writable and dirty, VM_FAULT_WRITE",
                        "pte 0x%x -> 0x%x, returned %s" % (self.rpte, pte2, ret))
        elif "copy-stop" in self.done and self.once("copy-ret"):
            out = quiet("vmfault %d" % (ret or 0))
            self.report("copy-ret", ret == 0x8 and "WRITE" in out,
                        "finish: do_wp_page returned VM_FAULT_WRITE", "returned %s" % ret)
            self.check_mapped("copy-mapped", self.addr, self.t, "after the copy")
            pte2, new, count2, mapcount2 = pte_and_page(self.addr, self.t)
            parent = fl.find_task(int(self.t["parent"]["pid"]))
            _, pold, _, pmapcount = pte_and_page(self.addr, parent)
            self.report("after", pte2 & 2 and new != self.old and count2 == 1 and mapcount2 == 0
                        and pold == self.old and pmapcount == self.mapcount - 1,
                        "after: the child's PTE is writable, a new frame mapped once; the parent "
                        "keeps the old frame, mapped by one PTE fewer",
                        "pte 0x%x frame 0x%x (was 0x%x) _count %s _mapcount %s; parent's frame "
                        "0x%x _mapcount %s" % (pte2, new, self.old, count2, mapcount2, pold,
                                               pmapcount))


SESSIONS = {"maps": Maps, "device": Device, "nonlinear": Nonlinear, "cow": Cow,
            "sigpath": fault_sigpath.Sigpath}



def thread_by_num(num):
    for th in gdb.selected_inferior().threads():
        if th.num == num:
            return th
    return None


def thread_where(num):
    """(function, pc) of gdb thread num's newest frame."""
    with fl._Selected(thread_by_num(num)):
        f = gdb.newest_frame()
        return f.name(), int(f.pc())


class Shootdown(Session):
    """ktest=tlb_shootdown_munmap on 2 CPUs: CPU 1 uses the test mm, CPU 0 unmaps its page;
    CPU 0's flush_tlb_others publishes flush_cpumask, sends the IPI and waits; CPU 1 flushes in
    invalidate_interrupt and clears its bit; only then does CPU 0 go on. Each CPU is a gdb
    thread, and the helpers (current, fl-cpus, pagewalk) follow the selected one."""
    EXPECT = ("quiet", "stop", "threads-cpus", "current-per-cpu", "tlbstate", "cpus-text",
              "pte-gone", "published", "waiting", "ipi", "cpus-owed", "flushed", "released",
              "ktest")
    A = 0x20000000  # tests/ktest/tlb.c's address

    def __init__(self, name):
        super().__init__(name)
        self.stage = 0

    def flush_mask(self):
        return int(gdb.parse_and_eval("flush_cpumask"))

    def stopped(self, fn):
        th = gdb.selected_thread().num
        cpu, how = fl.cpu_of_thread()
        if fn == "flush_tlb_others" and self.once("stop"):
            self.check_quiet()
            self.mm = int(gdb.parse_and_eval("mm"))
            mask = int(gdb.parse_and_eval("mask"))
            names = frame_names()
            self.report("stop", th == 1 and cpu == 0 and how == "gs_base" and mask == 2 and
                        "do_munmap" in names and "tlb_finish_mmu" in names,
                        "hbreak flush_tlb_others stops CPU 0 (thread 1, by its GS base) in "
                        "do_munmap's flush, mask 2: CPU 1 only",
                        "thread %d cpu %d (%s) mask %d frames %s" % (th, cpu, how, mask, names))
            self.check_threads()
            self.check_current()
            ts = gdb.parse_and_eval("cpu_tlbstate[1]")
            vm_mask = int(gdb.parse_and_eval("((struct mm_struct *)%d)->cpu_vm_mask" % self.mm))
            self.report("tlbstate", int(ts["active_mm"]) == self.mm and
                        int(ts["state"]) == fl.TLBSTATE_OK and vm_mask & 2 and
                        int(gdb.parse_and_eval("cpu_tlbstate[0].active_mm")) != self.mm,
                        "CPU 1's TLB state: the unmapped mm is its active_mm, TLBSTATE_OK, its "
                        "bit in cpu_vm_mask; CPU 0 does not use that mm",
                        "cpu_tlbstate[1] %s, cpu_vm_mask 0x%x" % (ts, vm_mask))
        elif fn == "flush_tlb_others" and self.stage == 0 and "stop" in self.done:
            self.stage = 1
            self.report("published", th == 1 and self.flush_mask() == 2 and
                        int(gdb.parse_and_eval("flush_mm")) == self.mm,
                        "watch flush_cpumask: CPU 0 publishes the flush (mask 2, flush_mm the "
                        "unmapped mm) before the IPI", "thread %d flush_cpumask %d flush_mm 0x%x"
                        % (th, self.flush_mask(), int(gdb.parse_and_eval("flush_mm"))))
        elif fn == "flush_tlb_others" and self.stage == 1:
            self.stage = 2
            self.wait_pc = int(gdb.selected_frame().pc())
            idle_fn, _ = thread_where(2)
            self.report("waiting", th == 1 and self.flush_mask() == 2 and idle_fn == "cpu_idle",
                        "rwatch: CPU 0 alone (scheduler-locking) sent the IPI and reads "
                        "flush_cpumask in its wait; CPU 1 has not run: still halted in cpu_idle",
                        "thread %d mask %d cpu 1 in %s" % (th, self.flush_mask(), idle_fn))
        elif fn == "invalidate_interrupt" and self.stage == 2:
            self.stage = 3
            other, pc = thread_where(1)
            names = frame_names()
            self.report("ipi", th == 2 and cpu == 1 and self.flush_mask() == 2 and
                        other == "flush_tlb_others" and pc == self.wait_pc and
                        "trap_dispatch" in names and "cpu_idle" in names,
                        "CPU 1 (thread 2) takes the IPI in invalidate_interrupt from cpu_idle, "
                        "its bit still set; CPU 0 has not moved from its wait",
                        "thread %d cpu %d mask %d; thread 1 in %s at 0x%x (wait 0x%x); %s"
                        % (th, cpu, self.flush_mask(), other, pc, self.wait_pc, names))
        elif fn == "invalidate_interrupt" and self.stage == 3:
            self.stage = 4
            other, pc = thread_where(1)
            self.report("flushed", th == 2 and self.flush_mask() == 0 and
                        other == "flush_tlb_others" and pc == self.wait_pc,
                        "watch: CPU 1 clears its bit after the flush (flush_cpumask 0); CPU 0 "
                        "is still in the loop that waits for that",
                        "thread %d mask %d; thread 1 in %s at 0x%x" % (th, self.flush_mask(),
                                                                      other, pc))

    def finished(self, fn, ret):
        if fn == "flush_tlb_others" and self.stage == 4 and self.once("released"):
            th = gdb.selected_thread().num
            claim = int(gdb.parse_and_eval("flush_claim"))
            self.report("released", th == 1 and where() == "flush_tlb_mm_range" and
                        self.flush_mask() == 0 and claim == 0,
                        "finish: CPU 0 leaves flush_tlb_others (flush_cpumask 0, the claim "
                        "released) back into flush_tlb_mm_range",
                        "thread %d in %s mask %d claim %d" % (th, where(), self.flush_mask(),
                                                              claim))

    def check_quiet(self):
        """The walkthrough needs CPU 1 idle, halted in cpu_idle, TLBSTATE_OK (the idle task
        has not been switched out since ap_use_mm), and nothing else runnable. A boot where the
        events thread (which starts under the big kernel lock the test's task holds) still
        spins for it on CPU 1 during the test, or ran there after ap_use_mm, takes another path
        (CPU 1 lazy, leave_mm instead of a flush): that is timing, not the kernel, so boot
        again."""
        busy = [fl.task_label(t) for t in fl.tasks()
                if bool(t["on_rq"]) or bool(t["on_cpu"])]
        busy = [b for b in busy if "(runner)" not in b]
        fn, _ = thread_where(2)
        t1 = gdb.parse_and_eval("cpu_data[1].current_task")
        state = int(gdb.parse_and_eval("cpu_tlbstate[1].state"))
        quiet_ = fn == "cpu_idle" and int(t1) == int(gdb.parse_and_eval("cpu_data[1].idle")) \
            and not busy and state == fl.TLBSTATE_OK
        why = ("%s in %s, tlbstate %d; runnable: %s"
               % (fl.task_label(t1), fn, state, ", ".join(busy) or "none"))
        if not quiet_:
            self.retry = "CPU 1 was not quietly idle at the flush (%s)" % why
        self.report("quiet", quiet_, "at the flush CPU 1 is halted in its idle task, "
                    "TLBSTATE_OK, and no other task is runnable", why)

    def check_threads(self):
        """Each gdb thread's CPU by its GS base is QEMU's numbering (thread N + 1), and the
        per-CPU area names its own CPU number and APIC id."""
        got = []
        for th in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
            cpu, how = fl.cpu_of_thread(th)
            pc = gdb.parse_and_eval("cpu_data[%d]" % cpu)
            got.append((th.num, cpu, how, int(pc["cpu"]), int(pc["apic_id"])))
        ok = len(got) == 2 and all(n == c + 1 and h == "gs_base" and c == i
                                   for n, c, h, i, _ in got)
        self.report("threads-cpus", ok, "info threads: 2 threads; each one's GS base is "
                    "&cpu_data[thread - 1], whose cpu field says the same", "%s" % got)

    def check_current(self):
        """`current` (the gdb macro) follows the selected thread: the runner on CPU 0, CPU 1's
        idle task on CPU 1; the raw per-CPU areas say the same."""
        mine = {}
        for num in (1, 2):
            with fl._Selected(thread_by_num(num)):
                mine[num] = (int(gdb.parse_and_eval("current")), int(fl.current_task()),
                             fl.cstr(gdb.parse_and_eval("current->comm")))
        raw = [int(gdb.parse_and_eval("cpu_data[%d].current_task" % c)) for c in (0, 1)]
        idle1 = int(gdb.parse_and_eval("cpu_data[1].idle"))
        ok = mine[1][0] == mine[1][1] == raw[0] and mine[2][0] == mine[2][1] == raw[1] == idle1 \
            and mine[1][2] == "runner" and raw[0] != raw[1]
        self.report("current-per-cpu", ok, "current in thread 1 is the runner (CPU 0), in thread "
                    "2 CPU 1's idle task", "%s raw %s idle1 0x%x" % (mine, [hex(r) for r in raw],
                                                                    idle1))

    def command(self, verb, cmd):
        if verb == "fl-cpus" and "stop" in self.done and self.once("cpus-text"):
            self.check_cpus("cpus-text", owed=False)
        elif verb == "fl-cpus" and self.stage == 3 and self.once("cpus-owed"):
            self.check_cpus("cpus-owed", owed=True)
        elif verb == "pagewalk" and "stop" in self.done and self.once("pte-gone"):
            out = quiet(cmd)
            mm = fl.task_mm(fl.current_task())
            rows, phys = fl.pagewalk(self.A, fl.current_task())
            page = gdb.parse_and_eval("tlb_watch_page")
            count = int(page["_count"]) if int(page) else None
            self.report("pte-gone", gdb.selected_thread().num == 2 and int(mm) == self.mm and
                        phys is None and rows[-1][3] == 0 and "is not mapped" in out and
                        count == 2,
                        "pagewalk on CPU 1 (idle: its active_mm): the PTE is already cleared, "
                        "the frame still held (_count 2: the test's and the mmu_gather's)",
                        "thread %d mm 0x%x walk %s _count %s" % (
                            gdb.selected_thread().num, int(mm),
                            [(l, i, hex(e)) for l, i, _, e in rows], count))

    def check_cpus(self, key, owed):
        """fl-cpus's rows against the raw per-CPU data, and its text."""
        rows = {r["cpu"]: r for r in fl.cpu_rows()}
        text = quiet("fl-cpus")
        with fl._Selected(thread_by_num(2)):
            cr3_1 = int(gdb.parse_and_eval("$cr3")) & fl.PTE_PFN_MASK
        pgd = int(gdb.parse_and_eval("((struct mm_struct *)%d)->pgd" % self.mm)) - fl.PAGE_OFFSET
        r0, r1 = rows.get(0), rows.get(1)
        ok = r0 is not None and r1 is not None and len(rows) == 2 and \
            r0["comm"] == "runner" and not r0["idle"] and r0["active_mm"] != self.mm and \
            r1["idle"] and r1["active_mm"] == self.mm and r1["state"] == fl.TLBSTATE_OK and \
            r1["in_mask"] and cr3_1 == pgd and r1["cr3_s"] == "active_mm" and \
            r1["owes_flush"] == owed and not r0["owes_flush"] and \
            re.search(r"^[ *] 1 +2 +pid 0 \(swapper/1\) idle +- +0x%x +OK +active_mm +%s " %
                      (self.mm, "owed" if owed else "-"), text, re.M) is not None
        self.report(key, ok, "fl-cpus: CPU 0 runs the runner; CPU 1 is idle on the unmapped mm "
                    "(TLBSTATE_OK, in cpu_vm_mask, its CR3 that mm's pgd)%s" %
                    (", and owes the flush" if owed else ""), "%s cr3 0x%x pgd 0x%x\n%s"
                    % (rows, cr3_1, pgd, text))

    def epilogue(self, interrupted):
        """The debugged run still passes: the rest of the test (CPU 1's read now faults) and
        qemu_exit, the serial log's "ok 1 - ktest tlb_shootdown_munmap" (run, not skipped: both
        CPUs online)."""
        if interrupted:
            return
        text = run_to_end()
        self.report("ktest", "smp: 2 CPUs online" in text and
                    "ok 1 - ktest tlb_shootdown_munmap\n" in text and
                    "ktest: 1 passed, 0 failed, 0 skipped" in text,
                    "the debugged ktest tlb_shootdown_munmap still passes",
                    text.strip().splitlines()[-1] if text.strip() else "no serial log")


SESSIONS["shootdown"] = Shootdown



class Swapin(Session):
    """swap-in in 32 MiB with a swap disk: page 0 of its region (0x20000000) goes out; a forked
    child's read brings it back from the disk (do_swap_page -> read_swap_cache_async ->
    swap_readpage -> blk_rw at sector offset * 8, VM_FAULT_MAJOR), then the parent's read finds
    it in the swap cache (no disk read, VM_FAULT_MINOR). fl-swp against the kernel's own
    decoding of the entry, swap_map and the swap cache."""
    PROG = "swap-in"
    ADDR = 0x20000000  # user/swap-in.c's BASE
    TAG = 0xfa17000000000000  # user/swap-in.c: each word is TAG | its address
    EXPECT = ("stop", "bt", "entry", "parent-entry", "fl-swp", "read", "read-data", "major",
              "major-mapped", "major-state", "mm-ret", "minor-stop", "minor", "minor-mapped",
              "minor-state", "exit")

    def __init__(self, name):
        super().__init__(name)
        self.reads = 0  # stops in blk_rw or swap_readpage

    def returned(self):
        """%eax after a finish; finished() checks where it landed (the return from do_swap_page
        lands in handle_mm_fault's tail, not in the inlined handle_pte_fault frame the base
        class expects)."""
        try:
            return int(gdb.parse_and_eval("(int)$eax"))
        except gdb.error:
            return None

    def pattern_at(self, kaddr):
        """Does the frame at kernel address kaddr hold page 0's pattern, every word?"""
        raw = bytes(gdb.selected_inferior().read_memory(kaddr, 4096))
        words = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, 4096, 8)]
        return words == [self.TAG | (self.ADDR + 8 * i) for i in range(512)]

    def slot_count(self):
        return int(gdb.parse_and_eval("swap_info[%d].swap_map[%d]" % (self.type, self.offset)))

    def stopped(self, fn):
        if fn == "do_swap_page" and self.once("stop"):
            self.first_stop()
        elif fn == "do_swap_page" and "major" in self.done and self.once("minor-stop"):
            t = fl.current_task()
            st = fl.swp_state(self.ADDR, t)
            page = st["page"]
            flags = int(page["flags"]) if page is not None else 0
            self.report("minor-stop", fault_address() == self.ADDR and comm() == self.PROG and
                        int(t["pid"]) == self.parent_pid and st["kind"] == "swap" and
                        (st["type"], st["offset"]) == (self.type, self.offset) and
                        page is not None and int(page) == self.page and
                        flags >> fl.PG("PG_uptodate") & 1 and not flags >> fl.PG("PG_locked") & 1
                        and self.slot_count() == 2,
                        "do_swap_page again, for the parent (pid %d): its PTE still holds the "
                        "entry, whose page the swap cache has, uptodate; swap_map 2 (the PTE, "
                        "the cache)" % self.parent_pid,
                        "pid %d cr2 0x%x state %s page %s count %d"
                        % (int(t["pid"]), fault_address(), st["kind"],
                           hex(int(page)) if page is not None else None, self.slot_count()))
        elif fn in ("blk_rw", "swap_readpage"):
            self.reads += 1
            if fn == "blk_rw" and "stop" in self.done and self.once("read"):
                self.check_read()

    def first_stop(self):
        self.from_pf("stop", "do_swap_page", self.PROG)
        self.t = fl.current_task()
        self.check_bt("bt", ["do_swap_page", "handle_mm_fault"])
        st = fl.swp_state(self.ADDR, self.t)
        pte = st["pte"] or 0
        orig = int(gdb.parse_and_eval("orig_pte")) & 0xffffffffffffffff
        self.type, self.offset = st["type"], st["offset"]
        self.val = fl.swp_entry_val(self.type or 0, self.offset or 0)
        slot = st.get("slot")
        self.report("entry", fault_address() == self.ADDR and st["kind"] == "swap" and
                    orig == pte and slot is not None and slot["count"] == 2 and
                    st["page"] is None,
                    "the PTE of 0x%x is a swap entry (type %s offset %s), orig_pte; swap_map 2 "
                    "(the child's PTE and its parent's, copied by fork); not in the swap cache"
                    % (self.ADDR, self.type, self.offset),
                    "pte 0x%x orig_pte 0x%x slot %s page %s" % (pte, orig, slot, st["page"]))
        parent = self.t["parent"]
        self.parent_pid = int(parent["pid"])
        pst = fl.swp_state(self.ADDR, parent)
        self.report("parent-entry", pst["kind"] == "swap" and pst["pte"] == pte and
                    fl.cstr(parent["comm"]) == self.PROG,
                    "the parent (pid %d) holds the same swap entry" % self.parent_pid,
                    "parent's PTE %s" % pst["pte"])
        out = quiet("fl-swp 0x%x" % self.ADDR)
        conv = gdb.convenience_variable("swp_offset")
        self.report("fl-swp", "swap entry type %d offset %d" % (self.type or 0, self.offset or 0)
                    in out and "swap_map[%d] = 2:" % (self.offset or 0) in out and
                    "no page for the entry" in out and conv is not None and
                    int(conv) == self.offset and "sectors %d-" % (8 * (self.offset or 0)) in out,
                    "fl-swp: type, offset, swap_map, no swap-cache page, the sectors; "
                    "$swp_offset set", out.strip())
        self.pswpin = int(gdb.parse_and_eval("vm_events[PSWPIN]"))

    def check_read(self):
        """blk_rw for the swap-in: a READ of the slot's 8 sectors on the area's disk into the
        frame of a locked swap-cache page for the entry, not uptodate yet."""
        names = frame_names()
        sector, count = int(gdb.parse_and_eval("sector")), int(gdb.parse_and_eval("count"))
        cmd = int(gdb.parse_and_eval("cmd"))
        disk = int(gdb.parse_and_eval("disk"))
        bdev = int(gdb.parse_and_eval("swap_info[%d].bdev" % self.type))
        self.buf = int(gdb.parse_and_eval("(unsigned long)buf"))
        pfn = (self.buf - fl.PAGE_OFFSET) >> 12
        page = gdb.parse_and_eval("mem_map") + pfn
        self.page = int(page)
        flags = int(page["flags"])
        chain = ["blk_rw", "swap_readpage", "read_swap_cache_async", "do_swap_page"]
        it = iter(names)
        self.report("read", all(n in it for n in chain) and sector == 8 * self.offset and
                    count == 8 and cmd == 0 and disk == bdev and self.buf % 4096 == 0 and
                    flags >> fl.PG("PG_swapcache") & 1 and int(page["private"]) == self.val and
                    flags >> fl.PG("PG_locked") & 1 and not flags >> fl.PG("PG_uptodate") & 1,
                    "blk_rw from swap_readpage: READ sectors %d-%d (offset * 8) of the area's "
                    "disk into a locked swap-cache page for the entry, not uptodate yet"
                    % (8 * self.offset, 8 * self.offset + 7),
                    "frames %s sector %d count %d cmd %d disk 0x%x bdev 0x%x buf 0x%x flags 0x%x "
                    "private 0x%x" % (names, sector, count, cmd, disk, bdev, self.buf, flags,
                                      int(page["private"])))

    def finished(self, fn, ret):
        fn_now = where()
        if fn == "blk_rw" and "read" in self.done and self.once("read-data"):
            self.report("read-data", ret == 0 and fn_now in ("swap_rw", "swap_readpage") and
                        self.pattern_at(self.buf),
                        "finish: blk_rw returned 0 and the frame holds what the program wrote "
                        "at 0x%x" % self.ADDR, "returned %s in %s" % (ret, fn_now))
        elif fn == "do_swap_page" and "read" in self.done and self.once("major"):
            self.report("major", ret == 0x4 and fn_now in ("handle_mm_fault", "handle_pte_fault")
                        and self.reads == 1,
                        "finish: do_swap_page returned VM_FAULT_MAJOR (one disk read)",
                        "returned %s in %s after %d reads" % (ret, fn_now, self.reads))
            st = fl.swp_state(self.ADDR, self.t)
            phys = self.check_mapped("major-mapped", self.ADDR, self.t, "after the swap-in")
            pswpin = int(gdb.parse_and_eval("vm_events[PSWPIN]"))
            self.report("major-state", phys is not None and phys & ~0xfff == self.buf -
                        fl.PAGE_OFFSET and st["page"] is not None and int(st["page"]) ==
                        self.page and st["offset"] == self.offset and self.slot_count() == 2 and
                        pswpin == self.pswpin + 1 and self.pattern_at(self.buf),
                        "the PTE maps the frame the disk filled, still in the swap cache for "
                        "the entry; swap_map 2 (the cache, the parent's PTE); pswpin + 1",
                        "phys %s buf 0x%x swap-cache page %s count %d pswpin %d -> %d"
                        % (phys, self.buf, st["page"], self.slot_count(), self.pswpin, pswpin))
        elif fn == "handle_mm_fault" and "major" in self.done and self.once("mm-ret"):
            self.report("mm-ret", ret == 0x4 and fn_now == "do_page_fault",
                        "finish: handle_mm_fault returns VM_FAULT_MAJOR to do_page_fault",
                        "returned %s in %s" % (ret, fn_now))
        elif fn == "do_swap_page" and "minor-stop" in self.done and self.once("minor"):
            t = fl.current_task()
            self.report("minor", ret == 0 and fn_now in ("handle_mm_fault", "handle_pte_fault")
                        and self.reads == 1,
                        "finish: do_swap_page returned VM_FAULT_MINOR, with no disk read "
                        "(swap_readpage never stopped)",
                        "returned %s in %s after %d reads" % (ret, fn_now, self.reads))
            phys = self.check_mapped("minor-mapped", self.ADDR, t, "after the second swap-in")
            st = fl.swp_state(self.ADDR, t)
            pswpin = int(gdb.parse_and_eval("vm_events[PSWPIN]"))
            self.report("minor-state", phys is not None and phys & ~0xfff == self.buf -
                        fl.PAGE_OFFSET and st["page"] is not None and int(st["page"]) ==
                        self.page and self.slot_count() == 1 and pswpin == self.pswpin + 1 and
                        self.pattern_at(self.buf),
                        "the parent maps the same frame; swap_map 1 (the cache alone: the "
                        "slot keeps its copy while swap is not full); pswpin unchanged",
                        "phys %s page %s count %d pswpin %d" % (phys, st["page"],
                                                               self.slot_count(), pswpin))

    def epilogue(self, interrupted):
        """The debugged program still passes: its own checks (a major fault in the child, none
        in the parent, the data) and qemu_exit's end of the boot."""
        if interrupted:
            return
        quiet("delete")
        quiet_continue(60)
        text = ""
        if SERIAL and os.path.exists(SERIAL):
            with open(SERIAL, encoding="latin-1") as f:
                text = f.read().replace("\r", "")
        self.report("exit", re.search(r"^swap-in: page 0 at 0x20000000 is in swap after", text,
                                      re.M) is not None and
                    re.search(r"^swap-in: ok ", text, re.M) is not None and
                    "run: /bin/swap-in: exit 0" in text,
                    "the debugged swap-in still passes (page 0 went to swap; exit 0)",
                    text.strip().splitlines()[-1] if text.strip() else "no serial log")


SESSIONS["swapin"] = Swapin
SESSIONS["ext2"] = fault_ext2.Ext2
