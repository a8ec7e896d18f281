/* The buddy allocator: physical frames in naturally aligned blocks of 2^order frames. A freed
 * block merges with its free "buddy" so that large blocks form again, as in Linux's
 * mm/page_alloc.c. Every other allocator (page tables, kmalloc, user pages) sits on this one. */

#include "kernel/printk/printk.h"
#include "kernel/locking/spinlock.h"
#include "kernel/lib/string.h"
#include "kernel/sched/sched.h"
#include "mm/gfp.h"
#include "mm/oom.h"
#include "mm/reclaim.h"
#include "mm/swap.h"
#include "mm/vmstat.h"

/*
 * Invariants (tests/host/test_page_alloc.c checks them):
 *  - A free block of order n starts at a frame number that is a multiple of 2^n and holds
 *    only frames given to us by free_area_add_range(), all below max_pfn.
 *  - The first frame (the head) of a free block has PG_buddy set, private == n, and is
 *    linked on free_area[n].free_list through lru. No other frame has PG_buddy.
 *  - Every frame of a free block has _count 0. An allocated block's head has _count >= 1;
 *    the other frames of an allocated block keep _count 0.
 *  - Reserved frames have PG_reserved and _count 1 and never belong to a free block.
 *  - Two buddies of order n are never both free at order n: they would have been merged.
 *  - nr_free is the number of frames in all free blocks together.
 */

struct page *mem_map;
unsigned long max_pfn;

struct free_area {
	struct list_head free_list; /* heads of the free blocks of this order */
	unsigned long nr_free;      /* blocks on free_list */
};

/* zone_lock (2.6.23's zone->lock; there is one zone): the free lists and the counts below.
 * Taken irqsave, innermost of the mm locks: nothing else is taken under it. */
static DEFINE_SPINLOCK(zone_lock);
static struct free_area free_area[MAX_ORDER];
static unsigned long nr_free;    /* frames in all free blocks */
static unsigned long nr_managed; /* frames handed to us by free_area_add_range() */

/* Make the block headed by page a free block of the given order. */
static void add_to_free_area(struct page *page, unsigned int order)
{
	SetPageFlag(page, PG_buddy);
	page->private = order;
	list_add(&page->lru, &free_area[order].free_list);
	free_area[order].nr_free++;
}

/* Take the free block headed by page off its free list; it is no longer a free block. */
static void del_from_free_area(struct page *page, unsigned int order)
{
	list_del(&page->lru);
	ClearPageFlag(page, PG_buddy);
	page->private = 0;
	free_area[order].nr_free--;
}

/*
 * Put the block of 2^order frames at pfn on the free lists, first merging it with its buddy
 * (the block it was split from) for as long as that buddy is free as a whole. The buddy of
 * the block at pfn is at pfn ^ 2^order; together they form the block at pfn & ~2^order.
 * A reserved frame or a hole never has PG_buddy, so merging stops at their edges.
 * At most MAX_ORDER - 1 merges.
 */
static void free_one_block(unsigned long pfn, unsigned int order)
{
	while (order < MAX_ORDER - 1) {
		unsigned long buddy_pfn = pfn ^ (1UL << order);
		struct page *buddy;

		if (buddy_pfn >= max_pfn)
			break;
		buddy = pfn_to_page(buddy_pfn);
		/* The buddy may be free but split smaller (private < order): then it must stay. */
		if (!PageBuddy(buddy) || buddy->private != order)
			break;
		del_from_free_area(buddy, order);
		pfn &= ~(1UL << order);
		order++;
	}
	add_to_free_area(pfn_to_page(pfn), order);
}

/*
 * Set up an empty allocator over map, which describes frames [0, nr_pfns). Every frame
 * starts reserved (owned by nobody we know of) until free_area_add_range() hands it over.
 */
void free_area_init(struct page *map, unsigned long nr_pfns)
{
	unsigned long pfn;
	unsigned int order;

	mem_map = map;
	max_pfn = nr_pfns;
	for (pfn = 0; pfn < nr_pfns; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page->flags = 1UL << PG_reserved;
		page->_count = 1;
		page->_mapcount = -1;
		page->private = 0;
		page->mapping = NULL;
		page->index = 0;
		INIT_LIST_HEAD(&page->lru);
	}
	for (order = 0; order < MAX_ORDER; order++) {
		INIT_LIST_HEAD(&free_area[order].free_list);
		free_area[order].nr_free = 0;
	}
	nr_free = 0;
	nr_managed = 0;
}

/*
 * Give the reserved frames [start_pfn, end_pfn) to the allocator, in the biggest naturally
 * aligned blocks that fit, each merged with free neighbours (ranges may come in any order).
 * Frames at or beyond max_pfn are ignored. Handing over a frame twice is a boot bug: panic.
 */
void free_area_add_range(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long pfn = start_pfn;

	if (end_pfn > max_pfn)
		end_pfn = max_pfn;
	while (pfn < end_pfn) {
		unsigned int order = MAX_ORDER - 1;
		unsigned long i;

		/* Order 0 always fits, so this stops. */
		while (!IS_ALIGNED(pfn, 1UL << order) || pfn + (1UL << order) > end_pfn)
			order--;
		for (i = 0; i < (1UL << order); i++) {
			struct page *page = pfn_to_page(pfn + i);

			if (!PageReserved(page))
				panic("free_area_add_range: frame %lu is already managed", pfn + i);
			ClearPageFlag(page, PG_reserved);
			page->_count = 0;
		}
		nr_managed += 1UL << order;
		nr_free += 1UL << order;
		free_one_block(pfn, order);
		pfn += 1UL << order;
	}
}

