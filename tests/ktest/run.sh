#!/bin/sh
# The kernel self-tests (tests/ktest/*.c): boots with ktest=all at several memory sizes, under
# -cpu max and under UEFI, all on one CPU; each self-test's TAP line becomes a test here (a skip
# stays a skip), every test that needs more CPUs (KTEST_SMP) must skip and no other may, and
# the boot must end with "ktest: N passed, 0 failed, K skipped" (K: those tests; QEMU exit 33).
# tests/boot/smp.sh runs them with 2, 4 and 8 CPUs. usage: tests/ktest/run.sh
. "$(dirname "$0")/../lib/boot.sh"
. tests/lib/ktest.sh

# ktest_boot NAME MEM [LAUNCHER_OPTION...]: all kernel self-tests on one CPU
ktest_boot() {
	name=$1 mem=$2
	shift 2
	boot "$name" "$mem" "ktest=all" "$@"
	ktest_relay "$name"
	expect "$name" 33 '^smp: 1 CPU online' "$ktest_line"
}

# each of the 5 boots (the last under UEFI): every self-test, run or skipped, ktest_relay's two
# (the skips, the plan) and the boot's verdict
plan $((5 * ($(ktest_count) + 3)))
ktest_boot ktest-256M 256M
ktest_boot ktest-64M 64M
ktest_boot ktest-above-4G 5G
ktest_boot ktest-cpu-max 256M --cpu max

# UEFI: OVMF, GRUB's EFI build, the EFI system table, then the same self-tests
if have_ovmf; then
	boot uefi 256M "ktest=all" --firmware ovmf
	ktest_relay uefi
	expect uefi 33 'faultline [0-9.]+: a teaching kernel' 'loader: GRUB' 'EFI: system table' \
		'^smp: 1 CPU online' "$ktest_line"
else
	notok "boot uefi: no OVMF firmware (install ovmf)"
fi
