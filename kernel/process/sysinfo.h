/* sysinfo(2) (kernel/process/sysinfo.c). */
#ifndef KERNEL_SYSINFO_H
#define KERNEL_SYSINFO_H

#include "kernel/compiler.h"

long sys_sysinfo(uint64_t uinfo);

#endif
