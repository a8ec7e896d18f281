# tests/boot/legacy.sh: the truncate race on a file of an ext2 disk (/dev/sda), whose faults read
# the disk itself (docs/history.md, "On a disk"); $1: expect-race (legacy_nopage) or -
mount -t ext2 /dev/sda /mnt || exit 1
grep -E '^pgpgin ' /proc/vmstat | sed 's/^/race-ext2: before /'
file-race 300 "$1" /mnt
rc=$?
grep -E '^pgpgin ' /proc/vmstat | sed 's/^/race-ext2: after /'
umount /mnt
exit $rc
