/* Address-space system calls (mm/mmap.c). */
#ifndef MM_MMAP_H
#define MM_MMAP_H

#include "kernel/compiler.h"

long sys_brk(uint64_t addr);

#endif
