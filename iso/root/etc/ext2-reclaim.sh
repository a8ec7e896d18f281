# tests/boot/ext2-reclaim.sh's guest half: in a 24 MiB machine with a swap disk (sdb), fsx runs on
# an ext2 file of up to 6 MiB while reclaim writes back and drops its pages and swaps fsx's own
# model out; each line "ext2r: ..." for the host, /proc/vmstat's counts before and after.
mkdir -p /mnt/p1
mount -t ext2 /dev/sda1 /mnt/p1
echo "ext2r: mount sda1 rw: exit $?"
grep -E '^(pgsteal_(kswapd|direct)|pgpgout|pswpout) ' /proc/vmstat | sed 's/^/ext2r: before /'
# (the arguments of tests/boot/ext2-reclaim.sh's fsx_args)
fsx -N 50000 -l 6291456 -o 65536 /mnt/p1/fsx 2>&1 | sed 's/^/ext2r: fsx: /'
grep -E '^(pgsteal_(kswapd|direct)|pgpgout|pswpout) ' /proc/vmstat | sed 's/^/ext2r: after /'
umount /mnt/p1
echo "ext2r: umount sda1: exit $?"
