#!/bin/sh
# The lock checker (docs/locking.md): the LOCKDEBUG kernel (build/lockdebug/, made by make test)
# on two CPUs runs its self-tests, whose lockdebug_* tests provoke each misuse and must see it
# caught, then a ring-3 list that takes every kind of lock from several tasks at once: each
# program as on the normal kernel, and no misuse found (which would panic: "lockdep: BUG").
# usage: tests/boot/lockdebug.sh (ISO= and ELF= name another LOCKDEBUG build)
. "$(dirname "$0")/../lib/boot.sh"
. tests/lib/ktest.sh
ISO=${LOCKDEBUG_ISO:-build/lockdebug/faultline.iso}
ELF=${LOCKDEBUG_ELF:-build/lockdebug/faultline.elf}
list=iso/root/etc/lockdebug.list
progs=$(grep -vc '^#' "$list")
nlock=$(nm "$ELF" | grep -c ' ktest_desc_lockdebug_')
# the self-tests, ktest_relay's two (skips, plan) and their verdict, the misuses caught; the
# list's boot, each program, no BUG
plan $(($(ktest_count) + 2 + 2 + 1 + progs + 1))

boot lockdebug-ktest 256M "ktest=all" --smp 2
ktest_relay lockdebug-ktest # on 2 CPUs: nothing may skip
log="$LOGS/lockdebug-ktest.log"
expect lockdebug-ktest 33 '^lockdep: lock checker on' "$ktest_line"
caught=$(grep -c '^lockdep: caught (expected): ' "$log.txt")
if [ "$nlock" -gt 0 ] && [ "$caught" -ge "$nlock" ] && ! grep -q '^lockdep: BUG' "$log.txt"
then
	ok "lockdebug-ktest: each of the $nlock provoked misuses caught ($caught reports)"
else
	notok "lockdebug-ktest: $caught misuses caught by $nlock lockdebug tests" "$log.txt"
fi

TIMEOUT=240 # two CPUs on a shared host
boot lockdebug-ring3 256M "runlist=/etc/lockdebug.list kcheck" --smp 2
log="$LOGS/lockdebug-ring3.log"
tr -d '\r' <"$log" >"$log.txt"
expect lockdebug-ring3 33 '^lockdep: lock checker on' 'smp: 2 CPUs online' 'run: done'
grep -v '^#' "$list" | while IFS= read -r p; do
	if grep -qxF "run: $p: exit 0" "$log.txt"; then
		ok "lockdebug-ring3: $p: exit 0"
	else
		notok "lockdebug-ring3: $p: $(grep -F "run: $p: " "$log.txt" | head -n 1)" \
			"$log.txt"
	fi
done
n=$(grep -c '^run: .*: exit 0$' "$log.txt")
if [ "$n" -eq "$progs" ] && ! grep -q '^lockdep: \(BUG\|possible deadlock\)' "$log.txt"; then
	ok "lockdebug-ring3: $n programs on 2 CPUs, the checker found no misuse"
else
	# (the checker's own words in the summary line, which a CI log keeps when it cuts)
	why=$(grep -m 2 '^lockdep: \(BUG\|possible deadlock\)' "$log.txt" | tr '\n' ' ')
	msg="lockdebug-ring3: $n of $progs programs ran, or the checker reported a misuse"
	notok "$msg${why:+: $why}" "$log.txt"
fi
