/* The reclaimable pages' lists, whatever the policy (Linux's mm/swap.c): pages join when they
 * are mapped or cached, leave when freed or when reclaim isolates them, and the reclaim=
 * parameter picks the policy that orders them (mm/reclaim.h). */
#include "kernel/bug.h"
#include "kernel/lib/cmdline.h"
#include "kernel/lib/string.h"
#include "kernel/printk/printk.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"

/* lru_lock (2.6.23's zone->lru_lock): the policy's lists, PG_lru, PG_active, PG_referenced and
 * the counts. Inside every other mm lock but zone_lock. Never taken in an interrupt handler (no
 * handler frees or maps a user page), so interrupts stay on, and no fault pays for saving and
 * restoring the flags (docs/bench.md, "Design choices, measured"). */
DEFINE_SPINLOCK(lru_lock);
const struct reclaim_policy *reclaim_policy = &lru_policy;
unsigned long nr_active, nr_inactive;

void lru_init(void)
{

	static const struct reclaim_policy *const policies[] = { &lru_policy, &clock_policy,
								     &fifo_policy };
	char name[16];

	if (!cmdline_get("reclaim", name, sizeof(name)))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(policies); i++) {
		if (!strcmp(name, policies[i]->name)) {
			reclaim_policy = policies[i];
			printk("reclaim: policy %s\n", name);
			return;
		}
	}
	printk("reclaim: unknown policy '%s' (lru, clock or fifo): using lru\n", name);
}

/*
 * Each new page takes lru_lock. 2.6.23 batched them in per-CPU pagevecs; here that cost more
 * than it saved (docs/bench.md, "Design choices, measured"): the vector's reference on each
 * page, taken and dropped, costs as much as the lock, which is rarely contended.
 */
static void __lru_cache_add(struct page *page, bool active)
{
	spin_lock(&lru_lock);
	BUG_ON(PageLRU(page));
	SetPageFlag(page, PG_lru);
	reclaim_policy->add(page, active);
	spin_unlock(&lru_lock);
}

void lru_cache_add(struct page *page)
{
	__lru_cache_add(page, false);
}

void lru_cache_add_active(struct page *page)
{
	__lru_cache_add(page, true);
}

void mark_page_accessed(struct page *page)
{
	spin_lock(&lru_lock);
	if (PageLRU(page))
		reclaim_policy->accessed(page);
	else /* isolated right now: reclaim's second look sees the bit */
		SetPageFlag(page, PG_referenced);
	spin_unlock(&lru_lock);
}

void lru_cache_del(struct page *page)
{
	spin_lock(&lru_lock);
	if (PageLRU(page)) {
		reclaim_policy->del(page);
		ClearPageFlag(page, PG_lru);
	}
	spin_unlock(&lru_lock);
}

bool isolate_lru_page(struct page *page)
{
	int count = page->_count;

	/* get_page_unless_zero: a page whose count reached 0 is on its way to __free_pages,
	 * which takes it off the lists; a reference now would bring it back to life. */
	do {
		if (count == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&page->_count, &count, count + 1, false,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	ClearPageFlag(page, PG_lru);
	return true;
}

unsigned long isolate_lru_pages(struct list_head *list, unsigned long nr, struct list_head *dst,
				unsigned long *scanned)
{
	unsigned long taken = 0;

	for (unsigned long scan = 0; scan < nr && !list_empty(list); scan++) {
		struct page *page = list_last_entry(list, struct page, lru);

		(*scanned)++;
		reclaim_policy->del(page);
		if (!isolate_lru_page(page)) {
			/* Being freed: __free_pages will find it off the lists (PG_lru clear). */
			ClearPageFlag(page, PG_lru);
			INIT_LIST_HEAD(&page->lru);
			continue;
		}
		list_add_tail(&page->lru, dst);
		taken++;
	}
	return taken;
}

void putback_lru_page(struct page *page, bool referenced)
{
	spin_lock(&lru_lock);
	BUG_ON(PageLRU(page));
	SetPageFlag(page, PG_lru);
	reclaim_policy->putback(page, referenced);
	spin_unlock(&lru_lock);
	put_page(page);
}
