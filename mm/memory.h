/* Operations on a whole user address space's page tables (mm/memory.c) and its lifetime
 * (kernel/fork.c: mm_alloc, dup_mm, mmput). */
#ifndef MM_MEMORY_H
#define MM_MEMORY_H

#include "mm/page.h"
#include "mm/pgtable.h"

struct mm_struct;

/* Call fn(pte, va, arg) for every present PTE mapping an address in [start, end). */
int walk_page_range(struct mm_struct *mm, uint64_t start, uint64_t end,
		    int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg);
/* The struct page behind a PTE, or NULL if the frame is not allocator memory (a device). */
struct page *vm_normal_page(pte_t pte);
/* fork: give dst a copy of every page src maps. 0 or -ENOMEM. */
int copy_page_range(struct mm_struct *dst, struct mm_struct *src);
/* Unmap [start, end) and drop the frames' references. */
void zap_page_range(struct mm_struct *mm, uint64_t start, uint64_t end);
/* Unmap everything below USER_TOP and free the page-table pages. */
void exit_mmap(struct mm_struct *mm);
/* Map zeroed frames at [start, end). 0 or -ENOMEM (what was mapped stays, for the caller). */
int map_anon_pages(struct mm_struct *mm, uint64_t start, uint64_t end, pte_t prot);

struct mm_struct *mm_alloc(void);
struct mm_struct *dup_mm(struct mm_struct *old);
void mmput(struct mm_struct *mm);

#endif
