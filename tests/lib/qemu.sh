#!/bin/sh
# The one QEMU launcher: every boot (faultline's by make run/debug, the tests and labs, and make
# bench's Linux reference runs) goes through it, so a machine is described by named options
# instead of a hand-written QEMU command line.
# usage: tests/lib/qemu.sh [OPTION...] [-- EXTRA_QEMU_ARG...]; --help lists the options.
usage() {
	cat <<'EOT'
usage: tests/lib/qemu.sh [OPTION...] [-- EXTRA_QEMU_ARG...]
  --iso FILE        boot FILE as a CD-ROM (default build/faultline.iso)
  --usb FILE        boot FILE as a USB stick on xHCI instead (writes go to a snapshot)
  --kernel FILE     boot a Linux kernel image directly instead (make bench's Linux reference
                    runs), with --initrd FILE and --append STRING, its command line
  --disk FILE       a raw disk image as the first IDE disk (-drive if=ide: pc's PIIX
                    primary master, q35's AHCI port 0); writes go to FILE
  --disk2 FILE      a second raw disk image (pc's primary slave, q35's AHCI port 1): /dev/sdb
                    beside --disk's /dev/sda (make run's build/disk.img); writes go to FILE
  --disk-errors CONF  wrap --disk in QEMU's blkdebug driver with config file CONF
                    (its [inject-error] sections make chosen sectors fail)
  --mem SIZE        RAM, e.g. 32M, 5G (default 256M)
  --cpu MODEL       CPU model (default qemu64; max has SMEP, SMAP, UMIP)
  --smp N           CPUs (default 1)
  --machine TYPE    pc (i440FX, default) or q35
  --accel NAME      tcg (default) or kvm
  --firmware FW     bios (SeaBIOS, default) or ovmf (UEFI; needs the ovmf package)
  --vars FILE       OVMF's writable variable store, copied fresh before each boot
                    (default: next to the --serial file, else build/ovmf-vars.fd)
  --kargs STRING    kernel parameters through fw_cfg (opt/faultline/cmdline), added to
                    grub.cfg's; write commas as the kernel sees them (init=/bin/args,one)
  --serial WHERE    FILE (a log), stdio, mon:stdio (Ctrl-a x quits, Ctrl-a c monitor) or none
                    (default stdio)
  --monitor SOCK    QEMU's monitor on the unix socket SOCK (screendump, quit); default none
  --display WHAT    none (default) or auto (QEMU's window, when there is a display)
  --gdb PORT        start paused, gdb stub on 127.0.0.1:PORT
  --timeout SECS    kill QEMU after SECS seconds (exit status 124)
  --icount          deterministic guest clock: one instruction per ns, fixed RTC (make bench)
  --no-exit-device  no isa-debug-exit device, as on a PC (the kernel ends through ACPI)
  --reboot          a reset reboots (default: -no-reboot, a reset ends QEMU)
  --exit-codes      say what QEMU's exit status means; 33 becomes 0, 35 1, 37 2
  --dry-run         print the QEMU command instead of running it
Exit status: QEMU's (isa-debug-exit writes v: QEMU exits (v << 1) | 1, so 33 = success,
35 = a self-test or a runlist program failed, 37 = kernel panic; 0 = QEMU quit or powered
off; 124 = --timeout expired), or with --exit-codes the mapped one.
EOT
}

QEMU=${QEMU:-qemu-system-x86_64}
OVMF_CODE=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
# the defaults; an empty value is an option not given
iso=build/faultline.iso mem=256M cpu=qemu64 smp=1 machine=pc accel=tcg firmware=bios
serial=stdio display=none exitdev=1
disk='' disk2='' disk_errors=''
usb='' vars='' kargs='' kargs_set='' monitor='' gdb='' timeout='' icount='' reboot=''
kernel='' initrd='' append=''
exit_codes='' dry=''

die() { echo "qemu.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--iso | --usb | --kernel | --initrd | --append | --disk | --disk2 | --disk-errors | \
		--mem | --cpu | --smp | --machine | --accel | --firmware | --vars | --kargs | \
		--serial | --monitor | --display | --gdb | --timeout)
		[ $# -ge 2 ] || die "$1 needs a value"
		opt=$(printf '%s' "${1#--}" | tr - _)
		[ "$opt" = kargs ] && kargs_set=1
		eval "$opt=\$2"
		shift 2 ;;
	--icount) icount=1; shift ;;
	--no-exit-device) exitdev=; shift ;;
	--reboot) reboot=1; shift ;;
	--exit-codes) exit_codes=1; shift ;;
	--dry-run) dry=1; shift ;;
	--help | -h) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (--help lists them)" ;;
	esac
