#!/bin/sh
# Deliberate failures, checked by the text they print and QEMU's exit status 37 (panic): a bad
# pointer (oops, registers, symbolised backtrace), a panic() call, a kernel stack overflow, a
# BUG_ON (the file and line, registers, backtrace).
# usage: tests/boot/panic.sh
. "$(dirname "$0")/../lib/boot.sh"

plan 4
boot panic 128M "ktest=panic"
expect panic 37 'kernel oops: page fault' 'CR2 \(fault address\) 000000000dead000' 'RIP: 0010:' \
	'RAX: ' 'Call Trace:' 'ktest_panic_deref\+0x' 'ktest_panic_caller\+0x' 'kernel_init\+0x'

boot panic-call 128M "ktest=kernel_panic_call"
expect panic-call 37 'kernel panic: deliberate panic from ktest \(42\)' 'Call Trace:' \
	'ktest_run\+0x'

boot stack-overflow 128M "ktest=stack_overflow"
expect stack-overflow 37 'double fault \(#DF\), handled on its own IST stack' \
	'kernel stack overflow: RSP [0-9a-f]+ points into an unmapped \(guard\) page' 'recurse\+0x'

boot bug 128M "ktest=bug_on"
expect bug 37 'kernel BUG at tests/ktest/traps.c' 'RAX: ' 'Call Trace:' 'ktest_bug_on_caller\+0x'
