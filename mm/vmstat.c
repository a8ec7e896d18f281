/* The event counters /proc/vmstat prints (mm/vmstat.h), and their names there. */
#include "mm/vmstat.h"

unsigned long vm_events[NR_VM_EVENT_ITEMS];

const char *const vm_event_names[NR_VM_EVENT_ITEMS] = {
	[PGALLOC_NORMAL] = "pgalloc_normal",
	[PGFREE] = "pgfree",
	[PGMAJFAULT] = "pgmajfault",
	[FL_FAULT_ANON] = "fl_fault_anon",
	[FL_FAULT_ZERO] = "fl_fault_zero",
	[FL_FAULT_FILE] = "fl_fault_file",
	[FL_FAULT_NOPAGE] = "fl_fault_nopage",
	[FL_FAULT_NONLINEAR] = "fl_fault_nonlinear",
	[FL_FAULT_COW] = "fl_fault_cow",
	[FL_FAULT_SPURIOUS] = "fl_fault_spurious",
};
