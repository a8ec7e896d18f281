/* Whole address-space operations on user page tables: copying them for fork and tearing them
 * down for munmap, execve and exit (Linux's copy_page_range, zap_page_range, exit_mmap). */
#include "kernel/errno.h"
#include "kernel/string.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"

/* Call fn on every present leaf PTE of the level-`level` table whose first entry maps base,
 * for addresses in [start, end). Stops at the first non-zero return and returns it. */
static int walk_user_ptes(uint64_t *table, int level, uint64_t base, uint64_t start,
			  uint64_t end, int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg)
{
	uint64_t size = 1UL << (PAGE_SHIFT + 9 * (level - 1));

	for (int i = 0; i < PTRS_PER_TABLE; i++) {
		uint64_t lo = base + i * size;
		int err;

		if (lo + size <= start || lo >= end || !(table[i] & _PAGE_PRESENT))
			continue;
		if (level == 1)
			err = fn(&table[i], lo, arg);
		else
			err = walk_user_ptes(__va(table[i] & PTE_PFN_MASK), level - 1, lo, start,
					     end, fn, arg);
		if (err)
			return err;
	}
	return 0;
}

int walk_page_range(struct mm_struct *mm, uint64_t start, uint64_t end,
		    int (*fn)(pte_t *pte, uint64_t va, void *arg), void *arg)
{
	return walk_user_ptes(mm->pgd, 4, 0, start, MIN(end, USER_TOP), fn, arg);
}

/* A frame the page allocator owns (not device memory, not the kernel image). */
struct page *vm_normal_page(pte_t pte)
{
	uint64_t pfn = pte_pfn(pte);

	if (pfn >= max_pfn)
		return NULL;
	struct page *page = pfn_to_page(pfn);
	return PageReserved(page) ? NULL : page;
}

static int copy_one_pte(pte_t *src_pte, uint64_t va, void *arg)
{
	struct mm_struct *dst = arg;
	struct page *old = vm_normal_page(*src_pte), *new;

	if (!old) /* device memory: share the frame itself */
		return map_page(dst->pgd, va, *src_pte & PTE_PFN_MASK, *src_pte & PTE_FLAGS_MASK);
	new = alloc_page(0);
	if (!new)
		return -ENOMEM;
	memcpy(page_address(new), page_address(old), PAGE_SIZE);
	if (map_page(dst->pgd, va, PFN_PHYS(page_to_pfn(new)), *src_pte & PTE_FLAGS_MASK)) {
		__free_page(new);
		return -ENOMEM;
	}
	dst->rss++;
	return 0;
}

int copy_page_range(struct mm_struct *dst, struct mm_struct *src)
{
	return walk_page_range(src, 0, USER_TOP, copy_one_pte, dst);
}

static int zap_one_pte(pte_t *pte, uint64_t va, void *arg)
{
	struct mm_struct *mm = arg;
	struct page *page = vm_normal_page(*pte);

	*pte = 0;
	flush_tlb_one(va);
	if (page) {
		put_page(page);
		mm->rss--;
	}
	return 0;
}

void zap_page_range(struct mm_struct *mm, uint64_t start, uint64_t end)
{
	walk_page_range(mm, start, end, zap_one_pte, mm);
}

void exit_mmap(struct mm_struct *mm)
{
	zap_page_range(mm, 0, USER_TOP);
	free_pgd_range(mm->pgd, 0, USER_TOP);
}

int map_anon_pages(struct mm_struct *mm, uint64_t start, uint64_t end, pte_t prot)
{
	for (uint64_t va = start; va < end; va += PAGE_SIZE) {
		struct page *page = alloc_page(__GFP_ZERO);

		if (!page)
			return -ENOMEM;
		if (map_page(mm->pgd, va, PFN_PHYS(page_to_pfn(page)), prot)) {
			__free_page(page);
			return -ENOMEM;
		}
		mm->rss++;
	}
	return 0;
}
