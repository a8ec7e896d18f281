#!/bin/sh
# Figures the build measures, kept in the docs between "<!-- figures: NAME -->" and
# "<!-- end figures -->": the ISO's size and boot records (README.md, "Real hardware"), the
# table of fault costs under -icount (docs/bench.md, "Current figures"), the system calls
# with the numbers between them that have none (docs/syscalls.md) and the #include lines
# between folders (docs/layout.md); and one picture, docs/memview-shell.svg (docs/memory.md):
# memview --svg of a shell after a fork. `make docs` writes them (update); `make test` measures
# them again and fails on one that differs (check), and holds the committed picture to what it
# must show.
# usage: tests/docs/figures.sh update|check
. "$(dirname "$0")/../lib/boot.sh"
mode=${1:-check}
out="$LOGS/figures"
mkdir -p "$out"

# iso: the ISO's size and what xorriso reports of its boot records and partitions
iso_block() {
	bytes=$(stat -c %s "$ISO")
	size=$(awk -v b="$bytes" 'BEGIN { s = ""; n = b
		while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) }
		printf "%d%s bytes, %.1f MiB", n, s, b / 1048576 }')
	echo "For the image of this tree ($size; it grows with the ramdisk),"
	echo "\`xorriso -indev build/faultline.iso -report_el_torito plain -report_system_area" \
		"plain\`"
	echo "shows, among other lines:"
	echo
	lines='^(Boot record  |El Torito boot img :|ISO image size/512|MBR partition  '
	lines=$lines'|GPT partname local :   2|GPT start and size :   2)'
	xorriso -indev "$ISO" -report_el_torito plain -report_system_area plain 2>&1 |
		grep -E "$lines" | sed 's/^/    /; s/ *$//'
}

# bench: make bench's first table (fault costs in guest instructions, exact under -icount)
bench_block() {
	BENCH_LOGS="$out/bench" BENCH_SMP= BENCH_SWAP=0 BENCH_TLB=0 \
		sh tests/bench/run-bench.sh >"$out/bench.out" 2>&1 || return 1
	echo "| kind | fl_mean | linux_mean | ratio | fl_med | linux_med | ratio | faults |"
	echo "|---|--:|--:|--:|--:|--:|--:|--:|"
	awk 'NR > 1 && NF >= 8 { printf "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8 }' "$out/bench/bench-table.txt"
}

# syscalls: each call of kernel/arch/syscall_64.tbl with its file, and the gaps
syscalls_block() {
	python3 kernel/arch/syscalltbl.py doc kernel/arch/syscall_64.tbl
}

# includes: the #include lines that cross between kernel/, mm/ and drivers/ (docs/layout.md)
includes_block() {
	echo '```'
	python3 tests/docs/includes.py matrix || return 1
	echo '```'
}

# block FILE NAME: the block NAME of FILE as it is now
block() {
	awk -v n="$2" '$0 == "<!-- figures: " n " -->" { on = 1; next }
		on && $0 == "<!-- end figures -->" { exit } on' "$1"
}

# replace FILE NAME NEWFILE: FILE with block NAME's lines replaced by NEWFILE's
replace() {
	awk -v n="$2" -v f="$3" '$0 == "<!-- figures: " n " -->" {
			print; while ((getline l < f) > 0) print l; skip = 1; next }
		skip && $0 == "<!-- end figures -->" { skip = 0 } !skip' "$1" >"$1.new" &&
		mv "$1.new" "$1"
}

# same OLD NEW: the two blocks line for line, numbers within 0.1 % of each other (the
# process rows of the bench table move by a tenth of an instruction from boot to boot, where
# the timer's phase falls; a fault row that costs one instruction more moves by 0.2 %)
same() {
	awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
		{ m = FNR; if (!(FNR in a)) exit 1
		  x = split(a[FNR], p, / +/); y = split($0, q, / +/); if (x != y) exit 1
		  for (i = 1; i <= x; i++) {
			if (p[i] == q[i]) continue
			if (p[i] !~ /^-?[0-9.]+$/ || q[i] !~ /^-?[0-9.]+$/) exit 1
			d = p[i] - q[i]; if (d < 0) d = -d
			t = (p[i] < 0 ? -p[i] : p[i]) / 1000; if (d > t) exit 1 } }
		END { if (m != n) exit 1 }' "$1" "$2"
}

