/* The `syscall` entry. The CPU leaves the user RIP in %rcx and RFLAGS in %r11 and switches
 * nothing else, so: swapgs to reach the per-CPU area, save the user %rsp, load the kernel
 * stack, and build the same struct pt_regs a trap builds; return through trap_return's iretq. */
#include "kernel/arch/segment.h"
#include "kernel/arch/calling.h"

#define PERCPU_KERNEL_RSP 0
#define PERCPU_USER_RSP 8

	.cfi_sections .debug_frame	/* CFI for gdb: the linker merges .eh_frame away */
	.text
	.globl	syscall_entry
syscall_entry:
	swapgs
	mov	%rsp, %gs:PERCPU_USER_RSP
	mov	%gs:PERCPU_KERNEL_RSP, %rsp
	pushq	$__USER_DS			/* ss */
	pushq	%gs:PERCPU_USER_RSP		/* rsp */
	pushq	%r11				/* rflags */
	pushq	$__USER_CS			/* cs */
	pushq	%rcx				/* rip */
	pushq	%rax				/* error code: the call number (Linux's orig_ax) */
	pushq	$-1				/* vector: -1 marks a system call */
	PUSH_REGS
	xor	%ebp, %ebp
	mov	%rsp, %rdi
	sti
	call	do_syscall
	cli
	jmp	trap_return

	.section .note.GNU-stack, "", @progbits
