# The checks of docs/gdb.md's signal walkthrough (uf-pager): a fault that no fault() can serve
# becomes SIGSEGV (force_sig_fault), the kernel builds the handler's frame on the user stack on
# the way back to ring 3 (setup_rt_frame), the handler runs in ring 3 and pages the data in
# (mprotect, pread, mprotect), rt_sigreturn restores the registers, and the access restarts
# without faulting. Each check compares what the kernel did with what it had saved before.
import os
import re

import gdb
import faultline as fl
import faultline_signal as fs
from fault_checks import (REPO, SERIAL, Session, comm, fault_address, frame_names, quiet,
                          quiet_continue, vma_of)

SIGSEGV = fs.SIG["SIGSEGV"]
SEGV_ACCERR = dict(fs.SI_CODES_BY_SIG["SIGSEGV"])["SEGV_ACCERR"]
SA_SIGINFO, SA_RESTORER = 0x4, 0x04000000  # kernel/signal/signal.h
PROT_READ, PROT_WRITE = 1, 2
NR_RT_SIGRETURN = 15
X86_TRAP_PF = 14
REGS = ("r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx",
        "rdx", "rsi", "rdi")
VM_RWX = fl.VM["VM_READ"] | fl.VM["VM_WRITE"] | fl.VM["VM_EXEC"]


def bit(sig):
    return 1 << (sig - 1)


def user_sym(name):
    """The address of a symbol of the user program (user-symbols), or None."""
    try:
        return int(gdb.parse_and_eval("&%s" % name))
    except gdb.error:
        return None


def reg(name):
    """A register of the selected frame, as an unsigned integer."""
    return int(gdb.parse_and_eval("(unsigned long)$%s" % name))


def regs_dict(regs):
    """A struct pt_regs * as a dict of ints, field by field."""
    regs = regs.dereference()
    return {f.name: int(regs[f.name]) for f in regs.type.strip_typedefs().fields()}


def in_order(names, want):
    it = iter(names)
    return all(n in it for n in want)


def check_sig_tables(s):
    """faultline_signal.py's numbers against the kernel's #defines."""
    src = ""
    for h in ("kernel/signal/signal.h", "kernel/sched/sched.h", "kernel/arch/signal_frame.c"):
        with open(os.path.join(REPO, h)) as f:
            src += f.read()
    defs = {n: int(v, 0) for n, v in re.findall(
        r"#define\s+(\w+)\s+\(?(-?0x[0-9a-fA-F]+|-?\d+)U?\)?", src)}
    bad = [n for n, v in fs.SIGNALS + fs.SI_CODES + fs.SS_FLAGS + fs.UC_FLAGS +
           [c for codes in fs.SI_CODES_BY_SIG.values() for c in codes] if defs.get(n) != v]
    header_sigs = {n for n in defs
                   if re.match(r"SIG[A-Z]+$", n) and n not in ("SIGRTMIN", "SIGRTMAX")}
    bad += sorted(header_sigs - set(fs.SIG))
    for name, mine in (("KSTACK_SIZE", fs.KSTACK_SIZE), ("FP_XSTATE_MAGIC1", fs.FP_XSTATE_MAGIC1),
                       ("FP_XSTATE_MAGIC2", fs.FP_XSTATE_MAGIC2), ("SA_SIGINFO", SA_SIGINFO),
                       ("SA_RESTORER", SA_RESTORER)):
        if defs.get(name) != mine:
            bad.append(name)
    s.report("sig-tables", not bad, "faultline_signal.py's signal numbers, si_codes, uc_flags, "
             "magic words and KSTACK_SIZE equal the kernel's #defines", "differ: " + " ".join(bad))


