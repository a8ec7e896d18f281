#!/bin/sh
# The kernel self-tests (tests/ktest/*.c): boots with ktest=all at several memory sizes, under
# -cpu max and under UEFI; each self-test's TAP line becomes a test here, and the boot must end
# with "ktest: N passed, 0 failed" (QEMU exit 33). usage: tests/ktest/run.sh
. "$(dirname "$0")/../lib/boot.sh"

# ktest_boot NAME MEM [LAUNCHER_OPTION...]: all kernel self-tests
ktest_boot() {
	name=$1 mem=$2
	shift 2
	boot "$name" "$mem" "ktest=all" "$@"
	log="$LOGS/$name.log"
	tr -d '\r' <"$log" >"$log.txt"
	grep -E '^(not )?ok [0-9]+ - ktest ' "$log.txt" >"$log.tap"
	while IFS= read -r l; do
		case $l in
		"ok "*) ok "$name: ${l#* - }" ;;
		*) notok "$name: ${l#* - }" "$log.txt" ;;
		esac
	done <"$log.tap"
	expect "$name" 33 'ktest: [0-9]+ passed, 0 failed'
}

# each boot: every self-test and the boot's verdict; then the UEFI boot's one line
plan $((4 * ($(ktest_count) + 1) + 1))
ktest_boot ktest-256M 256M
ktest_boot ktest-64M 64M
ktest_boot ktest-above-4G 5G
ktest_boot ktest-cpu-max 256M --cpu max

# UEFI: OVMF, GRUB's EFI build, the EFI system table, then the same self-tests
if have_ovmf; then
	boot uefi 256M "ktest=all" --firmware ovmf
	expect uefi 33 'faultline [0-9.]+: a teaching kernel' 'loader: GRUB' 'EFI: system table' \
		'ktest: [0-9]+ passed, 0 failed'
else
	notok "boot uefi: no OVMF firmware (install ovmf)"
fi
