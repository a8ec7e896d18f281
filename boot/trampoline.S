/* The application processors' first instructions, copied to a page below 1 MiB where the
 * start-up IPI sends them: real mode, then protected mode, then long mode on a temporary page
 * table, then secondary_startup_64 in the kernel (docs/smp.md walks through it). */
#define LA(x) ((x) - trampoline_start)

	.section .rodata
	.balign	16
	.globl	trampoline_start, trampoline_end
	.globl	trampoline_cr3, trampoline_kernel_cr3, trampoline_entry
	.globl	trampoline_stack, trampoline_arg
	.code16
trampoline_start:
	cli
	cld
	mov	%cs, %ax
	mov	%ax, %ds
	xor	%ebx, %ebx
	mov	%ax, %bx
	shl	$4, %ebx			/* %ebx: the page's physical address */
	/* Code and data are position independent; two far pointers and the GDT's base are
	 * written here, now that the page's address is known. */
	lea	LA(tr_gdt)(%ebx), %eax
	mov	%eax, LA(tr_gdt_ptr) + 2
	lea	LA(tr_pm32)(%ebx), %eax
	mov	%eax, LA(tr_pm_jump)
	lgdtl	LA(tr_gdt_ptr)
	mov	%cr0, %eax
	or	$1, %eax			/* PE: protected mode */
	mov	%eax, %cr0
	ljmpl	*LA(tr_pm_jump)			/* into 32-bit code, CS = 0x08 */

	.code32
tr_pm32:
	mov	$0x10, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	mov	%cr4, %eax
	or	$(1 << 5), %eax			/* PAE */
	mov	%eax, %cr4
	mov	LA(trampoline_cr3)(%ebx), %eax	/* the temporary PML4, below 1 MiB */
	mov	%eax, %cr3
	mov	$0xc0000080, %ecx		/* EFER: LME (long mode), NXE (NX bits) */
	rdmsr
	or	$((1 << 8) | (1 << 11)), %eax
	wrmsr
	mov	%cr0, %eax
	and	$~((1 << 30) | (1 << 29)), %eax	/* CD, NW: INIT leaves the caches off */
	or	$((1 << 31) | (1 << 16)), %eax	/* PG, WP: paging on, so long mode is active */
	mov	%eax, %cr0
	lea	LA(tr_lm64)(%ebx), %eax
	mov	%eax, LA(tr_lm_jump)(%ebx)
	ljmpl	*LA(tr_lm_jump)(%ebx)		/* into 64-bit code, CS = 0x18 */

	.code64
tr_lm64:
	mov	%ebx, %ebx			/* upper halves are undefined after the switch */
	mov	LA(trampoline_stack)(%rbx), %rsp
	mov	LA(trampoline_arg)(%rbx), %rdi
	mov	LA(trampoline_kernel_cr3)(%rbx), %rcx
	mov	LA(trampoline_entry)(%rbx), %rax
	jmp	*%rax				/* secondary_startup_64, a kernel address */

	.balign	8
tr_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff		/* 0x08: 32-bit code */
	.quad	0x00cf92000000ffff		/* 0x10: data */
	.quad	0x00af9a000000ffff		/* 0x18: 64-bit code */
tr_gdt_end:
tr_gdt_ptr:
	.short	tr_gdt_end - tr_gdt - 1
	.long	0				/* base: written above */
	.balign	4
tr_pm_jump:
	.long	0
	.short	0x08
tr_lm_jump:
	.long	0
	.short	0x18
	/* Filled in by kernel/arch/smpboot.c before each start-up IPI. */
	.balign	8
trampoline_cr3:		.quad 0		/* physical: the temporary PML4 */
trampoline_kernel_cr3:	.quad 0		/* physical: kernel_pgd */
trampoline_entry:	.quad 0		/* secondary_startup_64 */
trampoline_stack:	.quad 0		/* the AP's kernel stack top */
trampoline_arg:		.quad 0		/* its CPU number */
trampoline_end:

/* Long mode at the kernel's address: switch to the kernel's own page tables (the identity
 * page is no longer needed) and call start_secondary(cpu) on the AP's stack. */
	.cfi_sections .debug_frame	/* CFI for gdb: the backtrace of an AP ends here */
	.text
	.globl	secondary_startup_64
secondary_startup_64:
	.cfi_startproc simple
	.cfi_def_cfa rsp, 0
	.cfi_undefined rip
	mov	%rcx, %cr3
	xor	%ebp, %ebp			/* the end of every backtrace */
	call	start_secondary
1:	cli
	hlt
	jmp	1b
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
