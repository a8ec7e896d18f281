#!/bin/sh
# The Linux reference of `make bench`'s swap rows (docs/bench.md, "Swap"): boot Debian's
# kernel in the machine of tests/bench/run-bench.sh's swap boot (48 MiB, -icount, a swap area
# made by mkswap as the first IDE disk of pc) with user/bench/swapbench.c as its init, and
# write its tables in the format of tests/bench/linux/swap-*.txt.
#
# usage: sh tests/bench/linux-swap.sh [OUT]     (default OUT: build/bench/linux-swap.txt)
# env:   SWAPBENCH=build/user/swapbench   BUSYBOX=/bin/busybox (static)
#        LINUX_PKG=linux-image-cloud-amd64  the package whose kernel and modules are used
#                  (fetched with apt-get download into build/bench/linux/, nothing installed)
#        SWAP_MEM=96  SWAP_PAGES=49152 (2 x 96 MiB)  SWAP_DISK_MB=512
#        SWAP_SPIN=yield  swapbench's spinner as under faultline (sched_yield, not SCHED_IDLE)
#        BENCH_TIMEOUT=900  QEMU=qemu-system-x86_64
#
# The IDE disk's drivers (scsi_mod, libata, ata_piix, sd_mod) are modules of the same package
# (tests/bench/linux-ide.sh): they go into the initramfs and are loaded by /init, which then
# swaps on /dev/sda and execs swapbench. When it returns the kernel panics (init exited),
# panic=-1 reboots at once and -no-reboot ends QEMU.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-build/bench/linux-swap.txt}
WORK=build/bench/linux
SWAPBENCH=${SWAPBENCH:-build/user/swapbench}
BUSYBOX=${BUSYBOX:-/bin/busybox}
LINUX_PKG=${LINUX_PKG:-linux-image-cloud-amd64}
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${BENCH_TIMEOUT:-900}
MEM=${SWAP_MEM:-96}
PAGES=${SWAP_PAGES:-49152}
DISK_MB=${SWAP_DISK_MB:-512}
MKSWAP=${MKSWAP:-/sbin/mkswap}
APPEND="console=ttyS0 quiet nokaslr norandmaps panic=-1 SB_PAGES=$PAGES"
[ -n "${SWAP_SPIN:-}" ] && APPEND="$APPEND SB_SPIN=$SWAP_SPIN" # yield: faultline's spinner

say() { echo "linux-swap: $*" >&2; }
. tests/bench/linux-ide.sh
mkdir -p "$WORK" "$(dirname "$OUT")" || exit 1
for f in "$SWAPBENCH" "$BUSYBOX" "$MKSWAP"; do
	[ -x "$f" ] || { say "$f is missing (run 'make bench' first; mkswap: util-linux)"; exit 1; }
done

# ---------------------------------------------------------------- 1. kernel and modules
linux_ide_kernel || exit 1

# ---------------------------------------------------------------- 2. initramfs and disk
ROOT=$WORK/swap-initramfs
linux_ide_root "$ROOT" || exit 1
strip -o "$ROOT/swapbench" "$SWAPBENCH" 2>/dev/null || cp "$SWAPBENCH" "$ROOT/swapbench" ||
	exit 1
cat >>"$ROOT/init" <<'EOF'
/bin/busybox swapon /dev/sda || echo "linux: swapon /dev/sda failed"
echo "linux: $(/bin/busybox cat /proc/version)"
echo "linux: $(/bin/busybox grep -E '^(MemTotal|MemFree|SwapTotal):' /proc/meminfo | \
	/bin/busybox tr -s ' \n' ' ')"
exec /swapbench
EOF
linux_ide_pack "$ROOT" "$WORK/swap-initrd.gz" || exit 1
# a fresh swap area each boot, the one run-bench.sh gives faultline: sparse, a fixed UUID
DISK=$WORK/swap-disk.img
rm -f "$DISK" && truncate -s "${DISK_MB}M" "$DISK" &&
	"$MKSWAP" -L bench-swap -U 5a4b7ca1-0000-4000-8000-000000000002 "$DISK" >/dev/null 2>&1 ||
	{ say "mkswap failed"; exit 1; }

# ---------------------------------------------------------------- 3. the boot
say "booting $KVER with -m $MEM, swapbench as init ($PAGES pages; a few minutes)"
linux_ide_boot swap swapbench || exit 1

# ---------------------------------------------------------------- 4. the reference file
{
	{
		echo "Linux reference for make bench's swap rows: guest instructions and disk" \
			"operations per page swapped out and in, measured by"
		echo "tests/bench/linux-swap.sh with user/bench/swapbench.c as the init of $KVER"
		sed -n 's/^linux: Linux version \([^ ]*\) .*\(#[0-9].*\)$/kernel: Linux \1 \2/p
			s/^linux: \(MemTotal.*\)/\1/p' "$LOG"
		linux_ide_machine
		echo "  -drive file=DISK,format=raw,if=ide,index=0: DISK ${DISK_MB} MiB, mkswap"
		grep '^swapbench: swap cost' "$LOG"
		echo "To keep it as the stored reference: copy it to" \
			"tests/bench/linux/swap-NAME.txt"
	} | linux_ide_comment
	echo
	echo "=== mode icount, 1 run(s), kernel $KVER, -m $MEM"
	# the two tables as swapbench printed them
	awk '/^kind +per_page_mean/ { on = 1 } /^swapbench: / { on = 0 } on' "$LOG"
} >"$OUT.tmp" && mv "$OUT.tmp" "$OUT" || exit 1
say "wrote $OUT (serial log $LOG)"
