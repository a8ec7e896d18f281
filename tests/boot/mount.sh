#!/bin/sh
# busybox's mount, umount and df on faultline: init=/bin/sh runs the ramdisk's
# /usr/share/tests/mount.sh (a tmpfs on /mnt mounted, listed, remounted read-only and back,
# refused busy, unmounted; then a file made a loop device by losetup, ext2 made on it by
# busybox's mke2fs and mounted, and mount -o loop), whose "mount: " lines must be
# tests/boot/mount.expected exactly (the lines Linux gives for the same script), with no
# unknown system call on the way.
# usage: tests/boot/mount.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 3
boot mount-busybox 256M "qemu_exit init=/bin/sh,/usr/share/tests/mount.sh"
expect mount-busybox 33 'run: /bin/sh /usr/share/tests/mount.sh: exit 0'
log=$LOGS/mount-busybox.log
diff=$LOGS/mount-busybox.diff
if grep '^mount: ' "$log" | tr -d '\r' | diff -u tests/boot/mount.expected - >"$diff"; then
	n=$(grep -c . tests/boot/mount.expected)
	ok "mount: busybox's mount, umount and df: $n results as on Linux"
else
	notok "mount: busybox's results differ from tests/boot/mount.expected" "$diff"
fi
unknown=$(grep -o 'called unknown system call [0-9]*' "$log" | sort -u | awk '{ print $5 }' |
	tr '\n' ' ')
if [ -z "$unknown" ]; then
	ok "mount: busybox called no unknown system call"
else
	notok "mount: busybox called unknown system calls: $unknown" "$log"
fi
