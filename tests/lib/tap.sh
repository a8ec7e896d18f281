#!/bin/sh
# Numbers the TAP lines piped into it (tests/run.sh's parts, each already checked against its
# plan) and ends with the plan and "N passed, N failed, N skipped": "ok - X" becomes "ok N - X",
# "ok - X # SKIP why" is counted as skipped, never as passed; other lines pass through. Exit
# status 1 if any test failed or nothing ran. A script run alone keeps its plan ("1..N"): the
# checks it printed must add up to it. usage: sh tests/boot/panic.sh | sh tests/lib/tap.sh
planned=''
pass=0
fail=0
skip=0
while IFS= read -r line; do
	case $line in
	"ok - "*" # SKIP"*)
		skip=$((skip + 1))
		echo "ok $((pass + fail + skip)) - ${line#ok - }" ;;
	"ok - "*)
		pass=$((pass + 1))
		echo "ok $((pass + fail + skip)) - ${line#ok - }" ;;
	"not ok - "*)
		fail=$((fail + 1))
		echo "not ok $((pass + fail + skip)) - ${line#not ok - }" ;;
	1..*) planned=$((${planned:-0} + ${line#1..})) ;;
	*) printf '%s\n' "$line" ;;
	esac
done
if [ -n "$planned" ] && [ "$planned" -ne $((pass + fail + skip)) ]; then
	fail=$((fail + 1))
	echo "not ok $((pass + fail + skip)) - planned $planned checks," \
		"$((pass + fail + skip - 1)) reported"
fi
echo "1..$((pass + fail + skip))"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
