/* Reverse mapping (mm/rmap.c), with Linux 2.6.23's names: the map counts every PTE keeps
 * (page_add_*_rmap, page_remove_rmap), and from a page to every PTE that maps it, through its
 * anon_vma or its file's i_mmap list, so that reclaim can test the accessed bits
 * (page_referenced) and unmap the page (try_to_unmap). */
#ifndef MM_RMAP_H
#define MM_RMAP_H

#include "kernel/lib/list.h"
#include "kernel/locking/spinlock.h"
#include "mm/page.h"
#include "mm/reclaim.h"
#include "mm/vma.h"

/*
 * The VMAs in which an anonymous page may be mapped: the VMA it was faulted into, every VMA
 * split or merged from that one, fork's copies of them (in every descendant), and mremap's
 * moves. All share one anon_vma, and a page's mapping points at it. It is freed when its last
 * VMA goes. Docs: docs/memory.md, "Reverse mapping".
 */
struct anon_vma {
	spinlock_t lock;	  /* head and every VMA's anon_vma_node on it */
	struct list_head head;	  /* the VMAs, through vma->anon_vma_node */
	unsigned long check_mark; /* kcheck's: the pass that last walked the list */
};

/* anon_vmas allocated and not yet freed (kcheck: each must be reached from a live VMA). */
extern long nr_anon_vmas;

/* page->mapping of an anonymous page is its anon_vma with this bit set (an anon_vma is at
 * least 8-byte aligned), so it is never taken for an address_space. */
#define PAGE_MAPPING_ANON 1UL

static inline bool PageAnon(const struct page *page)
{
	return ((unsigned long)page->mapping & PAGE_MAPPING_ANON) != 0;
}

/* The anon_vma of an anonymous page (valid while the page is mapped), else NULL. */
static inline struct anon_vma *page_anon_vma(const struct page *page)
{
	unsigned long m = (unsigned long)page->mapping;

	return (m & PAGE_MAPPING_ANON) ? (struct anon_vma *)(m - PAGE_MAPPING_ANON) : NULL;
}

static inline bool page_mapped(const struct page *page)
{
	return __atomic_load_n(&page->_mapcount, __ATOMIC_RELAXED) >= 0;
}

int __anon_vma_prepare(struct vm_area_struct *vma);
/*
 * Before the first anonymous page of vma is mapped: give vma an anon_vma (its mergeable
 * neighbour's, or a new one). 0, or -ENOMEM. Inline: on every anonymous fault, where the VMA
 * has one already but for its first page: a load and a test.
 */
static inline int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (likely(vma->anon_vma))
		return 0;
	return __anon_vma_prepare(vma);
}
/* vma (a copy of a VMA with an anon_vma: split, fork, mremap) joins that anon_vma's list. */
void anon_vma_link(struct vm_area_struct *vma);
/* vma goes away (vma_free): off its anon_vma's list, which is freed when it empties. */
void anon_vma_unlink(struct vm_area_struct *vma);
/* vma absorbs next (a merge): vma takes next's anon_vma if it had none. next is then freed
 * with vma_free, which takes it off the list. */
void __anon_vma_merge(struct vm_area_struct *vma, struct vm_area_struct *next);
/* May a and b (adjacent) become one VMA as far as their anonymous pages go? The same anon_vma,
 * or one without any and the other's not forked's (today's Linux: a VMA with uncowed parents,
 * whose anon_vma lock a wider range would share, is not made wider). */
static inline bool is_mergeable_anon_vma(const struct vm_area_struct *a,
					 const struct vm_area_struct *b)
{
	if (!a->anon_vma || !b->anon_vma)
		return !a->anon_vma_forked && !b->anon_vma_forked;
	return a->anon_vma == b->anon_vma;
}

/*
 * A new anonymous page (not yet visible to anyone) is mapped at address of vma, which has an
 * anon_vma: its first map count, mapping = the tagged anon_vma, index = the page of the VMA's
 * linear layout it sits at (linear_page_index), from which vma_address finds it again in every
 * VMA of the anon_vma. Inline: on every anonymous fault (plain stores: no one else sees the
 * page yet). Under page_table_lock.
 */
static inline void page_add_new_anon_rmap(struct page *page, struct vm_area_struct *vma,
					  uint64_t address)
{
	page->flags |= 1UL << PG_anon;
	page->_mapcount = 0;
	page->mapping = (struct address_space *)((unsigned long)vma->anon_vma | PAGE_MAPPING_ANON);
	page->index = linear_page_index(vma, address);
	lru_cache_add_active(page); /* a page just used: reclaim looks at it last */
}
/* One more PTE maps an anonymous page that exists already (2.6.23's do_swap_page): sets
 * mapping and index if no PTE mapped it, else checks them. Under page_table_lock. */
