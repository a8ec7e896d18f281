# tests/boot/ext2-eio.sh's guest half: /dev/sda (QEMU's blkdebug fails every write to the
# blocks of /lost and to the block of /meta's inode) mounted and given to fs-eio, unmounted;
# then the loop half on /dev/sdb.
mkdir -p /mnt/eio
mount -t ext2 /dev/sda /mnt/eio || exit 1
fs-eio /mnt/eio 2>&1 | sed 's/^/disk: /'
fs-eio /mnt/eio meta 2>&1 | sed 's/^/disk: meta: /'
umount /mnt/eio
echo "disk: umount: exit $?"
sh /etc/ext2-eio-loop.sh /dev/sdb /mnt fs-eio
