/* swapoff's hard part, Linux 2.6.23's try_to_unuse: bring every page still out on an area back
 * into memory, into each PTE that holds one of its slots, until no slot of the area is in use. */
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/slab.h"
#include "mm/swap.h"

#define UNUSE_BATCH 64 /* swap PTEs found per walk, then swapped in without page_table_lock */
#define UNUSE_PASSES 8 /* reclaim may swap a page out to the area again between passes */

struct unuse_walk {
	unsigned int type;
	unsigned long n;
	uint64_t addr[UNUSE_BATCH];
};

static int find_swap_pte(pte_t *pte, uint64_t va, void *arg)
{
	struct unuse_walk *w = arg;

	if (!is_swap_pte(*pte) || swp_type(pte_to_swp_entry(*pte)) != w->type)
		return 0;
	w->addr[w->n++] = va;
	return w->n == UNUSE_BATCH; /* full: swap these in, then walk again */
}

/*
 * Swap in every page of area type that vma's PTEs hold, as faults would (do_swap_page), a batch
 * at a time: the walk finds them under page_table_lock, the swap-ins sleep on the disk without
 * it. mmap_sem is held for reading, so the page tables stay. 0, -ENOMEM, -EIO (the disk failed
 * a read: the page stays out) or -EINTR (a signal, as 2.6.23).
 */
static int unuse_vma(struct vm_area_struct *vma, unsigned int type)
{
	struct mm_struct *mm = vma->vm_mm;
	struct unuse_walk *w = kmalloc(sizeof(*w));
	uint64_t start = vma->vm_start;
	int err = 0;

	if (!w)
		return -ENOMEM;
	w->type = type;
	do {
		w->n = 0;
		spin_lock(&mm->page_table_lock);
		walk_page_range(mm, start, vma->vm_end, find_swap_pte, w);
		spin_unlock(&mm->page_table_lock);
		for (unsigned long i = 0; i < w->n && !err; i++) {
			pte_t *pte = walk_page_table(mm->pgd, w->addr[i], false);
			pte_t orig = pte ? *pte : 0;
			int ret;

			if (!is_swap_pte(orig) || swp_type(pte_to_swp_entry(orig)) != type)
				continue; /* a fault of the process swapped it in meanwhile */
			ret = do_swap_page(mm, vma, w->addr[i], pte, orig, false);
			if (ret & VM_FAULT_OOM)
				err = -ENOMEM;
			else if (ret & VM_FAULT_SIGBUS)
				err = -EIO;
			else if (signal_pending(current))
				err = -EINTR;
		}
		if (w->n)
			start = w->addr[w->n - 1] + PAGE_SIZE;
	} while (w->n == UNUSE_BATCH && !err);
	kfree(w);
	return err;
}

/* Every VMA of mm that may hold swap PTEs: the anonymous ones (a VMA with an anon_vma). */
static int unuse_mm(struct mm_struct *mm, unsigned int type)
{
	struct vm_area_struct *vma;
	int err = 0;

	down_read(&mm->mmap_sem);
	for_each_vma(vma, mm)
		if (vma->anon_vma && (err = unuse_vma(vma, type)))
			break;
	up_read(&mm->mmap_sem);
	return err;
}

/* The address spaces of every task, each once, each pinned (mm_users) for the caller's mmput;
 * the BKL keeps the task list still while they are gathered. NULL when out of memory. */
static struct mm_struct **gather_mms(int *n)
{
	struct task_struct *t;
	struct mm_struct **mms;
	int max = 0;

	list_for_each_entry(t, &all_tasks, tasks)
		max++;
	mms = kmalloc((size_t)(max ? max : 1) * sizeof(*mms));
	if (!mms)
		return NULL;
	*n = 0;
	list_for_each_entry(t, &all_tasks, tasks) {
		int i;

		if (!t->mm)
			continue;
		for (i = 0; i < *n && mms[i] != t->mm; i++)
			;
		if (i == *n) {
			t->mm->mm_users++;
			mms[(*n)++] = t->mm;
		}
	}
	return mms;
}

/*
 * The slots of type the swap cache alone holds now (their PTEs have the pages): each page
 * leaves the cache, dirty, so that its slot is free. A page locked by someone else is left for
 * the next pass.
 */
static void unuse_swap_cache(unsigned int type)
{
	for (unsigned long off = 1; off < swap_info[type].max; off++) {
		swp_entry_t entry = swp_entry(type, off);
		struct page *page;

		if (swap_count(entry) != 1 || !(page = lookup_swap_cache(entry)))
			continue;
		if (!TestSetPageLocked(page)) {
			if (PageSwapCache(page) && page->private == entry.val &&
			    swap_count(entry) == 1) {
				delete_from_swap_cache(page);
				SetPageFlag(page, PG_dirty);
			}
			unlock_page(page);
		}
		put_page(page);
	}
}

int try_to_unuse(unsigned int type)
{
	int err = 0;

	for (int pass = 0; pass < UNUSE_PASSES && swap_info[type].inuse_pages && !err; pass++) {
		struct mm_struct **mms;
		int n;

		mms = gather_mms(&n);
		if (!mms)
			return -ENOMEM;
		for (int i = 0; i < n; i++) {
			if (!err)
				err = unuse_mm(mms[i], type);
			mmput(mms[i]);
		}
		kfree(mms);
		if (!err)
			unuse_swap_cache(type);
	}
	if (!err && swap_info[type].inuse_pages) {
		printk("swapoff: %u slots of %s still in use after %d passes\n",
		       swap_info[type].inuse_pages, swap_info[type].name, UNUSE_PASSES);
		err = -EBUSY;
	}
	return err;
}
