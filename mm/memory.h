/* The fault core and whole-range page-table work (mm/memory.c). */
#ifndef MM_MEMORY_H
#define MM_MEMORY_H

#include "mm/mm_types.h"
#include "mm/page.h"
#include "mm/pgtable.h"
#include "mm/rmap.h"
#include "mm/tlbflush.h"
#include "mm/vma.h"


/* Call fn(pte, va, arg) for every non-empty PTE (present, or a file PTE) in [start, end). */
int walk_page_range(struct mm_struct *mm, uint64_t start, uint64_t end,
		    int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg);
/* The struct page behind a present PTE, or NULL: not present, a device frame, the zero page
 * (Linux's vm_normal_page). Only such pages are reference- and map-counted. */
struct page *vm_normal_page(pte_t pte);
/* The #PF core: make address in vma accessible (for a write with FAULT_FLAG_WRITE in flags).
 * VM_FAULT_* bits; VM_FAULT_RETRY (only with FAULT_FLAG_ALLOW_RETRY) when it let go of
 * mmap_sem. *vmf, unless NULL, is left with what the fault was about (the page of the file or
 * VMA, FAULT_FLAG_NONLINEAR when it came from a file PTE): do_page_fault's trace reads it. */
int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		    unsigned int flags, struct vm_fault *vmf);
/* Map page in vma through pte, with the VMA's protection, writable and dirty if asked, and
 * count the page in mm->rss. No TLB flush: x86 caches no entry for a not-present PTE, so a
 * fault filling one has nothing to flush; a caller replacing a present entry (a COW break)
 * calls flush_tlb_page after it. Inline: the faults of several files call it, each once
 * (docs/bench.md, "Design choices, measured"). */
static inline void install_pte(struct mm_struct *mm, struct vm_area_struct *vma, pte_t *pte,
			       struct page *page, bool writable)
{
	pte_t entry = pfn_pte(page_to_pfn(page), vma->vm_page_prot) | _PAGE_ACCESSED;

	if (writable)
		entry = pte_mkdirty(pte_mkwrite(entry));
	*pte = entry;
	mm->rss++;
}
/* A write to a present read-only page: copy-on-write, or reuse. VM_FAULT_WRITE or _OOM. */
int do_wp_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address, pte_t *pte);
/* A legacy nopage() op's page for vmf, unlocked, as fault() would return it: VM_FAULT_* bits
 * (VM_FAULT_SIGBUS or VM_FAULT_OOM for its NOPAGE_SIGBUS and NOPAGE_OOM). */
int do_nopage(struct vm_area_struct *vma, struct vm_fault *vmf);
/* Faults whose fault() op returned a locked page at or past the end of its file (FL_CHECK). */
extern unsigned long nr_fault_past_eof;
/* fork: give dst the PTEs of vma (a VMA of src); private writable pages become read-only in
 * both and shared (copy-on-write). 0 or -ENOMEM. */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src, struct vm_area_struct *vma);
/* Clear the PTEs of [start, end), dropping the pages' map counts and references. */
void zap_page_range(struct mm_struct *mm, uint64_t start, uint64_t end);
/* Write n bytes from src (zeroes if src is NULL) at va of mm, which need not be current's:
 * the pages are faulted in for writing. 0, -EFAULT (no writable VMA there) or -ENOMEM. */
long copy_to_mm(struct mm_struct *mm, uint64_t va, const void *src, size_t n);
/* truncate of a nonlinear VMA: present pages of file page first or later go back to file
 * PTEs (their pgoff kept), so the next access faults and sees the new size. */
void zap_nonlinear_range(struct vm_area_struct *vma, unsigned long first);

/* Page-table pages of the lower half (PUD, PMD and PTE tables), for introspection. */
unsigned long count_pt_pages(struct mm_struct *mm);

#endif
