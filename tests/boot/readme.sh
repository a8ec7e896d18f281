#!/bin/sh
# What README.md and /etc/motd tell a newcomer to type, typed as written into `make run` at its
# defaults on a pseudo-terminal (tests/boot/readme_session.py makes the session from the two
# files, tests/lib/serial_session.py types it): each suggestion does what its line says, and
# `exit` ends QEMU with success and make with status 0; what it wrote to /mnt is then on
# build/disk.img, which the host's e2fsck finds clean. usage: tests/boot/readme.sh
. "$(dirname "$0")/../lib/boot.sh"

session="$LOGS/readme.session" log="$LOGS/readme.log"
python3 tests/boot/readme_session.py README.md iso/root/etc/motd >"$session" || exit 1
plan "$(($(grep -c '^check ' "$session") + 1))" # and the disk after the session
# no window: the serial console is the terminal, as on a machine without a display
env -u DISPLAY -u WAYLAND_DISPLAY python3 tests/lib/serial_session.py "exec:make -s run" \
	"$session" "$log" readme >"$LOGS/readme.tap" 2>&1
relay "$LOGS/readme.tap" "$log"
# What the session wrote to /mnt is on build/disk.img after `exit`, which unmounted it clean.
debugfs -R 'cat /hi' build/disk.img >"$LOGS/readme.hi" 2>/dev/null
e2fsck -fn build/disk.img >"$LOGS/readme.fsck" 2>&1
fsck_rc=$?
if [ "$(cat "$LOGS/readme.hi")" = hi ] && [ $fsck_rc = 0 ]; then
	ok "readme: /mnt/hi is on build/disk.img after the session, and e2fsck -fn finds it clean"
else
	notok "readme: build/disk.img after the session: /hi holds '$(cat "$LOGS/readme.hi")' \
(want hi), e2fsck -fn exit $fsck_rc" "$LOGS/readme.fsck"
fi
