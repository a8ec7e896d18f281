/* Page reclaim, Linux 2.6.23's mm/vmscan.c: the policy (mm/reclaim.h) names victims,
 * shrink_page_list frees what it can (clean page-cache pages dropped, anonymous pages written
 * to swap), kswapd keeps free frames between the watermarks, and an allocation that may sleep
 * reclaims itself below the minimum (direct reclaim). */
#include "kernel/arch/atomic.h"
#include "kernel/bug.h"
#include "kernel/fs/buffer_head.h"
#include "kernel/fs/writeback.h"
#include "kernel/lib/int_sqrt.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/tlbflush.h"
#include "mm/vmstat.h"

unsigned long pages_min, pages_low, pages_high;
static struct task_struct *kswapd_task;
static int nr_reclaimers; /* tasks in shrink_all now, kswapd included */

/*
 * A locked page reclaim keeps goes back to the policy. If it is in the swap cache and no PTE
 * holds its slot: unmapped, it is garbage (its last user exited while reclaim had it locked,
 * so the exit's own look, a trylock, missed it), and it leaves the cache so that our
 * reference, the last, frees it; mapped, it gives its slot back when swap is getting full, as
 * 2.6.23's activate path did (it is dirty again: written next time).
 */
static void keep_page(struct page *page, bool referenced)
{
	if (PageSwapCache(page) && (!page_mapped(page) || vm_swap_full()) &&
	    swap_count((swp_entry_t){ page->private }) == 1) {
		delete_from_swap_cache(page);
		SetPageFlag(page, PG_dirty);
	}
	unlock_page(page);
	putback_lru_page(page, referenced);
}

/*
 * Take each isolated page on page_list out of every PTE, for pageout: the pages that made it
 * stay locked on unmapped, the others go back to the policy. Each is locked here with a
 * trylock (a page someone holds locked is in use). An anonymous page gets a swap slot and the
 * swap cache first. Nothing sleeps here; the TLB flush for the whole batch is the caller's.
 */
static void unmap_page_list(struct list_head *page_list, struct list_head *unmapped)
{
	const struct reclaim_policy *policy = reclaim_policy;
	enum ttu_flags ttu = TTU_BATCH_FLUSH | (policy->check_referenced ? 0 : TTU_IGNORE_ACCESS);

	while (!list_empty(page_list)) {
		struct page *page = list_first_entry(page_list, struct page, lru);
		bool referenced = false;

		list_del(&page->lru);
		if (TestSetPageLocked(page))
			goto keep;
		/* A SHM_LOCKed segment's page stays mapped and in memory (Linux's unevictable
		 * list; 2.6.23's shmem_writepage refused VM_LOCKED ones). */
		if (!PageAnon(page) && page->mapping && mapping_unevictable(page->mapping))
			goto activate_locked;
		if (policy->check_referenced && page_referenced(page, 1) && page_mapped(page))
			goto activate_locked;
		/* Its process unmapped it while it was isolated: ours is the last reference. */
		if (PageAnon(page) && !PageSwapCache(page) && !page_mapped(page) &&
		    page_count(page) == 1)
			goto out;
		if (PageAnon(page) && !PageSwapCache(page) && !add_to_swap(page))
			goto activate_locked; /* swap is full or off */
		if (page_mapped(page)) {
			int ret = try_to_unmap(page, ttu);

			if (ret == SWAP_FAIL)
				goto activate_locked;
			if (ret == SWAP_AGAIN)
				goto keep_locked;
		}
out:
		list_add_tail(&page->lru, unmapped);
		continue;
activate_locked:
		referenced = true;
keep_locked:
		keep_page(page, referenced);
		continue;
keep:
		putback_lru_page(page, referenced);
	}
}

/* Sort by slot (insertion sort: a batch is at most SWAP_CLUSTER_MAX pages, and add_to_swap gave
 * them slots in a row, so it is nearly sorted already). */
