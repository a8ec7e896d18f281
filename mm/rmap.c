/* Reverse mapping, Linux 2.6.23's object-based design: an anonymous page points to its
 * anon_vma (the list of VMAs it may be mapped in), a file page to its address_space (whose i_mmap
 * lists the VMAs of the file); the page's index gives its address in each (vma_address). */
#include "kernel/bug.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/rmap.h"
#include "mm/slab.h"
#include "mm/swap.h"
#include "mm/tlbflush.h"

/*
 * Locks, outermost first (2.6.23's order, less the i_mmap_lock faultline does not have: i_mmap
 * is BKL data): mmap_sem, the page lock, anon_vma->lock, page_table_lock. An anon_vma's list
 * changes under its lock; a VMA's bounds and vm_pgoff change under its mm's mmap_sem for
 * writing, taken by system calls holding the BKL. The walkers below hold the BKL (reclaim runs
 * in a kernel thread, which does): so no VMA ends and no bound moves during a walk, and the
 * anon_vma a mapped page points to cannot be freed under it (2.6.23, with no such lock, freed
 * anon_vmas through SLAB_DESTROY_BY_RCU instead). Faults add VMAs to a list (anon_vma_prepare)
 * and pages to it without the BKL: hence the anon_vma lock, and the checks under
 * page_table_lock that the PTE still maps the page.
 */

long nr_anon_vmas;

static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *anon_vma = kmalloc(sizeof(*anon_vma));

	if (anon_vma) {
		spin_lock_init(&anon_vma->lock);
		INIT_LIST_HEAD(&anon_vma->head);
		anon_vma->check_mark = 0;
		__atomic_add_fetch(&nr_anon_vmas, 1, __ATOMIC_RELAXED);
	}
	return anon_vma;
}

static void anon_vma_free(struct anon_vma *anon_vma)
{
	__atomic_sub_fetch(&nr_anon_vmas, 1, __ATOMIC_RELAXED);
	kfree(anon_vma);
}

/*
 * vma's first anonymous page is about to be mapped (mmap_sem held for reading: a fault). A
 * neighbour that could merge with vma but for its protection lends its anon_vma, so that an
 * mprotect undone later can merge them again; else a new one. Two faults of one VMA may get
 * here at once: page_table_lock decides which one's anon_vma the VMA takes.
 */
