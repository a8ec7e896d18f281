#!/bin/sh
# The test harness behind `make test`: host unit tests, then QEMU boots of build/faultline.iso
# (kernel self-tests, deliberate panics, memory sizes, UEFI) and a gdb session. One TAP line
# per test; the last line is "N passed, N failed". usage: tests/run.sh HOST_TEST_BINARY...
ISO=build/faultline.iso
ELF=build/faultline.elf
LOGS=build/test-logs
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${TEST_TIMEOUT:-120}
mkdir -p "$LOGS"
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
notok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; [ -n "$2" ] && sed 's/^/#   /' "$2" | tail -n 25; }
# relay FILE [LOG] [WHAT]: each "ok - X" / "not ok - X" line of FILE becomes a test (LOG shown
# on failure, default FILE); with WHAT, fail once if FILE has no ok line at all.
relay() {
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) notok "${line#not ok - }" "${2:-$1}" ;;
		esac
	done <"$1"
	[ -z "${3:-}" ] || grep -q '^ok - ' "$1" || notok "$3: no check ran" "${2:-$1}"
}

# ---- 1. host unit tests: each prints "ok - name" / "not ok - name" lines
for t in "$@"; do
	name=$(basename "$t")
	log="$LOGS/$name.log"
	"$t" >"$log" 2>&1
	rc=$?
	n=0
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "host $name: ${line#ok - }"; n=$((n + 1)) ;;
		"not ok - "*) notok "host $name: ${line#not ok - }" "$log"; n=$((n + 1)) ;;
		esac
	done <"$log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then notok "host $name exited $rc" "$log"; fi
	[ $n -eq 0 ] && [ $rc -eq 0 ] && notok "host $name ran no test" "$log"
done

# ---- 1b. the ring-3 test programs, natively on this Linux host: each expectation in
# user/expect.txt is checked against a real kernel before faultline is held to it
sh tests/run-native.sh build/user user/expect.txt >"$LOGS/native.log" 2>&1
relay "$LOGS/native.log" "" native

# ---- 2. QEMU boots. boot NAME MEM EXTRA_CMDLINE [qemu args...]: runs, leaves $LOGS/NAME.log, sets $rc
# (MACHINE=q35 for another chipset; EXITDEV= for a machine without isa-debug-exit, as a PC)
EXITDEV_DEFAULT="-device isa-debug-exit,iobase=0xf4,iosize=0x04"
boot() {
	name=$1 mem=$2 cmd=$3
	shift 3
	timeout "$TIMEOUT" "$QEMU" -machine "${MACHINE:-pc}" -cpu "${CPU:-qemu64}" -m "$mem" -smp 1 -accel tcg -no-reboot \
		-display none -serial file:"$LOGS/$name.log" -monitor none \
		${EXITDEV-$EXITDEV_DEFAULT} -boot d \
		-fw_cfg name=opt/faultline/cmdline,string="$cmd" -cdrom "$ISO" "$@" \
		</dev/null >"$LOGS/$name.qemu" 2>&1
	rc=$?
}

# expect NAME WANT_RC PATTERN...: one test line; every grep -E pattern must be in the log
expect() {
	name=$1 want=$2
	shift 2
	log="$LOGS/$name.log"
	why=""
	[ "$rc" = 124 ] && why="timed out after ${TIMEOUT}s"
	[ -z "$why" ] && [ "$rc" != "$want" ] && why="QEMU exit status $rc, expected $want"
	for p in "$@"; do
		[ -z "$why" ] && ! grep -Eq -- "$p" "$log" && why="no line matching '$p'"
	done
	if [ -z "$why" ]; then ok "boot $name"; else notok "boot $name: $why" "$log"; fi
}

