#!/bin/sh
# The host unit tests: each binary (built by make from tests/host/test_*.c) prints
# "ok - name" / "not ok - name" lines, relayed here as "host BINARY: name". Its exit status
# counts too. usage: tests/host/run.sh build/host/test_NAME...
. "$(dirname "$0")/../lib/boot.sh"
# the plan: one check per RUN_TEST() in each binary's source
n=0
for t in "$@"; do
	n=$((n + $(grep -c '^[[:space:]]*RUN_TEST(' "tests/host/$(basename "$t").c")))
done
plan "$n"
for t in "$@"; do
	name=$(basename "$t")
	log="$LOGS/$name.log"
	"$t" >"$log" 2>&1
	rc=$?
	n=0
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "host $name: ${line#ok - }"; n=$((n + 1)) ;;
		"not ok - "*) notok "host $name: ${line#not ok - }" "$log"; n=$((n + 1)) ;;
		esac
	done <"$log"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$log"; then
		notok "host $name exited $rc" "$log"
	fi
	[ $n -eq 0 ] && [ $rc -eq 0 ] && notok "host $name ran no test" "$log"
done
exit 0
