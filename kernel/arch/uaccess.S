/* copy_from_user / copy_to_user: `rep movsq` then `rep movsb` for the tail, both listed in the
 * exception table so that a fault on a bad user pointer resumes at the fixup, which returns
 * -EFAULT (Linux's way: no pre-walking of page tables, so demand paging can later satisfy the
 * fault first). Quadwords: each rep iteration is one guest instruction under -icount, and
 * byte copies were most of a signal's cost (docs/bench.md, "Design choices, measured").
 * long __copy_user(void *dst, const void *src, size_t n): 0 or -EFAULT. */
	.text
	.globl	__copy_user
__copy_user:
	mov	%rdx, %rcx
	shr	$3, %rcx
	and	$7, %edx
	testb	$1, smap_enabled(%rip)		/* SMAP: open user access for this copy only */
	jz	1f
	stac
1:	rep movsq
	mov	%rdx, %rcx
5:	rep movsb
	xor	%eax, %eax
	jmp	3f
2:	mov	$-14, %rax			/* -EFAULT */
3:	testb	$1, smap_enabled(%rip)
	jz	4f
	clac
4:	ret

	.section __ex_table, "a"
	.balign	8
	.quad	1b, 2b
	.quad	5b, 2b

/* long __futex_cmpxchg_user(uint32_t *uaddr, uint32_t old, uint32_t new, uint32_t *found):
 * `lock cmpxchg` on a user word, for the futex code: threads on other CPUs change the word
 * meanwhile without any kernel lock, so a read and a later write would lose their stores.
 * 0 with *found = the word's value before (the store happened if it equals old), or -EFAULT. */
	.text
	.globl	__futex_cmpxchg_user
__futex_cmpxchg_user:
	mov	%esi, %eax
	testb	$1, smap_enabled(%rip)
	jz	6f
	stac
6:	lock cmpxchgl %edx, (%rdi)
	mov	%eax, (%rcx)
	xor	%eax, %eax
	jmp	8f
7:	mov	$-14, %rax			/* -EFAULT */
8:	testb	$1, smap_enabled(%rip)
	jz	9f
	clac
9:	ret

	.section __ex_table, "a"
	.balign	8
	.quad	6b, 7b
	.section .note.GNU-stack, "", @progbits
