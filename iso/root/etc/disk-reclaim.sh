# tests/boot/disk.sh: all of /dev/sda read through its page cache on a machine with less RAM
# than the disk holds, so reclaim must drop the device's pages (docs/disks.md)
echo "disk-reclaim: read $(dd if=/dev/sda bs=1M 2>/dev/null | wc -c) bytes"
echo "disk-reclaim: last sector '$(dd if=/dev/sda bs=512 skip=81919 count=1 2>/dev/null |
	head -c 14)'"
grep -E '^(Buffers|Cached):' /proc/meminfo | sed 's/^/disk-reclaim: /'
grep -E '^pgsteal_kswapd' /proc/vmstat | sed 's/^/disk-reclaim: /'
awk '$3 == "sda" { print "disk-reclaim: sda: " $4 " reads, " $6 " sectors" }' /proc/diskstats
