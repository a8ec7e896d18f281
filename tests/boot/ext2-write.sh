#!/bin/sh
# ext2, written (docs/ext2.md): faultline mounts the empty ext2 file systems of one disk
# (tests/boot/ext2-write.py: sda1 1 KiB blocks, sda2 4 KiB, sda3 a small one) read-write,
# user/fs-tree writes its tree on sda1 and sda2, user/fsx runs 100,000 operations on sda1,
# user/fs-enospc fills sda3, `coredump crash` dumps core on sda2 (the host's gdb reads it);
# after the guest's umount the host's e2fsck -fn finds each clean and debugfs reads back (no
# mount, no root) what the same programs give natively here.
# usage: tests/boot/ext2-write.sh [q35]   (q35: on AHCI, with two CPUs; pc's PIIX IDE, one CPU)
. "$(dirname "$0")/../lib/boot.sh"

plan 24 # the boot, six per tree, two per fsx run, fadvise, the core, read-only, ENOSPC (4)
case ${1:-pc} in
pc) name=ext2-write on='' machine='' ;;
q35) name=ext2-write-q35 on="q35, 2 CPUs: " machine="--machine q35 --smp 2" ;;
*) echo "usage: tests/boot/ext2-write.sh [q35]" >&2; exit 2 ;;
esac
work="$LOGS/$name.d"
img="$LOGS/$name.img"
log="$LOGS/$name.log"
py=tests/boot/ext2-write.py
# the fsx runs, as /etc/ext2-write.sh makes them: 100,000 operations on a file of 256 KiB at
# most, then fewer, longer ones on a file growing to 24 MiB (double indirect blocks)
fsx_args() {
	case $1 in
	fsx) echo "-N 100000 -o 16384" ;;
	fsx24) echo "-N 3000 -S 2 -l 25165824" ;;
	esac
}
# the lines of an fsx run without the directory of its file
fsx_lines() { sed 's|^fsx: .*/\(fsx[0-9]*\): |fsx: \1: |'; }
rm -rf "$work"
mkdir -p "$work"
python3 $py make "$img" || { echo "Bail out! $py make"; exit 1; }
# What the programs give natively: fs-tree's owners need root, fs-enospc a loop mount as root.
native=
[ "$(id -u)" = 0 ] && native=1
if ! { build/user/fs-tree build "$work/native" && build/user/fs-tree mmap "$work/native" &&
	build/user/fs-tree manifest "$work/native" >"$work/native.manifest"; } >"$work/native.out" \
	2>&1; then
	echo "Bail out! fs-tree natively: $(cat "$work/native.out")"
	exit 1
fi
# shellcheck disable=SC2086 # the arguments are words
for run in fsx fsx24; do
	args=$(fsx_args $run)
	# shellcheck disable=SC2086 # the arguments are words
	build/user/fsx $args "$work/$run" >"$work/$run.out" 2>&1 ||
		{ echo "Bail out! fsx natively: $(cat "$work/$run.out")"; exit 1; }
	fsx_lines <"$work/$run.out" >"$work/$run.native"
done
rm -rf "$work/native" "$work/fsx" "$work/fsx24"

# shellcheck disable=SC2086 # the machine's options are words
boot "$name" 256M "runlist=/etc/ext2-write.list noswap" --disk "$img" $machine
expect "$name" 33 'run: timeout=240 /bin/sh /etc/ext2-write.sh: exit 0' 'run: done'
tr -d '\r' <"$log" >"$work/guest.txt"

