/* Entry stubs for all 256 vectors: each pushes a dummy error code where the CPU pushes none,
 * then its vector number, and jumps to the common path that builds a struct pt_regs. */
	.altmacro
#include "kernel/arch/calling.h"


	.cfi_sections .debug_frame	/* CFI for gdb: the linker merges .eh_frame away */
	.text
	.macro	vector_stub v
	.balign	16
vector_\v:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa rsp, 0
	.cfi_undefined rip
	.if !(\v == 8 || (\v >= 10 && \v <= 14) || \v == 17 || \v == 21 || \v == 29 || \v == 30)
	pushq	$0
	.endif
	pushq	$\v
	jmp	trap_common
	.cfi_endproc
	.endm

	.set	v, 0
	.rept	256
	vector_stub %v
	.set	v, v + 1
	.endr

/* Common path: save the general registers below the stub's words, so that %rsp points at a
 * complete struct pt_regs; swapgs if we came from ring 3 (per-CPU data is reached through GS). */
trap_common:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa rsp, 0
	.cfi_undefined rip
	testb	$3, 24(%rsp)			/* CS of the interrupted code */
	jz	1f
	swapgs
1:	PUSH_REGS
	cld
	mov	%rsp, %rdi
	xor	%ebp, %ebp			/* a fresh chain: show_regs walks regs->rbp */
	call	trap_dispatch
	.globl	trap_return
trap_return:
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	testb	$3, 24(%rsp)
	jz	2f
	swapgs
2:	add	$16, %rsp			/* vector and error code */
	iretq
	.cfi_endproc

	.section .rodata
	.balign	8
	.globl	vector_entries
vector_entries:
	.macro	vector_entry v
	.quad	vector_\v
	.endm
	.set	v, 0
	.rept	256
	vector_entry %v
	.set	v, v + 1
	.endr

/* int fault_catch_call(fn, arg, fc): see kernel/arch/trap.h. The saved %rsp and callee-saved
 * registers let fault_catch_handle() resume here as if fn had returned 1. */
	.text
	.globl	fault_catch_call
fault_catch_call:
	PUSH_CALLEE_SAVED
	mov	%rdx, fault_catch_fc(%rip)
	mov	%rsp, fault_catch_rsp(%rip)
	movq	$1, fault_catch_armed(%rip)
	mov	%rdi, %rax
	mov	%rsi, %rdi
	call	*%rax
	xor	%eax, %eax
	jmp	3f
	.globl	fault_catch_resume
fault_catch_resume:
	mov	fault_catch_rsp(%rip), %rsp
	mov	$1, %eax
3:	movq	$0, fault_catch_armed(%rip)
	POP_CALLEE_SAVED
	ret

	.bss
	.balign	8
	.globl	fault_catch_armed, fault_catch_rsp, fault_catch_fc
fault_catch_armed: .quad 0
fault_catch_rsp: .quad 0
fault_catch_fc:	.quad 0

	.section .note.GNU-stack, "", @progbits
