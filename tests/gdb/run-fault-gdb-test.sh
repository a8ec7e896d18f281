#!/bin/sh
# docs/gdb.md's walkthroughs, typed into gdb in the doc's order: for each walkthrough, a fresh
# boot as `make debug [SMP=N] KARGS='...'` makes it (what its gdb-session marker names) and a fresh
# gdb as `make gdb` starts it (tests/gdb/faultline.gdb: attach, hbreak kmain), then
# tests/gdb/replay.py types the doc's "(gdb) " commands one by one while
# tests/gdb/fault_sessions.py checks the kernel at each stop ("ok - " lines). Then
# tests/gdb/transcripts.py compares every transcript with the replay's output.
# Prints "ok - ..." / "not ok - ..." lines (tests/run.sh numbers them), and after a failure the
# end of that gdb log. usage: run-fault-gdb-test.sh ISO ELF LOGDIR
# GDB_DOCS_UPDATE=1 (make gdb-docs): rewrite docs/gdb.md's outputs from this replay instead.
ISO=${1:-build/faultline.iso} ELF=${2:-build/faultline.elf} LOGS=${3:-build/test-logs}
DOC=${GDB_DOC:-docs/gdb.md}
MEM=${GDB_TEST_MEM:-256M} # make debug's default (MEM in the Makefile)
# The swap area make debug gives the machine as /dev/sda (a DISK=swap.img walkthrough boots a
# copy of it), and its ext2 disk, /dev/sdb (DISK=disk.img: copies of both)
SWAP_IMG=${GDB_TEST_SWAP_IMG:-$(dirname "$ISO")/swap.img}
DISK_IMG=${GDB_TEST_DISK_IMG:-$(dirname "$ISO")/disk.img}
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$LOGS"
# A snapshot of the pair: a rebuild while the boots run must not mix kernels and symbols.
cp "$ISO" "$LOGS/gdb-fault.iso" && cp "$ELF" "$LOGS/gdb-fault.elf" || exit 1
ISO=$LOGS/gdb-fault.iso ELF=$LOGS/gdb-fault.elf

# boot NAME KARGS SMP MEM DISK: QEMU paused at reset with a gdb stub on $port, make debug's
# machine (tests/lib/qemu.sh). MEM "-": $MEM. DISK swap.img: a fresh copy of the swap area as
# the first IDE disk (make debug's /dev/sda), which the kernel swaps on at boot; disk.img: that
# and a fresh copy of the ext2 disk as the second (make debug's /dev/sdb); "-": no disk (nor
# when a copy fails: the walkthrough's checks then fail).
boot() {
	b_name=$1 b_kargs=$2 b_smp=$3 b_mem=$MEM b_disk=$5
	[ "$4" != - ] && b_mem=$4
	b_img="$LOGS/gdb-fault-$1.img" b_qlog="$LOGS/gdb-fault-$1.qemu"
	set -- # the options for the disks
	if [ "$b_disk" = swap.img ] || [ "$b_disk" = disk.img ]; then
		if cp "$SWAP_IMG" "$b_img"; then
			set -- --disk "$b_img"
		else
			echo "# gdb fault $b_name: no swap area $SWAP_IMG to copy"
		fi
	fi
	if [ "$b_disk" = disk.img ]; then
		if cp "$DISK_IMG" "$b_img.2"; then
			set -- "$@" --disk2 "$b_img.2"
		else
			echo "# gdb fault $b_name: no ext2 disk $DISK_IMG to copy"
		fi
	fi
	# a free port (tests/gdb/free_port.py); if another run takes it before QEMU binds it,
	# QEMU fails to start and one() tries again on another
	port=$(python3 tests/gdb/free_port.py)
	sh tests/lib/qemu.sh --iso "$ISO" --mem "$b_mem" --smp "$b_smp" --serial "$serial" \
		--kargs "$b_kargs" --gdb "$port" --timeout 120 "$@" </dev/null >"$b_qlog" 2>&1 &
	qpid=$!
}

