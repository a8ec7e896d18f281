# gdb helpers for the signal path of a fault (docs/gdb.md, "When fault() cannot help"):
#
#   sigframe ADDR         the struct rt_sigframe at user address ADDR (kernel/arch/signal_frame.c):
#                         pretcode, ucontext, the saved registers, the mask, the siginfo
#   $pt_regs([PID])       the struct pt_regs * at the top of a task's kernel stack (default:
#                         current): the user registers the kernel returns to ring 3 with
#
# Loaded by tests/gdb/faultline.gdb after faultline.py. The frame's layout comes from the
# kernel's DWARF info (struct rt_sigframe); siginfo_t's is the ABI's (signo, errno, code, then
# the union at 16). The numbers below copy kernel/signal/signal.h, kernel/arch/signal_frame.c and
# kernel/sched/sched.h; the gdb test (tests/gdb/fault_sessions.py, Sigpath) checks them against
# those.
import gdb

import faultline as fl

KSTACK_SIZE = 16384  # kernel/sched/sched.h
# kernel/signal/signal.h: the signal numbers faultline names, and si_code values by signal
SIGNALS = [
    ("SIGHUP", 1), ("SIGINT", 2), ("SIGQUIT", 3), ("SIGILL", 4), ("SIGTRAP", 5),
    ("SIGABRT", 6), ("SIGBUS", 7), ("SIGFPE", 8), ("SIGKILL", 9), ("SIGUSR1", 10),
    ("SIGSEGV", 11), ("SIGUSR2", 12), ("SIGPIPE", 13), ("SIGALRM", 14), ("SIGTERM", 15),
    ("SIGCHLD", 17), ("SIGCONT", 18), ("SIGSTOP", 19), ("SIGTSTP", 20), ("SIGTTIN", 21),
    ("SIGTTOU", 22), ("SIGURG", 23), ("SIGXCPU", 24), ("SIGXFSZ", 25), ("SIGVTALRM", 26),
    ("SIGPROF", 27), ("SIGWINCH", 28), ("SIGSYS", 31),
]
SIG = dict(SIGNALS)
SI_KERNEL = 0x80
SI_CODES = [("SI_USER", 0), ("SI_KERNEL", SI_KERNEL), ("SI_TKILL", -6)]
SI_CODES_BY_SIG = {
    "SIGSEGV": [("SEGV_MAPERR", 1), ("SEGV_ACCERR", 2)],
    "SIGBUS": [("BUS_ADRERR", 2)],
    "SIGILL": [("ILL_ILLOPN", 2)],
    "SIGFPE": [("FPE_INTDIV", 1)],
    "SIGCHLD": [("CLD_EXITED", 1), ("CLD_KILLED", 2)],
}
SS_FLAGS = [("SS_ONSTACK", 1), ("SS_DISABLE", 2)]
# kernel/arch/signal_frame.c: uc_flags, and the FPU area's magic words
UC_FLAGS = [("UC_FP_XSTATE", 0x1), ("UC_SIGCONTEXT_SS", 0x2), ("UC_STRICT_RESTORE_SS", 0x4)]
FP_XSTATE_MAGIC1 = 0x46505853
FP_XSTATE_MAGIC2 = 0x46505845
FP_SW_OFFSET = 464  # the fxsave image's software-reserved bytes: magic1, sizes


def signal_str(sig):
    for name, n in SIGNALS:
        if n == sig:
            return name
    return "signal %d" % sig


def sigmask_str(mask):
    """'0x400 (SIGSEGV)': a sigset's bits by signal name (bit sig - 1)."""
    names = [signal_str(i + 1) for i in range(64) if mask & (1 << i)]
    return "0x%x (%s)" % (mask, "|".join(names) if names else "none")


def si_code_str(sig, code):
    for name, n in SI_CODES_BY_SIG.get(signal_str(sig), []) + SI_CODES:
        if n == code:
            return name
    return str(code)


def pt_regs(t):
    """The struct pt_regs * at the top of t's kernel stack (kernel/process/fork.c task_pt_regs)."""
    ptr = gdb.lookup_type("struct pt_regs").pointer()
    return gdb.Value(int(t["stack"]) + KSTACK_SIZE - ptr.target().sizeof).cast(ptr)


class PtRegs(gdb.Function):
    """$pt_regs([PID]): the struct pt_regs * of a task (default: current), where its user
    registers are saved while it is in the kernel: p/x *$pt_regs(), p/x $pt_regs()->rip.
    Computed as kernel/process/fork.c's task_pt_regs does (gdb calls no kernel function)."""

    def __init__(self):
        super().__init__("pt_regs")

    def invoke(self, pid=None):
        return pt_regs(fl.find_task(int(pid)) if pid is not None else fl.current_task())


def user_symbol(addr):
    """'= pager' at a function's first byte, 'in main' inside one, '' without user-symbols."""
    try:
        out = gdb.execute("info symbol 0x%x" % addr, to_string=True)
    except gdb.error:
        return ""
    if out.startswith("No symbol"):
        return ""
    name = out.split()[0]
    return " in %s" % name if " + " in out.split(" in section")[0] else " = %s" % name


def trap_str(trapno):
    """The vector by the name of the kernel's enum (kernel/arch/trap.h, from the DWARF info)."""
    try:
        for f in gdb.parse_and_eval("X86_TRAP_PF").type.fields():
            if f.enumval == trapno:
                return f.name
    except gdb.error:
        pass
    return "?"


def siginfo(raw):
    """The fields of a 128-byte siginfo_t that faultline fills (kernel/arch/signal_frame.c)."""
    def i32(o):
        return int.from_bytes(raw[o:o + 4], "little", signed=True)

    return {"signo": i32(0), "errno": i32(4), "code": i32(8),
            "addr": int.from_bytes(raw[16:24], "little"), "pid": i32(16), "status": i32(24)}


