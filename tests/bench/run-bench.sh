#!/bin/sh
# The QEMU half of `make bench` (docs/bench.md): boot the ISO under QEMU TCG with
# -icount shift=0,sleep=off, where the guest TSC counts guest instructions, run /bin/fbench as
# the one program (init=/bin/fbench, qemu_exit), and print its table next to the Linux
# reference (tests/bench/linux/baseline-*.txt: Debian's Linux 6.1 measured the same way in the
# same QEMU) with the ratio faultline/Linux per kind.
# Then /bin/fsmpbench (user/bench/fbench_smp.c) with -smp 1, 2 and 4: faults from 1, 2, 4 threads
# on their own CPUs and a munmap that shoots down 0-3 other CPUs, next to Linux's
# (tests/bench/linux/smp-*.txt), saved as $BENCH_LOGS/bench-smp-table.txt.
# Not a test: it fails only when a boot does not finish. Its first table is identical from run
# to run (no wall times, no dates), the two boot figures after it are not (see there), the SMP
# means can move by ~0.5 (where QEMU's time slices end); the first table alone is saved as
# $BENCH_LOGS/bench-table.txt, for diffing two runs or two kernels.
#
# usage: sh tests/bench/run-bench.sh        (from anywhere; `make bench` builds the ISO first)
# env:   ISO=build/faultline.iso  QEMU=qemu-system-x86_64  BENCH_LOGS=build/bench
#        BENCH_PAGES=N            fbench's pages per kind (default 4096, as Linux's run)
#        BENCH_LINUX=1            measure Linux anew (tests/bench/linux-baseline.sh, written to
#                                 $BENCH_LOGS/linux-baseline.txt) and compare with that run
#        BENCH_TIMEOUT=600        seconds for the boot
#        BENCH_LINUX_FILE=FILE    another stored reference (default: the last, in version
#                                 order, of tests/bench/linux/baseline-*.txt)
#        BENCH_SMP="1 2 4"        the CPU counts of the SMP boots; empty: no SMP boot
#        BENCH_LINUX_SMP_FILE=FILE  another SMP reference (default: the last smp-*.txt)
#        BENCH_SWAP=0             no swap boot (swapbench, section 4)
#        BENCH_SWAP_PAGES=49152   its region, in pages (2 x the 96 MiB of RAM)
#        BENCH_SWAP_TIMEOUT=900   seconds for the swap boot
#        BENCH_LINUX_SWAP_FILE=FILE  another swap reference (default: the last swap-*.txt)
#        BENCH_DISK=0             no ext2 boot (extbench, section 4b)
#        BENCH_LINUX_EXT2_FILE=FILE  another ext2 reference (default: the last ext2-*.txt)
#        BENCH_TLB=0              no ktest=bench boot (the kernel's TLB figures, section 5;
#                                 alone: sh tests/bench/tlb-bench.sh)
#
# Boot cost: the kernel prints "boot: tsc N at the kernel entry, M entering ring 3: C cycles"
# (rdtsc as the first instructions of boot/boot.S's 32-bit entry, and just before the first
# return to ring 3). Under icount C is the kernel's own boot, firmware and GRUB excluded; it
# moves by a few hundred instructions from run to run (where the timer's phase falls).
# boot_to_main_tsc (fbench's absolute TSC at main) also counts SeaBIOS, GRUB and musl start-up.
set -u
cd "$(dirname "$0")/../.." || exit 1
ISO=${ISO:-build/faultline.iso}
QEMU=${QEMU:-qemu-system-x86_64}
LOGS=${BENCH_LOGS:-build/bench}
TIMEOUT=${BENCH_TIMEOUT:-600}
INIT=/bin/fbench
[ -n "${BENCH_PAGES:-}" ] && INIT="$INIT,$BENCH_PAGES"

mkdir -p "$LOGS" || exit 1
if [ ! -r "$ISO" ]; then
	echo "run-bench: $ISO is missing: run 'make bench' (or 'make iso') first" >&2
	exit 1
