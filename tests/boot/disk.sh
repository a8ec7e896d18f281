#!/bin/sh
# Disks (docs/disks.md): a raw image of stamped sectors as the first IDE disk, on pc (the
# PIIX IDE controller: bus-master DMA, then PIO with libata.dma=0) and on q35 (AHCI, DMA).
# In the guest /bin/disk-rw reads it at several offsets, writes whole and partial sectors and
# reads them back, checks the ioctls, /proc/partitions and /proc/bus/pci/devices, reads from
# four processes at once; here the image must hold exactly its writes.
# Then a sector made to fail by QEMU's blkdebug: read() gets EIO and the kernel goes on; and
# the whole disk read through its page cache with less RAM than it holds.
# usage: tests/boot/disk.sh
. "$(dirname "$0")/../lib/boot.sh"

SECTORS=81920 # 40 MiB: sector numbers use all three LBA28 address bytes
img="$LOGS/disk.img" conf="$LOGS/disk-blkdebug.conf"
cat >"$conf" <<'EOT'
[inject-error]
event = "read_aio"
errno = "5"
sector = "1000"
EOT

# four checks per machine, the noapic boot's, the reclaim boot's three, the UEFI boot's two
plan $((3 * 4 + 1 + 3 + 2))
for machine in pc pc-pio q35; do
	extra=''
	error='^ata1: DMA read error at sectors 1000-1000'
	case $machine in
	pc) driver='^ata1: 1f0/3f6, irq 14, bus-master DMA at ' ;;
	pc-pio) driver='^ata1: 1f0/3f6, irq 14, PIO' extra='libata.dma=0'
		error='^ata1: read error at sector 1000' ;;
	q35) driver='^ahci 00:1f.2: AHCI .*, interrupts' error='^ata1: command failed' ;;
	esac
	python3 tests/boot/disk-image.py make "$img" $SECTORS
	boot "disk-$machine" 128M "runlist=/etc/disk.list kcheck $extra" \
		--machine "${machine%-pio}" --disk "$img"
	expect "disk-$machine" 33 "$driver" '^ata1.00: 81920 sectors: LBA48' \
		'^sd 0:0:0:0: \[sda\] 81920 512-byte logical blocks' 'disk-rw: ok' \
		"run: timeout=60 /bin/disk-rw /dev/sda $SECTORS: exit 0" \
		'^kcheck: .* checked: 0 mismatches' 'run: done'
	# /proc/diskstats after disk-rw: reads and writes completed, none in flight; none of
	# them polled (a lost interrupt says so)
	st=$(tr -d '\r' <"$LOGS/disk-$machine.log" | awk '$3 == "sda" && NF >= 12 {
		print $4, $8, $12 }' | tail -n 1)
	read -r rd wr fl <<EOT
$st
EOT
	if grep -q 'no completion interrupt' "$LOGS/disk-$machine.log"; then
		notok "disk-$machine: a request waited for an interrupt that never came" \
			"$LOGS/disk-$machine.log"
	elif [ "${rd:-0}" -gt 0 ] && [ "${wr:-0}" -gt 0 ] && [ "$fl" = 0 ]; then
		ok "disk-$machine: every request completed by its interrupt ($rd reads, $wr writes)"
	else
		notok "disk-$machine: /proc/diskstats (reads writes in-flight): '$st'" \
			"$LOGS/disk-$machine.log"
	fi
	if python3 tests/boot/disk-image.py check "$img" $SECTORS >"$LOGS/disk-$machine.img.txt"
	then
		ok "disk-$machine: the image on the host holds the guest's writes, nothing else"
	else
		notok "disk-$machine: the image differs from what the guest wrote" \
			"$LOGS/disk-$machine.img.txt"
	fi

	python3 tests/boot/disk-image.py make "$img" $SECTORS
	boot "disk-error-$machine" 128M "runlist=/etc/disk-error.list kcheck $extra" \
		--machine "${machine%-pio}" --disk "$img" --disk-errors "$conf"
	expect "disk-error-$machine" 33 "$error" \
		'disk-rw: ok' "run: timeout=60 /bin/disk-rw /dev/sda $SECTORS 1000: exit 0" \
		'^kcheck: .* checked: 0 mismatches' 'run: done'
done