# ktest_boot NAME MEM: all kernel self-tests; each one's TAP line becomes a test here
ktest_boot() {
	boot "$1" "$2" "ktest=all"
	log="$LOGS/$1.log"
	tr -d '\r' <"$log" >"$log.txt"
	grep -E '^(not )?ok [0-9]+ - ktest ' "$log.txt" | while IFS= read -r l; do echo "$l"; done >"$log.tap"
	while IFS= read -r l; do
		case $l in
		"ok "*) ok "$1: ${l#* - }" ;;
		*) notok "$1: ${l#* - }" "$log.txt" ;;
		esac
	done <"$log.tap"
	expect "$1" 33 'ktest: [0-9]+ passed, 0 failed'
}

ktest_boot ktest-256M 256M
ktest_boot ktest-64M 64M
ktest_boot ktest-above-4G 5G
CPU=max; ktest_boot ktest-cpu-max 256M; CPU=

boot banner 128M "qemu_exit hello=world"
expect banner 33 '^faultline [0-9.]+: a teaching kernel' 'memory map \([0-9]+ entries\)' \
	'available' 'command line: .*hello=world' 'frames: [0-9]+ total, [0-9]+ free' \
	'^faultline init: hello from ring 3, pid [0-9]+' 'init: /bin has: ' 'run: /bin/init: exit 0' \
	'boot complete'

boot panic 128M "ktest=panic"
expect panic 37 'kernel oops: page fault' 'CR2 \(fault address\) 000000000dead000' 'RIP: 0010:' \
	'RAX: ' 'Call Trace:' 'ktest_panic_deref\+0x' 'ktest_panic_caller\+0x' 'kernel_init\+0x'

boot panic-call 128M "ktest=kernel_panic_call"
expect panic-call 37 'kernel panic: deliberate panic from ktest \(42\)' 'Call Trace:' 'ktest_run\+0x'

boot stack-overflow 128M "ktest=stack_overflow"
expect stack-overflow 37 'double fault \(#DF\), handled on its own IST stack' \
	'kernel stack overflow: RSP [0-9a-f]+ points into an unmapped \(guard\) page' 'recurse\+0x'

# The framebuffer console: screendumps under BIOS, UEFI and after scrolling, checked pixel by
# pixel against the serial log drawn with the kernel's own font file (tests/screen/).
sh tests/screen/run-screen-test.sh "$ISO" "$LOGS" build/font.psf >"$LOGS/screen.out" 2>&1
relay "$LOGS/screen.out" "" screen

# Ring 3: one boot runs every test program through runlist=/etc/runlist (the Makefile writes
# it from user/expect.txt and tests/ring3-host.txt). Each must end as its expectation line
# says and give back every frame it took (runstats prints the free count around each one).
# ring3_results NAME: one test per program of the runlist boot NAME (its result, its frames
# back) and one for kcheck after all of them.
ring3_results() {
	name=$1 log="$LOGS/$1.log"
	tr -d '\r' <"$log" >"$log.txt"
	# the runner exits with status 1 (QEMU 35) because some programs are meant to fail
	expect "$name" 35 'run: done'
	cat user/expect.txt tests/ring3-host.txt tests/ring3-faultline.txt | grep -v '^#' |
	while IFS= read -r e; do
		want=$(echo "${e%%|*}" | sed 's/ *$//')
		line=$(echo "${e#*|}" | sed 's/^ *//; s/ *$//')
		got=$(grep -F "run: $line: " "$log.txt" | head -1 | sed "s|^run: $line: ||")
		frames=$(grep -F -A1 "run: $line: " "$log.txt" | sed -n 's/^frames: \([0-9]*\) free or cached before, \([0-9]*\) after$/\1 \2/p' | head -1)
		if [ "$got" != "$want" ]; then
			echo "not ok - $name $line: got '${got:-no result line}', expected '$want'"
		elif [ -z "$frames" ] || [ "${frames% *}" != "${frames#* }" ]; then
			echo "not ok - $name $line: $want, but frames (before after) are '${frames:-missing}'"
		else
			echo "ok - $name $line: $want, frames back (${frames% *} free)"
		fi
	done >"$log.tap"
	relay "$log.tap" "$log.txt"
	n=$(grep -c '^kcheck: .* checked: 0 mismatches$' "$log.txt")
	m=$(cat user/expect.txt tests/ring3-host.txt tests/ring3-faultline.txt | grep -vc '^#')
	[ "$n" -eq "$m" ] && ok "$name: kcheck after each of the $m programs: 0 mismatches" ||
		notok "$name: kcheck clean after $n of $m programs" "$log.txt"
}

