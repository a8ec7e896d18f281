# tests/boot/ext2-read.sh's guest half: mounts the ext2 file systems of sda1-3 and prints what
# they hold (each line "ext2: pN ..." for the host to compare), then tries the broken ones.
for p in 1 2 3 5 6 7 8 9 10 11 12 13; do mkdir -p /mnt/p$p; done
# Read-write asked: the kernel says it cannot write and answers EROFS; busybox retries
# read-only (silently: it mounts with MS_SILENT).
mount -t ext2 /dev/sda1 /mnt/p1
echo "ext2: mount sda1 rw: exit $?"
for p in 2 3; do
	mount -t ext2 -o ro /dev/sda$p /mnt/p$p
	echo "ext2: mount sda$p: exit $?"
done
# Read-ahead, on files nothing has read yet: the disk's 128 KiB (256 sectors), then none.
fsread ra /mnt/p3/big | sed 's/^/ext2: ra /'
fsread setra /dev/sda 0 | sed 's/^/ext2: ra /'
fsread ra /mnt/p2/big | sed 's/^/ext2: ra /'
fsread setra /dev/sda 256 | sed 's/^/ext2: ra /'
# Before anything reads them: their pages come in by page faults on the mapping.
fsread hash /mnt/p1/big /mnt/p1/many/a-file-with-a-long-name-008 /mnt/p1/sparse |
	sed 's/^/ext2: hash /'
for p in 1 2 3; do
	cd /mnt/p$p || continue
	find . | sort | xargs stat -c "ext2: p$p stat %n %i %h %f %u %g %s %b %Y"
	find . -type f | sort | xargs md5sum | sed "s/^/ext2: p$p md5 /"
	find . -type l | sort | while read -r l; do echo "ext2: p$p link $l $(readlink "$l")"; done
	stat -f -c "ext2: p$p statfs %t %S %b %f %a %c %d" .
	stat -c "ext2: p$p dev %d" .
	fsread ls ./many | sed "s/^/ext2: p$p ls /"
	fsread same hard many/a-file-with-a-long-name-008 | sed "s/^/ext2: p$p same /"
	fsread same big a/../big | sed "s/^/ext2: p$p same /"
	fsread same a a/b/.. | sed "s/^/ext2: p$p same /"
	fsread same big edge | sed "s/^/ext2: p$p same /"
	for f in big sparse; do
		fsread bmap $f 0 11 12 75 267 268 300 1035 1036 5120 16896 65804 67584 |
			sed "s/^/ext2: p$p bmap /"
	done
	cd /
done
# Read-only it stays: a remount read-write and a new file are refused (EROFS); unmounted
# (every inode let go) and mounted again, it reads the same.
mount -o remount,rw /mnt/p2 2>&1 | sed 's/^/ext2: remount sda2: /'
touch /mnt/p2/new 2>&1 | sed 's/^/ext2: touch: /'
umount /mnt/p2
echo "ext2: umount sda2: exit $?"
mount -t ext2 -o ro /dev/sda2 /mnt/p2
echo "ext2: mount sda2 again: exit $?"
cd /mnt/p2 && md5sum big sparse | sed 's/^/ext2: again md5 /'
cd /
# What must be refused: each mount's exit status and busybox's reason.
for p in 5 6 7 9 10 12; do
	mount -t ext2 -o ro /dev/sda$p /mnt/p$p 2>&1 | sed "s/^/ext2: mount sda$p: /"
done
mount -t ext2 -o ro /dev/sda8 /mnt/p8
echo "ext2: mount sda8: exit $?"
ls /mnt/p8 | sed 's/^/ext2: p8 root /'
fsread ls /mnt/p8/d | sed 's/^/ext2: p8 d /'
cat /mnt/p8/d/x 2>&1 | sed 's/^/ext2: p8 x /'
mount -t ext2 -o ro /dev/sda13 /mnt/p13
echo "ext2: mount sda13: exit $?"
cat /mnt/p13/f 2>&1 >/dev/null | sed 's/^/ext2: p13 f /'
cat /mnt/p13/g | sed 's/^/ext2: p13 g /'
mount -t ext2 /dev/sda11 /mnt/p11
echo "ext2: mount sda11 rw: exit $?"
ls /mnt/p11 | sed 's/^/ext2: p11 root /'
