#!/bin/sh
# Swapping under load (docs/swap.md): a 48 MiB machine leaves a process about 33 MiB (the
# ramdisk's files live in RAM); /bin/swap-stress writes 96 MiB (twice the machine's RAM)
# with a value of each word's address and a round, reads it back, twice, then a forked child
# checks it while the parent rewrites half (copy-on-write of pages out in swap). A 256 MiB swap
# area as /dev/sda, swapped on by the kernel at boot; on pc (IDE), and on q35 (AHCI) with 2 CPUs.
# After every program: kcheck clean, every frame and every swap slot back.
# usage: tests/boot/swap-stress.sh
. "$(dirname "$0")/../lib/boot.sh"
. "$(dirname "$0")/../lib/swap.sh"

MIB=96 SWAP_MIB=256
# About 1.3 GiB of swap traffic a boot: Linux 6.1 under the same TCG and IDE, confined to
# 33 MiB by a memory cgroup, took 99 s for it on a busy 2-core host (38 s with 64 MiB), and
# 4 KiB requests go at 32 MB/s on pc's IDE, 80 on q35's AHCI. A kernel that thrashes or
# hangs is cut off: the program after 180 s, QEMU after 240.
TIMEOUT=240
img="$LOGS/swap-stress.img"
kb=$(((SWAP_MIB * 256 - 1) * 4))

# each machine: the boot, the big program, its swap traffic, swap_after_each's three
plan $((2 * 6))
for machine in pc q35-smp2; do
	name=swap-stress-$machine
	if ! swap_mkimg "$img" $SWAP_MIB; then
		notok "$name: mkswap of a ${SWAP_MIB} MiB image failed"
		continue
	fi
	smp=1
	[ "$machine" = q35-smp2 ] && smp=2
	boot "$name" 48M "runlist=/etc/swap-stress.list runstats kcheck" \
		--machine "${machine%-smp2}" --smp $smp --disk "$img"
	echo "# $name: $(tail -n 1 "$LOGS/times.txt")"
	expect "$name" 33 "^Adding ${kb}k swap on /dev/sda\.  Priority:-2 " \
		"run: timeout=180 /bin/swap-stress $MIB: exit 0" \
		"run: timeout=60 /bin/swap-stress 8: exit 0" 'run: done'
	# what became of the big one, said plainly (killed for want of memory, wrong data...)
	res=$(swap_log "$name" | grep "^run: .*/bin/swap-stress $MIB: ")
	bad=$(swap_log "$name" | grep -E '^swap-stress: (FAIL|.*: the word at|.*wrong words)' |
		head -n 2 | tr '\n' ' ')
	if [ "$res" = "run: timeout=180 /bin/swap-stress $MIB: exit 0" ]; then
		ok "$name: $MIB MiB written, read back twice, checked by a child while rewritten"
	else
		notok "$name: ${res:-swap-stress $MIB never ended}${bad:+: $bad}" \
			"$(swap_excerpt "$name" "/bin/swap-stress $MIB:")"
	fi
	swap_traffic "$name" $MIB
	swap_after_each "$name"
done
rm -f "$img"
