/* Page reclaim (mm/vmscan.c) and the replacement policy it asks which pages to try, chosen at
 * boot with reclaim=lru|clock|fifo (mm/lru.c). Names are 2.6.23's (include/linux/swap.h):
 * lru_cache_add, mark_page_accessed, try_to_free_pages, kswapd. */
#ifndef MM_RECLAIM_H
#define MM_RECLAIM_H

#include "kernel/lib/list.h"
#include "kernel/locking/spinlock.h"
#include "mm/gfp.h"
#include "mm/page.h"

/*
 * A replacement policy: the lists of reclaimable pages (anonymous pages and page-cache pages,
 * each with PG_lru while on them, linked by page->lru) and the choice of victims. One file
 * each: reclaim_lru.c (2.6.23's active and inactive lists, the default), reclaim_clock.c,
 * reclaim_fifo.c. add, del, accessed and putback run under lru_lock; isolate takes it itself.
 */
struct reclaim_policy {
	const char *name;
	/* page becomes reclaimable. active: just mapped by a fault (2.6.23's
	 * lru_cache_add_active), else just read into the page cache. */
	void (*add)(struct page *page, bool active);
	/* page leaves the lists (freed); PG_lru is cleared by the caller. */
	void (*del)(struct page *page);
	/* read() or write() used page (mark_page_accessed): faults leave the accessed bit in
	 * the PTE instead, which page_referenced reads. */
	void (*accessed)(struct page *page);
	/*
	 * Choose up to nr pages to try to free and move them onto victims: each taken off the
	 * lists with isolate_lru_page (PG_lru clear, a reference held). *scanned: how many pages
	 * it looked at, those it kept (aged, given a second chance) included: reclaim gives up
	 * once it has looked at every page twice, and waits for other reclaimers when a round
	 * looks at none. Called from reclaim with the BKL held, without lru_lock: it may call
	 * page_referenced. Returns how many it isolated.
	 */
	unsigned long (*isolate)(unsigned long nr, struct list_head *victims,
				 unsigned long *scanned);
	/* An isolated page that was not freed comes back. referenced: it was found in use, or
	 * cannot be freed at all now (locked by mlock, dirty with nowhere to write it). */
	void (*putback)(struct page *page, bool referenced);
	/* shrink_page_list tests page_referenced and keeps a used page (LRU: its inactive list
	 * gives victims by position alone). Clock tests the bit as its hand passes; FIFO never. */
	bool check_referenced;
};

extern const struct reclaim_policy lru_policy, clock_policy, fifo_policy;
extern const struct reclaim_policy *reclaim_policy; /* the one in use */
extern spinlock_t lru_lock;
extern unsigned long nr_active, nr_inactive; /* Active and Inactive in /proc/meminfo */

/* mm/lru.c (Linux's mm/swap.c). A new page-cache page joins the lists inactive, a page a
 * fault maps active; both take lru_lock. */
void lru_cache_add(struct page *page);
void lru_cache_add_active(struct page *page);
/* read() or write() used a page-cache page. */
void mark_page_accessed(struct page *page);
/* __free_pages: a page whose last reference went leaves the lists. */
void lru_cache_del(struct page *page);
/* Under lru_lock: take page off the lists with a reference for reclaim (the policy unlinks it
 * from its own list first). False when it is being freed (its count is 0): leave it alone. */
bool isolate_lru_page(struct page *page);
/* Under lru_lock: up to nr pages from the tail of list (one of the policy's lists, its next
 * victim last) onto dst's tail in that order, each taken off with the policy's del and
 * isolate_lru_page; *scanned counts the pages looked at. How many were taken. */
unsigned long isolate_lru_pages(struct list_head *list, unsigned long nr, struct list_head *dst,
				unsigned long *scanned);
/* Give back a page isolate_lru_page took (policy->putback), and the reference. */
void putback_lru_page(struct page *page, bool referenced);
/* The reclaim= parameter. */
void lru_init(void);

/* mm/vmscan.c. The free-frame watermarks, 2.6.23's pages_min/low/high: below low kswapd is
 * woken until high is reached; an allocation that may sleep (__GFP_WAIT) below min reclaims
 * first itself. */
extern unsigned long pages_min, pages_low, pages_high;
/* Free at least nr frames from the caller's context (direct reclaim; task context, no
 * spinlock held) for an allocation with gfp (without __GFP_FS no file system's page is
 * written): the number freed. */
unsigned long try_to_free_pages(unsigned long nr, gfp_t gfp);
/* Wait (up to 5 s) until no reclaim is under way: the pages it has isolated from a process
 * that just exited are freed by then (the runner's frame counts after each program). */
void reclaim_settle(void);
/* The allocator fell below pages_low. */
void wakeup_kswapd(void);
void kswapd_init(void);
/* Sleep until kswapd_init has made the thread (pid 1, which kmain makes first). */
void kswapd_wait_started(void);

#endif
