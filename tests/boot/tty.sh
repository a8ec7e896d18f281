#!/bin/sh
# The terminal: keys typed into the serial port reach a program's read() through ttyS0 (the
# tty behind /dev/console): line editing with echo, ^U, ^D, and ^C as SIGINT to the
# foreground group; then keys pressed on the PS/2 keyboard (QEMU's sendkey) reach /dev/tty1.
# The program is user/tty-upper. usage: tests/boot/tty.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 6
sock="$LOGS/tty-serial.sock" log="$LOGS/tty-serial.log"
rm -f "$sock" "$log"
sh tests/lib/qemu.sh --iso "$ISO" --mem 128M --kargs "init=/bin/tty-upper qemu_exit" \
	--serial "unix:$sock,server=on,wait=off" --timeout "$TIMEOUT" \
	</dev/null >"$LOGS/tty-serial.qemu" 2>&1 &
qpid=$!
python3 tests/boot/tty.py "$sock" "$log" <<'KEYS'
waitline tty-upper: ready
type hello wprld\x7f\x7f\x7f\x7forld\r
wait upper: HELLO WORLD
type junk\x15ok\r
wait upper: OK
type abc\x04
wait (no newline)
type xyz\x03
wait SIGINT
KEYS
wait $qpid
rc=$?
tr -d '\r' <"$log" >"$log.txt"
expect tty-serial 33 'tty-upper: ready, pgrp ([0-9]+), foreground \1' \
	'run: /bin/tty-upper: exit 130' 'faultline: boot complete'
if grep -q '^upper: HELLO WORLD$' "$log.txt" && grep -q '^upper: OK$' "$log.txt"; then
	ok "tty-serial: canonical lines after erase (DEL) and kill (^U)"
else
	notok "tty-serial: the edited lines were not read as typed" "$log.txt"
fi
if grep -q 'upper: ABC (no newline)$' "$log.txt"; then
	ok "tty-serial: ^D ends a line without a newline"
else
	notok "tty-serial: ^D did not end the line" "$log.txt"
fi
# echo: what was typed, each erase as "\b \b", the kill erasing "junk", ^C shown as ^C
bs=$(printf '\b \b')
if grep -qF "hello wprld$bs$bs$bs${bs}orld" "$log" && grep -q '^xyz^Ctty-upper: SIGINT$' \
	"$log.txt" && grep -qF "junk$bs$bs$bs${bs}ok" "$log"; then
	ok "tty-serial: echo, ECHOE erase, ECHOKE kill and ECHOCTL ^C on the serial line"
else
	notok "tty-serial: the echo is not what was typed" "$log.txt"
fi
# (the line must be there, ended by CR NL: an empty log has no doubled CR either)
if grep -q "upper: OK$(printf '\r\r')" "$log"; then
	notok "tty-serial: a doubled carriage return (ONLCR and the serial driver)" "$log.txt"
elif grep -q "^upper: OK$(printf '\r')\$" "$log"; then
	ok "tty-serial: one carriage return per newline"
else
	notok "tty-serial: no line 'upper: OK' ended by CR NL" "$log.txt"
fi

# The keyboard: QEMU's sendkey through the monitor, read by tty-upper from /dev/tty1
sock="$LOGS/tty-kbd.sock" log="$LOGS/tty-kbd.log"
rm -f "$sock" "$log"
sh tests/lib/qemu.sh --iso "$ISO" --mem 128M --kargs "init=/bin/tty-upper,/dev/tty1 qemu_exit" \
	--serial "$log" --monitor "$sock" --timeout "$TIMEOUT" \
	</dev/null >"$LOGS/tty-kbd.qemu" 2>&1 &
qpid=$!
for _ in $(seq 1 1200); do
	grep -q 'tty-upper: ready' "$log" 2>/dev/null && break
	kill -0 $qpid 2>/dev/null || break
	sleep 0.1
done
for k in h i shift-a backspace b spc shift-1 ret ctrl-c; do
	printf 'sendkey %s\n' "$k" | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1
	sleep 0.2
done
wait $qpid
rc=$?
expect tty-kbd 33 'upper: HIB !' 'tty-upper: SIGINT' 'run: /bin/tty-upper /dev/tty1: exit 130'
