#!/bin/sh
# Figures the build measures, kept in the docs between "<!-- figures: NAME -->" and
# "<!-- end figures -->": the ISO's size and boot records (README.md, "Real hardware"), the
# table of fault costs under -icount (docs/bench.md, "Current figures") and the system calls
# with the numbers between them that have none (docs/syscalls.md). `make docs` writes them
# (update); `make test` measures them again and fails on a block that differs (check).
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

blocks="README.md:iso docs/bench.md:bench docs/syscalls.md:syscalls"
[ "$mode" = check ] && plan $(echo "$blocks" | wc -w)
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
