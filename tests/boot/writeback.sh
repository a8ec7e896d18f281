#!/bin/sh
# Writeback (docs/writeback.md): a zeroed 4 MiB partition at 1 MiB of an image as /dev/sda1,
# mapped MAP_SHARED by /bin/writeback, which reads what reached the disk from /dev/sda (another
# page cache): its checks in the guest (dirty tracking, msync, the writeback thread), then
# on the host the image must hold what msync and fsync wrote, the page the writeback thread
# wrote with no msync, and not the page stored with the thread off (nothing wrote it). Then
# /dev/sda2 (64 MiB at 8 MiB) stored to with the thread off: at dirty_ratio 100 nothing is
# written during the stores, at 5 the writer writes back itself; in a 48 MiB machine 64 MiB of
# it can be stored to only because reclaim writes the dirty pages; the image holds them all.
# Last, the disk fails every write to sda1's page 0 (QEMU's blkdebug): msync of it is EIO.
# usage: tests/boot/writeback.sh
. "$(dirname "$0")/../lib/boot.sh"

img="$LOGS/writeback.img"
plan 10
# two MBR partitions, type 0x83: 4 MiB at 1 MiB, 64 MiB at 8 MiB
python3 - "$img" <<'EOT'
import struct, sys
mbr = bytearray(512)
for i, (start, size) in enumerate([(2048, 8192), (16384, 131072)]):
    mbr[446 + 16 * i:462 + 16 * i] = struct.pack('<B3sB3sII', 0, b'\0\0\0', 0x83, b'\0\0\0',
                                                 start, size)
mbr[510:512] = b'\x55\xaa'
with open(sys.argv[1], 'wb') as f:
    f.write(mbr)
    f.truncate(72 << 20)
EOT
boot writeback 128M "runlist=/etc/writeback.list" --disk "$img"
expect writeback 33 'run: timeout=60 /bin/writeback /dev/sda1 /dev/sda 1048576: exit 0' \
	'run: timeout=60 /bin/writeback /dev/sda1 /dev/sda 1048576 leave: exit 0' \
	'run: timeout=60 /bin/writeback /dev/sda2 /dev/sda 8388608 fill 24 100: exit 0' \
	'run: timeout=60 /bin/writeback /dev/sda2 /dev/sda 8388608 fill 24 5: exit 0' 'run: done'
# page N of the image: "c" if all its bytes are c, else "mixed"
page() {
	dd if="$img" bs=4096 skip=$((256 + $1)) count=1 2>/dev/null | od -An -c -v | tr -d ' \n' |
		sed 's/^\(.\)\1*$/\1/; t; s/.*/mixed/'
}
got="$(page 0) $(page 1) $(page 5) $(page 7) $(page 8) $(page 255)"
if [ "$got" = "B A T M C A" ]; then
	ok "writeback: the image holds the stores msync and fsync wrote"
else
	notok "writeback: pages 0 1 5 7 8 255 of the image are '$got', not 'B A T M C A'" \
		"$LOGS/writeback.log"
fi
if [ "$(page 9)" = W ]; then
	ok "writeback: the writeback thread wrote page 9, never msync'd nor synced"
else
	notok "writeback: page 9 of the image is '$(page 9)', not W" "$LOGS/writeback.log"
fi
if [ "$(page 10)" = X ]; then
	notok "writeback: page 10, stored with the thread off, reached the image" \
		"$LOGS/writeback.log"
else
	ok "writeback: page 10, stored with the thread off, did not reach the image"
fi
# KiB written back during the stores of a fill: its line in log $1, dirty_ratio $2
filled() {
	tr -d '\r' <"$LOGS/$1.log" |
		sed -n "s/^writeback: fill .* at dirty_ratio $2: pgpgout +\([0-9]*\) KiB$/\1/p"
}
r100=$(filled writeback 100) r5=$(filled writeback 5)
if [ "${r100:-x}" = 0 ] && [ "${r5:-0}" -ge 8192 ]; then
	ok "writeback: a writer above dirty_ratio 5 wrote $r5 KiB back itself, none at 100"
else
	notok "writeback: 24 MiB stored: '$r100' KiB written at dirty_ratio 100 (want 0), \
'$r5' at 5 (want 8192 or more)" "$LOGS/writeback.log"
fi
boot writeback-reclaim 48M "runlist=/etc/writeback-reclaim.list" --disk "$img"
expect writeback-reclaim 33 \
	'run: timeout=120 /bin/writeback /dev/sda2 /dev/sda 8388608 fill 64 100: exit 0' 'run: done'
r=$(filled writeback-reclaim 100)
if [ "${r:-0}" -ge 16384 ]; then
	ok "writeback: reclaim wrote $r KiB of dirty pages while 64 MiB were stored in 48 MiB"
else
	notok "writeback: '$r' KiB written while 64 MiB were stored in 48 MiB (want 16384 or \
more)" "$LOGS/writeback-reclaim.log"
fi
# every page of sda2 that a fill stored to: its number, then 'P' to its end
if python3 - "$img" <<'EOT'
import struct, sys
with open(sys.argv[1], 'rb') as f:
    f.seek(8 << 20)
    for i in range(64 << 8):
        page = f.read(4096)
        if page[:8] != struct.pack('<q', i) or page[8:] != b'P' * 4088:
            sys.exit('page %d of sda2 is not stamped' % i)
EOT
then
	ok "writeback: the image holds every page the fills stored to"
else
	notok "writeback: a page of sda2 on the image is not what was stored" \
		"$LOGS/writeback-reclaim.log"
fi
# every write to sector 2048, sda1's first, fails with EIO
conf="$LOGS/writeback.blkdebug"
cat >"$conf" <<'EOT'
[inject-error]
event = "write_aio"
iotype = "write"
errno = "5"
sector = "2048"
EOT
boot writeback-eio 128M "runlist=/etc/writeback-eio.list" --disk "$img" --disk-errors "$conf"
expect writeback-eio 33 'run: timeout=60 /bin/writeback /dev/sda1 /dev/sda 1048576 eio: exit 0' \
	'run: done'
if grep -q '^ata1: DMA write error at sectors 2048-' "$LOGS/writeback-eio.log" &&
	grep -q '^writeback: ok (' "$LOGS/writeback-eio.log"; then
	ok "writeback: msync of a page the disk fails to write is EIO, of the next page 0"
else
	notok "writeback: msync on a failing disk" "$LOGS/writeback-eio.log"
fi
