# tests/boot/swap.sh: /dev/sda is swap since boot (no noswap); off, on again, off
set -e
cat /proc/swaps
grep -q '^/dev/sda ' /proc/swaps
if swapon /dev/sda; then echo 'swap-boot: a second swapon worked'; exit 1; fi
swapoff /dev/sda
if grep -q '^/dev/sda ' /proc/swaps; then echo 'swap-boot: still listed'; exit 1; fi
swapon /dev/sda
grep -q '^/dev/sda ' /proc/swaps
swapoff /dev/sda
echo swap-boot: ok
