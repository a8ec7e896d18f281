# The program lines a ring-3 boot runs: awk -v boot=BOOT -f tests/ring3/boots.awk
# tests/ring3-boots.txt LIST... prints the lines of LIST (each "RESULT | PROGRAM ARGS" or, in the
# ramdisk's runlist, "PROGRAM ARGS") that tests/ring3-boots.txt lets the boot BOOT run; -v
# names=1 prints the names of the boots that file restricts instead, and -v check=1 what of
# BOOT's lines there matches nothing in LIST (a typo would leave in what it meant to leave out).
function cmd(line) { # the program line without its expectation
	if (index(line, "|"))
		sub(/^[^|]*\| */, "", line)
	sub(/ +$/, "", line)
	return line
}
function prog(line, w) { # its program: the first word that is not timeout=N
	line = cmd(line)
	split(line, w, " ")
	return w[1] ~ /^timeout=/ ? w[2] : w[1]
}
function glob(p) { # a shell pattern (* only) as an anchored regular expression
	gsub(/[.+?()^$]/, "\\\\&", p)
	gsub(/\*/, ".*", p)
	return "^" p "$"
}
FNR == NR {
	if (/^#/ || !index($0, "|"))
		next
	split($0, half, "|")
	nb = split(half[1], bs, " ")
	rest = half[2]
	sub(/^ +/, "", rest)
	sub(/ +$/, "", rest)
	for (i = 1; i <= nb; i++) {
		restricted[bs[i]]
		if (bs[i] != boot)
			continue
		if (rest ~ /^only /) {
			n = split(substr(rest, 6), ps, " ")
			for (j = 1; j <= n; j++) {
				only[++nonly] = glob(ps[j])
				pattern[nonly] = ps[j]
			}
		} else {
			out[rest]
		}
	}
	next
}
names {
	exit
}
/^#/ || !NF {
	next
}
{
	if (cmd($0) in out) {
		used[cmd($0)]
		next
	}
	keep = !nonly
	for (j = 1; j <= nonly; j++)
		if (prog($0) ~ only[j])
			keep = hit[j] = 1
	if (keep && !check)
		print
}
END {
	if (names)
		for (b in restricted)
			print b
	if (!check)
		exit
	for (c in out)
		if (!(c in used))
			print boot ": no program line '" c "'"
	for (j = 1; j <= nonly; j++)
		if (!hit[j])
			print boot ": no program matches '" pattern[j] "'"
}