# same WHAT WANT GOT TAG: the files WANT (not empty) and GOT are the same
same() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		ok "$on$1 ($(wc -l <"$2") lines)"
	else
		diff "$2" "$3" >"$work/$4.diff"
		notok "$on$1 (- the first, + the second)" "$work/$4.diff"
	fi
}
# guest PATTERN: the guest's lines matching PATTERN, that much taken off their front
guest() { sed -n "s/^$1//p" "$work/guest.txt"; }
# line WHAT PATTERN...: each pattern matches a line of the guest's
line() {
	what=$1
	shift
	lines "$on$what" "$work/guest.txt" "$@"
}
# fsck N: e2fsck -fn of partition N finds nothing: exit 0 and no line but its passes and summary
# (a super block's free counts that are wrong are only said, with exit 0)
fsck() {
	e2fsck -fn "$work/p$1.img" >"$work/fsck$1.txt" 2>&1
	fsck_rc=$?
	passes='^(e2fsck [0-9.]+ \(.*\)|Pass [1-5]: .*|.*: [0-9]+/[0-9]+ files .*)$'
	if [ $fsck_rc = 0 ] && ! grep -Evq "$passes" "$work/fsck$1.txt"; then
		ok "${on}sda$1: e2fsck -fn clean ($(tail -n 1 "$work/fsck$1.txt" | cut -d: -f2))"
	else
		notok "${on}sda$1: e2fsck -fn: exit $fsck_rc" "$work/fsck$1.txt"
	fi
}

for p in 1 2; do
	python3 $py part "$img" $p "$work/p$p.img"
	line "sda$p mounted read-write, fs-tree's tree and its mapped file written and read back" \
		"^ext2w: mount sda$p rw: exit 0$" \
		"^ext2w: mounts /dev/sda$p /mnt/p$p ext2 rw(,|$)" \
		"^ext2w: p$p build: fs-tree: ok " \
		"^ext2w: p$p mmap: fs-tree: ok "
	guest "ext2w: p$p manifest " >"$work/g$p"
	guest "ext2w: again p$p manifest " >"$work/a$p"
	python3 $py manifest "$work/p$p.img" /tree >"$work/h$p"
	for f in g a h; do
		grep -v '^mapped ' "$work/$f$p" >"$work/$f$p.tree"
		grep '^mapped ' "$work/$f$p" >"$work/$f$p.mapped"
	done
	grep -v '^mapped ' "$work/native.manifest" >"$work/n.tree"
	grep '^mapped ' "$work/native.manifest" >"$work/n.mapped"
	if [ -n "$native" ]; then
		same "sda$p: the guest's manifest of the tree is the one fs-tree gives natively" \
			"$work/n.tree" "$work/g$p.tree" native$p
	else
		skip "${on}sda$p: the guest's manifest is the native one" "chown needs root"
	fi
	fsck $p
	same "sda$p: debugfs reads the tree from the image as the guest listed it" \
		"$work/g$p.tree" "$work/h$p.tree" debugfs$p
	same "sda$p: unmounted and mounted again, the guest lists the same tree" \
		"$work/g$p.tree" "$work/a$p.tree" again$p
	cat "$work/n.mapped" "$work/n.mapped" "$work/n.mapped" >"$work/n3.mapped"
	cat "$work/g$p.mapped" "$work/h$p.mapped" "$work/a$p.mapped" >"$work/gha$p.mapped"
	same "sda$p: the file written through MAP_SHARED and msync: the guest's, debugfs's" \
		"$work/n3.mapped" "$work/gha$p.mapped" mapped$p
done

for run in fsx fsx24; do
	args=$(fsx_args $run)
	guest "ext2w: $run: " | fsx_lines >"$work/$run.guest"
	same "$run: $args on sda1: no mismatch; the operations and the file's CRC are native's" \
		"$work/$run.native" "$work/$run.guest" $run
	grep crc32 "$work/$run.native" | sed "s/^fsx: $run: //" >"$work/$run.want"
	python3 $py crc "$work/p1.img" /$run >"$work/$run.host"
	same "$run: debugfs reads the file fsx left with the size and CRC-32 of its model" \
		"$work/$run.want" "$work/$run.host" $run-host
done

line "fadvise on sda1: DONTNEED drops the clean unmapped pages, WILLNEED and readahead(2) read \
them again (/bin/fadvise)" "^ext2w: fadvise: fadvise: /mnt/p1: a disk's file system" \
	"^ext2w: fadvise: fadvise: ok "

