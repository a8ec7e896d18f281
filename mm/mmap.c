/* The address-space calls, as Linux's mm/mmap.c has them: brk, and for now an eager
 * anonymous mmap, munmap and mprotect working on page tables alone (the VMA issue rebuilds
 * them on VMAs, faulted in on demand). */
#include "kernel/errno.h"
#include "kernel/exec.h"
#include "kernel/sched.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/mmap.h"

#define HEAP_MAX (1UL << 30) /* a heap larger than 1 GiB is refused */

/* brk(addr): move the end of the heap to addr and return the new end; on failure (or for
 * addr 0) return the current end unchanged, as Linux does. Pages are mapped eagerly. */
long sys_brk(uint64_t addr)
{
	struct mm_struct *mm = current->mm;
	uint64_t old_end = ALIGN_UP(mm->brk, PAGE_SIZE), new_end = ALIGN_UP(addr, PAGE_SIZE);

	if (addr < mm->start_brk || addr > mm->start_brk + HEAP_MAX)
		return (long)mm->brk;
	if (new_end > old_end) {
		for (uint64_t va = old_end; va < new_end; va += PAGE_SIZE)
			if (translate(mm->pgd, va, NULL) != NO_PHYS_ADDR)
				return (long)mm->brk; /* something else is mapped there */
		if (map_anon_pages(mm, old_end, new_end, PAGE_SHARED)) {
			zap_page_range(mm, old_end, new_end);
			return (long)mm->brk;
		}
	} else if (new_end < old_end) {
		zap_page_range(mm, new_end, old_end);
	}
	mm->brk = addr;
	return (long)addr;
}

#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MMAP_BASE (USER_STACK_TOP - (64UL << 20)) /* below the stack and its growth room */

static pte_t prot_to_pte(uint64_t prot)
{
	pte_t pte = _PAGE_PRESENT | _PAGE_USER;

	if (prot & PROT_WRITE)
		pte |= _PAGE_RW;
	if (!(prot & PROT_EXEC))
		pte |= _PAGE_NX;
	return pte;
}

static bool range_free(struct mm_struct *mm, uint64_t start, uint64_t len)
{
	for (uint64_t va = start; va < start + len; va += PAGE_SIZE)
		if (translate(mm->pgd, va, NULL) != NO_PHYS_ADDR)
			return false;
	return true;
}

/* mmap of anonymous private memory, mapped at once. (Until the VMA issue there is no record
 * of PROT_NONE reservations: they only unmap, and a later mmap may reuse the range.) */
long sys_mmap(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, int64_t fd,
	      uint64_t off)
{
	struct mm_struct *mm = current->mm;
	uint64_t start;

	(void)fd;
	if (!len || (addr & ~PAGE_MASK) || (off & ~PAGE_MASK) || len > USER_TOP)
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS))
		return -ENODEV; /* file mappings arrive with the page cache (issue 5) */
	if ((flags & (MAP_SHARED | MAP_PRIVATE)) != MAP_PRIVATE)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (flags & MAP_FIXED) {
		if (addr + len > USER_TOP || addr + len < addr)
			return -EINVAL;
		zap_page_range(mm, addr, addr + len);
		start = addr;
	} else {
		if (len > MMAP_BASE - mm->brk - PAGE_SIZE)
			return -ENOMEM;
		if (addr && addr + len <= MMAP_BASE && range_free(mm, addr, len))
			start = addr;
		else
			for (start = MMAP_BASE - len; start >= mm->brk + PAGE_SIZE; start -= PAGE_SIZE)
				if (range_free(mm, start, len))
					break;
		if (start < mm->brk + PAGE_SIZE)
			return -ENOMEM;
	}
	if (prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) {
		if (map_anon_pages(mm, start, start + len, prot_to_pte(prot))) {
			zap_page_range(mm, start, start + len);
			return -ENOMEM;
		}
	}
	return (long)start;
}

long sys_munmap(uint64_t addr, uint64_t len)
{
	if ((addr & ~PAGE_MASK) || !len || addr + len > USER_TOP || addr + len < addr)
		return -EINVAL;
	zap_page_range(current->mm, addr, addr + ALIGN_UP(len, PAGE_SIZE));
	return 0;
}

static int protect_one(pte_t *pte, uint64_t va, void *arg)
{
	*pte = (*pte & PTE_PFN_MASK) | *(pte_t *)arg;
	flush_tlb_one(va);
	return 0;
}

/* mprotect: change the protection of the pages present in the range; PROT_NONE unmaps. */
long sys_mprotect(uint64_t addr, uint64_t len, uint64_t prot)
{
	pte_t pte = prot_to_pte(prot);
	uint64_t end = addr + ALIGN_UP(len, PAGE_SIZE);

	if ((addr & ~PAGE_MASK) || end > USER_TOP || end < addr)
		return -EINVAL;
	if (!(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		zap_page_range(current->mm, addr, end);
	else
		walk_page_range(current->mm, addr, end, protect_one, &pte);
	return 0;
}
