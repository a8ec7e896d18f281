#!/bin/sh
# make test's check of the handout (docs/exercises.md, "For instructors: the handout"): a
# handout of this tree holds none of the answers' code (its git history included) and its own
# make grade finds every lab unsolved; make solutions gives this tree back, file for file; make
# grade-class grades a class of two, the handout and the solved tree, into the right table.
# Short runs of the labs' tests (LAB_QUICK=1); each tree is built once, in build/handout-test/.
# usage: tests/handout/check.sh
. "$(dirname "$0")/../lib/boot.sh"

W=$PWD/build/handout-test
A=$W/class/alice # the handout as given
S=$W/class/bob   # the handout with make solutions: the answers back
labs=$(python3 tests/handout/handout.py labs | cut -d ' ' -f 1)
n=$(echo "$labs" | wc -w)
plan $((3 * n + 8))
export LAB_QUICK=1
rm -rf "$W" && mkdir -p "$W/class" "$W/logs"

# sub DIR ARGS...: make ARGS in the tree DIR, as a student or instructor would type it there
# (none of this make's own variables passed down)
sub() {
	(cd "$1" && shift && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u EXERCISE -u LABS -u GRADE \
		-u ISO -u ELF -u LOGS make -s "$@")
}

# the handout, and make handout refusing to write over it
if make -s handout DIR="$A" >"$W/logs/handout.out" 2>&1 && [ -f "$A/HANDOUT" ]; then
	ok "$(tail -n 1 "$W/logs/handout.out" | sed "s|$W/||")"
else
	notok "handout: make handout DIR=$A failed" "$W/logs/handout.out"
fi
if ! make -s handout DIR="$A" >"$W/logs/again.out" 2>&1 &&
	grep -q 'is not an empty directory' "$W/logs/again.out"; then
	ok "handout: make handout refuses a directory that is not empty"
else
	notok "handout: make handout wrote into a directory that is not empty" "$W/logs/again.out"
fi

# none of each answer's own lines anywhere in the handout, files or history
python3 tests/handout/handout.py leaks "$A" >"$W/logs/leaks.out" 2>&1
for lab in $labs; do
	line=$(grep "^$lab [0-9]* [0-9]*$" "$W/logs/leaks.out")
	total=$(echo "$line" | cut -d ' ' -f 2) found=$(echo "$line" | cut -d ' ' -f 3)
	if [ "${total:-0}" -gt 0 ] && [ "$found" = 0 ]; then
		ok "handout: none of $lab's $total answer lines in the handout"
	else
		notok "handout: $lab's answer is in the handout (${found:-?} of its ${total:-?}" \
			"lines)" "$W/logs/leaks.out"
	fi
done
commits=$(git -C "$A" rev-list --all --count 2>/dev/null)
if [ "$commits" = 1 ]; then
	ok "handout: a git repository of one commit"
else
	notok "handout: its git history has ${commits:-no} commits, not one"
fi
# make mutate's list in the handout: the mutants of the answers' code went with it
if (cd "$A" && python3 tests/mutate/mutate.py --check) >"$W/logs/mutants.out" 2>&1; then
	ok "handout: $(tail -n 1 "$W/logs/mutants.out") (make mutate's list)"
else
	notok "handout: make mutate's anchors are not all in the handout" "$W/logs/mutants.out"
fi

# the handout's own make grade: every lab's test ran, and none passed
sub "$A" -j2 grade >"$W/logs/grade-handout.out" 2>&1 # (two jobs, as CI has two cores)
for lab in $labs; do
	if python3 - "$A/build/grade/results.json" "$lab" <<'EOF'; then
import json, sys
t = [t for t in json.load(open(sys.argv[1]))["tests"] if t["name"] == sys.argv[2]]
sys.exit(not (len(t) == 1 and t[0]["score"] == 0 and
              t[0]["output"].startswith(sys.argv[2] + ": not solved yet: ")))
EOF
		ok "handout: make grade: $(head -n 1 "$A/build/grade/$lab.out")"
	else
		notok "handout: make grade: $lab was not graded unsolved" \
			"$W/logs/grade-handout.out"
	fi
done
if grep -qx "score: 0/$n; for an autograder: build/grade/results.json" \
	"$W/logs/grade-handout.out"; then
	ok "handout: make grade scores 0/$n"
else
	notok "handout: make grade did not score 0/$n" "$W/logs/grade-handout.out"
fi

# the answers back: exactly this tree's tracked files again
# (copied once the handout is built: the solved tree's build then redoes only what the
# answers change)
cp -a "$A" "$S"
make -s solutions DIR="$S" >"$W/logs/solutions.out" 2>&1
git ls-files >"$W/logs/tracked.txt"
(cd "$S" && find . \( -path ./.git -o -path ./build \) -prune -o -type f -print |
	sed 's|^\./||' | sort) >"$W/logs/solved.txt"
diffs=$(while IFS= read -r f; do
	[ -f "$f" ] && ! cmp -s "$f" "$S/$f" && echo "$f"
done <"$W/logs/tracked.txt"; sort "$W/logs/tracked.txt" | comm -13 - "$W/logs/solved.txt")
if [ -s "$W/logs/tracked.txt" ] && [ -z "$diffs" ]; then
	ok "solutions: the handout with the answers back is this tree, file for file"
else
	echo "$diffs" >>"$W/logs/solutions.out"
	notok "solutions: the tree differs from this one in: $(echo "$diffs" | head -n 5 |
		tr '\n' ' ')" "$W/logs/solutions.out"
fi
if ! make -s solutions DIR="$S" >"$W/logs/solutions-again.out" 2>&1 &&
	grep -q 'is not a handout' "$W/logs/solutions-again.out"; then
	ok "solutions: make solutions refuses a tree that is not a handout"
else
	notok "solutions: make solutions ran on a tree that is not a handout" \
		"$W/logs/solutions-again.out"
fi

# the class: the handout and the solved tree, each built in its own tree, graded side by side
make -s grade-class SUBMISSIONS="$W/class" GRADE="$W/out" >"$W/logs/class.out" 2>&1
for lab in $labs; do
	if grep -q "^$lab: solved: " "$W/out/class/bob/$lab.out" 2>/dev/null; then
		ok "grade-class: bob (solved): $(head -n 1 "$W/out/class/bob/$lab.out")"
	else
		notok "grade-class: bob (solved): $lab did not pass" "$W/out/class/bob/$lab.out"
	fi
done
zeros="" ones=""
for lab in $labs; do
	zeros="$zeros,0" ones="$ones,1"
done
want=$(printf 'student,%s,total\nalice%s,0\nbob%s,%s' "$(echo "$labs" | paste -sd ,)" "$zeros" \
	"$ones" "$n")
if [ "$(tr -d '\r' <"$W/out/class.csv" 2>/dev/null)" = "$want" ]; then
	ok "grade-class: class.csv: alice 0/$n, bob $n/$n"
else
	{ echo "want:"; echo "$want"; echo "got:"; cat "$W/out/class.csv"; } >>"$W/logs/class.out"
	notok "grade-class: class.csv is not the table of the two" "$W/logs/class.out"
fi
rm -rf "$A/build" "$S/build" # (a QEMU-sized swap image and two builds)
