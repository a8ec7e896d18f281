/* Resource limits (getrlimit, setrlimit, prlimit64): each task's RLIM_NLIMITS soft/hard pairs,
 * inherited by fork and kept by execve, and the checks the memory calls make against them. */
#ifndef KERNEL_RESOURCE_H
#define KERNEL_RESOURCE_H

#include "kernel/compiler.h"

#define RLIMIT_CPU 0
#define RLIMIT_FSIZE 1
#define RLIMIT_DATA 2
#define RLIMIT_STACK 3
#define RLIMIT_CORE 4
#define RLIMIT_RSS 5
#define RLIMIT_NPROC 6
#define RLIMIT_NOFILE 7
#define RLIMIT_MEMLOCK 8
#define RLIMIT_AS 9
#define RLIMIT_LOCKS 10
#define RLIMIT_SIGPENDING 11
#define RLIMIT_MSGQUEUE 12
#define RLIMIT_NICE 13
#define RLIMIT_RTPRIO 14
#define RLIMIT_RTTIME 15
#define RLIM_NLIMITS 16
#define RLIM_INFINITY (~0UL)

/* The layout getrlimit/setrlimit/prlimit64 copy (struct rlimit64 is the same on x86-64). */
struct rlimit {
	uint64_t rlim_cur; /* the soft limit: what is enforced */
	uint64_t rlim_max; /* the hard limit: how far an unprivileged task may raise rlim_cur */
};

struct task_struct;
struct mm_struct;

/* The limits the first task (and so every task) starts with, Linux's defaults. */
void rlimit_init_task(struct task_struct *t);
/* current's soft limit for resource. */
uint64_t rlimit(int resource);
/* The soft RLIMIT_NOFILE: no descriptor of current may be at or past it. */
unsigned int rlimit_nofile(void);

/* mlock and mlock2's test (Linux's can_do_mlock): false (EPERM) for a task with a zero
 * RLIMIT_MEMLOCK and no CAP_IPC_LOCK. */
bool can_do_mlock(void);
/* Bytes of mm in VM_LOCKED VMAs, all of them or those within [start, end). */
uint64_t mm_locked_bytes(struct mm_struct *mm, uint64_t start, uint64_t end);
/* Would locking bytes more in mm stay within RLIMIT_MEMLOCK (or CAP_IPC_LOCK waive it)? A
 * VMA with no VM_LOCKED in vm_flags always may (Linux's mlock_future_ok). */
bool mlock_future_ok(struct mm_struct *mm, unsigned long vm_flags, uint64_t bytes);
/* Would bytes more of mapping with vm_flags stay within RLIMIT_AS and, for private writable
 * memory, RLIMIT_DATA (Linux's may_expand_vm)? */
bool may_expand_vm(struct mm_struct *mm, unsigned long vm_flags, uint64_t bytes);
/* A write of *count bytes at pos to a regular file (Linux's generic_write_check_limits):
 * -EFBIG and SIGXFSZ when pos is at or past RLIMIT_FSIZE, else *count cut to end there. */
long fsize_write_check(uint64_t pos, uint64_t *count);
/* A regular file growing to size (Linux's inode_newsize_ok): -EFBIG and SIGXFSZ past
 * RLIMIT_FSIZE. */
long fsize_newsize_ok(uint64_t size);

#endif