int __anon_vma_prepare(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma *anon_vma, *allocated = NULL;

	anon_vma = find_mergeable_anon_vma(vma);
	if (!anon_vma) {
		anon_vma = allocated = anon_vma_alloc();
		if (!anon_vma)
			return -ENOMEM;
	}
	spin_lock(&anon_vma->lock);
	spin_lock(&mm->page_table_lock);
	if (likely(!vma->anon_vma)) {
		vma->anon_vma = anon_vma;
		list_add_tail(&vma->anon_vma_node, &anon_vma->head);
		allocated = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	spin_unlock(&anon_vma->lock);
	if (allocated) /* the other fault won */
		anon_vma_free(allocated);
	return 0;
}

void anon_vma_link(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;

	if (!anon_vma)
		return;
	spin_lock(&anon_vma->lock);
	list_add_tail(&vma->anon_vma_node, &anon_vma->head);
	spin_unlock(&anon_vma->lock);
}

void anon_vma_unlink(struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;
	bool empty;

	if (!anon_vma)
		return;
	spin_lock(&anon_vma->lock);
	list_del(&vma->anon_vma_node);
	empty = list_empty(&anon_vma->head);
	spin_unlock(&anon_vma->lock);
	vma->anon_vma = NULL;
	if (empty) /* no VMA left, so no mapped page points to it */
		anon_vma_free(anon_vma);
}

void __anon_vma_merge(struct vm_area_struct *vma, struct vm_area_struct *next)
{
	/* vma_can_join refused two different ones: next's pages could not be found again. */
	BUG_ON(vma->anon_vma && next->anon_vma && vma->anon_vma != next->anon_vma);
	vma->anon_vma_forked |= next->anon_vma_forked;
	if (!vma->anon_vma && next->anon_vma) {
		vma->anon_vma = next->anon_vma;
		anon_vma_link(vma);
	}
}

void page_add_anon_rmap(struct page *page, struct vm_area_struct *vma, uint64_t address)
{
	if (__atomic_add_fetch(&page->_mapcount, 1, __ATOMIC_RELAXED) == 0) {
		SetPageFlag(page, PG_anon);
		page->mapping = (struct address_space *)((unsigned long)vma->anon_vma |
							 PAGE_MAPPING_ANON);
		page->index = linear_page_index(vma, address);
	}
}

unsigned long vma_address(const struct page *page, const struct vm_area_struct *vma)
{
	unsigned long address = vma->vm_start + ((page->index - vma->vm_pgoff) << PAGE_SHIFT);

	/* (An index below vm_pgoff wraps to an address below vm_start or far above vm_end.) */
	if (unlikely(address < vma->vm_start || address >= vma->vm_end))
		return -EFAULT;
	return address;
}

unsigned long page_address_in_vma(const struct page *page, const struct vm_area_struct *vma)
{
	if (PageAnon(page)) {
		if (vma->anon_vma != page_anon_vma(page))
			return -EFAULT;
	} else if (page->mapping && !(vma->vm_flags & VM_NONLINEAR)) {
		if (!vma->vm_file || vma->vm_file->f_inode->i_mapping != page->mapping)
			return -EFAULT;
	} else {
		return -EFAULT;
	}
	return vma_address(page, vma);
}

/* The PTE of address in mm if it maps page, with page_table_lock held; else NULL, unlocked. */
static pte_t *page_check_address(struct page *page, struct mm_struct *mm, uint64_t address)
{
	pte_t *pte;

	spin_lock(&mm->page_table_lock);
	pte = walk_page_table(mm->pgd, address, false);
	if (pte && pte_present(*pte) && pte_pfn(*pte) == page_to_pfn(page))
		return pte;
	spin_unlock(&mm->page_table_lock);
	return NULL;
}

/*
 * Clear the accessed bit of a present PTE; true if it was set. Atomic: a CPU may set the
 * accessed or dirty bit at the same moment. No TLB flush, as today's Linux on x86 decided: a
 * CPU that still caches the entry does not set the bit again until the entry leaves its TLB
 * (a context switch, any flush), so at worst a page in use looks unused a little longer and
 * may be reclaimed early; nothing is lost, and reclaim saves a shootdown per mapped page it
 * looks at (2.6.23 flushed here: an IPI and a wait for every other CPU, per page looked at;
 * docs/bench.md, "Design choices, measured").
 */
static bool ptep_clear_flush_young(struct vm_area_struct *vma, uint64_t address, pte_t *pte)
{
	(void)vma;
	(void)address;
	if (!(*pte & _PAGE_ACCESSED))
		return false;
	return __atomic_fetch_and(pte, ~_PAGE_ACCESSED, __ATOMIC_SEQ_CST) & _PAGE_ACCESSED;
}

/* ---------------------------------------------------------------- page_referenced */

static int page_referenced_one(struct page *page, struct vm_area_struct *vma, int *mapcount)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address = vma_address(page, vma);
	int referenced = 0;
	pte_t *pte;

	if (address == (unsigned long)-EFAULT)
		return 0;
	pte = page_check_address(page, mm, address);
	if (!pte)
		return 0;
	/* mlock()ed: as good as in use, so reclaim leaves it on the active list and never gives
	 * it a swap slot (2.6.23 did the same, and stopped at the first such VMA). */
	if (vma->vm_flags & VM_LOCKED) {
		referenced++;
		*mapcount = 1;
	} else if (ptep_clear_flush_young(vma, address, pte)) {
		referenced++;
	}
	(*mapcount)--;
	spin_unlock(&mm->page_table_lock);
	return referenced;
}

/*
 * A nonlinear VMA (remap_file_pages) puts file pages anywhere in it, so vma_address means
 * nothing there: its PTEs are searched for the page's frame (2.6.23 scanned such VMAs in
 * clusters). Rare, and bounded by the VMA's size.
 */
struct nonlinear_args {
	struct page *page;
	struct vm_area_struct *vma;
	bool unmap;	/* else: test and clear the accessed bits */
	int referenced; /* accessed bits found set */
	int ret;	/* for an unmap: SWAP_AGAIN, or SWAP_FAIL for a young PTE */
};

static void unmap_pte(struct page *page, struct vm_area_struct *vma, uint64_t address,
		      pte_t *pte, pte_t newval, bool flush);

static int nonlinear_one(pte_t *pte, uint64_t va, void *arg)
{
	struct nonlinear_args *a = arg;

	if (!pte_present(*pte) || pte_pfn(*pte) != page_to_pfn(a->page))
		return 0;
	if (!a->unmap) {
		a->referenced += ptep_clear_flush_young(a->vma, va, pte);
		return 0;
	}
	if (ptep_clear_flush_young(a->vma, va, pte)) {
		a->ret = SWAP_FAIL;
		return 1;
	}
	/* The layout stays: the next access faults the same file page back in. */
	unmap_pte(a->page, a->vma, va, pte, pgoff_to_pte(a->page->index), true);
	return 0;
}