static void sort_by_slot(struct page **pages, int n)
{
	for (int i = 1; i < n; i++) {
		struct page *p = pages[i];
		int j = i;

		for (; j > 0 && pages[j - 1]->private > p->private; j--)
			pages[j] = pages[j - 1];
		pages[j] = p;
	}
}

/*
 * Write the dirty swap-cache pages of the list to their slots, a run of consecutive slots in
 * one request (2.6.23 wrote them one by one and let the block layer merge the requests). A page
 * whose write failed stays dirty, with PG_error: it stays in RAM.
 */
static void pageout_list(struct list_head *list)
{
	struct page *out[SWAP_CLUSTER_MAX], *page;
	int n = 0;

	list_for_each_entry(page, list, lru) {
		if (n < SWAP_CLUSTER_MAX && PageDirty(page) && PageSwapCache(page)) {
			ClearPageFlag(page, PG_dirty);
			out[n++] = page;
		}
	}
	sort_by_slot(out, n);
	for (int i = 0, len; i < n; i += len) {
		for (len = 1; i + len < n && len < SWAP_IO_MAX &&
			      out[i + len]->private == out[i]->private + (unsigned long)len;
		     len++)
			;
		if (swap_writepages((swp_entry_t){ out[i]->private }, out + i, len)) {
			for (int k = i; k < i + len; k++) {
				SetPageFlag(out[k], PG_dirty); /* the disk failed: keep it in RAM */
				SetPageFlag(out[k], PG_error);
			}
		} else {
			count_vm_events(PSWPOUT, (unsigned long)len);
		}
	}
}

/* What pageout did with the page. */
enum pageout_result {
	PAGE_CLEAN,	/* written (or clean already), locked again: free it */
	PAGE_KEEP,	/* still dirty (a store came meanwhile, or no block for it), locked */
	PAGE_UNLOCKED,	/* written, but someone holds it locked now: leave it */
};

/*
 * A dirty page of a file that writes back, unmapped: written through its mapping's writepage
 * with for_reclaim (2.6.23's pageout), which unlocks it, then locked again to be freed. Only
 * a reclaim whose allocation may enter a file system (__GFP_FS; kswapd's always) writes a
 * file system's page: an allocation under that file system's lock leaves __GFP_FS out, and its
 * writepage may need the lock. A block device's page is written by any: its writepage takes
 * no lock. The caller holds the BKL.
 */
static enum pageout_result pageout(struct page *page, gfp_t gfp)
{
	struct address_space *mapping = page->mapping;
	struct writeback_control wbc = {
		.sync_mode = WB_SYNC_NONE,
		.nr_to_write = 1,
		.range_end = ~0ULL,
		.for_reclaim = 1,
	};
	int err;

	if (PageAnon(page) || !mapping || !mapping_cap_account_dirty(mapping))
		return PAGE_KEEP; /* a ramfs or tmpfs page: the cache is its only store */
	if (!(gfp & __GFP_FS) && !S_ISBLK(mapping->host->i_mode))
		return PAGE_KEEP;
	if (!clear_page_dirty_for_io(page))
		return PAGE_CLEAN;
	__atomic_add_fetch(&nr_writeback, 1, __ATOMIC_RELAXED);
	err = mapping->a_ops->writepage(page, &wbc); /* unlocks the page */
	__atomic_sub_fetch(&nr_writeback, 1, __ATOMIC_RELAXED);
	if (err)
		mapping_set_error(mapping, err);
	if (TestSetPageLocked(page))
		return PAGE_UNLOCKED;
	return PageDirty(page) || page->mapping != mapping ? PAGE_KEEP : PAGE_CLEAN;
}

/*
 * Free what can be freed of the isolated pages on page_list: unmapped (unmap_page_list, then
 * one flush of every CPU's TLB), the dirty ones written (anonymous: to their slots; a file page
 * through its writepage, by kswapd; a ramfs or tmpfs page has nowhere to go), then out of
 * their cache, and the last reference frees each. A page found in use, or that
 * cannot be freed now, goes back to the policy. Returns the pages freed.
 */
