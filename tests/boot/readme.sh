#!/bin/sh
# What README.md and /etc/motd tell a newcomer to type, typed as written into `make run` at its
# defaults on a pseudo-terminal (tests/boot/readme_session.py makes the session from the two
# files, tests/lib/serial_session.py types it): each suggestion does what its line says, and
# `exit` ends QEMU with success and make with status 0. usage: tests/boot/readme.sh
. "$(dirname "$0")/../lib/boot.sh"

session="$LOGS/readme.session" log="$LOGS/readme.log"
python3 tests/boot/readme_session.py README.md iso/root/etc/motd >"$session" || exit 1
plan "$(grep -c '^check ' "$session")"
# no window: the serial console is the terminal, as on a machine without a display
env -u DISPLAY -u WAYLAND_DISPLAY python3 tests/lib/serial_session.py "exec:make -s run" \
	"$session" "$log" readme >"$LOGS/readme.tap" 2>&1
relay "$LOGS/readme.tap" "$log"