fi
# boot a copy: make test swaps build/faultline.iso for a moment (extra_test), and QEMU reads
# the CD lazily
cp "$ISO" "$LOGS/faultline.iso" || exit 1

# ---------------------------------------------------------------- 1. faultline under icount
# The Linux reference's mode "icount": same machine, CPU, memory, icount and clock settings.
# bench_qemu OPTION...: that machine (tests/lib/qemu.sh: pc, qemu64, one instruction per ns,
# the RTC fixed) booting the ISO's copy with OPTION... added; QEMU's own output in qemu.log
bench_qemu() {
	QEMU=$QEMU sh tests/lib/qemu.sh --iso "$LOGS/faultline.iso" --icount "$@" </dev/null \
		>"$LOGS/qemu.log" 2>&1
}
# boot_fbench N CMDLINE NAME: boot with -smp N, the serial log in $LOGS/NAME.log; fails (with
# the log's last lines) unless fbench ran to its end.
boot_fbench() {
	bench_qemu --timeout "$TIMEOUT" --mem 512 --smp "$1" --serial "$LOGS/$3.serial" \
		--kargs "$2"
	rc=$?
	tr -d '\r' <"$LOGS/$3.serial" >"$LOGS/$3.log"
	if [ "$rc" != 33 ] || ! grep -q '^fbench: done' "$LOGS/$3.log" ||
		! grep -q "^run: /bin/f[a-z]*bench.*: exit 0" "$LOGS/$3.log"; then
		[ "$rc" = 124 ] && echo "run-bench: the boot timed out after ${TIMEOUT}s" >&2
		echo "run-bench: the fbench boot (-smp $1) did not finish (QEMU exit $rc; 33" \
			"expected); last lines of $LOGS/$3.log:" >&2
		tail -n 25 "$LOGS/$3.log" | sed 's/^/  | /' >&2
		sed 's/^/  qemu: /' "$LOGS/qemu.log" >&2
		return 1
	fi
}
CMDLINE="qemu_exit init=$INIT"
boot_fbench 1 "$CMDLINE" fbench || exit 1
# fbench's rows: from its header line to "fbench: done"; kernel lines in between (e.g. an
# unknown system call) start with a word and a colon and are left out
awk '/^kind +per_fault_mean/ { on = 1; next } /^fbench: done/ { on = 0 }
	on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' "$LOGS/fbench.log" >"$LOGS/faultline.table"

# ---------------------------------------------------------------- 2. the Linux reference
LINUX_TABLE=$LOGS/linux.table
: >"$LINUX_TABLE"
if [ "${BENCH_LINUX:-0}" = 1 ]; then
	BASELINE=$LOGS/linux-baseline.txt
	rm -f "$BASELINE"
	if ! BENCH_TIMEOUT=$TIMEOUT sh tests/bench/linux-baseline.sh "$BASELINE"; then
		LINUX_SRC="none: the Linux run failed (tests/bench/linux-baseline.sh, above)"
		BASELINE=
	fi
else
	BASELINE=${BENCH_LINUX_FILE:-$(ls -1 tests/bench/linux/baseline-*.txt 2>/dev/null |
		sort -V | tail -n 1)}
	[ -n "$BASELINE" ] || LINUX_SRC="none: no tests/bench/linux/baseline-*.txt"
fi
if [ -n "$BASELINE" ]; then
	# the table of the section "=== mode icount, ..." (not icount-plain or noicount)
	awk '/^=== mode / { sec = ($3 == "icount,") } sec && /^kind / { on = 1; next }
		on && NF == 0 { on = 0 } on' "$BASELINE" >"$LINUX_TABLE"
	LINUX_SRC=$BASELINE
	LINUX_KERNEL=$(sed -n 's/^=== mode icount, .*kernel \([^,]*\),.*/\1/p' "$BASELINE" |
		head -n 1)
	[ -s "$LINUX_TABLE" ] || LINUX_SRC="none: $BASELINE has no '=== mode icount' table"
fi

