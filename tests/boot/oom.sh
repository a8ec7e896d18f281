#!/bin/sh
# The OOM killer (mm/oom_kill.c) in a small machine without swap (48 MiB, noswap), on one CPU
# and on two: /bin/oom-kill's three rounds must each end with one "Out of memory: Killed
# process" line naming the process it expects (its hog, its small +1000 process, its hog), with
# Linux's report before it; /bin/oom-procfs runs there too. Every frame comes back after each
# program and kcheck stays clean. usage: tests/boot/oom.sh
. "$(dirname "$0")/../lib/boot.sh"

plan $((2 * 5)) # five checks per boot
list=iso/root/etc/oom.list
for smp in 1 2; do
	name=oom-smp$smp
	boot "$name" 48M "runlist=/etc/oom.list runstats kcheck noswap" --smp "$smp"
	log="$LOGS/$name.log"
	tr -d '\r' <"$log" >"$log.txt"
	expect "$name" 33 'oom-kill: done' 'oom-kill: ok' 'oom-procfs: ok' \
		'run: timeout=120 /bin/oom-kill: exit 0' 'run: timeout=60 /bin/oom-procfs: exit 0' \
		'run: done'
	txt="$log.txt"
	h1=$(sed -n 's/^oom-kill: round 1: hog \([0-9]*\), small \([0-9]*\)$/\1/p' "$txt")
	s1=$(sed -n 's/^oom-kill: round 1: hog \([0-9]*\), small \([0-9]*\)$/\2/p' "$txt")
	h2=$(sed -n 's/^oom-kill: round 2: hog \([0-9]*\), small \([0-9]*\)$/\1/p' "$txt")
	s2=$(sed -n 's/^oom-kill: round 2: hog \([0-9]*\), small \([0-9]*\)$/\2/p' "$txt")
	h3=$(sed -n 's/^oom-kill: round 3: hog \([0-9]*\)$/\1/p' "$txt")
	kre='s/^Out of memory: Killed process \([0-9]*\) (\([^)]*\)) .*/\1 \2/p'
	killed=$(sed -n "$kre" "$txt" | tr '\n' ' ')
	if [ -n "$h1" ] && [ "$killed" = "$h1 oom-kill $s2 oom-kill $h3 oom-kill " ]; then
		ok "$name: three OOM kills: hog $h1, small process $s2, kernel-copy hog $h3"
	else
		notok "$name: Killed lines name '$killed', expected $h1, $s2, $h3" "$txt"
	fi
	# Linux's report: the header with the faulting task's adj (the hog: 0, then -1000),
	# Mem-Info with no swap, the task table, the line before the kill
	hdr='^oom-kill invoked oom-killer: gfp_mask=0x[0-9a-f]+\(GFP_HIGHUSER(\|__GFP_ZERO)?\), '
	hdr=$hdr'order=0, oom_score_adj='
	row() { echo "^\[ *$1\] +0 +$1 +[0-9]+ +[0-9]+ +[0-9]+ +0 +$2 oom-kill$"; }
	kline='total-vm:[0-9]+kB, anon-rss:[0-9]+kB, file-rss:[0-9]+kB, shmem-rss:0kB, UID:0 '
	kline=$kline'pgtables:[0-9]+kB oom_score_adj:'
	table='^\[  pid  \]   uid  tgid total_vm      rss pgtables_bytes swapents '
	table=$table'oom_score_adj name$'
	why=""
	for p in "${hdr}0$" "${hdr}-1000$" '^Mem-Info:$' '^Free swap  = 0kB$' '^Total swap = 0kB$' \
		"$table" \
		"$(row "$h1" 0)" "$(row "$s1" 0)" "$(row "$h2" -1000)" "$(row "$s2" 1000)" \
		"^Out of memory: Killed process $h1 \(oom-kill\) ${kline}0$" \
		"^Out of memory: Killed process $s2 \(oom-kill\) ${kline}1000$" \
		"^Out of memory: Killed process $h3 \(oom-kill\) ${kline}0$" \
		"^oom-kill:constraint=CONSTRAINT_NONE,global_oom,task=oom-kill,pid=$h1,uid=0$"; do
		[ -z "$why" ] && ! grep -Eq -- "$p" "$txt" && why="no line matching '$p'"
	done
	if [ -z "$why" ]; then
		ok "$name: the report: header, Mem-Info, task table, the kill line"
	else
		notok "$name: the report: $why" "$txt"
	fi
	# the parent (-1000) must not be in any kill; nothing was killed the old way (which only
	# says something if the OOM killer did run: its three kills are in the log)
	nk=$(grep -c '^Out of memory: Killed process ' "$txt")
	if grep -q '^oom: pid ' "$txt"; then
		notok "$name: a fault killed its own process the old way" "$txt"
	elif [ "$nk" -ne 3 ]; then
		notok "$name: $nk OOM kills in the log, not 3: nothing to tell the old way from" \
			"$txt"
	else
		ok "$name: no fault killed the faulting process by itself (3 OOM kills instead)"
	fi
	n=$(grep -c '^kcheck: .* checked: 0 mismatches$' "$txt")
	m=$(grep -vc '^#' "$list")
	k=$(grep -c '^frames: \([0-9]*\) free or cached before, \1 after$' "$txt")
	if [ "$n" -eq "$m" ] && [ "$k" -eq "$m" ]; then
		ok "$name: frames back and kcheck clean after each of the $m programs"
	else
		notok "$name: frames back after $k, kcheck clean after $n of $m programs" "$txt"
	fi
done
