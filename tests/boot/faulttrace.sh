#!/bin/sh
# faulttrace: one line per fault, checked word for word for a major file fault, a COW write and
# a device fault; then mapview turns the trace into an SVG. usage: tests/boot/faulttrace.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 3
# forkwait's text arrives by major file faults (fetches), and after its fork both processes
# break copy-on-write on the stack (do_wp_page, VM_FAULT_WRITE).
major='^faulttrace: pid [0-9]+ \(forkwait\) addr 0000000000401[0-9a-f]{3} pgoff 1 error 0x14'
major=$major' \(not-present read user fetch\) vma 401000-[0-9a-f]+ file -> 0x4 MAJOR'
cow='^faulttrace: pid [0-9]+ \(forkwait\) addr 00007fffffff[0-9a-f]{4} pgoff [0-9]+ error 0x7'
cow=$cow' \(protection write user\) vma [0-9a-f]+-7ffffffff000 anon -> 0x8 WRITE'
boot faulttrace 128M "qemu_exit faulttrace init=/bin/forkwait"
expect faulttrace 33 'run: /bin/forkwait: exit 0' "$major" "$cow"

# A device fault is traced as NOPAGE: the op installed the PTE itself
nopage='^faulttrace: pid [0-9]+ \(dev-kmsgbuf\) addr [0-9a-f]+ pgoff 0 error 0x6'
nopage=$nopage' \(not-present write user\) vma [0-9a-f]+-[0-9a-f]+ device -> 0x100 NOPAGE'
boot faulttrace-device 128M "qemu_exit faulttrace init=/bin/dev-kmsgbuf"
expect faulttrace-device 33 'run: /bin/dev-kmsgbuf: exit 0' "$nopage" \
	'^faulttrace: pid [0-9]+ \(dev-kmsgbuf\) .* device -> 0x2 SIGBUS'

# mapview turns the first trace into a picture: one band per VMA, one mark per fault
trace=$LOGS/faulttrace.log svg=$LOGS/faulttrace.svg
if python3 tests/mapview.py "$trace" "$svg" >"$LOGS/mapview.out" 2>&1; then
	nv=$(grep -o 'vma [0-9a-f]*-[0-9a-f]* [a-z-]* ->' "$trace" | sort -u | wc -l)
	nf=$(grep -c '^faulttrace:' "$trace")
	gv=$(grep -c 'class="vma"' "$svg")
	gf=$(grep -c 'class="fault' "$svg")
	gw=$(grep -c 'class="fault WRITE"' "$svg")
	if [ "$gf" -eq "$nf" ] && [ "$gv" -ge 3 ] && [ "$gw" -ge 1 ] &&
		grep -q '>file 401000<' "$svg"; then
		what="$gv VMA bands ($nv distinct ranges), $gf fault marks, COW marks"
		ok "mapview: an SVG of the trace: $what"
	else
		notok "mapview: SVG has $gv bands, $gf marks ($gw COW) for $nf faults" \
			"$LOGS/mapview.out"
	fi
else
	notok "mapview: failed on the faulttrace log" "$LOGS/mapview.out"
fi
