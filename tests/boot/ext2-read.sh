#!/bin/sh
# ext2, read (docs/ext2.md): tests/boot/mkext2.py makes one disk whose sda1-3 hold the
# same tree (a 5 MiB file, a sparse one reaching triple indirect blocks, 300 names in one
# directory, nested directories, fast and slow symlinks, a hard link) in 1, 2 and 4 KiB
# blocks (with flex_bg, meta_bg, without filetype), and whose sda5-13 are broken ones. The guest's
# /etc/ext2-read.sh mounts them; here each file's md5sum, stat, link target, the directory's
# getdents, FIBMAP, statfs and the mmap hash must be the host's, and each broken one refused
# (or reported) with its own line.
# usage: tests/boot/ext2-read.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 34 # the boot, five per tree, FIBMAP, inodes, the mmap hash, read-ahead, read-only (3),
	# eleven mounts
work="$LOGS/ext2-read.d"
img="$LOGS/ext2-read.img"
name=ext2-read
log="$LOGS/$name.log"
rm -rf "$work"
python3 tests/boot/mkext2.py make "$work" "$img" || { echo "Bail out! mkext2.py make"; exit 1; }
python3 tests/boot/mkext2.py expect "$work" >"$LOGS/$name.want"
boot "$name" 256M "runlist=/etc/ext2-read.list noswap" --disk "$img"
expect "$name" 33 'run: timeout=240 /bin/sh /etc/ext2-read.sh: exit 0' 'run: done'
tr -d '\r' <"$log" >"$LOGS/$name.txt"

# same WHAT PATTERN: the guest's lines matching PATTERN are the host's
same() {
	grep -E "$2" "$LOGS/$name.want" >"$LOGS/$name.w"
	grep -E "$2" "$LOGS/$name.txt" >"$LOGS/$name.g"
	if [ -s "$LOGS/$name.w" ] && cmp -s "$LOGS/$name.w" "$LOGS/$name.g"; then
		ok "$1 ($(wc -l <"$LOGS/$name.w") lines)"
	else
		diff "$LOGS/$name.w" "$LOGS/$name.g" >"$LOGS/$name-$3.diff"
		notok "$1 (- the host's, + the guest's)" "$LOGS/$name-$3.diff"
	fi
}

for p in 1 2 3; do
	bs=$((512 << p))
	[ "$p" = 3 ] && bs=4096
	same "p$p ($bs-byte blocks): md5sum of every file is the host's" "^ext2: p$p md5 " md5$p
	same "p$p: stat of every file (ino, links, mode, ids, size, blocks, mtime) is debugfs's" \
		"^ext2: p$p stat " stat$p
	same "p$p: readlink of the fast and slow symlinks" "^ext2: p$p link " link$p
	same "p$p: getdents of many/ in 256-byte calls: debugfs's entries, order, inodes, types" \
		"^ext2: p$p ls " ls$p
	same "p$p: statfs (type, blocks less the metadata, free, available, inodes), st_dev" \
		"^ext2: p$p (statfs|dev) " statfs$p
done
same "FIBMAP of big's and sparse's blocks (every level, holes, past the end): debugfs's bmap" \
	'^ext2: p[123] bmap ' bmap
same "one struct inode per file: a hard link, a name looked up again, a directory's parent" \
	'^ext2: p[123] same ' same
same "mmap of files never read before (faults -> readpage): the host's FNV hash, read()'s too" \
	'^ext2: hash ' hash

# Read-ahead as 2.6.23 reads (docs/ext2.md): a fault reads the 32 pages around it, one under
# MADV_RANDOM only its own, a lone pread its page, the next pread a window of 4. With the
# disk's read-ahead set to 0 the same steps read one page each: the control.
grep '^ext2: ra ' "$LOGS/$name.txt" >"$LOGS/$name.ra"
{
	for dev in "p3 32 64 65 66 70 0" "p2 1 2 3 4 5 256"; do
		set -- $dev
		f="ext2: ra /mnt/$1/big"
		printf '%s cold: 0\n%s fault 0: %s\n%s fault 100: %s\n' "$f" "$f" "$2" "$f" "$3"
		printf '%s random fault 1000: %s\n%s pread 600: %s\n' "$f" "$4" "$f" "$5"
		printf '%s pread 601: %s\next2: ra /dev/sda ra %s\n' "$f" "$6" "$7"
	done
} >"$LOGS/$name.ra-want"
if cmp -s "$LOGS/$name.ra-want" "$LOGS/$name.ra"; then
	ok "read-ahead: 32 pages around a fault, 1 under MADV_RANDOM, a window of 4 after a pread"
else
	diff "$LOGS/$name.ra-want" "$LOGS/$name.ra" >"$LOGS/$name-ra.diff"
	notok "read-ahead: the pages cached after each step (- expected, + the guest's)" \
		"$LOGS/$name-ra.diff"