# memview_svg: the picture memview --svg draws in a boot (iso/root/etc/memview-svg.sh: a shell
# drawn from its subshell), carried out of the serial log between its marker lines
memview_svg() {
	boot figures-memview 256M "runlist=/etc/memview-svg.list"
	[ "$rc" = 33 ] || return 1
	tr -d '\r' <"$LOGS/figures-memview.log" |
		sed -n '/^memview-svg: begin$/,/^memview-svg: end$/p' | sed '1d;$d'
}

# svg_shows FILE: FILE is well-formed SVG and shows a shell's memory as memview draws it: its
# VMAs (busybox's text, the heap, the stack) as bands, pages of the text shared with the
# subshell and anonymous pages still shared copy-on-write; prints what it found, or why not
svg_shows() {
	python3 - "$1" <<'EOT'
import sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
try:
    root = ET.parse(sys.argv[1]).getroot()
except (ET.ParseError, OSError) as e:
    sys.exit("not well-formed: %s" % e)
if root.tag != NS + "svg":
    sys.exit("the root element is %s, not svg" % root.tag)
vmas = [g for g in root.iter(NS + "g") if g.get("class") == "vma"]
names = {(g.get("data-perms"), g.get("data-name")) for g in vmas}
want = [("r-xp", "/bin/busybox"), ("rw-p", "[heap]"), ("rw-p", "[stack]")]
missing = [w for w in want if w not in names]
if missing:
    sys.exit("no band for %s among %d VMAs" % (missing, len(vmas)))
def pages(cls, name):
    return sum(1 for g in vmas if g.get("data-name") == name
               for r in g.iter(NS + "rect") if r.get("class") == "page " + cls)
text, cow = pages("shared file", "/bin/busybox"), sum(pages("shared anon", n)
                                                       for _, n in names)
if not text or not cow:
    sys.exit("%d runs of shared text, %d of shared anonymous pages" % (text, cow))
print("%d VMAs, busybox's text, heap and stack, shared text and copy-on-write pages"
      % len(vmas))
EOT
}

# a check per block, then the picture's two
blocks="README.md:iso docs/bench.md:bench docs/syscalls.md:syscalls docs/layout.md:includes"
[ "$mode" = check ] && plan $(($(echo "$blocks" | wc -w) + 2))
for b in $blocks; do
	file=${b%:*} name=${b#*:}
	if ! "${name}_block" >"$out/$name.new"; then
		notok "figures: $file's $name block could not be measured" "$out/$name.new"
		continue
	fi
	if ! grep -qx "<!-- figures: $name -->" "$file"; then
		notok "figures: $file has no '<!-- figures: $name -->' block"
	elif [ "$mode" = update ]; then
		replace "$file" "$name" "$out/$name.new"
		echo "figures: $file's $name block written"
	elif block "$file" "$name" >"$out/$name.old" &&
		{ diff -u "$out/$name.old" "$out/$name.new" >"$out/$name.diff" ||
			{ [ "$name" = bench ] && same "$out/$name.old" "$out/$name.new"; }; }; then
		ok "figures: $file's $name block is what this build measures"
	else
		notok "figures: $file's $name block differs from this build (make docs writes it)" \
			"$out/$name.diff"
	fi
done

svg=docs/memview-shell.svg
if ! memview_svg >"$out/memview.svg" || ! [ -s "$out/memview.svg" ]; then
	notok "figures: $svg could not be drawn (memview --svg in a boot)" \
		"$LOGS/figures-memview.log"
elif ! why=$(svg_shows "$out/memview.svg" 2>&1); then
	notok "figures: the $svg this build draws is not what it must show: $why"
elif [ "$mode" = update ]; then
	cp "$out/memview.svg" "$svg"
	echo "figures: $svg written ($why)"
elif cmp -s "$out/memview.svg" "$svg"; then
	ok "figures: $svg is what this build draws"
else
	diff -u "$svg" "$out/memview.svg" >"$out/memview.diff"
	notok "figures: $svg differs from what this build draws (make docs writes it)" \
		"$out/memview.diff"
fi
if [ "$mode" = check ]; then
	if why=$(svg_shows "$svg" 2>&1); then
		ok "figures: $svg is well-formed SVG and shows $why"
	else
		notok "figures: $svg: $why"
	fi
fi
