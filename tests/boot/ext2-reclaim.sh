#!/bin/sh
# ext2 under memory pressure (docs/ext2.md): in a 24 MiB machine with a swap disk, user/fsx runs
# 50,000 operations on an ext2 file of up to 6 MiB, so reclaim writes the file's dirty pages
# back and drops them, and swaps fsx's model out, all the while; the result must be native's,
# and after the guest's umount the host's e2fsck -fn finds the file system clean.
. "$(dirname "$0")/../lib/boot.sh"

plan 5 # the boot, fsx as natively, the file on the disk, reclaim ran, e2fsck
name=ext2-reclaim
work="$LOGS/$name.d"
img="$LOGS/$name.img"
swap="$LOGS/$name.swap"
log="$LOGS/$name.log"
py=tests/boot/ext2-write.py
MKSWAP=${MKSWAP:-/sbin/mkswap}
# fsx's arguments, as /etc/ext2-reclaim.sh gives them
fsx_args="-N 50000 -l 6291456 -o 65536"
rm -rf "$work" "$swap"
mkdir -p "$work"
python3 $py make "$img" || { echo "Bail out! $py make"; exit 1; }
truncate -s 64M "$swap" && "$MKSWAP" "$swap" >/dev/null 2>&1 ||
	{ echo "Bail out! $MKSWAP $swap"; exit 1; }
# shellcheck disable=SC2086 # the arguments are words
build/user/fsx $fsx_args "$work/fsx" >"$work/fsx.out" 2>&1 ||
	{ echo "Bail out! fsx natively: $(cat "$work/fsx.out")"; exit 1; }
sed 's|^fsx: .*/fsx: |fsx: fsx: |' "$work/fsx.out" >"$work/fsx.native"
rm -f "$work/fsx"

boot "$name" 24M "runlist=/etc/ext2-reclaim.list runstats" --disk "$img" --disk2 "$swap"
expect "$name" 33 '^ext2r: mount sda1 rw: exit 0' '^ext2r: umount sda1: exit 0' \
	'run: timeout=600 /bin/sh /etc/ext2-reclaim.sh: exit 0' 'run: done'
tr -d '\r' <"$log" >"$work/guest.txt"
guest() { sed -n "s/^$1//p" "$work/guest.txt"; }

guest "ext2r: fsx: " | sed 's|^fsx: .*/fsx: |fsx: fsx: |' >"$work/fsx.guest"
if [ -s "$work/fsx.native" ] && cmp -s "$work/fsx.native" "$work/fsx.guest"; then
	ok "fsx $fsx_args on ext2 in 24 MiB: no mismatch; its file's size and CRC are native's"
else
	diff "$work/fsx.native" "$work/fsx.guest" >"$work/fsx.diff"
	notok "fsx $fsx_args on ext2 in 24 MiB: as natively (- native, + guest)" "$work/fsx.diff"
fi

python3 $py part "$img" 1 "$work/p1.img"
grep crc32 "$work/fsx.native" | sed 's/^fsx: fsx: //' >"$work/fsx.want"
python3 $py crc "$work/p1.img" /fsx >"$work/fsx.host"
if [ -s "$work/fsx.want" ] && cmp -s "$work/fsx.want" "$work/fsx.host"; then
	ok "debugfs reads the file fsx left with the size and CRC-32 of its model"
else
	diff "$work/fsx.want" "$work/fsx.host" >"$work/host.diff"
	notok "debugfs reads fsx's file as its model (- model, + debugfs)" "$work/host.diff"
fi

# what /proc/vmstat counted during fsx: COUNTER's growth
grew() {
	echo $(($(guest "ext2r: after $1 " | head -n 1) - $(guest "ext2r: before $1 " |
		head -n 1)))
}
steal=$(($(grew pgsteal_kswapd) + $(grew pgsteal_direct)))
out=$(grew pgpgout) swapped=$(grew pswpout)
# the file is 1536 pages at most: reclaim must have taken more than twice its size of pages,
# written file pages back (pgpgout, KiB) and swapped fsx's model out
if [ "$steal" -gt 3072 ] && [ "$out" -gt 4096 ] && [ "$swapped" -gt 0 ]; then
	ok "reclaim ran during fsx: $steal pages reclaimed, $out KiB written, $swapped swapped out"
else
	notok "reclaim ran during fsx: $steal pages reclaimed (want > 3072), $out KiB written \
(want > 4096), $swapped pages swapped out (want > 0)" "$work/guest.txt"
fi

e2fsck -fn "$work/p1.img" >"$work/fsck.txt" 2>&1
fsck_rc=$?
passes='^(e2fsck [0-9.]+ \(.*\)|Pass [1-5]: .*|.*: [0-9]+/[0-9]+ files .*)$'
if [ $fsck_rc = 0 ] && ! grep -Evq "$passes" "$work/fsck.txt"; then
	ok "sda1 after the guest's umount: e2fsck -fn clean ($(tail -n 1 "$work/fsck.txt" |
		cut -d: -f2))"
else
	notok "sda1 after the guest's umount: e2fsck -fn: exit $fsck_rc" "$work/fsck.txt"
fi
