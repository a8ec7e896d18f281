# tests/boot/legacy.sh: the truncate race on a file of an ext2 disk (/dev/sda), whose faults read
# the disk itself (docs/history.md, "On a disk"); $1: expect-race (legacy_nopage) or -
mount -t ext2 /dev/sda /mnt || exit 1
file-race 300 "$1" /mnt
rc=$?
umount /mnt
exit $rc
