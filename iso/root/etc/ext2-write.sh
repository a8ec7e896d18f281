# tests/boot/ext2-write.sh's guest half: on the empty ext2 file systems of sda1 (1 KiB blocks)
# and sda2 (4 KiB) user/fs-tree writes its tree, user/fsx runs on sda1, and sda3 is filled to
# ENOSPC; each line "ext2w: ..." for the host to compare with what it reads from the image.
for p in 1 2 3; do mkdir -p /mnt/p$p; done
for p in 1 2; do
	mount -t ext2 /dev/sda$p /mnt/p$p
	echo "ext2w: mount sda$p rw: exit $?"
	grep "^/dev/sda$p " /proc/mounts | cut -d' ' -f1-4 | sed 's/^/ext2w: mounts /'
	fs-tree build /mnt/p$p/tree 2>&1 | sed "s/^/ext2w: p$p build: /"
	fs-tree mmap /mnt/p$p/tree 2>&1 | sed "s/^/ext2w: p$p mmap: /"
	fs-tree manifest /mnt/p$p/tree | sed "s/^/ext2w: p$p manifest /"
done
# posix_fadvise on a disk's file: DONTNEED drops pages, WILLNEED and readahead(2) read them
fadvise /mnt/p1 2>&1 | sed 's/^/ext2w: fadvise: /'
# (the arguments of tests/boot/ext2-write.sh's fsx_args)
fsx -N 100000 -o 16384 /mnt/p1/fsx 2>&1 | sed 's/^/ext2w: fsx: /'
fsx -N 3000 -S 2 -l 25165824 /mnt/p1/fsx24 2>&1 | sed 's/^/ext2w: fsx24: /'
# A core dump on a disk (docs/coredump.md): the host's gdb reads it from sda2's image.
echo '/mnt/p2/core.%e' >/proc/sys/kernel/core_pattern
coredump crash
echo "ext2w: core: exit $?"
echo core >/proc/sys/kernel/core_pattern
# Read-only again: every kind of write refused with EROFS, and the file left as it was (rm -f:
# on the console, rm would ask before it removes a file it cannot write).
mount -o remount,ro /mnt/p2
echo "ext2w: remount sda2 ro: exit $?"
grep "^/dev/sda2 " /proc/mounts | cut -d' ' -f1-4 | sed 's/^/ext2w: remounted /'
touch /mnt/p2/tree/new 2>&1 | sed 's/^/ext2w: ro: /'
echo more 2>&1 >>/mnt/p2/tree/append | sed 's/^/ext2w: ro: /'
rm -f /mnt/p2/tree/owned 2>&1 | sed 's/^/ext2w: ro: /'
mkdir /mnt/p2/tree/newdir 2>&1 | sed 's/^/ext2w: ro: /'
# Unmounted (every inode and buffer written, let go) and mounted again: the same tree.
for p in 1 2; do
	umount /mnt/p$p
	echo "ext2w: umount sda$p: exit $?"
	mount -t ext2 -o ro /dev/sda$p /mnt/p$p
	echo "ext2w: mount sda$p again: exit $?"
	fs-tree manifest /mnt/p$p/tree | sed "s/^/ext2w: again p$p manifest /"
	umount /mnt/p$p
done
mount -t ext2 /dev/sda3 /mnt/p3
echo "ext2w: mount sda3 rw: exit $?"
grep "^/dev/sda3 " /proc/mounts | cut -d' ' -f1-4 | sed 's/^/ext2w: mounts /'
# (only where sda3 is: the program fills the file system it is given)
grep -q "^/dev/sda3 /mnt/p3 " /proc/mounts && fs-enospc /mnt/p3 2>&1 | sed 's/^/ext2w: enospc: /'
umount /mnt/p3
echo "ext2w: umount sda3: exit $?"
