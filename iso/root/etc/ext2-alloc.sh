# tests/boot/ext2-alloc.sh's guest half: files mke2fs -d made, rewritten, appended, extended
# through holes and cut on sda1 (1 KiB blocks) and sda2 (4 KiB); the super block's state while
# mounted; a corrupt block bitmap (sda3), a block already free (sda4). Lines "alloc: ...".
# s_state, 2 bytes at byte 1082 of the partition: 1 clean, 0 mounted read-write
state() { echo "alloc: $1 state $(dd if="$2" bs=2 skip=541 count=1 2>/dev/null | od -An -tu2)"; }
for p in 1 2 3 4; do mkdir -p /mnt/p$p; done
for p in 1 2; do
	mount -t ext2 /dev/sda$p /mnt/p$p
	echo "alloc: mount sda$p: exit $?"
	cd /mnt/p$p || continue
	echo hello >f
	echo more >>f
	dd if=/dev/zero of=big bs=4096 count=1280 2>/dev/null
	i=0
	while [ $i -lt 1280 ]; do printf '%08d' $i; i=$((i + 1)); done >>big
	dd if=/etc/motd of=sparse bs=1024 seek=70000 conv=notrunc 2>/dev/null
	truncate -s 11 t
	truncate -s 100000 shrink
	truncate -s 5000000 app
	echo end >>app
	chmod 640 f
	chown 1234:5678 f
	touch -d '2020-01-02 03:04:05' f
	stat -c "alloc: p$p stat %n %s %b" app big f shrink sparse t
	stat -c "alloc: p$p owner %n %a %u %g %Y" f
	rm xa # on sda1, its block of extended attributes goes too
	sync
	state "p$p synced" /dev/sda$p
	cd /
	if [ $p = 2 ]; then
		mount -o remount,ro /mnt/p2
		state "p2 remounted ro" /dev/sda2
		mount -o remount,rw /mnt/p2
		state "p2 remounted rw" /dev/sda2
	fi
	umount /mnt/p$p
	echo "alloc: umount sda$p: exit $?"
	state "p$p unmounted" /dev/sda$p
done
# group 0's bitmap marks an inode table block free: nothing is taken from it (EIO, a line)
mount -t ext2 /dev/sda3 /mnt/p3
echo "alloc: mount sda3: exit $?"
echo data >>/mnt/p3/empty
echo "alloc: p3 append: exit $?"
umount /mnt/p3
# a block of victim is free in the bitmap already: said when victim is cut, the rest freed;
# a file past 2 GiB on a revision 0 file system: large_file and revision 1
mount -t ext2 /dev/sda4 /mnt/p4
echo "alloc: mount sda4: exit $?"
truncate -s 0 /mnt/p4/victim
echo "alloc: p4 truncate: exit $?"
dd if=/etc/motd of=/mnt/p4/huge bs=1M seek=3072 2>/dev/null
stat -c "alloc: p4 stat %n %s %b" /mnt/p4/huge
# 1 KiB blocks: a file of 17247252480 bytes at most (the triple indirect block's reach)
dd if=/etc/motd of=/mnt/p4/huge bs=1024 seek=16843019 count=1 conv=notrunc 2>/dev/null
echo "alloc: p4 last block: exit $?"
dd if=/etc/motd of=/mnt/p4/huge bs=1024 seek=16843020 count=1 2>&1 | sed 's/^/alloc: p4 past: /'
truncate -s 17247252481 /mnt/p4/huge 2>&1 | sed 's/^/alloc: p4 truncate past: /'
stat -c "alloc: p4 size %s" /mnt/p4/huge
umount /mnt/p4
echo "alloc: umount sda4: exit $?"
# a file fsynced, then the boot ends with sda4 still mounted, as a crash would end it
mount -t ext2 /dev/sda4 /mnt/p4
cat /etc/motd /etc/motd /etc/motd >/mnt/p4/empty
sync /mnt/p4/empty
echo "alloc: p4 fsync: exit $?"
