/* Event counters since boot, as Linux's vm_event_item (include/linux/vm_event_item.h):
 * /proc/vmstat prints them by name. The fault kinds are faultline's own. */
#ifndef MM_VMSTAT_H
#define MM_VMSTAT_H

enum vm_event_item {
	PGALLOC_NORMAL, /* frames handed out (one zone: all of it counts as Normal) */
	PGFREE,		/* frames given back */
	PGMAJFAULT,	/* faults that needed I/O (read "the disk") */
	PGPGIN,		/* sectors read from disks (/proc/vmstat prints KiB, as Linux) */
	PGPGOUT,	/* sectors written to disks */
	PSWPIN,		/* pages read from swap */
	PSWPOUT,	/* pages written to swap */
	PGACTIVATE,	/* pages moved to the active list (found in use) */
	PGDEACTIVATE,	/* pages moved to the inactive list */
	PGSCAN_KSWAPD,	/* pages reclaim looked at, in kswapd */
	PGSCAN_DIRECT,	/* ... and in an allocating task (direct reclaim) */
	PGSTEAL_KSWAPD, /* pages reclaim freed, in kswapd */
	PGSTEAL_DIRECT, /* ... and in direct reclaim */
	PAGEOUTRUN,	/* kswapd's balancing runs */
	ALLOCSTALL,	/* allocations that waited for direct reclaim */
	/* Each fault handle_pte_fault takes is one of these kinds, so pgfault (every fault a
	 * VMA allowed, the kernel's own through handle_mm_fault too) is their sum: one counter
	 * less on the fault path. */
	FL_FAULT_ANON,	    /* write to an empty anonymous page: a zeroed frame */
	FL_FAULT_ZERO,	    /* read of an empty anonymous page: the zero page */
	FL_FAULT_FILE,	    /* an empty PTE of a VMA with a fault() op: files and devices */
	FL_FAULT_NOPAGE,    /* an empty PTE of a VMA with a legacy nopage() op */
	FL_FAULT_NONLINEAR, /* a file PTE of a nonlinear mapping */
	FL_FAULT_SWAP,	    /* a swap PTE: the page from the swap cache or the disk */
	FL_FAULT_COW,	    /* write to a present read-only page: copy or reuse */
	FL_FAULT_SPURIOUS,  /* present and allowed already (a stale TLB entry, a lost race) */
	FL_FAULT_FIRST = FL_FAULT_ANON,
	FL_FAULT_LAST = FL_FAULT_SPURIOUS,
	/* The truncate race (docs/history.md), counted in race_window_us's window: faults of a
	 * file that a truncate of it overlapped, and those that then held a page truncate had
	 * taken out of the page cache, to map it (an orphan: the race lost, which fault()'s
	 * page lock prevents and nopage() does not). */
	FL_TRUNCATE_OVERLAP,
	FL_ORPHAN_PTE,
	NR_VM_EVENT_ITEMS
};

extern unsigned long vm_events[NR_VM_EVENT_ITEMS];
extern const char *const vm_event_names[NR_VM_EVENT_ITEMS]; /* Linux's names, lower case */

static inline void count_vm_event(enum vm_event_item item)
{
	__atomic_fetch_add(&vm_events[item], 1, __ATOMIC_RELAXED); /* faults on every CPU */
}

static inline void count_vm_events(enum vm_event_item item, unsigned long delta)
{
	__atomic_fetch_add(&vm_events[item], delta, __ATOMIC_RELAXED);
}

#endif
