#!/bin/sh
# ext2's allocation and write half (docs/ext2.md): tests/boot/ext2-alloc.py makes a disk whose
# sda1 (1 KiB blocks) and sda2 (4 KiB) hold files by mke2fs -d, sda3 a block bitmap that marks
# an inode table block free, sda4 (revision 0) a file with a block already free. The guest's
# /etc/ext2-alloc.sh rewrites, appends, extends through holes (double and triple indirect) and
# cuts them, removes a file with a block of extended attributes, and ends the boot with sda4
# mounted after an fsync; here e2fsck -fn must find each clean and debugfs must read the bytes,
# sizes and st_blocks computed from the writes alone.
# usage: tests/boot/ext2-alloc.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 19 # the boot, five per tree, two states, bad bitmap, fsync, EFBIG, freed bit (2), large_file
name=ext2-alloc
work="$LOGS/$name.d"
img="$LOGS/$name.img"
log="$LOGS/$name.log"
py=tests/boot/ext2-alloc.py
rm -rf "$work"
mkdir -p "$work"
python3 $py make "$img" || { echo "Bail out! $py make"; exit 1; }
for p in 1 2 3 4; do python3 $py part "$img" $p "$work/before$p.img"; done
boot "$name" 256M "runlist=/etc/$name.list noswap" --disk "$img"
expect "$name" 33 "run: timeout=240 /bin/sh /etc/$name.sh: exit 0" 'run: done'
tr -d '\r' <"$log" >"$work/guest.txt"
for p in 1 2 3 4; do python3 $py part "$img" $p "$work/p$p.img"; done
debugfs -R 'cat /empty' "$work/p4.img" >"$work/empty4" 2>/dev/null

# line WHAT PATTERN...: ok if the guest printed a line matching each pattern
line() {
	what=$1 missing=
	shift
	for p; do grep -Eq -- "$p" "$work/guest.txt" || missing="$missing '$p'"; done
	[ -z "$missing" ] && ok "$what" || notok "$what: no line matching$missing" "$work/guest.txt"
}
# fsck N: ok if e2fsck -fn finds nothing to fix in partition N (exit 0)
fsck() {
	e2fsck -fn "$work/p$1.img" >"$work/fsck$1.txt" 2>&1
	rc=$?
	summary=$(tail -n 1 "$work/fsck$1.txt" | cut -d: -f2)
	[ $rc = 0 ] && ok "sda$1: e2fsck -fn clean after the guest wrote ($summary)" ||
		notok "sda$1: e2fsck -fn: exit $rc" "$work/fsck$1.txt"
}
# super N FIELD: dumpe2fs -h's value of FIELD in partition N
super() { dumpe2fs -h "$work/p$1.img" 2>/dev/null | sed -n "s/^$2: *//p"; }

