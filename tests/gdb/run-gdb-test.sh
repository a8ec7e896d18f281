#!/bin/sh
# Boot the ISO paused with a gdb stub (as `make debug` does) and drive gdb in batch mode
# with the repo's script (tests/gdb/faultline.gdb): it must stop at kmain with sane registers.
ISO=$1 ELF=$2 LOGS=$3
PORT=$(python3 tests/gdb/free_port.py) # a port nobody listens on: other runs share the machine
sh tests/lib/qemu.sh --iso "$ISO" --mem 128M --serial "$LOGS/gdb-serial.log" --gdb "$PORT" \
	--timeout 90 </dev/null >/dev/null 2>&1 &
qpid=$!
# faultline.gdb attaches to localhost:$GDBPORT (the Makefile's per-user port by default)
cp tests/gdb/faultline.gdb "$LOGS/gdb-script.gdb"
cat >>"$LOGS/gdb-script.gdb" <<'G'
continue
bt
info registers rip rsp cr0 cr3 efer
python
f = gdb.selected_frame()
ok = f.name() == "kmain" and int(gdb.parse_and_eval("$rip")) >= 0xffffffff80000000
print("GDB-TEST: stopped in kmain" if ok else "GDB-TEST: stopped in %s" % f.name())
end
kill
quit
G
GDBPORT=$PORT timeout 80 gdb -q -batch -iex "set auto-load local-gdbinit off" \
	-x "$LOGS/gdb-script.gdb" "$ELF"
kill $qpid 2>/dev/null
wait $qpid 2>/dev/null
exit 0
