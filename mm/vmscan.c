/* Page reclaim, Linux 2.6.23's mm/vmscan.c: the policy (mm/reclaim.h) names victims,
 * shrink_page_list frees what it can (clean page-cache pages dropped, anonymous pages written
 * to swap), kswapd keeps free frames between the watermarks, and an allocation that may sleep
 * reclaims itself below the minimum (direct reclaim). */
#include "kernel/bug.h"
#include "kernel/printk.h"
#include "kernel/sched.h"
#include "kernel/smp_lock.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "mm/vmstat.h"

unsigned long pages_min, pages_low, pages_high;
static struct task_struct *kswapd_task;

/*
 * Try to free each isolated page on page_list (each locked here with a trylock: a page someone
 * holds locked is in use). An anonymous page gets a swap slot and the swap cache first, then
 * every PTE loses the page (try_to_unmap), then a dirty page is written (anonymous: to its
 * slot; a file page written since it was read has nowhere to go, as nothing is written back
 * to the ramdisk), then the page leaves its cache and the last reference frees it. A page
 * found in use, or that cannot be freed now, goes back to the policy. Returns the pages freed.
 */
static unsigned long shrink_page_list(struct list_head *page_list)
{
	const struct reclaim_policy *policy = reclaim_policy;
	enum ttu_flags ttu = policy->check_referenced ? 0 : TTU_IGNORE_ACCESS;
	unsigned long freed = 0;

	while (!list_empty(page_list)) {
		struct page *page = list_first_entry(page_list, struct page, lru);
		bool referenced = false;

		list_del(&page->lru);
		if (TestSetPageLocked(page))
			goto keep;
		if (policy->check_referenced && page_referenced(page, 1) && page_mapped(page))
			goto activate_locked;
		/* Its process unmapped it while it was isolated: ours is the last reference. */
		if (PageAnon(page) && !PageSwapCache(page) && !page_mapped(page) &&
		    page_count(page) == 1)
			goto free_it;
		if (PageAnon(page) && !PageSwapCache(page) && !add_to_swap(page))
			goto activate_locked; /* swap is full or off */
		if (page_mapped(page)) {
			int ret = try_to_unmap(page, ttu);

			if (ret == SWAP_FAIL)
				goto activate_locked;
			if (ret == SWAP_AGAIN)
				goto keep_locked;
		}
		if (PageDirty(page)) {
			if (!PageSwapCache(page))
				goto activate_locked;
			ClearPageFlag(page, PG_dirty);
			if (swap_writepage((swp_entry_t){ page->private }, page)) {
				SetPageFlag(page, PG_dirty); /* the disk failed: keep it in RAM */
				SetPageFlag(page, PG_error);
				goto activate_locked;
			}
			count_vm_event(PSWPOUT);
		}
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
		unlock_page(page);
keep:
		putback_lru_page(page, referenced);
	}
	return freed;
}

/* One batch: the policy's victims, then what shrink_page_list freed of them. */
static unsigned long shrink_zone(bool kswapd, unsigned long *scanned)
{
	LIST_HEAD(victims);
	unsigned long n = 0, freed;

	reclaim_policy->isolate(SWAP_CLUSTER_MAX, &victims, &n);
	*scanned += n;
	count_vm_events(kswapd ? PGSCAN_KSWAPD : PGSCAN_DIRECT, n);
	freed = shrink_page_list(&victims);
	count_vm_events(kswapd ? PGSTEAL_KSWAPD : PGSTEAL_DIRECT, freed);
	return freed;
}

/*
 * Free nr frames, or give up once reclaim has looked at every reclaimable page twice (a page in
 * use gets a second look after its accessed bit was cleared) without freeing enough: then
 * nothing more can go, and the caller is out of memory. The BKL keeps VMAs and anon_vmas
 * alive during the reverse-map walks (mm/rmap.c).
 */
static unsigned long shrink_all(unsigned long nr, bool kswapd)
{
	unsigned long freed = 0, scanned = 0;

	lock_kernel();
	while (freed < nr) {
		unsigned long limit = 2 * (nr_active + nr_inactive) + SWAP_CLUSTER_MAX;
		unsigned long got = shrink_zone(kswapd, &scanned);

		freed += got;
		if (scanned > limit)
			break;
		if (kswapd && nr_free_pages() >= pages_high)
			break;
	}
	unlock_kernel();
	return freed;
}

unsigned long try_to_free_pages(unsigned long nr)
{
	count_vm_event(ALLOCSTALL);
	return shrink_all(nr, false);
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
	(void)arg;
	for (;;) {
		current->state = TASK_INTERRUPTIBLE;
		if (nr_free_pages() >= pages_low) {
			schedule();
			continue;
		}
		current->state = TASK_RUNNING;
		count_vm_event(PAGEOUTRUN);
		if (!shrink_all(pages_high - MIN(nr_free_pages(), pages_high), true)) {
			current->state = TASK_INTERRUPTIBLE;
			schedule_timeout(1);
		}
	}
	return 0;
}

static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
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
	kswapd_task = kernel_thread(kswapd, NULL, "kswapd0");
	BUG_ON(!kswapd_task);
	printk("vmscan: watermarks min %lu low %lu high %lu frames, policy %s\n", pages_min,
	       pages_low, pages_high, reclaim_policy->name);
}
