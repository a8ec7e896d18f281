/* /proc/meminfo in Linux's format ("MemTotal:       NNNNNNNN kB"), with what faultline knows:
 * the frames, the free ones, the page cache (the block devices' part as Buffers), the swap
 * cache, the reclaim lists (mm/reclaim.h), the swap areas (mm/swapfile.c), and the dirty pages
 * of files that write back and those being written (mm/page-writeback.c), and overcommit
 * accounting's CommitLimit and Committed_AS (mm/mman.h). MemAvailable
 * is MemFree: no estimate of what reclaim could free is made. */
#include "kernel/fs/fs.h"
#include "kernel/fs/proc/internal.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/mman.h"
#include "mm/reclaim.h"
#include "mm/swap.h"

static void show_kb(struct proc_text *t, const char *label, unsigned long pages)
{
	proc_printf(t, "%-16s%8lu kB\n", label, pages << (PAGE_SHIFT - 10));
}

static void meminfo_show(struct proc_text *t)
{
	unsigned long free = nr_free_pages(), swap_total, swap_free;
	unsigned long buffers = nr_blockdev_pages(); /* the block devices' caches, Linux's */

	si_swapinfo(&swap_total, &swap_free);

	show_kb(t, "MemTotal:", nr_managed_pages());
	show_kb(t, "MemFree:", free);
	show_kb(t, "MemAvailable:", free);
	show_kb(t, "Buffers:", buffers);
	show_kb(t, "Cached:", nr_pagecache - MIN(buffers, nr_pagecache));
	show_kb(t, "SwapCached:", total_swapcache_pages);
	show_kb(t, "Active:", nr_active);
	show_kb(t, "Inactive:", nr_inactive);
	show_kb(t, "SwapTotal:", swap_total);
	show_kb(t, "SwapFree:", swap_free);
	show_kb(t, "Dirty:", global_dirty_pages());
	show_kb(t, "Writeback:", (unsigned long)READ_ONCE(nr_writeback));
	show_kb(t, "Shmem:", 0);
	show_kb(t, "CommitLimit:", vm_commit_limit());
	show_kb(t, "Committed_AS:", vm_memory_committed());
}

const struct proc_entry proc_meminfo = { "meminfo", 512, meminfo_show, NULL };
