#!/bin/sh
# A disk that fails a write (docs/writeback.md "When the disk fails a write"): an ext2 made here
# (mke2fs -d: kept, lost, spare, meta) is /dev/sda through QEMU's blkdebug, which fails every
# write to lost's blocks and to the block of meta's inode; user/fs-eio overwrites lost and must
# get EIO at fsync, fdatasync, msync and syncfs, once per open file, the driver saying so in a
# line, and spare written after must reach the disk; then meta's fsync is EIO once (its inode).
# After the boot e2fsck -fn finds the image clean and debugfs reads kept, spare and meta's bytes as
# written, lost as it was and meta's times as they were. Then the loop half, the same natively
# (as root): /dev/sdb holds an ext2 with a copy of the image whose blocks under lost are holes;
# filled, its loop device cannot write them and fs-eio gets ENOSPC, today's Linux's error from a
# loop device on a full file system.
# usage: tests/boot/ext2-eio.sh [q35]   (q35: on AHCI, with two CPUs; pc's PIIX IDE, one CPU)
. "$(dirname "$0")/../lib/boot.sh"

plan 10 # the boot, the disk's run, its console lines, the inode's block, fsck, the bytes, meta's,
# the loop run, beside Linux, the inner image's fsck
case ${1:-pc} in
# each failed request's line from the driver: ata_piix names the sectors, AHCI the status
pc) name=ext2-eio machine='' on='' said='^ata1: DMA write error at sectors %s-%s: status' ;;
q35) name=ext2-eio-q35 machine="--machine q35 --smp 2" on='q35, 2 CPUs: '
	said='^ata1: command failed: irq status%.0s%.0s' ;;
*) echo "usage: tests/boot/ext2-eio.sh [q35]" >&2; exit 2 ;;
esac
work="$LOGS/$name.d"
img="$work/eio.img"
outer="$work/outer.img"
conf="$work/eio.blkdebug"
log="$LOGS/$name.log"
rm -rf "$work"
mkdir -p "$work/root" "$work/outer.d"
# the byte at offset i of the files seed names (user/fs-eio.c's pattern), n of them into FILE
pattern() {
	python3 -c 'import sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
sys.stdout.buffer.write(bytes(((i * 7 + seed * 13) >> 3) & 255 for i in range(n)))' "$1" "$2"
}
pattern 65536 1 >"$work/root/kept"
pattern 32768 2 >"$work/root/lost"
pattern 16384 5 >"$work/root/spare"
echo 1 >"$work/root/pad1"
echo 2 >"$work/root/pad2"
mke2fs -q -F -t ext2 -b 4096 -d "$work/root" "$img" 8M >/dev/null ||
	{ echo "Bail out! mke2fs"; exit 1; }
# meta: inode 17, the first of the inode table's second block (kept to pad2 are 12 to 16), alone
pattern 4096 7 >"$work/meta.before"
debugfs -w -R "write $work/meta.before meta" "$img" >/dev/null 2>&1
at=$(debugfs -R 'imap /meta' "$img" 2>/dev/null | tr -d '\n')
meta=$(echo "$at" | sed -n 's/^Inode 17 is .*located at block \([0-9]*\), offset 0x0000$/\1/p')
[ -n "$meta" ] || { echo "Bail out! meta's inode: $at"; exit 1; }
debugfs -R 'stat /meta' "$img" 2>/dev/null | grep '^ mtime:' >"$work/meta.mtime"
# lost's blocks: blkdebug fails a write to the first sector of each (a page is one request)
lost=$(for i in 0 1 2 3 4 5 6 7; do debugfs -R "bmap /lost $i" "$img" 2>/dev/null; done)
: >"$conf"
rule='[inject-error]\nevent = "write_aio"\niotype = "write"\nerrno = "5"\nsector = "%s"\n\n'
for b in $lost $meta; do
	# shellcheck disable=SC2059 # the rule is the format
	printf "$rule" $((b * 8)) >>"$conf"
done
# the loop half's disk: the image with lost's blocks zeroed, which mke2fs -d leaves as holes
cp "$img" "$work/outer.d/inner.img"
for b in $lost; do
	dd if=/dev/zero of="$work/outer.d/inner.img" bs=4096 seek="$b" count=1 conv=notrunc \
		2>/dev/null