void page_add_anon_rmap(struct page *page, struct vm_area_struct *vma, uint64_t address);

/*
 * The map count of a file page, or of a page whose mapping and index are already set: how
 * many PTEs map it (_mapcount is that number minus one). Atomic (a locked add, as 2.6.23's
 * atomic_t): a page shared by several mms (after fork) is counted under each mm's own
 * page_table_lock, on several CPUs at once. Inline, as page_add_new_anon_rmap: a file fault
 * adds one, a COW break removes one, and a call is a cost on every such fault (docs/bench.md,
 * "Design choices, measured").
 */
static inline void page_add_file_rmap(struct page *page)
{
	__atomic_fetch_add(&page->_mapcount, 1, __ATOMIC_RELAXED);
}
/* A PTE that mapped page goes (zap, COW break, unmap); the reference is the caller's. */
static inline void page_remove_rmap(struct page *page)
{
	__atomic_fetch_sub(&page->_mapcount, 1, __ATOMIC_RELAXED);
}
/* One more PTE maps page (fork's copy, mremap's duplicate): a reference and its map count.
 * An anonymous page's mapping and index stay: the new PTE's VMA is on the same anon_vma at
 * the same vm_pgoff (2.6.23's copy_pte_range only counts it too; its page_dup_rmap is
 * inline in rmap.h as well). */
static inline void page_dup_rmap(struct page *page)
{
	get_page(page);
	__atomic_fetch_add(&page->_mapcount, 1, __ATOMIC_RELAXED);
}

/* The user address of page in vma, or -EFAULT when the page's index lies outside vma. */
unsigned long vma_address(const struct page *page, const struct vm_area_struct *vma);
/* The same for a page that may not belong to vma at all (2.6.23's page_address_in_vma):
 * -EFAULT unless it is vma's anon_vma's page or vma maps its file linearly. */
unsigned long page_address_in_vma(const struct page *page, const struct vm_area_struct *vma);

/*
 * How many of the PTEs that map page had their accessed bit set; each is cleared (and its
 * TLB entry flushed), so a second call right after gives 0 unless the page was used in
 * between. is_locked: the caller holds the page lock (needed for a file page; taken here with
 * a trylock otherwise, counting a page locked by someone else as referenced). The caller holds
 * the BKL: i_mmap is BKL data, and VMAs (so anon_vmas) end only under it.
 */
int page_referenced(struct page *page, int is_locked);

/* try_to_unmap's answers (2.6.23's). */
#define SWAP_SUCCESS 0 /* no PTE maps the page any more */
#define SWAP_AGAIN   1 /* some PTE was missed (a race, a nonlinear VMA): try later */
#define SWAP_FAIL    2 /* it cannot be unmapped now: locked, young, or anonymous without swap */
/* What try_to_unmap may ignore (today's Linux's names; 2.6.23's migration argument was
 * both): a PTE's accessed bit (a policy that evicts by age alone: FIFO), VM_LOCKED; and
 * whether it flushes. */
enum ttu_flags {
	TTU_IGNORE_ACCESS = 1 << 0,
	TTU_IGNORE_MLOCK = 1 << 1,
	/* Leave the TLB flush to the caller, who flushes every CPU once for a batch of pages
	 * before it writes or frees any of them (today's Linux's batched unmap: a CPU that
	 * still writes through its stale entry meanwhile writes a page not yet written out,
	 * whose PTE was dirty already). One shootdown per page, an IPI and a wait for every
	 * other CPU, made swapping on several CPUs slow (docs/bench.md, "Design choices,
	 * measured"). */
	TTU_BATCH_FLUSH = 1 << 2,
};

/*
 * Clear every PTE that maps page (locked by the caller, who also holds the BKL and a
 * reference): each is flushed from every CPU's TLB, its dirty bit passed to PG_dirty, mm->rss
 * and the map count dropped and its reference put. A file page comes back on the next access
 * through a fault. An anonymous page must be in the swap cache (add_to_swap): each PTE gets
 * its swap entry, else it is SWAP_FAIL and stays mapped. A young PTE (unless
 * TTU_IGNORE_ACCESS) or a VM_LOCKED VMA (unless TTU_IGNORE_MLOCK) make it SWAP_FAIL too.
 */
int try_to_unmap(struct page *page, enum ttu_flags flags);

/*
 * Before writeback writes page (locked, of a mapping that writes back): every PTE of a shared
 * VMA that maps it made read-only and clean, flushed from every CPU's TLB, so that the next
 * store faults and dirties the page again (2.6.23's page_mkclean). 1 if a PTE was writable or
 * dirty: a store may have reached the page since it was last marked dirty.
 */
int page_mkclean(struct page *page);

#endif
