#!/bin/sh
# Docs that cannot drift, checked without a boot: the index (docs/README.md) and the course
# guide (docs/course.md) name every page of docs/; the course names every lab the Makefile
# builds; the README's lab list and `make help`'s are the Makefile's; each source folder's
# README.md names every .c, .S and .h file of its folder; no line of the tree is wider than 100
# columns. usage: tests/docs/check.sh
. "$(dirname "$0")/../lib/boot.sh"

pages=$(cd docs && ls -- *.md *.svg | grep -vx 'README.md')
labs=$(make -s -f Makefile print-exercises 2>/dev/null)
# the variables README's "Variables:" paragraph names
vars=$(sed -n '/^Variables:/,/^$/p' README.md | grep -o '`[A-Z_]*=' | tr -d '`=' | sort -u)
plan $(($(echo "$pages" | wc -l) + 2 * $(echo "$labs" | wc -w) + 2 + 1 + 1 + 1))
for p in $pages; do
	miss=""
	grep -qF "\`$p\`" docs/README.md || miss="docs/README.md"
	case $p in
	course.md | *.svg) ;;
	*) grep -qF "\`docs/$p\`" docs/course.md || miss="$miss docs/course.md" ;;
	esac
	if [ -z "$miss" ]; then
		ok "docs: docs/$p is in the index and the course"
	else
		notok "docs: docs/$p is missing from$miss"
	fi
done
for l in $labs; do
	if grep -qF "| \`$l\` |" docs/course.md && grep -qF "\`$l\`" docs/exercises.md; then
		ok "docs: lab $l is in docs/course.md's table and docs/exercises.md"
	else
		notok "docs: lab $l is missing from docs/course.md's table or docs/exercises.md"
	fi
	if grep -qF "\`$l\`" README.md && make -s help | grep -F "$l" >/dev/null; then
		ok "docs: lab $l is in README.md and make help"
	else
		notok "docs: lab $l is missing from README.md or make help"
	fi
done
if [ -n "$labs" ]; then
	ok "docs: the Makefile lists $(echo "$labs" | wc -w) labs"
else
	notok "docs: make print-exercises gave no lab"
fi
n=$(grep -c '^## [0-9]*\. ' docs/exercises.md)
if [ "$n" = "$(echo "$labs" | wc -w)" ]; then
	ok "docs: docs/exercises.md has a section for each of the $n labs"
else
	notok "docs: docs/exercises.md has $n lab sections for $(echo "$labs" | wc -w) labs"
fi
missing=$(for v in $vars; do make -s help | grep -w -- "$v" >/dev/null || echo "$v"; done |
	tr '\n' ' ')
if [ -n "$vars" ] && [ -z "$missing" ]; then
	ok "docs: make help explains each of README's $(echo "$vars" | wc -w) variables"
else
	notok "docs: make help lacks README's variables: ${missing:-README names none}"
fi
# every folder of kernel/, mm/, drivers/, boot/ and user/ with a tracked source file has a
# README.md naming (in backquotes) each of its .c, .S and .h files, so that a new file comes
# with a word about it
srcs=$(git ls-files -- kernel mm drivers boot user | grep -E '\.(c|S|h)$')
dirs=$(echo "$srcs" | sed 's|/[^/]*$||' | sort -u)
unnamed=$(for d in $dirs; do
	if [ ! -f "$d/README.md" ]; then
		echo "$d/README.md"
		continue
	fi
	echo "$srcs" | grep -E "^$d/[^/]+$" | while read -r f; do
		grep -qF "\`${f##*/}\`" "$d/README.md" || echo "$f"
	done
done | tr '\n' ' ')
if [ -n "$srcs" ] && [ -z "$unnamed" ]; then
	ok "docs: the READMEs of $(echo "$dirs" | wc -l) source folders name each of their files"
else
	unnamed=${unnamed:-no source file found}
	notok "docs: no README, or a file its README does not name: $unnamed"
fi

# The house style's "lines <= 100 columns everywhere", measured as .clang-format does: a tab goes
# to the next multiple of 8 (TabWidth), a UTF-8 character is one column. Not held to it, as
# recorded output that its programs wrote rather than text anyone wraps: tests/bench/linux/
# (Linux's figures as its tools printed them), docs/*.svg (pictures drawn by tests/mapview.py and
# memview --svg, one element a line); and binary files (grep -I), which have no lines.
files=$(git ls-files 2>/dev/null | grep -v -e '^tests/bench/linux/' -e '^docs/[^/]*\.svg$')
text=$(printf '%s' "$files" | tr '\n' '\0' | xargs -0 -r grep -Ils '')
wide=$(printf '%s' "$text" | tr '\n' '\0' | LC_ALL=C xargs -0 -r awk '
	function width(s,   parts, n, i, w) {
		gsub(/[\200-\277]/, "", s) # a UTF-8 character: count its first byte only
		n = split(s, parts, "\t")
		for (i = 1; i <= n; i++) {
			w += length(parts[i])
			if (i < n)
				w += 8 - w % 8
		}
		return w
	}
	width($0) > 100 { print FILENAME ":" FNR " (" width($0) ")" }')
n=$(printf '%s' "$text" | grep -c .)
if [ "$n" -eq 0 ]; then
	notok "docs: git ls-files gave no text file to measure (not a git checkout?)"
elif [ -z "$wide" ]; then
	ok "docs: every line of the $n text files git tracks is within 100 columns (tabs to 8)"
else
	count=$(echo "$wide" | wc -l) first=$(echo "$wide" | head -n 5 | paste -s -d ' ' -)
	notok "docs: lines wider than 100 columns (tabs to 8): $count, first $first"
fi