for p in 1 2; do
	bs=$((1024 << (2 * (p - 1))))
	fsck $p
	python3 $py want $bs iso/root/etc/motd >"$work/want$p"
	for f in app big f shrink sparse t; do
		st=$(debugfs -R "stat /$f" "$work/p$p.img" 2>/dev/null)
		md5=$(debugfs -R "cat /$f" "$work/p$p.img" 2>/dev/null | md5sum | cut -d' ' -f1)
		size=$(echo "$st" | sed -n 's/^User:.*Size: \([0-9]*\)$/\1/p')
		printf '%s %s %s %s\n' $f "$size" \
			"$(echo "$st" | sed -n 's/.*Blockcount: \([0-9]*\)$/\1/p')" "$md5"
	done >"$work/host$p"
	if [ -s "$work/want$p" ] && cmp -s "$work/want$p" "$work/host$p"; then
		ok "sda$p ($bs-byte blocks): debugfs's size, i_blocks and md5 of the six files are \
those of the writes"
	else
		diff "$work/want$p" "$work/host$p" >"$work/host$p.diff"
		notok "sda$p: debugfs's files (- computed, + debugfs's)" "$work/host$p.diff"
	fi
	sed -n "s/^alloc: p$p stat //p" "$work/guest.txt" >"$work/guest$p"
	cut -d' ' -f1-3 "$work/want$p" >"$work/want$p.stat"
	if [ -s "$work/guest$p" ] && cmp -s "$work/want$p.stat" "$work/guest$p"; then
		ok "sda$p: the guest's stat (size, st_blocks) before the umount is the same"
	else
		diff "$work/want$p.stat" "$work/guest$p" >"$work/guest$p.diff"
		notok "sda$p: the guest's stat (- computed, + the guest's)" "$work/guest$p.diff"
	fi
	# the rest of the last block of a file cut short: zeroes on the disk, not the old bytes
	tails=
	for f in t:11 shrink:100000; do
		blk=$(debugfs -R "bmap /${f%:*} $((${f#*:} / bs))" "$work/p$p.img" 2>/dev/null)
		tails="$tails$(dd if="$work/p$p.img" bs="$bs" skip="$blk" count=1 2>/dev/null |
			tail -c $((bs - ${f#*:} % bs)) | tr -d '\0' | wc -c)"
	done
	if [ "$tails" = 00 ]; then
		ok "sda$p: past the new ends of t and shrink, their last blocks are zeroes on disk"
	else
		notok "sda$p: bytes not zero past the end of t and shrink: $tails" "$work/guest.txt"
	fi
	owner=$(debugfs -R 'stat /f' "$work/p$p.img" 2>/dev/null | sed -n \
		-e 's/^Inode: .*Mode: *\([0-7]*\).*/\1/p' \
		-e 's/^User: *\([0-9]*\) *Group: *\([0-9]*\).*/\1 \2/p' \
		-e 's/^ *mtime: 0x\([0-9a-f]*\).*/\1/p' | tr '\n' ' ')
	if [ "$owner" = "0640 1234 5678 5e0d5da5 " ]; then
		ok "sda$p: chmod, chown and touch -d reached the inode table (debugfs: $owner)"
	else
		notok "sda$p: /f's mode, owner and mtime by debugfs: '$owner'" "$work/guest.txt"
	fi
done
line "the super block: not clean while mounted read-write (synced), clean after a remount \
read-only and after umount" \
	'^alloc: p1 synced state +0$' '^alloc: p1 unmounted state +1$' \
	'^alloc: p2 remounted ro state +1$' '^alloc: p2 remounted rw state +0$' \
	'^alloc: p2 unmounted state +1$'
if [ "$(super 1 'Mount count')/$(super 2 'Mount count')" = 1/2 ] &&
	[ "$(super 1 'Filesystem state')" = clean ] && [ "$(super 2 'Filesystem state')" = clean ]
then
	ok "dumpe2fs: sda1 mounted once, sda2 twice (the remount read-write), both clean"
else
	notok "dumpe2fs: mount counts $(super 1 'Mount count')/$(super 2 'Mount count'), \
states $(super 1 'Filesystem state')/$(super 2 'Filesystem state')" "$work/guest.txt"
fi

bad=$(python3 $py fact "$work/before3.img" itable-last)
dd if="$work/before3.img" bs=1024 skip="$bad" count=1 2>/dev/null | md5sum >"$work/bad.before"
dd if="$work/p3.img" bs=1024 skip="$bad" count=1 2>/dev/null | md5sum >"$work/bad.after"
if cmp -s "$work/bad.before" "$work/bad.after"; then
	line "sda3: an inode table block marked free: the bitmap refused with a line, the write \
EIO, the block as it was" \
		"^ext2: sda3: corrupt block bitmap of group 0: metadata block $bad is marked free" \
		'write error: Input/output error$' '^alloc: p3 append: exit 1$'
else
	notok "sda3: inode table block $bad changed" "$work/guest.txt"
fi
if [ "$(super 4 'Filesystem state')" = "not clean" ] &&
	cat iso/root/etc/motd iso/root/etc/motd iso/root/etc/motd | cmp -s - "$work/empty4" &&
	grep -q '^alloc: p4 fsync: exit 0$' "$work/guest.txt"; then
	ok "sda4 left mounted (not clean) after an fsync: debugfs reads the file it wrote"
else
	state=$(super 4 'Filesystem state')
	notok "sda4 after fsync: state '$state'; or the file differs, or fsync failed" \
		"$work/guest.txt"
fi
line "sda4: 1 KiB blocks keep a file of 17247252480 bytes at most: a write or a truncate past \
it EFBIG, the last block written" \
	'^alloc: p4 last block: exit 0$' '^alloc: p4 past: dd: error writing .*File too large$' \
	'^alloc: p4 truncate past: truncate: .*File too large$' '^alloc: p4 size 17247252480$'
freed=$(python3 $py fact "$work/before4.img" victim)
line "sda4: a block of victim already free: 'bit already cleared' when it is cut to 0" \
	"^ext2: sda4: inode [0-9]+: bit already cleared for block $freed$" \
	'^alloc: p4 truncate: exit 0$'
fsck 4
motd=$(wc -c <iso/root/etc/motd)
if [ "$(super 4 'Filesystem revision #')" = "1 (dynamic)" ] &&
	super 4 'Filesystem features' | grep -qw large_file; then
	line "sda4: a file past 2 GiB on a revision 0 file system makes it revision 1 with \
large_file, as Linux" \
		'^ext2: sda4: updating to revision 1 because of a new feature flag$' \
		"^alloc: p4 stat /mnt/p4/huge $((3221225472 + motd)) 10$"
else
	notok "sda4: revision '$(super 4 'Filesystem revision #')', features \
'$(super 4 'Filesystem features')'" "$work/guest.txt"
fi
rm -rf "$work" "$img"
