#!/bin/sh
# The test harness behind `make test`: host unit tests, the ring-3 programs natively, then QEMU
# boots of $ISO (default build/faultline.iso) by kind (tests/*/ scripts), the gdb sessions.
# Each part declares how many checks it prints ("1..N", tests/lib/boot.sh's plan) and prints
# "ok - X" / "not ok - X" lines; part() below holds it to its plan and its exit status, and
# tests/lib/tap.sh numbers the lines and prints the last one, "N passed, N failed, N skipped".
# usage: tests/run.sh HOST_TEST_BINARY... (docs/testing.md)
cd "$(dirname "$0")/.." || exit 1
LOGS=${LOGS:-build/test-logs}
ISO=${ISO:-build/faultline.iso} ELF=${ELF:-build/faultline.elf}
export ISO ELF LOGS
mkdir -p "$LOGS"

# A handout (make handout; docs/exercises.md, "For instructors: the handout") holds no answer:
# its kernel links the student's stubs. Its suite is the student's: the labs graded first (a
# skip for each lab not solved yet), then the parts that pass whatever the labs' code is, and
# the others once every lab they need is solved; never the instructor's checks of the labs and
# of the handout, nor the two parts that hold the kernel to the answers' own code.
HANDOUT=
[ -f HANDOUT ] && HANDOUT=1
GRADE=${GRADE:-build/grade}
LABS_ALL=$(find mm kernel user -path '*/exercises/*.c' | sed 's|.*/||; s|\.c$||' | sort)

# handout_skip NAME: why part NAME does not run in this handout (nothing: it runs)
handout_skip() {
	[ -n "$HANDOUT" ] || return 0
	# shellcheck disable=SC2086 # (LABS_ALL: one word a lab)
	case $1 in
	labs-native | handout) echo "the instructor's check of the labs" ;;
	figures | gdb-fault) echo "it holds the kernel to the answers' own code" ;;
	grade | host | native-swap | docs | includes | extra | basic | panic | power | shell | \
		tty | bad-input | fbdemo | faulttrace | swap | disk | gdb) ;;
	native) needs uf_pager ;;
	*) needs $LABS_ALL ;;
	esac
}

# needs LAB...: the labs of these that the grade part did not find solved, as handout_skip's why
needs() {
	n_left=""
	for n_lab in "$@"; do
		[ "$(cat "$GRADE/$n_lab.rc" 2>/dev/null)" = 0 ] || n_left="$n_left $n_lab"
	done
	[ -z "$n_left" ] ||
		echo "a handout: it runs once these labs are solved:$n_left (make grade)"
}

