/* The writeback thread (2.6.23's pdflush running wb_kupdate, one thread here) and the dirty
 * limits of mm/page-writeback.c: old dirty inodes written every dirty_writeback_centisecs, and
 * a writer above dirty_ratio of memory writing back itself (balance_dirty_pages). */
#include "kernel/arch/atomic.h"
#include "kernel/fs/writeback.h"
#include "kernel/locking/smp_lock.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/time/time.h"
#include "mm/filemap.h"
#include "mm/gfp.h"

/* /proc/sys/vm's, with 2.6.23's defaults: a pass every 5 s writes what was dirtied 30 s ago or
 * earlier; 0 turns the passes off. A writer stops to write back above 10 % of memory dirty. */
int dirty_writeback_centisecs = 500;
int dirty_expire_centisecs = 3000;
int vm_dirty_ratio = 10;

static struct task_struct *pdflush_task;

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

/* The big kernel lock is the VFS's: held throughout, let go whenever the thread sleeps. */
static int pdflush(void *arg)
{
	(void)arg;
	lock_kernel();
	for (;;) {
		int cs = READ_ONCE(dirty_writeback_centisecs);

		current->state = TASK_INTERRUPTIBLE;
		if (cs)
			schedule_timeout(centisecs_to_jiffies(cs));
		else
			schedule(); /* off: until the tunable is written */
		current->state = TASK_RUNNING;
		if (READ_ONCE(dirty_writeback_centisecs))
			wb_kupdate();
	}
	return 0;
}

void pdflush_set_interval(int centisecs)
{
	WRITE_ONCE(dirty_writeback_centisecs, centisecs);
	if (pdflush_task)
		wake_up_process(pdflush_task); /* sleeps the new interval from now */
}

/*
 * Made when first needed (Linux makes its flushers at boot): a disk file system mounted
 * read-write, or a mapping whose stores write back made. Until then nothing can have pages to
 * write, and the processes of a boot that writes no disk keep the pids they always had (the
 * gdb walkthroughs name them). Task context, with the big kernel lock.
 */
void pdflush_start(void)
{
	if (pdflush_task)
		return;
	pdflush_task = kthread_run(pdflush, NULL, "pdflush");
	if (!pdflush_task)
		printk("pdflush: no thread: dirty pages wait for sync, fsync or msync\n");
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