# ---------------------------------------------------------------- 3. side by side
echo "faultline page-fault benchmark: cost of one fault in guest instructions"
echo "  QEMU: $("$QEMU" --version | head -n 1)"
echo "        $(sh tests/lib/qemu.sh --dry-run --icount --mem 512 --serial none |
	sed 's/^[^ ]* //; s/ -serial none//; s/ -boot d -cdrom [^ ]*//')"
echo "  faultline: $CMDLINE, serial log $LOGS/fbench.log"
grep '^fbench: page-fault cost' "$LOGS/fbench.log" | sed 's/^fbench: /  fbench: /'
if [ -s "$LINUX_TABLE" ]; then
	echo "  Linux: ${LINUX_KERNEL:-?}, mode icount, from $LINUX_SRC"
else
	echo "  Linux reference: $LINUX_SRC; faultline's figures alone"
fi
echo "  mean = (sum of per-page deltas - pages x baseline) / faults;" \
	"median = per-page median - baseline"
echo "  ratio = faultline / Linux (above 1: faultline spends more instructions)"
echo
awk -v have_linux="$([ -s "$LINUX_TABLE" ] && echo 1 || echo 0)" '
# Linux table: kind cycles_per_fault per_page median_page faults det runs [(vmas=N)]
FILENAME == ARGV[1] && $1 == "kind" { next } # the table file of a fresh run has a header
FILENAME == ARGV[1] { lk[++nl] = $1; lmean[$1] = $2; lpp[$1] = $3; lmed[$1] = $4; lfl[$1] = $5
  next }
