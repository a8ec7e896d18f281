#!/bin/sh
# The legacy nopage() interface and the truncate race (docs/history.md).
# usage: tests/boot/legacy.sh
. "$(dirname "$0")/../lib/boot.sh"

# legacy_nopage: every file mapping, program text included, faults through filemap_nopage;
# programs and the file tests run as with fault(), each giving its frames back, kcheck clean,
# and the trace names the op.
plan 9
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
k=$(grep -c '^frames: \([0-9]*\) free or cached before, \1 after$' "$log.txt")
if [ "$n" -eq "$m" ] && [ "$k" -eq "$m" ]; then
	ok "legacy-nopage: frames back and kcheck clean after each of the $m programs"
else
	notok "legacy-nopage: frames back after $k, kcheck clean after $n of $m programs" "$log.txt"
fi

# The truncate race fault() closed. race_window_us makes __do_fault sleep 10 ms between the
# op's return and the page lock. fault() holds the page locked across it: file-race must see
# no stale read and no orphan PTE. nopage() does not, so truncate runs inside the window:
# file-race expect-race passes only if it saw stale data or FL_CHECK found orphans.
boot race-fault 256M "qemu_exit disk_latency_us=1000 race_window_us=10000 init=/bin/file-race,300"
expect race-fault 33 'run: /bin/file-race 300: exit 0' 'FL_CHECK x[0-9]+: max 0 orphans'
boot race-nopage 256M "qemu_exit legacy_nopage disk_latency_us=1000 race_window_us=10000 \
init=/bin/file-race,300,expect-race"
expect race-nopage 33 'run: /bin/file-race 300 expect-race: exit 0' \
	'file-race: expect-race: the race showed'

# The same race on a file of an ext2 disk, without disk_latency_us: every eighth round
# file-race drops its pages to the disk (fdatasync, POSIX_FADV_DONTNEED), so that faults that
# find them gone read the disk; race_window_us still holds the window open on one CPU.
MKE2FS=${MKE2FS:-/sbin/mke2fs}
race_img="$LOGS/race-ext2.img"
# natively first: the same program and mode in a directory of this host
rm -rf "$LOGS/race-native" && mkdir -p "$LOGS/race-native"
if build/user/file-race 300 - "$LOGS/race-native" >"$LOGS/race-native.out" 2>&1; then
	ok "race-ext2: file-race 300 - DIR natively: $(tail -n 1 "$LOGS/race-native.out")"
else
	notok "race-ext2: file-race 300 - DIR natively" "$LOGS/race-native.out"
fi
rm -rf "$LOGS/race-native"
for variant in fault nopage; do
	rm -f "$race_img"
	"$MKE2FS" -q -F -t ext2 -b 1024 "$race_img" 8M >/dev/null 2>&1 ||
		{ notok "race-ext2-$variant: mke2fs"; continue; }
	if [ $variant = fault ]; then
		boot race-ext2-fault 256M "runlist=/etc/race-ext2.list race_window_us=10000" \
			--disk "$race_img"
		expect race-ext2-fault 33 'run: timeout=120 /bin/sh /etc/race-ext2.sh -: exit 0' \
			'FL_CHECK x[0-9]+: max 0 orphans' \
			'file-race: /mnt: [1-9][0-9]* rounds with the pages'
	else
		boot race-ext2-nopage 256M \
			"legacy_nopage runlist=/etc/race-ext2-nopage.list race_window_us=10000" \
			--disk "$race_img"
		expect race-ext2-nopage 33 \
			'run: timeout=120 /bin/sh /etc/race-ext2.sh expect-race: exit 0' \
			'file-race: expect-race: the race showed'
	fi
done
rm -f "$race_img"

# The same race on two CPUs (docs/history.md, "On two CPUs"): file-race-smp's reader faults
# on CPU 1 while the truncator truncates and rewrites the file on CPU 0, an iteration in 2 ms
# or less. race_window_us=20000 (2 ticks) holds every fault 10 to 20 ms between the op and the
# page lock, so truncates always land inside it. The kernel counts the faults a
# truncate overlapped (fl_truncate_overlap) and the orphans mapped (fl_orphan_pte): with
# nopage() every overlap maps an orphan, and expect-race passes only on stale reads; fault()
# must see none, after more than 0 overlaps (expect-overlap: 0 would make it say nothing).
# 3 to 9 s and 6 to 15 s a boot on a busy 2-core host.
smp_race="race_window_us=20000 init=/bin/file-race-smp,2000"
boot race-smp-nopage 256M "qemu_exit legacy_nopage $smp_race,expect-race" --smp 2
expect race-smp-nopage 33 'run: /bin/file-race-smp 2000 expect-race: exit 0' \
	'file-race-smp: expect-race: the race showed \([1-9][0-9]* stale reads' \
	'/proc/vmstat: [1-9][0-9]* fault/truncate pairs overlapped .* [1-9][0-9]* faults mapped'
# fault()'s side runs 300 iterations: its truncator waits out the reader's window (the page is
# locked across it) in nearly every one, 10 to 20 ms each on an idle host, and 2000 would
# reach the program's 25 s limit; 300 still overlap hundreds of faults.
boot race-smp-fault 256M \
	"qemu_exit race_window_us=20000 init=/bin/file-race-smp,300,expect-overlap" --smp 2
expect race-smp-fault 33 'run: /bin/file-race-smp 300 expect-overlap: exit 0' \
	'file-race-smp: FL_CHECK x[0-9]+: 0 orphan PTEs' 'file-race-smp: 300 iterations, 2 CPUs' \
	'/proc/vmstat: [1-9][0-9]* fault/truncate pairs overlapped .*, 0 faults mapped'
