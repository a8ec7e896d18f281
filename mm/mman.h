/* Overcommit accounting (Linux's <linux/mman.h>): the memory the address spaces were promised
 * (vm_committed_as, /proc/meminfo's Committed_AS) and the policy that may refuse a promise
 * (vm.overcommit_memory, mm/overcommit.c). Documented in docs/memory.md. */
#ifndef MM_MMAN_H
#define MM_MMAN_H

#include "kernel/compiler.h"

struct mm_struct;

/* vm.overcommit_memory, Linux's values */
#define OVERCOMMIT_GUESS  0 /* refuse only what could never fit: more than RAM and swap */
#define OVERCOMMIT_ALWAYS 1 /* never refuse */
#define OVERCOMMIT_NEVER  2 /* refuse past CommitLimit (vm_commit_limit) */

extern int sysctl_overcommit_memory;
/* CommitLimit is overcommit_ratio % of RAM, or overcommit_kbytes when that is not 0, plus
 * swap; writing one of the two sets the other to 0 (Linux's handlers). */
extern int sysctl_overcommit_ratio;
extern unsigned long sysctl_overcommit_kbytes;
/* What OVERCOMMIT_NEVER keeps back: from a process, at most 1/32 of its size up to
 * user_reserve_kbytes; from a caller without CAP_SYS_ADMIN, admin_reserve_kbytes. */
extern unsigned long sysctl_user_reserve_kbytes;
extern unsigned long sysctl_admin_reserve_kbytes;

/* Pages promised: VM_ACCOUNT VMAs (private writable memory, stacks, the heap) and the
 * sizes of shmem objects that reserve (shared anonymous memory, System V segments). */
extern long vm_committed_as;

static inline void vm_acct_memory(long pages)
{
	__atomic_add_fetch(&vm_committed_as, pages, __ATOMIC_RELAXED);
}

static inline void vm_unacct_memory(long pages)
{
	vm_acct_memory(-pages);
}

/* Committed_AS, in pages (never negative) */
unsigned long vm_memory_committed(void);
/* CommitLimit, in pages */
unsigned long vm_commit_limit(void);
/*
 * Promise pages more (for mm, NULL for none): 0 with them counted in vm_committed_as, or
 * -ENOMEM with nothing counted when the policy refuses (Linux's __vm_enough_memory, and
 * security_vm_enough_memory_mm that asks whether current has CAP_SYS_ADMIN). Whoever gets 0
 * gives the pages back with vm_unacct_memory when the memory goes.
 */
int __vm_enough_memory(struct mm_struct *mm, long pages, int cap_sys_admin);
int security_vm_enough_memory_mm(struct mm_struct *mm, long pages);

#endif