class Sigpath(Session):
    PROG = "uf-pager"
    EXPECT = ("sig-tables", "fault-stop", "fault-bt", "accerr", "pending", "deliver-stop",
              "deliver-args", "frame-built", "frame-regs", "frame-info", "frame-mcontext",
              "frame-mask", "frame-fpstate", "sigframe-cmd", "handler-stop", "handler-mask",
              "sigframe-user", "mprotect-rw", "mprotect-ro", "pread-fault", "paged-in",
              "readonly", "sigreturn-stop", "restored", "restart-stop", "restart-step", "ring",
              "exit")

    def __init__(self, name):
        super().__init__(name)
        self.mprotects = 0
        self.sigframe_out = None

    # ---- the stops
    def stopped(self, fn):
        if fn == "force_sig_fault" and self.once("fault-stop"):
            self.fault()
        elif fn == "setup_rt_frame" and "accerr" in self.done and self.once("deliver-stop"):
            self.deliver()
        elif fn == "pager" and "frame-built" in self.done and self.once("handler-stop"):
            self.handler_entry()
        elif fn == "sys_mprotect" and "handler-stop" in self.done:
            self.mprotect()
        elif fn == "sys_rt_sigreturn" and "readonly" in self.done and self.once("sigreturn-stop"):
            regs = fs.pt_regs(fl.current_task())
            self.report("sigreturn-stop", comm() == self.PROG and int(regs["rsp"]) - 8 ==
                        self.frame and self.restorer <= int(regs["rip"]) < self.restorer + 16
                        and int(regs["error_code"]) == NR_RT_SIGRETURN,
                        "sys_rt_sigreturn: called from the restorer (pretcode), the frame at the "
                        "user rsp - 8 (the handler's ret popped pretcode)",
                        "rsp 0x%x rip 0x%x frame 0x%x" % (int(regs["rsp"]), int(regs["rip"]),
                                                         self.frame))
        elif fn == "main" and "restored" in self.done and self.once("restart-stop"):
            self.restart()

    def fault(self):
        self.from_pf("fault-stop", "force_sig_fault", self.PROG)
        self.check_bt("fault-bt", ["force_sig_fault", "bad_area"])
        self.t = fl.current_task()
        self.addr = fault_address()
        regs = fs.pt_regs(self.t)
        self.regs = regs_dict(regs)
        self.blocked0 = int(self.t["blocked"])
        act = self.t["sighand"]["action"][SIGSEGV - 1]
        self.handler, self.restorer = int(act["sa_handler"]), int(act["sa_restorer"])
        mm = fl.task_mm(self.t)
        v = vma_of(mm, self.addr)
        sig, code = int(gdb.parse_and_eval("sig")), int(gdb.parse_and_eval("code"))
        addr = int(gdb.parse_and_eval("addr")) & 0xffffffffffffffff
        ok = sig == SIGSEGV and code == SEGV_ACCERR and addr == self.addr and v is not None \
            and not int(v["vm_flags"]) & VM_RWX and self.regs["error_code"] == fl.PF_USER \
            and self.regs["vector"] == X86_TRAP_PF and self.handler == user_sym("pager")
        self.report("accerr", ok, "force_sig_fault(SIGSEGV, SEGV_ACCERR, CR2 0x%x): a user read "
                    "of a not-present page in a VMA that allows no access; the handler is pager"
                    % self.addr, "sig %d code %d addr 0x%x vma %s error 0x%x handler 0x%x"
                    % (sig, code, addr, v and hex(int(v["vm_flags"])), self.regs["error_code"],
                       self.handler))

    def deliver(self):
        names = frame_names()
        f = gdb.newest_frame()
        while f is not None and f.name() != "trap_common":
            f = f.older()
        user = f.older() if f is not None else None
        upc = int(user.pc()) if user is not None else None
        self.report("deliver-stop", comm() == self.PROG and in_order(names, [
            "setup_rt_frame", "do_signal", "exit_to_user_mode", "trap_dispatch", "trap_common"])
            and upc == self.regs["rip"], "setup_rt_frame: do_signal on the way out of the same "
            "trap (exit_to_user_mode <- trap_dispatch), back to the faulting rip",
            "frames %s, user pc %s" % (" <- ".join(names[:8]), upc and hex(upc)))
        info, ka = gdb.parse_and_eval("*info"), gdb.parse_and_eval("*ka")
        got = tuple(int(info[k]) for k in ("signo", "code", "addr", "trapno", "err"))
        want = (SIGSEGV, SEGV_ACCERR, self.addr, X86_TRAP_PF, self.regs["error_code"])
        flags = int(ka["sa_flags"])
        self.oldmask = int(gdb.parse_and_eval("oldmask"))
        self.report("deliver-args", int(gdb.parse_and_eval("sig")) == SIGSEGV and got == want
                    and int(ka["sa_handler"]) == self.handler and flags & SA_SIGINFO and
                    flags & SA_RESTORER and int(ka["sa_restorer"]) == self.restorer and
                    self.oldmask == self.blocked0, "setup_rt_frame gets the siginfo "
                    "force_sig_fault queued, SIGSEGV's action (SA_SIGINFO|SA_RESTORER) and the "
                    "mask of the fault's time", "info %s want %s ka %s oldmask 0x%x"
                    % (got, want, ka, self.oldmask))

    def frame_built(self, ret):
        self.report("frame-built", ret is not None and ret & 0xff == 1,
                    "finish: setup_rt_frame returned true", "returned %s" % ret)
        regs = regs_dict(fs.pt_regs(self.t))
        self.frame = sp = regs["rsp"]
        info_off = fl.field_offset("struct rt_sigframe", "info")
        uc_off = fl.field_offset("struct rt_sigframe", "uc")
        size = gdb.lookup_type("struct rt_sigframe").sizeof
        self.report("frame-regs", regs["rip"] == self.handler and regs["rdi"] == SIGSEGV and
                    regs["rsi"] == sp + info_off and regs["rdx"] == sp + uc_off and
                    (sp + 8) % 16 == 0 and sp + size <= self.regs["rsp"] - 128,
                    "pt_regs now enter the handler: rip = pager, rdi = SIGSEGV, rsi = &frame->"
                    "info, rdx = &frame->uc, rsp = the frame below the red zone, (rsp + 8) % 16 "
                    "== 0", "regs %s" % {k: hex(regs[k]) for k in ("rip", "rdi", "rsi", "rdx",
                                                                    "rsp")})
        f, raw = fs.read_frame(sp)
        si = fs.siginfo(raw)
        self.report("frame-info", int(f["pretcode"]) == self.restorer and
                    (si["signo"], si["code"], si["addr"]) == (SIGSEGV, SEGV_ACCERR, self.addr)
                    and user_sym("__restore_rt") == self.restorer,
                    "the frame: pretcode = sa_restorer (__restore_rt), siginfo SIGSEGV "
                    "SEGV_ACCERR, si_addr = CR2", "pretcode 0x%x siginfo %s"
                    % (int(f["pretcode"]), si))
        sc = f["uc"]["uc_mcontext"]
        diff = [r for r in REGS + ("rip", "rsp") if int(sc[r]) != self.regs[r]]
        diff += [n for n, want in (("eflags", self.regs["rflags"]), ("cs", self.regs["cs"]),
                                   ("ss", self.regs["ss"]), ("trapno", X86_TRAP_PF),
                                   ("err", self.regs["error_code"]), ("cr2", self.addr))
                 if int(sc[n]) != want]
        self.report("frame-mcontext", not diff, "uc_mcontext holds the registers of the fault "
                    "(rip 0x%x, the faulting instruction), trapno 14, err, cr2"
                    % self.regs["rip"], "differ: %s" % diff)
        self.report("frame-mask", int(f["uc"]["uc_sigmask"]) == self.oldmask ==
                    int(sc["oldmask"]), "uc_sigmask (and oldmask) = the blocked set of the "
                    "fault's time, 0x%x" % self.oldmask, "uc_sigmask 0x%x oldmask 0x%x"
                    % (int(f["uc"]["uc_sigmask"]), int(sc["oldmask"])))
        fp = int(sc["fpstate"])
        text = fs.fpstate_text(fp)
        self.report("frame-fpstate", fp % 64 == 0 and sp + size <= fp and "magic1 ok" in text
                    and "magic2 ok" in text, "fpstate: 64-byte aligned, above the frame, "
                    "Linux's magic words", text)

    def handler_entry(self):
        info_off = fl.field_offset("struct rt_sigframe", "info")
        uc_off = fl.field_offset("struct rt_sigframe", "uc")
        self.report("handler-stop", comm() == self.PROG and reg("cs") & 3 == 3 and
                    reg("rip") == self.handler and reg("rsp") == self.frame and
                    reg("rdi") == SIGSEGV and reg("rsi") == self.frame + info_off and
                    reg("rdx") == self.frame + uc_off,
                    "pager entered in ring 3: rip = the handler, rsp = the frame, rdi = 11, "
                    "rsi = &frame->info, rdx = &frame->uc", "cs 0x%x rip 0x%x rsp 0x%x rdi %d"
                    % (reg("cs"), reg("rip"), reg("rsp"), reg("rdi")))
        t = fl.current_task()
        self.report("handler-mask", int(t["blocked"]) == self.blocked0 | bit(SIGSEGV) and
                    not int(t["pending"]) & bit(SIGSEGV), "in the handler SIGSEGV is blocked "
                    "(no SA_NODEFER) and no longer pending", "blocked 0x%x pending 0x%x"
                    % (int(t["blocked"]), int(t["pending"])))

    def mprotect(self):
        start, length, prot = (int(gdb.parse_and_eval(a)) for a in ("start", "len", "prot"))
        page = self.addr & ~0xfff
        self.mprotects += 1
        inside = int(fl.current_task()["blocked"]) & bit(SIGSEGV)
        if self.mprotects == 1:
            self.report("mprotect-rw", comm() == self.PROG and inside and (start, length, prot)
                        == (page, 4096, PROT_READ | PROT_WRITE), "the handler's first mprotect: "
                        "the faulting page, PROT_READ|PROT_WRITE", "start 0x%x len %d prot %d"
                        % (start, length, prot))
        elif self.mprotects == 2:
            self.report("mprotect-ro", comm() == self.PROG and inside and (start, length, prot)
                        == (page, 4096, PROT_READ), "the handler's second mprotect: the same "
                        "page, PROT_READ", "start 0x%x len %d prot %d" % (start, length, prot))
            recs, _ = fl.fault_records(64)
            mine = [r for r in recs if r["pid"] == int(self.t["pid"])]
            i = [k for k, r in enumerate(mine) if r["address"] == self.addr and r["result"] < 0]
            later = mine[i[-1] + 1:] if i else []
            self.report("pread-fault", len(later) == 1 and later[0]["address"] & ~0xfff == page
                        and later[0]["error"] & fl.PF_WRITE and not later[0]["error"] &
                        fl.PF_USER and later[0]["result"] == 0, "the fault ring: after the "
                        "bad-area record, one kernel-mode write fault on the page (pread's "
                        "copy to user), served as a minor anonymous fault", "after it: %s"
                        % later)
            self.check_contents("paged-in", page)
            rows, _ = fl.pagewalk(page, self.t)
            self.pte_rw = rows[-1][3] if len(rows) == 4 else 0

    def check_contents(self, key, page):
        """The page holds what uf-pager wrote to its file for it: byte 0 the page's number,
        the rest 'a' + number % 26."""
        region = user_sym("region")
        n = (page - int(gdb.parse_and_eval("region"))) // 4096 if region else -1
        rows, phys = fl.pagewalk(page, self.t)
        data = bytes(gdb.selected_inferior().read_memory(fl.PAGE_OFFSET + phys, 4096)) \
            if phys is not None else b""
        want = bytes([n & 0xff]) + bytes([ord("a") + n % 26]) * 4095 if n >= 0 else None
        self.report(key, data == want and rows[-1][3] & 1, "the page is present and holds file "
                    "page %d (pread filled it)" % n, "phys %s, first bytes %r"
                    % (phys and hex(phys), data[:8]))

    def restart(self):
        rows, phys = fl.pagewalk(self.addr, self.t)
        self.ring_next = int(gdb.parse_and_eval("fault_ring_next"))
        self.insn = gdb.selected_inferior().architecture().disassemble(reg("rip"))[0]
        self.report("restart-stop", comm() == self.PROG and reg("cs") & 3 == 3 and
                    reg("rip") == self.regs["rip"] and phys is not None,
                    "back in ring 3 at the faulting instruction (0x%x: %s), its page now present"
                    % (self.regs["rip"], self.insn["asm"]), "rip 0x%x" % reg("rip"))

    # ---- finish
    def finished(self, fn, ret):
        if fn == "force_sig_fault" and "accerr" in self.done and self.once("pending"):
            t = fl.current_task()
            info = t["sigstate"]["info"][SIGSEGV - 1]  # the thread's own set (a fault)
            got = tuple(int(info[k]) for k in ("signo", "code", "addr", "trapno", "err"))
            self.report("pending", int(t["pending"]) & bit(SIGSEGV) and got == (
                SIGSEGV, SEGV_ACCERR, self.addr, X86_TRAP_PF, self.regs["error_code"]) and
                int(t["sighand"]["action"][SIGSEGV - 1]["sa_handler"]) == self.handler and
                not int(t["blocked"]) & bit(SIGSEGV), "after force_sig_fault: SIGSEGV pending "
                "with its siginfo (code, address, trap 14, error code); the handler kept",
                "pending 0x%x info %s" % (int(t["pending"]), got))
        elif fn == "setup_rt_frame" and "deliver-stop" in self.done and self.once("frame-built"):
            self.frame_built(ret)
        elif fn == "sys_mprotect" and self.mprotects == 2 and self.once("readonly"):
            rows, _ = fl.pagewalk(self.addr, self.t)
            pte = rows[-1][3] if len(rows) == 4 else 0
            self.report("readonly", ret == 0 and pte & 1 and pte & 4 and not pte & 2 and
                        pte & fl.PTE_PFN_MASK == self.pte_rw & fl.PTE_PFN_MASK and self.pte_rw & 2,
                        "mprotect(PROT_READ) returned 0: the same frame, its PTE now read-only",
                        "pte 0x%x -> 0x%x, returned %s" % (self.pte_rw, pte, ret))
        elif fn == "sys_rt_sigreturn" and "sigreturn-stop" in self.done and \
                self.once("restored"):
            regs = regs_dict(fs.pt_regs(fl.current_task()))
            diff = [r for r in REGS + ("rip", "rsp", "rflags", "cs", "ss")
                    if regs[r] != self.regs[r]]
            blocked = int(fl.current_task()["blocked"])
            self.report("restored", not diff and ret == self.regs["rax"] & 0xffffffff and
                        regs["error_code"] == 0xffffffffffffffff and blocked == self.blocked0,
                        "rt_sigreturn restored every register of the fault (rip 0x%x), rax as "
                        "its return value, the mask 0x%x, and no system call to restart"
                        % (self.regs["rip"], self.blocked0), "differ %s ret %s orig_ax 0x%x "
                        "blocked 0x%x" % (diff, ret, regs["error_code"], blocked))

    # ---- other commands
    def command(self, verb, cmd):
        if verb == "sigframe":
            out = quiet(cmd)
            if self.once("sigframe-cmd"):
                ok = "frame at 0x%x" % self.frame in out and "a multiple of 16" in out and \
                    "= __restore_rt" in out and "si_addr 0x%x" % self.addr in out and \
                    "SEGV_ACCERR" in out and "rip 0x%x in main" % self.regs["rip"] in out and \
                    "cr2 0x%x" % self.addr in out
                self.report("sigframe-cmd", ok, "sigframe names the frame, its alignment, the "
                            "restorer, the faulting rip and si_addr", out)
                self.sigframe_out = out
            elif "handler-stop" in self.done and self.once("sigframe-user"):
                self.report("sigframe-user", out == self.sigframe_out, "sigframe $rsp in the "
                            "handler shows the frame setup_rt_frame wrote", out)
        elif verb in ("stepi", "si") and "restart-stop" in self.done and \
                self.once("restart-step"):
            self.restart_step()
        elif verb == "faults" and "restart-step" in self.done and self.once("ring"):
            recs, _ = fl.fault_records(64)
            page = self.addr & ~0xfff
            mine = [r for r in recs if r["pid"] == int(self.t["pid"])
                    and r["address"] & ~0xfff == page]
            self.report("ring", [(r["error"] & fl.PF_USER, r["result"] < 0) for r in mine] ==
                        [(fl.PF_USER, True), (0, False)], "the fault ring: the page faulted "
                        "twice, the user read (bad area: the signal) and pread's write; the "
                        "restarted read not at all", "records %s" % mine)

    def restart_step(self):
        t = fl.current_task()
        nxt = int(gdb.parse_and_eval("fault_ring_next"))
        m = re.search(r",%(\w+)$", self.insn["asm"])
        byte = bytes(gdb.selected_inferior().read_memory(self.addr, 1))[0]
        loaded = reg(m.group(1)) & 0xff if m else None
        self.report("restart-step", reg("rip") == self.regs["rip"] + self.insn["length"] and
                    nxt == self.ring_next and not int(t["pending"]) & bit(SIGSEGV) and
                    loaded == byte, "stepi: the instruction completes without a fault (the ring "
                    "unchanged, no signal) and loads 0x%x, the file's byte at si_addr" % byte,
                    "rip 0x%x, ring %d -> %d, loaded %s" % (reg("rip"), self.ring_next, nxt,
                                                            loaded))

    def epilogue(self, interrupted):
        check_sig_tables(self)
        if interrupted:
            return
        quiet("delete")
        from fault_sessions import CommStop  # here: fault_sessions imports this module
        CommStop("do_exit", self.PROG)
        fn = quiet_continue()
        status = int(gdb.parse_and_eval("status")) if fn == "do_exit" else None
        pageins = None
        try:
            pageins = int(gdb.parse_and_eval("pageins")) if fn == "do_exit" else None
        except gdb.error:  # no user-symbols: the walkthrough did not get far
            pass
        said = ""
        if SERIAL and os.path.exists(SERIAL):
            with open(SERIAL, encoding="latin-1") as f:
                said = f.read()
        self.report("exit", status == 0 and pageins == 16 and
                    "uf-pager: 16 pages paged in by the handler" in said,
                    "uf-pager exits 0 after its handler paged in 16 pages", "do_exit %s status %s "
                    "pageins %s" % (fn, status, pageins))
