#!/bin/sh
# /dev/fb0: fbdemo draws through a device mapping (NOPAGE faults). A screendump while it holds
# the mapping: the gradient's corners and the Mandelbrot's body; again after it exits: the
# console has taken the screen back (tests/boot/fbdemo.py). usage: tests/boot/fbdemo.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 2
sock="$LOGS/fbdemo.sock" log="$LOGS/fbdemo.log"
rm -f "$sock" "$log" "$LOGS/fbdemo-1.ppm" "$LOGS/fbdemo-2.ppm"
sh tests/lib/qemu.sh --iso "$ISO" --mem 256M --kargs "init=/bin/fbdemo,4" --serial "$log" \
	--monitor "$sock" --timeout 90 </dev/null >"$LOGS/fbdemo.qemu" 2>&1 &
qpid=$!
monitor() { printf '%s\n' "$1" | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1; }
shot() { # shot PATTERN FILE: wait for PATTERN in the serial log, then screendump
	for _ in $(seq 1 600); do
		grep -q "$1" "$log" 2>/dev/null && break
		sleep 0.1
	done
	monitor "screendump $2"
	sleep 0.5
}
shot 'fbdemo: drawn' "$LOGS/fbdemo-1.ppm"
shot 'run: /bin/fbdemo 4: exit 0' "$LOGS/fbdemo-2.ppm"
monitor quit
wait $qpid 2>/dev/null

check=$LOGS/fbdemo.check
python3 tests/boot/fbdemo.py "$LOGS/fbdemo-1.ppm" "$LOGS/fbdemo-2.ppm" >"$check" 2>&1
if grep -q '^demo True' "$check"; then
	ok "fbdemo: its pixels on the screen (device mapping, NOPAGE)"
else
	notok "fbdemo: screendump does not show the demo" "$check"
fi
if grep -q '^console True' "$check"; then
	ok "fbdemo: after munmap the console redraws the screen"
else
	notok "fbdemo: the console did not take the screen back" "$check"
fi
