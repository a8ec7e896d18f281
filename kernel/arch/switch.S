/* The context switch and the first return of a new task. A switched-out task's kernel stack
 * holds, from its saved %rsp up: r15 r14 r13 r12 rbx rbp and the return address; fork and
 * kernel_thread build the same frame by hand for a task that has never run. */
#include "kernel/arch/calling.h"

	.text
/* void switch_to_asm(uint64_t *prev_rsp, uint64_t next_rsp) */
	.globl	switch_to_asm
switch_to_asm:
	PUSH_CALLEE_SAVED
	mov	%rsp, (%rdi)
	mov	%rsi, %rsp
	POP_CALLEE_SAVED
	ret

/* A forked task: its struct pt_regs (a copy of the parent's, %rax = 0) sits right above. */
	.globl	ret_from_fork
ret_from_fork:
	call	schedule_tail
	jmp	trap_return

/* A clone with CLONE_CHILD_SETTID: the child stores its tid (put_user may fault: interrupts
 * on, as in any system call), then returns as a forked task. %r12 = the user address. */
	.globl	ret_from_clone_settid
ret_from_clone_settid:
	call	schedule_tail
	sti
	mov	%r12, %rdi
	call	clone_child_settid
	cli
	jmp	trap_return

/* A kernel thread: %rbx = fn, %r12 = arg. fn's return value becomes its exit status; a
 * kernel thread that execs a program returns to ring 3 through ret_to_user instead. */
	.globl	kernel_thread_start
kernel_thread_start:
	call	schedule_tail
	sti
	call	lock_kernel			/* kernel threads run under the big kernel lock */
	mov	%r12, %rdi
	call	*%rbx
	mov	%eax, %edi
	shl	$8, %edi
	call	do_exit

/* void ret_to_user(struct pt_regs *regs): leave the kernel for the ring-3 state in regs. */
	.globl	ret_to_user
ret_to_user:
	cli
	mov	%rdi, %rsp
	jmp	trap_return
	.section .note.GNU-stack, "", @progbits
