#!/bin/sh
# Ending the machine without QEMU's isa-debug-exit, as on a PC (docs/boot.md): the kernel ends
# it through ACPI (drivers/acpi.c). QEMU exits 0 by itself on the S5 write or, with -no-reboot,
# on the reset; a boot that stays on times out. The pc FADT (revision 1) has no reset register,
# q35's has. Then the hybrid ISO as a USB stick. usage: tests/boot/power.sh
. "$(dirname "$0")/../lib/boot.sh"
TIMEOUT=60
plan 11

tables='^acpi: RSDP rev 0 \(from GRUB\), RSDT at [0-9a-f]+, FADT rev 1 at [0-9a-f]+,'
tables=$tables' DSDT at [0-9a-f]+, PM1a_CNT 0x604, .*S5 SLP_TYP 0/0'
boot poweroff-bios 128M "init=/bin/poweroff" --no-exit-device
expect poweroff-bios 0 "$tables" \
	'poweroff: wrong magic refused \(EINVAL\)' '^reboot: Power down' \
	'^acpi: powering off \(S5: SLP_TYPa 0 into PM1a_CNT 0x604\)'
if have_ovmf; then
	boot poweroff-uefi 128M "init=/bin/poweroff" --no-exit-device --firmware ovmf
	expect poweroff-uefi 0 'EFI: system table' '^acpi: RSDP rev 2 \(from GRUB\), XSDT at ' \
		'^reboot: Power down' '^acpi: powering off \(S5: SLP_TYPa 0 into PM1a_CNT 0x'
else
	notok "boot poweroff-uefi: no OVMF firmware (install ovmf)"
fi

boot reboot-kbd 128M "init=/bin/poweroff,-r" --no-exit-device
expect reboot-kbd 0 '^reboot: Restarting system' \
	'^reboot: through the keyboard controller \(0x64 <- 0xfe\)'
# the reset itself: QEMU's -no-reboot ended it (status 0 above) and not by a triple fault
if grep -q '^reboot: through the keyboard controller' "$LOGS/reboot-kbd.log" &&
	! grep -q 'by a triple fault' "$LOGS/reboot-kbd.log"; then
	ok "reboot-kbd: the keyboard controller reset the machine, no triple fault"
else
	notok "reboot-kbd: the keyboard controller did not reset the machine" "$LOGS/reboot-kbd.log"
fi
boot reboot-acpi 128M "init=/bin/poweroff,-r" --no-exit-device --machine q35
expect reboot-acpi 0 'reset reg I/O 0xcf9 <- 0xf' \
	'^reboot: through the ACPI reset register \(I/O 0xcf9 <- 0xf\)'
if grep -q '^reboot: through the ACPI reset register' "$LOGS/reboot-acpi.log" &&
	! grep -q 'through the keyboard controller' "$LOGS/reboot-acpi.log"; then
	ok "reboot-acpi: the reset register reset q35, no fallback to the keyboard controller"
else
	notok "reboot-acpi: the reset register did not reset q35" "$LOGS/reboot-acpi.log"
fi

# halt stays on: once the kernel says "System halted." QEMU must still be running 3 s later.
# Waiting for the line instead of a fixed time keeps a slow (loaded) machine from failing it.
rm -f "$LOGS/poweroff-halt.log"
sh tests/lib/qemu.sh --iso "$ISO" --mem 128M --kargs "init=/bin/poweroff,-h" \
	--serial "$LOGS/poweroff-halt.log" --timeout 120 --no-exit-device \
	</dev/null >"$LOGS/poweroff-halt.qemu" 2>&1 &
qpid=$! halted=no on=no
for _ in $(seq 240); do
	grep -q '^System halted\.' "$LOGS/poweroff-halt.log" 2>/dev/null && halted=yes && break
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.5
done
if [ "$halted" = yes ]; then
	sleep 3
	kill -0 "$qpid" 2>/dev/null && on=yes
fi
kill "$qpid" 2>/dev/null
wait "$qpid" 2>/dev/null
if [ "$halted" = yes ] && [ "$on" = yes ]; then
	ok "boot poweroff-halt: System halted., and the machine stays on"
else
	notok "boot poweroff-halt: 'System halted.' seen: $halted, QEMU still on 3 s later: $on" \
		"$LOGS/poweroff-halt.log"
fi
boot runlist-poweroff 128M "runlist=/etc/nopage.list poweroff" --no-exit-device
expect runlist-poweroff 0 'run: done' \
	'^faultline: done; powering off \(kernel parameter poweroff\)' '^acpi: powering off'

# No serial port and no isa-debug-exit: only the screen shows anything. Without -no-reboot a
# triple fault reboots (and loops until the timeout), so exit status 0 is the S5 write itself.
boot poweroff-noserial 128M "init=/bin/poweroff" --no-exit-device --reboot --serial none
if [ "$rc" = 0 ]; then
	what="no serial port, no isa-debug-exit: ran /bin/poweroff and powered off"
	ok "boot poweroff-noserial: $what"
else
	notok "boot poweroff-noserial: QEMU exit status $rc, expected 0" \
		"$LOGS/poweroff-noserial.qemu"
fi

# The hybrid ISO as a USB stick (the README's dd): a raw usb-storage disk on xHCI
TIMEOUT=90
boot usb-bios 256M "init=/bin/poweroff" --no-exit-device --usb "$ISO"
expect usb-bios 0 'loader: GRUB' '^reboot: Power down' '^acpi: powering off'
if have_ovmf; then
	boot usb-uefi 256M "init=/bin/poweroff" --no-exit-device --usb "$ISO" --firmware ovmf
	expect usb-uefi 0 'EFI: system table' '^reboot: Power down' '^acpi: powering off'
else
	notok "boot usb-uefi: no OVMF firmware (install ovmf)"
fi
