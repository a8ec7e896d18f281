/* The kernel's own symbol table, generated at build time (kernel/gen-ksyms.sh) and linked in
 * its own section, so backtraces print function names without a debugger. */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include "kernel/compiler.h"

/* The name of the function containing addr and addr's offset in it, or NULL. */
const char *ksym_lookup(uint64_t addr, uint64_t *offset);
/* The address of the function called name, or 0. */
uint64_t ksym_address(const char *name);

#endif
