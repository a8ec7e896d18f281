# tests/boot/partitions.sh: /dev/sda's partitions, each read at its start and at its end;
# with "write", writes into sda3 and sda5 (the MBR image) that the host checks afterwards
cat /proc/partitions
echo "parts: sda sector 100 '$(dd if=/dev/sda bs=512 skip=100 count=1 2>/dev/null | head -c 13)'"
for dev in /dev/sda[0-9]*; do
	[ -b "$dev" ] || continue # no partition: the pattern stays as written
	n=$(blockdev --getsz "$dev")
	first=$(dd if="$dev" bs=512 count=1 2>/dev/null | head -c 13)
	last=$(dd if="$dev" bs=512 skip=$((n - 1)) count=1 2>/dev/null | head -c 13)
	tail=$(dd if="$dev" bs=512 skip=$((n - 1)) count=4 2>/dev/null | wc -c)
	past=$(dd if="$dev" bs=512 skip="$n" count=1 2>/dev/null | wc -c)
	echo "parts: ${dev#/dev/} $n first '$first' last '$last' tail $tail past $past"
done
[ "$1" = write ] || exit 0
n=$(blockdev --getsz /dev/sda3)
# two sectors from the last one: the first is written, the second is -ENOSPC
dd if=/dev/zero of=/dev/sda3 bs=512 seek=$((n - 1)) count=2 conv=notrunc 2>&1 | grep -v records
echo "parts: write across sda3's end: $(dd if=/dev/sda3 bs=512 skip=$((n - 1)) 2>/dev/null |
	tr -d '\0' | wc -c) bytes not zero in its last sector"
printf 'x' | dd of=/dev/sda3 bs=512 seek="$n" conv=notrunc 2>&1 | grep -v records
printf 'sda3 written!\n' | dd of=/dev/sda3 bs=512 seek=$((n - 1)) conv=notrunc 2>/dev/null
printf 'sda5 written!\n' | dd of=/dev/sda5 conv=notrunc 2>/dev/null
echo "parts: read back '$(dd if=/dev/sda3 bs=512 skip=$((n - 1)) 2>/dev/null | head -c 13)'" \
	"'$(head -c 13 /dev/sda5)'"
