/* execve (kernel/process/exec.c): load a static ELF program from the ramdisk into a new address
 * space. */
#ifndef KERNEL_EXEC_H
#define KERNEL_EXEC_H

#include "kernel/compiler.h"

#define USER_STACK_TOP 0x00007ffffffff000UL

/* Replace current's program with path; argv and envp are kernel strings. 0 (and current's
 * pt_regs now start the new program) or -errno (and nothing has changed). */
int do_execve(const char *path, const char *const *argv, const char *const *envp);

#endif
