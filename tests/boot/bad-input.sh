#!/bin/sh
# Bad boot input: an unknown parameter, a missing runlist file, no ramdisk module, a ramdisk cut
# short. Each gets a one-line message and the kernel goes on to the end of the boot.
# usage: tests/boot/bad-input.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 3
boot bad-params 128M "qemu_exit bogus=1 runlist=/no/such/list"
expect bad-params 35 "cmdline: unknown parameter 'bogus' ignored" \
	'run: /no/such/list: no such file in the ramdisk' 'boot complete'

bad_iso() { # bad_iso NAME: build/isodir copied to $LOGS/NAME.dir, changed by the caller
	rm -rf "$LOGS/$1.dir" && cp -r build/isodir "$LOGS/$1.dir" &&
		sed 's|@CMDLINE@||' iso/grub.cfg >"$LOGS/$1.dir/boot/grub/grub.cfg"
}
bad_iso_boot() { # bad_iso_boot NAME KARGS PATTERN...: make the ISO, boot it, expect
	name=$1 kargs=$2
	shift 2
	if make -s iso-from ISODIR="$LOGS/$name.dir" ISO_OUT="$LOGS/$name.iso" \
		>"$LOGS/$name.make" 2>&1; then
		saved=$ISO ISO=$LOGS/$name.iso
		boot "$name" 128M "$kargs"
		ISO=$saved
		expect "$name" 33 "$@"
	else
		notok "boot $name: could not build its ISO" "$LOGS/$name.make"
	fi
}
bad_iso no-ramdisk && sed -i '/module2/d' "$LOGS/no-ramdisk.dir/boot/grub/grub.cfg"
bad_iso_boot no-ramdisk "qemu_exit" 'initramfs: no ramdisk module' \
	'run: /bin/init: cannot run: no such file' 'boot complete'
# a ramdisk cut in the middle of a file: what came before it is kept
bad_iso bad-cpio && head -c 300000 build/initrd.cpio >"$LOGS/bad-cpio.dir/boot/initrd.cpio"
bad_iso_boot bad-cpio "qemu_exit" 'initramfs: corrupt archive at offset 0x[0-9a-f]+' \
	'initramfs: [0-9]+ files' 'boot complete'