# one NAME KARGS SMP MEM DISK: boot, replay the walkthrough's commands; its result lines, always
# checks(NAME) + 1 of them, whatever became of the session: its checks (one not reached is a
# "not ok"; one past checks(NAME) goes to a comment and fails the last line), then whether the
# session ran to its end. A replay whose checks found the machine off the walkthrough's path
# for a reason of timing, not of the kernel (FAULT-TEST-RETRY: on several CPUs, another task
# still running where the walkthrough needs an idle CPU), boots again, up to 3 times; the log
# keeps the reason.
one() {
	name=$1 kargs=$2 smp=$3 mem=$4 disk=$5
	serial="$LOGS/gdb-fault-$name.serial" out="$LOGS/gdb-fault-$name.out"
	cmds="$LOGS/gdb-fault-$name.cmds"
	python3 tests/gdb/transcripts.py commands "$DOC" "$name" >"$cmds"
	start=$(date +%s)
	: >"$out.retries"
	for run in 1 2 3; do
		for try in 1 2; do
			rm -f "$serial"
			boot "$name" "$kargs" "$smp" "$mem" "$disk"
			sleep 0.3
			kill -0 $qpid 2>/dev/null && break
			wait $qpid 2>/dev/null
		done
		# as `make gdb` (its -iex and script), in batch mode; gdb retries while QEMU starts
		GDBPORT=$port FAULT_TEST=$name FAULT_TEST_RUN=$run FAULT_TEST_SERIAL="$serial" \
			REPLAY_CMDS="$cmds" \
			timeout 150 gdb -q -nx -batch -iex 'set auto-load local-gdbinit off' \
			-x tests/gdb/faultline.gdb -x tests/gdb/replay.py -ex 'kill' "$ELF" \
			</dev/null >"$out" 2>&1
		grc=$?
		kill $qpid 2>/dev/null
		wait $qpid 2>/dev/null
		rm -f "$LOGS/gdb-fault-$name.img" "$LOGS/gdb-fault-$name.img.2"
		grep '^FAULT-TEST-RETRY' "$out" >>"$out.retries" || break
		cp "$out" "$out.$run"
	done
	sed "s/^FAULT-TEST-RETRY/# gdb fault $name: boot again:/" "$out.retries"
	want=$(checks "$name")
	tr -d '\r' <"$out" | grep -E '^(not )?ok - ' >"$out.tap"
	got=$(wc -l <"$out.tap")
	head -n "$want" "$out.tap"
	tail -n +"$((want + 1))" "$out.tap" | sed "s/^/# gdb fault $name: past its checks: /"
	i=$got
	while [ "$i" -lt "$want" ]; do
		i=$((i + 1))
		echo "not ok - gdb fault $name: check $i of $want not reached"
	done
	if ! grep -q "^FAULT-TEST-DONE $name" "$out"; then
		why="gdb exited $grc early"
		[ $grc = 124 ] && why="timed out after 150 s"
		echo "not ok - gdb fault $name: $why"
	elif [ "$got" != "$want" ]; then
		echo "not ok - gdb fault $name: $got checks, where checks() says $want"
	else
		echo "ok - gdb fault $name: the session ran to its end"
	fi
	echo "# gdb fault $name: $(($(date +%s) - start)) s, log $out" >&2
	if grep -q '^not ok' "$out" || ! grep -q "^FAULT-TEST-DONE $name" "$out"; then
		echo "$out" >>"$LOGS/gdb-fault.failed"
		echo "# --- end of $out"
		tail -n 40 "$out" | sed 's/^/# /'
	fi
}

# checks NAME: how many checks tests/gdb/fault_sessions.py makes in walkthrough NAME; with
# transcripts.py's, the plan (a walkthrough without an entry here fails it: give it one)
checks() {
	case $1 in
	maps) echo 20 ;;
	device) echo 10 ;;
	nonlinear) echo 10 ;;
	cow) echo 8 ;;
	swapin) echo 16 ;;
	sigpath) echo 28 ;;
	shootdown) echo 14 ;;
	ext2) echo 12 ;;
	*) echo 0 ;;
	esac
}

python3 tests/gdb/transcripts.py sessions "$DOC" >"$LOGS/gdb-fault.sessions" || exit 1
if [ "${GDB_DOCS_UPDATE:-}" != 1 ]; then
	n=$(python3 tests/gdb/transcripts.py plan "$DOC") || exit 1
	for s in $(cut -f 1 "$LOGS/gdb-fault.sessions"); do
		n=$((n + $(checks "$s") + 1))
	done
	echo "1..$n"
fi
rm -f "$LOGS/gdb-fault.failed"
while IFS="$(printf '\t')" read -r name kargs smp mem disk; do
	one "$name" "$kargs" "${smp:-1}" "${mem:--}" "${disk:--}" </dev/null
done <"$LOGS/gdb-fault.sessions"
if [ "${GDB_DOCS_UPDATE:-}" = 1 ]; then
	# A run whose own checks failed (a stop gdb did not expect) would write its accident
	# into the doc as the truth: refuse, and let the user run it again.
	bad=$(cat "$LOGS/gdb-fault.failed" 2>/dev/null)
	if [ -n "$bad" ]; then
		echo "gdb-docs: docs/gdb.md left as it was: a walkthrough check failed in" $bad >&2
		exit 1
	fi
	python3 tests/gdb/transcripts.py update "$DOC" "$LOGS"
else
	python3 tests/gdb/transcripts.py check "$DOC" "$LOGS"
fi
exit 0
