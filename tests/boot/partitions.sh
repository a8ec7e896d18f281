#!/bin/sh
# Partitions (docs/disks.md, "Partitions"): disks made by mkparts.py, MBR (primary and logical
# partitions) on pc and q35, GPT, GPT whose primary entry array is corrupt (read from the
# backup), and two tables refused (a GPT with both copies bad, an MBR partition past the end).
# In the guest /etc/partitions.sh (busybox) prints /proc/partitions and each /dev/sdaN's first
# and last sector and what a read at and past its end returns; here they must be exactly
# mkparts.py's. On the MBR disk it writes across sda3's end (ENOSPC after one sector) and at
# sda5's start, and the image on the host must hold exactly those writes.
# usage: tests/boot/partitions.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 22 # five checks per MBR boot, three per other boot
img="$LOGS/parts.img"
eol='[[:space:]]*$' # the serial log's lines end in CR LF

# tables NAME KIND: the guest's /proc/partitions and its lines per partition, each against
# mkparts.py expect KIND
tables() {
	python3 tests/boot/mkparts.py expect "$2" >"$LOGS/$1.want"
	log=$(tr -d '\r' <"$LOGS/$1.log")
	printf '%s\n' "$log" | grep -E '^ +8 +[0-9]+ +[0-9]+ sd' >"$LOGS/$1.got"
	if grep -E '^ +8 ' "$LOGS/$1.want" | cmp -s - "$LOGS/$1.got"; then
		ok "$1: /proc/partitions lists the disk and its partitions, sizes as the table's"
	else
		grep -E '^ +8 ' "$LOGS/$1.want" | diff - "$LOGS/$1.got" >"$LOGS/$1.diff"
		notok "$1: /proc/partitions (- wanted, + the guest's)" "$LOGS/$1.diff"
	fi
	printf '%s\n' "$log" | grep "^parts: sda" >"$LOGS/$1.got"
	if grep '^parts: ' "$LOGS/$1.want" | cmp -s - "$LOGS/$1.got"; then
		ok "$1: each /dev/sdaN reads its own first and last sector, nothing past its end"
	else
		grep '^parts: ' "$LOGS/$1.want" | diff - "$LOGS/$1.got" >"$LOGS/$1.diff"
		notok "$1: the partitions' sectors (- wanted, + the guest's)" "$LOGS/$1.diff"
	fi
}

for machine in pc q35; do
	name=parts-mbr-$machine
	python3 tests/boot/mkparts.py make mbr "$img"
	boot "$name" 128M "runlist=/etc/partitions-write.list noswap" --machine "$machine" \
		--disk "$img"
	expect "$name" 33 "^ sda: sda1 sda2 < sda5 sda6 > sda3$eol" \
		'run: timeout=60 /bin/sh /etc/partitions.sh write: exit 0' 'run: done'
	tables "$name" mbr
	log="$LOGS/$name.log"
	if [ "$(grep -c "error writing '/dev/sda3': No space left on device" "$log")" = 2 ] &&
		grep -q "^parts: write across sda3's end: 0 bytes not zero" "$log" &&
		grep -q "^parts: read back 'sda3 written!' 'sda5 written!'" "$log"; then
		ok "$name: writes land in their partition, ENOSPC at and across its end"
	else
		notok "$name: the writes (sda3's last sector zeroed, ENOSPC twice, read back)" \
			"$log"
	fi
	if python3 tests/boot/mkparts.py check mbr "$img" >"$LOGS/$name.img.txt"; then
		ok "$name: the image on the host holds the guest's writes, its neighbours unchanged"
	else
		notok "$name: the image differs from what the guest wrote" "$LOGS/$name.img.txt"
	fi
done

# GPT, then the tables refused, on pc: the kernel's line about each table
for kind in gpt gpt-backup gpt-bad mbr-bad; do
	case $kind in
	gpt) line="^ sda: sda1 sda3 sda4$eol" ;;
	gpt-backup) line="^sda: GPT: primary header: entry array CRC32 is wrong: using the backup"
		line="$line at LBA 32767$eol" ;;
	gpt-bad) line='^ sda: partition table refused: GPT: primary header: header CRC32 is wrong;'
		line="$line backup header at LBA 32767: entry array CRC32 is wrong$eol" ;;
	mbr-bad) line='^ sda: partition table refused: sda2 \(sectors 8192-40959\) ends past'
		line="$line the disk's last sector 32767$eol" ;;
	esac
	name=parts-$kind
	python3 tests/boot/mkparts.py make "$kind" "$img"
	boot "$name" 128M "runlist=/etc/partitions.list noswap" --disk "$img"
	expect "$name" 33 "$line" 'run: timeout=60 /bin/sh /etc/partitions.sh: exit 0' 'run: done'
	tables "$name" "$kind"
done
rm -f "$img"