fi

# line WHAT PATTERN...: each pattern matches a line of the log
line() {
	what=$1
	shift
	lines "$what" "$LOGS/$name.txt" "$@"
}
failed='mount: mounting /dev/sda%s on /mnt/p%s failed: %s$'
# shellcheck disable=SC2059 # the format is the pattern
fail() { printf "^ext2: mount sda$1: $failed" "$1" "$1" "$2"; }

line "sda2 read-only: touch EROFS; remounted read-write and back read-only" \
	'^ext2: touch: touch: /mnt/p2/new: Read-only file system$' \
	'^ext2: remount sda2 rw: exit 0$' '^ext2: remount sda2 ro: exit 0$'
line "sda2 unmounted (put_super lets every inode go) and mounted again" \
	'^ext2: umount sda2: exit 0$' '^ext2: mount sda2 again: exit 0$'
same "sda2 mounted again reads big and sparse as the host has them" '^ext2: again md5 ' again
if grep -q '^ext2: sda1: ' "$LOGS/$name.txt"; then
	notok "sda1 mounted read-write: the kernel said something of it" "$LOGS/$name.txt"
else
	line "sda1 mounted read-write, without a word" '^ext2: mount sda1 rw: exit 0$'
fi
if grep -q '^ext2: sda5' "$LOGS/$name.txt"; then
	notok "sda5 (no ext2 magic): the kernel said something of it" "$LOGS/$name.txt"
else
	line "sda5 (no ext2 magic): EINVAL, and not a word on the console (MS_SILENT)" \
		"$(fail 5 'Invalid argument')"
fi
line "sda6 (ext3 needing recovery): refused by name, EINVAL" \
	'^ext2: sda6: cannot mount: needs journal recovery \(ext3\)$' "$(fail 6 'Invalid argument')"
line "sda7 (ext4): refused naming extents, EINVAL" \
	'^ext2: sda7: cannot mount: extents \(ext4\), 64bit \(ext4\)' \
	"$(fail 7 'Invalid argument')"
ino_d=$(python3 tests/boot/mkext2.py fact "$work" ino-d)
ino_x=$(python3 tests/boot/mkext2.py fact "$work" ino-x)
bad="bad entry in directory #$ino_d: rec_len is smaller than minimal - offset=24, inode=$ino_x"
line "sda8: a rec_len of 0 in directory #$ino_d is EIO (getdents, a lookup) with a line naming it" \
	"^ext2: sda8: $bad, rec_len=0, name_len=1$" \
	'^ext2: p8 d fsread: /mnt/p8/d: getdents: I/O error$' \
	"^ext2: p8 x cat: can't open '/mnt/p8/d/x': Input/output error$"
line "sda8: its root directory, sound, lists d and lost+found (the control)" \
	'^ext2: mount sda8: exit 0$' '^ext2: p8 root d$' '^ext2: p8 root lost\+found$'
blocks=$(python3 tests/boot/mkext2.py fact "$work" blocks-9)
line "sda9: a group descriptor's inode table past the end: EINVAL with a line" \
	"^ext2: sda9: corrupt group descriptor 0: inode table not in blocks 1-$((blocks - 1))$" \
	"$(fail 9 'Invalid argument')"
blocks=$(python3 tests/boot/mkext2.py fact "$work" blocks-10)
line "sda10: a super block of $blocks blocks in a 1 MiB partition: EINVAL with a line" \
	"^ext2: sda10: corrupt super block: $blocks blocks, past the device's end \(1024 blocks\)" \
	"$(fail 10 'Invalid argument')"
line "sda12 (8 KiB blocks, larger than a page): refused by name, EINVAL" \
	'^ext2: sda12: cannot mount: block size 2\^13 \(a page at most\)$' \
	"$(fail 12 'Invalid argument')"
ino_f=$(python3 tests/boot/mkext2.py fact "$work" ino-f)
bad=$(python3 tests/boot/mkext2.py fact "$work" bad-block)
line "sda13: a block number past the end is EIO with a line; the file beside it reads" \
	"^ext2: sda13: inode $ino_f: block 0 maps to block $bad, outside the file system$" \
	'^ext2: p13 f cat: read error: Input/output error$' '^ext2: p13 g the sound one$'
line "sda11 (RO_COMPAT dir_nlink): no read-write mount, named, EINVAL; mounted read-only" \
	'^ext2: sda11: cannot mount read-write: dir_nlink \(ext4\)$' \
	'^ext2: mount sda11 rw: mount: mounting /dev/sda11 on /mnt/p11 failed: Invalid argument$' \
	'^ext2: mount sda11 ro: exit 0$' '^ext2: p11 root lost\+found$'
rm -rf "$work" "$img"
