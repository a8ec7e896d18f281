# Shared by the scripts that boot the kernel self-tests with ktest=all (tests/ktest/run.sh,
# tests/boot/smp.sh), sourced after tests/lib/boot.sh: the kernel's TAP lines relayed as tests,
# and the skips checked against the CPUs each test declares in its source (KTEST_SMP).

# ktest_smp_needs: "NAME N" for each test declared KTEST_SMP(NAME, N) in tests/ktest/*.c:
# the tests ktest=all must skip with fewer than N CPUs online, and must run with N or more
ktest_smp_needs() {
	sed -n 's/^KTEST_SMP(\([a-z0-9_]*\), *\([0-9]*\)).*/\1 \2/p' tests/ktest/*.c
}

# ktest_relay NAME [smp]: the ktest lines of boot NAME (booted with `boot`, which set smp_cpus)
# as tests: a pass, a failure, a skip relayed as a skip (with smp: the passes of KTEST_SMP tests
# only). A skip of a test that does not need more than smp_cpus CPUs, or a run of one that does,
# fails, and so does a KTEST_SMP test with no line at all; then one test for all of that, one
# for the kernel's plan (1..N) against its lines. Sets ktest_line, the runner's closing line
# with the skips expected (a grep -E pattern).
ktest_relay() {
	name=$1 log="$LOGS/$1.log" only_smp=${2:-}
	cpus=${smp_cpus:-1}
	ncpus="$cpus CPU$([ "$cpus" = 1 ] || echo s)"
	tr -d '\r' <"$log" >"$log.txt"
	grep -E '^(not )?ok [0-9]+ - ktest ' "$log.txt" >"$log.tap"
	needs=$(ktest_smp_needs)
	bad=0 want=0 seen=""
	# a here-document, not a pipe: the loop's counts must outlive it
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		t=${l#* - ktest }
		t=${t%% *}
		seen="$seen $t "
		need=$(echo "$needs" | awk -v t="$t" '$1 == t { print $2 }')
		short=$([ "${need:-1}" -gt "$cpus" ] && echo 1)
		case $l in
		"ok "*" # SKIP "*)
			if [ -n "$short" ]; then
				skip "$name: ktest $t" "${l#* # SKIP }"
			else
				why="${l#* # SKIP }) with $ncpus: it needs ${need:-1}"
				notok "$name: ktest $t skipped ($why" "$log.txt"
				bad=$((bad + 1))
			fi ;;
		"ok "*)
			if [ -n "$short" ]; then
				why="with $ncpus, but it needs $need (KTEST_SMP): it must skip"
				notok "$name: ktest $t passed $why" "$log.txt"
				bad=$((bad + 1))
			elif [ -z "$only_smp" ] || [ -n "$need" ]; then
				ok "$name: ktest $t"
			fi ;;
		*) notok "$name: ktest $t" "$log.txt" ;;
		esac
	done <<EOT
$(cat "$log.tap")
EOT
	# every KTEST_SMP test must have reported (as a skip or a run, checked above)
	k=0
	while read -r t need; do
		[ -n "$t" ] || continue
		k=$((k + 1))
		[ "$need" -gt "$cpus" ] && want=$((want + 1))
		case $seen in
		*" $t "*) ;;
		*) notok "$name: ktest $t (KTEST_SMP, needs $need CPUs) reported nothing" "$log.txt"
			bad=$((bad + 1)) ;;
		esac
	done <<EOT
$needs
EOT
	if [ "$k" -eq 0 ]; then
		notok "$name: no KTEST_SMP( test found in tests/ktest/*.c"
	elif [ "$bad" -eq 0 ] && [ "$want" -eq 0 ]; then
		ok "$name: $ncpus: all $k KTEST_SMP tests ran, nothing skipped"
	elif [ "$bad" -eq 0 ]; then
		ok "$name: $ncpus: the $want of $k KTEST_SMP tests that need more skipped, no other"
	else
		notok "$name: $bad ktests skipped or ran against the CPUs they need" "$log.txt"
	fi
	# the plan: the runner says how many lines follow before the first
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log.txt" | head -n 1)
	lines=$(grep -c . "$log.tap")
	if [ -n "$plan" ] && [ "$plan" -eq "$lines" ] && [ "$plan" -gt 0 ]; then
		ok "$name: the kernel's plan 1..$plan, $lines ktest lines"
	else
		notok "$name: the kernel's plan '1..${plan:-none}', $lines ktest lines" "$log.txt"
	fi
	ktest_line="^ktest: [0-9]+ passed, 0 failed, $want skipped"
}
