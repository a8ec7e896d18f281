#!/bin/sh
# make grade: the labs of docs/exercises.md graded on build/faultline.iso as it is built, each
# by its own test, tests/exercise.sh NAME (the one place a lab's pass or fail is decided); the
# scores go to build/grade/results.json in Gradescope's shape. --check (make grade
# CHECK_LABS=1): the instructor's check besides, each lab's test on its stub's ISO
# (build/grade/NAME/faultline.iso), where it must fail. --tap: make test's form, TAP lines
# instead of the table and no results.json, with the short runs of LAB_QUICK=1. --handout (a
# handout's make test; --tap's form): a lab not solved yet is a skip, not a failure.
# usage: tests/grade.sh [--check] [--tap] [--handout] [LAB...]   (default every lab; ISO=, GRADE=:
# the ISO graded, default build/faultline.iso, and the stubs' directory, default build/grade)
cd "$(dirname "$0")/.." || exit 1
G=${GRADE:-build/grade}
ANSWER=${ISO:-build/faultline.iso}
check="" tap="" handout=""
while :; do
	case ${1:-} in
	--check) check=1; shift ;;
	--tap) tap=1; shift ;;
	--handout) handout=1 tap=1; shift ;;
	*) break ;;
	esac
done
# no LAB: every lab, one for each stub file (NAME.c in an exercises/ folder)
[ $# -gt 0 ] || set -- $(find mm kernel user -path '*/exercises/*.c' | sed 's|.*/||; s|\.c$||' |
	sort)
# quoted LAB: the stub's verdict line as docs/exercises.md quotes it (its indented
# "LAB: not solved yet:" lines, each quote the same, the last words of a long one wrapped onto
# the next line), empty if the doc quotes none
quoted() {
	sed -n "s/^    \($1: not solved yet: .*\)$/\1/p" docs/exercises.md | sort -u
}

# same_words DOC GOT: GOT begins with the doc's quote DOC; the numbers are compared only for the
# labs whose counts do not vary from run to run (the random ones, and those LAB_QUICK shortens,
# are quoted from one full-length run)
same_words() {
	case $lab in
	fault_lock | tlb_shootdown | clock) set -- "$(echo "$1" | tr -s 0-9 N)" \
		"$(echo "$2" | tr -s 0-9 N)" ;;
	esac
	case $2 in "$1"*) return 0 ;; esac
	return 1
}

# --tap: the plan first (tests/lib/boot.sh's plan), two checks a lab with --check, and one more
# for each lab whose stub's verdict the doc quotes
if [ -n "$tap" ]; then
	export LAB_QUICK=1
	q=0
	for lab in "$@"; do [ -n "$(quoted "$lab")" ] && q=$((q + 1)); done
	echo "1..$(($# * ${check:-0} + $# + ${check:-0} * q))"
fi
TIMES=${LOGS:-build/test-logs}/times.txt
mkdir -p "$G" "$(dirname "$TIMES")"

# lab_test NAME ISO OUT: tests/exercise.sh NAME on ISO, its logs beside OUT, its output in OUT;
# sets rc to its exit status (0 solved, 1 not solved, 2 could not run)
lab_test() {
	t0=$(date +%s)
	ISO=$2 LOGS=$(dirname "$3") sh tests/exercise.sh "$1" >"$3" 2>&1
	rc=$?
	echo "  $(($(date +%s) - t0)) s: grade $1 on $2" >>"$TIMES"
}

# tap_line OK WHAT OUT: one TAP line; the test's own verdict follows as a comment, all of its
# output when the line is a failure
tap_line() {
	if [ "$1" = 1 ]; then
		echo "ok - $2"
		head -n 1 "$3" | sed 's/^/# /'
	else
		echo "not ok - $2"
		sed 's/^/#   /' "$3"
	fi
}

# word RC: what tests/exercise.sh's exit status RC says
word() {
	case $1 in 0) echo PASS ;; 1) echo FAIL ;; *) echo "ERROR" ;; esac
}

