#!/bin/sh
# Runs the ring-3 test programs natively on the Linux build host, to check every expectation in
# user/expect.txt against a real kernel. One TAP line per program; exits non-zero on any failure.
# usage: sh tests/run-native.sh BUILD_USER_DIR EXPECT_FILE
# Each line of EXPECT_FILE is "exit N | /bin/PROG ARGS" or "killed by SIGNAME | /bin/PROG ARGS".
dir=${1:?usage: run-native.sh BUILD_USER_DIR EXPECT_FILE}
expect=${2:?usage: run-native.sh BUILD_USER_DIR EXPECT_FILE}
TIMEOUT=${TEST_TIMEOUT:-30}

# the data file the programs look for next to themselves; exec expects ENOEXEC (not EACCES)
# from it, so it must be executable
if [ ! -f "$dir/not-an-elf" ]; then
	cp "$(dirname "$0")/../user/not-an-elf" "$dir/not-an-elf" || exit 1
fi
chmod +x "$dir/not-an-elf"

# the plan: one check per expectation line
echo "1..$(grep -Evc '^(#|$)' "$expect")"
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
pass=0
fail=0
while IFS= read -r line; do
	case $line in
	"" | "#"*) continue ;;
	esac
	want=$(echo "${line%%|*}" | sed 's/^ *//; s/ *$//')
	cmd=$(echo "${line#*|}" | sed 's/^ *//; s/ *$//')
	prog=${cmd#/bin/}
	# word splitting of $dir/$prog gives the program and its arguments
	# shellcheck disable=SC2086
	timeout -k 5 "$TIMEOUT" $dir/$prog </dev/null >"$log" 2>&1
	rc=$?
	if [ $rc -eq 124 ]; then
		got="timed out after $TIMEOUT s"
	elif [ $rc -gt 128 ]; then
		got="killed by SIG$(kill -l $((rc - 128)))"
	else
		got="exit $rc"
	fi
	# checks that do not apply on this host (utest_skip) stay visible in TAP's "# SKIP" form
	skip=$(sed -n 's/^[^:]*: \(.*\) # SKIP \(.*\)$/\1: \2/p' "$log" | head -n 1)
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
		echo "ok - native $cmd: $got${skip:+ # SKIP $skip}"
	else
		fail=$((fail + 1))
		echo "not ok - native $cmd: got $got, expected $want"
		sed 's/^/#   /' "$log"
	fi
done <"$expect"
echo "# native: $pass passed, $fail failed"
