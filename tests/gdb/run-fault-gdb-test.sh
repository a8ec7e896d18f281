#!/bin/sh
# Debug page faults with gdb, the way docs/gdb.md tells a student to: four boots of the ISO,
# each paused with a gdb stub (as `make debug`) and one program as init=, each driven by gdb in
# batch mode with the repo's script (tests/gdb/faultline.gdb, which loads the helpers) and
# tests/gdb/fault-test.py (the checks):
#   maps       busybox cat /proc/self/maps: handle_mm_fault, bt, vmas, pagewalk, do_anonymous_page,
#              filemap_fault, faults, and vmas against the maps text cat prints on the serial line
#   device     /bin/dev-kmsgbuf: kmsgbuf_vm_fault (VM_FAULT_NOPAGE), user-symbols
#   nonlinear  /bin/nonlinear: do_nonlinear_fault on a file PTE, then filemap_fault
#   cow        /bin/vm-cow: do_wp_page copies a page shared after fork, later reuses one
# Then docs/gdb.md's transcripts are compared with this run's (tests/gdb/transcripts.py).
# Prints "ok - ..." / "not ok - ..." lines (tests/run.sh numbers them), and after a failure the
# end of that boot's gdb transcript. usage: run-fault-gdb-test.sh ISO ELF LOGDIR
# GDB_DOCS_UPDATE=1 (make gdb-docs): rewrite docs/gdb.md's transcripts from this run instead.
ISO=${1:-build/faultline.iso} ELF=${2:-build/faultline.elf} LOGS=${3:-build/test-logs}
QEMU=${QEMU:-qemu-system-x86_64}
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$LOGS"
# A snapshot of the pair: a rebuild while the boots run must not mix kernels and symbols.
cp "$ISO" "$LOGS/gdb-fault.iso" && cp "$ELF" "$LOGS/gdb-fault.elf" || exit 1
ISO=$LOGS/gdb-fault.iso ELF=$LOGS/gdb-fault.elf

# A free TCP port near 20000 + pid (several test runs may share the machine).
free_port() {
	python3 -c 'import socket, sys
for p in range(int(sys.argv[1]), int(sys.argv[1]) + 200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError: pass
    finally: s.close()' "$1"
}

# one NAME CMDLINE: boot, attach, check; prints the scenario's result lines
one() {
	name=$1 cmd=$2
	serial="$LOGS/gdb-fault-$name.serial" out="$LOGS/gdb-fault-$name.out"
	port=$(free_port $((20000 + ($$ + ${#name} * 97) % 20000)))
	rm -f "$serial"
	start=$(date +%s)
	timeout 40 "$QEMU" -machine pc -cpu qemu64 -m 128M -smp 1 -accel tcg -no-reboot \
		-display none -serial file:"$serial" -monitor none -boot d -cdrom "$ISO" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-fw_cfg name=opt/faultline/cmdline,string="$cmd" -S -gdb tcp:127.0.0.1:"$port" \
		</dev/null >"$LOGS/gdb-fault-$name.qemu" 2>&1 &
	qpid=$!
	# gdb retries a refused connection (faultline.gdb: 5 s) while QEMU starts listening.
	GDBPORT=$port FAULT_TEST=$name FAULT_TEST_SERIAL="$serial" timeout 25 gdb -q -nx -batch \
		-x tests/gdb/faultline.gdb -x tests/gdb/fault-test.py \
		-ex 'kill' "$ELF" </dev/null >"$out" 2>&1
	grc=$?
	kill $qpid 2>/dev/null
	wait $qpid 2>/dev/null
	tr -d '\r' <"$out" | grep -E '^(not )?ok - '
	if ! grep -q "^FAULT-TEST-DONE $name" "$out"; then
		if [ $grc = 124 ]; then why="timed out after 25 s"; else why="gdb exited $grc before the end"; fi
		echo "not ok - gdb fault $name: $why"
	fi
	echo "# gdb fault $name: $(($(date +%s) - start)) s, transcript $out" >&2
	if grep -q '^not ok' "$out" || ! grep -q "^FAULT-TEST-DONE $name" "$out"; then
		echo "# --- end of $out"
		tail -n 40 "$out" | sed 's/^/# /'
	fi
}

one maps "qemu_exit init=/bin/busybox,,cat,,/proc/self/maps"
one device "qemu_exit init=/bin/dev-kmsgbuf"
one nonlinear "qemu_exit init=/bin/nonlinear"
one cow "qemu_exit init=/bin/vm-cow"
logs="$LOGS/gdb-fault-maps.out $LOGS/gdb-fault-device.out $LOGS/gdb-fault-nonlinear.out $LOGS/gdb-fault-cow.out"
if [ "${GDB_DOCS_UPDATE:-}" = 1 ]; then
	python3 tests/gdb/transcripts.py update docs/gdb.md $logs
else
	python3 tests/gdb/transcripts.py check docs/gdb.md $logs
fi
exit 0
