/* /proc/vmstat: "name value" lines with Linux's names. The nr_* lines are counted from the
 * struct pages and page tables when the file is opened; the event counters (mm/vmstat.h) run
 * since boot, faultline's fault kinds (fl_fault_*) among them. faultline has one zone, so
 * every allocation counts as pgalloc_normal; nr_writeback is the pages inside a writepage. */
#include "kernel/fs/proc/internal.h"
#include "kernel/sched/sched.h"
#include "mm/filemap.h"
#include "mm/gfp.h"
#include "mm/memory.h"
#include "mm/mm_types.h"
#include "mm/vmstat.h"

/* The page counts Linux keeps per node, counted here from mem_map. */
struct page_counts {
	unsigned long anon, mapped, slab, page_tables;
};

static void count_pages(struct page_counts *c)
{
	struct list_head *pos;

	for (unsigned long pfn = 0; pfn < max_pfn; pfn++) {
		const struct page *p = pfn_to_page(pfn);

		if (PageFlag(p, PG_reserved) || PageFlag(p, PG_buddy))
			continue;
		if (PageFlag(p, PG_slab))
			c->slab++;
		else if (p->_mapcount >= 0 && PageFlag(p, PG_anon))
			c->anon++;
		else if (p->_mapcount >= 0)
			c->mapped++;
	}
	list_for_each(pos, &all_tasks) {
		const struct task_struct *t = list_entry(pos, struct task_struct, tasks);

		if (t->mm)
			c->page_tables += count_pt_pages(t->mm);
	}
}

static void vmstat_show(struct proc_text *t)
{
	struct page_counts c = { 0 };
	unsigned long faults = 0;

	count_pages(&c);
	proc_printf(t, "nr_free_pages %lu\n", nr_free_pages());
	proc_printf(t, "nr_slab_unreclaimable %lu\n", c.slab);
	proc_printf(t, "nr_anon_pages %lu\n", c.anon);
	proc_printf(t, "nr_mapped %lu\n", c.mapped);
	proc_printf(t, "nr_file_pages %lu\n", nr_pagecache);
	proc_printf(t, "nr_dirty %lu\n", global_dirty_pages());
	proc_printf(t, "nr_writeback %ld\nnr_shmem 0\n", READ_ONCE(nr_writeback));
	proc_printf(t, "nr_page_table_pages %lu\n", c.page_tables);
	proc_printf(t, "pgalloc_dma 0\npgalloc_dma32 0\n");
	for (int k = FL_FAULT_FIRST; k <= FL_FAULT_LAST; k++)
		faults += vm_events[k];
	for (int k = 0; k < NR_VM_EVENT_ITEMS; k++) {
		if (k == PGMAJFAULT)
			proc_printf(t, "pgfault %lu\n", faults);
		proc_printf(t, "%s %lu\n", vm_event_names[k],
			    k == PGPGIN || k == PGPGOUT ? vm_events[k] / 2 : vm_events[k]);
	}
}

const struct proc_entry proc_vmstat = { "vmstat", 2048, vmstat_show, NULL };
