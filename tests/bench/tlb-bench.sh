#!/bin/sh
# The kernel's TLB figures (part of `make bench`, docs/smp.md): one boot with ktest=bench on
# -smp 2 under -icount shift=0,sleep=off, which runs the KTEST_BENCH self-tests of
# tests/ktest/tlb.c: tlb_munmap_cost (a munmap of one page shooting down 0 and 1 other CPUs)
# and tlb_flush_threshold (INVLPG of n pages against a CR3 reload). Prints their figures.
# Not a test: fails only when the boot does not finish, the 2 CPUs did not come up, or a
# benchmark's own checks failed (serial log $BENCH_LOGS/tlb-bench.log).
# usage: sh tests/bench/tlb-bench.sh   env: ISO=build/faultline.iso BENCH_LOGS=build/bench
#        BENCH_TIMEOUT=600 BENCH_TLB_CPUS=2 (4: the munmap row with 2 and 3 other CPUs too)
set -u
cd "$(dirname "$0")/../.." || exit 1
ISO=${ISO:-build/faultline.iso}
LOGS=${BENCH_LOGS:-build/bench}
TIMEOUT=${BENCH_TIMEOUT:-600}
CPUS=${BENCH_TLB_CPUS:-2}
log=$LOGS/tlb-bench.log

mkdir -p "$LOGS" || exit 1
[ -r "$ISO" ] || { echo "tlb-bench: $ISO is missing: run 'make iso' first" >&2; exit 1; }
sh tests/lib/qemu.sh --iso "$ISO" --mem 512M --smp "$CPUS" --icount --kargs "ktest=bench" \
	--serial "$LOGS/tlb-bench.serial" --timeout "$TIMEOUT" </dev/null >"$LOGS/qemu.log" 2>&1
rc=$?
tr -d '\r' <"$LOGS/tlb-bench.serial" >"$log"
why=""
[ "$rc" = 124 ] && why="timed out after ${TIMEOUT}s"
[ -z "$why" ] && [ "$rc" != 33 ] && why="QEMU exit $rc, 33 expected"
[ -z "$why" ] && ! grep -q "^smp: $CPUS CPUs online" "$log" &&
	why="not $CPUS CPUs online: $(grep '^smp: .* online' "$log" | head -n 1)"
[ -z "$why" ] && ! grep -q '^ktest: 2 passed, 0 failed, 0 skipped$' "$log" &&
	why="$(grep '^ktest: [0-9]* passed' "$log" || echo 'no ktest: closing line')"
if [ -n "$why" ]; then
	echo "tlb-bench: the ktest=bench boot failed ($why); last lines of $log:" >&2
	tail -n 25 "$log" | sed 's/^/  | /' >&2
	exit 1
fi

echo "Kernel TLB figures: ktest=bench, -smp $CPUS, -m 512, the same icount settings"
echo "  munmap of one faulted-in page whose mm K other CPUs use (in the kernel, an IPI each),"
echo "  mean of 20, every CPU's guest instructions (tlb_munmap_cost):"
printf '  %-12s %10s\n' other_cpus insns
sed -n 's/^tlb: munmap of one page, \([0-9]*\) other CPUs: \([0-9]*\) cycles$/\1 \2/p' "$log" |
	while read -r k c; do printf '  %-12s %10s\n' "$k" "$c"; done
echo "  flushing n pages of a test mm and touching them again, mean of 10, CPU 0 alone"
echo "  (tlb_flush_threshold; a TLB refill's page walk is not an instruction):"
printf '  %-12s %10s %10s\n' pages invlpg cr3_reload
flush='s/^tlb: flush \([0-9]*\) pages: invlpg \([0-9]*\), cr3 reload \([0-9]*\) cycles$/\1 \2 \3/p'
sed -n "$flush" "$log" | while read -r n i r; do printf '  %-12s %10s %10s\n' "$n" "$i" "$r"; done
