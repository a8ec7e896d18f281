#!/bin/sh
# ext2 read from a disk (docs/disks.md, "ext2"): images made by ext2-image.py with mke2fs -d, 1 KiB
# and 4 KiB blocks, each as /dev/sda, mounted read-only on /mnt by /etc/ext2.sh; its manifest
# (every path's mode, owner, size, links, each file's md5, each link's target) must be the
# host's, and df the counts of Linux's ext2. First on this host: the same manifest script on a
# loop mount must print ext2-image.py's manifest, and a tampered image must not.
# usage: tests/boot/ext2.sh
. "$(dirname "$0")/../lib/boot.sh"

# boots: name, block size, launcher options (pc's IDE with both sizes, q35's AHCI with 1 KiB
# blocks on 2 CPUs, whose disk reads cost the host least); EXT2_BOOTS='...' runs others instead
# (a line each: name, size, options; empty: none)
BOOTS='ext2-1k-pc 1024 --machine pc
ext2-4k-pc 4096 --machine pc
ext2-1k-q35-smp2 1024 --machine q35 --smp 2'
BOOTS=${EXT2_BOOTS-$BOOTS}
plan $((3 + 3 * $(printf '%s\n' "$BOOTS" | grep -c .))) # the host's three, three per boot
TIMEOUT=${TEST_TIMEOUT:-300}
BUSYBOX=${BUSYBOX:-/bin/busybox}
eol='[[:space:]]*$' # the serial log's lines end in CR LF

for bs in 1024 4096; do
	python3 tests/boot/ext2-image.py make $bs "$LOGS/ext2-$bs.img" ||
		{ echo "# ext2-image.py make $bs failed"; exit 1; }
	python3 tests/boot/ext2-image.py df "$LOGS/ext2-$bs.img" >"$LOGS/ext2-$bs.df"
done

# host_manifest IMG OUT: /etc/ext2-manifest.sh under busybox on a read-only loop mount of IMG,
# then "df K USED AVAIL" of the mount in OUT.df; non-zero if it cannot mount
host_manifest() {
	hm_dir=$(mktemp -d) && mkdir "$hm_dir/bin" "$hm_dir/mnt" || return 1
	for a in sh find stat sort sed md5sum readlink; do
		ln -s "$BUSYBOX" "$hm_dir/bin/$a"
	done
	hm_rc=1
	if mount -o loop,ro "$1" "$hm_dir/mnt" 2>"$2"; then
		PATH=$hm_dir/bin "$BUSYBOX" sh iso/root/etc/ext2-manifest.sh "$hm_dir/mnt" \
			>"$2" 2>&1
		df -k "$hm_dir/mnt" | awk 'NR == 2 { print $2, $3, $4 }' >"$2.df"
		umount "$hm_dir/mnt" && hm_rc=0
	fi
	rm -rf "$hm_dir"
	return $hm_rc
}

# The host's checks need root and a loop device (mount -o loop): without them they are
# skipped; the boots still hold faultline to ext2-image.py's manifests.
if [ "$(id -u)" != 0 ] || ! losetup -f >/dev/null 2>&1; then
	why="needs root and a loop device (mount -o loop)"
	for bs in 1024 4096; do
		skip "ext2 host $bs: the manifest script on a loop mount" "$why"
	done
	skip "ext2 host: a tampered image's manifest differs" "$why"
else
	for bs in 1024 4096; do
		img=$LOGS/ext2-$bs.img out=$LOGS/ext2-host-$bs.manifest
		want_df=$(cat "$LOGS/ext2-$bs.df")
		what="ext2 host $bs"
		if ! host_manifest "$img" "$out"; then
			notok "$what: cannot mount the image on a loop device" "$out"
		elif ! diff "$img.manifest" "$out" >"$out.diff"; then
			notok "$what: the loop mount's manifest (- the tool's, + the script's)" \
				"$out.diff"
		elif [ "$want_df" != "$(cat "$out.df")" ]; then
			echo "ext2-image.py df: $want_df; the host's: $(cat "$out.df")" >"$out.diff"
			notok "$what: df of the loop mount is not ext2-image.py's" "$out.diff"
		else
			ok "$what: the manifest script on a loop mount prints ext2-image.py's $(
				wc -l <"$out") lines; df $want_df"
		fi
	done
	# the comparison can fail: one byte of the big file's first block changed
	img=$LOGS/ext2-tampered.img out=$LOGS/ext2-host-tampered.manifest
	cp --sparse=always "$LOGS/ext2-4096.img" "$img"
	python3 tests/boot/ext2-image.py tamper "$img" >"$out.what"
	if host_manifest "$img" "$out" &&
		! diff "$LOGS/ext2-4096.img.manifest" "$out" >"$out.diff" &&
		[ "$(grep -c '^[<>]' "$out.diff")" = 2 ] &&
		grep -q '^> md5 ./big/random.bin ' "$out.diff"; then
		ok "ext2 host: a tampered image ($(cat "$out.what")) differs in one md5, $(
			)big/random.bin's"
	else
		notok "ext2 host: the tampered image's manifest (one line should differ)" \
			"$out.diff"
	fi
	rm -f "$img"
fi

printf '%s\n' "$BOOTS" | grep . | while read -r name bs opts; do
	# shellcheck disable=SC2086 # (opts: the launcher's options, one word each)
	boot "$name" 256M "runlist=/etc/ext2.list noswap" $opts --disk "$LOGS/ext2-$bs.img" \
		</dev/null
	expect "$name" 33 "^ext2: mounted$eol" "^ext2: unmounted$eol" \
		'run: timeout=600 /bin/sh /etc/ext2.sh: exit 0' 'run: done'
	log=$LOGS/$name.log
	tr -d '\r' <"$log" | sed -n 's/^mf: //p' >"$LOGS/$name.manifest"
	if diff "$LOGS/ext2-$bs.img.manifest" "$LOGS/$name.manifest" >"$LOGS/$name.diff"; then
		ok "$name: every path's mode, owner, size and links, every md5 and link target as $(
			)the host's ($(wc -l <"$LOGS/$name.manifest") lines)"
	else
		notok "$name: the manifest (- the host's, + the guest's)" "$LOGS/$name.diff"
	fi
	got=$(tr -d '\r' <"$log" | awk '/^df: / && $NF == "/mnt" { print $3, $4, $5 }')
	if [ -n "$got" ] && [ "$got" = "$(cat "$LOGS/ext2-$bs.df")" ]; then
		ok "$name: df /mnt: 1K-blocks, used, available as Linux's ext2 ($got)"
	else
		echo "df: '$got', Linux's ext2: '$(cat "$LOGS/ext2-$bs.df")'" >"$LOGS/$name.diff"
		grep -a '^df: \|^statfs: ' "$log" >>"$LOGS/$name.diff"
		notok "$name: df /mnt" "$LOGS/$name.diff"
	fi
done
rm -f "$LOGS"/ext2-1024.img "$LOGS"/ext2-4096.img # (only its own: other ext2 tests run beside it)
