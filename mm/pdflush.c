/* Periodic writeback (2.6.23's wb_timer handing wb_kupdate to a pdflush thread; here the
 * kernel's events thread runs it) and the dirty limits of mm/page-writeback.c: old dirty
 * inodes written every dirty_writeback_centisecs, and a writer above dirty_ratio of memory
 * writing back itself (balance_dirty_pages). */
#include "kernel/arch/atomic.h"
#include "kernel/fs/writeback.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "kernel/workqueue.h"
#include "mm/filemap.h"
#include "mm/gfp.h"

/* /proc/sys/vm's, with 2.6.23's defaults: a pass every 5 s writes what was dirtied 30 s ago or
 * earlier; 0 turns the passes off. A writer stops to write back above 10 % of memory dirty. */
int dirty_writeback_centisecs = 500;
int dirty_expire_centisecs = 3000;
int vm_dirty_ratio = 10;

static bool wb_armed;   /* wb_timer_start was called: a pass may have something to write */
static uint64_t wb_next; /* jiffies of the next pass */

static uint64_t centisecs_to_jiffies(int cs)
{
	return ((uint64_t)cs * HZ + 99) / 100;
}

/* What was dirtied dirty_expire_centisecs ago or before goes to its store (2.6.23's
 * wb_kupdate; sync_supers' write_super is left to sync and umount). */
static void wb_kupdate(void)
{
	uint64_t expire = centisecs_to_jiffies(dirty_expire_centisecs);

	writeback_inodes_older(jiffies - MIN(expire, jiffies));
}

/* A pass, on the events thread (which holds the big kernel lock the VFS needs). */
static void wb_kupdate_work(struct work_struct *work)
{
	(void)work;
	if (READ_ONCE(dirty_writeback_centisecs))
		wb_kupdate();
}

static DECLARE_WORK(wb_work, wb_kupdate_work);

static void wb_timer_set(int centisecs)
{
	WRITE_ONCE(wb_next, jiffies + centisecs_to_jiffies(centisecs));
}

/*
 * Each tick (2.6.23's wb_timer, which fired every dirty_writeback_centisecs): when the interval
 * is over, a pass is queued for the events thread; the next one counts from now. A pass still
 * running is not queued twice (schedule_work). Interrupt context: one comparison when nothing
 * is due.
 */
void wb_timer_tick(void)
{
	int cs;

	if (!READ_ONCE(wb_armed) || jiffies < READ_ONCE(wb_next))
		return;
	cs = READ_ONCE(dirty_writeback_centisecs);
	if (!cs) {
		WRITE_ONCE(wb_next, ~0ULL); /* off until the tunable is written */
		return;
	}
	wb_timer_set(cs);
	schedule_work(&wb_work);
}

void pdflush_set_interval(int centisecs)
{
	WRITE_ONCE(dirty_writeback_centisecs, centisecs);
	if (centisecs)
		wb_timer_set(centisecs);
	else
		WRITE_ONCE(wb_next, ~0ULL);
}

/*
 * Armed when first needed (a disk file system mounted read-write, a mapping whose stores write
 * back made): until then nothing can have pages to write, and no pass runs. (2.6.23 armed its
 * timer at boot.)
 */
void wb_timer_start(void)
{
	if (READ_ONCE(wb_armed))
		return;
	wb_timer_set(READ_ONCE(dirty_writeback_centisecs));
	WRITE_ONCE(wb_armed, true);
}

/*
 * Above the limit a writer writes a chunk of its own file's dirty pages, without waiting for
 * busy ones, until the dirty and in-flight pages are below it or nothing more can be written
 * (2.6.23 wrote chunks of any file). The limit is vm_dirty_ratio percent of the free pages
 * and the page cache (2.6.23's dirtyable memory).
 */
#define WRITE_CHUNK 48 /* pages a writer writes back per look (2.6.23's 1.5 ratelimits) */

static void balance_dirty_pages(struct address_space *mapping)
{
	for (int pass = 0; pass < 64; pass++) {
		unsigned long thresh = (nr_free_pages() + nr_pagecache) * (unsigned long)
				       READ_ONCE(vm_dirty_ratio) / 100;
		struct writeback_control wbc = {
			.sync_mode = WB_SYNC_NONE,
			.nr_to_write = WRITE_CHUNK,
			.range_end = ~0ULL,
		};

		if (global_dirty_pages() + (unsigned long)READ_ONCE(nr_writeback) <= thresh)
			return;
		do_writepages(mapping, &wbc);
		if (wbc.nr_to_write == WRITE_CHUNK)
			return; /* nothing of this file left to write */
	}
}

/* Counting the dirty pages walks mem_map: a writer looks once per RATELIMIT pages it dirtied
 * (2.6.23's ratelimit_pages, at most 4 MiB of pages between two looks). */
#define RATELIMIT 1024

void balance_dirty_pages_ratelimited(struct address_space *mapping)
{
	static unsigned long dirtied;

	if (++dirtied % RATELIMIT == 0)
		balance_dirty_pages(mapping);
}
