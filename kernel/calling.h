/* The general-register part of struct pt_regs, pushed in the one order kernel/trap.h declares
 * (as Linux's arch/x86/entry/calling.h does): shared by the trap and syscall entries. */
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
