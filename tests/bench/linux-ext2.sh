#!/bin/sh
# The Linux reference of `make bench`'s ext2 rows (docs/bench.md, "Files on a disk"): boot
# Debian's kernel in the machine of tests/bench/run-bench.sh's ext2 boot (-m 512, -icount, the
# disk of tests/bench/ext2-disk.sh as the first IDE disk of pc) with user/bench/extbench.c run
# by its init, and write its tables in the format of tests/bench/linux/ext2-*.txt.
#
# usage: sh tests/bench/linux-ext2.sh [OUT]     (default OUT: build/bench/linux-ext2.txt)
# env:   EXTBENCH=build/user/extbench   BUSYBOX=/bin/busybox (static)   MKE2FS=/sbin/mke2fs
#        LINUX_PKG=linux-image-cloud-amd64  the package whose kernel and modules are used
#        EXT2_SPIN=yield  extbench's spinner as under faultline (sched_yield, not SCHED_IDLE)
#        BENCH_TIMEOUT=600  QEMU=qemu-system-x86_64
#
# Linux 6.1 mounts ext2 with its ext4 driver (CONFIG_EXT4_USE_FOR_EXT2, built into Debian's
# kernel, as are jbd2, mbcache and the crc modules it needs); the IDE disk's drivers are
# modules (tests/bench/linux-ide.sh). /init loads them, sets fault_around_bytes to one page
# (debugfs) so that a fault maps one page as 2.6.23 and faultline do, and runs extbench, which
# mounts /dev/sda itself before each pass. When it returns the kernel panics (init exited),
# panic=-1 reboots at once and -no-reboot ends QEMU.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-build/bench/linux-ext2.txt}
WORK=build/bench/linux
EXTBENCH=${EXTBENCH:-build/user/extbench}
BUSYBOX=${BUSYBOX:-/bin/busybox}
LINUX_PKG=${LINUX_PKG:-linux-image-cloud-amd64}
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${BENCH_TIMEOUT:-600}
MEM=512
APPEND="console=ttyS0 quiet nokaslr norandmaps panic=-1"
[ -n "${EXT2_SPIN:-}" ] && APPEND="$APPEND SB_SPIN=$EXT2_SPIN" # yield: faultline's spinner

say() { echo "linux-ext2: $*" >&2; }
. tests/bench/linux-ide.sh
mkdir -p "$WORK" "$(dirname "$OUT")" || exit 1
for f in "$EXTBENCH" "$BUSYBOX"; do
	[ -x "$f" ] || { say "$f is missing (run 'make bench' first)"; exit 1; }
done

# ---------------------------------------------------------------- 1. kernel and modules
linux_ide_kernel || exit 1

# ---------------------------------------------------------------- 2. initramfs and disk
ROOT=$WORK/ext2-initramfs
linux_ide_root "$ROOT" || exit 1
strip -o "$ROOT/extbench" "$EXTBENCH" 2>/dev/null || cp "$EXTBENCH" "$ROOT/extbench" || exit 1
cat >>"$ROOT/init" <<'EOF'
/bin/busybox mount -t debugfs debugfs /sys/kernel/debug
echo 4096 >/sys/kernel/debug/fault_around_bytes
echo "linux: $(/bin/busybox cat /proc/version)"
echo "linux: fault_around_bytes $(/bin/busybox cat /sys/kernel/debug/fault_around_bytes)"
echo "linux: read_ahead_kb $(/bin/busybox cat /sys/block/sda/queue/read_ahead_kb)"
/extbench /dev/sda ext2 data
EOF
linux_ide_pack "$ROOT" "$WORK/ext2-initrd.gz" || exit 1
DISK=$WORK/ext2-disk.img
sh tests/bench/ext2-disk.sh "$DISK" || { say "tests/bench/ext2-disk.sh failed"; exit 1; }

# ---------------------------------------------------------------- 3. the boot
say "booting $KVER with -m $MEM, extbench run by its init (about half a minute)"
linux_ide_boot ext2 extbench
rc=$?
rm -f "$DISK"
[ "$rc" = 0 ] || exit 1

# ---------------------------------------------------------------- 4. the reference file
{
	{
		echo "Linux reference for make bench's ext2 rows: guest instructions and disk" \
			"requests per page of a file faulted in or read, cold, with and without" \
			"read-ahead, and per page of a shared mapping written back by msync and" \
			"fsync, measured by"
		echo "tests/bench/linux-ext2.sh with user/bench/extbench.c run by the init of $KVER"
		sed -n 's/^linux: Linux version \([^ ]*\) .*\(#[0-9].*\)$/kernel: Linux \1 \2/p
			s/^linux: \(fault_around_bytes.*\)/\1 (debugfs)/p
			s/^linux: \(read_ahead_kb.*\)/\1 (sysfs, before extbench)/p' "$LOG"
		linux_ide_machine
		echo "  -drive file=DISK,format=raw,if=ide,index=0: DISK tests/bench/ext2-disk.sh"
		grep '^extbench: file read' "$LOG"
		echo "To keep it as the stored reference: copy it to" \
			"tests/bench/linux/ext2-NAME.txt"
	} | linux_ide_comment
	echo
	echo "=== mode icount, 1 run(s), kernel $KVER, -m $MEM"
	# the two tables as extbench printed them
	awk '/^kind +per_page_mean/ { on = 1 } /^extbench: / { on = 0 } on' "$LOG"
} >"$OUT.tmp" && mv "$OUT.tmp" "$OUT" || exit 1
say "wrote $OUT (serial log $LOG)"
