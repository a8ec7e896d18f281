/* Moving data between the kernel and a user address space. Every user pointer a system call
 * gets goes through these: a pointer into the kernel half or a non-canonical one is refused
 * up front, an unmapped one faults inside the copy and comes back as -EFAULT. */
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include "kernel/errno.h"
#include "mm/mmu.h"

long __copy_user(void *dst, const void *src, size_t n); /* kernel/arch/uaccess.S */

/* Is [addr, addr + n) wholly in the lower (user) half? */
static inline bool access_ok(uint64_t addr, uint64_t n)
{
	return addr <= USER_TOP && n <= USER_TOP - addr;
}

static inline long copy_from_user(void *dst, uint64_t usrc, size_t n)
{
	if (!access_ok(usrc, n))
		return -EFAULT;
	return __copy_user(dst, (const void *)usrc, n);
}

static inline long copy_to_user(uint64_t udst, const void *src, size_t n)
{
	if (!access_ok(udst, n))
		return -EFAULT;
	return __copy_user((void *)udst, src, n);
}

/* The same without the range check, for a range the caller has checked whole with access_ok
 * (Linux's __copy_to_user: a read's or write's buffer, an imported iovec's segment). */
static inline long __copy_from_user(void *dst, uint64_t usrc, size_t n)
{
	return __copy_user(dst, (const void *)usrc, n);
}

static inline long __copy_to_user(uint64_t udst, const void *src, size_t n)
{
	return __copy_user((void *)udst, src, n);
}

long __futex_cmpxchg_user(uint32_t *uaddr, uint32_t old, uint32_t new, uint32_t *found);

/* Compare-and-exchange the 32-bit user word at uaddr (futexes): 0 with *found = the value it
 * had (the exchange happened if that is old), or -EFAULT. */
static inline long futex_cmpxchg_user(uint64_t uaddr, uint32_t old, uint32_t new,
				      uint32_t *found)
{
	if ((uaddr & 3) || !access_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	return __futex_cmpxchg_user((uint32_t *)uaddr, old, new, found);
}

/* Copy a NUL-terminated string of at most size bytes from user space: its length, size if
 * it did not end within size bytes, or -EFAULT. */
static inline long strncpy_from_user(char *dst, uint64_t usrc, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (copy_from_user(&dst[i], usrc + i, 1))
			return -EFAULT;
		if (!dst[i])
			return (long)i;
	}
	return (long)size;
}

/* The exception-table fixup for a faulting kernel instruction at rip, or 0
 * (kernel/arch/extable.c). */
uint64_t search_exception_tables(uint64_t rip);

#endif