done
mke2fs -q -F -t ext2 -b 4096 -m 0 -d "$work/outer.d" "$outer" 4M >/dev/null ||
	{ echo "Bail out! mke2fs outer"; exit 1; }
cp "$outer" "$work/outer-native.img"

# shellcheck disable=SC2086 # the machine's options are words
boot "$name" 128M "runlist=/etc/ext2-eio.list kcheck noswap" --disk "$img" \
	--disk-errors "$conf" --disk2 "$outer" $machine
# (kcheck: the page tables, the rmap and the page counts agree after it all)
expect "$name" 33 "run: timeout=120 /bin/sh /etc/ext2-eio.sh: exit 0" \
	'^kcheck: .* checked: 0 mismatches' 'run: done'
tr -d '\r' <"$log" >"$work/guest.txt"
sed -n 's/^disk: //p' "$work/guest.txt" >"$work/disk.out"
sed -n 's/^loop: //p' "$work/guest.txt" >"$work/loop.out"
# what fs-eio says on a disk that fails writes with EIO, in order
cat >"$work/disk.want" <<'EOT'
fs-eio: fsync after a write the disk fails: -1 EIO
fs-eio: fsync again: 0
fs-eio: fdatasync of another open file of it: -1 EIO
fs-eio: fsync of that file again: 0
fs-eio: syncfs: -1 EIO
fs-eio: syncfs again: 0
fs-eio: fsync of a file opened after the report: 0
fs-eio: msync(MS_SYNC) after a store: -1 EIO
fs-eio: msync(MS_SYNC) again: 0
fs-eio: fsync of the mapped file: 0
fs-eio: fsync of the first file: -1 EIO
fs-eio: fsync after sync() met the error: -1 EIO
fs-eio: fsync again: 0
fs-eio: fsync of another file written after: 0
EOT
grep -v '^fs-eio: ok (' "$work/disk.out" | grep -v '^umount: \|^meta: ' >"$work/disk.got"
if cmp -s "$work/disk.want" "$work/disk.got" && grep -q '^fs-eio: ok (' "$work/disk.out" &&
	grep -qx 'umount: exit 0' "$work/disk.out"; then
	ok "${on}sda: fsync, fdatasync, msync and syncfs get EIO once per open file; umount goes on"
else
	diff "$work/disk.want" "$work/disk.got" >"$work/disk.diff"
	notok "${on}sda: fs-eio's lines are not the expected ones (- expected, + faultline's)" \
		"$work/disk.diff"
fi
# each failed request: one line from the driver, none a panic or an oops
first=$(echo "$lost" | head -n 1)
# the driver's line for a failed write of block $1 (its sectors, where the driver says them)
# shellcheck disable=SC2059 # said is the format
driver_line() { printf "$said" $(($1 * 8)) $(($1 * 8 + 7)); }
lines "${on}sda: the driver says each failed write in a line" "$work/guest.txt" \
	"$(driver_line "$first")" \
	"^buffer: I/O error on sda, blocks $first-$first of 4096 bytes \\(write\\)$"
# a metadata buffer: meta's inode block, written at fsync (ext2_write_inode), fails
lines "${on}sda: fsync and syncfs are EIO, once, when the block of a file's inode fails" \
	"$work/guest.txt" '^disk: meta: fs-eio: fsync when the inode.s block fails: -1 EIO$' \
	'^disk: meta: fs-eio: fsync again: 0$' '^disk: meta: fs-eio: syncfs: -1 EIO$' \
	'^disk: meta: fs-eio: syncfs again: 0$' '^disk: meta: fs-eio: ok \(' \
	"$(driver_line "$meta")" '^ext2: sda: cannot write inode 17$'
