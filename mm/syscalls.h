/* System calls on a range of memory, as the system call table (kernel/syscall.c) reaches
 * them; each group is defined in the mm/ file named above it. */
#ifndef MM_SYSCALLS_H
#define MM_SYSCALLS_H

#include "kernel/compiler.h"

/* mlock.c */
long sys_mlock(uint64_t addr, uint64_t len);
long sys_mlock2(uint64_t addr, uint64_t len, uint64_t flags);
long sys_munlock(uint64_t addr, uint64_t len);
long sys_mlockall(uint64_t flags);
long sys_munlockall(void);
/* mincore.c */
long sys_mincore(uint64_t start, uint64_t len, uint64_t uvec);
/* msync.c */
long sys_msync(uint64_t start, uint64_t len, uint64_t flags);
/* madvise.c */
long sys_madvise(uint64_t start, uint64_t len, uint64_t advice);

#endif
