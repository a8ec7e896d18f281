/* The default replacement policy, Linux 2.6.23's two lists: pages in use stay on the active
 * list, the rest age on the inactive list, whose tail gives the victims. shrink_active_list moves
 * pages down when their accessed bits were clear; shrink_page_list moves used victims back up. */
#include "mm/gfp.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/vmstat.h"

/* Both lists have their newest page at the head, so each tail is the page that has gone
 * longest without being added, put back or found in use. */
static LIST_HEAD(active_list);
static LIST_HEAD(inactive_list);

static void add_active(struct page *page)
{
	SetPageFlag(page, PG_active);
	list_add(&page->lru, &active_list);
	nr_active++;
}

static void add_inactive(struct page *page)
{
	list_add(&page->lru, &inactive_list);
	nr_inactive++;
}

static void lru_add(struct page *page, bool active)
{
	if (active)
		add_active(page);
	else
		add_inactive(page);
}

static void lru_del(struct page *page)
{
	list_del(&page->lru);
	if (PageActive(page)) {
		ClearPageFlag(page, PG_active);
		nr_active--;
	} else {
		nr_inactive--;
	}
}

/*
 * 2.6.23's mark_page_accessed: the first use of an inactive page only marks it referenced,
 * the second moves it to the active list; so one sequential read of a big file does not push
 * every page in use out of the active list.
 */
static void lru_accessed(struct page *page)
{
	if (!PageActive(page) && PageFlag(page, PG_referenced)) {
		lru_del(page);
		add_active(page);
		ClearPageFlag(page, PG_referenced);
		count_vm_event(PGACTIVATE);
	} else if (!PageFlag(page, PG_referenced)) {
		SetPageFlag(page, PG_referenced);
	}
}

/*
 * Move up to nr pages from the active list's tail: those mapped with an accessed bit set go back
 * to its head (clearing the bits: they must be used again to stay), the others down to the
 * inactive list. 2.6.23 also spared mapped pages while reclaim was not yet in distress
 * (swappiness); here every page is judged by its bits alone.
 */
static void shrink_active_list(unsigned long nr, unsigned long *scanned)
{
	LIST_HEAD(hold);

	spin_lock(&lru_lock);
	isolate_lru_pages(&active_list, nr, &hold, scanned);
	spin_unlock(&lru_lock);
	while (!list_empty(&hold)) {
		struct page *page = list_first_entry(&hold, struct page, lru);
		bool used = page_mapped(page) && page_referenced(page, 0);

		list_del(&page->lru);
		spin_lock(&lru_lock);
		SetPageFlag(page, PG_lru);
		if (used) {
			add_active(page);
		} else {
			add_inactive(page);
			count_vm_event(PGDEACTIVATE);
		}
		spin_unlock(&lru_lock);
		put_page(page);
	}
}

/* Keep the inactive list at least as long as the active one (2.6.23 balanced them by the
 * scan priority; half and half is the common state it reached), then take the victims from
 * the inactive list's tail. */
static unsigned long lru_isolate(unsigned long nr, struct list_head *victims,
				 unsigned long *scanned)
{
	unsigned long taken;

	if (nr_inactive < nr_active || nr_inactive < nr)
		shrink_active_list(nr, scanned);
	spin_lock(&lru_lock);
	taken = isolate_lru_pages(&inactive_list, nr, victims, scanned);
	spin_unlock(&lru_lock);
	return taken;
}

static void lru_putback(struct page *page, bool referenced)
{
	if (referenced) {
		add_active(page);
		count_vm_event(PGACTIVATE);
	} else {
		add_inactive(page);
	}
}

const struct reclaim_policy lru_policy = {
	.name = "lru",
	.add = lru_add,
	.del = lru_del,
	.accessed = lru_accessed,
	.isolate = lru_isolate,
	.putback = lru_putback,
	.check_referenced = true,
};