# faultline table: kind mean median faults pages [note]  or  kind n/a n/a (reason)
{ k = $1; order[++nf] = k; seen[k] = 1
  if ($2 == "n/a") { na[k] = 1; r = $0; sub(/^[^(]*\(/, "", r); sub(/\)[ ]*$/, "", r); note[k] = r }
  else { fmean[k] = $2; fmed[k] = $3; ffl[k] = $4; r = $0
    for (j = 1; j <= 5; j++) sub(/^[ ]*[^ ]+/, "", r)
    sub(/^[ ]+/, "", r); note[k] = r } }
function ratio(a, b) { return (b + 0 > 0 && a != "n/a") ? sprintf("%.2f", a / b) : "-" }
END {
  row = "%-31s %10s %10s %6s %8s %8s %6s %7s  %s\n"
  if (have_linux) {
    printf row, "kind", "fl_mean", "linux_mean", "ratio", "fl_med", "linux_med", "ratio", "faults",
      "note"
    for (i = 1; i <= nf; i++) {
      k = order[i]
      # a baseline has no faults: compare the raw loop cost (Linux: per_page, median_page)
      lm = (k in lmean) ? ((k ~ /^baseline_/) ? lpp[k] : lmean[k]) : "-"
      ld = (k in lmed) ? lmed[k] : "-"
      if (na[k])
        printf row, k, "n/a", lm, "-", "n/a", ld, "-", "-", "(" note[k] ")"
      else if (lm == "-")
        printf row, k, fmean[k], "-", "-", fmed[k], "-", "-", ffl[k],
          (note[k] != "" ? note[k] "; " : "") "Linux has no such kind"
      else
        printf row, k, fmean[k], lm, ratio(fmean[k], lm), fmed[k], ld, ratio(fmed[k], ld),
          ffl[k], note[k]
    }
    n = 0
    for (i = 1; i <= nl; i++) if (!(lk[i] in seen)) n++
    if (n) {
      printf "\nLinux only (faultline has no such kind;"
      printf "\nwithout nofa: Linux fault-around maps 16 pages per fault;"
      printf " thp: 4 KiB faults at -m 512):\n"
      printf row, "kind", "", "linux_mean", "", "", "linux_med", "", "faults", ""
      for (i = 1; i <= nl; i++) if (!(lk[i] in seen))
        printf row, lk[i], "", lmean[lk[i]], "", "", lmed[lk[i]], "", lfl[lk[i]], ""
    }
  } else {
    printf "%-31s %10s %8s %7s  %s\n", "kind", "fl_mean", "fl_med", "faults", "note"
    for (i = 1; i <= nf; i++) {
      k = order[i]
      if (na[k]) printf "%-31s %10s %8s %7s  (%s)\n", k, "n/a", "n/a", "-", note[k]
      else printf "%-31s %10s %8s %7s  %s\n", k, fmean[k], fmed[k], ffl[k], note[k]
    }
  }
}' "$LINUX_TABLE" "$LOGS/faultline.table" | sed 's/ *$//' | tee "$LOGS/bench-table.txt"
echo
# The figures that are not the same every run: SeaBIOS and GRUB wait for CD-ROM reads, and
# when a read completes, in guest instructions, depends on the host. Everything after GRUB
# hands over runs from RAM; the fault table above (saved as bench-table.txt) is exact, the
# kernel's boot nearly so (the timer's phase at the kernel entry follows the CD-ROM waits).
BOOT_NOTE="guest instructions from the multiboot2 entry to the first ring-3 instruction"
MAIN_NOTE="absolute TSC at fbench main(): guest instructions since QEMU start, incl. SeaBIOS,\
 GRUB, kernel boot, exec, musl start-up; varies by up to ~1% run to run: the CD-ROM reads of\
 SeaBIOS and GRUB"
sed -n "s/^boot: tsc [0-9]* at the kernel entry, [0-9]* entering ring 3: \([0-9]*\) cycles.*/\
kernel_boot_insns \1  ($BOOT_NOTE)/p" "$LOGS/fbench.log"
sed -n "s/^boot_to_main_tsc \([0-9]*\).*/boot_to_main_tsc \1  ($MAIN_NOTE)/p" "$LOGS/fbench.log"

# join_ops LINUX FAULTLINE: swapbench's or extbench's table per operation, both kernels side
# by side
join_ops() {
	awk '
	# op insns_per_op ops ios_per_op sect_per_op what...   or   op n/a - - - (why)
	FILENAME == ARGV[1] { li[$1] = $2; lo[$1] = $3; lio[$1] = $4; ls[$1] = $5
		order[++n] = $1; next }
	{ fi[$1] = $2; fo[$1] = $3; fio[$1] = $4; fs[$1] = $5; if (!($1 in li)) order[++n] = $1 }
	function v(a, k) { return (k in a && a[k] != "-") ? a[k] : "n/a" }
	function ratio(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	END {
		row = "%-26s %10s %11s %6s %7s %8s %8s %9s %7s %7s\n"
		printf row, "op", "fl_insns", "linux_insns", "ratio", "fl_ios", "linux_ios",
			"fl_ops", "linux_ops", "fl_sect", "linux_sect"
		for (i = 1; i <= n; i++) { k = order[i]
			printf row, k, v(fi, k), v(li, k), ratio(v(fi, k), v(li, k)), v(fio, k),
				v(lio, k), v(fo, k), v(lo, k), v(fs, k), v(ls, k) }
	}' "$1" "$2"
}
# join_passes A NAME_A B NAME_B LINUX FAULTLINE: their table per pass side by side, columns A
# and B (named NAME_A, NAME_B) of each compared too
join_passes() {
	awk -v a="$1" -v an="$2" -v b="$3" -v bn="$4" '
	# kind mean median ... [note] (or kind n/a n/a (why)): columns a and b are compared too
	FILENAME == ARGV[1] { lm[$1] = $2; ld[$1] = $3; lout[$1] = $a; lin[$1] = $b
		order[++n] = $1; next }
	{ fm[$1] = $2; fd[$1] = $3; fout[$1] = ($2 == "n/a") ? "n/a" : $a
	  fin[$1] = ($2 == "n/a") ? "n/a" : $b; if (!($1 in lm)) order[++n] = $1 }
	function v(a, k) { return (k in a && a[k] != "") ? a[k] : "n/a" }
	function ratio(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	END {
		row = "%-26s %9s %10s %6s %7s %8s %6s %7s %8s %7s %8s\n"
		printf row, "kind", "fl_mean", "linux_mean", "ratio", "fl_med", "linux_med",
			"ratio", "fl_" an, "linux_" an, "fl_" bn, "linux_" bn
		for (i = 1; i <= n; i++) { k = order[i]
			printf row, k, v(fm, k), v(lm, k), ratio(v(fm, k), v(lm, k)), v(fd, k),
				v(ld, k), ratio(v(fd, k), v(ld, k)), v(fout, k), v(lout, k),
				v(fin, k), v(lin, k) }
	}' "$5" "$6"
}

# ---------------------------------------------------------------- 4. swap
# /bin/swapbench (user/bench/swapbench.c) in a boot of its own: 96 MiB of RAM, a fresh 512 MiB
# swap area (mkswap) as the first IDE disk, which faultline swaps on at boot; it writes and
# reads back a region of twice the RAM and prints guest instructions and disk operations per
# page swapped out and in, next to Linux's (tests/bench/linux/swap-*.txt, tests/bench/
# linux-swap.sh), saved as $BENCH_LOGS/bench-swap-table.txt (docs/bench.md, "Swap").
# BENCH_SWAP=0 leaves it out. A kernel that cannot swap out has its worker killed when memory
# runs out: that is reported, as is a boot that does not finish; neither fails the bench.
swap_bench() {
	mem=96 pages=${BENCH_SWAP_PAGES:-49152} disk=$LOGS/swap-disk.img
	stimeout=${BENCH_SWAP_TIMEOUT:-900}
	rm -f "$disk" && truncate -s 512M "$disk" && "${MKSWAP:-/sbin/mkswap}" -L bench-swap \
		-U 5a4b7ca1-0000-4000-8000-000000000002 "$disk" >/dev/null 2>&1 || {
		echo "run-bench: swap: no swap area (mkswap ${MKSWAP:-/sbin/mkswap} failed):" \
			"the swap boot is left out" >&2
		return 0; }
	bench_qemu --timeout "$stimeout" --mem "$mem" --serial "$LOGS/swapbench.serial" \
		--kargs "qemu_exit init=/bin/swapbench,$pages" --disk "$disk"
	rc=$?
	rm -f "$disk"
	tr -d '\r' <"$LOGS/swapbench.serial" >"$LOGS/swapbench.log"
	# swapbench's two tables: per pass (header "kind"), per operation (header "op")
	awk '/^kind +per_page_mean/ { on = 1; next } /^op +insns_per_op/ { on = 0 }
		on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' "$LOGS/swapbench.log" \
		>"$LOGS/faultline-swap.table"
	awk '/^op +insns_per_op/ { on = 1; next } /^swapbench: / { on = 0 }
		on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' "$LOGS/swapbench.log" \
		>"$LOGS/faultline-swap.ops"
	if grep -q '^swapbench: the worker was killed' "$LOGS/swapbench.log"; then
		SWAP_STATUS="$(sed -n 's/^swapbench: \(the worker was killed.*\)/\1/p' \
			"$LOGS/swapbench.log" | head -n 1)"
		SWAP_STATUS="$SWAP_STATUS (expected while faultline cannot swap out)"
	elif [ "$rc" = 33 ] && grep -q '^swapbench: done' "$LOGS/swapbench.log" &&
		grep -q '^run: /bin/swapbench.*: exit 0' "$LOGS/swapbench.log"; then
		SWAP_STATUS="ran to its end, serial log $LOGS/swapbench.log"
	else
		SWAP_STATUS="did not finish (QEMU exit $rc$([ "$rc" = 124 ] &&
			echo ", timed out after ${stimeout}s"); serial log $LOGS/swapbench.log)"
		echo "run-bench: the swap boot $SWAP_STATUS; its last lines:" >&2
		tail -n 15 "$LOGS/swapbench.log" | sed 's/^/  | /' >&2
		sed 's/^/  qemu: /' "$LOGS/qemu.log" >&2
	fi

	# the Linux reference: a fresh run (BENCH_LINUX=1) or the last stored file
	LSWAP=
	if [ "${BENCH_LINUX:-0}" = 1 ]; then
		LSWAP=$LOGS/linux-swap.txt
		rm -f "$LSWAP"
		SWAP_PAGES=$pages sh tests/bench/linux-swap.sh "$LSWAP" || LSWAP=
	else
		LSWAP=${BENCH_LINUX_SWAP_FILE:-$(ls -1 tests/bench/linux/swap-*.txt 2>/dev/null |
			sort -V | tail -n 1)}
	fi
	: >"$LOGS/linux-swap.table"
	: >"$LOGS/linux-swap.ops"
	if [ -n "$LSWAP" ]; then
		awk '/^kind +per_page_mean/ { on = 1; next } /^op +insns_per_op/ { on = 0 }
			on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' "$LSWAP" >"$LOGS/linux-swap.table"
		awk '/^op +insns_per_op/ { on = 1; next } on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' \
			"$LSWAP" >"$LOGS/linux-swap.ops"
	fi

	echo
	echo "Swap: swapbench, -m $mem -smp 1, a 512 MiB swap area (mkswap) as the first IDE disk;"
	echo "  $pages pages written once, then read back twice, then once more with page-cluster 0"
	echo "  faultline: $SWAP_STATUS"
	echo "  Linux: ${LSWAP:-none (no tests/bench/linux/swap-*.txt)}"
	echo "  insns: guest instructions less the spinner's (I/O waits), per operation;" \
		"ios/sect: disk requests and sectors per operation"
	echo
	{
	join_ops "$LOGS/linux-swap.ops" "$LOGS/faultline-swap.ops"
	echo
	join_passes 6 out 7 in "$LOGS/linux-swap.table" "$LOGS/faultline-swap.table"
	} | sed 's/ *$//' | tee "$LOGS/bench-swap-table.txt"
}
[ "${BENCH_SWAP:-1}" = 0 ] || swap_bench

# ---------------------------------------------------------------- 4b. files on a disk
# /bin/extbench (user/bench/extbench.c) in a boot of its own, the fbench machine with the ext2
# disk of tests/bench/ext2-disk.sh (a 4 MiB file, a 16 MiB one) as the first IDE disk: a cold
# pass of read faults over a shared mapping of the file, and one of 4 KiB read()s, with the disk's
# read-ahead at 256 sectors and at 0, each on a fresh mount; then N pages of a shared mapping
# of a second file stored to and written back by msync(MS_SYNC), then by fsync; guest
# instructions (less the spinner's: disk waits), requests and major faults per page, next to
# Linux's (tests/bench/linux/ext2-*.txt, tests/bench/linux-ext2.sh), saved as
# $BENCH_LOGS/bench-ext2-table.txt (docs/bench.md, "Files on a disk"). BENCH_DISK=0 leaves it
# out; a boot that does not finish is reported and does not fail the bench.
ext2_bench() {
	disk=$LOGS/ext2-disk.img
	MKE2FS=${MKE2FS:-/sbin/mke2fs} sh tests/bench/ext2-disk.sh "$disk" || {
		echo "run-bench: ext2: no disk (tests/bench/ext2-disk.sh failed): the ext2 boot" \
			"is left out" >&2
		return 0; }
	bench_qemu --timeout "$TIMEOUT" --mem 512 --serial "$LOGS/extbench.serial" \
		--kargs "qemu_exit init=/bin/extbench" --disk "$disk"
	rc=$?
	rm -f "$disk"
	tr -d '\r' <"$LOGS/extbench.serial" >"$LOGS/extbench.log"
	if [ "$rc" = 33 ] && grep -q '^extbench: done' "$LOGS/extbench.log" &&
		grep -q '^run: /bin/extbench.*: exit 0' "$LOGS/extbench.log"; then
		EXT2_STATUS="ran to its end, serial log $LOGS/extbench.log"
	else
		EXT2_STATUS="did not finish (QEMU exit $rc; serial log $LOGS/extbench.log)"
		echo "run-bench: the ext2 boot $EXT2_STATUS; its last lines:" >&2
		tail -n 15 "$LOGS/extbench.log" | sed 's/^/  | /' >&2
	fi
	LEXT2=
	if [ "${BENCH_LINUX:-0}" = 1 ]; then
		LEXT2=$LOGS/linux-ext2.txt
		rm -f "$LEXT2"
		sh tests/bench/linux-ext2.sh "$LEXT2" || LEXT2=
	else
		LEXT2=${BENCH_LINUX_EXT2_FILE:-$(ls -1 tests/bench/linux/ext2-*.txt 2>/dev/null |
			sort -V | tail -n 1)}
	fi
	# extbench's two tables: per pass (header "kind"), per operation (header "op")
	for side in faultline linux; do
		f=$LOGS/extbench.log
		[ "$side" = linux ] && f=${LEXT2:-/dev/null}
		awk '/^kind +per_page_mean/ { on = 1; next } /^op +insns_per_op/ { on = 0 }
			on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' "$f" >"$LOGS/$side-ext2.table"
		awk '/^op +insns_per_op/ { on = 1; next } /^extbench: / { on = 0 }
			on && $1 ~ /^[a-z0-9_]+$/ && NF >= 3' "$f" >"$LOGS/$side-ext2.ops"
	done

	echo
	echo "Files on a disk: extbench, -m 512, an ext2 disk (tests/bench/ext2-disk.sh: a 4 MiB"
	echo "  file and a 16 MiB one, 4 KiB blocks) as the first IDE disk; each pass cold, on a"
	echo "  fresh mount: read faults over a MAP_SHARED mapping (mmap_*) or 4 KiB read()s"
	echo "  (read_*), the disk's read-ahead 256 sectors (_ra) or 0 (_nora); _cached: the same"
	echo "  file again, cached; writeback: N pages of the 16 MiB file mapped shared, read in,"
	echo "  stored to (mmap_store_N), msync(MS_SYNC) (msync_page_N), stored to, fsync"
	echo "  faultline: $EXT2_STATUS"
	echo "  Linux: ${LEXT2:-none (no tests/bench/linux/ext2-*.txt)}"
	echo "  insns: guest instructions less the spinner's (disk waits), per operation;"
	echo "  ios/sect: read requests and sectors per operation (msync_*, fsync_*: written)"
	echo
	{
	join_ops "$LOGS/linux-ext2.ops" "$LOGS/faultline-ext2.ops"
	echo
	join_passes 4 maj 7 ios "$LOGS/linux-ext2.table" "$LOGS/faultline-ext2.table"
	} | sed 's/ *$//' | tee "$LOGS/bench-ext2-table.txt"
}
[ "${BENCH_DISK:-1}" = 0 ] || ext2_bench

# ---------------------------------------------------------------- 5. the kernel's TLB figures
# tests/bench/tlb-bench.sh: the KTEST_BENCH self-tests (ktest=bench) on -smp 2, the same icount
# settings: a munmap's cost with 0 and 1 other CPUs to shoot down, and INVLPG against a CR3
# reload. BENCH_TLB=0 leaves it out.
if [ "${BENCH_TLB:-1}" != 0 ]; then
	echo
	ISO=$LOGS/faultline.iso BENCH_LOGS=$LOGS BENCH_TIMEOUT=$TIMEOUT \
		sh tests/bench/tlb-bench.sh || exit 1
fi

# ---------------------------------------------------------------- 6. several CPUs
# /bin/fsmpbench (user/bench/fbench_smp.c) in one boot per CPU count of BENCH_SMP (default
# "1 2 4"; empty: none), next to the Linux SMP reference (tests/bench/linux/smp-*.txt, one
# "=== mode icount-smpN" table per count). Fault rows: the aggregate cost of one fault, every
# CPU's instructions from the first thread's start to the last one's end, less the timed loop,
# over all threads' faults; munmap rows: one call, every CPU's instructions (docs/bench.md).
SMP_CPUS=${BENCH_SMP-1 2 4}
[ -n "$SMP_CPUS" ] || exit 0
SMP_INIT=/bin/fsmpbench
[ -n "${BENCH_PAGES:-}" ] && SMP_INIT="$SMP_INIT,,$BENCH_PAGES"
for n in $SMP_CPUS; do
	boot_fbench "$n" "qemu_exit init=$SMP_INIT" "fsmpbench$n" || exit 1
	awk '/^kind +per_fault_mean/ { on = 1; next } /^fbench: done/ { on = 0 }
		on && $1 ~ /^smp_[a-z0-9_]+$/ && NF >= 3' "$LOGS/fsmpbench$n.log" \
		>"$LOGS/faultline-smp$n.table"
done
LINUX_SMP=
if [ "${BENCH_LINUX:-0}" = 1 ]; then
	LINUX_SMP=$LOGS/linux-smp.txt
	rm -f "$LINUX_SMP"
	BENCH_SMP=$SMP_CPUS BENCH_TIMEOUT=$TIMEOUT sh tests/bench/linux-baseline.sh \
		"$LINUX_SMP" || LINUX_SMP=
else
	LINUX_SMP=${BENCH_LINUX_SMP_FILE:-$(ls -1 tests/bench/linux/smp-*.txt 2>/dev/null |
		sort -V | tail -n 1)}
fi
echo
echo "Several CPUs: fsmpbench, one boot per CPU count (-smp N, the same icount settings)"
PER_THREAD=$(sed -n 's/^fbench: SMP .*, \([0-9]*\) pages per thread.*/\1/p' \
	"$LOGS/fsmpbench${SMP_CPUS%% *}.log")
echo "  faults: N threads, thread i pinned to CPU i, each writes $PER_THREAD pages once"
echo "          (sepvma: a VMA each; onevma: one VMA, a disjoint range each), a pause after each"
echo "  mean = (TSC from the first thread's start to the last one's end, all CPUs' instructions,"
echo "          - pages x the loop's own cost) / faults of all threads: 1-CPU cost if it scales"
echo "  median = median of every thread's timed touches - one timed touch (the fault's own path)"
echo "  munmap: one page of a mapping that K other threads, on CPUs 1..K, read and spin over;"
echo "          per call, all CPUs' instructions (the shootdown IPIs and their handlers included)"
echo "  Linux: ${LINUX_SMP:-none (no tests/bench/linux/smp-*.txt)}"
echo
for n in $SMP_CPUS; do
	: >"$LOGS/linux-smp$n.table"
	[ -n "$LINUX_SMP" ] && awk -v m="icount-smp$n," '/^=== mode / { sec = ($3 == m) }
		sec && /^kind / { on = 1; next } on && NF == 0 { on = 0 } on' "$LINUX_SMP" \
		>"$LOGS/linux-smp$n.table"
done
for n in $SMP_CPUS; do
	awk -v cpus="$n" -v first="$([ "$n" = "${SMP_CPUS%% *}" ] && echo 1)" '
	# Linux table: kind cycles_per_fault per_page median_page count det runs [(note)]
	FILENAME == ARGV[1] { lmean[$1] = $2; lpp[$1] = $3; lmed[$1] = $4; next }
	function ratio(a, b) { return (b + 0 > 0) ? sprintf("%.2f", a / b) : "-" }
	BEGIN { row = "%4s %-29s %10s %10s %6s %8s %8s %6s %6s  %s\n"
		if (first) printf row, "cpus", "kind", "fl_mean", "linux_mean", "ratio", "fl_med",
			"linux_med", "ratio", "count", "note" }
	# faultline: kind mean median count pages note  or  kind n/a n/a (reason)
	$2 == "n/a" { if ($0 !~ /needs [0-9]+ CPUs/) printf row, cpus, $1, "n/a", "", "", "", "",
			"", "", substr($0, index($0, "(")); next }
	{ k = $1; note = $0; for (j = 1; j <= 5; j++) sub(/^[ ]*[^ ]+/, "", note)
	  sub(/^[ ]+/, "", note); sub(/^raw: .*/, "raw loop, see above", note)
	  lm = (k in lmean) ? ((k ~ /baseline_/) ? lpp[k] : lmean[k]) : "-"
	  ld = (k in lmed) ? lmed[k] : "-"
	  printf row, cpus, k, $2, lm, ratio($2, lm), $3, ld, ratio($3, ld), $4, note }' \
		"$LOGS/linux-smp$n.table" "$LOGS/faultline-smp$n.table"
done | sed 's/ *$//' | tee "$LOGS/bench-smp-table.txt"
