#!/bin/sh
# Plain boots: the banner with memory map and frame counts, init= with arguments, and the
# benchmark program running to the end (never timed here: docs/bench.md).
# usage: tests/boot/basic.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 4
# (init=/bin/lsbin: the default, /bin/init, is the interactive shell: tests/boot/shell.sh)
boot banner 128M "qemu_exit hello=world init=/bin/lsbin"
expect banner 33 '^faultline [0-9.]+: a teaching kernel' 'memory map \([0-9]+ entries\)' \
	'available' 'command line: .*hello=world' 'frames: [0-9]+ total, [0-9]+ free' \
	'^lsbin: hello from ring 3, pid [0-9]+' 'lsbin: /bin has: ' \
	'run: /bin/lsbin: exit 0' 'boot complete'

# init= names the program pid 1 runs (commas: arguments)
boot init-arg 128M "qemu_exit init=/bin/args,one,two,three"
expect init-arg 33 'run: /bin/args one two three: exit 0' 'args: ok'

# make bench's program runs to the end; every kind must have been measured: a row that could
# not run says why instead of a figure
boot bench-smoke 256M "qemu_exit init=/bin/fbench,256"
expect bench-smoke 33 'run: /bin/fbench 256: exit 0' \
	'^anon_write_zerofill +[0-9.]+ +-?[0-9]+ +256 ' '^fbench: done'
rows=$(grep -Ec '^[a-z_0-9]+ +[0-9.]+ +-?[0-9]+ +256 ' "$LOGS/bench-smoke.log")
if grep -Eq '^[a-z_0-9]+ +n/a ' "$LOGS/bench-smoke.log"; then
	notok "bench-smoke: a benchmark kind could not run" "$LOGS/bench-smoke.log"
elif [ "$rows" -eq 0 ]; then
	notok "bench-smoke: no row of figures" "$LOGS/bench-smoke.log"
else
	ok "bench-smoke: every kind measured ($rows rows)"
fi