done

# Extra arguments stay in "$@"; ours are appended after them (QEMU does not mind the order).
# Several CPUs under TCG: one host thread each (multi-threaded TCG), except under --icount,
# whose one instruction counter needs the CPUs taking turns on one thread.
accel_arg=$accel
[ "$accel" = tcg ] && [ "$smp" != 1 ] && [ -z "$icount" ] && accel_arg=tcg,thread=multi
set -- "$@" -machine "$machine" -cpu "$cpu" -m "$mem" -smp "$smp" -accel "$accel_arg"
[ -n "$reboot" ] || set -- "$@" -no-reboot
[ -n "$exitdev" ] && set -- "$@" -device isa-debug-exit,iobase=0xf4,iosize=0x04
[ "$display" = auto ] || set -- "$@" -display "$display"
case $serial in
stdio | mon:stdio | none | file:* | unix:* | tcp:*) set -- "$@" -serial "$serial" ;;
*) set -- "$@" -serial "file:$serial" ;;
esac
if [ -n "$monitor" ]; then
	set -- "$@" -monitor "unix:$monitor,server,nowait"
elif [ "$serial" != mon:stdio ]; then
	set -- "$@" -monitor none
fi
if [ -n "$kernel" ]; then
	set -- "$@" -kernel "$kernel"
	[ -n "$initrd" ] && set -- "$@" -initrd "$initrd"
	[ -n "$append" ] && set -- "$@" -append "$append"
elif [ -n "$usb" ]; then
	set -- "$@" -device qemu-xhci -device usb-storage,drive=stick \
		-drive "if=none,id=stick,file=$usb,format=raw,snapshot=on"
else
	set -- "$@" -boot d -cdrom "$iso"
fi
if [ -n "$disk" ]; then
	[ -e "$disk" ] || die "no disk image '$disk'"
	file=$disk
	if [ -n "$disk_errors" ]; then
		[ -r "$disk_errors" ] || die "no blkdebug config '$disk_errors'"
		file="blkdebug:$disk_errors:$disk"
	fi
	set -- "$@" -drive "file=$file,format=raw,if=ide,index=0"
fi
if [ -n "$disk2" ]; then
	[ -e "$disk2" ] || die "no disk image '$disk2'"
	set -- "$@" -drive "file=$disk2,format=raw,if=ide,index=1"
fi
case $firmware in
bios) ;;
ovmf)
	[ -r "$OVMF_CODE" ] || die "no $OVMF_CODE (install ovmf)"
	if [ -z "$vars" ]; then
		case $serial in
		stdio | mon:stdio | none | *:*) vars=build/ovmf-vars.fd ;;
		*) vars=${serial%.log}-vars.fd ;;
		esac
	fi
	[ -n "$dry" ] || cp "$OVMF_VARS" "$vars" || die "cannot copy $OVMF_VARS to $vars"
	set -- "$@" -drive "if=pflash,format=raw,readonly=on,file=$OVMF_CODE" \
		-drive "if=pflash,format=raw,file=$vars" ;;
*) die "--firmware is bios or ovmf, not '$firmware'" ;;
esac
# QEMU's option syntax wants a comma inside a value written twice.
[ -n "$kargs_set" ] && set -- "$@" -fw_cfg \
	"name=opt/faultline/cmdline,string=$(printf '%s' "$kargs" | sed 's/,/,,/g')"
[ -n "$gdb" ] && set -- "$@" -S -gdb "tcp:127.0.0.1:$gdb"
[ -n "$icount" ] && set -- "$@" -icount shift=0,sleep=off -rtc base=2024-01-01T00:00:00,clock=vm
set -- "$QEMU" "$@"
[ -n "$timeout" ] && set -- timeout "$timeout" "$@"

if [ -n "$dry" ]; then
	printf '%s\n' "$*"
	exit 0
fi
[ -n "$exit_codes" ] || exec "$@"

"$@"
rc=$?
case $rc in
0) echo "qemu: exit 0: QEMU quit (Ctrl-a x, the monitor's quit or an ACPI power-off)" ;;
33) echo "qemu: exit 33: faultline reported success (isa-debug-exit 0x10)"; rc=0 ;;
35) echo "qemu: exit 35: a self-test or a runlist program failed (isa-debug-exit 0x11)"; rc=1 ;;
37) echo "qemu: exit 37: kernel panic (isa-debug-exit 0x12)"; rc=2 ;;
124) echo "qemu: killed after ${timeout}s (--timeout)" ;;
*) echo "qemu: exit $rc: QEMU's own error, or a signal" ;;
esac >&2
exit $rc
