#!/bin/sh
# Swap when things go wrong (docs/swap.md), in a 48 MiB machine (about 33 MiB for a process):
# (a) the swap disk fails reads (QEMU's blkdebug: after the first write every read fails with
#     EIO): the process that faults on a page out there dies of SIGBUS, the kernel goes on;
# (b) 4 MiB of swap and a process writing 96 MiB: exactly one OOM kill, reported as Linux does;
# (c) swapoff with pages out, after the process unmapped all but what fits in RAM: swapoff
#     reads them back, the process finds them intact without a major fault.
# After every program: kcheck clean, every frame and every swap slot back.
# usage: tests/boot/swap-faults.sh
. "$(dirname "$0")/../lib/boot.sh"
. "$(dirname "$0")/../lib/swap.sh"

TIMEOUT=150 # QEMU's limit; each program has its own in the list (at most 120 s)
img="$LOGS/swap-faults.img" conf="$LOGS/swap-faults.blkdebug"
# State 1 until the disk's first write (a swap-out; swapon only reads), then every read fails:
# a driver that retries (Linux's libata does) still fails, and only pages out in swap are lost.
# (once = "on" would fail a single read: Linux's retry then succeeds, no SIGBUS.)
cat >"$conf" <<'EOT'
[set-state]
event = "write_aio"
state = "1"
new_state = "2"

[inject-error]
event = "read_aio"
state = "2"
iotype = "read"
errno = "5"
EOT

# run_is NAME LINE RESULT: the runlist line ended as RESULT ("exit 0", "killed by SIGBUS")
run_is() {
	got=$(swap_log "$1" | grep -F "run: $2: " | head -n 1)
	if [ "$got" = "run: $2: $3" ]; then
		ok "$1: $2: $3"
	else
		notok "$1: $2: expected '$3', got '${got#run: $2: }'" "$(swap_excerpt "$1" "$2:")"
	fi
}

# the plain disk's boot; (a) 6 checks, (b) 8, (c) 6 (swap_after_each: three each)
plan $((1 + 6 + 8 + 6))
# The config on a plain disk first: reads fail with EIO after the first write, writes do not.
rm -f "$img" && truncate -s 8M "$img"
boot swap-eio 48M "runlist=/etc/swap-eio.list kcheck" --disk "$img" --disk-errors "$conf"
expect swap-eio 33 '^ata1: DMA read error at sectors 256-263' \
	'^ata1: DMA read error at sectors 0-7' '^dd: /dev/sda: Input/output error' 'swap-eio: ok' \
	'run: timeout=60 /bin/sh /etc/swap-eio.sh: exit 0' 'run: done'

# (a) a swap-in read fails
swap_mkimg "$img" 128 || notok "swap-eio-in: mkswap failed"
boot swap-eio-in 48M "runlist=/etc/swap-eio-in.list runstats kcheck" --disk "$img" \
	--disk-errors "$conf"
expect swap-eio-in 35 '^Adding 131068k swap on /dev/sda' '^ata1: DMA read error at sectors' \
	'run: done'
run_is swap-eio-in "timeout=120 /bin/swap-stress 96" "killed by SIGBUS"
run_is swap-eio-in "timeout=60 /bin/swap-stress 8" "exit 0"
swap_after_each swap-eio-in

# (b) RAM and swap both full: the OOM killer, once
swap_mkimg "$img" 4 || notok "swap-oom: mkswap failed"
boot swap-oom 48M "runlist=/etc/swap-oom.list runstats kcheck" --disk "$img"
expect swap-oom 35 '^Adding 4092k swap on /dev/sda' 'run: done'
run_is swap-oom "timeout=90 /bin/swap-stress 96" "killed by SIGKILL"
run_is swap-oom "timeout=60 /bin/swap-stress 8" "exit 0"
pid=$(swap_log swap-oom | sed -n 's/^swap-stress: pid \([0-9]*\): 96 MiB at .*/\1/p')
kills=$(swap_log swap-oom | grep -c '^Out of memory: Killed process ')
if [ "$kills" = 1 ] && swap_log swap-oom |
	grep -q "^Out of memory: Killed process ${pid:-PID} (swap-stress)"; then
	ok "swap-oom: one OOM kill: $(swap_log swap-oom | grep '^Out of memory: Killed process ')"
else
	what="$kills lines 'Out of memory: Killed process ${pid:-PID} (swap-stress)', expected one"
	notok "swap-oom: $what" "$(swap_excerpt swap-oom '/bin/swap-stress 96:')"
fi
# the report's task table counts the killed process's pages out on the (full) 4 MiB area:
# 1023 slots
row=$(swap_log swap-oom | grep -E "^\[ *${pid:-PID}\] +0 +${pid:-PID} .* swap-stress$")
ents=$(echo "$row" | awk '{ print $(NF - 2) }')
if [ -n "$ents" ] && [ "$ents" -gt 0 ] && [ "$ents" -le 1023 ]; then
	ok "swap-oom: the report's task table shows the process's $ents pages on swap (swapents)"
else
	notok "swap-oom: the report's swapents for pid ${pid:-?}: '${ents:-no row}'" \
		"$(swap_excerpt swap-oom '/bin/swap-stress 96:')"
fi
swap_after_each swap-oom

# (c) swapoff while pages are out
swap_mkimg "$img" 128 || notok "swap-off: mkswap failed"
boot swap-off 48M "runlist=/etc/swap-off.list runstats kcheck" --disk "$img"
expect swap-off 33 '^Adding 131068k swap on /dev/sda' 'run: done'
run_is swap-off "timeout=120 /bin/swap-stress 96 swapoff /dev/sda 8" "exit 0"
run_is swap-off "timeout=60 /bin/swap-stress 8" "exit 0"
swap_after_each swap-off
rm -f "$img"
