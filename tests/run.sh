#!/bin/sh
# The test harness behind `make test`: host unit tests, the ring-3 programs natively, then QEMU
# boots of build/faultline.iso by kind (tests/*/ scripts, each printing "ok - X" / "not ok - X"
# lines) and the gdb sessions. tests/lib/tap.sh numbers the lines and prints the last one,
# "N passed, N failed". usage: tests/run.sh HOST_TEST_BINARY... (docs/testing.md)
cd "$(dirname "$0")/.." || exit 1
LOGS=${LOGS:-build/test-logs}
ISO=build/faultline.iso ELF=build/faultline.elf
mkdir -p "$LOGS"

# relay FILE WHAT: the TAP lines a script left in FILE (with its "#" comments); one failure if
# it has no ok line at all
relay() {
	grep -E '^((not )?ok - |#)' "$1"
	if ! grep -q '^ok - ' "$1"; then
		echo "not ok - $2: no check ran"
		tail -n 25 "$1" | sed 's/^/#   /'
	fi
}

# timed CMD...: run one part of the suite and say how long it took ("# ... s: CMD", a TAP
# comment; the times also go to $LOGS/times.txt, for seeing where the minutes go)
: >"$LOGS/times.txt"
timed() {
	t0=$(date +%s)
	"$@"
	echo "# $(($(date +%s) - t0)) s: $*" | tee -a "$LOGS/times.txt"
}

{
	timed sh tests/host/run.sh "$@"
	# The ring-3 programs natively on this Linux: every expectation in user/expect.txt is
	# checked against a real kernel before faultline is held to it.
	sh tests/run-native.sh build/user user/expect.txt >"$LOGS/native.log" 2>&1
	relay "$LOGS/native.log" native
	timed sh tests/labs-native.sh
	timed sh tests/ktest/run.sh
	timed sh tests/boot/basic.sh
	timed sh tests/boot/panic.sh
	timed sh tests/boot/smp.sh
	# The framebuffer console: screendumps under BIOS, UEFI and after scrolling, checked pixel
	# by pixel against the serial log drawn with the kernel's own font file; then commands
	# typed with sendkey on tty1, their answer read off the screen (BIOS and UEFI).
	sh tests/screen/run-screen-test.sh "$ISO" "$LOGS" build/font.psf >"$LOGS/screen.out" 2>&1
	relay "$LOGS/screen.out" screen
	timed sh tests/ring3/run.sh
	timed sh tests/boot/faulttrace.sh
	timed sh tests/boot/fbdemo.sh
	timed sh tests/boot/bad-input.sh
	timed sh tests/boot/power.sh
	timed sh tests/boot/legacy.sh
	timed sh tests/boot/disk.sh
	timed sh tests/boot/swap.sh
	timed sh tests/boot/swap-stress.sh
	timed sh tests/boot/swap-faults.sh
	timed sh tests/boot/oom.sh
	timed sh tests/boot/reclaim-lab.sh
	# The labs (docs/exercises.md): each one's test fails with its stub and passes with the
	# real code, in short runs (make grade CHECK_LABS=1 is the full-length check)
	timed sh tests/grade.sh --check --tap
	timed sh tests/boot/extra.sh
	timed sh tests/boot/shell.sh
	timed sh tests/boot/tty.sh
	# gdb: `make debug` + the repo's gdb script stops at kmain
	sh tests/gdb/run-gdb-test.sh "$ISO" "$ELF" "$LOGS" >"$LOGS/gdb.out" 2>&1
	if grep -q 'GDB-TEST: stopped in kmain' "$LOGS/gdb.out"; then
		echo "ok - gdb: hbreak kmain across the 32-to-64-bit switch, backtrace and" \
			"registers"
	else
		echo "not ok - gdb: did not stop in kmain"
		tail -n 25 "$LOGS/gdb.out" | sed 's/^/#   /'
	fi
	# gdb on page faults (docs/gdb.md): its "ok - " lines become tests
	sh tests/gdb/run-fault-gdb-test.sh "$ISO" "$ELF" "$LOGS" >"$LOGS/gdb-fault.log" 2>&1
	relay "$LOGS/gdb-fault.log" "gdb fault"
} | sh tests/lib/tap.sh
