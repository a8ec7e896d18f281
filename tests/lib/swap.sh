# Checks shared by tests/boot/swap-stress.sh and swap-faults.sh (sourced after boot.sh) on the log
# of a runlist boot with runstats and kcheck, whose list runs /etc/swap-used.sh between programs.

# swap_mkimg FILE MIB: a fresh swap area of MIB MiB (sparse) made by mkswap; 1 if that failed
swap_mkimg() {
	rm -f "$1" && truncate -s "$2M" "$1" &&
		"${MKSWAP:-/sbin/mkswap}" -L faultline-swap "$1" >/dev/null 2>&1
}

# swap_log NAME: the serial log without carriage returns
swap_log() { tr -d '\r' <"$LOGS/$1.log"; }

# swap_after_each NAME: after every program the free frames, the swap slots and kcheck are as
# at the start: each runstats pair equal, SwapFree = SwapTotal and a Used column of 0 in every
# /proc/swaps printed, one kcheck line of 0 mismatches per program. One test line each.
swap_after_each() {
	log=$(swap_log "$1")
	runs=$(echo "$log" | grep -c '^run: .*: \(exit\|killed\|timed out\)')
	frames=$(echo "$log" |
		sed -n 's/^frames: \([0-9]*\) free or cached before, \([0-9]*\) after$/\1 \2/p')
	if [ "$runs" -gt 0 ] && [ "$(echo "$frames" | grep -c .)" = "$runs" ] &&
		echo "$frames" | awk '$1 != $2 { exit 1 }'; then
		ok "$1: every frame back after each of $runs programs"
	else
		notok "$1: $runs programs; free frames (before after): $(echo $frames)" \
			"$LOGS/$1.log"
	fi
	clean=$(echo "$log" | grep -c '^kcheck: .* checked: 0 mismatches$')
	if [ "$runs" -gt 0 ] && [ "$clean" = "$runs" ] && ! echo "$log" | grep -q \
		'^kcheck: .* [1-9][0-9]* mismatches'; then
		ok "$1: kcheck: 0 mismatches after each of $runs programs"
	else
		notok "$1: kcheck: $clean clean checks after $runs programs" "$LOGS/$1.log"
	fi
	# SwapTotal then SwapFree, as /etc/swap-used.sh prints them; the Used column of /dev/sda
	swap=$(echo "$log" | awk '/^SwapTotal:/ { t = $2 } /^SwapFree:/ { print t, $2 }')
	used=$(echo "$log" | awk '$1 == "/dev/sda" && $2 == "partition" { print $4 }')
	if [ -n "$swap" ] && [ -n "$used" ] && echo "$swap" | awk '$1 != $2 { exit 1 }' &&
		! echo "$used" | grep -qv '^0$'; then
		ok "$1: every swap slot free between the programs ($(echo "$used" | wc -l) looks)"
	else
		what="swap (SwapTotal SwapFree): $(echo $swap); /proc/swaps Used: $(echo $used)"
		notok "$1: $what" "$LOGS/$1.log"
	fi
}

# swap_traffic NAME MIB: swap-stress MIB's line of statistics shows swapping: major faults, and
# pswpout and pswpin when /proc/vmstat has them. One test line.
swap_traffic() {
	line=$(swap_log "$1" | grep -m1 "^swap-stress: $2 MiB: major faults")
	maj=$(echo "$line" | sed -n 's/.*major faults \([0-9]*\).*/\1/p')
	in=$(echo "$line" | sed -n 's/.*pswpin \([0-9]*\).*/\1/p')
	out=$(echo "$line" | sed -n 's/.*pswpout \([0-9]*\).*/\1/p')
	if [ "${maj:-0}" -gt 0 ] &&
		{ [ -z "$in$out" ] || { [ "$in" -gt 0 ] && [ "$out" -gt 0 ]; }; }; then
		ok "$1: $2 MiB went through swap: ${line#swap-stress: }"
	else
		notok "$1: $2 MiB did not go out to swap and back: '${line:-no statistics line}'"
	fi
}

# swap_excerpt NAME PROGRAM: the log of one program, from the end of the one before to the
# kcheck after PROGRAM (text of its run: line), into $LOGS/NAME.excerpt; prints that path
swap_excerpt() {
	swap_log "$1" | awk -v p="$2" '/^run: / { if (done) exit; if (index($0, p)) done = 1;
		else { n = 0; next } } !done && /^(frames|kcheck): / { n = 0; next }
		{ l[n++] = $0 } done && /^kcheck: / { exit }
		END { for (i = 0; i < n; i++) print l[i] }' >"$LOGS/$1.excerpt"
	echo "$LOGS/$1.excerpt"
}
