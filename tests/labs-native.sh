#!/bin/sh
# The ring-3 labs (docs/exercises.md), natively: each program built with the lab's stub must
# fail and with the answer pass, so the lab's test can tell them apart before anyone boots.
# usage: tests/labs-native.sh (from the top; build/user/ built); prints ok/not ok lines.
B=build
mkdir -p "$B/labs"

# lab NAME PROG: build PROG with user/exercises/NAME.c, run both builds, check the verdicts
lab() {
	name=$1 prog=$2 stub="$B/labs/$2-$1"
	if ! musl-gcc -static -O2 -o "$stub" "user/$prog.c" "user/exercises/$name.c" \
		>"$B/labs/$name.log" 2>&1; then
		echo "not ok - lab $name: its stub does not build"
		sed 's/^/#   /' "$B/labs/$name.log"
		return
	fi
	"$stub" >>"$B/labs/$name.log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "ok - lab $name: /bin/$prog with the stub fails (status $rc)"
	else
		echo "not ok - lab $name: /bin/$prog passes with the stub (the lab tests nothing)"
	fi
	if "$B/user/$prog" >>"$B/labs/$name.log" 2>&1; then
		echo "ok - lab $name: /bin/$prog with the answer passes"
	else
		echo "not ok - lab $name: /bin/$prog fails with the answer"
	fi
}

echo "1..$((2 * $(grep -c '^lab [a-z_]* [a-z-]*$' "$0")))" # two checks per lab below
lab uf_pager uf-pager
