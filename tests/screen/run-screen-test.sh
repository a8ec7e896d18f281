#!/bin/sh
# Screenshots of the framebuffer console: boot the ISO under BIOS, under UEFI (OVMF) and once
# with enough output to scroll, wait for "boot complete" on the serial line, save the screen
# through QEMU's monitor (screendump) and check its pixels with check-screen.py. The boots run
# side by side. Then, under each firmware, the boot `make run` gives: keys typed with sendkey
# reach the shell on tty1 and its answer is on the screen (tty1-keys.py). Prints "ok - ..." /
# "not ok - ..." lines.
# usage: tests/screen/run-screen-test.sh ISO LOGDIR FONT.psf
ISO=$1 LOGS=$2 FONT=$3
HERE=$(dirname "$0")
# five checks of each screendump (check-screen.py), four of each typing session (tty1-keys.py)
echo "1..$((3 * 5 + 2 * 4))"

# shot NAME KARGS [launcher option...]: boot, wait for the end of the boot, write
# $LOGS/NAME.ppm
shot() {
	name=$1 kargs=$2
	shift 2
	sock="$LOGS/$name.sock" log="$LOGS/$name.log"
	rm -f "$sock" "$log" "$LOGS/$name.ppm"
	sh "$HERE/../lib/qemu.sh" --iso "$ISO" --mem 128M --kargs "$kargs" --serial "$log" \
		--monitor "$sock" --timeout 90 "$@" </dev/null >"$LOGS/$name.qemu" 2>&1 &
	qpid=$!
	for _ in $(seq 1 600); do
		grep -q 'boot complete' "$log" 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.1
	done
	# The serial line gets each printk before the framebuffer does: let the drawing finish.
	sleep 0.5
	printf 'screendump %s\n' "$LOGS/$name.ppm" | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1
	printf 'quit\n' | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1
	wait $qpid 2>/dev/null
}

# (init=/bin/hello: one short line, so the banner stays on the screen; the default is the shell)
shot screen-bios "hello=screen init=/bin/hello" &
shot screen-uefi "hello=screen init=/bin/hello" --firmware ovmf &
# More lines than the screen has rows (48), each with a tab and a backspace: busybox printf
# repeats its format for each argument (28 of them: the runner passes at most 32 words)
shot screen-scroll "init=/bin/busybox,printf,%s\\tx\\by\\n\\n$(printf ',%s' $(seq 28))" &
wait

# check MODE NAME: the checks of one screendump against its serial log
check() {
	f="$LOGS/screen-$2"
	python3 "$HERE/check-screen.py" "$1" "$2" "$f.ppm" "$f.log" "$FONT"
}
check --banner bios
check --banner uefi
check --scrolled scroll

# keys NAME [launcher option...]: the default boot (shells on the console and on tty1), typed
# on and read back by tty1-keys.py through the monitor; its output goes to $LOGS/NAME.out
keys() {
	name=$1
	shift
	sock="$LOGS/$name.sock" log="$LOGS/$name.log"
	rm -f "$sock" "$log" "$LOGS/$name.ppm"
	sh "$HERE/../lib/qemu.sh" --iso "$ISO" --mem 256M --serial "$log" --monitor "$sock" \
		--timeout 120 "$@" </dev/null >"$LOGS/$name.qemu" 2>&1 &
	qpid=$!
	for _ in $(seq 1 100); do # the script waits for the shell itself (no "boot complete")
		[ -S "$sock" ] && break
		sleep 0.1
	done
	python3 "$HERE/tty1-keys.py" "${name#screen-}" "$sock" "$log" "$LOGS/$name.ppm" "$FONT" \
		"$(dirname "$ISO")/initrd/bin" >"$LOGS/$name.out" 2>&1
	printf 'quit\n' | socat - UNIX-CONNECT:"$sock" >/dev/null 2>&1
	wait $qpid 2>/dev/null
}
keys screen-keys-bios &
keys screen-keys-uefi --firmware ovmf &
wait
cat "$LOGS/screen-keys-bios.out" "$LOGS/screen-keys-uefi.out"
