#!/bin/sh
# Someone else's programs: `make run INITRD_EXTRA=dir CMDLINE='runlist=/list'` puts dir into
# the ramdisk and the list on GRUB's command line. Build that ISO aside, boot it, put ours back.
# usage: tests/boot/extra.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 1
dir="$LOGS/extra" iso="$LOGS/extra.iso"
rm -rf "$dir" "$iso" && mkdir -p "$dir/opt"
cp build/user/args "$dir/opt/their-args"
printf '/opt/their-args one two three\n\n# a comment\n/bin/hello\n' >"$dir/list"
cp "$ISO" "$LOGS/ours.iso"
# the build the tested ISO came from, so that its objects are reused
case $ISO in
build/lockdebug/*) build="LOCKDEBUG=1" ;;
*) build="B=$(dirname "$ISO")" ;;
esac
if make -s iso "$build" INITRD_EXTRA="$dir" CMDLINE='runlist=/list' >"$LOGS/extra.make" 2>&1
then
	cp "$ISO" "$iso"
fi
# the build as it was (its ramdisk and grub.cfg too, so that no later make rebuilds the ISO
# under a test that boots it); the old ISO if that fails
make -s iso "$build" >>"$LOGS/extra.make" 2>&1 || { cp "$LOGS/ours.iso" "$ISO" && touch "$ISO"; }
ISO=$iso
boot extra 128M "test=extra" # the runlist comes from grub.cfg; fw_cfg needs some string
expect extra 33 'run: /opt/their-args one two three: exit 0' 'run: /bin/hello: exit 0' 'run: done'
