#!/bin/sh
# Several CPUs: boots with 1, 2, 4 and 8 CPUs on both machine types (pc, q35) and one under
# UEFI, each checking the CPUs the kernel brought up against /proc/cpuinfo and /proc/stat
# (/bin/cpus); the kernel self-tests with 2, 4 and 8 CPUs (the IPI, AP-timer and TLB
# shootdown ktests, KTEST_SMP, which a one-CPU boot skips, must run here); nosmp and
# maxcpus=2; and a panic that must stop the other CPUs with an NMI.
# usage: tests/boot/smp.sh
. "$(dirname "$0")/../lib/boot.sh"
. tests/lib/ktest.sh

# cpus_boot NAME N KARGS [LAUNCHER_OPTION...]: N CPUs must come up and /bin/cpus see them
cpus_boot() {
	name=$1 n=$2 kargs=$3
	shift 3
	boot "$name" 128M "qemu_exit init=/bin/cpus $kargs" "$@"
	smp_cpus=$n # nosmp and maxcpus= bring up fewer than --smp
	if [ "$n" = 1 ]; then
		line='smp: 1 CPU online'
	else
		line="smp: $n CPUs online"
	fi
	expect "$name" 33 "$line" "^cpus: $n([^0-9]|\$)" 'run: /bin/cpus: exit 0'
	# one "up" line per AP
	ups=$(grep -c '^smp: CPU [0-9]* (APIC id [0-9]*) up' "$LOGS/$name.log")
	if [ "$ups" = $((n - 1)) ]; then
		ok "$name: one line per CPU brought up ($ups)"
	else
		notok "$name: $ups 'up' lines for $n CPUs" "$LOGS/$name.log"
	fi
}

# two checks per cpus_boot (8 + 2 + UEFI's); in each of 3 ktest boots each KTEST_SMP test,
# ktest_relay's two (the skips, the plan) and the verdict; the panic
plan $((2 * 11 + 3 * ($(ktest_smp_needs | wc -l) + 3) + 1))
for m in pc q35; do
	for n in 1 2 4 8; do
		cpus_boot "smp$n-$m" "$n" "" --smp "$n" --machine "$m"
	done
done

# the parameters: nosmp keeps one CPU, maxcpus=2 two of four
cpus_boot smp-nosmp 1 nosmp --smp 4
cpus_boot smp-maxcpus2 2 maxcpus=2 --smp 4

# UEFI: GRUB's info and module sit below 1 MiB; the trampoline page must avoid them
if have_ovmf; then
	cpus_boot smp4-uefi 4 "" --smp 4 --firmware ovmf
else
	notok "boot smp4-uefi: no OVMF firmware (install ovmf)"
fi

# ktest_boot NAME [LAUNCHER_OPTION...]: every kernel self-test with several CPUs: those that
# need them (KTEST_SMP) must run, not skip, and pass, and nothing may skip; the CPUs asked for
# (--smp N) must all be online (expect)
ktest_boot() {
	name=$1
	shift
	boot "$name" 256M "ktest=all" "$@"
	ktest_relay "$name" smp
	expect "$name" 33 "$ktest_line" 'smp: IPI round trip'
}
ktest_boot smp-ktest-2-pc --smp 2
ktest_boot smp-ktest-4-pc --smp 4
ktest_boot smp-ktest-8-q35 --smp 8 --machine q35

# a panic with the APs spinning, interrupts off: the NMI must stop all of them first
boot smp-panic-stop 128M "ktest=smp_panic_stop" --smp 4
expect smp-panic-stop 37 'smp: 3 of 3 other CPUs stopped' '\*\*\* kernel panic: smp_panic_stop'
