/* Growing and shrinking the heap with brk. (The VMA issue makes the heap a VMA and adds mmap,
 * munmap and mprotect here, as Linux's mm/mmap.c has them.) */
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
