/* The 32-bit entry GRUB jumps to: check the CPU, build the early page tables, switch to
 * long mode and jump to the higher-half kernel. Everything here runs at physical addresses,
 * so every symbol is written as (sym - KERNEL_BASE). */
#define KERNEL_BASE 0xffffffff80000000
#define PHYS(x) ((x) - KERNEL_BASE)

#define MB2_MAGIC 0xe85250d6
#define MB2_BOOTLOADER_MAGIC 0x36d76289

	.section .multiboot, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long 0				/* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))
	/* entry address tag: GRUB jumps here (physical), whatever the ELF entry says */
	.balign 8
	.short 3, 0
	.long 12
	.long PHYS(_start)
	/* module alignment tag: modules start on a page boundary */
	.balign 8
	.short 6, 0
	.long 8
	/* framebuffer tag: ask for a linear 1024x768x32 framebuffer (drivers/fbcon.c draws on
	 * it). Flag 1 makes it optional, so a machine GRUB cannot give one still boots: in EGA
	 * text mode under BIOS (drivers/vga.c), on the serial line only under UEFI. */
	.balign 8
	.short 5, 1
	.long 20
	.long 1024, 768, 32
	/* end tag */
	.balign 8
	.short 0, 0
	.long 8
mb2_header_end:

	.section .boot.text, "ax"
	.code32
	.globl _start
_start:
	cli
	cld
	mov	%eax, %edi			/* keep the loader's magic and info pointer */
	mov	%ebx, %esi
	rdtsc					/* boot cost starts here (make bench) */
	mov	%eax, PHYS(boot_tsc)
	mov	%edx, PHYS(boot_tsc) + 4
	mov	$PHYS(boot_stack_top), %esp

	cmp	$MB2_BOOTLOADER_MAGIC, %edi
	jne	no_multiboot

	/* Long mode and NX are both reported by CPUID leaf 0x80000001, EDX bits 29 and 20. */
	mov	$0x80000000, %eax
	cpuid
	cmp	$0x80000001, %eax
	jb	no_long_mode
	mov	$0x80000001, %eax
	cpuid
	test	$(1 << 29), %edx
	jz	no_long_mode
	test	$(1 << 20), %edx
	jz	no_nx

	/* Clear .bss: the early page tables live there and must start empty. */
	mov	%edi, %ebp
	mov	$PHYS(__bss_start), %edi
	mov	$PHYS(__bss_end), %ecx
	sub	%edi, %ecx
	shr	$2, %ecx
	xor	%eax, %eax
	rep stosl
	mov	%ebp, %edi

	/* Early tables: one page directory of 2 MiB pages maps physical 0..1 GiB, reachable at
	 * three places: identity (for the next few instructions), the direct map (PML4 slot 273,
	 * 0xffff888000000000) and the kernel image (PML4 511, PDPT 510: 0xffffffff80000000). */
	mov	$PHYS(boot_pd), %ebx
	xor	%ecx, %ecx
1:	mov	%ecx, %eax
	shl	$21, %eax
	or	$0x83, %eax			/* present, writable, 2 MiB page */
	mov	%eax, (%ebx, %ecx, 8)
	inc	%ecx
	cmp	$512, %ecx
	jne	1b

	mov	$PHYS(boot_pd) + 3, %eax
	mov	%eax, PHYS(boot_pdpt_low)
	mov	%eax, PHYS(boot_pdpt_high) + 510 * 8
	mov	$PHYS(boot_pdpt_low) + 3, %eax
	mov	%eax, PHYS(boot_pml4)
	mov	%eax, PHYS(boot_pml4) + 273 * 8
	mov	$PHYS(boot_pdpt_high) + 3, %eax
	mov	%eax, PHYS(boot_pml4) + 511 * 8

	mov	%cr4, %eax
	or	$(1 << 5), %eax			/* PAE */
	mov	%eax, %cr4
	mov	$PHYS(boot_pml4), %eax
	mov	%eax, %cr3

	mov	$0xc0000080, %ecx		/* EFER */
	rdmsr
	or	$((1 << 8) | (1 << 11)), %eax	/* LME: long mode, NXE: the NX bit in PTEs */
	wrmsr

	mov	%cr0, %eax
	or	$((1 << 31) | (1 << 16) | 1), %eax	/* PG, WP (ring 0 obeys read-only), PE */
	mov	%eax, %cr0

	lgdt	PHYS(boot_gdt_ptr)
	ljmp	$0x10, $PHYS(start64_low)

