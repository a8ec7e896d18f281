#!/bin/sh
# busybox sh on faultline (docs/shell.md). First non-interactively: init=/bin/sh runs the
# ramdisk's /usr/share/tests/shell.sh, whose "sh: " lines must be tests/boot/shell.expected
# exactly, with no unknown system call on the way. Then the boot `make run` gives (no
# runlist=, no init=): a person's session typed into the serial port through QEMU's chardev
# socket (tests/lib/serial_session.py, tests/boot/shell-session.txt); `exit` ends the boot.
# usage: tests/boot/shell.sh
. "$(dirname "$0")/../lib/boot.sh"

# the script's three checks, one per "check" of the session, the session's end
plan $((3 + $(grep -c '^check ' tests/boot/shell-session.txt) + 1))
boot shell-script 256M "qemu_exit init=/bin/sh,/usr/share/tests/shell.sh"
expect shell-script 33 'run: /bin/sh /usr/share/tests/shell.sh: exit 0'
log=$LOGS/shell-script.log
diff=$LOGS/shell-script.diff
if grep '^sh: ' "$log" | tr -d '\r' | diff -u tests/boot/shell.expected - >"$diff"; then
	ok "shell: busybox sh's pipelines, redirections, loops and $(grep -c . \
		tests/boot/shell.expected) applet results as expected"
else
	notok "shell: busybox sh's results differ from tests/boot/shell.expected" "$diff"
fi
# getgroups (115) comes with the credentials work; anything else is a gap of this kernel
unknown=$(grep -o 'called unknown system call [0-9]*' "$log" | sort -u | awk '{ print $5 }' |
	tr '\n' ' ')
case $unknown in
"") ok "shell: busybox called no unknown system call" ;;
"115 ") notok "shell: busybox called unknown system call 115 (depends on wt/creds: getgroups)" \
	"$log" ;;
*) notok "shell: busybox called unknown system calls: $unknown" "$log" ;;
esac

# The interactive session: QEMU waits for the driver to connect (wait=on), so nothing is lost
sock=$LOGS/shell-serial.sock log=$LOGS/shell-session.log
SHELL_MONITOR=$LOGS/shell-monitor.sock # for tests/boot/shell-keys.sh: the keyboard
export SHELL_MONITOR
rm -f "$sock" "$SHELL_MONITOR"
sh tests/lib/qemu.sh --iso "$ISO" --mem 256M --kargs "qemu_exit" --monitor "$SHELL_MONITOR" \
	--serial "unix:$sock,server=on,wait=on" --timeout 300 </dev/null \
	>"$LOGS/shell-session.qemu" 2>&1 &
qpid=$!
python3 tests/lib/serial_session.py "$sock" tests/boot/shell-session.txt "$log" shell \
	>"$LOGS/shell-session.tap" 2>&1
wait $qpid
rc=$?
relay "$LOGS/shell-session.tap" "$log" "shell session"
if [ "$rc" = 33 ]; then
	ok "shell: QEMU ended with faultline's success status after the session"
else
	notok "shell: QEMU exit status $rc after the session, expected 33" "$log"
fi
