#!/bin/sh
# Writeback (docs/writeback.md): a zeroed 4 MiB partition at 1 MiB of an image as /dev/sda1,
# mapped MAP_SHARED by /bin/writeback, which reads what reached the disk from /dev/sda (another
# page cache): its checks in the guest (dirty tracking, msync, the writeback thread), then
# on the host the image must hold what msync and fsync wrote, the page the writeback thread
# wrote with no msync, and not the page stored with the thread off (nothing wrote it).
# usage: tests/boot/writeback.sh
. "$(dirname "$0")/../lib/boot.sh"

img="$LOGS/writeback.img"
plan 4
# one MBR partition, type 0x83, at sector 2048 for 8192 sectors
python3 - "$img" <<'EOT'
import struct, sys
mbr = bytearray(512)
mbr[446:462] = struct.pack('<B3sB3sII', 0, b'\0\0\0', 0x83, b'\0\0\0', 2048, 8192)
mbr[510:512] = b'\x55\xaa'
with open(sys.argv[1], 'wb') as f:
    f.write(mbr)
    f.truncate(6 << 20)
EOT
boot writeback 128M "runlist=/etc/writeback.list" --disk "$img"
expect writeback 33 'run: timeout=60 /bin/writeback /dev/sda1 /dev/sda 1048576: exit 0' \
	'run: timeout=60 /bin/writeback /dev/sda1 /dev/sda 1048576 leave: exit 0' 'run: done'
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
