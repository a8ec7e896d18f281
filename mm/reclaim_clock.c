/* The clock (second-chance) replacement policy (reclaim=clock, docs/reclaim-lab.md): the pages on
 * one circular list and a hand going round it; a page whose referenced bits the hand finds set
 * loses them and stays, the first one found with them clear is the victim. */
#include "kernel/arch/atomic.h"
#include "kernel/compiler.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"
#include "mm/reclaim_clock.h"
#include "mm/rmap.h"

/*
 * The ring: pages in the order the hand reaches them, from clock_hand on round to just before
 * it. clock_ring is the list's head, not a page: the hand steps over it. clock_hand is the lru
 * link of the page the hand looks at next (or clock_ring: the ring's first page is next). A page
 * joins just behind the hand, so it is the last the hand reaches. Every page counts as
 * inactive: one list, and kcheck holds nr_active + nr_inactive to the pages marked PG_lru.
 * All of it under lru_lock.
 */
static LIST_HEAD(clock_ring);
static struct list_head *clock_hand = &clock_ring;

static void clock_add(struct page *page, bool active)
{
	(void)active; /* a faulted page's PTE has its accessed bit set: that is its use */
	list_add_tail(&page->lru, clock_hand);
	nr_inactive++;
}

static void clock_del(struct page *page)
{
	if (clock_hand == &page->lru)
		clock_hand = page->lru.next;
	list_del(&page->lru);
	nr_inactive--;
}

/* read() or write() used it: the hand will see PG_referenced (page_referenced tests it). */
static void clock_accessed(struct page *page)
{
	SetPageFlag(page, PG_referenced);
}

struct page *clock_take(void)
{
	struct page *page = NULL;

	spin_lock(&lru_lock);
	while (!list_empty(&clock_ring)) {
		if (clock_hand == &clock_ring)
			clock_hand = clock_ring.next;
		page = list_entry(clock_hand, struct page, lru);
		clock_del(page); /* (moves the hand on) */
		if (isolate_lru_page(page))
			break;
		/* Being freed: __free_pages will find it off the ring (PG_lru clear). */
		ClearPageFlag(page, PG_lru);
		INIT_LIST_HEAD(&page->lru);
		page = NULL;
	}
	spin_unlock(&lru_lock);
	return page;
}

void clock_keep(struct page *page)
{

	spin_lock(&lru_lock);
	SetPageFlag(page, PG_lru);
	clock_add(page, false);
	spin_unlock(&lru_lock);
	put_page(page);
}

/*
 * The hand's sweep for one victim; the lab clock (docs/reclaim-lab.md) writes it again in
 * mm/exercises/clock.c, whose definition replaces this weak one.
 *
 * Contract: look at up to max pages, one at a time from the hand on: clock_take() gives the page
 * under the hand (isolated, with a reference; the hand moves past it), NULL when the ring is
 * empty. Add 1 to *scanned for each page taken. Test and clear the page's referenced bits,
 * page_referenced(page, 0): the accessed bits of the PTEs that map it, and PG_referenced
 * (read() or write() used it). If any was set, the page was used since the hand last passed:
 * its second chance, clock_keep(page), puts it back behind the hand with its bits now clear.
 * The first page whose bits were all clear is the victim: return it as clock_take gave it.
 * NULL when the ring ran out or all max pages were in use. Called with the BKL, without
 * lru_lock (page_referenced takes the page-table and anon_vma locks, which nest outside it).
 */
__weak struct page *clock_advance_hand(unsigned long max, unsigned long *scanned)
{
	struct page *page;

	for (; max > 0 && (page = clock_take()); max--) {
		(*scanned)++;
		if (!page_referenced(page, 0))
			return page;
		clock_keep(page);
	}
	return NULL;
}

/*
 * Up to nr victims, one sweep each. Two turns of the hand find a victim if there is one (the
 * first clears every bit), so that bounds the whole batch's steps. nr_inactive is read without
 * the lock: only the bound depends on it.
 */
static unsigned long clock_isolate(unsigned long nr, struct list_head *victims,
				   unsigned long *scanned)
{
	unsigned long budget = 2 * READ_ONCE(nr_inactive) + nr, looked = 0, taken = 0;

	while (taken < nr && looked < budget) {
		struct page *page = clock_advance_hand(budget - looked, &looked);

		if (!page)
			break;
		list_add_tail(&page->lru, victims);
		taken++;
	}
	*scanned += looked;
	return taken;
}

/* A victim that was not freed goes back behind the hand; if it was found in use or cannot go
 * now (mlocked, no swap), with PG_referenced set: the hand passes it once more before trying
 * it again. */
static void clock_putback(struct page *page, bool referenced)
{
	if (referenced)
		SetPageFlag(page, PG_referenced);
	clock_add(page, false);
}

const struct reclaim_policy clock_policy = {
	.name = "clock",
	.add = clock_add,
	.del = clock_del,
	.accessed = clock_accessed,
	.isolate = clock_isolate,
	.putback = clock_putback,
	/* The hand has tested the bits: shrink_page_list and try_to_unmap need not look again. */
	.check_referenced = false,
};
