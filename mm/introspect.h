/* What a process can learn about its own memory without a debugger (mm/introspect.c). */
#ifndef MM_INTROSPECT_H
#define MM_INTROSPECT_H

#include "kernel/compiler.h"

struct mm_struct;
struct file;

#define FL_PAGE 0         /* the state of the page at addr: struct fl_page */
#define FL_MM 1           /* the caller's address space: struct fl_mm */
#define FL_CHECK 2        /* walk every process's page tables: struct fl_check */
#define FL_FAULTS 3       /* the caller's faults since a sequence number: struct fl_faults */

struct fl_page {
	uint64_t present, writable, user, nx, dirty, accessed, pfn;
	uint64_t count, mapcount; /* the frame's references and PTEs mapping it */
	uint64_t anon, zero, file; /* what kind of page */
	uint64_t in_vma, vm_flags; /* whether a VMA covers addr, and its flags */
};

struct fl_mm {
	uint64_t rss, nr_vmas, free_frames, pt_pages, min_flt, maj_flt;
};

/* The self-check of every PTE in every process: a PTE to a file page must point at a page
 * still in the page cache (the truncate race fault() closed leaves orphans otherwise).
 * past_eof: faults since boot whose fault() op returned a locked page past the end of its
 * file (nr_fault_past_eof), which its i_size check under the page lock must prevent. */
struct fl_check {
	uint64_t ptes, file_ptes, orphans, bad_counts, past_eof;
};

/* FL_FAULTS: the caller's own records of the fault ring (mm/fault.h) whose seq is above addr,
 * oldest first: what a program needs to narrate the faults one of its steps caused. lost
 * counts the records of that window (any process's) already overwritten in the ring. */
#define FL_FAULTS_MAX 64 /* FAULT_RING_SIZE */
struct fl_fault {
	uint64_t seq, pid, address, pgoff, error; /* error: the #PF error code (PF_* bits) */
	uint64_t vm_start, vm_end;		  /* the VMA, 0-0 if none covered the address */
	int64_t result;				  /* VM_FAULT_* bits, -1 for a bad access */
	char op[16];				  /* the VMA's op: anon, file, device, none */
};

struct fl_faults {
	uint64_t next;	/* records ever written: the seq of the newest */
	uint64_t lost;	/* records after addr gone from the ring before they could be read */
	uint64_t count; /* records in f[] */
	struct fl_fault f[FL_FAULTS_MAX];
};

#endif
