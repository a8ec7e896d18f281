#!/bin/sh
# The test of one lab of docs/exercises.md against an ISO, the one place where a lab's pass or
# fail is decided: make exercise, make grade and make test all call it.
# usage: tests/exercise.sh NAME
#   (zero_page, cow_reuse, fault_lock, nopage_compat, tlb_shootdown, uf_pager, clock,
#   block_to_path)
# Prints "NAME: solved: ..." (exit 0) or "NAME: not solved yet: ..." and the first failed
# checks in full (exit 1); exit 2 when the test cannot run at all (no ISO, no such lab).
# ISO=FILE: the ISO to boot (default build/faultline.iso). LAB_QUICK=1: shorter runs of the
# two long tests, file-race and smp-tlb (make test's check of the labs; docs/exercises.md).
ISO=${ISO:-build/faultline.iso}
LOGS=${LOGS:-build/test-logs}
mkdir -p "$LOGS"

# boot KARGS [QEMU.SH OPTIONS]: one QEMU run as the boot tests do, the serial log in $log (CRs
# dropped), QEMU's exit status in $qrc
boot() {
	kargs=$1
	shift
	sh "$(dirname "$0")/lib/qemu.sh" --iso "$ISO" --mem 256M --kargs "$kargs" "$@" \
		--serial "$log.raw" --timeout 120 </dev/null >"$LOGS/exercise-$name.qemu" 2>&1
	qrc=$?
	tr -d '\r' <"$log.raw" >"$log"
	# GRUB loads the ramdisk before any of the kernel runs: without it no lab can be judged
	if grep -q '^initramfs: no ramdisk module' "$log"; then
		echo "$0: $name: the boot had no ramdisk (GRUB did not load it: too little" \
			"memory?); see $log"
		exit 2
	fi
}

solved() {
	echo "$name: solved: $*"
	exit 0
}

# unsolved WHY: the verdict line; the details follow on the lines printed after it
unsolved() { echo "$name: not solved yet: $*"; }

# run_result LINE: what the runner said of the program of runlist line LINE ("exit 0",
# "killed by SIGSEGV", "cannot run: ..."), empty if it said nothing
run_result() {
	grep -F "run: $1: " "$log" | head -n 1 | sed "s|^run: $1: ||"
}

# first_failures PROG: PROG's first three failed checks in full (each FAIL line of utest.h
# with the indented lines that follow it), indented
first_failures() {
	awk -v p="$1: " '
		index($0, p "FAIL ") == 1 { n++; on = n <= 3; if (on) print "    " $0; next }
		index($0, p "  ") == 1 { if (on) print "    " $0; next }
		{ on = 0 }' "$log"
}

# failed PROG LINE [SAYS]: the lab is not solved because PROG, run as runlist line LINE, did
# not pass: how it ended, the first three of its lines matching the grep -E pattern SAYS (what
# it says of the fault it saw), its first failed checks (else its last lines, or the boot's);
# exits 1
failed() {
	prog=$1 res=$(run_result "$2")
	n=$(sed -n "s/^$prog: \([0-9]* of [0-9]*\) checks FAILED$/\1/p" "$log" | head -n 1)
	if [ -n "$n" ]; then
		unsolved "$prog failed $n checks; the first:"
		[ -n "${3:-}" ] && grep -E "^$prog: .*($3)" "$log" | head -n 3 | sed 's/^/    /'
		first_failures "$prog"
	elif [ -n "$res" ]; then
		unsolved "$prog: $res"
		grep -E "^($prog: |segfault: pid [0-9]+ \($prog\))" "$log" | tail -n 8 |
			sed 's/^/    /'
	else
		if [ "$qrc" = 124 ]; then
			unsolved "$prog did not finish: the boot timed out after 120 s"
		elif [ "$qrc" = 37 ]; then # isa-debug-exit's code for a panic
			unsolved "$prog did not finish: the kernel panicked"
		else
			unsolved "$prog did not finish (no line 'run: $2: ...')"
		fi
		tail -n 12 "$log" | sed 's/^/    /'
	fi
	not_solved_end
}

# not_solved_end: where the whole story is; exits 1
not_solved_end() {
	echo "    (the whole boot: $log)"
	exit 1
}

# passes PROG LINE [SAYS]: PROG, run as runlist line LINE, exited 0, or the lab is not solved
passes() {
	[ "$(run_result "$2")" = "exit 0" ] || failed "$@"
}

# checks PROG: "N checks" from PROG's ok line
checks() {
	sed -n "s/^$1: ok (\([0-9]*\) checks)$/\1 checks/p" "$log" | head -n 1
}

name=$1
log="$LOGS/exercise-$name.log"
[ -r "$ISO" ] || { echo "$0: no $ISO (make iso first)"; exit 2; }
case $name in
zero_page) # user/vm-zero: two untouched pages read as one read-only frame, the zero page
	boot "qemu_exit init=/bin/vm-zero"
	passes vm-zero /bin/vm-zero
	solved "vm-zero passed its $(checks vm-zero)" ;;
cow_reuse) # user/vm-cow: once the children are gone the parent's writes reuse its frames
	boot "qemu_exit init=/bin/vm-cow"
	passes vm-cow /bin/vm-cow
	solved "vm-cow passed its $(checks vm-cow)" ;;