def siginfo_text(raw):
    s = siginfo(raw)
    name = signal_str(s["signo"])
    out = "si_signo %d (%s), si_errno %d, si_code %d (%s)" % (
        s["signo"], name, s["errno"], s["code"], si_code_str(s["signo"], s["code"]))
    if s["code"] == SI_KERNEL:
        return out
    if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP") and s["code"] > 0:
        return out + ", si_addr 0x%x" % s["addr"]
    if name == "SIGCHLD" and s["code"] > 0:
        return out + ", si_pid %d, si_status %d" % (s["pid"], s["status"])
    return out + ", si_pid %d" % s["pid"]


def read_frame(addr):
    """The struct rt_sigframe at user address addr (read through the MMU: the current
    process's address space) as a gdb.Value, and its siginfo's 128 bytes."""
    t = gdb.lookup_type("struct rt_sigframe")
    f = gdb.Value(addr).cast(t.pointer()).dereference()
    info = fl.field_offset("struct rt_sigframe", "info")
    raw = bytes(gdb.selected_inferior().read_memory(addr + info, 128))
    return f, raw


def fpstate_text(fp):
    """The FPU area a frame points at: where, and whether Linux's magic words are there."""
    if not fp:
        return "0 (the handler's return resets the FPU)"
    inf = gdb.selected_inferior()
    sw = bytes(inf.read_memory(fp + FP_SW_OFFSET, 20))
    magic1 = int.from_bytes(sw[0:4], "little")
    xsize = int.from_bytes(sw[16:20], "little")
    magic2 = int.from_bytes(bytes(inf.read_memory(fp + xsize, 4)), "little") if xsize < 4096 \
        else 0
    return "0x%x (%s64-byte aligned; magic1 %s, xstate %d bytes, magic2 %s)" % (
        fp, "" if fp % 64 == 0 else "NOT ", "ok" if magic1 == FP_XSTATE_MAGIC1 else "MISSING",
        xsize, "ok" if magic2 == FP_XSTATE_MAGIC2 else "MISSING")


def sigframe_text(addr):
    f, raw = read_frame(addr)
    uc, sc = f["uc"], f["uc"]["uc_mcontext"]
    st = uc["uc_stack"]

    def g(name):
        return int(sc[name])

    uc_off = fl.field_offset("struct rt_sigframe", "uc")
    info_off = fl.field_offset("struct rt_sigframe", "info")
    out = ["struct rt_sigframe at 0x%x (%d bytes): frame + 8 = 0x%x, %s\n"
           % (addr, f.type.sizeof, addr + 8, "a multiple of 16: the handler starts as after a "
              "call" if (addr + 8) % 16 == 0 else "NOT a multiple of 16 (the ABI wants one)"),
           "  pretcode    0x%x%s (the handler's return address: the restorer)\n"
           % (int(f["pretcode"]), user_symbol(int(f["pretcode"]))),
           "  uc          at 0x%x: uc_flags %s, uc_link 0x%x\n"
           % (addr + uc_off, fl.bits_str(int(uc["uc_flags"]), UC_FLAGS, "UC_"),
              int(uc["uc_link"])),
           "  uc_stack    ss_sp 0x%x, ss_flags %s, ss_size %d\n"
           % (int(st["ss_sp"]), fl.bits_str(int(st["ss_flags"]), SS_FLAGS, "SS_"),
              int(st["ss_size"])),
           "  uc_mcontext the interrupted registers, restored by rt_sigreturn:\n",
           "    rip 0x%x%s, rsp 0x%x, eflags 0x%x, cs 0x%x, ss 0x%x\n"
           % (g("rip"), user_symbol(g("rip")), g("rsp"), g("eflags"), g("cs"), g("ss"))]
    regs = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12",
            "r13", "r14", "r15"]
    for i in range(0, len(regs), 5):
        out.append("    " + ", ".join("%s 0x%x" % (r, g(r)) for r in regs[i:i + 5]) + "\n")
    err = g("err")
    trap = trap_str(g("trapno"))
    out.append("    trapno %d (%s), err 0x%x%s, cr2 0x%x, oldmask %s\n"
               % (g("trapno"), trap, err, " (%s)" % fl.pf_error_str(err).strip()
                  if trap == "X86_TRAP_PF" else "", g("cr2"), sigmask_str(g("oldmask"))))
    out.append("    fpstate %s\n" % fpstate_text(g("fpstate")))
    out.append("  uc_sigmask  %s (the blocked set rt_sigreturn puts back)\n"
               % sigmask_str(int(uc["uc_sigmask"])))
    out.append("  info        at 0x%x: %s\n" % (addr + info_off, siginfo_text(raw)))
    return "".join(out)


class Sigframe(gdb.Command):
    ("Show the struct rt_sigframe at a user address: sigframe ADDR (in the handler: sigframe "
     "$rsp; in the kernel: sigframe $pt_regs()->rsp after setup_rt_frame, "
     "$pt_regs()->rsp - 8 in rt_sigreturn).")

    def __init__(self):
        super().__init__("sigframe", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg.strip():
            raise gdb.GdbError("usage: sigframe ADDR")
        addr = fl.parse_int(arg) & 0xffffffffffffffff
        try:
            gdb.write(sigframe_text(addr))
        except gdb.MemoryError as e:
            raise gdb.GdbError("sigframe: no frame readable at 0x%x in %s's address space (%s)"
                               % (addr, fl.task_label(fl.current_task()), e))


PtRegs()
Sigframe()
