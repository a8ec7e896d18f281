/* The reclaimable pages' lists, whatever the policy (Linux's mm/swap.c): pages join when they
 * are mapped or cached, leave when freed or when reclaim isolates them, and the reclaim=
 * parameter picks the policy that orders them (mm/reclaim.h). */
#include "kernel/bug.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"

/* lru_lock (2.6.23's zone->lru_lock): the policy's lists, PG_lru, PG_active, PG_referenced and
 * the counts. Taken with interrupts off, inside every other mm lock but zone_lock. */
DEFINE_SPINLOCK(lru_lock);
const struct reclaim_policy *reclaim_policy = &lru_policy;
unsigned long nr_active, nr_inactive;

/*
 * Pages join the lists a batch at a time, from a per-CPU pagevec (2.6.23's lru_add_pvecs): a
 * fault adds its page to its CPU's vector, and only a full vector takes lru_lock, once for
 * PAGEVEC_SIZE pages (make bench: taking lru_lock for each new anonymous page cost a zero-fill
 * fault ~35 guest instructions). A page waiting in a vector holds a reference, so it cannot be
 * freed meanwhile; reclaim drains its CPU's vectors first, and lru_add_drain_all all of them.
 * Each CPU's vectors have a lock, taken by that CPU (no interrupt adds pages) and by a drain
 * from another CPU.
 */
#define PAGEVEC_SIZE 14

struct lru_pagevecs {
	spinlock_t lock;
	unsigned int nr[2];		      /* [0] inactive, [1] active */
	struct page *pages[2][PAGEVEC_SIZE];
};

static struct lru_pagevecs lru_pvecs[NR_CPUS];

void lru_init(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		spin_lock_init(&lru_pvecs[cpu].lock);

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

/* Put the pages of one vector on the lists under lru_lock, then drop the vector's references
 * (which may free a page that was unmapped meanwhile: __free_pages takes it off again). */
static void pagevec_lru_add(struct lru_pagevecs *pv, int active)
{
	unsigned int n = pv->nr[active];
	uint64_t flags;

	spin_lock_irqsave(&lru_lock, flags);
	for (unsigned int i = 0; i < n; i++) {
		struct page *page = pv->pages[active][i];

		BUG_ON(PageLRU(page));
		SetPageFlag(page, PG_lru);
		reclaim_policy->add(page, active);
	}
	spin_unlock_irqrestore(&lru_lock, flags);
	pv->nr[active] = 0;
	for (unsigned int i = 0; i < n; i++)
		put_page(pv->pages[active][i]);
}

static void __lru_cache_add(struct page *page, int active)
{
	struct lru_pagevecs *pv = &lru_pvecs[smp_processor_id()];

	get_page(page);
	spin_lock(&pv->lock);
	pv->pages[active][pv->nr[active]++] = page;
	if (pv->nr[active] == PAGEVEC_SIZE)
		pagevec_lru_add(pv, active);
	spin_unlock(&pv->lock);
}

void lru_cache_add(struct page *page)
{
	__lru_cache_add(page, 0);
}

void lru_cache_add_active(struct page *page)
{
	__lru_cache_add(page, 1);
}

static void drain_cpu_pagevecs(int cpu)
{
	struct lru_pagevecs *pv = &lru_pvecs[cpu];

	spin_lock(&pv->lock);
	for (int active = 0; active < 2; active++)
		if (pv->nr[active])
			pagevec_lru_add(pv, active);
	spin_unlock(&pv->lock);
}

void lru_add_drain(void)
{
	drain_cpu_pagevecs(smp_processor_id());
}

void lru_add_drain_all(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		drain_cpu_pagevecs(cpu);
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