# The core faultline wrote, taken off the image by debugfs: gdb finds the signal, and rip at
# the faulting instruction's symbol in the program's own debug information.
debugfs -R "dump /core.coredump $work/core" "$work/p2.img" >/dev/null 2>&1
gdb -batch -nx -ex 'info registers rip' build/user/coredump "$work/core" >"$work/gdb.txt" 2>&1
if grep -q '^ext2w: core: exit 139$' "$work/guest.txt" &&
	grep -q 'terminated with signal SIGSEGV' "$work/gdb.txt" &&
	grep -Eq '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <crash_segv>' "$work/gdb.txt"; then
	ok "${on}a core dumped on sda2: the host's gdb reads SIGSEGV and rip at crash_segv"
else
	notok "${on}a core dumped on sda2: the host's gdb reads SIGSEGV and rip at crash_segv" \
		"$work/gdb.txt"
fi

line "sda2 remounted read-only: touch, >>, rm and mkdir refused with EROFS" \
	'^ext2w: remount sda2 ro: exit 0$' '^ext2w: remounted /dev/sda2 /mnt/p2 ext2 ro(,|$)' \
	"^ext2w: ro: touch: /mnt/p2/tree/new: Read-only file system$" \
	"^ext2w: ro: .*can't create /mnt/p2/tree/append: Read-only file system$" \
	"^ext2w: ro: rm: can't remove '/mnt/p2/tree/owned': Read-only file system$" \
	"^ext2w: ro: mkdir: can't create directory '/mnt/p2/tree/newdir': Read-only file system$"

python3 $py part "$img" 3 "$work/p3.img"
line "sda3 filled: uid 1000 stops at the reserved blocks, root at the last; a short write, then \
ENOSPC; the counts back after the deletes" \
	'^ext2w: mount sda3 rw: exit 0$' '^ext2w: mounts /dev/sda3 /mnt/p3 ext2 rw(,|$)' \
	'^ext2w: enospc: fs-enospc: ok ' \
	'^ext2w: umount sda3: exit 0$'
fsck 3
echo "fs-enospc: a store through MAP_SHARED into a hole: SIGBUS" >"$work/sigbus.want"
guest "ext2w: enospc: " | grep 'into a hole' >"$work/sigbus.guest"
# the block is sought at the store, by ext2's page_mkwrite, not at writeback
same "sda3 full: a store through a shared mapping into a hole is SIGBUS (no block for it)" \
	"$work/sigbus.want" "$work/sigbus.guest" sigbus
# Natively: the same program on a copy of the same empty file system, loop-mounted. This host's
# Linux mounts ext2 with its ext4 driver, which differs from ext2's in two counts that are left
# out: f_blocks (ext4 counts the reserved group descriptor blocks as overhead, ext2_statfs not)
# and root's last short write and the one-block files after it (ext4 keeps blocks back).
enospc_lines() {
	sed -E -e 's/: [0-9]+ blocks of/: blocks of/' \
		-e 's/^(fs-enospc: root: write.*) -> [0-9]+,/\1,/' \
		-e 's/, [0-9]+ small files$//' -e 's/ \([0-9]+ checks\)$//' -e '/into a hole/d'
}
if [ -n "$native" ] && python3 $py part "$img" 3 "$work/n3.img" && mkdir -p "$work/mnt" &&
	mount -o loop "$work/n3.img" "$work/mnt" 2>/dev/null; then
	build/user/fs-enospc "$work/mnt" 2>&1 | enospc_lines >"$work/enospc.native"
	umount "$work/mnt"
	guest "ext2w: enospc: " | enospc_lines >"$work/enospc.guest"
	same "sda3: fs-enospc's counts (statfs, uid 1000's short write) are Linux's on the image" \
		"$work/enospc.native" "$work/enospc.guest" enospc
else
	skip "${on}sda3: fs-enospc's counts are Linux's" "needs root and a loop device"
fi
[ -n "$KEEP" ] || rm -rf "$work" "$img"
