/* The FIFO replacement policy (reclaim=fifo, docs/reclaim-lab.md): one queue in the order pages
 * were added, victims taken oldest first whether or not they are in use. The textbook baseline
 * the other policies are measured against, and the one that shows Belady's anomaly. */
#include "mm/gfp.h"
#include "mm/reclaim.h"

/* Newest page at the head, oldest at the tail. Every page counts as inactive: FIFO has one
 * list, and kcheck holds nr_active + nr_inactive to the pages marked PG_lru. */
static LIST_HEAD(fifo_list);

static void fifo_add(struct page *page, bool active)
{
	(void)active; /* a page just faulted in and one just read queue up alike */
	list_add(&page->lru, &fifo_list);
	nr_inactive++;
}

static void fifo_del(struct page *page)
{
	list_del(&page->lru);
	nr_inactive--;
}

/* FIFO never asks whether a page is used: read() and write() change nothing. */
static void fifo_accessed(struct page *page)
{
	(void)page;
}

/* The nr oldest pages, oldest first (from the tail of the list). */
static unsigned long fifo_isolate(unsigned long nr, struct list_head *victims,
				  unsigned long *scanned)
{
	unsigned long taken;

	spin_lock(&lru_lock);
	taken = isolate_lru_pages(&fifo_list, nr, victims, scanned);
	spin_unlock(&lru_lock);
	return taken;
}

/*
 * A victim that could not be freed (mlocked, no swap slot, locked by someone) joins the queue
 * again as the newest page, as if loaded anew. Where it was it would be the next victim
 * again: a few mlocked pages there would take every batch, and reclaim would find nothing to
 * free.
 */
static void fifo_putback(struct page *page, bool referenced)
{
	(void)referenced;
	fifo_add(page, false);
}

const struct reclaim_policy fifo_policy = {
	.name = "fifo",
	.add = fifo_add,
	.del = fifo_del,
	.accessed = fifo_accessed,
	.isolate = fifo_isolate,
	.putback = fifo_putback,
	.check_referenced = false,
};
