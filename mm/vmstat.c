/* The event counters /proc/vmstat prints (mm/vmstat.h), and their names there. */
#include "mm/vmstat.h"

unsigned long vm_events[NR_VM_EVENT_ITEMS];

const char *const vm_event_names[NR_VM_EVENT_ITEMS] = {
	[PGALLOC_NORMAL] = "pgalloc_normal",
	[PGFREE] = "pgfree",
	[PGMAJFAULT] = "pgmajfault",
	[PGPGIN] = "pgpgin",
	[PGPGOUT] = "pgpgout",
	[PSWPIN] = "pswpin",
	[PSWPOUT] = "pswpout",
	[PGACTIVATE] = "pgactivate",
	[PGDEACTIVATE] = "pgdeactivate",
	[PGSCAN_KSWAPD] = "pgscan_kswapd",
	[PGSCAN_DIRECT] = "pgscan_direct",
	[PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[PGSTEAL_DIRECT] = "pgsteal_direct",
	[PAGEOUTRUN] = "pageoutrun",
	[ALLOCSTALL] = "allocstall",
	[FL_FAULT_ANON] = "fl_fault_anon",
	[FL_FAULT_ZERO] = "fl_fault_zero",
	[FL_FAULT_FILE] = "fl_fault_file",
	[FL_FAULT_NOPAGE] = "fl_fault_nopage",
	[FL_FAULT_NONLINEAR] = "fl_fault_nonlinear",
	[FL_FAULT_SWAP] = "fl_fault_swap",
	[FL_FAULT_COW] = "fl_fault_cow",
	[FL_FAULT_SPURIOUS] = "fl_fault_spurious",
	[FL_TRUNCATE_OVERLAP] = "fl_truncate_overlap",
	[FL_ORPHAN_PTE] = "fl_orphan_pte",
};