/* Print the NUL-terminated message at %esi on COM1 and the VGA text screen, then halt.
 * The serial port is used uninitialised: QEMU and most BIOSes leave it usable. */
boot_fail:
	mov	$0xb8000, %edi
1:	lodsb
	test	%al, %al
	jz	3f
	mov	%al, %ah
	mov	$0x3fd, %dx
2:	in	%dx, %al			/* wait for the transmitter to be empty */
	test	$0x20, %al
	jz	2b
	mov	$0x3f8, %dx
	mov	%ah, %al
	out	%al, %dx
	movb	%ah, (%edi)
	movb	$0x4f, 1(%edi)			/* white on red */
	add	$2, %edi
	jmp	1b
3:	cli
	hlt
	jmp	3b

no_multiboot:
	mov	$PHYS(msg_no_mb2), %esi
	jmp	boot_fail
no_long_mode:
	mov	$PHYS(msg_no_lm), %esi
	jmp	boot_fail
no_nx:
	mov	$PHYS(msg_no_nx), %esi
	jmp	boot_fail

	.code64
start64_low:
	/* Still running at the identity address: jump to the kernel's real address. */
	movabs	$start64, %rax
	jmp	*%rax

	.section .boot.rodata, "a"
msg_no_mb2:
	.asciz	"faultline: not started by a Multiboot2 loader (boot the ISO with GRUB)\r\n"
msg_no_lm:
	.asciz	"faultline: this CPU has no 64-bit long mode; faultline needs an x86-64 CPU\r\n"
msg_no_nx:
	.asciz	"faultline: this CPU has no NX (no-execute) bit; faultline needs it\r\n"

	.balign 8
boot_gdt:
	.quad	0
	.quad	0
	.quad	0x00af9a000000ffff		/* 0x10: 64-bit kernel code */
	.quad	0x00cf92000000ffff		/* 0x18: kernel data */
boot_gdt_end:
boot_gdt_ptr:
	.short	boot_gdt_end - boot_gdt - 1
	.long	PHYS(boot_gdt)

	.text
	.globl start64
start64:
	mov	$0x18, %ax
	mov	%ax, %ds
	mov	%ax, %es
	mov	%ax, %ss
	xor	%ax, %ax
	mov	%ax, %fs
	mov	%ax, %gs
	movabs	$boot_stack_top, %rsp
	xor	%ebp, %ebp			/* the end of every backtrace */
	/* kmain(magic, info_phys): %edi and %esi already hold them, zero-extended. */
	mov	%edi, %edi
	mov	%esi, %esi
	call	kmain
1:	cli
	hlt
	jmp	1b

	.bss
	.balign 4096
	.globl boot_pml4, boot_stack_guard, boot_stack, boot_stack_top
boot_pml4:	.skip 4096
boot_pdpt_low:	.skip 4096
boot_pdpt_high:	.skip 4096
boot_pd:	.skip 4096
/* The page below the boot stack is left unmapped by paging_init, so an overflow faults. */
boot_stack_guard: .skip 4096
boot_stack:	.skip 16384
boot_stack_top:

	/* In .data, not .bss: the TSC is read before .bss is cleared. */
	.data
	.balign	8
	.globl	boot_tsc
boot_tsc: .quad 0

	.section .note.GNU-stack, "", @progbits
