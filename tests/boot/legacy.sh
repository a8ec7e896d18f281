#!/bin/sh
# The legacy nopage() interface and the truncate race (docs/history.md).
# usage: tests/boot/legacy.sh
. "$(dirname "$0")/../lib/boot.sh"

# legacy_nopage: every file mapping, program text included, faults through filemap_nopage;
# programs and the file tests run as with fault(), each giving its frames back, kcheck clean,
# and the trace names the op.
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