/*
 * Return the head of a free block of 2^order frames (naturally aligned, _count 1), or NULL
 * when no block that big is left. Takes the smallest free block that is big enough and
 * splits it in halves, giving back the upper half each time (Linux calls this expand()).
 * At most MAX_ORDER list checks and MAX_ORDER - 1 splits.
 */
/* The buddy allocation itself: a block of 2^order frames, unless that would leave fewer than
 * reserve free. *low: the free frames fell below pages_low. Inlined: every fault that
 * allocates a page would pay for the call (docs/bench.md, "Design choices, measured"). */
static inline __attribute__((always_inline)) struct page *rmqueue(unsigned int order,
								   unsigned long reserve,
								   bool *low)
{
	unsigned int cur;
	struct page *page;
	uint64_t flags;

	spin_lock_irqsave(&zone_lock, flags);
	if (nr_free < reserve + (1UL << order)) {
		spin_unlock_irqrestore(&zone_lock, flags);
		*low = true;
		return NULL;
	}
	for (cur = order; cur < MAX_ORDER; cur++)
		if (!list_empty(&free_area[cur].free_list))
			break;
	if (cur == MAX_ORDER) {
		spin_unlock_irqrestore(&zone_lock, flags);
		*low = true;
		return NULL;
	}

	page = list_first_entry(&free_area[cur].free_list, struct page, lru);
	del_from_free_area(page, cur);
	while (cur > order) {
		cur--;
		add_to_free_area(page + (1UL << cur), cur);
	}

	page->_count = 1;
	nr_free -= 1UL << order;
	*low = nr_free < pages_low;
	spin_unlock_irqrestore(&zone_lock, flags);
	return page;
}

/*
 * Return the head of a free block of 2^order frames (naturally aligned, _count 1), or NULL
 * when no block that big is left. Takes the smallest free block that is big enough and
 * splits it in halves, giving back the upper half each time (Linux calls this expand()).
 * At most MAX_ORDER list checks and MAX_ORDER - 1 splits. Below pages_low kswapd is woken;
 * a __GFP_WAIT allocation that would go below pages_min reclaims first (2.6.23's
 * __alloc_pages: kswapd, then try_to_free_pages) and, when reclaim frees nothing more, calls
 * the OOM killer and tries again; it fails only for the task the killer chose.
 */
struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	unsigned long reserve = (gfp & __GFP_WAIT) ? pages_min : 0;
	struct page *page;
	bool low;

	if (order >= MAX_ORDER)
		return NULL;
	page = rmqueue(order, reserve, &low);
	if (unlikely(low))
		wakeup_kswapd();
	while (unlikely(!page) && (gfp & __GFP_WAIT)) {
		if (current->flags & PF_MEMALLOC) {
			/* Reclaim's own allocation (a writepage's buffers): the reserve is for
			 * it, and it must not reclaim again from inside reclaim. */
			page = rmqueue(order, 0, &low);
			break;
		}
		if (!try_to_free_pages(SWAP_CLUSTER_MAX << order, gfp) &&
		    nr_free < reserve + (1UL << order)) {
			/* Nothing left to reclaim: the OOM killer frees a process's memory, and
			 * the allocation tries again, unless this task is the one it chose. */
			if (oom_task_is_victim(current))
				return NULL;
			out_of_memory(gfp, (int)order);
			if (oom_task_is_victim(current))
				return NULL;
		}
		page = rmqueue(order, reserve, &low);
	}
	if (!page)
		return NULL;
	count_vm_events(PGALLOC_NORMAL, 1UL << order);
	if (gfp & __GFP_ZERO)
		for (unsigned long i = 0; i < (1UL << order); i++)
			clear_page(page_address(page + i));
	return page;
}

/*
 * Drop a reference to the block of 2^order frames headed by page; when it was the last one
 * the block goes back on the free lists. The order must be the one it was allocated with.
 * Freeing a frame that is reserved, free already, or still mapped is a bug: panic, naming the
 * frame, before anything changes.
 */
void __free_pages(struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page);
	uint64_t flags;

	/* A pointer below mem_map gives a huge pfn too. */
	if (pfn >= max_pfn)
		panic("__free_pages: %p is not a struct page in mem_map", (void *)page);
	if (PageReserved(page))
		panic("__free_pages: frame %lu is reserved", pfn);
	if (PageBuddy(page) || page->_count <= 0)
		panic("__free_pages: frame %lu is not allocated (double free?)", pfn);
	if (order >= MAX_ORDER || !IS_ALIGNED(pfn, 1UL << order) || pfn + (1UL << order) > max_pfn)
		panic("__free_pages: frame %lu cannot head a block of order %u", pfn, order);
	if (page->_count == 1 && page->_mapcount != -1)
		panic("__free_pages: frame %lu is still mapped by %d PTEs", pfn,
		      page->_mapcount + 1);

	if (__atomic_sub_fetch(&page->_count, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (PageLRU(page))
		lru_cache_del(page);

	/* A block comes back with no state left over from its last user. */
	page->flags = 0;
	page->private = 0;
	page->mapping = NULL;
	page->index = 0;
	count_vm_events(PGFREE, 1UL << order);
	spin_lock_irqsave(&zone_lock, flags);
	nr_free += 1UL << order;
	free_one_block(pfn, order);
	spin_unlock_irqrestore(&zone_lock, flags);
}

unsigned long nr_free_pages(void)
{
	return nr_free;
}

unsigned long nr_managed_pages(void)
{
	return nr_managed;
}

/* Print how many free blocks each order has, for debugging fragmentation. */
void dump_free_areas(void)
{
	unsigned int order;

	printk("free areas: %lu of %lu frames free\n", nr_free, nr_managed);
	for (order = 0; order < MAX_ORDER; order++)
		printk("  order %2u (%5lu KiB): %lu free blocks\n", order,
		       (PAGE_SIZE << order) >> 10, free_area[order].nr_free);
}
