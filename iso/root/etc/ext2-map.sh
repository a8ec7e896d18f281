# The lab block_to_path's guest half (tests/exercise.sh block_to_path): on each file system of
# tests/boot/ext2-map.py's disk, the first line of each stamped block of the sparse file map,
# then where FIBMAP says its blocks lie; the lists are the files read and bmap beside it.
for p in 1 2; do
	mkdir -p /mnt/p$p
	mount -t ext2 -o ro /dev/sda$p /mnt/p$p || continue
	cd /mnt/p$p || continue
	bs=$(stat -f -c %S .)
	# the block's first line (at most 40 characters, bytes not printable as ?), else dd's error
	err=/tmp/ext2-map.err
	for b in $(cat read); do
		got=$(dd if=map bs="$bs" skip="$b" count=1 2>"$err" | tr -d '\000' |
			tr -c ' -~\n' '?' | head -n 1 | cut -c 1-40)
		grep -q '^dd: ' "$err" && got=$(grep '^dd: ' "$err" | head -n 1)
		echo "ext2-map: p$p read $b: ${got:-zeros (a hole)}"
	done
	fsread bmap map $(cat bmap) | sed "s/^map \([0-9]*\) /ext2-map: p$p bmap \1: /"
	cd /
	umount /mnt/p$p
done