# The 8259 PIC instead of the I/O APIC (noapic): the AHCI's INTx on its ISA line. The machine
# has two CPUs, but faultline's noapic leaves the local APIC off too (docs/smp.md), and with it
# the APs: one CPU comes up.
python3 tests/boot/disk-image.py make "$img" $SECTORS
boot disk-q35-noapic 128M "runlist=/etc/disk.list kcheck noapic" --machine q35 --smp 2 \
	--disk "$img"
smp_cpus=1
expect disk-q35-noapic 33 '^apic: noapic' '^smp: 1 CPU online \(no local APIC\)' \
	'^ahci 00:1f.2: AHCI .*, interrupts' 'disk-rw: ok' \
	"run: timeout=60 /bin/disk-rw /dev/sda $SECTORS: exit 0" 'run: done'

# The device's page cache under reclaim: all 40 MiB of /dev/sda read with 40 MiB of RAM (24
# free), so kswapd must steal thousands of the device's pages (a page it cannot free ends in
# the OOM killer). The last sector is still its own, the pages show as Buffers, and every
# frame is back afterwards (free, or still in the cache).
python3 tests/boot/disk-image.py make "$img" $SECTORS
boot disk-reclaim 40M "runlist=/etc/disk-reclaim.list runstats kcheck noswap" --disk "$img"
expect disk-reclaim 33 "^disk-reclaim: read $((SECTORS * 512)) bytes" \
	"^disk-reclaim: last sector 'SECTOR00081919'" '^disk-reclaim: Buffers: +[1-9][0-9]* kB' \
	'^disk-reclaim: pgsteal_kswapd [0-9]{4,}' \
	'run: timeout=120 /bin/sh /etc/disk-reclaim.sh: exit 0' \
	'^kcheck: .* checked: 0 mismatches' 'run: done'
set -- $(tr -d '\r' <"$LOGS/disk-reclaim.log" |
	sed -n 's/^frames: \([0-9]*\) free or cached before, \([0-9]*\) after$/\1 \2/p')
if [ $# = 2 ] && [ "$1" = "$2" ]; then
	ok "disk-reclaim: every frame back after reading the disk through its cache"
else
	notok "disk-reclaim: frames (before after) are '$*'" "$LOGS/disk-reclaim.log"
fi
# consecutive pages read ahead in runs of 8 (64 sectors): 1280 requests for the whole disk, so
# fewer than twice that with the partition table's and the last sector's, and not 10240
set -- $(tr -d '\r' <"$LOGS/disk-reclaim.log" |
	sed -n 's/^disk-reclaim: sda: \([0-9]*\) reads, \([0-9]*\) sectors$/\1 \2/p')
if [ $# = 2 ] && [ "$1" -lt $((SECTORS / 64 * 2)) ] && [ "$2" -ge "$SECTORS" ]; then
	ok "disk-reclaim: the disk read in $1 requests, several pages each"
else
	notok "disk-reclaim: /proc/diskstats' reads and sectors: '$*'" "$LOGS/disk-reclaim.log"
fi

# UEFI: OVMF routes the AHCI function's INTA to a PIC line of its own choosing and maps ABAR
# elsewhere; the driver takes both from the configuration space.
if have_ovmf; then
	python3 tests/boot/disk-image.py make "$img" $SECTORS
	boot disk-q35-uefi 128M "runlist=/etc/disk.list kcheck" --machine q35 --firmware ovmf \
		--disk "$img"
	expect disk-q35-uefi 33 '^ahci 00:1f.2: AHCI .*, interrupts' 'disk-rw: ok' \
		"run: timeout=60 /bin/disk-rw /dev/sda $SECTORS: exit 0" 'run: done'
	if python3 tests/boot/disk-image.py check "$img" $SECTORS \
		>"$LOGS/disk-q35-uefi.img.txt"; then
		ok "disk-q35-uefi: the image on the host holds the guest's writes, nothing else"
	else
		notok "disk-q35-uefi: the image differs from what the guest wrote" \
			"$LOGS/disk-q35-uefi.img.txt"
	fi
else
	notok "boot disk-q35-uefi: no OVMF firmware (install ovmf)"
	notok "disk-q35-uefi: the image: not booted"
fi
rm -f "$img"
