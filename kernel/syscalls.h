/* Every system call's entry point, as Linux's include/linux/syscalls.h declares them: made from
 * kernel/arch/syscall_64.tbl (build/gen/syscalls_64.h), so that a definition that disagrees
 * with its line there does not compile. */
#ifndef KERNEL_SYSCALLS_H
#define KERNEL_SYSCALLS_H

#include "kernel/compiler.h"

#define __SYSCALL(nr, name, entry, args) long entry args;
#include "build/gen/syscalls_64.h"
#undef __SYSCALL

#endif
