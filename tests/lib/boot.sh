# Shared by the boot-test scripts (sourced from tests/*/NAME.sh, run from the repository's
# top): unnumbered TAP lines (tests/lib/tap.sh numbers them), one QEMU boot through the
# launcher tests/lib/qemu.sh, and the check of its serial log. Logs go to build/test-logs/.
cd "$(dirname "$0")/../.." || exit 1
ISO=${ISO:-build/faultline.iso}
ELF=${ELF:-build/faultline.elf}
LOGS=${LOGS:-build/test-logs}
TIMEOUT=${TEST_TIMEOUT:-120}
mkdir -p "$LOGS"

# plan N: the number of check lines this script will print, declared before the first one
# (TAP's "1..N"): tests/run.sh fails a script that prints fewer or more, or exits non-zero
plan() { echo "1..$1"; }

# ok WHAT / notok WHAT [LOG]: one test line; a failure shows the end of LOG
ok() { echo "ok - $1"; }
notok() {
	echo "not ok - $1"
	[ -n "${2:-}" ] && sed 's/^/#   /' "$2" | tail -n 25
	return 0
}

# lines WHAT FILE PATTERN...: one test line: each grep -E pattern matches a line of FILE
lines() {
	lines_what=$1 lines_file=$2
	shift 2
	for lines_pat in "$@"; do
		if ! grep -Eq -- "$lines_pat" "$lines_file"; then
			notok "$lines_what: no line matching '$lines_pat'" "$lines_file"
			return 0
		fi
	done
	ok "$lines_what"
}

# skip WHAT WHY: a check that cannot run here, counted as skipped, never as passed. Never for
# what the Makefile installs (OVMF, busybox, musl, mkswap): their absence is a failure.
skip() { echo "ok - $1 # SKIP $2"; }

# relay FILE [LOG] [WHAT]: each "ok - X" / "not ok - X" line of FILE becomes a test (LOG shown
# on failure, default FILE); with WHAT, fail once if FILE has no ok line at all.
relay() {
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) notok "${line#not ok - }" "${2:-$1}" ;;
		esac
	done <"$1"
	[ -z "${3:-}" ] || grep -q '^ok - ' "$1" || notok "$3: no check ran" "${2:-$1}"
}

# boot NAME MEM KARGS [LAUNCHER_OPTION...]: one boot of $ISO with kernel parameters KARGS
# (commas as the kernel sees them), serial log $LOGS/NAME.log, QEMU's own output in
# $LOGS/NAME.qemu; sets rc to QEMU's exit status and smp_cpus to the CPUs asked for (--smp N,
# default 1), which expect checks came up. TIMEOUT (seconds) bounds it.
boot() {
	name=$1 mem=$2 kargs=$3
	shift 3
	smp_cpus=1 boot_prev=
	for boot_arg in "$@"; do
		[ "$boot_prev" = --smp ] && smp_cpus=$boot_arg
		boot_prev=$boot_arg
	done
	boot_t0=$(date +%s)
	sh tests/lib/qemu.sh --iso "$ISO" --mem "$mem" --kargs "$kargs" \
		--serial "$LOGS/$name.log" --timeout "$TIMEOUT" "$@" \
		</dev/null >"$LOGS/$name.qemu" 2>&1
	rc=$?
	echo "  $(($(date +%s) - boot_t0)) s: boot $name" >>"$LOGS/times.txt"
}

# expect NAME WANT_RC PATTERN...: one test line; every grep -E pattern must be in the log, and
# after a boot with several CPUs (smp_cpus, set by boot; a script that means fewer to come up
# sets it after boot) the kernel's "smp: N CPUs online" must say that all of them came up
expect() {
	name=$1 want=$2
	shift 2
	log="$LOGS/$name.log"
	why=""
	[ "$rc" = 124 ] && why="timed out after ${TIMEOUT}s"
	[ -z "$why" ] && [ "$rc" != "$want" ] && why="QEMU exit status $rc, expected $want"
	if [ -z "$why" ] && [ "${smp_cpus:-1}" -gt 1 ] &&
		! grep -q "^smp: $smp_cpus CPUs online" "$log"; then
		got=$(grep -a '^smp: .*CPUs\{0,1\} online' "$log" | head -n 1 | tr -d '\r')
		why="$smp_cpus CPUs asked for, the kernel says '${got:-no smp: ... online line}'"
	fi
	for p in "$@"; do
		[ -z "$why" ] && ! grep -Eq -- "$p" "$log" && why="no line matching '$p'"
	done
	if [ -z "$why" ] && [ "${smp_cpus:-1}" -gt 1 ]; then
		ok "boot $name ($smp_cpus CPUs online)"
	elif [ -z "$why" ]; then
		ok "boot $name"
	else
		notok "boot $name: $why" "$log"
	fi
}

# ktest_count: how many self-tests ktest=all runs in $ELF (KTEST()'s descriptors,
# kernel/test/ktest.h)
ktest_count() { nm "$ELF" | grep -c ' ktest_desc_'; }

# have_ovmf: the UEFI firmware is installed (UEFI boots are skipped without it)
have_ovmf() { [ -r "${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}" ]; }
