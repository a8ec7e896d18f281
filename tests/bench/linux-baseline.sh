#!/bin/sh
# Measure the Linux reference of `make bench` anew (BENCH_LINUX=1, docs/bench.md): boot Debian's
# kernel under the same QEMU -icount settings as faultline's run, with /bin/fbench as its init,
# and write a baseline file in the format of tests/bench/linux/baseline-*.txt.
#
# usage: sh tests/bench/linux-baseline.sh [OUT]     (default OUT: build/bench/linux-baseline.txt)
#        BENCH_SMP="1 2 4" sh tests/bench/linux-baseline.sh [OUT]
#               the SMP reference instead (default OUT: build/bench/linux-smp.txt): one boot
#               with -smp N each, fsmpbench as init, one "=== mode icount-smpN" table each
# env:   FBENCH=build/user/fbench   the benchmark program (`make bench` builds it)
#        FEXIT=build/user/fexit     the program its lat_proc_exec row execs, as /bin/fexit
#        KERNEL=/path/to/bzImage    else /boot/vmlinuz-*-cloud-amd64, else Debian's cloud kernel
#                                   fetched with apt-get download into build/bench/linux/
#        LINUX_PKG=linux-image-cloud-amd64    the package that names the kernel to fetch
#        BUSYBOX=/bin/busybox (static)        the shell of the small /init that starts fbench
#        BENCH_PAGES=N  BENCH_TIMEOUT=600  QEMU=qemu-system-x86_64
#
# The guest: the initramfs holds busybox, fbench and an /init script that mounts proc (for
# fbench's VMA counts), ramfs on /tmp (fbench's file kinds are the *_ramfs ones), tmpfs on
# /dev/shm (the *_tmpfs ones), sets
# fault_around_bytes to one page through debugfs (Linux's fault-around would otherwise map 16
# pages per fault; 2.6.23 and faultline map one, the *_nofa_* kinds), then execs fbench, which so
# runs as PID 1 as it does under faultline. When it returns the kernel panics (init exited),
# panic=-1 reboots at once and -no-reboot ends QEMU. nokaslr and norandmaps fix the layout, so
# two runs print the same table.
set -u
cd "$(dirname "$0")/../.." || exit 1
SMP_LIST=${BENCH_SMP:-}
if [ -n "$SMP_LIST" ]; then OUT=${1:-build/bench/linux-smp.txt}
else OUT=${1:-build/bench/linux-baseline.txt}; fi
WORK=build/bench/linux
FBENCH=${FBENCH:-build/user/fbench}
FSMPBENCH=${FSMPBENCH:-build/user/fsmpbench}
FEXIT=${FEXIT:-build/user/fexit}
BUSYBOX=${BUSYBOX:-/bin/busybox}
LINUX_PKG=${LINUX_PKG:-linux-image-cloud-amd64}
QEMU=${QEMU:-qemu-system-x86_64}
TIMEOUT=${BENCH_TIMEOUT:-600}
APPEND="console=ttyS0 quiet nokaslr norandmaps panic=-1"
[ -n "${BENCH_PAGES:-}" ] && APPEND="$APPEND FB_PAGES=$BENCH_PAGES" # init's environment

say() { echo "linux-baseline: $*" >&2; }
mkdir -p "$WORK" "$(dirname "$OUT")" || exit 1
for f in "$FBENCH" "$FEXIT" "$BUSYBOX" ${SMP_LIST:+"$FSMPBENCH"}; do
	[ -x "$f" ] || { say "$f is missing (run 'BENCH_LINUX=1 make bench')"; exit 1; }
done
for c in cpio gzip "$QEMU"; do
	command -v "$c" >/dev/null || { say "needs $c (apt-get install cpio gzip qemu-system-x86)"
		exit 1; }
done

