# tests/boot/swap-faults.sh: its blkdebug config on a plain disk: reads pass until the first
# write, then every read fails with EIO (any sector, again and again); writes still pass
dd if=/dev/sda of=/dev/null bs=4096 count=1 || exit 1
dd if=/dev/zero of=/dev/sda bs=4096 count=1 seek=16 conv=notrunc || exit 2
if dd if=/dev/sda of=/dev/null bs=4096 count=1 skip=32; then exit 3; fi
# page 0 is in the device's page cache since the first read: drop the cache (BLKFLSBUF, as on
# Linux) so that reading it again asks the disk
blockdev --flushbufs /dev/sda || exit 6
if dd if=/dev/sda of=/dev/null bs=4096 count=1; then exit 4; fi
dd if=/dev/zero of=/dev/sda bs=4096 count=1 seek=17 conv=notrunc || exit 5
echo swap-eio: ok
