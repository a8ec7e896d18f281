# tests/boot/ext2.sh: the host-made ext2 image on /dev/sda mounted read-only on /mnt, its
# manifest (/etc/ext2-manifest.sh, each line as "mf: LINE"), df, statfs and the disk's
# requests so far (/proc/diskstats), then umount
mkdir -p /mnt
mount -t ext2 -o ro /dev/sda /mnt || exit 1
echo "ext2: mounted"
sh /etc/ext2-manifest.sh /mnt | sed 's/^/mf: /'
df -k /mnt | sed 's/^/df: /'
stat -f -c 'statfs: bsize %S blocks %b free %f avail %a files %c ffree %d' /mnt
grep " sda " /proc/diskstats | sed "s/^/diskstats: /"
umount /mnt || exit 1
echo "ext2: unmounted"
