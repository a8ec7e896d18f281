# faultline's gdb set-up, for `gdb build/faultline.elf` (or plain `gdb`) run in this directory:
# architecture, the helpers of tests/gdb/faultline.py, attach to `make debug`, hbreak kmain.
# gdb loads a .gdbinit from the current directory only if it is on the auto-load safe path:
#     echo "add-auto-load-safe-path $PWD/.gdbinit" >> ~/.gdbinit
# (`make gdb` does not need this: it reads tests/gdb/faultline.gdb itself. See docs/gdb.md.)
source tests/gdb/faultline.gdb