# fsck N IMG: e2fsck -fn finds nothing: exit 0 and no line but its passes and summary
fsck() {
	e2fsck -fn "$2" >"$work/fsck-$1.txt" 2>&1
	fsck_rc=$?
	passes='^(e2fsck [0-9.]+ \(.*\)|Pass [1-5]: .*|.*: [0-9]+/[0-9]+ files .*)$'
	if [ $fsck_rc = 0 ] && ! grep -Evq "$passes" "$work/fsck-$1.txt"; then
		ok "$on$1: e2fsck -fn finds the file system clean"
	else
		notok "$on$1: e2fsck -fn" "$work/fsck-$1.txt"
	fi
}
fsck sda "$img"
# the bytes on the disk: kept and spare as written, lost as before the failed writes
pattern 65536 1 >"$work/kept.want"
pattern 16384 4 >"$work/spare.want"
debugfs -R 'dump /kept '"$work/kept.got" "$img" 2>/dev/null
debugfs -R 'dump /spare '"$work/spare.got" "$img" 2>/dev/null
debugfs -R 'dump /lost '"$work/lost.got" "$img" 2>/dev/null
if cmp -s "$work/kept.want" "$work/kept.got" && cmp -s "$work/spare.want" "$work/spare.got" &&
	cmp -s "$work/root/lost" "$work/lost.got"; then
	ok "${on}sda: kept and spare hold what was written, lost what it held before"
else
	notok "${on}sda: the files' bytes on the image (cmp kept, spare, lost)" "$work/guest.txt"
fi
# meta: its new bytes on the disk, its inode (the times) as before
pattern 4096 6 >"$work/meta.want"
debugfs -R 'dump /meta '"$work/meta.got" "$img" 2>/dev/null
debugfs -R 'stat /meta' "$img" 2>/dev/null | grep '^ mtime:' >"$work/meta.mtime.after"
if cmp -s "$work/meta.want" "$work/meta.got" && [ -s "$work/meta.mtime" ] &&
	cmp -s "$work/meta.mtime" "$work/meta.mtime.after"; then
	ok "${on}sda: meta's new bytes reached the disk, its inode's new times did not"
else
	notok "${on}sda: meta on the image: bytes $(cmp "$work/meta.want" "$work/meta.got" 2>&1), \
mtime '$(cat "$work/meta.mtime.after")', was '$(cat "$work/meta.mtime")'" "$work/guest.txt"
fi

# the loop half: the same lines, the disk's error being ENOSPC; natively the same if root
sed 's/EIO$/ENOSPC/' "$work/disk.want" >"$work/loop.want"
grep '^fs-eio: ' "$work/loop.out" | grep -v '^fs-eio: ok (' >"$work/loop.got"
# (and the console says each failed request: the loop device, then the buffers)
if cmp -s "$work/loop.want" "$work/loop.got" && grep -q '^fs-eio: ok (' "$work/loop.out" &&
	grep -qx 'umount of its file.s file system: exit 0' "$work/loop.out" &&
	grep -q '^loop0: Write error at byte offset [0-9]*, length 4096\.$' "$work/guest.txt" &&
	grep -q '^buffer: no space on loop0, blocks [0-9-]* of 4096 bytes (write)$' \
		"$work/guest.txt"; then
	ok "${on}loop: ENOSPC from the loop device's full file system reaches fsync, msync, syncfs"
else
	diff "$work/loop.want" "$work/loop.got" >"$work/loop.diff"
	notok "${on}loop: fs-eio's lines (- expected, + faultline's)" "$work/loop.diff"
fi
if [ "$(id -u)" = 0 ] && [ -e /dev/loop-control ]; then
	dev=$(losetup -f --show "$work/outer-native.img")
	sh iso/root/etc/ext2-eio-loop.sh "$dev" "$work/native" build/user/fs-eio \
		>"$work/native.txt" 2>&1
	losetup -d "$dev"
	sed -n 's/^loop: //p' "$work/native.txt" | grep -v '^filled: ' >"$work/native.out"
	grep -v '^filled: ' "$work/loop.out" >"$work/loop.cmp"
	if [ -s "$work/native.out" ] && cmp -s "$work/native.out" "$work/loop.cmp"; then
		ok "${on}loop: the lines are Linux's ($(wc -l <"$work/native.out") lines)"
	else
		diff "$work/native.out" "$work/loop.cmp" >"$work/native.diff"
		notok "${on}loop: not Linux's lines (- Linux, + faultline)" "$work/native.diff"
	fi
else
	skip "${on}loop: the lines are Linux's" "needs root and loop devices"
fi
debugfs -R 'dump /inner.img '"$work/inner.img" "$outer" 2>/dev/null
fsck "loop's file" "$work/inner.img"
