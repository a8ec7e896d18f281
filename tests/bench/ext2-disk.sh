#!/bin/sh
# The disk of make bench's ext2 rows (docs/bench.md, "Files on a disk"), for faultline's boot
# and Linux's alike: a 32 MiB ext2 file system in 4 KiB blocks made by mke2fs -d, holding a
# 4 MiB file, data, that the read rows read, and a 16 MiB one, wb, that the writeback rows
# store to, both of text (no zero block: mke2fs -d would leave those as holes). 4096 inodes,
# as mke2fs gives 16 MiB, so that data lies as it did on the 16 MiB disk (one block on).
# usage: sh tests/bench/ext2-disk.sh IMG      env: MKE2FS=/sbin/mke2fs
set -u
img=$1
dir=$img.d
rm -rf "$dir" "$img" && mkdir -p "$dir" || exit 1
yes extbench | head -c 4194304 >"$dir/data" && yes wbbench | head -c 16777216 >"$dir/wb" &&
	truncate -s 32M "$img" &&
	"${MKE2FS:-/sbin/mke2fs}" -q -F -t ext2 -b 4096 -N 4096 -L extbench -E root_owner=0:0 \
		-U 5a4b7ca1-0000-4000-8000-000000000003 -d "$dir" "$img" || exit 1
rm -rf "$dir"
