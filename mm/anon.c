/* Anonymous memory: pages with no file behind them (heap, stack, bss, MAP_ANONYMOUS). A read
 * of one never touched maps the shared zero page, as Linux 2.6.23 did: no frame is spent until
 * the first write, which do_wp_page (mm/memory.c) turns into a zeroed page of its own. */
#include "kernel/arch/atomic.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "mm/anon.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/vma.h"

struct page *zero_page;

void anon_init(void)
{
	zero_page = alloc_page(__GFP_ZERO);
	if (!zero_page)
		panic("anon_init: no frame for the zero page");
	/* Reserved: never reference-counted, never freed (vm_normal_page skips it). */
	SetPageFlag(zero_page, PG_reserved);
	SetPageFlag(zero_page, PG_zero);
}

/* __weak: the lab zero_page (docs/exercises.md) links its stub instead. */
__weak int do_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
			     pte_t *pte, bool write)
{
	struct page *page;

	address = ALIGN_DOWN(address, PAGE_SIZE);
	/* (A shared mapping never gets the zero page: its sharers must all see one frame.) */
	if (!write && !(vma->vm_flags & VM_SHARED)) {
		/*
		 * The zero page's entry holds no reference, no rmap count and no rss: the only
		 * rule is never to overwrite an entry another fault installed, which a
		 * compare-and-exchange from "none" gives without page_table_lock, for less than
		 * the lock's acquire and release on every zero-page read (docs/bench.md, "Design
		 * choices, measured"). The loser of the race leaves the winner's PTE alone.
		 */
		cmpxchg(pte, (pte_t)0, pte_wrprotect(pfn_pte(page_to_pfn(zero_page),
							 vma->vm_page_prot)) | _PAGE_ACCESSED);
		return VM_FAULT_MINOR; /* was not present: no TLB entry to flush */
	}
	if (unlikely(anon_vma_prepare(vma))) /* its first page: locks outside page_table_lock */
		return VM_FAULT_OOM;
	page = alloc_page(GFP_HIGHUSER | __GFP_ZERO); /* outside the lock: it may reclaim */
	if (!page)
		return VM_FAULT_OOM;
	spin_lock(&mm->page_table_lock);
	if (!pte_none(*pte)) { /* the other fault won: drop our page */
		spin_unlock(&mm->page_table_lock);
		put_page(page);
		return VM_FAULT_MINOR;
	}
	install_pte(mm, vma, pte, page, write);
	page_add_new_anon_rmap(page, vma, address);
	spin_unlock(&mm->page_table_lock);
	return VM_FAULT_MINOR;
}