ring3_boot() {
	# -cpu max: SMEP, SMAP and UMIP are on for the whole suite; kcheck after every program
	CPU=max; TIMEOUT=400; boot ring3 256M "runlist=/etc/runlist runstats kcheck"; CPU=; TIMEOUT=${TEST_TIMEOUT:-120}
	ring3_results ring3
	log="$LOGS/ring3.log"
	grep -q '^cpu: SMEP on, SMAP on, UMIP on' "$log.txt" && ok "ring3: the suite ran with SMEP, SMAP and UMIP on" ||
		notok "ring3: SMEP/SMAP/UMIP not all on under -cpu max" "$log.txt"
	# what the programs print, checked against what they must print
	while IFS='|' read -r what pattern; do
		if grep -Eq -- "$pattern" "$log.txt"; then ok "ring3: $what"; else notok "ring3: $what (no line matching '$pattern')" "$log.txt"; fi
	done <<-'EOT'
	musl printf reaches the console|^hello, world$
	an unknown system call is reported with pid, program and number|^syscall: pid [0-9]+ \(sysinfo\) called unknown system call 1000: -ENOSYS$
	the SIGSEGV report names pid, program, address, rip and error bits|^segfault: pid [0-9]+ \(segv\): SIGSEGV \(kernel address\) at ffffffff80100000, rip [0-9a-f]+, error 0x7 \(protection write user\)$
	a static glibc binary prints with printf|^hello from glibc$
	busybox echo|^hello from busybox$
	busybox cat /etc/motd|^Welcome to faultline: a teaching kernel about page faults\.$
	busybox ls / lists the ramdisk root|^bin$
	init lists /bin|^init: /bin has: .*busybox.* hello .*waitstat
	fpu: both concurrent children kept their registers|^fpu: ok
	EOT
	# sysinfo calls number 1000 on purpose; any other unknown call is a gap in the kernel
	# (so are the fuzzer's random numbers: lines before its "run: /bin/fuzz" result, after the
	# previous program's, are not counted; its children rename themselves with prctl)
	n=$(awk '/^syscall: .*unknown system call/ && !/\(sysinfo\) called unknown system call 1000:/ { k++ }
		/^run: \/bin\// { if ($2 !~ /^\/bin\/fuzz/) n += k; k = 0 }
		END { print n + k }' "$log.txt")
	[ "$n" -eq 0 ] && ok "ring3: no program called an unknown system call" ||
		notok "ring3: $n calls of unknown system calls" "$log.txt"
}
ring3_boot

# The same suite with very little and with a lot of RAM, and under UEFI (OVMF).
TIMEOUT=400
boot ring3-32M 32M "runlist=/etc/runlist runstats kcheck"
ring3_results ring3-32M
boot ring3-8G 8G "runlist=/etc/runlist runstats kcheck"
ring3_results ring3-8G
if [ -r /usr/share/OVMF/OVMF_CODE_4M.fd ]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$LOGS/ovmf-vars-ring3.fd"
	boot ring3-uefi 256M "runlist=/etc/runlist runstats kcheck" \
		-drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive if=pflash,format=raw,file="$LOGS/ovmf-vars-ring3.fd"
	ring3_results ring3-uefi
fi
TIMEOUT=${TEST_TIMEOUT:-120}

# Without runlist= the kernel runs /bin/init; init= names another program (commas: arguments)
boot init-arg 128M "qemu_exit init=/bin/args,,one,,two,,three"
expect init-arg 33 'run: /bin/args one two three: exit 0' 'args: ok'

# faulttrace: one line per fault. forkwait's text arrives by major file faults (fetches), and
# after its fork both processes break copy-on-write on the stack (do_wp_page, VM_FAULT_WRITE).
boot faulttrace 128M "qemu_exit faulttrace init=/bin/forkwait"
expect faulttrace 33 'run: /bin/forkwait: exit 0' \
	'^faulttrace: pid [0-9]+ \(forkwait\) addr 0000000000401[0-9a-f]{3} pgoff 1 error 0x14 \(not-present read user fetch\) vma 401000-[0-9a-f]+ file -> 0x4 MAJOR' \
	'^faulttrace: pid [0-9]+ \(forkwait\) addr 00007fffffff[0-9a-f]{4} pgoff [0-9]+ error 0x7 \(protection write user\) vma [0-9a-f]+-7ffffffff000 anon -> 0x8 WRITE'

boot bench-smoke 256M "qemu_exit init=/bin/fbench,,256"; expect bench-smoke 33 'run: /bin/fbench 256: exit 0' '^anon_write_zerofill +[0-9.]+ +-?[0-9]+ +256 ' '^fbench: done' # make bench's program runs to the end (never timed: docs/bench.md)
# every kind must have been measured: a row that could not run says why instead of a figure
if grep -Eq '^[a-z_0-9]+ +n/a ' "$LOGS/bench-smoke.log"; then
	notok "bench-smoke: a benchmark kind could not run" "$LOGS/bench-smoke.log"
else ok "bench-smoke: every kind measured"; fi

# /dev/fb0: fbdemo draws through a device mapping (NOPAGE faults). Screendump while it holds
# the mapping: the gradient's corners and the Mandelbrot's body; again after it exits: the
# console has taken the screen back (its background colour, 0x102040).
fbdemo_test() {
	sock="$LOGS/fbdemo.sock" log="$LOGS/fbdemo.log"
	rm -f "$sock" "$log" "$LOGS/fbdemo-1.ppm" "$LOGS/fbdemo-2.ppm"
	timeout 90 "$QEMU" -machine pc -cpu qemu64 -m 256M -accel tcg -no-reboot -display none \
		-serial file:"$log" -monitor unix:"$sock",server,nowait -boot d \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-fw_cfg name=opt/faultline/cmdline,string="init=/bin/fbdemo,,4" \
		-cdrom "$ISO" </dev/null >"$LOGS/fbdemo.qemu" 2>&1 &
	qpid=$!
	shot() { # shot PATTERN FILE: wait for PATTERN in the serial log, then screendump
		for i in $(seq 1 600); do grep -q "$1" "$log" 2>/dev/null && break; sleep 0.1; done
		printf 'screendump %s\n' "$2" | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1
		sleep 0.5
	}
	shot 'fbdemo: drawn' "$LOGS/fbdemo-1.ppm"
	shot 'run: /bin/fbdemo 4: exit 0' "$LOGS/fbdemo-2.ppm"
	printf 'quit\n' | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1
	wait $qpid 2>/dev/null
	python3 - "$LOGS/fbdemo-1.ppm" "$LOGS/fbdemo-2.ppm" >"$LOGS/fbdemo.check" 2>&1 <<-'EOT'
	import sys
	def load(f):
	    d = open(f, 'rb').read().split(b'\n', 3)
	    w, h = map(int, d[1].split())
	    return w, h, lambda x, y: tuple(d[3][(y * w + x) * 3:(y * w + x) * 3 + 3])
	w, h, p = load(sys.argv[1])
	ok = (w, h) == (1024, 768) and p(0, 0) == (0, 0, 0) and p(w - 1, 0) == (255, 0, 0) \
	    and p(0, h // 4 - 1) == (0, 0, 255) and p(w * 6 // 10, h * 5 // 8) == (0, 0, 0)
	print('demo', ok, p(0, 0), p(w - 1, 0), p(0, h // 4 - 1), p(w * 6 // 10, h * 5 // 8))
	w, h, p = load(sys.argv[2])
	back = sum(p(x, y) == (0x10, 0x20, 0x40) for x in range(0, w, 16) for y in range(0, h, 16))
	print('console', back > 1000, back)
	EOT
	grep -q '^demo True' "$LOGS/fbdemo.check" && ok "fbdemo: its pixels on the screen (device mapping, NOPAGE)" ||
		notok "fbdemo: screendump does not show the demo" "$LOGS/fbdemo.check"
	grep -q '^console True' "$LOGS/fbdemo.check" && ok "fbdemo: after munmap the console redraws the screen" ||
		notok "fbdemo: the console did not take the screen back" "$LOGS/fbdemo.check"
}
fbdemo_test

# Bad boot input: each gets a one-line message and the kernel goes on to the end of the boot.
boot bad-params 128M "qemu_exit bogus=1 runlist=/no/such/list"
expect bad-params 35 "cmdline: unknown parameter 'bogus' ignored" \
	'run: /no/such/list: no such file in the ramdisk' 'boot complete'
bad_iso() { # bad_iso NAME: build/isodir copied to $LOGS/NAME.dir, changed by the caller
	rm -rf "$LOGS/$1.dir" && cp -r build/isodir "$LOGS/$1.dir" &&
		sed 's|@CMDLINE@||' iso/grub.cfg >"$LOGS/$1.dir/boot/grub/grub.cfg"
}
bad_iso_boot() { # bad_iso_boot NAME CMDLINE PATTERN...: make the ISO, boot it, expect
	name=$1 cmd=$2
	shift 2
	if make -s iso-from ISODIR="$LOGS/$name.dir" ISO_OUT="$LOGS/$name.iso" >"$LOGS/$name.make" 2>&1; then
		saved=$ISO ISO=$LOGS/$name.iso
		boot "$name" 128M "$cmd"
		ISO=$saved
		expect "$name" 33 "$@"
	else
		notok "boot $name: could not build its ISO" "$LOGS/$name.make"
	fi
}
bad_iso no-ramdisk && sed -i '/module2/d' "$LOGS/no-ramdisk.dir/boot/grub/grub.cfg"
bad_iso_boot no-ramdisk "qemu_exit" 'initramfs: no ramdisk module' \
	'run: /bin/init: cannot run: no such file' 'boot complete'
# a ramdisk cut in the middle of a file: what came before it is kept
bad_iso bad-cpio && head -c 300000 build/initrd.cpio >"$LOGS/bad-cpio.dir/boot/initrd.cpio"
bad_iso_boot bad-cpio "qemu_exit" 'initramfs: corrupt archive at offset 0x[0-9a-f]+' 'initramfs: [0-9]+ files' \
	'boot complete'

# Without QEMU's isa-debug-exit, as on a PC: the kernel ends the machine through ACPI
# (drivers/acpi.c). QEMU exits 0 by itself on the S5 write or, with -no-reboot, on the reset;
# a boot that stays on times out. The pc FADT (revision 1) has no reset register, q35's has.
TIMEOUT=60 EXITDEV=
boot poweroff-bios 128M "init=/bin/poweroff"
expect poweroff-bios 0 '^acpi: RSDP rev 0 \(from GRUB\), RSDT at [0-9a-f]+, FADT rev 1 at [0-9a-f]+, DSDT at [0-9a-f]+, PM1a_CNT 0x604, .*S5 SLP_TYP 0/0' \
	'poweroff: wrong magic refused \(EINVAL\)' '^reboot: Power down' '^acpi: powering off \(S5: SLP_TYPa 0 into PM1a_CNT 0x604\)'
if [ -r /usr/share/OVMF/OVMF_CODE_4M.fd ]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$LOGS/ovmf-vars-poweroff.fd"
	boot poweroff-uefi 128M "init=/bin/poweroff" \
		-drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive if=pflash,format=raw,file="$LOGS/ovmf-vars-poweroff.fd"
	expect poweroff-uefi 0 'EFI: system table' '^acpi: RSDP rev 2 \(from GRUB\), XSDT at ' \
		'^reboot: Power down' '^acpi: powering off \(S5: SLP_TYPa 0 into PM1a_CNT 0x'
fi
boot reboot-kbd 128M "init=/bin/poweroff,,-r"
expect reboot-kbd 0 '^reboot: Restarting system' '^reboot: through the keyboard controller \(0x64 <- 0xfe\)'
if grep -q 'by a triple fault' "$LOGS/reboot-kbd.log"; then notok "reboot-kbd: the keyboard controller did not reset the machine" "$LOGS/reboot-kbd.log"; fi
MACHINE=q35; boot reboot-acpi 128M "init=/bin/poweroff,,-r"; MACHINE=
expect reboot-acpi 0 'reset reg I/O 0xcf9 <- 0xf' '^reboot: through the ACPI reset register \(I/O 0xcf9 <- 0xf\)'
if grep -q 'through the keyboard controller' "$LOGS/reboot-acpi.log"; then notok "reboot-acpi: the reset register did not reset q35" "$LOGS/reboot-acpi.log"; fi
TIMEOUT=20; boot poweroff-halt 128M "init=/bin/poweroff,,-h"; TIMEOUT=60 # halt stays on: a timeout is right
[ "$rc" = 124 ] && grep -q '^System halted\.' "$LOGS/poweroff-halt.log" && ok "boot poweroff-halt: System halted., and the machine stays on" ||
	notok "boot poweroff-halt: QEMU exit status $rc, or no 'System halted.'" "$LOGS/poweroff-halt.log"
boot runlist-poweroff 128M "runlist=/etc/nopage.list poweroff"
expect runlist-poweroff 0 'run: done' '^faultline: done; powering off \(kernel parameter poweroff\)' '^acpi: powering off'
# No serial port and no isa-debug-exit: only the screen shows anything. Without -no-reboot a
# triple fault reboots (and loops until the timeout), so exit status 0 is the S5 write itself.
timeout 60 "$QEMU" -machine pc -cpu qemu64 -m 128M -smp 1 -accel tcg -display none -serial none \
	-monitor none -boot d -fw_cfg name=opt/faultline/cmdline,string="init=/bin/poweroff" \
	-cdrom "$ISO" </dev/null >"$LOGS/poweroff-noserial.qemu" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "boot poweroff-noserial: no serial port, no isa-debug-exit: ran /bin/poweroff and powered off" ||
	notok "boot poweroff-noserial: QEMU exit status $rc, expected 0" "$LOGS/poweroff-noserial.qemu"
# The hybrid ISO as a USB stick (the README's dd): a raw usb-storage disk on xHCI, BIOS and UEFI
usb_boot() { # usb_boot NAME [qemu args...]
	name=$1
	shift
	timeout 90 "$QEMU" -machine pc -cpu qemu64 -m 256M -smp 1 -accel tcg -no-reboot -display none \
		-serial file:"$LOGS/$name.log" -monitor none -device qemu-xhci \
		-drive if=none,id=stick,file="$ISO",format=raw,snapshot=on -device usb-storage,drive=stick \
		-fw_cfg name=opt/faultline/cmdline,string="init=/bin/poweroff" "$@" \
		</dev/null >"$LOGS/$name.qemu" 2>&1
	rc=$?
}
usb_boot usb-bios
expect usb-bios 0 'loader: GRUB' '^reboot: Power down' '^acpi: powering off'
if [ -r /usr/share/OVMF/OVMF_CODE_4M.fd ]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$LOGS/ovmf-vars-usb.fd"
	usb_boot usb-uefi -drive if=pflash,format=raw,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd \
		-drive if=pflash,format=raw,file="$LOGS/ovmf-vars-usb.fd"
	expect usb-uefi 0 'EFI: system table' '^reboot: Power down' '^acpi: powering off'
fi
TIMEOUT=${TEST_TIMEOUT:-120}; unset EXITDEV

# UEFI: OVMF needs a writable copy of its variable store.
OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
if [ -r "$OVMF_CODE" ]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$LOGS/ovmf-vars.fd"
	boot uefi 256M "ktest=all" -drive if=pflash,format=raw,readonly=on,file="$OVMF_CODE" \
		-drive if=pflash,format=raw,file="$LOGS/ovmf-vars.fd"
	expect uefi 33 'faultline [0-9.]+: a teaching kernel' 'loader: GRUB' 'EFI: system table' \
		'ktest: [0-9]+ passed, 0 failed'
else
	notok "boot uefi: $OVMF_CODE missing (install ovmf)"
fi

# The legacy nopage() interface (docs/history.md). legacy_nopage: every file mapping, program
# text included, faults through filemap_nopage; programs and the file tests run as with
# fault(), each giving its frames back, kcheck clean, and the trace names the op.
legacy_nopage_test() {
	boot legacy-nopage 256M "legacy_nopage runlist=/etc/nopage.list runstats kcheck faulttrace"
	log="$LOGS/legacy-nopage.log"
	tr -d '\r' <"$log" >"$log.txt"
	set -- 'filemap: legacy_nopage: file mappings use filemap_nopage' \
		'^faulttrace: .* vma 401000-[0-9a-f]+ file-nopage -> 0x4 MAJOR' \
		'^faulttrace: .* file-nopage -> 0x2 SIGBUS' 'run: done'
	for p in $(grep -v '^#' iso/root/etc/nopage.list | sed 's/ /_/g'); do
		set -- "$@" "run: $(echo "$p" | sed 's/_/ /g'): exit 0"
	done
	expect legacy-nopage 33 "$@"
	n=$(grep -c '^kcheck: .* checked: 0 mismatches$' "$log.txt")
	m=$(grep -vc '^#' iso/root/etc/nopage.list)
	k=$(sed -n 's/^frames: \([0-9]*\) free or cached before, \1 after$/same/p' "$log.txt" | grep -c same)
	[ "$n" -eq "$m" ] && [ "$k" -eq "$m" ] && ok "legacy-nopage: frames back and kcheck clean after each of the $m programs" ||
		notok "legacy-nopage: frames back after $k, kcheck clean after $n of $m programs" "$log.txt"
}
legacy_nopage_test

# The truncate race fault() closed. race_window_us makes __do_fault sleep 10 ms between the
# op's return and the page lock. fault() holds the page locked across it: file-race must see
# no stale read and no orphan PTE. nopage() does not, so truncate runs inside the window:
# file-race expect-race passes only if it saw stale data or FL_CHECK found orphans.
boot race-fault 256M "qemu_exit disk_latency_us=1000 race_window_us=10000 init=/bin/file-race,,300"
expect race-fault 33 'run: /bin/file-race 300: exit 0' 'FL_CHECK x[0-9]+: max 0 orphans'
boot race-nopage 256M "qemu_exit legacy_nopage disk_latency_us=1000 race_window_us=10000 init=/bin/file-race,,300,,expect-race"
expect race-nopage 33 'run: /bin/file-race 300 expect-race: exit 0' 'file-race: expect-race: the race showed'

# A device fault is traced as NOPAGE: the op installed the PTE itself (drivers/kmsgbuf.c)
boot faulttrace-device 128M "qemu_exit faulttrace init=/bin/dev-kmsgbuf"
expect faulttrace-device 33 'run: /bin/dev-kmsgbuf: exit 0' \
	'^faulttrace: pid [0-9]+ \(dev-kmsgbuf\) addr [0-9a-f]+ pgoff 0 error 0x6 \(not-present write user\) vma [0-9a-f]+-[0-9a-f]+ device -> 0x100 NOPAGE' \
	'^faulttrace: pid [0-9]+ \(dev-kmsgbuf\) .* device -> 0x2 SIGBUS'

# mapview turns that trace into a picture: one band per VMA, one mark per fault
if python3 tests/mapview.py "$LOGS/faulttrace.log" "$LOGS/faulttrace.svg" >"$LOGS/mapview.out" 2>&1; then
	nv=$(grep -o 'vma [0-9a-f]*-[0-9a-f]* [a-z-]* ->' "$LOGS/faulttrace.log" | sort -u | wc -l)
	nf=$(grep -c '^faulttrace:' "$LOGS/faulttrace.log")
	gv=$(grep -c 'class="vma"' "$LOGS/faulttrace.svg")
	gf=$(grep -c 'class="fault' "$LOGS/faulttrace.svg")
	gw=$(grep -c 'class="fault WRITE"' "$LOGS/faulttrace.svg")
	if [ "$gf" -eq "$nf" ] && [ "$gv" -ge 3 ] && [ "$gw" -ge 1 ] && grep -q '>file 401000<' "$LOGS/faulttrace.svg"; then
		ok "mapview: an SVG of the trace: $gv VMA bands ($nv distinct ranges), $gf fault marks, COW marks"
	else
		notok "mapview: SVG has $gv bands, $gf marks ($gw COW) for $nf faults" "$LOGS/mapview.out"
	fi
else
	notok "mapview: failed on the faulttrace log" "$LOGS/mapview.out"
fi

# Someone else's programs: `make run INITRD_EXTRA=dir CMDLINE='runlist=/list'` puts dir into
# the ramdisk and the list on GRUB's command line. Build that ISO aside, boot it, put ours back.
extra_test() {
	dir="$LOGS/extra" iso="$LOGS/extra.iso"
	rm -rf "$dir" && mkdir -p "$dir/opt"
	cp build/user/args "$dir/opt/their-args"
	printf '/opt/their-args one two three\n\n# a comment\n/bin/hello\n' >"$dir/list"
	cp "$ISO" "$LOGS/ours.iso"
	if make -s iso INITRD_EXTRA="$dir" CMDLINE='runlist=/list' >"$LOGS/extra.make" 2>&1; then
		cp "$ISO" "$iso"
	fi
	cp "$LOGS/ours.iso" "$ISO"
	touch "$ISO"
	saved=$ISO ISO=$iso
	boot extra 128M "test=extra" # the runlist comes from grub.cfg; fw_cfg needs some string
	ISO=$saved
	expect extra 33 'run: /opt/their-args one two three: exit 0' 'run: /bin/hello: exit 0' 'run: done'
}
extra_test

# ---- 3. gdb: `make debug` + the repo's gdb script stops at kmain
sh tests/gdb/run-gdb-test.sh "$ISO" "$ELF" "$LOGS" >"$LOGS/gdb.out" 2>&1
if grep -q 'GDB-TEST: stopped in kmain' "$LOGS/gdb.out"; then
	ok "gdb: hbreak kmain across the 32-to-64-bit switch, backtrace and registers"
else
	notok "gdb: did not stop in kmain" "$LOGS/gdb.out"
fi
# gdb on page faults (tests/gdb/run-fault-gdb-test.sh, docs/gdb.md): its "ok - " lines become tests
sh tests/gdb/run-fault-gdb-test.sh "$ISO" "$ELF" "$LOGS" >"$LOGS/gdb-fault.log" 2>&1
relay "$LOGS/gdb-fault.log" "" "gdb fault"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
