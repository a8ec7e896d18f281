#!/bin/sh
# Numbers the TAP lines of the test scripts piped into it and ends with "N passed, N failed":
# "ok - X" becomes "ok N - X", "not ok - X" "not ok N - X"; other lines pass through. Exit
# status 1 if any test failed. usage: sh tests/boot/panic.sh | sh tests/lib/tap.sh
pass=0
fail=0
while IFS= read -r line; do
	case $line in
	"ok - "*)
		pass=$((pass + 1))
		echo "ok $((pass + fail)) - ${line#ok - }" ;;
	"not ok - "*)
		fail=$((fail + 1))
		echo "not ok $((pass + fail)) - ${line#not ok - }" ;;
	*) printf '%s\n' "$line" ;;
	esac
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
