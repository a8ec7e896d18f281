# tests/boot/swap-faults.sh: its blkdebug config on a plain disk: reads pass until the first
# write, then exactly one read fails with EIO and the next ones pass again
dd if=/dev/sda of=/dev/null bs=4096 count=1 || exit 1
dd if=/dev/zero of=/dev/sda bs=4096 count=1 seek=16 conv=notrunc || exit 2
if dd if=/dev/sda of=/dev/null bs=4096 count=1 skip=32; then exit 3; fi
dd if=/dev/sda of=/dev/null bs=4096 count=1 skip=32 || exit 4
dd if=/dev/sda of=/dev/null bs=4096 count=4 skip=40 || exit 5
echo swap-eio: ok
