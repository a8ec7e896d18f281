# gdb set-up for faultline (`make gdb`, and the repo's .gdbinit): the 64-bit architecture is
# set before connecting, so gdb never believes the target is i386 (the CPU starts in real and
# 32-bit mode; "Remote 'g' packet reply is too long" is what that mistake looks like).
set architecture i386:x86-64
set pagination off
set confirm off
# gdb retries a refused connection (QEMU still starting) this many seconds, not the default 15
set tcp connect-timeout 5
# The kernel's `current` is a macro reading %gs; gdb gets the same name as a macro over the
# per-CPU areas: $cpu() (faultline.py) is the selected thread's CPU, found from its GS base as
# the kernel finds its own (each CPU is a gdb thread).
macro define current (cpu_data[$cpu()].current_task)
# The helpers (vmas, pagewalk, pageinfo, vmfault, faults, fl-swp, user-symbols, fl-cpus, $cpu(),
# faultline-connect), the signal path's (sigframe, $pt_regs()) and the page cache's (pageflags,
# fl-ra): the modules tests/gdb/faultline.py, faultline_signal.py and faultline_pagecache.py,
# found from the current directory (make runs gdb at the repo root) or from the kernel ELF
# (build/faultline.elf -> ../tests/gdb). Importing twice is harmless.
python
import os, sys
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
_fl_dirs = [os.path.join(os.getcwd(), "tests", "gdb")]
if gdb.current_progspace().filename:
    _fl_dirs.append(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
        gdb.current_progspace().filename))), "tests", "gdb"))
for _d in _fl_dirs:
    if os.path.exists(os.path.join(_d, "faultline.py")):
        if _d not in sys.path:
            sys.path.insert(0, _d)
        break
import faultline
import faultline_signal
import faultline_pagecache
if not gdb.current_progspace().filename:
    _elf = os.path.join(faultline.repo_root(), "build", "faultline.elf")
    if os.path.exists(_elf):
        gdb.execute("file " + _elf)
end
# make debug's port: $GDBPORT, else 1234 + uid % 1000 (faultline-connect PORT for another)
faultline-connect
# A software breakpoint set before GRUB loads the kernel would be overwritten by the load:
# a hardware breakpoint is safe at any time. Budget 4 at a time (the x86 debug registers).
python
if not gdb.selected_inferior().pid:
    gdb.write("faultline: not attached: after 'faultline-connect', 'hbreak kmain' and 'continue'\n")
elif not any(b.location == "kmain" for b in gdb.breakpoints()):
    gdb.execute("hbreak kmain")
    gdb.write("faultline: 'continue' runs to kmain\n")
end
echo faultline: helpers vmas, pagewalk, pageinfo, vmfault, faults, user-symbols (docs/gdb.md)\n
echo faultline: CPUs: fl-cpus, $cpu() (the selected thread's; current and the helpers follow it)\n
echo faultline: signals: sigframe ADDR, $pt_regs([PID]) (docs/gdb.md)\n
echo faultline: swap: fl-swp ADDR [PID] (a swap entry, its slot, the swap cache)\n
echo faultline: page cache: pageflags PAGE, fl-ra FILE (read-ahead, the file's cached pages)\n