fault_lock) # tests/boot/legacy.sh's race-fault boot: fault() must hold the page locked
	k=300
	[ "${LAB_QUICK:-}" = 1 ] && k=50
	boot "qemu_exit disk_latency_us=1000 race_window_us=10000 init=/bin/file-race,$k"
	passes file-race "/bin/file-race $k" 'STALE|FL_CHECK right then'
	# file-race checks the orphans itself; its FL_CHECK line must say so too
	if ! grep -Eq '^file-race: FL_CHECK x[0-9]+: max 0 orphans' "$log"; then
		unsolved "file-race found PTEs to pages no longer in the file:"
		grep '^file-race: FL_CHECK x' "$log" | sed 's/^/    /'
		not_solved_end
	fi
	solved "$(sed -n 's/^file-race: \([0-9]* iterations, .* stale reads\).*/\1/p' "$log"), 0" \
		"orphan PTEs" ;;
nopage_compat) # tests/boot/legacy.sh's legacy-nopage boot: the file tests through nopage()
	boot "legacy_nopage runlist=/etc/nopage.list"
	progs=""
	for p in hello forkwait exec file-mmap file-sigbus file-major file-ops; do
		passes "$p" "/bin/$p"
		progs="$progs $p"
	done
	grep -q '^run: done' "$log" || failed runlist "(the end of /etc/nopage.list)"
	solved "$(echo "$progs" | sed 's/^ //; s/ /, /g') ran through filemap_nopage" ;;
tlb_shootdown) # user/smp-tlb on 2 CPUs: no access through a translation munmap removed
	if [ "${LAB_QUICK:-}" = 1 ]; then
		boot "qemu_exit init=/bin/smp-tlb,50" --smp 2
		passes smp-tlb "/bin/smp-tlb 50" 'round [0-9]+: '
	else
		boot "qemu_exit init=/bin/smp-tlb" --smp 2
		passes smp-tlb /bin/smp-tlb 'round [0-9]+: '
	fi
	# on one CPU nothing could go stale: both CPUs must have come up
	if ! grep -q '^smp: 2 CPUs online' "$log"; then
		unsolved "smp-tlb ran, but not on 2 CPUs: $(grep '^smp: .* online' "$log")"
		not_solved_end
	fi
	solved "smp-tlb saw no stale access ($(sed -n \
		's/^smp-tlb: \(munmap [0-9]* rounds, .*\) ([0-9.]* s)$/\1/p' "$log"))" ;;
uf_pager) # user/uf-pager: the SIGSEGV handler pages the PROT_NONE region in from a file
	boot "qemu_exit init=/bin/uf-pager"
	passes uf-pager /bin/uf-pager
	solved "uf-pager passed its $(checks uf-pager)" ;;
clock) # user/replay's hot set under reclaim=clock in tests/boot/reclaim-lab.sh's machine: the
	# second chance keeps it clearly better than FIFO's 2304 faults (at most 3/4 of them;
	# docs/reclaim-lab.md has the spread of the real code's counts)
	img="$LOGS/exercise-clock.img"
	mkswap=${MKSWAP:-/sbin/mkswap}
	rm -f "$img" && truncate -s 64M "$img" && "$mkswap" "$img" >/dev/null 2>&1 ||
		{ echo "$0: clock: mkswap of a swap image failed"; exit 2; }
	boot "qemu_exit reclaim=clock runlist=/etc/reclaim-hot.list" --mem 24M --disk "$img"
	rm -f "$img"
	for p in '^reclaim: policy clock' '^Adding .* swap on /dev/sda'; do
		grep -Eq -- "$p" "$log" && continue
		unsolved "the machine was not as the lab needs it (no line '$p')"
		tail -n 12 "$log" | sed 's/^/    /'
		not_solved_end
	done
	passes replay "timeout=120 /bin/replay hot"
	hot=$(sed -n 's/^replay: hot frames=.* hot_majflt=\([0-9]*\).*/\1/p' "$log")
	if [ "${hot:-2304}" -gt 1728 ]; then
		unsolved "the hot set faulted ${hot:-?} times (FIFO: 2304; at most 1728 with a" \
			"second chance)"
		grep -E '^replay: (hot|memory)' "$log" | sed 's/^/    /'
		not_solved_end
	fi
	solved "the hot set faulted $hot times (FIFO: 2304; at most 1728)" ;;
block_to_path) # tests/boot/ext2-map.py's disk: a sparse file in 1 and 4 KiB blocks whose stamped
	# blocks lie on both sides of every boundary of the block map, read, and FIBMAP asked where
	# they and some holes lie, held to the stamps and debugfs
	work="$LOGS/exercise-block_to_path.d"
	rm -rf "$work"
	python3 "$(dirname "$0")/boot/ext2-map.py" make "$work" "$work/disk.img" ||
		{ echo "$0: block_to_path: tests/boot/ext2-map.py make failed"; exit 2; }
	boot "runlist=/etc/ext2-map.list noswap" --disk "$work/disk.img"
	run="timeout=60 /bin/sh /etc/ext2-map.sh"
	[ -n "$(run_result "$run")" ] || failed ext2-map "$run"
	if ! python3 "$(dirname "$0")/boot/ext2-map.py" check "$work" "$log" >"$work/check.out"
	then
		unsolved "$(head -n 1 "$work/check.out")"
		tail -n +2 "$work/check.out"
		not_solved_end
	fi
	solved "ext2-map passed its $(cat "$work/check.out")" ;;
*)
	labs="zero_page|cow_reuse|fault_lock|nopage_compat|tlb_shootdown|uf_pager|clock"
	echo "usage: $0 $labs|block_to_path"
	exit 2 ;;
esac
