#!/bin/sh
# Swap areas (docs/swap.md): build/swap.img, made by util-linux mkswap, as the first disk on pc
# (PIIX IDE) and q35 (AHCI). /bin/swap-area swaps on and off, reads /proc/swaps and meminfo,
# writes corrupt headers, each refused with EINVAL and a kernel line naming the reason, then
# puts the header back; busybox's swapon, swapoff and free (all with noswap). Here: the image is
# as mkswap made it, the kernel said what it refused, and every frame came back after each
# program. Then a boot without noswap: the kernel swaps on /dev/sda by itself.
# usage: tests/boot/swap.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 7 # three checks per machine, then the boot that swaps on by itself
MKSWAP=${MKSWAP:-/sbin/mkswap}
src=build/swap.img img="$LOGS/swap.img"
if [ ! -r "$src" ]; then
	src="$LOGS/swap-made.img"
	rm -f "$src" && truncate -s 128M "$src" && "$MKSWAP" -L faultline-swap "$src" \
		>/dev/null 2>&1 || { notok "swap: no build/swap.img and mkswap failed"; exit 0; }
fi
pages=$(($(stat -c %s "$src") / 4096))
kb=$(((pages - 1) * 4))

for machine in pc q35; do
	cp "$src" "$img"
	boot "swap-$machine" 128M "runlist=/etc/swap.list runstats kcheck noswap" \
		--machine "$machine" \
		--disk "$img"
	expect "swap-$machine" 33 'swap-area: ok' \
		"run: timeout=60 /bin/swap-area /dev/sda: exit 0" \
		"^Adding ${kb}k swap on /dev/sda\.  Priority:-2 extents:1 across:${kb}k" \
		"^Adding ${kb}k swap on /dev/sda\.  Priority:7 " \
		"^Adding $((kb - 8))k swap on /dev/sda\.  Priority:1 " \
		'^swapon: /dev/sda: Unable to find swap-space signature[[:space:]]*$' \
		'^swapon: /dev/sda: Unable to find swap-space signature: version 0 \(SWAP-SPACE\)' \
		'^swapon: /dev/sda: Unable to handle swap header version 2[[:space:]]*$' \
		"^swapon: /dev/sda: Swap area shorter than signature indicates: last page $pages," \
		'^swapon: /dev/sda: Empty swap-file[[:space:]]*$' \
		'^swapon: /dev/sda: Bad pages list too long: 638 entries, at most 637 fit' \
		"^swapon: /dev/sda: Bad page $pages out of range \(1\.\.$((pages - 1))\)" \
		'^swapon: /dev/sda: Bad page 0 out of range' \
		'^swapon: /dev/sda: page size mismatch: the area was made for 65536-byte pages' \
		"^/dev/sda +partition	${kb}	+0	+-2[[:space:]]*$" \
		"^SwapTotal: +${kb} kB" "^Swap: +${kb} +0 +${kb}[[:space:]]*$" 'swap-busybox: ok' \
		"run: timeout=60 /bin/sh /etc/swap-busybox.sh: exit 0" \
		'^kcheck: .* checked: 0 mismatches' 'run: done'
	# runstats: the free frames after each program as before it (the swap map given back)
	frames=$(tr -d '\r' <"$LOGS/swap-$machine.log" |
		sed -n 's/^frames: \([0-9]*\) free or cached before, \([0-9]*\) after$/\1 \2/p')
	if [ "$(echo "$frames" | wc -l)" = 2 ] && echo "$frames" | awk '$1 != $2 { exit 1 }'
	then
		ok "swap-$machine: every frame back after each program"
	else
		notok "swap-$machine: frames (before after) are '$frames'" "$LOGS/swap-$machine.log"
	fi
	if cmp -s "$src" "$img"; then
		ok "swap-$machine: the image is as mkswap made it (every corrupt header undone)"
	else
		notok "swap-$machine: the guest left the swap image changed"
	fi
done

# Without noswap the kernel takes the first disk with the signature at boot.
cp "$src" "$img"
boot swap-at-boot 128M "runlist=/etc/swap-boot.list" --disk "$img"
expect swap-at-boot 33 '^swap: /dev/sda carries a swap signature: swapon' \
	"^Adding ${kb}k swap on /dev/sda\.  Priority:-2 " 'Device or resource busy' \
	'swap-boot: ok' 'run: timeout=60 /bin/sh /etc/swap-boot.sh: exit 0'
rm -f "$img"