static unsigned long shrink_page_list(struct list_head *page_list, gfp_t gfp)
{
	LIST_HEAD(unmapped);
	unsigned long freed = 0;

	unmap_page_list(page_list, &unmapped);
	if (list_empty(&unmapped))
		return 0;
	flush_tlb_all(); /* no CPU reaches the pages through an old entry any more */
	pageout_list(&unmapped);
	while (!list_empty(&unmapped)) {
		struct page *page = list_first_entry(&unmapped, struct page, lru);
		bool referenced = false;

		list_del(&page->lru);
		if (PageAnon(page) && !PageSwapCache(page))
			goto free_it; /* the isolated page of an exited process (unmap_page_list) */
		/* A written page of a file that writes back: to its store first, its buffers
		 * with it (they are clean after). */
		if (PageDirty(page) && !PageAnon(page) && page->mapping) {
			enum pageout_result r = pageout(page, gfp);

			if (r == PAGE_UNLOCKED) {
				putback_lru_page(page, false);
				continue;
			}
			if (r == PAGE_KEEP)
				goto activate_locked;
		}
		/* Buffers first (they hold a reference): unused and clean, they go, and a page
		 * whose buffers were all written on their own is clean again. */
		if (PagePrivate(page) && !try_to_release_page(page))
			goto activate_locked;
		if (!PageAnon(page) && !page->mapping && page_count(page) == 1)
			goto free_it; /* truncated while a buffer of it was held */
		if (PageDirty(page)) /* a written ramfs or tmpfs page, or a failed write */
			goto activate_locked;
		/* A fault or read() that found the page meanwhile holds a reference: it stays. */
		if (PageSwapCache(page) ? !remove_swap_mapping(page)
					: !page->mapping || !remove_mapping(page->mapping, page))
			goto keep_locked;
free_it:
		unlock_page(page);
		BUG_ON(page_count(page) != 1);
		put_page(page);
		freed++;
		continue;
activate_locked:
		referenced = true;
keep_locked:
		keep_page(page, referenced);
	}
	return freed;
}

/* One batch: the policy's victims, then what shrink_page_list freed of them. *scanned grows by
 * the pages the policy looked at, *looked is their number. */
static unsigned long shrink_zone(bool kswapd, gfp_t gfp, unsigned long *scanned,
				 unsigned long *looked)
{
	LIST_HEAD(victims);
	unsigned long n = 0, freed;

	reclaim_policy->isolate(SWAP_CLUSTER_MAX, &victims, &n);
	*scanned += n;
	*looked = n;
	count_vm_events(kswapd ? PGSCAN_KSWAPD : PGSCAN_DIRECT, n);
	freed = shrink_page_list(&victims, gfp);
	count_vm_events(kswapd ? PGSTEAL_KSWAPD : PGSTEAL_DIRECT, freed);
	return freed;
}

/*
 * Free nr frames, or give up once reclaim has looked at every reclaimable page twice (a page in
 * use gets a second look after its accessed bit was cleared) without freeing enough (then
 * *exhausted). When the lists are empty because another reclaimer holds their pages (kswapd
 * writing them out), wait a tick for it, a few times. The BKL keeps VMAs and anon_vmas alive
 * during the reverse-map walks (mm/rmap.c).
 */
static unsigned long shrink_all(unsigned long nr, bool kswapd, gfp_t gfp, bool *exhausted)
{
	unsigned long freed = 0, scanned = 0, looked;
	int idle = 0;

	*exhausted = false;
	lock_kernel();
	__atomic_add_fetch(&nr_reclaimers, 1, __ATOMIC_RELAXED);
	while (freed < nr) {
		unsigned long limit = 2 * (nr_active + nr_inactive) + SWAP_CLUSTER_MAX;

		freed += shrink_zone(kswapd, gfp, &scanned, &looked);
		if (scanned > limit) {
			*exhausted = true;
			break;
		}
		if (kswapd && nr_free_pages() >= pages_high)
			break;
		if (!looked) {
			if (++idle > 4)
				break;
			current->state = TASK_UNINTERRUPTIBLE;
			schedule_timeout(1);
		} else if (need_resched()) {
			/* The kernel is not preemptive: a long reclaim gives the CPU up between
			 * batches (Linux's cond_resched), or on one CPU kswapd starves the very
			 * task it reclaims for. */
			schedule();
		}
	}
	__atomic_sub_fetch(&nr_reclaimers, 1, __ATOMIC_RELAXED);
	unlock_kernel();
	return freed;
}

