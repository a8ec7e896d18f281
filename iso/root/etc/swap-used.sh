# Between the programs of tests/boot/swap-stress.sh and swap-faults.sh: the swap in use
grep -E '^Swap(Total|Free|Cached):' /proc/meminfo
cat /proc/swaps
