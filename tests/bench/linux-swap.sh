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
# Debian's cloud kernel has the IDE disk's drivers as modules (scsi_mod, libata, ata_piix,
# sd_mod): they come from the same package, go into the initramfs and are loaded by /init,
# which then swaps on /dev/sda and execs swapbench. When it returns the kernel panics (init
# exited), panic=-1 reboots at once and -no-reboot ends QEMU.
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
MODULES="drivers/scsi/scsi_common drivers/scsi/scsi_mod drivers/ata/libata drivers/ata/ata_piix
	drivers/scsi/sd_mod"

say() { echo "linux-swap: $*" >&2; }
mkdir -p "$WORK" "$(dirname "$OUT")" || exit 1
for f in "$SWAPBENCH" "$BUSYBOX" "$MKSWAP"; do
	[ -x "$f" ] || { say "$f is missing (run 'make bench' first; mkswap: util-linux)"; exit 1; }
done
for c in cpio gzip dpkg-deb apt-get "$QEMU"; do
	command -v "$c" >/dev/null || { say "needs $c"; exit 1; }
done

# ---------------------------------------------------------------- 1. kernel and modules
pkg=$(apt-cache depends --important "$LINUX_PKG" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
[ -n "$pkg" ] || pkg=$LINUX_PKG
KVER=${pkg#linux-image-}
KDIR=$WORK/swap-$KVER
if [ ! -r "$KDIR/vmlinuz" ]; then
	say "fetching $pkg (apt-get download, into $WORK)"
	rm -rf "$KDIR" "$WORK"/*.deb && mkdir -p "$KDIR" || exit 1
	(cd "$WORK" && apt-get download "$pkg" >/dev/null 2>&1) || { say "apt-get download failed"
		exit 1; }
	files="./boot/vmlinuz-$KVER"
	for m in $MODULES; do files="$files ./lib/modules/$KVER/kernel/$m.ko"; done
	# shellcheck disable=SC2086
	dpkg-deb --fsys-tarfile "$WORK"/"$pkg"_*.deb | tar -x -C "$KDIR" $files || exit 1
	mv "$KDIR/boot/vmlinuz-$KVER" "$KDIR/vmlinuz" && rm -f "$WORK"/*.deb || exit 1
fi

# ---------------------------------------------------------------- 2. initramfs and disk
ROOT=$WORK/swap-initramfs
rm -rf "$ROOT" && mkdir -p "$ROOT/bin" "$ROOT/dev" "$ROOT/proc" "$ROOT/sys" "$ROOT/mod" ||
	exit 1
cp "$BUSYBOX" "$ROOT/bin/busybox" && ln -s busybox "$ROOT/bin/sh" || exit 1
strip -o "$ROOT/swapbench" "$SWAPBENCH" 2>/dev/null || cp "$SWAPBENCH" "$ROOT/swapbench" ||
	exit 1
n=0
for m in $MODULES; do
	n=$((n + 1))
	cp "$KDIR/lib/modules/$KVER/kernel/$m.ko" "$ROOT/mod/$n-$(basename "$m").ko" || exit 1
done
cat >"$ROOT/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
for m in /mod/*.ko; do /bin/busybox insmod "$m" || echo "linux: insmod $m failed"; done
i=0
while [ ! -b /dev/sda ] && [ $i -lt 100 ]; do /bin/busybox sleep 0.1; i=$((i + 1)); done
/bin/busybox swapon /dev/sda || echo "linux: swapon /dev/sda failed"
echo "linux: $(/bin/busybox cat /proc/version)"
echo "linux: $(/bin/busybox grep -E '^(MemTotal|MemFree|SwapTotal):' /proc/meminfo | \
	/bin/busybox tr -s ' \n' ' ')"
exec /swapbench
EOF
chmod 755 "$ROOT/init"
find "$ROOT" -exec touch -h -d @0 {} +
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) |
	gzip -9n >"$WORK/swap-initrd.gz" || exit 1
# a fresh swap area each boot, the one run-bench.sh gives faultline: sparse, a fixed UUID
DISK=$WORK/swap-disk.img
rm -f "$DISK" && truncate -s "${DISK_MB}M" "$DISK" &&
	"$MKSWAP" -L bench-swap -U 5a4b7ca1-0000-4000-8000-000000000002 "$DISK" >/dev/null 2>&1 ||
	{ say "mkswap failed"; exit 1; }

# ---------------------------------------------------------------- 3. the boot
LOG=$WORK/swapbench.log
say "booting $KVER with -m $MEM, swapbench as init ($PAGES pages; a few minutes)"
QEMU=$QEMU sh tests/lib/qemu.sh --kernel "$KDIR/vmlinuz" \
	--initrd "$WORK/swap-initrd.gz" --append "$APPEND" --mem "$MEM" --disk "$DISK" --icount \
	--no-exit-device --serial "$WORK/swap-serial.raw" --timeout "$TIMEOUT" \
	</dev/null >"$WORK/qemu.log" 2>&1
rc=$?
tr -d '\r' <"$WORK/swap-serial.raw" >"$LOG"
if ! grep -q '^swapbench: done' "$LOG"; then
	say "the boot did not finish (QEMU exit $rc); last lines of $LOG:"
	tail -n 20 "$LOG" | sed 's/^/  | /' >&2
	sed 's/^/  qemu: /' "$WORK/qemu.log" >&2
	exit 1
fi

# ---------------------------------------------------------------- 4. the reference file
{
	{
		echo "Linux reference for make bench's swap rows: guest instructions and disk" \
			"operations per page swapped out and in, measured by"
		echo "tests/bench/linux-swap.sh with user/bench/swapbench.c as the init of $KVER"
		sed -n 's/^linux: Linux version \([^ ]*\) .*\(#[0-9].*\)$/kernel: Linux \1 \2/p
			s/^linux: \(MemTotal.*\)/\1/p' "$LOG"
		echo "QEMU: $("$QEMU" --version | head -n 1)"
		echo "  -machine pc -accel tcg -cpu qemu64 -m $MEM -smp 1 -icount shift=0,sleep=off"
		echo "  -rtc base=2024-01-01T00:00:00,clock=vm -append \"$APPEND\""
		echo "  -drive file=DISK,format=raw,if=ide,index=0: DISK ${DISK_MB} MiB, mkswap"
		grep '^swapbench: swap cost' "$LOG"
		echo "To keep it as the stored reference: copy it to" \
			"tests/bench/linux/swap-NAME.txt"
	} | awk '{ s = "# " $0
		while (length(s) > 100) { i = 100; while (i > 10 && substr(s, i, 1) != " ") i--
			print substr(s, 1, i - 1); s = "#     " substr(s, i + 1) }
		print s }'
	echo
	echo "=== mode icount, 1 run(s), kernel $KVER, -m $MEM"
	# the two tables as swapbench printed them
	awk '/^kind +per_page_mean/ { on = 1 } /^swapbench: / { on = 0 } on' "$LOG"
} >"$OUT.tmp" && mv "$OUT.tmp" "$OUT" || exit 1
say "wrote $OUT (serial log $LOG)"
