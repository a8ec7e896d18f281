/* The general-register part of struct pt_regs, pushed in the one order kernel/arch/trap.h declares
 * (as Linux's arch/x86/entry/calling.h does): shared by the trap and syscall entries. */
/* Callee-saved registers, for the two "resume later at a saved %rsp" helpers
 * (fault_catch_call in entry.S, switch_to_asm in switch.S). */
	.macro	PUSH_CALLEE_SAVED
	push	%rbp
	mov	%rsp, %rbp
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	.endm
	.macro	POP_CALLEE_SAVED
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbx
	pop	%rbp
	.endm

	.macro	PUSH_REGS
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	.endm
