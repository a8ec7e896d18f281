#!/bin/sh
# ext2's names written (docs/ext2.md, "Writing names"): on images mke2fs -d made (1 KiB and
# 4 KiB blocks, with hard links), /etc/ext2-names.sh creates, mknods, links, renames and
# removes names read-write and checks each answer; then on the host e2fsck -fn must find the
# image clean and debugfs must list the names, types, device numbers and link targets made.
# usage: tests/boot/ext2-names.sh
. "$(dirname "$0")/../lib/boot.sh"

# boots: name, block size, mke2fs's features beyond its ext2 defaults (less resize_inode),
# the launcher's options
BOOTS='ext2-names-1k 1024 ^resize_inode --machine pc
ext2-names-4k 4096 ^resize_inode --machine pc
ext2-names-1k-nofiletype 1024 ^resize_inode,^filetype --machine pc
ext2-names-4k-q35-smp2 4096 ^resize_inode --machine q35 --smp 2'
plan 13 # three per boot; a damaged image must fail both host checks
TIMEOUT=${TEST_TIMEOUT:-300}
eol='[[:space:]]*$' # the serial log's lines end in CR LF

# mkimage BS FEATURES IMG: the tree the guest script starts from, by mke2fs -d
mkimage() {
	mk_top=$(mktemp -d) || return 1
	mkdir "$mk_top/d" "$mk_top/full"
	echo a >"$mk_top/d/a" && echo b >"$mk_top/d/b" && echo f >"$mk_top/full/f"
	echo "hard link" >"$mk_top/h1" && ln "$mk_top/h1" "$mk_top/h2"
	echo k >"$mk_top/k1" && ln "$mk_top/k1" "$mk_top/k2"
	mke2fs -q -F -t ext2 -O "$2" -b "$1" -E root_owner=0:0 -d "$mk_top" "$3" 8M
	mk_rc=$?
	rm -rf "$mk_top"
	return $mk_rc
}

# names IMG: "DIR NAME MODE" for every used entry (not inode 0) of the directories the script
# leaves, the device numbers and link targets it made (debugfs)
names() {
	for dir in / /c /d /e /e/moved; do
		debugfs -R "ls -p $dir" "$1" 2>/dev/null |
			awk -F/ -v d="$dir" 'NF > 5 && $2 != 0 { print d, $6, $3 }' | sort
	done
	for f in big null sda1; do
		debugfs -R "stat /d/$f" "$1" 2>/dev/null |
			sed -n "s|^.*Device major/minor number: *|$f |p"
	done
	for f in fast link59 link60; do
		debugfs -R "stat /d/$f" "$1" 2>/dev/null | sed -n "s/^Fast link dest: /$f /p"
	done
	debugfs -R "cat /d/slow" "$1" 2>/dev/null | sed 's/^/slow /'
	echo
}

# what names must print after the guest script
want() {
	long=0123456789abcdefghijklmnopqrstuvwxyz/0123456789abcdefghijklmnopqrstuvwxyz
	{
		for n in . .. lost+found c d e full; do echo "/ $n 040755"; done
		echo "/ h1 100644"
	} | sed 's/lost+found 040755/lost+found 040700/' | sort
	{
		for n in . ..; do echo "/c $n 040755"; done
		i=1
		while [ $i -lt 40 ]; do
			echo "/c m1-$i 100644"
			echo "/c m2-$i 100644"
			i=$((i + 2))
		done
	} | sort
	{
		for n in . .. ; do echo "/d $n 040755"; done
		for n in a b hard renamed y k3; do echo "/d $n 100644"; done
		i=1
		while [ $i -lt 120 ]; do
			echo "/d a-name-long-enough-to-fill-blocks-$i 100644"
			i=$((i + 2))
		done
		echo "/d fifo 010644"
		echo "/d null 020644"
		echo "/d sda1 060644"
		echo "/d big 020644"
		echo "/d fast 120777"
		echo "/d slow 120777"
		echo "/d edge 120777"
		echo "/d link59 120777"
		echo "/d link60 120777"
		echo "/d $(printf '%255s' '' | tr ' ' n) 100644"
	} | sort
	for n in . .. moved; do echo "/e $n 040755"; done | sort
	for n in . .. over; do echo "/e/moved $n 040755"; done | sort
	# 300:70000 needs the new encoding (i_block[1]), the others fit the old one (i_block[0])
	printf 'big 300:70000 (hex 12c:11170)\nnull 01:03 (hex 01:03)\nsda1 08:01 (hex 08:01)\n'
	echo 'fast "short/target"'
	echo "link59 \"$(printf '%59s' '' | tr ' ' x)\"" # link60 is slow: no line
	echo "slow $long/$long/$long"
}

want >"$LOGS/ext2-names.want"

printf '%s\n' "$BOOTS" | while read -r name bs features opts; do
	img=$LOGS/$name.img
	if ! mkimage "$bs" "$features" "$img" >"$LOGS/$name.mke2fs" 2>&1; then
		for what in boot e2fsck debugfs; do
			notok "$name: $what: mke2fs -d failed" "$LOGS/$name.mke2fs"
		done
		continue
	fi
	# shellcheck disable=SC2086 # (opts: the launcher's options, one word each)
	boot "$name" 256M "runlist=/etc/ext2-names.list noswap" $opts --disk "$img"
	expect "$name" 33 "^ext2: mounted read-write$eol" "^names: done$eol" \
		'run: timeout=600 /bin/sh /etc/ext2-names.sh: exit 0' 'run: done'
	if e2fsck -fn "$img" >"$LOGS/$name.e2fsck" 2>&1; then
		ok "$name: e2fsck -fn finds the image clean"
	else
		notok "$name: e2fsck -fn (exit $?)" "$LOGS/$name.e2fsck"
	fi
	names "$img" >"$LOGS/$name.names"
	if diff "$LOGS/ext2-names.want" "$LOGS/$name.names" >"$LOGS/$name.diff"; then
		ok "$name: debugfs lists the $(grep -c '^/' "$LOGS/$name.names") entries made, $(
			)device numbers and link targets"
	else
		notok "$name: debugfs's names (- wanted, + the image's)" "$LOGS/$name.diff"
	fi
done

# Both host checks can fail: the 4 KiB image with d/y's entry taken out by debugfs (its inode
# unattached, d's size as it was)
img=$LOGS/ext2-names-damaged.img
cp "$LOGS/ext2-names-4k.img" "$img"
debugfs -w -R "unlink /d/y" "$img" >/dev/null 2>&1
e2fsck -fn "$img" >"$LOGS/ext2-names-damaged.e2fsck" 2>&1
fsck_rc=$?
names "$img" >"$LOGS/ext2-names-damaged.names"
if [ $fsck_rc -ne 0 ] && grep -q "nattached inode" "$LOGS/ext2-names-damaged.e2fsck" &&
	! diff "$LOGS/ext2-names.want" "$LOGS/ext2-names-damaged.names" >/dev/null; then
	ok "ext2-names: an entry removed behind e2fsck's back: e2fsck exit $fsck_rc, $(
		)the list differs"
else
	notok "ext2-names: the damaged image (e2fsck exit $fsck_rc)" \
		"$LOGS/ext2-names-damaged.e2fsck"
fi
rm -f "$LOGS"/ext2-names-*.img
