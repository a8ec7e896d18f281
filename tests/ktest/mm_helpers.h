/* What the memory ktests share: the PTE at an address of a test mm, and a fault taken there
 * as the #PF handler would take it (without its access checks). */
#ifndef TESTS_KTEST_MM_HELPERS_H
#define TESTS_KTEST_MM_HELPERS_H

#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/pgtable.h"
#include "mm/vma.h"

/* The PTE for va in mm, 0 when no page table covers it. */
static inline pte_t pte_of(struct mm_struct *mm, uint64_t va)
{
	pte_t *p = walk_page_table(mm->pgd, va, false);

	return p ? *p : 0;
}

/* handle_mm_fault's VM_FAULT_* bits for va, or -1 when no VMA covers it. */
static inline int fault(struct mm_struct *mm, uint64_t va, bool write)
{
	struct vm_area_struct *vma = find_vma(mm, va);

	if (!vma || vma->vm_start > va)
		return -1;
	return handle_mm_fault(mm, vma, va, write ? FAULT_FLAG_WRITE : 0, NULL);
}

#endif
