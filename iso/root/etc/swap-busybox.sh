# busybox's swapon, swapoff and free on the swap disk (tests/boot/swap.sh, docs/swap.md)
set -e
swapon -d /dev/sda
cat /proc/swaps
grep '^Swap' /proc/meminfo
free
swapoff /dev/sda
cat /proc/swaps
grep '^SwapTotal' /proc/meminfo
echo swap-busybox: ok
