/* The reclaimable pages' lists, whatever the policy (Linux's mm/swap.c): pages join when they
 * are mapped or cached, leave when freed or when reclaim isolates them, and the reclaim=
 * parameter picks the policy that orders them (mm/reclaim.h). */
#include "kernel/bug.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"

/* lru_lock (2.6.23's zone->lru_lock): the policy's lists, PG_lru, PG_active, PG_referenced and
 * the counts. Taken with interrupts off, inside every other mm lock but zone_lock. */
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

static void __lru_cache_add(struct page *page, bool active)
{
	uint64_t flags;

	spin_lock_irqsave(&lru_lock, flags);
	BUG_ON(PageLRU(page));
	SetPageFlag(page, PG_lru);
	reclaim_policy->add(page, active);
	spin_unlock_irqrestore(&lru_lock, flags);
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
	uint64_t flags;

	spin_lock_irqsave(&lru_lock, flags);
	if (PageLRU(page))
		reclaim_policy->accessed(page);
	else /* isolated right now: reclaim's second look sees the bit */
		SetPageFlag(page, PG_referenced);
	spin_unlock_irqrestore(&lru_lock, flags);
}

void lru_cache_del(struct page *page)
{
	uint64_t flags;

	spin_lock_irqsave(&lru_lock, flags);
	if (PageLRU(page)) {
		reclaim_policy->del(page);
		ClearPageFlag(page, PG_lru);
	}
	spin_unlock_irqrestore(&lru_lock, flags);
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

void putback_lru_page(struct page *page, bool referenced)
{
	uint64_t flags;

	spin_lock_irqsave(&lru_lock, flags);
	BUG_ON(PageLRU(page));
	SetPageFlag(page, PG_lru);
	reclaim_policy->putback(page, referenced);
	spin_unlock_irqrestore(&lru_lock, flags);
	put_page(page);
}
