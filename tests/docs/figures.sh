#!/bin/sh
# Figures the build measures, kept in the docs between "<!-- figures: NAME -->" and
# "<!-- end figures -->": the ISO's size and boot records (README.md, "Real hardware") and the
# table of fault costs under -icount (docs/bench.md, "Current figures"). `make docs` writes
# them (update); `make test` measures them again and fails on a block that differs (check).
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

[ "$mode" = check ] && plan 2
for b in "README.md iso" "docs/bench.md bench"; do
	file=${b% *} name=${b#* }
	if ! "${name}_block" >"$out/$name.new"; then
		notok "figures: $file's $name block could not be measured" "$out/$name.new"
		continue
	fi
	if ! grep -qx "<!-- figures: $name -->" "$file"; then
		notok "figures: $file has no '<!-- figures: $name -->' block"
	elif [ "$mode" = update ]; then
		replace "$file" "$name" "$out/$name.new"
		echo "figures: $file's $name block written"
	elif block "$file" "$name" | diff -u - "$out/$name.new" >"$out/$name.diff"; then
		ok "figures: $file's $name block is what this build measures"
	else
		notok "figures: $file's $name block differs from this build (make docs writes it)" \
			"$out/$name.diff"
	fi
done