bad=0 score=0
if [ -z "$tap" ] && [ -n "$check" ]; then
	printf '%-15s %-32s %s\n' lab "stub (must FAIL)" "answer (must PASS)"
elif [ -z "$tap" ]; then
	printf '%-15s %-8s %s\n' lab result score
fi
for lab in "$@"; do
	if [ -n "$check" ]; then
		mkdir -p "$G/$lab"
		if [ -r "$G/$lab/faultline.iso" ]; then
			lab_test "$lab" "$G/$lab/faultline.iso" "$G/$lab/stub.out"
		else
			echo "$0: no $G/$lab/faultline.iso (make grade-isos)" >"$G/$lab/stub.out"
			rc=2
		fi
		# only "not solved" is a stub failing: a test that could not run proves nothing
		stub=$(word "$rc")
		[ "$rc" = 1 ] || bad=1
		[ "$rc" = 0 ] && stub="PASS: the test misses the stub"
		[ -n "$tap" ] && tap_line "$([ "$rc" = 1 ] && echo 1)" "grade $lab: stub fails" \
			"$G/$lab/stub.out"
		doc=$(quoted "$lab") got=$(head -n 1 "$G/$lab/stub.out")
		if [ -n "$tap" ] && [ -n "$doc" ]; then
			if [ "$(echo "$doc" | wc -l)" -gt 1 ]; then
				echo "not ok - grade $lab: docs/exercises.md quotes the stub's" \
					"verdict $(echo "$doc" | wc -l) different ways"
			elif same_words "$doc" "$got"; then
				echo "ok - grade $lab: docs/exercises.md quotes the stub's" \
					"verdict as printed"
			else
				echo "not ok - grade $lab: docs/exercises.md quotes '$doc';" \
					"the stub's test printed '$got'"
			fi
		fi
	fi
	lab_test "$lab" "$ANSWER" "$G/$lab.out"
	echo "$rc" >"$G/$lab.rc"
	if [ "$rc" = 0 ]; then score=$((score + 1)); else bad=1; fi
	if [ -n "$handout" ] && [ "$rc" = 1 ]; then
		echo "ok - grade $lab # SKIP $(head -n 1 "$G/$lab.out")"
	elif [ -n "$handout" ]; then
		tap_line "$([ "$rc" = 0 ] && echo 1)" "grade $lab: solved" "$G/$lab.out"
	elif [ -n "$tap" ]; then
		tap_line "$([ "$rc" = 0 ] && echo 1)" "grade $lab: answer passes" "$G/$lab.out"
	elif [ -n "$check" ]; then
		printf '%-15s %-32s %s\n' "$lab" "$stub" "$(word "$rc")"
	else
		printf '%-15s %-8s %s/1\n' "$lab" "$(word "$rc")" \
			"$([ "$rc" = 0 ] && echo 1 || echo 0)"
	fi
done
[ -n "$tap" ] && exit 0

# Gradescope's results.json: one test per lab, scored on the ISO as built, with the lab test's
# output; the whole score is their sum
python3 - "$G" "$@" <<'EOF' || exit 2
import json
import sys

grade, labs = sys.argv[1], sys.argv[2:]
tests = []
for lab in labs:
    with open(f"{grade}/{lab}.out") as f:
        output = f.read()
    with open(f"{grade}/{lab}.rc") as f:
        passed = f.read().strip() == "0"
    tests.append({"name": lab, "score": 1 if passed else 0, "max_score": 1,
                  "output": output})
with open(f"{grade}/results.json", "w") as f:
    json.dump({"tests": tests, "score": sum(t["score"] for t in tests)}, f, indent=2)
    f.write("\n")
EOF
echo "score: $score/$#; for an autograder: $G/results.json"
if [ -n "$check" ]; then
	[ "$bad" = 0 ] && echo "every stub fails its test and every answer passes"
	exit "$bad"
fi
[ "$score" = "$#" ]
