/* Lab cow_reuse (docs/exercises.md): do_wp_page that always copies. Built in by
 * `make EXERCISE=cow_reuse`, it replaces the real one in mm/memory.c. Write your code here. */
#include "mm/anon.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/vma.h"

int do_wp_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address, pte_t *pte)
{
	struct page *old = vm_normal_page(*pte), *new;
	bool from_zero = pte_pfn(*pte) == page_to_pfn(zero_page);

	/* (A shared mapping's page, or device frame, is written in place: never copied.) An
	 * anonymous page that no other PTE maps needs no copy either. As it is, every COW write
	 * copies. */
	if (!from_zero && (vma->vm_flags & VM_SHARED)) {
		*pte = pte_mkyoung(pte_mkdirty(pte_mkwrite(*pte)));
		flush_tlb_page(vma, address);
		if (old)
			SetPageFlag(old, PG_dirty);
		return VM_FAULT_WRITE;
	}
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	new = alloc_page(from_zero ? __GFP_ZERO : 0);
	if (!new)
		return VM_FAULT_OOM;
	if (!from_zero)
		copy_page(page_address(new), __va(*pte & PTE_PFN_MASK));
	install_pte(mm, vma, pte, new, true);
	flush_tlb_page(vma, address); /* the old entry was present: every CPU drops it */
	page_add_new_anon_rmap(new, vma, address);
	if (old) { /* only after the flush: no CPU reaches it through the old entry */
		page_remove_rmap(old);
		put_page(old);
		mm->rss--;
	}
	return VM_FAULT_WRITE;
}