void reclaim_settle(void)
{
	for (int ticks = 0; ticks < 5 * HZ && __atomic_load_n(&nr_reclaimers, __ATOMIC_RELAXED);
	     ticks++) {
		current->state = TASK_UNINTERRUPTIBLE;
		schedule_timeout(1);
	}
}

/*
 * Direct reclaim. Exhausted with less than a quarter of nr freed counts as nothing: what a
 * whole pass still finds then are file pages the process faults straight back (its own code,
 * with anonymous memory unable to go: swap full or off), and an allocation that waits for
 * those thrashes for minutes instead of calling the OOM killer (2.6.23 did thrash; today's
 * Linux sees the refaults, workingset.c, and gives up).
 */
unsigned long try_to_free_pages(unsigned long nr, gfp_t gfp)
{
	unsigned long freed;
	bool exhausted;

	count_vm_event(ALLOCSTALL);
	current->flags |= PF_MEMALLOC; /* what writepage allocates comes from the reserve */
	freed = shrink_all(nr, false, gfp, &exhausted);
	current->flags &= ~PF_MEMALLOC;
	return exhausted && freed < nr / 4 ? 0 : freed;
}

void kswapd_wait_started(void)
{
	while (!READ_ONCE(kswapd_task)) {
		current->state = TASK_INTERRUPTIBLE;
		schedule_timeout(1);
	}
}

void wakeup_kswapd(void)
{
	if (kswapd_task && kswapd_task->state != TASK_RUNNING)
		wake_up_process(kswapd_task);
}

/*
 * kswapd: asleep while free frames are at pages_low or more; woken by an allocation below it,
 * it reclaims until pages_high (2.6.23's balance_pgdat), so that allocations seldom have to
 * reclaim themselves. When a whole pass frees nothing it waits a tick before trying again.
 */
static int kswapd(void *arg)
{
	bool exhausted;

	(void)arg;
	current->flags |= PF_MEMALLOC; /* as try_to_free_pages' */
	for (;;) {
		current->state = TASK_INTERRUPTIBLE;
		if (nr_free_pages() >= pages_low) {
			schedule();
			continue;
		}
		current->state = TASK_RUNNING;
		count_vm_event(PAGEOUTRUN);
		/* It holds no lock: it may write any page (GFP_HIGHUSER has __GFP_FS). */
		if (!shrink_all(pages_high - MIN(nr_free_pages(), pages_high), true, GFP_HIGHUSER,
				&exhausted)) {
			current->state = TASK_INTERRUPTIBLE;
			schedule_timeout(1);
		}
	}
	return 0;
}

/*
 * 2.6.23's watermarks (init_per_zone_pages_min): min_free_kbytes = sqrt(16 * RAM in KiB),
 * between 128 KiB and 64 MiB; low and high are 5/4 and 3/2 of it. A 48 MiB machine gets
 * min 221 frames, low 276, high 331.
 */
void kswapd_init(void)
{
	unsigned long kb = nr_managed_pages() << (PAGE_SHIFT - 10);
	unsigned long min_kb = MIN(MAX(int_sqrt(kb * 16), 128UL), 65536UL);

	pages_min = min_kb >> (PAGE_SHIFT - 10);
	pages_low = pages_min + pages_min / 4;
	pages_high = pages_min + pages_min / 2;
	WRITE_ONCE(kswapd_task, kernel_thread(kswapd, NULL, "kswapd0"));
	BUG_ON(!kswapd_task);
	printk("vmscan: watermarks min %lu low %lu high %lu frames, policy %s\n", pages_min,
	       pages_low, pages_high, reclaim_policy->name);
}
