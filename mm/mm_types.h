/* struct mm_struct: one process's address space (Linux keeps it in <linux/mm_types.h>).
 * A task points at one; fork copies it, execve replaces it, exit drops it. */
#ifndef MM_MM_TYPES_H
#define MM_MM_TYPES_H

#include "kernel/lib/list.h"
#include "kernel/lib/rbtree.h"
#include "kernel/locking/rwsem.h"
#include "mm/pgtable.h"

struct vm_area_struct;

#define AT_VECTOR_SIZE 44 /* words of saved_auxv: room for 22 (type, value) pairs */

struct mm_struct {
	/* mmap_sem: the VMAs (list, tree, each VMA's fields) and the layout fields below; page
	 * faults hold it for reading, whatever changes VMAs for writing. page_table_lock: the
	 * page tables' entries and rss, taken inside mmap_sem (docs/locking.md). mmap_sem comes
	 * first: its address is the mm's, so do_page_fault needs no register for it
	 * (docs/bench.md, "Design choices, measured"). */
	struct rw_semaphore mmap_sem;
	spinlock_t page_table_lock;

	pgd_t *pgd; /* its own PML4; entries 256..511 are copies of the kernel's */
	/* bit n: CPU n may cache translations of this mm (it switched to it and has not left
	 * it since): who a shootdown must reach (mm/tlbflush.c). Changed with __atomic ops. */
	uint64_t cpu_vm_mask;
	int mm_users; /* tasks using it (the threads of a group share one); mmput frees at 0 */
	/* Linux's MMF_DUMPABLE: 1, or fs.suid_dumpable (0 or 2) once its ids changed (a core
	 * dump, and process_vm_readv by others than CAP_SYS_PTRACE, need 1); fork copies it, exec
	 * sets it again, prctl too */
	int dumpable;
	/* /proc/PID/coredump_filter: which kinds of memory a core dump holds (MMF_DUMP_* bits,
	 * kernel/fs/coredump.h); fork and exec keep it */
	unsigned long coredump_filter;
	/* The auxiliary vector exec gave the program, up to AT_NULL (a core dump's NT_AUXV) */
	uint64_t saved_auxv[AT_VECTOR_SIZE];

	/* The VMAs, kept twice as in Linux 2.6.23: a list sorted by address for walking and a
	 * red-black tree keyed by vm_end for find_vma; mmap_cache is the last one found. */
	struct list_head mmap;
	struct rb_root mm_rb;
	struct vm_area_struct *mmap_cache;
	int map_count;

	uint64_t start_code, end_code, start_data, end_data;
	uint64_t start_brk, brk; /* the heap: [start_brk, brk) */
	uint64_t start_stack;
	uint64_t mmap_base; /* mmap without a hint searches down from here */
	unsigned long rss; /* user frames mapped (for accounting tests) */
	/* Swap PTEs: pages of this mm out on a swap area (Linux's MM_SWAPENTS; the OOM report's
	 * swapents). Changed under page_table_lock, where a swap PTE is made or goes. */
	unsigned long swapents;
	/* flags every new VMA gets: VM_LOCKED after mlockall(MCL_FUTURE) */
	unsigned long def_flags;
	/* The program's file (a reference, and deny_write_access: no open for writing while the
	 * mm lives), /proc/PID/exe's target; NULL for none. fork's copy holds its own. */
	struct file *exe_file;
};

/*
 * The value of expr (a long), computed with mm's mmap_sem held for writing: the system calls
 * that change VMAs, whose work touches no user memory (a fault there would wait for the lock
 * this holds). A macro, so that each call stays one function, with no call through a pointer.
 */
#define mmap_write_locked(mm, expr)				\
	({							\
		struct rw_semaphore *__sem = &(mm)->mmap_sem;	\
		long __ret;					\
								\
		down_write(__sem);				\
		__ret = (expr);					\
		up_write(__sem);				\
		__ret;						\
	})

#endif