# ---------------------------------------------------------------- 1. the kernel
# Debian's cloud kernel: the one the stored reference was measured with (a small config, no
# modules needed to boot from an initramfs). Fetched as a package file and unpacked here, so
# nothing is installed on the host and no root is needed.
fetch_kernel() {
	command -v apt-get >/dev/null || return 1
	pkg=$(apt-cache depends --important "$LINUX_PKG" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || pkg=$LINUX_PKG
	kfile=$WORK/vmlinuz-${pkg#linux-image-}
	[ -r "$kfile" ] && { echo "$kfile"; return 0; }
	say "fetching $pkg (apt-get download, into $WORK)"
	rm -f "$WORK"/*.deb
	(cd "$WORK" && apt-get download "$pkg" >/dev/null 2>&1) || return 1
	dpkg-deb --fsys-tarfile "$WORK"/"$pkg"_*.deb |
		tar -x -O "./boot/vmlinuz-${pkg#linux-image-}" >"$kfile.tmp" || return 1
	mv "$kfile.tmp" "$kfile" && rm -f "$WORK"/*.deb && echo "$kfile"
}
if [ -z "${KERNEL:-}" ]; then
	KERNEL=$(ls -1 /boot/vmlinuz-*-cloud-amd64 2>/dev/null | sort -V | tail -n 1)
	[ -n "$KERNEL" ] || KERNEL=$(fetch_kernel)
fi
if [ -z "$KERNEL" ] || [ ! -r "$KERNEL" ]; then
	say "no Linux kernel to boot; install Debian's cloud kernel (no reboot needed):"
	say "  sudo apt-get install $LINUX_PKG      or give one: KERNEL=/path/to/bzImage"
	exit 1
fi
KVER=$(basename "$KERNEL")

# ---------------------------------------------------------------- 2. the initramfs
ROOT=$WORK/initramfs
rm -rf "$ROOT" && mkdir -p "$ROOT/bin" "$ROOT/dev" "$ROOT/proc" "$ROOT/sys" "$ROOT/tmp" || exit 1
cp "$BUSYBOX" "$ROOT/bin/busybox" && ln -s busybox "$ROOT/bin/sh" || exit 1
# stripped: its debug information names the build directory, and a different size of the
# initramfs moves some of Linux's means by ~0.1 %
strip -o "$ROOT/fbench" "$FBENCH" 2>/dev/null || cp "$FBENCH" "$ROOT/fbench" || exit 1
[ -n "$SMP_LIST" ] && { strip -o "$ROOT/fsmpbench" "$FSMPBENCH" 2>/dev/null ||
	cp "$FSMPBENCH" "$ROOT/fsmpbench" || exit 1; }
# lat_proc_exec's program, at the path it has in faultline's ramdisk
strip -o "$ROOT/bin/fexit" "$FEXIT" 2>/dev/null || cp "$FEXIT" "$ROOT/bin/fexit" || exit 1
cat >"$ROOT/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t debugfs debugfs /sys/kernel/debug
/bin/busybox mount -t ramfs ramfs /tmp
/bin/busybox mkdir -p /dev/shm && /bin/busybox mount -t tmpfs tmpfs /dev/shm
echo 4096 >/sys/kernel/debug/fault_around_bytes
echo "linux: $(/bin/busybox cat /proc/version)"
echo "linux: fault_around_bytes $(/bin/busybox cat /sys/kernel/debug/fault_around_bytes)"
EOF
# fsmpbench for the SMP reference; the one-CPU initramfs stays byte for byte what it was
PROG=fbench
[ -n "$SMP_LIST" ] && PROG=fsmpbench
echo "exec /$PROG" >>"$ROOT/init"
chmod 755 "$ROOT/init"
# the same bytes every time: fixed times and owners, sorted names
find "$ROOT" -exec touch -h -d @0 {} +
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) |
	gzip -9n >"$WORK/initrd.gz" || exit 1

# ---------------------------------------------------------------- 3. the boot
# faultline's machine in tests/bench/run-bench.sh, with -kernel/-initrd instead of the CD.
# boot N LOG: one boot with -smp N, fbench's serial output in LOG.
boot() {
	cpus=$1 log=$2
	say "booting $KVER with -smp $cpus, $PROG as init (about 10-60 s)"
	QEMU=$QEMU sh tests/lib/qemu.sh --kernel "$KERNEL" \
		--initrd "$WORK/initrd.gz" --append "$APPEND" --mem 512M --smp "$cpus" --icount \
		--no-exit-device --serial "$WORK/serial.raw" --timeout "$TIMEOUT" \
		</dev/null >"$WORK/qemu.log" 2>&1
	rc=$?
	tr -d '\r' <"$WORK/serial.raw" >"$log"
	if ! grep -q '^fbench: done' "$log"; then
		say "the boot did not finish (QEMU exit $rc); last lines of $log:"
		tail -n 20 "$log" | sed 's/^/  | /' >&2
		sed 's/^/  qemu: /' "$WORK/qemu.log" >&2
		return 1
	fi
}
# SMP: a boot that does not finish leaves a comment in the file instead of its table (Linux
# 6.1 under QEMU 7.2's -icount hangs bringing up the second CPU: docs/bench.md)
SMP_OK= SMP_FAILED=
if [ -n "$SMP_LIST" ]; then
	for n in $SMP_LIST; do
		if boot "$n" "$WORK/fsmpbench$n.log"; then SMP_OK="$SMP_OK $n"
		else SMP_FAILED="$SMP_FAILED $n"; fi
	done
	[ -n "$SMP_OK" ] || exit 1
	LOG=$WORK/fsmpbench$(echo "$SMP_OK" | awk '{ print $1 }').log
else
	LOG=$WORK/fbench.log
	boot 1 "$LOG" || exit 1
fi

# ---------------------------------------------------------------- 4. the baseline file
# fbench's rows (kind mean median faults pages [note]) in the columns of the stored reference
# (kind cycles_per_fault per_page median_page faults det per-run): a baseline row has no
# fault, its raw loop cost goes in per_page; per_page of a fault row is mean x faults / pages.
# Comment lines are wrapped at 100 columns.
{
	if [ -n "$SMP_LIST" ]; then
		echo "Linux SMP reference for make bench: aggregate guest instructions per page" \
			"fault of 1, 2, 4 threads each on its own CPU, and per munmap with 0-3" \
			"other CPUs in the mm (docs/bench.md), measured by"
		echo "tests/bench/linux-baseline.sh (BENCH_SMP=\"$SMP_LIST\") with" \
			"user/bench/fbench_smp.c (fsmpbench) as the init of $KVER"
	else
		echo "Linux reference for make bench: guest instructions per page fault (per" \
			"signal, pipe round trip, 64 KiB pipe chunk or process for those rows)," \
			"measured by"
		echo "tests/bench/linux-baseline.sh with user/bench/fbench.c as the init of $KVER"
	fi
	sed -n 's/^linux: Linux version \([^ ]*\) .*\(#[0-9].*\)$/kernel: Linux \1 \2/p
		s/^linux: \(fault_around_bytes.*\)/\1 (debugfs)/p' "$LOG"
	echo "QEMU: $("$QEMU" --version | head -n 1)"
	echo "  -machine pc -accel tcg -cpu qemu64 -m 512 -smp ${SMP_LIST:-1}" \
		"-icount shift=0,sleep=off"
	echo "  -rtc base=2024-01-01T00:00:00,clock=vm -append \"$APPEND\""
	sed -n 's/^fbench: \(page-fault cost.*\)/fbench: \1/p' "$LOG"
	grep -v 'n/a  *(needs [0-9]* CPUs' "$LOG" |
		sed -n 's/^\([a-z_0-9]*\)  *n\/a  *n\/a  */n\/a on Linux: \1 /p'
	for n in $SMP_FAILED; do
		echo "-smp $n: no table, the boot did not finish within ${TIMEOUT}s (it hangs" \
			"bringing up the second CPU under -icount: docs/bench.md, \"Several CPUs\")"
	done
	if [ -n "$SMP_LIST" ]; then
		echo "To keep it as the stored reference: copy it to tests/bench/linux/smp-NAME.txt"
	else
		echo "To keep it as the stored reference: copy it to" \
			"tests/bench/linux/baseline-NAME.txt"
	fi
} | awk '{ s = "# " $0
	while (length(s) > 100) { i = 100; while (i > 10 && substr(s, i, 1) != " ") i--
		print substr(s, 1, i - 1); s = "#     " substr(s, i + 1) }
	print s }' >"$OUT.tmp" || exit 1
# table MODE LOG: one "=== mode" section from one boot's log
table() {
	echo
	echo "=== mode $1, 1 run(s), kernel $KVER, -m 512"
	awk '/^kind +per_fault_mean/ { on = 1
	printf "%-30s %8s %8s %6s %5s %3s %s\n", "kind", "cycles_per_fault", "per_page",
		"median_page", "faults", "det", "per-run"; next }
/^fbench: done/ { on = 0 }
on && $1 ~ /^[a-z0-9_]+$/ && NF >= 5 && $2 != "n/a" {
	vmas = ""; if (match($0, /vmas=[0-9]+/)) vmas = " (" substr($0, RSTART, RLENGTH) ")"
	if (match($0, /thr_mean=[0-9.]+/)) vmas = " (" substr($0, RSTART, RLENGTH) ")"
	if ($1 ~ /^(smp_)?baseline_/) { cpf = "0.0"; pp = $2 }
	else { cpf = $2; pp = sprintf("%.1f", $2 * $4 / $5) }
	printf "%-30s %8s %8s %6s %5s %3s %s%s\n", $1, cpf, pp, $3, $4, "-", cpf, vmas }' "$2"
}
if [ -n "$SMP_LIST" ]; then
	for n in $SMP_OK; do
		table "icount-smp$n" "$WORK/fsmpbench$n.log" >>"$OUT.tmp" || exit 1
	done
else
	table icount "$LOG" >>"$OUT.tmp" || exit 1
fi
mv "$OUT.tmp" "$OUT" || exit 1
if [ -n "$SMP_LIST" ]; then say "wrote $OUT (serial logs $WORK/fsmpbenchN.log)"
else say "wrote $OUT (serial log $LOG)"; fi