static int walk_nonlinear(struct page *page, struct vm_area_struct *vma, bool unmap)
{
	struct nonlinear_args a = { page, vma, unmap, 0, SWAP_AGAIN };

	spin_lock(&vma->vm_mm->page_table_lock);
	walk_page_range(vma->vm_mm, vma->vm_start, vma->vm_end, nonlinear_one, &a);
	spin_unlock(&vma->vm_mm->page_table_lock);
	return unmap ? a.ret : a.referenced;
}

/* The page's anon_vma, locked, or NULL if no PTE maps the page any more (its mapping may then
 * point to an anon_vma already freed). */
static struct anon_vma *page_lock_anon_vma(struct page *page)
{
	struct anon_vma *anon_vma;

	if (!page_mapped(page))
		return NULL;
	anon_vma = page_anon_vma(page);
	spin_lock(&anon_vma->lock);
	return anon_vma;
}

static int page_referenced_anon(struct page *page)
{
	struct anon_vma *anon_vma = page_lock_anon_vma(page);
	struct vm_area_struct *vma;
	int referenced = 0, mapcount;

	if (!anon_vma)
		return 0;
	mapcount = page->_mapcount + 1;
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		referenced += page_referenced_one(page, vma, &mapcount);
		if (!mapcount) /* every PTE found: the rest of the list cannot map it */
			break;
	}
	spin_unlock(&anon_vma->lock);
	return referenced;
}

static int page_referenced_file(struct page *page)
{
	struct address_space *mapping = page->mapping;
	struct vm_area_struct *vma;
	int referenced = 0, mapcount = page->_mapcount + 1;

	list_for_each_entry(vma, &mapping->i_mmap, shared) {
		referenced += page_referenced_one(page, vma, &mapcount);
		if (!mapcount)
			return referenced;
	}
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared)
		referenced += walk_nonlinear(page, vma, false);
	return referenced;
}

int page_referenced(struct page *page, int is_locked)
{
	/* read() or write() used it (mark_page_accessed): a reference without a PTE. */
	int referenced = PageFlag(page, PG_referenced);

	if (referenced)
		ClearPageFlag(page, PG_referenced);
	if (!page_mapped(page) || !page->mapping)
		return referenced;
	if (PageAnon(page))
		return referenced + page_referenced_anon(page);
	if (is_locked)
		return referenced + page_referenced_file(page);
	if (TestSetPageLocked(page))
		return referenced + 1; /* someone is using it right now */
	if (page->mapping) /* truncate may have removed it while we waited */
		referenced += page_referenced_file(page);
	unlock_page(page);
	return referenced;
}

/* ---------------------------------------------------------------- try_to_unmap */

/*
 * The caller checked that *pte maps page and holds page_table_lock: replace it by newval (0,
 * a swap entry or a file PTE) on every CPU, keep its dirty bit in the page, and drop what the
 * PTE held (rss, map count, reference; the caller's own reference keeps the page alive).
 * Without flush the caller flushes every CPU's TLB itself before it reads or frees the page.
 */
static void unmap_pte(struct page *page, struct vm_area_struct *vma, uint64_t address,
		      pte_t *pte, pte_t newval, bool flush)
{
	pte_t pteval = xchg(pte, newval);

	if (flush)
		flush_tlb_page(vma, address); /* no CPU writes through it after this */
	if (pte_dirty(pteval))
		set_page_dirty(page); /* a file page: its inode learns of it */
	vma->vm_mm->rss--;
	page_remove_rmap(page);
	put_page(page);
}

static int try_to_unmap_one(struct page *page, struct vm_area_struct *vma, enum ttu_flags flags)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long address = vma_address(page, vma);
	int ret = SWAP_AGAIN;
	pte_t newval = 0;
	pte_t *pte;

	if (address == (unsigned long)-EFAULT)
		return ret;
	pte = page_check_address(page, mm, address);
	if (!pte)
		return ret;
	/* An anonymous page has nowhere else to be found: the PTE keeps its swap entry (one more
	 * user of the slot), and the next access reads it back (do_swap_page). Reclaim put the
	 * page in the swap cache first (add_to_swap). A file page just comes back by a fault. */
	if (PageAnon(page)) {
		if (!PageSwapCache(page)) {
			ret = SWAP_FAIL;
			goto out;
		}
		newval = swp_entry_to_pte((swp_entry_t){ page->private });
	}
	/* mlock()ed, or used since page_referenced looked: keep it. */
	if ((!(flags & TTU_IGNORE_MLOCK) && (vma->vm_flags & VM_LOCKED)) ||
	    (!(flags & TTU_IGNORE_ACCESS) && ptep_clear_flush_young(vma, address, pte))) {
		ret = SWAP_FAIL;
		goto out;
	}
	if (newval && !swap_duplicate((swp_entry_t){ page->private }))
		BUG(); /* the swap cache holds a count on the slot: it is in use */
	if (newval)
		mm->swapents++;
	unmap_pte(page, vma, address, pte, newval, !(flags & TTU_BATCH_FLUSH));