# part NAME CMD...: one part of the suite. Its TAP lines and comments are relayed; then it
# fails here if its plan is missing, doubled or after its first check, if it printed fewer or
# more checks than planned, or if it exited non-zero or was killed (a script that dies
# halfway cannot leave the suite green). Its time goes to $LOGS/times.txt.
: >"$LOGS/times.txt"
part() {
	p_name=$1
	shift
	p_skip=$(handout_skip "$p_name")
	if [ -n "$p_skip" ]; then
		echo "ok - part $p_name # SKIP $p_skip"
		return
	fi
	p_out="$LOGS/part-$p_name.out"
	p_t0=$(date +%s)
	"$@" >"$p_out" 2>&1
	p_rc=$?
	grep -E '^((not )?ok - |#)' "$p_out"
	p_why=$(awk '/^1\.\.[0-9]+$/ { plans++; if (!seen) planned = substr($0, 4) + 0; next }
		/^(not )?ok - / { seen = 1; got++ }
		END {
			if (plans != 1)
				printf "%d plan lines (1..N), expected one before its checks", plans
			else if (planned == "") printf "its plan comes after its first check"
			else if (got != planned)
				printf "planned %d checks, reported %d", planned, got
		}' "$p_out")
	if [ "$p_rc" -gt 128 ]; then
		p_why="${p_why:+$p_why; }killed by signal $((p_rc - 128))"
	elif [ "$p_rc" -ne 0 ]; then
		p_why="${p_why:+$p_why; }exited with status $p_rc"
	fi
	if [ -n "$p_why" ]; then
		echo "not ok - part $p_name: $p_why"
		tail -n 15 "$p_out" | sed 's/^/#   /'
	fi
	echo "# $(($(date +%s) - p_t0)) s: $p_name" | tee -a "$LOGS/times.txt"
}

# gdb_kmain: `make debug` + the repo's gdb script stops at kmain (one check)
gdb_kmain() {
	echo "1..1"
	sh tests/gdb/run-gdb-test.sh "$ISO" "$ELF" "$LOGS" >"$LOGS/gdb.out" 2>&1
	if grep -q 'GDB-TEST: stopped in kmain' "$LOGS/gdb.out"; then
		echo "ok - gdb: hbreak kmain across the 32-to-64-bit switch, backtrace and" \
			"registers"
	else
		echo "not ok - gdb: did not stop in kmain"
		tail -n 25 "$LOGS/gdb.out" | sed 's/^/#   /'
	fi
}

# The boots, in two lanes side by side: CI has two cores and most boots keep one busy. Each
# lane's parts run one after another; the second lane's lines are relayed once the first is
# done.
lane1() {
	# the ring-3 programs: their boots shared between the lanes (ring3-more in the other)
	part ring3 sh tests/ring3/run.sh ring3 ring3-8G ring3-smp4 ring3-swap ring3-swap-smp2
	part faulttrace sh tests/boot/faulttrace.sh
	part fbdemo sh tests/boot/fbdemo.sh
	part bad-input sh tests/boot/bad-input.sh
	part swap sh tests/boot/swap.sh
	part partitions sh tests/boot/partitions.sh
	part ext2-read sh tests/boot/ext2-read.sh
	# faultline writes empty ext2 file systems; the host's e2fsck and debugfs check them
	part ext2-write sh tests/boot/ext2-write.sh
	part oom sh tests/boot/oom.sh
	# what README.md and the motd say to type, typed into `make run`
	part readme sh tests/boot/readme.sh
	# The labs (docs/exercises.md): each one's test fails with its stub and passes with the
	# real code, in short runs (make grade CHECK_LABS=1 is the full-length check); a handout
	# grades them before everything else
	[ -n "$HANDOUT" ] || part grade sh tests/grade.sh --check --tap
	# make handout, make solutions and make grade-class, on a handout of this tree
	part handout sh tests/handout/check.sh
	# gdb on page faults (docs/gdb.md): the walkthroughs replayed, checked, compared
	part gdb-fault sh tests/gdb/run-fault-gdb-test.sh "$ISO" "$ELF" "$LOGS"
	# ext2's names made, moved and removed (hard links, symlinks, rename), checked on the host
	part ext2-names sh tests/boot/ext2-names.sh
	part swap-stress sh tests/boot/swap-stress.sh
	part legacy sh tests/boot/legacy.sh
	part swap-faults sh tests/boot/swap-faults.sh
}
lane2() {
	# the figures the build measures, as README.md and docs/bench.md give them (make docs)
	part figures sh tests/docs/figures.sh check
	part ktest sh tests/ktest/run.sh
	part basic sh tests/boot/basic.sh
	part panic sh tests/boot/panic.sh
	part smp sh tests/boot/smp.sh
	part ring3-more sh tests/ring3/run.sh ring3-32M ring3-uefi ring3-smp2
	# The framebuffer console: screendumps under BIOS, UEFI and after scrolling, checked pixel
	# by pixel against the serial log drawn with the kernel's own font file; then commands
	# typed with sendkey on tty1, their answer read off the screen (BIOS and UEFI).
	part screen sh tests/screen/run-screen-test.sh "$ISO" "$LOGS" build/font.psf
	part power sh tests/boot/power.sh
	part disk sh tests/boot/disk.sh
	# stores through a shared mapping of a partition reach the image: msync, the thread
	part writeback sh tests/boot/writeback.sh
	# a disk that fails a write (blkdebug, a loop device on a full ext2): EIO at fsync, msync
	part ext2-eio sh tests/boot/ext2-eio.sh
	# host-made ext2 images mounted read-only: every file's md5 as the host's, df
	part ext2 sh tests/boot/ext2.sh
	# ext2 written: files rewritten, extended and cut, e2fsck -fn and debugfs on the host
	part ext2-alloc sh tests/boot/ext2-alloc.sh
	# ext2-write.sh's lane1 run again on AHCI with two CPUs
	part ext2-write-q35 sh tests/boot/ext2-write.sh q35
	# and ext2-eio.sh's
	part ext2-eio-q35 sh tests/boot/ext2-eio.sh q35
	# fsx on ext2 in a 24 MiB machine with swap: reclaim writes the file back all the while
	part ext2-reclaim sh tests/boot/ext2-reclaim.sh
	part reclaim-lab sh tests/boot/reclaim-lab.sh
	# the lock checker's kernel (build/lockdebug/): its self-tests and a ring-3 list, 2 CPUs
	part lockdebug sh tests/boot/lockdebug.sh
	part shell sh tests/boot/shell.sh
	part mount sh tests/boot/mount.sh
	part tty sh tests/boot/tty.sh
	part gdb gdb_kmain
}

{
	# a handout's labs, graded first: which parts run depends on them
	[ -z "$HANDOUT" ] || part grade sh tests/grade.sh --handout
	part host sh tests/host/run.sh "$@"
	# The ring-3 programs natively on this Linux: every expectation in user/expect.txt is
	# checked against a real kernel before faultline is held to it.
	part native sh tests/run-native.sh build/user user/expect.txt
	# the programs that need swap: a host without it prints their skips
	part native-swap sh tests/run-native.sh build/user tests/ring3-swap.txt
	part labs-native sh tests/labs-native.sh
	part docs sh tests/docs/check.sh
	# what crosses between kernel/, mm/ and drivers/: no new circle, docs/layout.md's lists
	part includes python3 tests/docs/includes.py check
	# (alone: it rebuilds the ISO with someone else's programs, then puts ours back)
	part extra sh tests/boot/extra.sh
	lane2 >"$LOGS/lane2.out" 2>&1 &
	lane1
	wait
	cat "$LOGS/lane2.out"
} | sh tests/lib/tap.sh
