/* Address-space system calls (mm/mmap.c). */
#ifndef MM_MMAP_H
#define MM_MMAP_H

#include "kernel/compiler.h"

long sys_brk(uint64_t addr);
long sys_mmap(uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags, int64_t fd,
	      uint64_t off);
long sys_munmap(uint64_t addr, uint64_t len);
long sys_mprotect(uint64_t addr, uint64_t len, uint64_t prot);

#endif
