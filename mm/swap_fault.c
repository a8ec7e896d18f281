/* The swap-in fault, Linux 2.6.23's do_swap_page: a PTE holding a swap entry gets its page back,
 * from the swap cache when it is still there (a minor fault) or from the disk (VM_FAULT_MAJOR). */
#include "kernel/bug.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/reclaim.h"
#include "mm/swap.h"
#include "mm/vmstat.h"

/*
 * orig_pte, read without the lock, holds entry. The page is found or read (sleeping, no lock
 * held), then locked, and mapped only if the PTE still holds the entry: another thread of the
 * mm may have swapped it in meanwhile. The PTE's count on the slot goes to the page's mapping;
 * a page no other PTE needs on the disk may then leave the swap cache. A page whose read
 * failed is SIGBUS, for this process only: the next fault on the entry reads the disk again.
 * A write maps the page writable if this PTE is its only user, else breaks COW at once.
 */
int do_swap_page(struct mm_struct *mm, struct vm_area_struct *vma, uint64_t address,
		 pte_t *pte, pte_t orig_pte, bool write)
{
	swp_entry_t entry = pte_to_swp_entry(orig_pte);
	int ret = VM_FAULT_MINOR;
	struct page *page;
	bool major, writable = false;

	address = ALIGN_DOWN(address, PAGE_SIZE);
	if (unlikely(anon_vma_prepare(vma)))
		return VM_FAULT_OOM;
	page = lookup_swap_cache(entry);
	major = !page;
	if (major) { /* to the disk: its neighbours come along in the same request */
		swapin_readahead(entry);
		page = read_swap_cache_async(entry);
	}
	if (!page) {
		/* No frame, unless the slot was freed because the PTE changed meanwhile. */
		spin_lock(&mm->page_table_lock);
		if (*pte == orig_pte)
			ret = VM_FAULT_OOM;
		spin_unlock(&mm->page_table_lock);
		return ret;
	}
	if (major) {
		ret = VM_FAULT_MAJOR;
		count_vm_event(PGMAJFAULT);
	}
	lock_page(page); /* (another fault's read of it may still be going on) */
	spin_lock(&mm->page_table_lock);
	if (*pte != orig_pte || !PageSwapCache(page) || page->private != entry.val)
		goto out_nomap; /* somebody else swapped it in: nothing left to do */
	if (!PageUptodate(page)) {
		ret = VM_FAULT_SIGBUS;
		spin_unlock(&mm->page_table_lock);
		/* Out of the cache, so the next fault tries the disk again. */
		if (page_count(page) == 2 && !page_mapped(page))
			delete_from_swap_cache(page);
		goto out_unlock;
	}
	page_add_anon_rmap(page, vma, address);
	swap_free(entry); /* the PTE's count: the mapping holds the page itself now */
	if (write && reuse_swap_page(page)) {
		writable = true;
		ret |= VM_FAULT_WRITE;
	} else if (vm_swap_full() && swap_count(entry) == 1) {
		delete_from_swap_cache(page); /* only the cache held the slot */
		SetPageFlag(page, PG_dirty);
	}
	get_page(page); /* the PTE's reference */
	install_pte(mm, vma, pte, page, writable);
	mm->swapents--;
	spin_unlock(&mm->page_table_lock);
	unlock_page(page);
	put_page(page);
	if (write && !writable) /* a sharer still needs the data: copy it now */
		ret |= do_wp_page(mm, vma, address, pte);
	return ret;

out_nomap:
	spin_unlock(&mm->page_table_lock);
out_unlock:
	unlock_page(page);
	put_page(page);
	return ret;
}