out:
	spin_unlock(&mm->page_table_lock);
	return ret;
}

static int try_to_unmap_anon(struct page *page, enum ttu_flags flags)
{
	struct anon_vma *anon_vma = page_lock_anon_vma(page);
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN;

	if (!anon_vma)
		return ret;
	list_for_each_entry(vma, &anon_vma->head, anon_vma_node) {
		ret = try_to_unmap_one(page, vma, flags);
		if (ret == SWAP_FAIL || !page_mapped(page))
			break;
	}
	spin_unlock(&anon_vma->lock);
	return ret;
}

static int try_to_unmap_file(struct page *page, enum ttu_flags flags)
{
	struct address_space *mapping = page->mapping;
	struct vm_area_struct *vma;
	int ret = SWAP_AGAIN;

	list_for_each_entry(vma, &mapping->i_mmap, shared) {
		ret = try_to_unmap_one(page, vma, flags);
		if (ret == SWAP_FAIL || !page_mapped(page))
			return ret;
	}
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
		if ((vma->vm_flags & VM_LOCKED) && !(flags & TTU_IGNORE_MLOCK))
			return SWAP_FAIL;
		ret = walk_nonlinear(page, vma, true);
		if (ret == SWAP_FAIL || !page_mapped(page))
			return ret;
	}
	return ret;
}

int try_to_unmap(struct page *page, enum ttu_flags flags)
{
	int ret;

	BUG_ON(!PageLocked(page));
	if (!page->mapping)
		return page_mapped(page) ? SWAP_FAIL : SWAP_SUCCESS;
	if (PageAnon(page))
		ret = try_to_unmap_anon(page, flags);
	else
		ret = try_to_unmap_file(page, flags);
	if (!page_mapped(page))
		ret = SWAP_SUCCESS;
	return ret;
}

/* ---------------------------------------------------------------- page_mkclean */

/* One PTE, page_table_lock held: cleared and flushed from every CPU first, so that no CPU
 * stores through a stale writable entry after we looked, then put back read-only and clean. */
static int mkclean_pte(struct vm_area_struct *vma, uint64_t address, pte_t *pte)
{
	pte_t entry;

	if (!pte_write(*pte) && !pte_dirty(*pte))
		return 0;
	entry = xchg(pte, 0);
	flush_tlb_page(vma, address);
	*pte = pte_mkclean(pte_wrprotect(entry));
	return 1;
}

static int page_mkclean_one(struct page *page, struct vm_area_struct *vma)
{
	unsigned long address = vma_address(page, vma);
	pte_t *pte;
	int ret;

	if (address == (unsigned long)-EFAULT)
		return 0;
	pte = page_check_address(page, vma->vm_mm, address);
	if (!pte)
		return 0;
	ret = mkclean_pte(vma, address, pte);
	spin_unlock(&vma->vm_mm->page_table_lock);
	return ret;
}

struct mkclean_args {
	struct page *page;
	struct vm_area_struct *vma;
	int ret;
};

static int mkclean_nonlinear_one(pte_t *pte, uint64_t va, void *arg)
{
	struct mkclean_args *a = arg;

	if (pte_present(*pte) && pte_pfn(*pte) == page_to_pfn(a->page))
		a->ret |= mkclean_pte(a->vma, va, pte);
	return 0;
}

int page_mkclean(struct page *page)
{
	struct address_space *mapping = page->mapping;
	struct vm_area_struct *vma;
	int ret = 0;

	BUG_ON(!PageLocked(page));
	if (!page_mapped(page) || !mapping || PageAnon(page))
		return 0;
	list_for_each_entry(vma, &mapping->i_mmap, shared)
		if (vma->vm_flags & VM_SHARED)
			ret |= page_mkclean_one(page, vma);
	/* 2.6.23 left nonlinear VMAs out; their PTEs are searched, as walk_nonlinear does. */
	list_for_each_entry(vma, &mapping->i_mmap_nonlinear, shared) {
		struct mkclean_args a = { page, vma, 0 };

		if (!(vma->vm_flags & VM_SHARED))
			continue;
		spin_lock(&vma->vm_mm->page_table_lock);
		walk_page_range(vma->vm_mm, vma->vm_start, vma->vm_end, mkclean_nonlinear_one, &a);
		spin_unlock(&vma->vm_mm->page_table_lock);
		ret |= a.ret;
	}
	return ret;
}
