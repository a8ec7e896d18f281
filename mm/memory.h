/* The fault core and whole-range page-table work (mm/memory.c), and the mm_struct lifetime
 * (kernel/fork.c: mm_alloc, dup_mm, mmput). */
#ifndef MM_MEMORY_H
#define MM_MEMORY_H

#include "mm/page.h"
#include "mm/pgtable.h"

struct mm_struct;
struct vm_area_struct;

/* Call fn(pte, va, arg) for every non-empty PTE (present, or a file PTE) in [start, end). */
int walk_page_range(struct mm_struct *mm, uint64_t start, uint64_t end,
		    int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg);
/* The struct page behind a present PTE, or NULL: not present, a device frame, the zero page
 * (Linux's vm_normal_page). Only such pages are reference- and map-counted. */
struct page *vm_normal_page(pte_t pte);
void page_add_anon_rmap(struct page *page);
void page_add_file_rmap(struct page *page);
void page_remove_rmap(struct page *page);

/* The #PF core: make address in vma accessible (for a write if write). VM_FAULT_* bits. */
int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		    bool write);
/* fork: give dst the PTEs of vma (a VMA of src); private writable pages become read-only in
 * both and shared (copy-on-write). 0 or -ENOMEM. */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src, struct vm_area_struct *vma);
/* Clear the PTEs of [start, end), dropping the pages' map counts and references. */
void zap_page_range(struct mm_struct *mm, uint64_t start, uint64_t end);
/* munmap: zap [start, end), then free page-table pages left empty in [floor, ceiling) (the
 * gap between the neighbouring VMAs). */
void unmap_region(struct mm_struct *mm, uint64_t start, uint64_t end, uint64_t floor,
		  uint64_t ceiling);
/* Unmap everything below USER_TOP and free the page-table pages. */
void exit_mmap(struct mm_struct *mm);
/* Write n bytes from src (zeroes if src is NULL) at va of mm, which need not be current's:
 * the pages are faulted in for writing. 0, -EFAULT (no writable VMA there) or -ENOMEM. */
long copy_to_mm(struct mm_struct *mm, uint64_t va, const void *src, size_t n);
/* truncate of a nonlinear VMA: present pages of file page first or later go back to file
 * PTEs (their pgoff kept), so the next access faults and sees the new size. */
void zap_nonlinear_range(struct vm_area_struct *vma, unsigned long first);

/* Page-table pages of the lower half (PUD, PMD and PTE tables), for introspection. */
unsigned long count_pt_pages(struct mm_struct *mm);

struct mm_struct *mm_alloc(void);
struct mm_struct *dup_mm(struct mm_struct *old);
void mmput(struct mm_struct *mm);

#endif
