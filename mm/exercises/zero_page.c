/* Lab zero_page (docs/exercises.md): do_anonymous_page without the shared zero page. Built in
 * by `make EXERCISE=zero_page`, it replaces the real one in mm/anon.c. Write your code here. */
#include "mm/anon.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/vma.h"

int do_anonymous_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		      pte_t *pte, bool write)
{
	struct page *page;

	address = ALIGN_DOWN(address, PAGE_SIZE);
	/* A read of a private mapping should map the shared zero page, read-only, and spend no
	 * frame. As it is, every first touch gets a zeroed frame of its own. */
	if (anon_vma_prepare(vma))
		return VM_FAULT_OOM;
	page = alloc_page(GFP_HIGHUSER | __GFP_ZERO); /* it may reclaim: no lock is held */
	if (!page)
		return VM_FAULT_OOM;
	install_pte(mm, vma, pte, page, write);
	page_add_new_anon_rmap(page, vma, address);
	return VM_FAULT_MINOR;
}
