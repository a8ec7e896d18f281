#!/bin/sh
# Turn `nm -n` output of the first-pass kernel into build/ksyms.S: the text symbols, sorted,
# as an address array, a name-offset array and a string blob (read by kernel/ksyms.c).
# usage: gen-ksyms.sh NM KERNEL_ELF > ksyms.S
set -e
"$1" -n --defined-only "$2" | awk 'BEGIN { n = 0 }
NF == 3 && $2 ~ /^[tTwW]$/ && $3 !~ /^\.L/ { addr[n] = $1; name[n] = $3; n++ }
END {
	print "\t.section .ksyms, \"a\""
	print "\t.balign 8"
	print "\t.globl ksyms_count, ksyms_addrs, ksyms_name_offsets, ksyms_names"
	print "ksyms_count:\t.quad " n
	print "ksyms_addrs:"
	for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
	print "ksyms_name_offsets:"
	off = 0
	for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
	print "ksyms_names:"
	for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
	print "\t.section .note.GNU-stack, \"\", @progbits"
}'
